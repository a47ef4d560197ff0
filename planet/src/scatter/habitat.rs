//! The habitat: where each rule may grow and how densely, sampled on a
//! world-fixed lattice of every face (a node every `HABITAT_CELLS` LOD-0
//! cells) and interpolated bilinearly between nodes. Because the lattice
//! belongs to the face, not to the region, a cell reads the same density
//! from a region of any LOD: an object's existence never depends on the LOD
//! of the ground under it.
//!
//! A node holds, per rule, a density factor: the biome's `scatter_density`,
//! times 0 or 1 for the rule's filters (its biomes, dry ground above the sea,
//! slope, and for plants, no bare rock, snow or glowing ground), times the
//! rule's clump noise (cut off at its highest values, so patches are at full
//! density) and a second noise that thins it. Filters read per node blend
//! into soft edges between nodes. Regions built together share their nodes
//! (`habitat_memo.rs`).

use glam::Vec3;

use super::habitat_memo::{HabitatMemo, Sample, Site};
use super::rules::Placement;
use crate::Face;
use crate::geometry::direction;
use crate::hash::{hash1, salt};
use crate::noise::{Fractal, FractalParams, Gradient};
use crate::terrain::{Terrain, ground, moisture, smoothstep, temperature_c};

/// LOD-0 cells between habitat nodes.
pub const HABITAT_CELLS: i32 = 16;

/// The octave limit of the fields a node reads: as for cells of this many
/// metres (detail finer than twice the node spacing cannot be held anyway).
const NODE_FIELD_CELL_M: f32 = 8.0;

/// The noises of one rule.
#[derive(Clone, Debug)]
struct RuleNoise {
    clump: Fractal,
    clump_frequency: f32,
    thin: Fractal,
    thin_frequency: f32,
}

impl RuleNoise {
    fn new(seed: u64, rule: &Placement, spacing_m: f32) -> Self {
        let h = hash1(seed, salt(b"scatnois"), i64::from(rule.rule));
        let clump_m = (spacing_m * 16.0).max(48.0);
        let params = |octaves| FractalParams { octaves, lacunarity: 2.0, gain: 0.5 };
        Self {
            clump: Fractal::new((h >> 32) as u32, params(3)),
            clump_frequency: 1.0 / clump_m,
            thin: Fractal::new(h as u32, params(2)),
            thin_frequency: 1.0 / (clump_m * 0.3),
        }
    }

    /// The density factor of the noise at `p` metres, in [0, 1].
    fn factor(&self, p: Vec3) -> f32 {
        let clump = self.clump.fbm3_octaves::<Gradient>(p * self.clump_frequency, 3);
        let thin = self.thin.fbm3_octaves::<Gradient>(p * self.thin_frequency, 2);
        smoothstep(-0.3, 0.1, clump) * (0.5 + 0.5 * smoothstep(-0.5, 0.3, thin))
    }
}

/// The habitat of one face over a rectangle of nodes.
#[derive(Clone, Debug)]
pub struct Habitat {
    face: Face,
    /// Nodes across the face (the last is on the far edge).
    nodes_across: i32,
    /// First node along u and v.
    first: [i32; 2],
    /// Nodes held along u.
    width: usize,
    rules: usize,
    /// Per node, the 2D surface's height above the base radius.
    surface_m: Vec<f32>,
    /// Per node and rule (rule fastest), the density factor.
    factors: Vec<f32>,
}

impl Habitat {
    /// The node step in face coordinates.
    fn step(&self) -> f32 {
        2.0 / self.nodes_across as f32
    }

    /// The habitat of `face` where each rule is read: `needs[k]`, the face
    /// coordinates `lo..=hi` (u, v) where `placements[k]`'s factor is asked.
    /// Every node holds its surface; a rule's factor is made only at the
    /// nodes around its own rectangle (the rest hold NaN, never read).
    #[must_use]
    pub fn new(terrain: &Terrain, placements: &[Placement], face: Face, needs: &[([f32; 2], [f32; 2])]) -> Self {
        Self::build(None, terrain, placements, face, needs)
    }

    /// [`Habitat::new`], taking from `memo` what other regions made of its
    /// nodes and leaving there what it makes: the same habitat.
    #[must_use]
    pub fn with_memo(
        memo: &HabitatMemo,
        terrain: &Terrain,
        placements: &[Placement],
        face: Face,
        needs: &[([f32; 2], [f32; 2])],
    ) -> Self {
        Self::build(Some(memo), terrain, placements, face, needs)
    }

    fn build(
        memo: Option<&HabitatMemo>,
        terrain: &Terrain,
        placements: &[Placement],
        face: Face,
        needs: &[([f32; 2], [f32; 2])],
    ) -> Self {
        let nodes_across = terrain.grid.cells_across(0) / HABITAT_CELLS;
        let step = 2.0 / nodes_across as f32;
        let index = |t: f32| ((t + 1.0) / step).floor() as i32;
        // The nodes around a rectangle: those its bilinear lookups read.
        let nodes = |(lo, hi): ([f32; 2], [f32; 2])| {
            let first = [index(lo[0]).clamp(0, nodes_across), index(lo[1]).clamp(0, nodes_across)];
            let last = [(index(hi[0]) + 1).clamp(0, nodes_across), (index(hi[1]) + 1).clamp(0, nodes_across)];
            (first, last)
        };
        let ranges: Vec<([i32; 2], [i32; 2])> = needs.iter().copied().map(nodes).collect();
        let first = ranges.iter().fold([nodes_across; 2], |f, r| [f[0].min(r.0[0]), f[1].min(r.0[1])]);
        let last = ranges.iter().fold([0; 2], |l, r| [l[0].max(r.1[0]), l[1].max(r.1[1])]);
        let rect = Rect { face, step, first, last };

        let mut made = Made::default();
        let samples = rect.samples(terrain, memo, &mut made.samples);
        let sites = rect.sites(terrain, memo, &samples, &mut made.sites);
        let rules = placements.len();
        let mut factors = vec![f32::NAN; rect.width() * rect.height() * rules];
        let seed = crate::hash::hash0(terrain.seed, salt(b"scatter"));
        for (index, (p, &(lo, hi))) in placements.iter().zip(&ranges).enumerate() {
            let noise = RuleNoise::new(seed, p, terrain.recipe.scatter[p.rule as usize].min_spacing_m);
            let read = || Rect::nodes(lo, hi);
            let held = memo.map_or_else(|| vec![None; read().count()], |m| m.factors(face, p.rule as usize, read()));
            for (held, (i, j)) in held.into_iter().zip(read()) {
                let k = rect.index(i, j);
                factors[k * rules + index] = held.unwrap_or_else(|| {
                    let factor = factor(terrain, p, &noise, &sites[k], || rect.direction(i, j));
                    made.factors.push((p.rule as usize, (i, j), factor));
                    factor
                });
            }
        }
        if let Some(memo) = memo {
            memo.keep(face, &made.samples, &made.sites, &made.factors);
        }
        let surface_m = (0..rect.width() * rect.height()).map(|k| samples[rect.ringed(k)].surface_m).collect();
        Self { face, nodes_across, first, width: rect.width(), rules, surface_m, factors }
    }

    /// The face it covers.
    #[must_use]
    pub fn face(&self) -> Face {
        self.face
    }

    /// The four nodes around (u, v) and their bilinear weights.
    fn corners(&self, u: f32, v: f32) -> [(usize, f32); 4] {
        let step = self.step();
        let fu = ((u + 1.0) / step - self.first[0] as f32).clamp(0.0, (self.width - 1) as f32);
        let height = self.surface_m.len() / self.width;
        let fv = ((v + 1.0) / step - self.first[1] as f32).clamp(0.0, (height - 1) as f32);
        let (a, b) = ((fu as usize).min(self.width.saturating_sub(2)), (fv as usize).min(height.saturating_sub(2)));
        let (tu, tv) = (fu - a as f32, fv - b as f32);
        let a1 = (a + 1).min(self.width - 1);
        let b1 = (b + 1).min(height - 1);
        [
            (b * self.width + a, (1.0 - tu) * (1.0 - tv)),
            (b * self.width + a1, tu * (1.0 - tv)),
            (b1 * self.width + a, (1.0 - tu) * tv),
            (b1 * self.width + a1, tu * tv),
        ]
    }

    /// The largest density factor of rule `rule` over the nodes held (no
    /// interpolated factor is larger): a bound that lets most candidates be
    /// refused on their roll alone.
    #[must_use]
    pub fn max_factor(&self, rule: usize) -> f32 {
        // f32::max skips the NaNs of the nodes the rule is not read at.
        self.factors.iter().skip(rule).step_by(self.rules).fold(0.0, |a, &f| a.max(f))
    }

    /// Rule `rule`'s density factor at (u, v) (a position in `placements`),
    /// within the rectangle it was made for.
    #[must_use]
    pub fn factor(&self, rule: usize, u: f32, v: f32) -> f32 {
        let f = self.corners(u, v).iter().map(|&(n, w)| self.factors[n * self.rules + rule] * w).sum();
        debug_assert!(!f32::is_nan(f), "rule {rule} read at ({u}, {v}), outside the rectangle it was made for");
        f
    }

    /// The 2D surface's height above the base radius at (u, v), interpolated.
    #[must_use]
    pub fn surface_m(&self, u: f32, v: f32) -> f32 {
        self.corners(u, v).iter().map(|&(n, w)| self.surface_m[n] * w).sum()
    }
}

/// The rectangle of nodes a habitat holds, `first..=last`, on `face`.
#[derive(Clone, Copy)]
struct Rect {
    face: Face,
    /// The node step in face coordinates.
    step: f32,
    first: [i32; 2],
    last: [i32; 2],
}

/// What a habitat made that its memo did not hold, for the memo to keep.
#[derive(Default)]
struct Made {
    samples: Vec<((i32, i32), Sample)>,
    sites: Vec<((i32, i32), Site)>,
    factors: Vec<(usize, (i32, i32), f32)>,
}

impl Rect {
    fn width(&self) -> usize {
        (self.last[0] - self.first[0] + 1) as usize
    }

    fn height(&self) -> usize {
        (self.last[1] - self.first[1] + 1) as usize
    }

    /// The nodes `lo..=hi`, in rows.
    fn nodes(lo: [i32; 2], hi: [i32; 2]) -> impl Iterator<Item = (i32, i32)> {
        (lo[1]..=hi[1]).flat_map(move |j| (lo[0]..=hi[0]).map(move |i| (i, j)))
    }

    /// Its nodes and one more all round, in rows (the samples' order).
    fn around(&self) -> impl Iterator<Item = (i32, i32)> {
        Self::nodes([self.first[0] - 1, self.first[1] - 1], [self.last[0] + 1, self.last[1] + 1])
    }

    /// Index of its node (`i`, `j`) among its nodes, in rows.
    fn index(&self, i: i32, j: i32) -> usize {
        (j - self.first[1]) as usize * self.width() + (i - self.first[0]) as usize
    }

    /// Index among the samples (which ring it) of its node with index `k`.
    fn ringed(&self, k: usize) -> usize {
        (k / self.width() + 1) * (self.width() + 2) + k % self.width() + 1
    }

    /// The unit direction of node (`i`, `j`).
    fn direction(&self, i: i32, j: i32) -> Vec3 {
        direction(self.face, -1.0 + i as f32 * self.step, -1.0 + j as f32 * self.step)
    }

    /// The samples of its nodes and the ring around them, from `memo` where
    /// it holds them; those made here are added to `made`.
    fn samples(
        &self,
        terrain: &Terrain,
        memo: Option<&HabitatMemo>,
        made: &mut Vec<((i32, i32), Sample)>,
    ) -> Vec<Sample> {
        let count = (self.width() + 2) * (self.height() + 2);
        let held = memo.map_or_else(|| vec![None; count], |m| m.samples(self.face, self.around()));
        held.into_iter()
            .zip(self.around())
            .map(|(held, (i, j))| {
                held.unwrap_or_else(|| {
                    let (h, c) = terrain.surface_with(self.direction(i, j), NODE_FIELD_CELL_M);
                    let sample = Sample {
                        surface_m: h,
                        temperature_noise: c.temperature_noise,
                        moisture_noise: c.moisture_noise,
                    };
                    made.push(((i, j), sample));
                    sample
                })
            })
            .collect()
    }

    /// The sites of its nodes, from `memo` where it holds them, else from
    /// `samples` (`Rect::samples`); those made here are added to `made`.
    fn sites(
        &self,
        terrain: &Terrain,
        memo: Option<&HabitatMemo>,
        samples: &[Sample],
        made: &mut Vec<((i32, i32), Site)>,
    ) -> Vec<Site> {
        let inside = || Self::nodes(self.first, self.last);
        let held = memo.map_or_else(|| vec![None; self.width() * self.height()], |m| m.sites(self.face, inside()));
        held.into_iter()
            .zip(inside())
            .enumerate()
            .map(|(k, (held, (i, j)))| {
                held.unwrap_or_else(|| {
                    let site = self.site(terrain, samples, self.ringed(k), self.direction(i, j));
                    made.push(((i, j), site));
                    site
                })
            })
            .collect()
    }

    /// The site of the node of direction `d` whose sample is `samples[at]`.
    fn site(&self, terrain: &Terrain, samples: &[Sample], at: usize, d: Vec3) -> Site {
        let r = &terrain.recipe;
        let ring = self.width() + 2;
        // Slopes by central differences, over the nodes' spacing in metres.
        let node_m = self.step * terrain.grid.radius_m * core::f32::consts::FRAC_PI_4;
        let h = samples[at].surface_m;
        let gu = (samples[at + 1].surface_m - samples[at - 1].surface_m) / (2.0 * node_m);
        let gv = (samples[at + ring].surface_m - samples[at - ring].surface_m) / (2.0 * node_m);
        let slope_deg = libm::atanf(libm::sqrtf(gu * gu + gv * gv)).to_degrees();
        let sea = if r.sea.enabled { r.sea.level_m } else { f32::MIN };
        let altitude = h - if r.sea.enabled { r.sea.level_m } else { 0.0 };
        let t = temperature_c(r, d, altitude, samples[at].temperature_noise);
        let moist = moisture(r, samples[at].moisture_noise);
        let g = ground(r, t, moist, altitude, slope_deg, terrain.layout.coast_m(d));
        let bare = u32::from(g.surface[0]) == r.surface.rock
            || u32::from(g.surface[0]) == r.surface.snow
            || r.materials[g.surface[0] as usize].emission > 0.5;
        let dry = h > sea + 0.5 && terrain.layout.lake_at(d).is_none_or(|level| h > level + 0.5);
        Site { slope_deg, biome: g.biome, bare, dry }
    }
}

/// Rule `p`'s density factor at a node of `site` (its direction `d()`,
/// read only where its noise is).
fn factor(terrain: &Terrain, p: &Placement, noise: &RuleNoise, site: &Site, d: impl FnOnce() -> Vec3) -> f32 {
    let r = &terrain.recipe;
    let rule = &r.scatter[p.rule as usize];
    let biome = &r.biomes[site.biome as usize];
    let allowed = site.dry
        && site.slope_deg <= rule.max_slope_deg
        && (rule.biomes.is_empty() || rule.biomes.contains(&u32::from(site.biome)))
        && !(p.is_plant() && site.bare);
    if !allowed {
        0.0
    } else if p.offset_rows {
        // Gameplay objects: the grid alone spaces them, no clumps.
        biome.scatter_density.min(1.0)
    } else {
        biome.scatter_density * noise.factor(d() * terrain.grid.radius_m)
    }
}
