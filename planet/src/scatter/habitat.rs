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
//! into soft edges between nodes.

use glam::Vec3;

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
        let r = &terrain.recipe;
        let radius = terrain.grid.radius_m;
        let node_uv = |i: i32, j: i32| (-1.0 + i as f32 * step, -1.0 + j as f32 * step);

        // Heights over one more node all round, for slopes by central differences.
        let ring = width + 2;
        let mut heights = Vec::with_capacity(ring * (height + 2));
        let mut coarse = Vec::with_capacity(ring * (height + 2));
        for j in first[1] - 1..=last[1] + 1 {
            for i in first[0] - 1..=last[0] + 1 {
                let (u, v) = node_uv(i, j);
                let (h, c) = terrain.surface_with(direction(face, u, v), NODE_FIELD_CELL_M);
                heights.push(h);
                coarse.push(c);
            }
        }
        let node_m = step * radius * core::f32::consts::FRAC_PI_4;
        let seed = crate::hash::hash0(terrain.seed, salt(b"scatter"));
        let noises: Vec<RuleNoise> =
            placements.iter().map(|p| RuleNoise::new(seed, p, r.scatter[p.rule as usize].min_spacing_m)).collect();
        let sea = if r.sea.enabled { r.sea.level_m } else { f32::MIN };
        let sea_zero = if r.sea.enabled { r.sea.level_m } else { 0.0 };
        let mut surface_m = Vec::with_capacity(width * height);
        let mut factors = Vec::with_capacity(width * height * placements.len());
        for b in 0..height {
            for a in 0..width {
                let at = (b + 1) * ring + a + 1;
                let (u, v) = node_uv(first[0] + a as i32, first[1] + b as i32);
                let d = direction(face, u, v);
                let h = heights[at];
                let gu = (heights[at + 1] - heights[at - 1]) / (2.0 * node_m);
                let gv = (heights[at + ring] - heights[at - ring]) / (2.0 * node_m);
                let slope_deg = libm::atanf(libm::sqrtf(gu * gu + gv * gv)).to_degrees();
                let c = coarse[at];
                let altitude = h - sea_zero;
                let t = temperature_c(r, d, altitude, c.temperature_noise);
                let g = ground(r, t, moisture(r, c.moisture_noise), altitude, slope_deg, terrain.layout.coast_m(d));
                let biome = &r.biomes[g.biome as usize];
                let bare = u32::from(g.surface[0]) == r.surface.rock
                    || u32::from(g.surface[0]) == r.surface.snow
                    || r.materials[g.surface[0] as usize].emission > 0.5;
                let dry = h > sea + 0.5 && terrain.layout.lake_at(d).is_none_or(|level| h > level + 0.5);
                surface_m.push(h);
                let (i, j) = (first[0] + a as i32, first[1] + b as i32);
                for ((p, noise), (lo, hi)) in placements.iter().zip(&noises).zip(&ranges) {
                    if !(lo[0]..=hi[0]).contains(&i) || !(lo[1]..=hi[1]).contains(&j) {
                        factors.push(f32::NAN);
                        continue;
                    }
                    let rule = &r.scatter[p.rule as usize];
                    let allowed = dry
                        && slope_deg <= rule.max_slope_deg
                        && (rule.biomes.is_empty() || rule.biomes.contains(&u32::from(g.biome)))
                        && !(p.is_plant() && bare);
                    let factor = if !allowed {
                        0.0
                    } else if p.offset_rows {
                        // Gameplay objects: the grid alone spaces them, no clumps.
                        biome.scatter_density.min(1.0)
                    } else {
                        biome.scatter_density * noise.factor(d * radius)
                    };
                    factors.push(factor);
                }
            }
        }
        Self { face, nodes_across, first, width, rules: placements.len(), surface_m, factors }
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
