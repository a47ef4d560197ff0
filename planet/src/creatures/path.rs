//! A herd and its loop path: a cell's herd of one species (the species of
//! the biome at its home), walking a closed loop round the home on dry,
//! gentle, unbuilt ground. The loop is planned on the 2D ground of the
//! terrain (no voxels, no regions), so it is known before any LOD-0 region
//! exists; the engine sets each animal down on the colliders near the camera.
//!
//! A loop is sixteen spokes round the home, each pulled in until its end is
//! walkable, corner-cut once (Chaikin) so animals turn smoothly. A cell whose
//! home, or too many of whose spokes, are not walkable holds no herd.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::cells::{HerdCell, HerdGrid};
use super::species::{HERD_CHANCE, MAX_HERD_CHANCE, Species, species_of};
use crate::hash::{index, mix64};
use crate::terrain::{GroundSample, Terrain};

/// Spokes of a loop.
const SPOKES: usize = 16;
/// Spokes that may fail before a cell gives up its herd.
const MAX_FAILED_SPOKES: usize = 3;
/// The steepest grade a loop's leg may climb, rise over run (about 30°).
const MAX_GRADE: f32 = 0.58;
/// Least height of a path over the sea, metres.
const ABOVE_SEA_M: f32 = 0.5;

/// Roll purposes of a herd cell.
mod roll {
    pub const EXISTS: u64 = 11;
    pub const SPECIES: u64 = 12;
    pub const COUNT: u64 = 13;
    pub const RADIUS: u64 = 14;
    pub const TURN: u64 = 15;
    pub const WOBBLE: u64 = 16;
    pub const START: u64 = 17;
}

/// A planet's animals: its herd cells and species.
#[derive(Clone, Debug, PartialEq)]
pub struct Fauna {
    /// The herd cells.
    pub grid: HerdGrid,
    /// The species.
    pub species: Vec<Species>,
}

/// One herd: its animals' species and count, and the loop they walk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Herd {
    /// The herd's id (its cell's); an animal's is [`Herd::member_id`].
    pub id: u64,
    /// The cell that owns it.
    pub cell: HerdCell,
    /// Its species (index into the planet's species).
    pub species: u16,
    /// How many animals.
    pub count: u8,
    /// The unit direction its loop goes round.
    pub home: Vec3,
    /// The loop's corners, planet-local metres on the 2D ground; the last
    /// joins the first.
    pub points: Vec<Vec3>,
    /// Length of the loop to each corner, metres (one more than `points`:
    /// the last is the whole loop's).
    pub lengths: Vec<f32>,
    /// Where on the loop the lead animal stood at time zero, metres.
    pub start_m: f32,
}

impl Fauna {
    /// The animals of the planet with `seed` and `terrain`'s recipe.
    #[must_use]
    pub fn new(terrain: &Terrain) -> Self {
        Self {
            grid: HerdGrid::new(terrain.seed, terrain.recipe.radius_m),
            species: species_of(terrain.seed, &terrain.recipe),
        }
    }

    /// The herd of `cell`, if it holds one: a pure function of the planet
    /// and the cell.
    #[must_use]
    pub fn herd(&self, terrain: &Terrain, cell: HerdCell) -> Option<Herd> {
        let grid = &self.grid;
        let home = grid.home(cell);
        let surface = terrain.surface_at(home);
        let biome = surface.ground.biome;
        let choices: Vec<usize> = (0..self.species.len()).filter(|&s| self.species[s].biome == biome).collect();
        if choices.is_empty() {
            return None;
        }
        let density = terrain.recipe.biomes.get(usize::from(biome)).map_or(0.0, |b| b.scatter_density);
        if grid.roll(cell, roll::EXISTS) >= (HERD_CHANCE * density).min(MAX_HERD_CHANCE) {
            return None;
        }
        let id = grid.id(cell);
        let species_index = choices[index(mix64(id ^ roll::SPECIES), choices.len())];
        let species = &self.species[species_index];
        let radius = (species.size_m * 14.0).clamp(18.0, 0.3 * grid.min_cell_m())
            * (0.75 + 0.25 * grid.roll(cell, roll::RADIUS));
        let mut probe = terrain.ground_probe(home, radius * 1.3, 4.0 * terrain.grid.cell_m(0));
        let sea_m = if terrain.recipe.sea.enabled { terrain.recipe.sea.level_m } else { f32::MIN };
        let dry =
            |g: &GroundSample| g.surface_m > sea_m + ABOVE_SEA_M && g.water_m < g.surface_m - 0.1 && g.structure <= 0.0;
        if !dry(&probe.at(home)) {
            return None;
        }
        let corners = spokes(grid, cell, home, radius, &mut |d| {
            let g = probe.at(d);
            dry(&g).then_some(g.surface_m)
        })?;
        let points = chaikin(&corners.iter().map(|&(d, h)| d * (terrain.grid.radius_m + h)).collect::<Vec<_>>());
        if steep_legs(&points) > 2 {
            return None;
        }
        let lengths = lengths(&points);
        let count_span = u32::from(species.herd[1] - species.herd[0]) + 1;
        let count = species.herd[0] + (grid.roll(cell, roll::COUNT) * count_span as f32) as u8;
        let start_m = grid.roll(cell, roll::START) * lengths[points.len()];
        Some(Herd {
            id,
            cell,
            species: species_index as u16,
            count: count.min(species.herd[1]),
            home,
            points,
            lengths,
            start_m,
        })
    }
}

/// The loop's corners (direction, ground height): each spoke's end pulled in
/// until `ground` calls it walkable. `None` when too many spokes fail.
fn spokes(
    grid: &HerdGrid,
    cell: HerdCell,
    home: Vec3,
    radius: f32,
    ground: &mut dyn FnMut(Vec3) -> Option<f32>,
) -> Option<Vec<(Vec3, f32)>> {
    let (a, b) = (home.any_orthonormal_vector(), home.cross(home.any_orthonormal_vector()));
    let turn = grid.roll(cell, roll::TURN) * core::f32::consts::TAU;
    let wobble = grid.roll(cell, roll::WOBBLE) * core::f32::consts::TAU;
    let mut corners = Vec::with_capacity(SPOKES);
    let mut failed = 0;
    for k in 0..SPOKES {
        let angle = turn + k as f32 * core::f32::consts::TAU / SPOKES as f32;
        let shape = 1.0 + 0.2 * libm::sinf(2.0 * angle + wobble) + 0.12 * libm::sinf(3.0 * angle - wobble);
        let (s, c) = (libm::sinf(angle), libm::cosf(angle));
        let found = [1.0, 0.7, 0.45].into_iter().find_map(|pull| {
            let r = radius * shape * pull;
            let d = (home * grid.radius_m + (a * c + b * s) * r).normalize();
            ground(d).map(|h| (d, h))
        });
        match found {
            Some(corner) => corners.push(corner),
            None => failed += 1,
        }
    }
    (failed <= MAX_FAILED_SPOKES).then_some(corners)
}

/// One round of Chaikin's corner cutting on a closed loop.
fn chaikin(points: &[Vec3]) -> Vec<Vec3> {
    let n = points.len();
    (0..n)
        .flat_map(|i| {
            let (p, q) = (points[i], points[(i + 1) % n]);
            [p.lerp(q, 0.25), p.lerp(q, 0.75)]
        })
        .collect()
}

/// Legs of a loop steeper than [`MAX_GRADE`].
fn steep_legs(points: &[Vec3]) -> usize {
    let n = points.len();
    (0..n)
        .filter(|&i| {
            let (p, q) = (points[i], points[(i + 1) % n]);
            let rise = (q.length() - p.length()).abs();
            let run = (q - p).length().max(1e-3);
            rise > MAX_GRADE * libm::sqrtf((run * run - rise * rise).max(1e-6))
        })
        .count()
}

/// Cumulative lengths of a closed loop, starting at 0.
fn lengths(points: &[Vec3]) -> Vec<f32> {
    let n = points.len();
    let mut out = Vec::with_capacity(n + 1);
    let mut total = 0.0;
    out.push(0.0);
    for i in 0..n {
        total += (points[(i + 1) % n] - points[i]).length();
        out.push(total);
    }
    out
}

impl Herd {
    /// The loop's length, metres.
    #[must_use]
    pub fn length_m(&self) -> f32 {
        self.lengths.last().copied().unwrap_or(0.0)
    }

    /// The id of animal `member` (unique on the planet).
    #[must_use]
    pub fn member_id(&self, member: u8) -> u64 {
        mix64(self.id ^ (u64::from(member) + 1).wrapping_mul(0xa076_1d64_78bd_642f))
    }

    /// The point `s` metres along the loop (any real; it wraps) and the
    /// unit direction the loop runs there, turning smoothly over the last
    /// and first metres of each leg.
    #[must_use]
    pub fn along(&self, s: f64) -> (Vec3, Vec3) {
        let total = f64::from(self.length_m());
        let n = self.points.len();
        if n < 2 || total <= 0.0 {
            let p = self.points.first().copied().unwrap_or(self.home);
            return (p, p.any_orthonormal_vector());
        }
        let s = s.rem_euclid(total) as f32;
        let leg = self.lengths.partition_point(|&l| l <= s).clamp(1, n) - 1;
        let (p, q) = (self.points[leg], self.points[(leg + 1) % n]);
        let span = (self.lengths[leg + 1] - self.lengths[leg]).max(1e-6);
        let t = ((s - self.lengths[leg]) / span).clamp(0.0, 1.0);
        let here = (q - p).normalize_or_zero();
        // Within a metre of a corner the heading turns toward the next leg.
        let ease = 1.0f32.min(span * 0.5);
        let (to_end, from_start) = (span * (1.0 - t), span * t);
        let heading = if to_end < ease {
            let next = (self.points[(leg + 2) % n] - q).normalize_or_zero();
            here.lerp(next, 0.5 * (1.0 - to_end / ease))
        } else if from_start < ease {
            let before = (p - self.points[(leg + n - 1) % n]).normalize_or_zero();
            before.lerp(here, 0.5 + 0.5 * from_start / ease)
        } else {
            here
        };
        (p.lerp(q, t), heading.normalize_or(here))
    }
}
