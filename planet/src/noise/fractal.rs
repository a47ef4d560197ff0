//! Fractal sums of a lattice basis: fbm, ridged multifractal and turbulence.
//!
//! A `Fractal` is built once from its parameters (per-octave seeds, offsets
//! and the normalisation are precomputed) and then sampled many times.
//! Octaves can be limited per call (`*_octaves`), which coarser LODs use to drop
//! detail finer than their voxels: the normalisation stays that of the full
//! sum, so the octaves that remain give exactly the same values.

use glam::{Vec2, Vec3};
use serde::{Deserialize, Serialize};

use super::Basis;
use crate::hash::{hash1, salt, unit_f32};

/// The most octaves a fractal sums.
pub const MAX_OCTAVES: usize = 16;

/// The shape of a fractal sum: how many octaves, how fast frequency grows
/// (lacunarity) and how fast amplitude falls (gain).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FractalParams {
    /// Number of octaves, 1..=16.
    pub octaves: u32,
    /// Frequency ratio between octaves, usually about 2.
    pub lacunarity: f32,
    /// Amplitude ratio between octaves, usually about 0.5.
    pub gain: f32,
}

impl Default for FractalParams {
    fn default() -> Self {
        Self { octaves: 5, lacunarity: 2.0, gain: 0.5 }
    }
}

/// A fractal sum ready to sample: seeds, offsets and amplitudes per octave.
#[derive(Clone, Debug)]
pub struct Fractal {
    seeds: [u32; MAX_OCTAVES],
    /// A per-octave shift in lattice units, so that octaves do not all vanish
    /// together at the lattice corners around the origin.
    offsets: [f32; MAX_OCTAVES],
    octaves: usize,
    lacunarity: f32,
    gain: f32,
    /// 1 / (sum of the amplitudes of all octaves).
    norm: f32,
}

impl Fractal {
    /// A fractal from a seed and its parameters. Octaves are clamped to 1..=16
    /// (recipes are validated before they get here).
    #[must_use]
    pub fn new(seed: u32, params: FractalParams) -> Self {
        let octaves = (params.octaves as usize).clamp(1, MAX_OCTAVES);
        let mut seeds = [0u32; MAX_OCTAVES];
        let mut offsets = [0f32; MAX_OCTAVES];
        let mut amplitude = 1.0f32;
        let mut total = 0.0f32;
        for o in 0..octaves {
            let h = hash1(u64::from(seed), salt(b"octave"), o as i64);
            seeds[o] = (h >> 32) as u32;
            offsets[o] = unit_f32(h);
            total += amplitude;
            amplitude *= params.gain;
        }
        Self { seeds, offsets, octaves, lacunarity: params.lacunarity, gain: params.gain, norm: 1.0 / total }
    }

    /// Number of octaves in the full sum.
    #[must_use]
    pub fn octaves(&self) -> usize {
        self.octaves
    }

    /// The number of octaves whose features are at least `min_wavelength`
    /// lattice units long, given that octave 0 has wavelength 1: how a coarse
    /// LOD drops detail finer than its voxels. At least 1.
    #[must_use]
    pub fn octaves_for_wavelength(&self, min_wavelength: f32) -> usize {
        let mut wavelength = 1.0f32;
        let mut n = 0;
        while n < self.octaves && wavelength >= min_wavelength {
            n += 1;
            wavelength /= self.lacunarity;
        }
        n.max(1)
    }

    /// fbm: the normalised sum of octaves of `B`, in [-1, 1].
    #[inline]
    #[must_use]
    pub fn fbm3<B: Basis>(&self, p: Vec3) -> f32 {
        self.fbm3_octaves::<B>(p, self.octaves)
    }

    /// fbm limited to the first `octaves` octaves (same normalisation as the full sum).
    #[inline]
    #[must_use]
    pub fn fbm3_octaves<B: Basis>(&self, p: Vec3, octaves: usize) -> f32 {
        let mut sum = 0.0;
        let mut amplitude = 1.0;
        let mut frequency = 1.0;
        for o in 0..octaves.min(self.octaves) {
            let off = self.offsets[o];
            sum += amplitude
                * B::sample3(self.seeds[o], p.x * frequency + off, p.y * frequency + off, p.z * frequency + off);
            amplitude *= self.gain;
            frequency *= self.lacunarity;
        }
        sum * self.norm
    }

    /// 2D fbm, in [-1, 1].
    #[inline]
    #[must_use]
    pub fn fbm2<B: Basis>(&self, p: Vec2) -> f32 {
        self.fbm2_octaves::<B>(p, self.octaves)
    }

    /// 2D fbm limited to the first `octaves` octaves.
    #[inline]
    #[must_use]
    pub fn fbm2_octaves<B: Basis>(&self, p: Vec2, octaves: usize) -> f32 {
        let mut sum = 0.0;
        let mut amplitude = 1.0;
        let mut frequency = 1.0;
        for o in 0..octaves.min(self.octaves) {
            let off = self.offsets[o];
            sum += amplitude * B::sample2(self.seeds[o], p.x * frequency + off, p.y * frequency + off);
            amplitude *= self.gain;
            frequency *= self.lacunarity;
        }
        sum * self.norm
    }

    /// Ridged multifractal (Musgrave): sharp crests where the basis crosses zero,
    /// each octave weighted by the one before so ridges carry the detail and
    /// valleys stay smooth. In [0, 1].
    #[inline]
    #[must_use]
    pub fn ridged3<B: Basis>(&self, p: Vec3) -> f32 {
        self.ridged3_octaves::<B>(p, self.octaves)
    }

    /// Ridged multifractal limited to the first `octaves` octaves (same normalisation).
    #[inline]
    #[must_use]
    pub fn ridged3_octaves<B: Basis>(&self, p: Vec3, octaves: usize) -> f32 {
        self.ridged(octaves, |o, f| {
            let off = self.offsets[o];
            B::sample3(self.seeds[o], p.x * f + off, p.y * f + off, p.z * f + off)
        })
    }

    /// The raw basis of each of the first `out.len()` octaves at `p` (what
    /// `ridged3_given` takes back).
    #[inline]
    pub fn basis3<B: Basis>(&self, p: Vec3, out: &mut [f32]) {
        let mut frequency = 1.0f32;
        for (o, v) in out.iter_mut().enumerate().take(self.octaves) {
            let off = self.offsets[o];
            *v = B::sample3(self.seeds[o], p.x * frequency + off, p.y * frequency + off, p.z * frequency + off);
            frequency *= self.lacunarity;
        }
    }

    /// `ridged3_octaves` with the basis of the first `given.len()` octaves
    /// given (interpolated from a coarser lattice, say) instead of sampled.
    #[inline]
    #[must_use]
    pub fn ridged3_given<B: Basis>(&self, p: Vec3, octaves: usize, given: &[f32]) -> f32 {
        self.ridged(octaves, |o, f| match given.get(o) {
            Some(&v) => v,
            None => {
                let off = self.offsets[o];
                B::sample3(self.seeds[o], p.x * f + off, p.y * f + off, p.z * f + off)
            }
        })
    }

    /// 2D ridged multifractal, in [0, 1].
    #[inline]
    #[must_use]
    pub fn ridged2<B: Basis>(&self, p: Vec2) -> f32 {
        self.ridged(self.octaves, |o, f| {
            let off = self.offsets[o];
            B::sample2(self.seeds[o], p.x * f + off, p.y * f + off)
        })
    }

    #[inline(always)]
    fn ridged(&self, octaves: usize, sample: impl Fn(usize, f32) -> f32) -> f32 {
        let mut sum = 0.0;
        let mut amplitude = 1.0;
        let mut frequency = 1.0;
        let mut weight = 1.0f32;
        for o in 0..octaves.min(self.octaves) {
            let signal = 1.0 - sample(o, frequency).abs();
            let signal = signal * signal * weight;
            weight = (signal * 2.0).clamp(0.0, 1.0);
            sum += signal * amplitude;
            amplitude *= self.gain;
            frequency *= self.lacunarity;
        }
        sum * self.norm
    }

    /// Perlin's turbulence: the sum of |octave|, billowy and always >= 0. In [0, 1].
    #[inline]
    #[must_use]
    pub fn turbulence3<B: Basis>(&self, p: Vec3) -> f32 {
        let mut sum = 0.0;
        let mut amplitude = 1.0;
        let mut frequency = 1.0;
        for o in 0..self.octaves {
            let off = self.offsets[o];
            sum += amplitude
                * B::sample3(self.seeds[o], p.x * frequency + off, p.y * frequency + off, p.z * frequency + off).abs();
            amplitude *= self.gain;
            frequency *= self.lacunarity;
        }
        sum * self.norm
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::{Gradient, Value};

    fn points() -> impl Iterator<Item = Vec3> {
        (0..5000).map(|i| {
            let t = i as f32;
            Vec3::new(t * 0.131 - 300.0, t * -0.077 + 20.0, t * 0.053)
        })
    }

    /// Ridged noise with every octave's basis given, or any leading
    /// number of them, is the same bits as sampled, at random points.
    #[test]
    fn ridged_with_given_basis_is_the_same_bits() {
        let f = Fractal::new(5, FractalParams { octaves: 6, lacunarity: 2.0, gain: 0.5 });
        for i in 0..500 {
            let t = i as f32 * 0.377;
            let p = Vec3::new(libm::sinf(t) * 90.0, libm::cosf(t * 1.7) * 70.0, t * 0.3 - 40.0);
            let mut basis = [0.0; 6];
            f.basis3::<Gradient>(p, &mut basis);
            for octaves in 1..=6 {
                let sampled = f.ridged3_octaves::<Gradient>(p, octaves).to_bits();
                for given in 0..=6 {
                    assert_eq!(f.ridged3_given::<Gradient>(p, octaves, &basis[..given]).to_bits(), sampled);
                }
            }
        }
    }

    #[test]
    fn sums_stay_in_range() {
        let f = Fractal::new(3, FractalParams { octaves: 8, lacunarity: 2.0, gain: 0.5 });
        for p in points() {
            let a = f.fbm3::<Gradient>(p);
            let b = f.ridged3::<Gradient>(p);
            let c = f.turbulence3::<Value>(p);
            let d = f.fbm2::<Value>(p.truncate());
            assert!((-1.0..=1.0).contains(&a), "fbm {a}");
            assert!((0.0..=1.0).contains(&b), "ridged {b}");
            assert!((0.0..=1.0).contains(&c), "turbulence {c}");
            assert!((-1.0..=1.0).contains(&d), "fbm2 {d}");
        }
    }

    #[test]
    fn limited_octaves_are_a_prefix_of_the_full_sum() {
        let f = Fractal::new(11, FractalParams { octaves: 6, lacunarity: 2.0, gain: 0.5 });
        for p in points().take(200) {
            let full = f.fbm3::<Gradient>(p);
            let coarse = f.fbm3_octaves::<Gradient>(p, 3);
            // The dropped octaves carry at most 0.125 + 0.0625 + 0.03125 of 1.96875.
            assert!((full - coarse).abs() <= 0.219 / 1.968 + 1e-6, "{full} vs {coarse}");
            assert_eq!(f.fbm3_octaves::<Gradient>(p, 6), full);
        }
        assert_eq!(f.octaves_for_wavelength(0.2), 3); // wavelengths 1, 0.5, 0.25
        assert_eq!(f.octaves_for_wavelength(2.0), 1);
        assert_eq!(f.octaves_for_wavelength(0.0), 6);
    }

    #[test]
    fn octave_count_is_clamped() {
        let f = Fractal::new(1, FractalParams { octaves: 99, lacunarity: 2.0, gain: 0.5 });
        assert_eq!(f.octaves(), MAX_OCTAVES);
        let g = Fractal::new(1, FractalParams { octaves: 0, lacunarity: 2.0, gain: 0.5 });
        assert_eq!(g.octaves(), 1);
    }
}
