//! Domain warp ("turbulence in positions", as the talk calls it): displace the
//! sample point by three decorrelated fbm fields before sampling another noise.
//! It bends straight noise features into pinched, swirled, eroded-looking shapes.
//! The displacement uses value noise: it is only ever seen through the noise it
//! warps, so its blockier look does not show, and it costs about half as much.

use glam::Vec3;

use super::{Fractal, FractalParams, MAX_OCTAVES, Value};
use crate::hash::{hash1, salt};

/// A 3D domain warp: `p + amplitude * (fbm_x(p * frequency), fbm_y(..), fbm_z(..))`.
#[derive(Clone, Debug)]
pub struct Warp3 {
    axes: [Fractal; 3],
    frequency: f32,
    amplitude: f32,
}

impl Warp3 {
    /// A warp whose displacement has features `1 / frequency` units long and
    /// reaches up to `amplitude` units.
    #[must_use]
    pub fn new(seed: u32, params: FractalParams, frequency: f32, amplitude: f32) -> Self {
        let axis = |i: i64| Fractal::new((hash1(u64::from(seed), salt(b"warp"), i) >> 32) as u32, params);
        Self { axes: [axis(0), axis(1), axis(2)], frequency, amplitude }
    }

    /// The displacement at `p` (each component in [-amplitude, amplitude]).
    #[inline]
    #[must_use]
    pub fn offset(&self, p: Vec3) -> Vec3 {
        self.offset_octaves(p, MAX_OCTAVES)
    }

    /// The displacement from the first `octaves` octaves only.
    #[inline]
    #[must_use]
    pub fn offset_octaves(&self, p: Vec3, octaves: usize) -> Vec3 {
        let q = p * self.frequency;
        Vec3::new(
            self.axes[0].fbm3_octaves::<Value>(q, octaves),
            self.axes[1].fbm3_octaves::<Value>(q, octaves),
            self.axes[2].fbm3_octaves::<Value>(q, octaves),
        ) * self.amplitude
    }

    /// The warped point.
    #[inline]
    #[must_use]
    pub fn warp(&self, p: Vec3) -> Vec3 {
        p + self.offset(p)
    }

    /// The octaves with features at least `min_length` units long (at least one).
    #[must_use]
    pub fn octaves_for(&self, min_length: f32) -> usize {
        self.axes[0].octaves_for_wavelength(min_length * self.frequency)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displacement_is_bounded_and_varies() {
        let w = Warp3::new(5, FractalParams { octaves: 3, lacunarity: 2.0, gain: 0.5 }, 0.1, 4.0);
        let mut moved = 0;
        for i in 0..1000 {
            let p = Vec3::new(i as f32 * 0.71, i as f32 * -0.33, 12.5);
            let d = w.offset(p);
            assert!(d.abs().max_element() <= 4.0);
            moved += i32::from(d.length_squared() > 0.01);
            assert_eq!(w.warp(p), p + d);
        }
        assert!(moved > 900, "only {moved} of 1000 points moved");
    }
}
