//! Herd cells: a grid on each cube face, cells about [`HERD_CELL_M`] across,
//! each owning at most one herd (DESIGN.md invariant 4). A cell's id and
//! home (a point jittered inside it) are hashes of (planet, face, cell), so
//! every caller, region or engine, in any order, finds the same herds.
//!
//! The cells near a point are found by sampling a disc around it finely
//! enough that every cell it touches is hit: the cost grows with the disc,
//! never with the planet's number of cells.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::Face;
use crate::geometry::{direction, face_coords};
use crate::hash::{hash0, hash3, mix64, salt, unit_f32};
use crate::scatter::MIN_FACE_SCALE;

/// The width a herd cell aims at on the ground, metres.
pub const HERD_CELL_M: f32 = 320.0;

/// The LOD whose bottom regions own herds (a region there is about a herd
/// cell across): the `creature_paths` stage lists a cell's herd in the
/// region at this LOD, layer 0, whose column holds the cell's home.
pub const HERD_LOD: u8 = 3;

/// The share of a cell its home may be moved across.
const JITTER: f32 = 0.5;

/// One herd cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct HerdCell {
    /// The cube face.
    pub face: u8,
    /// Column on the face.
    pub i: u16,
    /// Row on the face.
    pub j: u16,
}

impl std::fmt::Display for HerdCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{}", self.face, self.i, self.j)
    }
}

/// The herd cells of one planet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HerdGrid {
    /// Hash seed of the planet's herds.
    pub seed: u64,
    /// Cells across a face.
    pub cells: u16,
    /// Base radius, metres.
    pub radius_m: f32,
}

impl HerdGrid {
    /// The herd cells of the planet with `seed` and base radius `radius_m`.
    #[must_use]
    pub fn new(seed: u64, radius_m: f32) -> Self {
        let arc = radius_m * core::f32::consts::FRAC_PI_2;
        let cells = (arc / HERD_CELL_M).round().clamp(2.0, 4096.0) as u16;
        Self { seed: hash0(seed, salt(b"herds")), cells, radius_m }
    }

    /// A cell's width in face coordinates.
    fn units(&self) -> f32 {
        2.0 / f32::from(self.cells)
    }

    /// The cell's id: unique per (planet, face, cell).
    #[must_use]
    pub fn id(&self, cell: HerdCell) -> u64 {
        hash3(self.seed, u64::from(cell.face), i64::from(cell.i), i64::from(cell.j), 0x6e72)
    }

    /// A roll in [0, 1) of the cell for purpose `k`.
    #[must_use]
    pub fn roll(&self, cell: HerdCell, k: u64) -> f32 {
        unit_f32(mix64(self.id(cell) ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
    }

    /// The cell's home: the unit direction its herd's path goes round.
    #[must_use]
    pub fn home(&self, cell: HerdCell) -> Vec3 {
        let c = self.units();
        let offset = |r: f32| 0.5 + (r - 0.5) * JITTER;
        let u = -1.0 + (f32::from(cell.i) + offset(self.roll(cell, 1))) * c;
        let v = -1.0 + (f32::from(cell.j) + offset(self.roll(cell, 2))) * c;
        let face = Face::from_index(cell.face).unwrap_or(Face::PosX);
        direction(face, u, v)
    }

    /// The cell holding unit direction `d`.
    #[must_use]
    pub fn cell_of(&self, d: Vec3) -> HerdCell {
        let (face, u, v) = face_coords(d);
        let n = i32::from(self.cells);
        let at = |t: f32| (((t + 1.0) / self.units()) as i32).clamp(0, n - 1) as u16;
        HerdCell { face: face.index(), i: at(u), j: at(v) }
    }

    /// The least width of a cell on the ground anywhere, metres.
    #[must_use]
    pub fn min_cell_m(&self) -> f32 {
        MIN_FACE_SCALE * self.radius_m * core::f32::consts::FRAC_PI_4 * self.units()
    }

    /// Every cell with ground within `reach_m` of unit direction `centre`
    /// (along the base sphere), sorted. Samples a disc two steps wider than
    /// the reach on a grid of a third of the narrowest cell: a cell with a
    /// point in the reach has, within two steps of that point, a square of
    /// its own wide enough that the grid cannot miss it.
    #[must_use]
    pub fn cells_near(&self, centre: Vec3, reach_m: f32) -> Vec<HerdCell> {
        let step = self.min_cell_m() * 0.33;
        let disc = reach_m + 2.0 * step;
        let n = (disc / step).ceil() as i32;
        let (a, b) = (centre.any_orthonormal_vector(), centre.cross(centre.any_orthonormal_vector()));
        let mut cells = Vec::with_capacity(((2 * n + 1) * (2 * n + 1)) as usize / 4);
        for y in -n..=n {
            for x in -n..=n {
                let (dx, dy) = (x as f32 * step, y as f32 * step);
                if dx * dx + dy * dy > disc * disc {
                    continue;
                }
                let d = (centre * self.radius_m + a * dx + b * dy).normalize();
                cells.push(self.cell_of(d));
            }
        }
        cells.sort_unstable();
        cells.dedup();
        cells
    }

    /// The cells whose herds region `key` owns: none unless it is a bottom
    /// region at [`HERD_LOD`] (or the planet's coarsest LOD, if coarser);
    /// then those whose home lies in its column, sorted.
    #[must_use]
    pub fn owned_by(&self, planet: &crate::PlanetGrid, key: crate::RegionKey) -> Vec<HerdCell> {
        let lod = HERD_LOD.min(planet.max_lod);
        if key.lod != lod || key.z != 0 {
            return Vec::new();
        }
        let span = 2.0 / planet.regions_across(lod) as f32;
        let n = i32::from(self.cells);
        let range = |x: u32| {
            let lo = -1.0 + x as f32 * span;
            let first = ((lo + 1.0) / self.units()) as i32 - 1;
            let last = ((lo + span + 1.0) / self.units()) as i32 + 1;
            first.max(0)..=last.min(n - 1)
        };
        let mut out = Vec::new();
        for j in range(key.y) {
            for i in range(key.x) {
                let cell = HerdCell { face: key.face, i: i as u16, j: j as u16 };
                let (face, u, v) = face_coords(self.home(cell));
                let at = |t: f32| (((t + 1.0) / span) as u32).min(planet.regions_across(lod) - 1);
                if face.index() == key.face && at(u) == key.x && at(v) == key.y {
                    out.push(cell);
                }
            }
        }
        out
    }

    /// Every cell of the planet (for tests and whole-planet listings).
    pub fn all(&self) -> impl Iterator<Item = HerdCell> + '_ {
        (0..6u8).flat_map(move |face| {
            (0..self.cells).flat_map(move |j| (0..self.cells).map(move |i| HerdCell { face, i, j }))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::HashStream;

    /// The nearest point of a cell to `d`, approximately: its corners, edge
    /// midpoints and centre (cells are small against the planet).
    fn cell_distance_m(grid: &HerdGrid, cell: HerdCell, d: Vec3) -> f32 {
        let c = grid.units();
        let face = Face::from_index(cell.face).unwrap();
        let mut best = f32::MAX;
        for sy in 0..=8 {
            for sx in 0..=8 {
                let u = -1.0 + (f32::from(cell.i) + sx as f32 / 8.0) * c;
                let v = -1.0 + (f32::from(cell.j) + sy as f32 / 8.0) * c;
                let p = direction(face, u, v);
                best = best.min(libm::acosf(p.dot(d).clamp(-1.0, 1.0)) * grid.radius_m);
            }
        }
        best
    }

    #[test]
    fn cells_near_a_point_are_every_cell_within_reach() {
        let mut s = HashStream::new(5);
        for case in 0..300 {
            let radius = s.range_f32(1_500.0, 9_000.0);
            let grid = HerdGrid::new(case, radius);
            // A third of the cases at a face edge or corner.
            let d = match case % 3 {
                0 => Vec3::new(s.range_f32(-1.0, 1.0), s.range_f32(-1.0, 1.0), s.range_f32(-1.0, 1.0)),
                1 => Vec3::new(1.0, 1.0, s.range_f32(-1.0, 1.0)),
                _ => Vec3::new(1.0, 1.0, 1.0) + Vec3::splat(s.range_f32(-0.01, 0.01)),
            }
            .normalize();
            let reach = s.range_f32(50.0, 700.0);
            let near = grid.cells_near(d, reach);
            let truth: Vec<HerdCell> = grid.all().filter(|&c| cell_distance_m(&grid, c, d) <= reach * 0.98).collect();
            for c in &truth {
                assert!(near.contains(c), "case {case}: cell {c} within {reach} m of {d} missed");
            }
            for c in &near {
                assert!(cell_distance_m(&grid, *c, d) <= reach + grid.min_cell_m() * 0.7, "case {case}: {c} far");
            }
            // Homes lie inside their cells.
            for c in &near {
                assert_eq!(grid.cell_of(grid.home(*c)), *c);
            }
        }
    }

    #[test]
    fn every_cell_is_owned_by_exactly_one_region() {
        for (seed, radius) in [(1u64, 4_000.0f32), (2, 1_700.0), (3, 9_000.0)] {
            let grid = HerdGrid::new(seed, radius);
            let planet = crate::PlanetGrid::of_radius(radius);
            let lod = HERD_LOD.min(planet.max_lod);
            let mut owned = Vec::new();
            for face in 0..6u8 {
                for y in 0..planet.regions_across(lod) {
                    for x in 0..planet.regions_across(lod) {
                        let key = crate::RegionKey { face, lod, x, y, z: 0 };
                        owned.extend(grid.owned_by(&planet, key));
                        assert!(grid.owned_by(&planet, crate::RegionKey { z: 1, ..key }).is_empty());
                    }
                }
            }
            owned.sort_unstable();
            let mut all: Vec<HerdCell> = grid.all().collect();
            all.sort_unstable();
            let mut once = owned.clone();
            once.dedup();
            assert_eq!(once.len(), owned.len(), "radius {radius}: a cell owned twice");
            assert!(owned == all, "radius {radius}: {} cells owned of {}", owned.len(), all.len());
        }
    }
}
