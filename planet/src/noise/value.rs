//! Value noise in 2D and 3D: a pseudo-random value at every lattice corner,
//! blended with the quintic fade. Blockier than gradient noise and not zero at
//! the corners; cheap, and good for masks and material variation.

use super::Basis;
use super::lattice::{PRIME_X, PRIME_Y, PRIME_Z, corner_hash, fade, fast_floor, lerp};

/// The corner value in [-1, 1): the hash read as a signed fraction.
#[inline(always)]
fn corner_value(h: u32) -> f32 {
    (h as i32) as f32 * (1.0 / 2_147_483_648.0)
}

/// 3D value noise at (x, y, z) in lattice units; in [-1, 1].
#[inline]
#[must_use]
pub fn value3(seed: u32, x: f32, y: f32, z: f32) -> f32 {
    let (ix, iy, iz) = (fast_floor(x), fast_floor(y), fast_floor(z));
    let (u, v, w) = (fade(x - ix as f32), fade(y - iy as f32), fade(z - iz as f32));
    let x0 = (ix as u32).wrapping_mul(PRIME_X);
    let y0 = (iy as u32).wrapping_mul(PRIME_Y);
    let z0 = (iz as u32).wrapping_mul(PRIME_Z);
    let (x1, y1, z1) = (x0.wrapping_add(PRIME_X), y0.wrapping_add(PRIME_Y), z0.wrapping_add(PRIME_Z));
    let c = |xp, yp, zp| corner_value(corner_hash(seed, xp, yp, zp));
    let nx00 = lerp(c(x0, y0, z0), c(x1, y0, z0), u);
    let nx10 = lerp(c(x0, y1, z0), c(x1, y1, z0), u);
    let nx01 = lerp(c(x0, y0, z1), c(x1, y0, z1), u);
    let nx11 = lerp(c(x0, y1, z1), c(x1, y1, z1), u);
    lerp(lerp(nx00, nx10, v), lerp(nx01, nx11, v), w)
}

/// 2D value noise at (x, y) in lattice units; in [-1, 1].
#[inline]
#[must_use]
pub fn value2(seed: u32, x: f32, y: f32) -> f32 {
    let (ix, iy) = (fast_floor(x), fast_floor(y));
    let (u, v) = (fade(x - ix as f32), fade(y - iy as f32));
    let x0 = (ix as u32).wrapping_mul(PRIME_X);
    let y0 = (iy as u32).wrapping_mul(PRIME_Y);
    let (x1, y1) = (x0.wrapping_add(PRIME_X), y0.wrapping_add(PRIME_Y));
    let c = |xp, yp| corner_value(corner_hash(seed, xp, yp, 0));
    lerp(lerp(c(x0, y0), c(x1, y0), u), lerp(c(x0, y1), c(x1, y1), u), v)
}

/// Value noise as a fractal basis.
#[derive(Clone, Copy, Debug, Default)]
pub struct Value;

impl Basis for Value {
    #[inline(always)]
    fn sample2(seed: u32, x: f32, y: f32) -> f32 {
        value2(seed, x, y)
    }
    #[inline(always)]
    fn sample3(seed: u32, x: f32, y: f32, z: f32) -> f32 {
        value3(seed, x, y, z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_range_and_interpolating() {
        let mut lo = f32::MAX;
        let mut hi = f32::MIN;
        for i in 0..20_000 {
            let t = i as f32 * 0.173;
            let v = value3(9, t, -t * 0.5, t * 0.25);
            let w = value2(9, -t, t * 0.7);
            assert!((-1.0..=1.0).contains(&v) && (-1.0..=1.0).contains(&w));
            lo = lo.min(v);
            hi = hi.max(v);
        }
        assert!(lo < -0.8 && hi > 0.8, "value3 spans {lo}..{hi}");
        // On a corner it equals the corner's value exactly.
        let corner = corner_value(corner_hash(9, 3u32.wrapping_mul(PRIME_X), 0, 0));
        assert_eq!(value3(9, 3.0, 0.0, 0.0), corner);
    }
}
