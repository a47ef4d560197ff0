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
        let (width, height) = ((last[0] - first[0] + 1) as usize, (last[1] - first[1] + 1) as usize);
        let node_uv = |i: i32, j: i32| (-1.0 + i as f32 * step, -1.0 + j as f32 * step);
        let grid = |lo: [i32; 2], hi: [i32; 2]| (lo[1]..=hi[1]).flat_map(move |j| (lo[0]..=hi[0]).map(move |i| (i, j)));

        // Samples over one more node all round, for slopes by central differences.
        let ring = width + 2;
        let around = || grid([first[0] - 1, first[1] - 1], [last[0] + 1, last[1] + 1]);
        let mut samples = memo.map_or_else(|| vec![None; ring * (height + 2)], |m| m.samples(face, around()));
        let mut made_samples = Vec::new();
        for (sample, (i, j)) in samples.iter_mut().zip(around()).filter(|(s, _)| s.is_none()) {
            let (u, v) = node_uv(i, j);
            let (h, c) = terrain.surface_with(direction(face, u, v), NODE_FIELD_CELL_M);
            let made =
                Sample { surface_m: h, temperature_noise: c.temperature_noise, moisture_noise: c.moisture_noise };
            *sample = Some(made);
            made_samples.push(((i, j), made));
        }
        let samples: Vec<Sample> = samples.into_iter().flatten().collect();

        let r = &terrain.recipe;
        let radius = terrain.grid.radius_m;
        let node_m = step * radius * core::f32::consts::FRAC_PI_4;
        let sea = if r.sea.enabled { r.sea.level_m } else { f32::MIN };
        let sea_zero = if r.sea.enabled { r.sea.level_m } else { 0.0 };
        let inside = || grid(first, last);
        let directions: Vec<Vec3> = inside().map(|(i, j)| node_uv(i, j)).map(|(u, v)| direction(face, u, v)).collect();
        let mut sites = memo.map_or_else(|| vec![None; width * height], |m| m.sites(face, inside()));
        let mut made_sites = Vec::new();
        for (k, (site, node)) in sites.iter_mut().zip(inside()).enumerate().filter(|(_, (s, _))| s.is_none()) {
            let at = (k / width + 1) * ring + k % width + 1;
            let h = samples[at].surface_m;
            let gu = (samples[at + 1].surface_m - samples[at - 1].surface_m) / (2.0 * node_m);
            let gv = (samples[at + ring].surface_m - samples[at - ring].surface_m) / (2.0 * node_m);
            let slope_deg = libm::atanf(libm::sqrtf(gu * gu + gv * gv)).to_degrees();
            let d = directions[k];
            let altitude = h - sea_zero;
            let t = temperature_c(r, d, altitude, samples[at].temperature_noise);
            let moist = moisture(r, samples[at].moisture_noise);
            let g = ground(r, t, moist, altitude, slope_deg, terrain.layout.coast_m(d));
            let bare = u32::from(g.surface[0]) == r.surface.rock
                || u32::from(g.surface[0]) == r.surface.snow
                || r.materials[g.surface[0] as usize].emission > 0.5;
            let dry = h > sea + 0.5 && terrain.layout.lake_at(d).is_none_or(|level| h > level + 0.5);
            let made = Site { slope_deg, biome: g.biome, bare, dry };
            *site = Some(made);
            made_sites.push((node, made));
        }
        let sites: Vec<Site> = sites.into_iter().flatten().collect();

        let seed = crate::hash::hash0(terrain.seed, salt(b"scatter"));
        let rules = placements.len();
        let mut factors = vec![f32::NAN; width * height * rules];
        let mut made_factors = Vec::new();
        for (index, (p, &(lo, hi))) in placements.iter().zip(&ranges).enumerate() {
            let rule = &r.scatter[p.rule as usize];
            let noise = RuleNoise::new(seed, p, rule.min_spacing_m);
            let read = || grid(lo, hi);
            let held = memo.map_or_else(|| vec![None; read().count()], |m| m.factors(face, p.rule as usize, read()));
            for (held, (i, j)) in held.into_iter().zip(read()) {
                let k = (j - first[1]) as usize * width + (i - first[0]) as usize;
                factors[k * rules + index] = held.unwrap_or_else(|| {
                    let site = &sites[k];
                    let biome = &r.biomes[site.biome as usize];
                    let allowed = site.dry
                        && site.slope_deg <= rule.max_slope_deg
                        && (rule.biomes.is_empty() || rule.biomes.contains(&u32::from(site.biome)))
                        && !(p.is_plant() && site.bare);
                    let factor = if !allowed {
                        0.0
                    } else if p.offset_rows {
                        // Gameplay objects: the grid alone spaces them, no clumps.
                        biome.scatter_density.min(1.0)
                    } else {
                        biome.scatter_density * noise.factor(directions[k] * radius)
                    };
                    made_factors.push((p.rule as usize, (i, j), factor));
                    factor
                });
            }
        }
        if let Some(memo) = memo {
            memo.keep(face, &made_samples, &made_sites, &made_factors);
        }
        let surface_m =
            (0..width * height).map(|k| samples[(k / width + 1) * ring + k % width + 1].surface_m).collect();
        Self { face, nodes_across, first, width, rules, surface_m, factors }
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
