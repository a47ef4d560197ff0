//! The polygonizer's look at the generator's own density: whether its zero
//! set lies within reach of a sharp vertex the cell's samples cannot vouch
//! for (`cell::within_sharp_reach`).
//!
//! A sharp corner or edge lies off its samples' trilinear zero set, which
//! rounds it off, so where a crease's planes meet far from that zero set
//! the samples cannot say whether the crease is true (a box's corner) or
//! one they alias (a mountain ridge thinner than a cell). The density the
//! samples were taken from can: a true crease lies on its zero set. It is
//! asked only there (about one vertex in 5,000), only where it is the
//! density the samples hold (its eight corners are the generator's,
//! unedited), only in cells that no region of another face holds (over
//! `MARGIN` cells from the face's edges), and at whole grid coordinates,
//! so every region holding the cell gets the same answer, bit for bit.

use std::cell::RefCell;

use glam::Vec3;

use super::cell::SHARP_REACH;
use crate::geometry::MARGIN;
use crate::terrain::{ColumnField, PointDensity, Terrain, quantize};

/// Steps out to `SHARP_REACH` along each direction searched.
const STEPS: usize = 8;

/// The generator's density for one region, worked out only if a vertex asks.
pub(super) struct FieldLook<'t> {
    terrain: &'t Terrain,
    columns: &'t ColumnField,
    field: RefCell<Option<PointDensity<'t>>>,
}

impl<'t> FieldLook<'t> {
    pub(super) fn new(terrain: &'t Terrain, columns: &'t ColumnField) -> Self {
        Self { terrain, columns, field: RefCell::new(None) }
    }

    /// Whether the generator's zero set lies within `SHARP_REACH` of `p` in
    /// the cell whose minimum corner is grid point `cell` (x, y, layer) of
    /// the region's face, whose corners hold densities `d`: searched along
    /// the field's own gradient and towards each of `towards` (points of the
    /// cell). `None` where the generator's density is not the one the
    /// samples hold, or the cell is within `MARGIN` of the face's edges.
    pub(super) fn near(&self, cell: [i32; 3], d: &[i16; 8], p: Vec3, towards: &[Vec3]) -> Option<bool> {
        // Regions of the next face hold the cells up to `MARGIN` from its edge,
        // in this face's frame, and do not ask: nor may we there.
        let n = self.terrain.grid.cells_across(self.columns.key.lod);
        let away = |x: i32| x >= MARGIN && x + 1 + MARGIN <= n;
        if !away(cell[0]) || !away(cell[1]) {
            return None;
        }
        let mut slot = self.field.borrow_mut();
        let field = slot.get_or_insert_with(|| self.terrain.point_density(self.columns));
        let corner = |k: usize| [cell[0] + (k & 1) as i32, cell[1] + (k >> 1 & 1) as i32, cell[2] + (k >> 2) as i32];
        if (0..8).any(|k| quantize(field.at_grid(corner(k), Vec3::ZERO)) != d[k]) {
            return None;
        }
        let f0 = field.at_grid(cell, p);
        if f0 == 0.0 {
            return Some(true);
        }
        let h = 0.02;
        let mut slope = |axis: Vec3| field.at_grid(cell, p + axis * h) - field.at_grid(cell, p - axis * h);
        let gradient = Vec3::new(slope(Vec3::X), slope(Vec3::Y), slope(Vec3::Z));
        let down = if f0 > 0.0 { -gradient } else { gradient };
        let directions = core::iter::once(down.normalize_or_zero())
            .chain(towards.iter().map(|&q| (q - p).normalize_or_zero()))
            .filter(|d| *d != Vec3::ZERO);
        for direction in directions {
            for k in 1..=STEPS {
                let q = p + direction * (SHARP_REACH * k as f32 / STEPS as f32);
                if (field.at_grid(cell, q) > 0.0) != (f0 > 0.0) {
                    return Some(true);
                }
            }
        }
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlannedSystem;
    use crate::terrain::{DENSITY_PER_M, lat_lon_direction};

    /// In a real region's middle column the look answers for every cell;
    /// it finds the zero set from each crossing of a vertical edge, and not
    /// from the middle of a cell whose corners are all deep in rock or high
    /// in air; a cell whose corners were changed (as an edit changes them)
    /// gets no answer.
    #[test]
    fn the_look_answers_only_for_the_generators_own_samples() {
        let system = PlannedSystem::default_system();
        let terrain = Terrain::new(&system.planets[1]);
        let key = terrain.surface_key(lat_lon_direction(20.0, 40.0), 0);
        let columns = terrain.columns(key);
        let voxels = terrain.voxels(&columns);
        let look = FieldLook::new(&terrain, &columns);
        let origin = [key.x as i32 * 32 - 2, key.y as i32 * 32 - 2, key.z as i32 * 32 - 2];
        let deep = 4.0 * terrain.grid.cell_m(0).max(terrain.grid.layer_m(0)) * DENSITY_PER_M;
        let (mut crossings, mut far) = (0, 0);
        for c in 0..35 {
            let (a, b) = (17, 17);
            let d: [i16; 8] = core::array::from_fn(|k| voxels.at(a + (k & 1), b + (k >> 1 & 1), c + (k >> 2)).density);
            let cell = [origin[0] + a as i32, origin[1] + b as i32, origin[2] + c as i32];
            if (d[0] > 0) != (d[4] > 0) {
                let t = f32::from(d[0]) / f32::from(d[0] - d[4]);
                assert_eq!(
                    look.near(cell, &d, Vec3::new(0.0, 0.0, t), &[]),
                    Some(true),
                    "crossing at layer {c}: {d:?}"
                );
                crossings += 1;
            }
            if d.iter().all(|&x| f32::from(x).abs() >= deep) && d.iter().all(|&x| (x > 0) == (d[0] > 0)) {
                assert_eq!(look.near(cell, &d, Vec3::splat(0.5), &[Vec3::ZERO]), Some(false), "layer {c}: {d:?}");
                far += 1;
            }
            let mut edited = d;
            edited[3] = edited[3].saturating_add(40);
            assert_eq!(look.near(cell, &edited, Vec3::splat(0.5), &[]), None, "edited corners, layer {c}");
        }
        assert!(crossings > 0 && far > 0, "{crossings} crossings and {far} far cells in the column");
    }
}
