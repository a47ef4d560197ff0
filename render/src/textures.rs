//! Material textures, generated at load time from each planet's palette
//! (there are no art assets): one seamlessly tiling layer per material, its
//! colour between the material's `color` and `accent` by its `pattern`, and a
//! height map in alpha for the two-material height blend. Mip levels are box
//! filtered here, in linear light, so distant ground does not shimmer.
//!
//! The patterns use lattice noise whose period divides the tile, so a layer
//! repeats without a seam; everything is integer hashing and libm, so the
//! bytes are the same on every machine.

use planet::PlannedSystem;
use planet::recipe::{MaterialRecipe, Pattern};

/// Texels along a layer's edge.
pub const TEXTURE_SIZE: u32 = 256;
/// Mip levels of a layer (256 down to 1).
pub const MIP_LEVELS: u32 = 9;
/// A layer covers this many of its material's `pattern_m`.
pub const TILE_PATTERNS: f32 = 8.0;

/// Every planet's material layers, in one texture array.
#[derive(Clone, Debug)]
pub struct MaterialSet {
    /// Per layer, per mip level, RGBA8 texels (colour in sRGB, height in alpha).
    pub layers: Vec<Vec<Vec<u8>>>,
    /// Per layer: tile size (m), roughness, emission, 0.
    pub params: Vec<[f32; 4]>,
    /// Per layer: mean colour, linear RGB, and 1.
    pub means: Vec<[f32; 4]>,
    /// First layer of each planet.
    pub first_layer: Vec<u32>,
}

impl MaterialSet {
    /// Generates the layers of every planet of `system`.
    #[must_use]
    pub fn generate(system: &PlannedSystem) -> Self {
        let mut set = Self { layers: Vec::new(), params: Vec::new(), means: Vec::new(), first_layer: Vec::new() };
        let recipes: Vec<(u64, &MaterialRecipe)> = system
            .planets
            .iter()
            .flat_map(|p| p.recipe.materials.iter().enumerate().map(move |(i, m)| (p.seed ^ (i as u64 * 0x9e37), m)))
            .collect();
        // One thread per layer group: generation is a few ms a layer.
        let layers: Vec<Vec<Vec<u8>>> = std::thread::scope(|scope| {
            let chunks: Vec<_> = recipes
                .chunks(recipes.len().div_ceil(4).max(1))
                .map(|chunk| scope.spawn(move || chunk.iter().map(|(seed, m)| layer(m, *seed)).collect::<Vec<_>>()))
                .collect();
            chunks.into_iter().flat_map(|h| h.join().expect("texture generation does not panic")).collect()
        });
        let mut next = 0u32;
        for plan in &system.planets {
            set.first_layer.push(next);
            for m in &plan.recipe.materials {
                let tile = m.pattern_m * TILE_PATTERNS;
                set.params.push([tile, m.roughness, m.emission, 0.0]);
                next += 1;
            }
        }
        set.means = layers
            .iter()
            .map(|levels| {
                let texel = levels.last().map_or([0; 4], |l| [l[0], l[1], l[2], l[3]]);
                let c = texel.map(|v| srgb_to_linear(f32::from(v) / 255.0));
                [c[0], c[1], c[2], 1.0]
            })
            .collect();
        set.layers = layers;
        set
    }
}

/// One material's layer with its mip chain.
fn layer(m: &MaterialRecipe, seed: u64) -> Vec<Vec<u8>> {
    let n = TEXTURE_SIZE as usize;
    let mut linear = vec![[0f32; 4]; n * n];
    for y in 0..n {
        for x in 0..n {
            let (u, v) = (x as f32 / n as f32, y as f32 / n as f32);
            let (t, height) = pattern(m.pattern, u, v, seed as u32);
            // Light and shade beyond the two colours, so even a pattern whose
            // colours are close reads as a surface, not a flat fill.
            let shade = 0.8 + 0.4 * fbm(u, v, 16, 3, seed as u32 ^ 0x51);
            let c = [0, 1, 2].map(|i| (m.color[i] + (m.accent[i] - m.color[i]) * t) * shade);
            linear[y * n + x] = [c[0], c[1], c[2], height];
        }
    }
    let mut levels = Vec::with_capacity(MIP_LEVELS as usize);
    let mut size = n;
    loop {
        levels.push(linear.iter().flat_map(|p| encode(*p)).collect());
        if size == 1 {
            break;
        }
        let half = size / 2;
        let mut next = vec![[0f32; 4]; half * half];
        for y in 0..half {
            for x in 0..half {
                let at = |dx: usize, dy: usize| linear[(2 * y + dy) * size + 2 * x + dx];
                let texels = [at(0, 0), at(1, 0), at(0, 1), at(1, 1)];
                next[y * half + x] = [0, 1, 2, 3].map(|i| texels.iter().map(|p| p[i]).sum::<f32>() * 0.25);
            }
        }
        linear = next;
        size = half;
    }
    levels
}

/// An sRGB-encoded value in 0..=1 to linear.
fn srgb_to_linear(s: f32) -> f32 {
    if s <= 0.040_45 { s / 12.92 } else { libm::powf((s + 0.055) / 1.055, 2.4) }
}

/// Linear RGB + height to RGBA8 (sRGB colour, linear alpha).
fn encode(p: [f32; 4]) -> [u8; 4] {
    let table = SrgbTable::get();
    [table.byte(p[0]), table.byte(p[1]), table.byte(p[2]), (p[3].clamp(0.0, 1.0) * 255.0 + 0.5) as u8]
}

/// A linear value's sRGB byte, worked out: the formula, one `powf` a call.
fn srgb8(c: f32) -> u8 {
    let c = c.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 { c * 12.92 } else { 1.055 * libm::powf(c, 1.0 / 2.4) - 0.055 };
    (s * 255.0 + 0.5) as u8
}

/// Buckets of the linear range the table starts its count from.
const BUCKETS: usize = 4096;

/// `srgb8` by table: the same bytes without a `powf` (tested at and around
/// every switch and over a million random values). The `powf` per channel
/// was most of the material textures' time at startup (issue 21).
struct SrgbTable {
    /// For each byte k in 1..=255, the least linear value whose byte is at
    /// least k, found by bisecting the f32 bit patterns of [0, 1] (the
    /// bytes rise with the value).
    thresholds: [f32; 255],
    /// For each bucket j, how many thresholds are at most j / BUCKETS: where
    /// the count of a value in the bucket after it starts (at most a byte
    /// or two below the answer: the curve is steepest near 0, where a
    /// bucket spans under one byte).
    start: [u8; BUCKETS + 1],
}

impl SrgbTable {
    fn get() -> &'static SrgbTable {
        static TABLE: std::sync::OnceLock<SrgbTable> = std::sync::OnceLock::new();
        TABLE.get_or_init(|| {
            let thresholds: [f32; 255] = std::array::from_fn(|i| {
                let k = i as u8 + 1;
                let (mut lo, mut hi) = (0u32, 1f32.to_bits());
                // Invariant: srgb8(lo) < k <= srgb8(hi).
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    if srgb8(f32::from_bits(mid)) >= k {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                f32::from_bits(hi)
            });
            let start = std::array::from_fn(|j| {
                let at = j as f32 / BUCKETS as f32;
                thresholds.partition_point(|&t| t <= at) as u8
            });
            SrgbTable { thresholds, start }
        })
    }

    /// `srgb8(c)`: how many thresholds `c` reaches (NaN reads 0, as the
    /// formula's clamp makes it).
    fn byte(&self, c: f32) -> u8 {
        if c.is_nan() || c <= 0.0 {
            return 0;
        }
        if c >= 1.0 {
            return 255;
        }
        // The bucket before c's: its count is a lower bound whatever way
        // c * BUCKETS rounded.
        let j = ((c * BUCKETS as f32) as usize).saturating_sub(1);
        let mut k = usize::from(self.start[j]);
        while k < 255 && self.thresholds[k] <= c {
            k += 1;
        }
        k as u8
    }
}

/// The pattern at tile coordinates (u, v) in [0, 1): the share of the accent
/// colour and the height, both in 0..=1.
fn pattern(kind: Pattern, u: f32, v: f32, seed: u32) -> (f32, f32) {
    match kind {
        Pattern::Noise => {
            let n = fbm(u, v, 4, 5, seed);
            let blotch = smooth(0.35, 0.65, n);
            (blotch * 0.8 + fbm(u, v, 32, 2, seed ^ 7) * 0.2, n)
        }
        Pattern::Cells => {
            let (f1, f2, _) = worley(u, v, 8, seed);
            let crack = 1.0 - smooth(0.0, 0.06, f2 - f1);
            let pebble = 1.0 - smooth(0.0, 0.5, f1);
            let grain = fbm(u, v, 32, 2, seed ^ 3);
            ((crack * 0.7 + grain * 0.3).min(1.0), (pebble * 0.8 + grain * 0.2) * (1.0 - crack * 0.8))
        }
        Pattern::Strata => {
            let warp = fbm(u, v, 4, 3, seed ^ 11) * 0.35;
            let bands = libm::sinf((v * 8.0 + warp) * core::f32::consts::TAU) * 0.5 + 0.5;
            let grain = fbm(u, v, 32, 2, seed ^ 5);
            (bands * 0.75 + grain * 0.25, bands * 0.6 + grain * 0.4)
        }
        Pattern::Facets => {
            let (f1, f2, id) = worley(u, v, 6, seed);
            let shade = (id & 0xff) as f32 / 255.0;
            let edge = 1.0 - smooth(0.0, 0.04, f2 - f1);
            ((shade * 0.8 + edge * 0.5).min(1.0), 1.0 - f1 * 0.8)
        }
        Pattern::Flow => {
            let warp = fbm(u, v, 4, 4, seed ^ 13);
            let streak = libm::sinf((u * 6.0 + warp * 2.0) * core::f32::consts::TAU) * 0.5 + 0.5;
            let detail = fbm(u, v, 16, 3, seed ^ 17);
            (streak * 0.7 + detail * 0.3, streak * 0.5 + detail * 0.5)
        }
    }
}

fn smooth(a: f32, b: f32, x: f32) -> f32 {
    let t = ((x - a) / (b - a)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn hash(x: i32, y: i32, seed: u32) -> u32 {
    let mut h =
        (x as u32).wrapping_mul(0x8da6_b343) ^ (y as u32).wrapping_mul(0xd816_3841) ^ seed.wrapping_mul(0xcb1a_b31f);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2c1b_3c6d);
    h ^= h >> 12;
    h = h.wrapping_mul(0x297a_2d39);
    h ^ (h >> 15)
}

fn unit(h: u32) -> f32 {
    (h >> 8) as f32 / (1u32 << 24) as f32
}

/// Value noise with `period` lattice cells across the tile (so it tiles).
fn value(u: f32, v: f32, period: i32, seed: u32) -> f32 {
    let (x, y) = (u * period as f32, v * period as f32);
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let (sx, sy) = (fx * fx * (3.0 - 2.0 * fx), fy * fy * (3.0 - 2.0 * fy));
    let (ix, iy) = (x0 as i32, y0 as i32);
    let at = |dx: i32, dy: i32| unit(hash((ix + dx).rem_euclid(period), (iy + dy).rem_euclid(period), seed));
    let top = at(0, 0) + (at(1, 0) - at(0, 0)) * sx;
    let bottom = at(0, 1) + (at(1, 1) - at(0, 1)) * sx;
    top + (bottom - top) * sy
}

/// Tiling fbm: `octaves` of value noise from `period` cells up, in 0..=1.
fn fbm(u: f32, v: f32, period: i32, octaves: u32, seed: u32) -> f32 {
    let (mut sum, mut amplitude, mut total) = (0.0, 1.0, 0.0);
    for o in 0..octaves {
        sum += value(u, v, period << o, seed.wrapping_add(o * 101)) * amplitude;
        total += amplitude;
        amplitude *= 0.5;
    }
    sum / total
}

/// Tiling Worley noise with `period` cells across: the nearest and second
/// nearest feature distances (in cells) and the nearest feature's hash.
fn worley(u: f32, v: f32, period: i32, seed: u32) -> (f32, f32, u32) {
    let (x, y) = (u * period as f32, v * period as f32);
    let (cx, cy) = (x.floor() as i32, y.floor() as i32);
    let (mut f1, mut f2, mut id) = (f32::MAX, f32::MAX, 0);
    for dy in -1..=1 {
        for dx in -1..=1 {
            let (gx, gy) = (cx + dx, cy + dy);
            let h = hash(gx.rem_euclid(period), gy.rem_euclid(period), seed);
            let px = gx as f32 + unit(h);
            let py = gy as f32 + unit(h.rotate_left(13));
            let d = libm::sqrtf((px - x) * (px - x) + (py - y) * (py - y));
            if d < f1 {
                (f2, f1, id) = (f1, d, h);
            } else if d < f2 {
                f2 = d;
            }
        }
    }
    (f1, f2, id)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table gives the formula's byte at and around every switch (a
    /// thousand f32 steps each side) and over a million random values,
    /// out-of-range and NaN values included.
    #[test]
    fn srgb_bytes_by_table_are_the_formulas() {
        let table = SrgbTable::get();
        for &t in &table.thresholds {
            let bits = t.to_bits();
            for b in bits.saturating_sub(1000)..=bits + 1000 {
                let c = f32::from_bits(b);
                assert_eq!(table.byte(c), srgb8(c), "at {c:e}");
            }
        }
        let mut h = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..1_000_000 {
            h = h.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let c = (h >> 40) as f32 / (1u64 << 24) as f32 * 1.2 - 0.1;
            assert_eq!(table.byte(c), srgb8(c), "at {c:e}");
        }
        for c in [f32::NAN, -1.0, -0.0, 0.0, f32::MIN_POSITIVE, 1.0, 2.0, f32::INFINITY, f32::NEG_INFINITY] {
            assert_eq!(table.byte(c), srgb8(c), "at {c}");
        }
    }

    #[test]
    fn layers_tile_without_a_seam_and_have_every_mip() {
        let system = PlannedSystem::default_system();
        let set = MaterialSet::generate(&system);
        let total: usize = system.planets.iter().map(|p| p.recipe.materials.len()).sum();
        assert_eq!(set.layers.len(), total);
        assert_eq!(set.params.len(), total);
        let n = TEXTURE_SIZE as usize;
        for layer in &set.layers {
            assert_eq!(layer.len(), MIP_LEVELS as usize);
            assert_eq!(layer[0].len(), n * n * 4);
            assert_eq!(layer.last().map(Vec::len), Some(4));
            // Opposite edges differ no more than neighbouring texels inside do.
            let px = |x: usize, y: usize, c: usize| i32::from(layer[0][(y * n + x) * 4 + c]);
            let (mut seam, mut inner) = (0, 0);
            for i in 0..n {
                for c in 0..4 {
                    seam += (px(0, i, c) - px(n - 1, i, c)).abs() + (px(i, 0, c) - px(i, n - 1, c)).abs();
                    inner +=
                        (px(n / 2, i, c) - px(n / 2 - 1, i, c)).abs() + (px(i, n / 2, c) - px(i, n / 2 - 1, c)).abs();
                }
            }
            assert!(seam <= inner * 2 + 4 * n as i32, "seam {seam} vs inner {inner}");
        }
        // Deterministic.
        assert_eq!(MaterialSet::generate(&system).layers, set.layers);
    }
}
