//! The water polygonizer: the sea surface over a region's footprint, a grid
//! of quads two cells wide at the sea's radius. The bottom region of each
//! column draws it, whether or not its voxel shell reaches down to the sea,
//! and skips quads wholly under high ground. Corners are canonical grid
//! points, so neighbours' water meets exactly, across face edges too.

use glam::Vec3;

use super::cube_mesh::{CubePart, CubeVertex};
use crate::geometry::{GridPoint, REGION_CELLS, WINDOW};
use crate::terrain::{ColumnField, Terrain};

/// Cells per water quad.
const STEP: i32 = 2;

/// The sea surface of the region of `columns`, into `out` (empty unless the
/// planet has a sea and the region is the bottom of its column).
pub fn water(terrain: &Terrain, columns: &ColumnField, out: &mut CubePart) {
    out.clear();
    let key = columns.key;
    let sea = &terrain.recipe.sea;
    if !sea.enabled || key.z != 0 {
        return;
    }
    let grid = &terrain.grid;
    let lod = key.lod;
    let face = key.face();
    let (x0, y0) = (key.x as i32 * REGION_CELLS, key.y as i32 * REGION_CELLS);
    let quads = REGION_CELLS / STEP;
    // Surface height at a grid point of the window, where the window has it.
    let surface = |x: i32, y: i32| {
        let (a, b) = (x - x0 + 2, y - y0 + 2);
        ((0..WINDOW as i32).contains(&a) && (0..WINDOW as i32).contains(&b))
            .then(|| columns.at(a as usize, b as usize).surface_m())
    };
    for qy in -1..=quads {
        for qx in -1..=quads {
            let (x, y) = (x0 + qx * STEP, y0 + qy * STEP);
            let corners = [(x, y), (x + STEP, y), (x + STEP, y + STEP), (x, y + STEP)];
            // Hidden under ground at every corner: skip.
            if corners.iter().all(|&(cx, cy)| surface(cx, cy).is_some_and(|s| s > sea.level_m + 1.0)) {
                continue;
            }
            let points: Vec<Option<GridPoint>> =
                corners.iter().map(|&(cx, cy)| grid.canonical(lod, GridPoint { face, x: cx, y: cy })).collect();
            if points.iter().any(Option::is_none) {
                continue; // beyond a cube corner
            }
            let first = out.vertices.len() as u32;
            for p in points.into_iter().flatten() {
                out.vertices.push(CubeVertex {
                    face: p.face.index(),
                    cell: [p.x, p.y, 0],
                    local: Vec3::ZERO,
                    base_m: sea.level_m,
                    base_slope: [0.0, 0.0],
                    smooth_normal: Vec3::Z,
                    face_normal: Vec3::Z,
                    materials: [sea.material as u8; 2],
                    blend: 0,
                });
            }
            let own = (0..quads).contains(&qx) && (0..quads).contains(&qy);
            let target = if own { &mut out.triangles } else { &mut out.overlap };
            target.extend_from_slice(&[first, first + 1, first + 2, first, first + 2, first + 3]);
        }
    }
}
