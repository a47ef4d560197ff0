//! The planet's voxel grid: how many cells cross a face at each LOD, how tall
//! the layers of the voxel shell are, and the canonical form of grid points,
//! which makes the six face grids one seamless grid.
//!
//! A face at LOD L has `n = 32 · 2^(max_lod - L)` cells across; its grid
//! points are (x, y) in 0..=n with u = 2x/n - 1. A point up to a few cells
//! beyond a face edge is the neighbour face's point the same number of cells
//! inside it (the grid "unfolds" across edges). A point on an edge or corner
//! belongs to two or three faces; its canonical form is the one on the
//! lowest-numbered face. Every per-column value is computed from the canonical
//! point, so regions on different faces compute bit-identical overlaps.
//! Beyond a cube corner (out of range in both x and y) there is no grid point.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::cube_sphere::direction;
use super::face::{Edge, Face};
use crate::recipe::PlanetRecipe;

/// Voxels along each side of a region.
pub const REGION_CELLS: i32 = 32;
/// Samples along each side of a region's window: its cells plus a margin of 2
/// on each side (for polygonizing across its borders, and an overlap against seams).
pub const WINDOW: usize = 36;
/// Margin of the sample window before the region's first cell.
pub const MARGIN: i32 = 2;

/// A point of a face grid at some LOD.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct GridPoint {
    /// The face.
    pub face: Face,
    /// Column along u, 0..=n on the face.
    pub x: i32,
    /// Column along v, 0..=n on the face.
    pub y: i32,
}

/// The grid of one planet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanetGrid {
    /// Base radius, metres.
    pub radius_m: f32,
    /// The coarsest LOD, at which one region covers a face.
    pub max_lod: u8,
    /// Height of the voxel shell, metres.
    pub shell_m: f32,
    /// How far the shell reaches below the elevated surface, metres.
    pub shell_below_m: f32,
}

impl PlanetGrid {
    /// The grid of a planet: LOD-0 cells as close to 1 m across as a power of
    /// two allows (0.71..=1.41 m at the base radius, on the face centre lines).
    #[must_use]
    pub fn new(recipe: &PlanetRecipe) -> Self {
        Self {
            shell_m: recipe.shell.thickness_m as f32,
            shell_below_m: recipe.shell.depth_below_surface_m,
            ..Self::of_radius(recipe.radius_m)
        }
    }

    /// The face grid of a planet of base radius `radius_m` (no shell): what
    /// the plan grid needs.
    #[must_use]
    pub fn of_radius(radius_m: f32) -> Self {
        let arc = radius_m * core::f32::consts::FRAC_PI_2;
        let regions = arc / REGION_CELLS as f32;
        // round(log2(regions)) without a float log: compare with sqrt(2) steps.
        let mut max_lod = 0u8;
        while (1u64 << (max_lod + 1)) as f32 <= regions * core::f32::consts::FRAC_1_SQRT_2 * 2.0 && max_lod < 20 {
            max_lod += 1;
        }
        Self { radius_m, max_lod, shell_m: 0.0, shell_below_m: 0.0 }
    }

    /// Cells across a face at `lod`.
    #[inline]
    #[must_use]
    pub fn cells_across(&self, lod: u8) -> i32 {
        REGION_CELLS << (self.max_lod - lod)
    }

    /// Regions across a face at `lod`.
    #[inline]
    #[must_use]
    pub fn regions_across(&self, lod: u8) -> u32 {
        1 << (self.max_lod - lod)
    }

    /// Height of a layer of voxels at `lod`, metres: 2^lod, but never more than
    /// a 32nd of the shell, so that coarse LODs keep one region of 32 layers
    /// through the whole shell (with a 128 m shell: 1, 2, then 4 m from LOD 2 on).
    #[inline]
    #[must_use]
    pub fn layer_m(&self, lod: u8) -> f32 {
        ((1u32 << lod) as f32).min(self.shell_m / REGION_CELLS as f32)
    }

    /// Regions stacked through the shell at `lod`.
    #[inline]
    #[must_use]
    pub fn regions_up(&self, lod: u8) -> u32 {
        (self.shell_m / (REGION_CELLS as f32 * self.layer_m(lod))) as u32
    }

    /// Width of a cell at `lod` on the base sphere at a face's centre, metres.
    #[inline]
    #[must_use]
    pub fn cell_m(&self, lod: u8) -> f32 {
        self.radius_m * core::f32::consts::FRAC_PI_2 / self.cells_across(lod) as f32
    }

    /// Face coordinates (u, v) of grid column (x, y) at `lod`. Exact: n is a power of two.
    #[inline]
    #[must_use]
    pub fn face_uv(&self, lod: u8, x: i32, y: i32) -> (f32, f32) {
        let scale = 2.0 / self.cells_across(lod) as f32;
        (x as f32 * scale - 1.0, y as f32 * scale - 1.0)
    }

    /// Unit direction of a canonical grid point.
    #[inline]
    #[must_use]
    pub fn direction(&self, lod: u8, p: GridPoint) -> Vec3 {
        let (u, v) = self.face_uv(lod, p.x, p.y);
        direction(p.face, u, v)
    }

    /// The canonical form of a grid point, or `None` beyond a cube corner.
    /// Points may lie up to one face width beyond one edge of their face.
    #[must_use]
    pub fn canonical(&self, lod: u8, p: GridPoint) -> Option<GridPoint> {
        let n = self.cells_across(lod);
        let p = cross_once(p, n)?;
        // On an edge or corner: gather its two or three representations, keep the least.
        let mut reps = [p; 3];
        let mut count = 1;
        let mut i = 0;
        while i < count {
            let r = reps[i];
            for edge in edges_of(r, n) {
                let q = cross(r, edge, 0, along_of(r, edge), n);
                if !reps[..count].contains(&q) && count < 3 {
                    reps[count] = q;
                    count += 1;
                }
            }
            i += 1;
        }
        reps[..count].iter().min().copied()
    }
}

/// A cell of a region's frame, as its own face sees it: the face it lies on,
/// its minimum corner there, and where each of the frame's corners lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellFrame {
    /// The face the cell lies on.
    pub face: Face,
    /// Minimum corner of the cell on that face.
    pub x: i32,
    /// Minimum corner of the cell on that face.
    pub y: i32,
    /// For the frame's corner (i, j) at index i + 2j: its offset (0 or 1, 0 or 1) on `face`.
    pub corners: [(u8, u8); 4],
}

impl CellFrame {
    /// Whether the frame is the cell's own (no rotation or reflection).
    #[must_use]
    pub fn is_identity(&self) -> bool {
        self.corners == [(0, 0), (1, 0), (0, 1), (1, 1)]
    }
}

impl PlanetGrid {
    /// The cell whose minimum corner is `p` (in `p.face`'s frame, possibly
    /// beyond one of its edges), seen from the face it lies on. `None` for a cell
    /// beyond a cube corner, which does not exist.
    #[must_use]
    pub fn cell_frame(&self, lod: u8, p: GridPoint) -> Option<CellFrame> {
        let n = self.cells_across(lod);
        if (0..n).contains(&p.x) && (0..n).contains(&p.y) {
            return Some(CellFrame { face: p.face, x: p.x, y: p.y, corners: [(0, 0), (1, 0), (0, 1), (1, 1)] });
        }
        // Beyond one edge: carry each corner over it (corners on the edge itself too).
        let beyond_x = p.x < 0 || p.x >= n;
        let beyond_y = p.y < 0 || p.y >= n;
        if beyond_x && beyond_y {
            return None;
        }
        let carried: Vec<GridPoint> = [(0, 0), (1, 0), (0, 1), (1, 1)]
            .iter()
            .map(|&(i, j)| {
                let (x, y) = (p.x + i, p.y + j);
                let (edge, k, t) = if beyond_x {
                    if p.x >= n { (Edge::UMax, x - n, y) } else { (Edge::UMin, -x, y) }
                } else if p.y >= n {
                    (Edge::VMax, y - n, x)
                } else {
                    (Edge::VMin, -y, x)
                };
                cross(GridPoint { face: p.face, x, y }, edge, k, t, n)
            })
            .collect();
        let face = carried[0].face;
        let min_x = carried.iter().map(|c| c.x).min()?;
        let min_y = carried.iter().map(|c| c.y).min()?;
        let mut corners = [(0u8, 0u8); 4];
        for (slot, c) in corners.iter_mut().zip(&carried) {
            *slot = ((c.x - min_x) as u8, (c.y - min_y) as u8);
        }
        Some(CellFrame { face, x: min_x, y: min_y, corners })
    }
}

/// The edges of its face a point lies on.
fn edges_of(p: GridPoint, n: i32) -> impl Iterator<Item = Edge> {
    [(p.x == 0, Edge::UMin), (p.x == n, Edge::UMax), (p.y == 0, Edge::VMin), (p.y == n, Edge::VMax)]
        .into_iter()
        .filter_map(|(on, e)| on.then_some(e))
}

fn along_of(p: GridPoint, edge: Edge) -> i32 {
    match edge {
        Edge::UMin | Edge::UMax => p.y,
        Edge::VMin | Edge::VMax => p.x,
    }
}

/// The point `k` cells inside the face across `edge`, at `t` along the edge.
fn cross(p: GridPoint, edge: Edge, k: i32, t: i32, n: i32) -> GridPoint {
    let c = p.face.crossing(edge);
    let along = if c.along_flipped { n - t } else { t };
    let across = if c.edge_at_max { n - k } else { k };
    if c.across_is_x {
        GridPoint { face: c.face, x: across, y: along }
    } else {
        GridPoint { face: c.face, x: along, y: across }
    }
}

/// Moves a point that is beyond one edge of its face onto the neighbour face.
fn cross_once(p: GridPoint, n: i32) -> Option<GridPoint> {
    let out_x = p.x < 0 || p.x > n;
    let out_y = p.y < 0 || p.y > n;
    match (out_x, out_y) {
        (false, false) => Some(p),
        (true, true) => None,
        (true, false) => {
            let (edge, k) = if p.x > n { (Edge::UMax, p.x - n) } else { (Edge::UMin, -p.x) };
            (k <= n).then(|| cross(p, edge, k, p.y, n))
        }
        (false, true) => {
            let (edge, k) = if p.y > n { (Edge::VMax, p.y - n) } else { (Edge::VMin, -p.y) };
            (k <= n).then(|| cross(p, edge, k, p.x, n))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipe::{PlanetKind, derive_recipe};

    fn grid() -> PlanetGrid {
        PlanetGrid::new(&derive_recipe(PlanetKind::Rocky, 1))
    }

    #[test]
    fn cells_are_about_a_metre() {
        for seed in 0..50 {
            let r = derive_recipe(PlanetKind::Ocean, seed);
            let g = PlanetGrid::new(&r);
            let m = g.cell_m(0);
            assert!((0.70..=1.42).contains(&m), "radius {} -> cell {m} m (max_lod {})", r.radius_m, g.max_lod);
            assert_eq!(g.regions_across(g.max_lod), 1);
        }
        let g = grid();
        assert_eq!((g.layer_m(0), g.layer_m(1), g.layer_m(2), g.layer_m(5)), (1.0, 2.0, 4.0, 4.0));
        assert_eq!((g.regions_up(0), g.regions_up(1), g.regions_up(2), g.regions_up(6)), (4, 2, 1, 1));
    }

    #[test]
    fn canonical_points_are_the_same_place() {
        let g = grid();
        for lod in [0, 3, g.max_lod] {
            let n = g.cells_across(lod);
            for face in Face::ALL {
                for (x, y) in [(n + 2, 5), (-1, n / 3), (n / 2, n + 3), (7, -2), (n, n / 2), (0, 0), (n, n)] {
                    let p = GridPoint { face, x, y };
                    let c = g.canonical(lod, p).unwrap();
                    assert!((0..=n).contains(&c.x) && (0..=n).contains(&c.y));
                    // Canonicalising is idempotent.
                    assert_eq!(g.canonical(lod, c), Some(c));
                    if (0..=n).contains(&x) && (0..=n).contains(&y) {
                        // A point of the face itself: same direction, within rounding.
                        assert!((g.direction(lod, c) - g.direction(lod, p)).length() < 1e-6, "{p:?} {c:?}");
                    }
                }
                assert_eq!(g.canonical(lod, GridPoint { face, x: n + 1, y: -1 }), None);
            }
        }
    }

    #[test]
    fn cells_beyond_an_edge_are_the_neighbour_faces_cells() {
        let g = grid();
        let lod = 3;
        let n = g.cells_across(lod);
        for face in Face::ALL {
            for p in [(n, 5), (n + 2, n / 2), (-1, 7), (-3, n - 2), (4, n), (n / 3, -2)] {
                let p = GridPoint { face, x: p.0, y: p.1 };
                let f = g.cell_frame(lod, p).unwrap();
                assert_ne!(f.face, face);
                assert!((0..n).contains(&f.x) && (0..n).contains(&f.y), "{p:?} -> {f:?}");
                // Its corners, carried over, are the canonical points of the frame's corners.
                for (idx, &(i, j)) in [(0, 0), (1, 0), (0, 1), (1, 1)].iter().enumerate() {
                    let (ox, oy) = f.corners[idx];
                    let there = GridPoint { face: f.face, x: f.x + i32::from(ox), y: f.y + i32::from(oy) };
                    let here = GridPoint { face, x: p.x + i, y: p.y + j };
                    assert_eq!(g.canonical(lod, here), g.canonical(lod, there));
                }
                // The four corners are a permutation of the cell's.
                let mut c = f.corners;
                c.sort_unstable();
                assert_eq!(c, [(0, 0), (0, 1), (1, 0), (1, 1)]);
            }
            assert!(g.cell_frame(lod, GridPoint { face, x: 3, y: 4 }).unwrap().is_identity());
            assert_eq!(g.cell_frame(lod, GridPoint { face, x: n, y: -1 }), None);
        }
    }

    #[test]
    fn walking_across_every_edge_and_back_returns() {
        let g = grid();
        let lod = 2;
        let n = g.cells_across(lod);
        for face in Face::ALL {
            for t in [1, n / 4, n - 1] {
                for (edge, start) in
                    [(Edge::UMax, (n - 1, t)), (Edge::UMin, (1, t)), (Edge::VMax, (t, n - 1)), (Edge::VMin, (t, 1))]
                {
                    // Step three cells outward across the edge, then three back.
                    let (dx, dy) = match edge {
                        Edge::UMax => (1, 0),
                        Edge::UMin => (-1, 0),
                        Edge::VMax => (0, 1),
                        Edge::VMin => (0, -1),
                    };
                    let beyond = GridPoint { face, x: start.0 + 3 * dx, y: start.1 + 3 * dy };
                    let there = g.canonical(lod, beyond).unwrap();
                    assert_eq!(there.face, face.crossing(edge).face);
                    // The unfolded step from the far side points back: 3 cells back across is the start.
                    let back_edge = {
                        let c = face.crossing(edge);
                        match (c.across_is_x, c.edge_at_max) {
                            (true, true) => (1, 0),
                            (true, false) => (-1, 0),
                            (false, true) => (0, 1),
                            (false, false) => (0, -1),
                        }
                    };
                    let home =
                        GridPoint { face: there.face, x: there.x + 3 * back_edge.0, y: there.y + 3 * back_edge.1 };
                    assert_eq!(
                        g.canonical(lod, home),
                        Some(GridPoint { face, x: start.0, y: start.1 }),
                        "{face:?} {edge:?} {t}"
                    );
                    // Neighbouring directions are neighbours on the sphere (about one cell apart).
                    let two = g.canonical(lod, GridPoint { face, x: start.0 + 2 * dx, y: start.1 + 2 * dy }).unwrap();
                    let step = (g.direction(lod, there) - g.direction(lod, two)).length();
                    let cell = core::f32::consts::FRAC_PI_2 / n as f32;
                    assert!(step < cell * 1.6 && step > cell * 0.5, "step {step} vs cell {cell}");
                }
            }
        }
    }
}
