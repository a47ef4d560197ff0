//! A region's window of columns, each tied to its canonical grid point and to
//! the lattice nodes (every 4th grid point) that smooth fields are interpolated
//! from.
//!
//! Bit-identical overlaps between regions, across face edges too, come from
//! three rules:
//! 1. every column value is a pure function of the column's canonical point;
//! 2. a column's lattice cell is chosen in the frame of its canonical face, so
//!    its nodes are the same canonical nodes whichever region asks;
//! 3. the interpolation is a sum over those nodes in canonical order, with
//!    weights (products of per-axis weights) that every frame computes alike.
//!
//! Columns beyond a cube corner have no canonical point: they use their own
//! face's grid extended past the corner, and belong to no other region.

use std::collections::BTreeMap;

use glam::Vec3;

use crate::geometry::{GridPoint, PlanetGrid, RegionKey, direction, direction_warped, warp};

/// Grid cells between lattice nodes.
pub const LATTICE: i32 = 4;

/// A lattice node: a canonical grid point, or one beyond a cube corner in the
/// window's own frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum NodeKey {
    /// A point of the planet's grid.
    Canonical(GridPoint),
    /// A point of the window's face extended beyond a cube corner.
    Extended(GridPoint),
}

/// One column of a window.
#[derive(Clone, Copy, Debug)]
pub struct Site {
    /// The column's canonical grid point (`None` beyond a cube corner).
    pub canonical: Option<GridPoint>,
    /// Unit direction of the column.
    pub direction: Vec3,
    /// Interpolation terms (node index, weight), weights > 0, in canonical node order.
    pub terms: [(u32, f32); 4],
    /// How many of `terms` are used.
    pub term_count: u8,
}

impl Site {
    /// The used interpolation terms.
    #[inline]
    #[must_use]
    pub fn terms(&self) -> &[(u32, f32)] {
        &self.terms[..usize::from(self.term_count)]
    }
}

/// The columns of a region's window and the lattice nodes they need.
#[derive(Clone, Debug)]
pub struct Window {
    /// The region.
    pub key: RegionKey,
    /// Columns along each side.
    pub side: usize,
    /// Region-frame grid coordinates of the first column.
    pub origin: (i32, i32),
    /// Columns, x fastest.
    pub sites: Vec<Site>,
    /// The lattice nodes, indexed by `Site::terms`.
    pub nodes: Vec<NodeKey>,
    /// Direction of each node.
    pub node_directions: Vec<Vec3>,
}

/// Per-axis interpolation weights of a coordinate `c` in the lattice cell from `c0`.
fn axis_weights(c: i32, c0: i32) -> (f32, f32) {
    let f = (c - c0) as f32 * (1.0 / LATTICE as f32);
    (1.0 - f, f)
}

impl Window {
    /// The window of `key` with `margin` extra columns on each side of its 32.
    #[must_use]
    pub fn new(grid: &PlanetGrid, key: RegionKey, margin: i32) -> Self {
        let n = grid.cells_across(key.lod);
        let side = (32 + 2 * margin) as usize;
        let origin = (key.x as i32 * 32 - margin, key.y as i32 * 32 - margin);
        let last = (origin.0 + side as i32 - 1, origin.1 + side as i32 - 1);
        // Nodes (and so every column) strictly inside the face: no canonicalising needed.
        let interior =
            origin.0 - LATTICE >= 1 && origin.1 - LATTICE >= 1 && last.0 + LATTICE < n && last.1 + LATTICE < n;
        if interior { Self::interior(grid, key, side, origin) } else { Self::general(grid, key, side, origin) }
    }

    /// The fast path: the whole window is one face's grid; nodes form a plain array.
    fn interior(grid: &PlanetGrid, key: RegionKey, side: usize, origin: (i32, i32)) -> Self {
        let face = key.face();
        let lod = key.lod;
        let n0 = (origin.0.div_euclid(LATTICE) * LATTICE, origin.1.div_euclid(LATTICE) * LATTICE);
        let per_axis = ((origin.0 + side as i32 - 1 - n0.0) / LATTICE + 2) as usize;
        let scale = 2.0 / grid.cells_across(lod) as f32;
        let warped = |c: i32| warp(c as f32 * scale - 1.0);

        let mut nodes = Vec::with_capacity(per_axis * per_axis);
        let mut node_directions = Vec::with_capacity(per_axis * per_axis);
        // Node index = i * per_axis + j: x major, matching the canonical (face, x, y) order.
        let wy_nodes: Vec<f32> = (0..per_axis).map(|j| warped(n0.1 + j as i32 * LATTICE)).collect();
        for i in 0..per_axis {
            let x = n0.0 + i as i32 * LATTICE;
            let wx = warped(x);
            for (j, &wy) in wy_nodes.iter().enumerate() {
                nodes.push(NodeKey::Canonical(GridPoint { face, x, y: n0.1 + j as i32 * LATTICE }));
                node_directions.push(direction_warped(face, wx, wy));
            }
        }
        let wy_cols: Vec<f32> = (0..side).map(|b| warped(origin.1 + b as i32)).collect();
        let wx_cols: Vec<f32> = (0..side).map(|a| warped(origin.0 + a as i32)).collect();
        let mut sites = Vec::with_capacity(side * side);
        for b in 0..side {
            let y = origin.1 + b as i32;
            let j = ((y - n0.1) / LATTICE) as usize;
            let (wy0, wy1) = axis_weights(y, n0.1 + j as i32 * LATTICE);
            for a in 0..side {
                let x = origin.0 + a as i32;
                let i = ((x - n0.0) / LATTICE) as usize;
                let (wx0, wx1) = axis_weights(x, n0.0 + i as i32 * LATTICE);
                let mut terms = [(0u32, 0f32); 4];
                let mut count = 0;
                for (idx, w) in [
                    (i * per_axis + j, wx0 * wy0),
                    (i * per_axis + j + 1, wx0 * wy1),
                    ((i + 1) * per_axis + j, wx1 * wy0),
                    ((i + 1) * per_axis + j + 1, wx1 * wy1),
                ] {
                    if w > 0.0 {
                        terms[count] = (idx as u32, w);
                        count += 1;
                    }
                }
                sites.push(Site {
                    canonical: Some(GridPoint { face, x, y }),
                    direction: direction_warped(face, wx_cols[a], wy_cols[b]),
                    terms,
                    term_count: count as u8,
                });
            }
        }
        Self { key, side, origin, sites, nodes, node_directions }
    }

    /// The general path, near face edges and corners.
    fn general(grid: &PlanetGrid, key: RegionKey, side: usize, origin: (i32, i32)) -> Self {
        let lod = key.lod;
        let face = key.face();
        let n = grid.cells_across(lod);
        let mut index: BTreeMap<NodeKey, u32> = BTreeMap::new();
        let mut nodes = Vec::new();
        let mut node_directions = Vec::new();
        let mut node = |k: NodeKey| -> u32 {
            *index.entry(k).or_insert_with(|| {
                nodes.push(k);
                node_directions.push(match k {
                    NodeKey::Canonical(p) => grid.direction(lod, p),
                    NodeKey::Extended(p) => extended_direction(grid, lod, p),
                });
                (nodes.len() - 1) as u32
            })
        };
        let mut sites = Vec::with_capacity(side * side);
        for b in 0..side {
            for a in 0..side {
                let p = GridPoint { face, x: origin.0 + a as i32, y: origin.1 + b as i32 };
                let canonical = grid.canonical(lod, p);
                // The lattice cell in the frame of the column's own face (rule 2).
                let (frame, cell_x, cell_y) = match canonical {
                    Some(c) => {
                        let last = n / LATTICE - 1;
                        (c, (c.x / LATTICE).min(last) * LATTICE, (c.y / LATTICE).min(last) * LATTICE)
                    }
                    None => (p, p.x.div_euclid(LATTICE) * LATTICE, p.y.div_euclid(LATTICE) * LATTICE),
                };
                let (wx0, wx1) = axis_weights(frame.x, cell_x);
                let (wy0, wy1) = axis_weights(frame.y, cell_y);
                let mut pairs: Vec<(NodeKey, f32)> = Vec::with_capacity(4);
                for (dx, dy, w) in [(0, 0, wx0 * wy0), (0, 1, wx0 * wy1), (1, 0, wx1 * wy0), (1, 1, wx1 * wy1)] {
                    if w > 0.0 {
                        let q = GridPoint { face: frame.face, x: cell_x + dx * LATTICE, y: cell_y + dy * LATTICE };
                        let k = match grid.canonical(lod, q) {
                            Some(c) => NodeKey::Canonical(c),
                            None => NodeKey::Extended(q),
                        };
                        pairs.push((k, w));
                    }
                }
                pairs.sort_by_key(|p| p.0);
                let mut terms = [(0u32, 0f32); 4];
                for (t, (k, w)) in terms.iter_mut().zip(&pairs) {
                    *t = (node(*k), *w);
                }
                sites.push(Site {
                    canonical,
                    direction: match canonical {
                        Some(c) => grid.direction(lod, c),
                        None => extended_direction(grid, lod, p),
                    },
                    terms,
                    term_count: pairs.len() as u8,
                });
            }
        }
        Self { key, side, origin, sites, nodes, node_directions }
    }

    /// The site of window column (a, b).
    #[inline]
    #[must_use]
    pub fn site(&self, a: usize, b: usize) -> &Site {
        &self.sites[b * self.side + a]
    }

    /// Interpolates per-node arrays of `N` fields at a site (rule 3).
    #[inline]
    #[must_use]
    pub fn interpolate<const N: usize>(site: &Site, values: &[[f32; N]]) -> [f32; N] {
        let mut out = [0.0; N];
        for &(i, w) in site.terms() {
            let v = &values[i as usize];
            for k in 0..N {
                out[k] += w * v[k];
            }
        }
        out
    }
}

/// Direction of a point of `p.face`'s grid extended beyond its edges.
fn extended_direction(grid: &PlanetGrid, lod: u8, p: GridPoint) -> Vec3 {
    let (u, v) = grid.face_uv(lod, p.x, p.y);
    direction(p.face, u, v)
}

/// Whether a canonical column is within `d` cells of a cube corner, where the
/// grid's four-neighbourhood is not the same in every frame.
#[must_use]
pub fn near_cube_corner(grid: &PlanetGrid, lod: u8, p: GridPoint, d: i32) -> bool {
    let n = grid.cells_across(lod);
    let near = |c: i32| c <= d || c >= n - d;
    near(p.x) && near(p.y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipe::{PlanetKind, derive_recipe};

    fn grid() -> PlanetGrid {
        PlanetGrid::new(&derive_recipe(PlanetKind::Rocky, 3))
    }

    #[test]
    fn interior_and_general_paths_agree() {
        let g = grid();
        let key = RegionKey { face: 2, lod: 1, x: 5, y: 9, z: 0 };
        let w = Window::new(&g, key, 3);
        let slow = Window::general(&g, key, w.side, w.origin);
        for (a, b) in w.sites.iter().zip(&slow.sites) {
            assert_eq!(a.canonical, b.canonical);
            assert_eq!(a.direction, b.direction);
            let ka: Vec<_> = a.terms().iter().map(|&(i, wt)| (w.nodes[i as usize], wt)).collect();
            let kb: Vec<_> = b.terms().iter().map(|&(i, wt)| (slow.nodes[i as usize], wt)).collect();
            assert_eq!(ka, kb);
        }
    }

    #[test]
    fn weights_sum_to_one() {
        let g = grid();
        let w = Window::new(&g, RegionKey { face: 0, lod: 2, x: 0, y: 0, z: 0 }, 3);
        for s in &w.sites {
            let total: f32 = s.terms().iter().map(|t| t.1).sum();
            assert!((total - 1.0).abs() < 1e-6);
        }
    }
}
