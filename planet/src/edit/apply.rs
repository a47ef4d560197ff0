//! Applying edits to a region's voxels: the last pass of the voxel stage,
//! after generation and its features (ARCHITECTURE.md, "Voxel passes").
//! Edits go in log order; each changes only the samples within its reach
//! (`Edit::reach_m`: its brush's bounding ball and a margin of cells), at
//! their planet-local positions, so a sample shared by two regions
//! (or seen at another LOD at the same place) gets the same value.
//!
//! Where the edits (or bakes) changed a sample's density, its cover
//! (`VoxelGrid::cover`) becomes at most its new density: edited ground is
//! lit as open ground (a crater's or a trench's floor, a rock tower's
//! sides, and a player's tunnel too), while the caves the generator carved
//! stay dark. It depends only on the sample's generated and edited values,
//! so it too is the same in every region that holds the sample.

use glam::Vec3;

use super::bake::{BakeAt, ColumnOwner, apply_bake};
use super::brush::Placed;
use super::{Edit, Operation, Surface};
use crate::geometry::{MARGIN, REGION_CELLS, WINDOW};
use crate::terrain::{ColumnField, Terrain, Voxel, VoxelGrid, quantize, quantize_cover};

/// Applies `edits` (the region's, in log order) and `bakes` (each in its
/// place among them, `bake.rs`) to `grid`, whose columns are `columns`.
pub fn apply_edits(terrain: &Terrain, grid: &mut VoxelGrid, columns: &ColumnField, edits: &[Edit], bakes: &[BakeAt]) {
    if edits.is_empty() && bakes.is_empty() {
        return;
    }
    let key = grid.key;
    let layer_m = terrain.grid.layer_m(key.lod);
    let first_layer = key.z as i32 * REGION_CELLS - MARGIN;
    // Per edit, its placed brush, its reach at this LOD and the box of that reach.
    let placed: Vec<(&Edit, Placed, f32, Vec3, Vec3)> = edits
        .iter()
        .map(|e| {
            let brush = e.brush.at(Vec3::from_array(e.centre));
            let reach = e.reach_m(&terrain.grid, key.lod);
            (e, brush, reach, brush.centre - Vec3::splat(reach), brush.centre + Vec3::splat(reach))
        })
        .collect();
    // A bake overwrites what the edits before it made with what was
    // generated or baked; the cover compares the edited voxels with it.
    let generated = grid.voxels.clone();
    let side = WINDOW;
    for b in 0..side {
        for a in 0..side {
            let col = columns.at(a, b);
            let floor_r = terrain.recipe.radius_m + col.elevation_m - terrain.grid.shell_below_m;
            let at = |c: usize| col.direction * (floor_r + (first_layer + c as i32) as f32 * layer_m);
            let (bottom, top) = (at(0), at(side - 1));
            let (clo, chi) = (bottom.min(top), bottom.max(top));
            let start = (b * side + a) * side;
            let owner = if bakes.is_empty() { None } else { ColumnOwner::of(terrain, grid, columns, (a, b), bakes) };
            let mut next_bake = 0;
            for i in 0..=placed.len() {
                // The bakes placed before edit i (after the last, at the end).
                while let Some(at_bake) = bakes.get(next_bake).filter(|k| k.before as usize <= i) {
                    if let Some(owner) = &owner {
                        let (out, was) = (&mut grid.voxels[start..][..side], &generated[start..][..side]);
                        apply_bake(terrain, &at_bake.bake, key, owner, (first_layer, floor_r), was, out);
                    }
                    next_bake += 1;
                }
                let Some(&(edit, ref brush, reach, lo, hi)) = placed.get(i) else { break };
                if clo.cmpgt(hi).any() || chi.cmplt(lo).any() {
                    continue;
                }
                // Only within the edit's reach at this LOD, as the log's
                // index assumes: what a region outside it holds is never changed.
                let reach2 = reach * reach;
                let out = &mut grid.voxels[start..][..side];
                for (c, v) in out.iter_mut().enumerate() {
                    let p = at(c);
                    if (p - brush.centre).length_squared() <= reach2 {
                        apply_one(edit, brush, p, v);
                    }
                }
            }
        }
    }
    open_edited_ground(grid, &generated);
}

/// Lowers the cover of every sample whose density the edits changed to at
/// most that density: metres into the rock from the edited surface (a dug
/// bowl's, a filled tower's), negative in the air. Samples in the cave
/// band keep a capped generated density, so a fill there raises it: both
/// ways count.
fn open_edited_ground(grid: &mut VoxelGrid, generated: &[Voxel]) {
    for ((v, was), cover) in grid.voxels.iter().zip(generated).zip(&mut grid.cover) {
        if v.density != was.density {
            *cover = (*cover).min(quantize_cover(v.density_m()));
        }
    }
}

/// One edit at one sample at `p` (`brush` is the edit's, placed).
fn apply_one(edit: &Edit, brush: &Placed, p: Vec3, v: &mut Voxel) {
    let d = v.density_m();
    match edit.op {
        Operation::Dig => {
            let s = brush.distance(p);
            if s < d {
                v.density = quantize(s);
            }
        }
        Operation::Fill => {
            let s = -brush.distance(p);
            if s > d {
                v.density = quantize(s);
                v.materials = [edit.material; 2];
                v.blend = 0;
            }
        }
        Operation::Flatten => level(&Surface::FLAT, brush, p, d, v),
        Operation::Smooth(surface) => level(&surface, brush, p, d, v),
        Operation::Paint => {
            if brush.distance(p) < 0.0 {
                v.materials = [edit.material; 2];
                v.blend = 0;
            }
        }
    }
}

/// Levels sample `v` at `p`, of density `d`, towards `surface` over the
/// brush's tangent plane, by the brush's weight there.
fn level(surface: &Surface, brush: &Placed, p: Vec3, d: f32, v: &mut Voxel) {
    let w = brush.weight(p);
    if w > 0.0 {
        // The surface's density: solid below it, metres above it.
        let offset = p - brush.centre;
        let target = surface.height(offset.dot(brush.axes[0]), offset.dot(brush.axes[2])) - brush.height(p);
        v.density = quantize(d * (1.0 - w) + target * w);
    }
}

/// How near an object's base a dig's or a fill's brush must reach to
/// remove or bury it, metres: half its size, at most 2 m.
#[must_use]
pub fn object_reach_m(size_m: f32) -> f32 {
    0.5 * size_m.min(4.0)
}

/// Whether an object standing at planet-local `base`, `radius_m` across its
/// footprint, is removed or buried by one of `edits` (a dig or a fill whose
/// brush reaches within its footprint of its base).
#[must_use]
pub fn buries(edits: &[Edit], base: Vec3, radius_m: f32) -> bool {
    edits.iter().any(|e| e.op.removes_objects() && e.brush.at(Vec3::from_array(e.centre)).distance(base) < radius_m)
}
