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
            let own = (0..quads).contains(&qx) && (0..quads).contains(&qy);
            push_quad(terrain, lod, face, corners, [sea.level_m; 4], own, out);
        }
    }
}

/// The rivers' and lakes' quads: where every corner's column has water, not
/// every corner's ground stands above it, and the water is above the sea.
fn inland(terrain: &Terrain, columns: &ColumnField, out: &mut CubePart) {
    let key = columns.key;
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
            let own = (0..quads).contains(&qx) && (0..quads).contains(&qy);
            let levels = [cols[0].water_m, cols[1].water_m, cols[2].water_m, cols[3].water_m];
            push_quad(terrain, lod, face, corners, levels, own, out);
        }
    }
}

/// One water quad over grid corners `corners` (in `face`'s frame) at their
/// `levels`, into the region's own triangles or its overlap; none beyond a
/// cube corner, where a corner has no grid point.
fn push_quad(
    terrain: &Terrain,
    lod: u8,
    face: crate::geometry::Face,
    corners: [(i32, i32); 4],
    levels: [f32; 4],
    own: bool,
    out: &mut CubePart,
) {
    let points = corners.map(|(x, y)| terrain.grid.canonical(lod, GridPoint { face, x, y }));
    if points.iter().any(Option::is_none) {
        return;
    }
    let material = terrain.recipe.sea.material as u8;
    let first = out.vertices.len() as u32;
    for (p, base_m) in points.into_iter().flatten().zip(levels) {
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
    let target = if own { &mut out.triangles } else { &mut out.overlap };
    target.extend_from_slice(&[first, first + 1, first + 2, first, first + 2, first + 3]);
}
