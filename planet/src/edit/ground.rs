//! Where the ground is along a direction: the top crossing from solid into
//! air of the LOD-0 voxels there, with a log's edits applied. The 2D
//! surface (`Terrain::surface_at`) is off by the 3D noise's metres and
//! knows nothing of edits; what a scripted edit aims at must be the ground
//! a player sees.

use glam::Vec3;

use super::{EditLog, RegionEdits, apply_edits};
use crate::geometry::{MARGIN, REGION_CELLS, RegionKey};
use crate::terrain::{ColumnField, Terrain, Voxel, VoxelGrid};

/// The ground's distance from the planet's centre along direction `d`,
/// metres, at the LOD-0 column nearest `d` (within half a cell of it), as
/// `log`'s edits leave it; `None` where that column holds no ground within
/// a region of the 2D surface.
#[must_use]
pub fn ground_radius(terrain: &Terrain, log: &EditLog, d: Vec3) -> Option<f32> {
    let d = d.normalize_or(Vec3::Y);
    let start = terrain.surface_key(d, 0);
    let highest = (start.z + 1).min(terrain.grid.regions_up(0) - 1);
    let owned = MARGIN as usize..(MARGIN + REGION_CELLS) as usize;
    let columns = terrain.columns(start);
    let (mut a, mut b) = (owned.start, owned.start);
    for y in owned.clone() {
        for x in owned.clone() {
            // By distance, not by dot product: neighbouring columns' dot
            // products with `d` differ by less than f32 resolves near 1.
            if columns.at(x, y).direction.distance_squared(d) < columns.at(a, b).direction.distance_squared(d) {
                (a, b) = (x, y);
            }
        }
    }
    let col = columns.at(a, b);
    let floor = terrain.recipe.radius_m + col.elevation_m - terrain.grid.shell_below_m;
    let layer_m = terrain.grid.layer_m(0);
    // From the highest region down: the first crossing found is the top one.
    for z in (start.z.saturating_sub(1)..=highest).rev() {
        // The 2D pass is the same for every region stacked in the shell.
        let stacked = ColumnField { key: RegionKey { z, ..start }, columns: columns.columns.clone() };
        let grid = edited(terrain, &stacked, &log.region(stacked.key));
        let first = (z as i32 * REGION_CELLS - MARGIN) as f32;
        for c in (owned.start + 1..=owned.end).rev() {
            if let Some(t) = upward_crossing(grid.at(a, b, c - 1), grid.at(a, b, c)) {
                return Some(floor + (first + (c - 1) as f32 + t) * layer_m);
            }
        }
    }
    None
}

/// The voxels of the region of `columns` with `edits` applied.
pub(super) fn edited(terrain: &Terrain, columns: &ColumnField, edits: &RegionEdits) -> VoxelGrid {
    let mut grid = terrain.voxels(columns);
    apply_edits(terrain, &mut grid, columns, &edits.edits, &edits.bakes);
    grid
}

/// Where the ground gives way to air going up from sample `below` to the
/// sample `above` it, as a fraction of the layer between them; `None`
/// unless `below` is solid and `above` air.
pub(super) fn upward_crossing(below: Voxel, above: Voxel) -> Option<f32> {
    let (lo, hi) = (below.density_m(), above.density_m());
    (below.is_solid() && !above.is_solid()).then(|| lo / (lo - hi))
}
