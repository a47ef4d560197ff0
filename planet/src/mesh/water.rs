//! The water polygonizer: the sea surface over a region's footprint, a grid
//! of quads two cells wide at the sea's radius, and the rivers' and lakes'
//! water, quads whose corners stand at the water level of their columns
//! (`Column::water_m`, from the layout), stepping down a river. The bottom
//! region of each column draws both, whether or not its voxel shell reaches
//! down to them, and skips quads wholly under high ground. Corners are
//! canonical grid points and levels pure functions of them, so neighbours'
//! water meets exactly, across face edges too. Quads of one kind share
//! their corners' vertices (a corner's level is its column's): a sea
//! region holds a vertex a corner, not four. Water has no overlap strip:
//! blended twice over a neighbour's own quads it would show as bands, so
//! the renderer never drew one.

use glam::Vec3;

use super::cube_mesh::{CubePart, CubeVertex};
use crate::geometry::{GridPoint, REGION_CELLS, RegionKey, WINDOW};
use crate::terrain::{ColumnField, Terrain};

/// Cells per water quad.
const STEP: i32 = 2;

/// The sea surface of the region of `columns`, into `out` (empty unless the
/// planet has a sea and the region is the bottom of its column).
pub fn water(terrain: &Terrain, columns: &ColumnField, out: &mut CubePart) {
    out.clear();
    if columns.key.z != 0 {
        return;
    }
    if terrain.recipe.sea.enabled {
        sea(terrain, columns, out);
    }
    inland(terrain, columns, out);
}

/// The sea's quads.
fn sea(terrain: &Terrain, columns: &ColumnField, out: &mut CubePart) {
    let key = columns.key;
    let sea = &terrain.recipe.sea;
    let (x0, y0) = (key.x as i32 * REGION_CELLS, key.y as i32 * REGION_CELLS);
    let quads = REGION_CELLS / STEP;
    let mut shared = Corners::new(key);
    // Surface height at a grid point of the window, where the window has it.
    let surface = |x: i32, y: i32| {
        let (a, b) = (x - x0 + 2, y - y0 + 2);
        ((0..WINDOW as i32).contains(&a) && (0..WINDOW as i32).contains(&b))
            .then(|| columns.at(a as usize, b as usize).surface_m())
    };
    for qy in 0..quads {
        for qx in 0..quads {
            let (x, y) = (x0 + qx * STEP, y0 + qy * STEP);
            let corners = [(x, y), (x + STEP, y), (x + STEP, y + STEP), (x, y + STEP)];
            // Hidden under ground at every corner: skip.
            if corners.iter().all(|&(cx, cy)| surface(cx, cy).is_some_and(|s| s > sea.level_m + 1.0)) {
                continue;
            }
            push_quad(terrain, corners, [sea.level_m; 4], &mut shared, out);
        }
    }
}

/// The rivers' and lakes' quads: where every corner's column has water, not
/// every corner's ground stands above it, and the water is above the sea.
fn inland(terrain: &Terrain, columns: &ColumnField, out: &mut CubePart) {
    let key = columns.key;
    let sea = &terrain.recipe.sea;
    let sea_top = if sea.enabled { sea.level_m + 0.1 } else { f32::MIN };
    let (x0, y0) = (key.x as i32 * REGION_CELLS, key.y as i32 * REGION_CELLS);
    let quads = REGION_CELLS / STEP;
    let mut shared = Corners::new(key);
    let column = |x: i32, y: i32| {
        let (a, b) = (x - x0 + 2, y - y0 + 2);
        ((0..WINDOW as i32).contains(&a) && (0..WINDOW as i32).contains(&b)).then(|| columns.at(a as usize, b as usize))
    };
    for qy in 0..quads {
        for qx in 0..quads {
            let (x, y) = (x0 + qx * STEP, y0 + qy * STEP);
            let corners = [(x, y), (x + STEP, y), (x + STEP, y + STEP), (x, y + STEP)];
            let cols: Vec<_> = corners.iter().filter_map(|&(cx, cy)| column(cx, cy)).collect();
            if cols.len() < 4 || cols.iter().any(|c| c.water().is_none()) {
                continue;
            }
            if cols.iter().all(|c| c.surface_m() > c.water_m + 0.5) || cols.iter().all(|c| c.water_m <= sea_top) {
                continue;
            }
            let levels = [cols[0].water_m, cols[1].water_m, cols[2].water_m, cols[3].water_m];
            push_quad(terrain, corners, levels, &mut shared, out);
        }
    }
}

/// The vertex of each quad corner of a region's water of one kind, once made.
struct Corners {
    /// The region's LOD and face, whose grid the corners are points of.
    lod: u8,
    face: crate::geometry::Face,
    /// Region-frame grid coordinates of the region's first corner.
    origin: (i32, i32),
    /// Vertex index per corner, x fastest (`NONE` until made).
    index: [u32; CORNERS * CORNERS],
}

/// Quad corners along a region's side.
const CORNERS: usize = (REGION_CELLS / STEP + 1) as usize;
const NONE: u32 = u32::MAX;

impl Corners {
    fn new(key: RegionKey) -> Self {
        let (x0, y0) = (key.x as i32 * REGION_CELLS, key.y as i32 * REGION_CELLS);
        Self { lod: key.lod, face: key.face(), origin: (x0, y0), index: [NONE; CORNERS * CORNERS] }
    }

    /// The slot of grid point (x, y), a quad corner of the region's water.
    fn slot(&mut self, (x, y): (i32, i32)) -> &mut u32 {
        let (i, j) = ((x - self.origin.0) / STEP, (y - self.origin.1) / STEP);
        &mut self.index[j as usize * CORNERS + i as usize]
    }
}

/// One water quad over grid corners `corners` (in the region's frame) at
/// their `levels`; none beyond a cube corner, where a corner has no grid
/// point. A corner's vertex is made once (`shared`) and used by every quad
/// of the kind that meets there.
fn push_quad(terrain: &Terrain, corners: [(i32, i32); 4], levels: [f32; 4], shared: &mut Corners, out: &mut CubePart) {
    let (lod, face) = (shared.lod, shared.face);
    let points = corners.map(|(x, y)| terrain.grid.canonical(lod, GridPoint { face, x, y }));
    if points.iter().any(Option::is_none) {
        return;
    }
    let material = terrain.recipe.sea.material as u8;
    let mut at = [0u32; 4];
    for (k, (p, base_m)) in points.into_iter().flatten().zip(levels).enumerate() {
        let slot = shared.slot(corners[k]);
        if *slot == NONE {
            *slot = out.vertices.len() as u32;
            out.vertices.push(CubeVertex {
                face: p.face.index(),
                cell: [p.x, p.y, 0],
                local: Vec3::ZERO,
                base_m,
                base_slope: [0.0, 0.0],
                smooth_normal: Vec3::Z,
                face_normal: Vec3::Z,
                materials: [material; 2],
                blend: 0,
                sky: u8::MAX,
            });
        }
        at[k] = *slot;
    }
    out.triangles.extend_from_slice(&[at[0], at[1], at[2], at[0], at[2], at[3]]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlannedSystem;
    use std::collections::BTreeSet;

    /// Over bottom regions at random places of every default planet, LODs 0
    /// to 6: for the sea and for inland water each, every corner's vertex
    /// is made once and used, and no quad is lost to the sharing (its two
    /// triangles are over four distinct corners); `water` is the two
    /// together, with no overlap strip. (A river's corner at the sea's level
    /// has a vertex of each kind.)
    #[test]
    fn water_quads_share_their_corners_and_keep_no_strip() {
        let system = PlannedSystem::default_system();
        let mut draw = crate::hash::HashStream::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move |n: u32| draw.index(n as usize) as u32;
        let (mut regions, mut quads) = (0, 0);
        let (mut out, mut kind) = (CubePart::default(), CubePart::default());
        for plan in &system.planets {
            let terrain = Terrain::new(plan);
            for _ in 0..40 {
                let lod = next(7) as u8;
                let across = terrain.grid.regions_across(lod);
                let key = RegionKey { face: next(6) as u8, lod, x: next(across), y: next(across), z: 0 };
                let columns = terrain.columns(key);
                water(&terrain, &columns, &mut out);
                assert!(out.overlap.is_empty(), "{key}: an overlap strip");
                let mut vertices = 0;
                let kinds: [fn(&Terrain, &ColumnField, &mut CubePart); 2] = [sea, inland];
                for (k, make) in kinds.into_iter().enumerate() {
                    kind.clear();
                    if k == 1 || terrain.recipe.sea.enabled {
                        make(&terrain, &columns, &mut kind);
                    }
                    shares_its_corners(&kind, key);
                    vertices += kind.vertices.len();
                }
                assert_eq!(out.vertices.len(), vertices, "{key}: not the sea's and inland water's vertices");
                regions += usize::from(!out.triangles.is_empty());
                quads += out.triangles.len() / 6;
            }
        }
        assert!(regions >= 20 && quads >= 2_000, "{regions} regions with water, {quads} quads: too few to judge");
    }

    /// Each corner's vertex of `part` made once and used; its triangles in quads over four corners.
    fn shares_its_corners(part: &CubePart, key: RegionKey) {
        let corners: BTreeSet<(u8, [i32; 3], u32)> =
            part.vertices.iter().map(|v| (v.face, v.cell, v.base_m.to_bits())).collect();
        assert_eq!(corners.len(), part.vertices.len(), "{key}: a corner's vertex made twice");
        let used: BTreeSet<u32> = part.triangles.iter().copied().collect();
        assert_eq!(used.len(), part.vertices.len(), "{key}: a vertex no triangle uses");
        assert_eq!(part.triangles.len() % 6, 0, "{key}: triangles not in quads");
        for quad in part.triangles.chunks_exact(6) {
            let distinct: BTreeSet<u32> = quad.iter().copied().collect();
            assert_eq!(distinct.len(), 4, "{key}: a quad over {distinct:?}");
            assert_eq!((quad[0], quad[2]), (quad[3], quad[4]), "{key}: a quad's diagonal");
        }
    }
}
