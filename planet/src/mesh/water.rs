//! The water polygonizer: the sea surface over a region's footprint, a grid
//! of quads two cells wide at the sea's radius, and the rivers' and lakes'
//! water, quads whose corners stand at the water level of their columns
//! (`Column::water_m`, from the layout), stepping down a river. The bottom
//! region of each column draws both, whether or not its voxel shell reaches
//! down to them, and skips quads wholly under high ground. Corners are
//! canonical grid points and levels pure functions of them, so neighbours'
//! water meets exactly, across face edges too.

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

/// The rivers' and lakes' quads: where every corner's column has water, not
/// every corner's ground stands above it, and the water is above the sea.
fn inland(terrain: &Terrain, columns: &ColumnField, out: &mut CubePart) {
    let key = columns.key;
    let grid = &terrain.grid;
    let (lod, face) = (key.lod, key.face());
    let sea = &terrain.recipe.sea;
    let sea_top = if sea.enabled { sea.level_m + 0.1 } else { f32::MIN };
    let (x0, y0) = (key.x as i32 * REGION_CELLS, key.y as i32 * REGION_CELLS);
    let quads = REGION_CELLS / STEP;
    let column = |x: i32, y: i32| {
        let (a, b) = (x - x0 + 2, y - y0 + 2);
        ((0..WINDOW as i32).contains(&a) && (0..WINDOW as i32).contains(&b)).then(|| columns.at(a as usize, b as usize))
    };
    for qy in -1..=quads {
        for qx in -1..=quads {
            let (x, y) = (x0 + qx * STEP, y0 + qy * STEP);
            let corners = [(x, y), (x + STEP, y), (x + STEP, y + STEP), (x, y + STEP)];
            let cols: Vec<_> = corners.iter().filter_map(|&(cx, cy)| column(cx, cy)).collect();
            if cols.len() < 4 || cols.iter().any(|c| c.water().is_none()) {
                continue;
            }
            if cols.iter().all(|c| c.surface_m() > c.water_m + 0.5) || cols.iter().all(|c| c.water_m <= sea_top) {
                continue;
            }
            let points: Vec<Option<GridPoint>> =
                corners.iter().map(|&(cx, cy)| grid.canonical(lod, GridPoint { face, x: cx, y: cy })).collect();
            if points.iter().any(Option::is_none) {
                continue;
            }
            let first = out.vertices.len() as u32;
            for (p, c) in points.into_iter().flatten().zip(&cols) {
                out.vertices.push(CubeVertex {
                    face: p.face.index(),
                    cell: [p.x, p.y, 0],
                    local: Vec3::ZERO,
                    base_m: c.water_m,
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
