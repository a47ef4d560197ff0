//! Lattice-corner hashing and interpolation shared by the lattice noises.
//!
//! Coordinates are multiplied by large odd constants once per axis ("primed"),
//! so the hash of a corner is one XOR of three words and two multiplies.

/// Per-axis multipliers (large primes, as in FastNoiseLite).
pub(crate) const PRIME_X: u32 = 501_125_321;
pub(crate) const PRIME_Y: u32 = 1_136_930_381;
pub(crate) const PRIME_Z: u32 = 1_720_413_743;

/// `floor(x)` as an integer without a library call or a branch. Exact for
/// |x| < 2^31, far beyond any planet coordinate in lattice units.
#[inline(always)]
pub(crate) fn fast_floor(x: f32) -> i32 {
    let i = x as i32;
    i - i32::from(x < i as f32)
}

/// Hash of a lattice corner from its primed coordinates, with every output bit
/// mixed (value and cellular noise read all of them).
#[inline(always)]
pub(crate) fn corner_hash(seed: u32, xp: u32, yp: u32, zp: u32) -> u32 {
    let mut h = (seed ^ xp ^ yp ^ zp).wrapping_mul(0x27d4_eb2d);
    h ^= h >> 15;
    h.wrapping_mul(0x2c1b_3c6d)
}

/// A gradient index (0..16) for a lattice corner: the top four bits of one
/// multiply, which depend on every bit of the combined coordinates. Cheaper
/// than `corner_hash`, and gradient noise needs no more.
#[inline(always)]
pub(crate) fn gradient_index(seed: u32, xp: u32, yp: u32, zp: u32) -> usize {
    ((seed ^ xp ^ yp ^ zp).wrapping_mul(0x27d4_eb2d) >> 28) as usize
}

/// Perlin's quintic fade, 6t^5 - 15t^4 + 10t^3: C2-continuous across cells.
#[inline(always)]
pub(crate) fn fade(t: f32) -> f32 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

#[inline(always)]
pub(crate) fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + t * (b - a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_floor_matches_floor() {
        for &x in &[-2.5f32, -2.0, -1.0e-7, -0.0, 0.0, 0.3, 1.0, 1.999, 40_000.25, -40_000.75] {
            assert_eq!(fast_floor(x), x.floor() as i32, "{x}");
        }
    }

    #[test]
    fn gradient_indices_are_uniform_and_uncorrelated() {
        // All 16 gradients appear about equally often over a block of corners,
        // and a corner's index says nothing about its +x neighbour's.
        let mut buckets = [0u32; 16];
        let mut pairs = [[0u32; 4]; 4];
        for z in -8i32..8 {
            for y in -16i32..16 {
                for x in -32i32..32 {
                    let at = |x: i32| {
                        gradient_index(
                            777,
                            (x as u32).wrapping_mul(PRIME_X),
                            (y as u32).wrapping_mul(PRIME_Y),
                            (z as u32).wrapping_mul(PRIME_Z),
                        )
                    };
                    buckets[at(x)] += 1;
                    pairs[at(x) / 4][at(x + 1) / 4] += 1;
                }
            }
        }
        let chi2 = |counts: &[u32], expected: f64| -> f64 {
            counts
                .iter()
                .map(|&b| {
                    let d = f64::from(b) - expected;
                    d * d / expected
                })
                .sum()
        };
        assert!(chi2(&buckets, 32_768.0 / 16.0) < 37.7, "{buckets:?}");
        let flat: Vec<u32> = pairs.iter().flatten().copied().collect();
        assert!(chi2(&flat, 32_768.0 / 16.0) < 37.7, "{pairs:?}");
    }

    #[test]
    fn corner_gradient_bits_are_uniform() {
        // The top 4 bits choose a gradient: all 16 choices appear about equally
        // often over a block of neighbouring corners.
        let mut buckets = [0u32; 16];
        for z in -8i32..8 {
            for y in -16i32..16 {
                for x in -32i32..32 {
                    let h = corner_hash(
                        12345,
                        (x as u32).wrapping_mul(PRIME_X),
                        (y as u32).wrapping_mul(PRIME_Y),
                        (z as u32).wrapping_mul(PRIME_Z),
                    );
                    buckets[(h >> 28) as usize] += 1;
                }
            }
        }
        let expected = 32_768.0 / 16.0;
        let chi2: f64 = buckets
            .iter()
            .map(|&b| {
                let d = f64::from(b) - expected;
                d * d / expected
            })
            .sum();
        assert!(chi2 < 37.7, "chi-square {chi2}: {buckets:?}");
    }
}
