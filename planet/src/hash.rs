//! Seeded integer hashing: every "random" choice in generation is a hash of
//! (seed, salt, integer coordinates), never a random number generator
//! (DESIGN.md, invariant 2). The same inputs give the same bits on every
//! platform, in every build profile, in any order and on any thread.
//!
//! **Invariant:** nothing here holds state between calls. `HashStream` is a
//! plain value a caller owns (a counter-based stream), not a global.

/// A 64-bit bijective finalizer (splitmix64's, Stafford's "mix13"): every
/// input bit flips about half the output bits.
#[inline]
#[must_use]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A salt from a short ASCII tag (up to 8 bytes), so call sites read
/// `salt(b"caves")` rather than a magic number. Distinct tags give distinct salts.
#[must_use]
pub const fn salt(tag: &[u8]) -> u64 {
    assert!(tag.len() <= 8, "a salt tag holds at most 8 bytes");
    let mut bytes = [0u8; 8];
    let mut i = 0;
    while i < tag.len() {
        bytes[i] = tag[i];
        i += 1;
    }
    u64::from_le_bytes(bytes)
}

/// A salt from a name of any length (a recipe field's path,
/// `terrain.hills.height_m`): its bytes absorbed eight at a time, then its
/// length, so names that differ anywhere give distinct salts.
#[must_use]
pub const fn salt_str(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let mut h = 0x243f_6a88_85a3_08d3;
    let mut i = 0;
    while i < bytes.len() {
        let mut word = [0u8; 8];
        let mut j = 0;
        while j < 8 && i + j < bytes.len() {
            word[j] = bytes[i + j];
            j += 1;
        }
        h = absorb(h, u64::from_le_bytes(word));
        i += 8;
    }
    absorb(h, bytes.len() as u64)
}

/// Absorbs one word into a running hash. `mix64` is a bijection, so inputs that
/// differ in the last word always give different hashes.
#[inline]
const fn absorb(h: u64, word: u64) -> u64 {
    mix64(h ^ word.wrapping_add(0x9e37_79b9_7f4a_7c15))
}

/// The hash of a seed and a salt: the start of every keyed hash below, and the
/// way to derive a child seed (`hash0(planet_seed, salt(b"caves"))`).
#[inline]
#[must_use]
pub const fn hash0(seed: u64, salt: u64) -> u64 {
    absorb(mix64(seed), salt)
}

/// Hash of (seed, salt, x).
#[inline]
#[must_use]
pub const fn hash1(seed: u64, salt: u64, x: i64) -> u64 {
    absorb(hash0(seed, salt), x as u64)
}

/// Hash of (seed, salt, x, y).
#[inline]
#[must_use]
pub const fn hash2(seed: u64, salt: u64, x: i64, y: i64) -> u64 {
    absorb(hash1(seed, salt, x), y as u64)
}

/// Hash of (seed, salt, x, y, z).
#[inline]
#[must_use]
pub const fn hash3(seed: u64, salt: u64, x: i64, y: i64, z: i64) -> u64 {
    absorb(hash2(seed, salt, x, y), z as u64)
}

/// Hash of (seed, salt, x, y, z, w): a cell on a cube face (`w` = face) or a
/// cell and a per-cell feature index.
#[inline]
#[must_use]
pub const fn hash4(seed: u64, salt: u64, x: i64, y: i64, z: i64, w: i64) -> u64 {
    absorb(hash3(seed, salt, x, y, z), w as u64)
}

/// A 32-bit noise seed derived from a 64-bit seed and a salt.
#[inline]
#[must_use]
pub const fn noise_seed(seed: u64, salt: u64) -> u32 {
    (hash0(seed, salt) >> 32) as u32
}

/// Uniform in [0, 1) with 24 bits: every value is exactly representable in f32.
#[inline]
#[must_use]
pub const fn unit_f32(h: u64) -> f32 {
    (h >> 40) as f32 * (1.0 / 16_777_216.0)
}

/// Uniform in [-1, 1).
#[inline]
#[must_use]
pub const fn signed_f32(h: u64) -> f32 {
    unit_f32(h) * 2.0 - 1.0
}

/// Uniform in [lo, hi).
#[inline]
#[must_use]
pub fn range_f32(h: u64, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * unit_f32(h)
}

/// Uniform in [0, 1) with 53 bits.
#[inline]
#[must_use]
pub const fn unit_f64(h: u64) -> f64 {
    (h >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// Uniform in [lo, hi).
#[inline]
#[must_use]
pub fn range_f64(h: u64, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * unit_f64(h)
}

/// An index in `0..n` (multiply-high: no modulo bias worth the name, no division).
/// Panics if `n == 0`.
#[inline]
#[must_use]
pub fn index(h: u64, n: usize) -> usize {
    assert!(n > 0, "index() needs a non-empty range");
    ((u128::from(h) * n as u128) >> 64) as usize
}

/// True with probability `p` (clamped to [0, 1]).
#[inline]
#[must_use]
pub fn chance(h: u64, p: f32) -> bool {
    unit_f32(h) < p
}

/// The index of the weight that roll `h` falls in, each weight a share of
/// their sum; `None` past the last one (where rounding leaves the roll).
#[must_use]
pub fn weighted_index(h: u64, weights: &[f32]) -> Option<usize> {
    let total: f32 = weights.iter().sum();
    let mut pick = unit_f32(h) * total;
    for (i, &w) in weights.iter().enumerate() {
        if pick < w {
            return Some(i);
        }
        pick -= w;
    }
    None
}

/// A counter-based stream of hashes from one key: for a feature that needs several
/// numbers (a cave worm's start, direction and length). It is a value the caller
/// owns; two streams from the same key give the same sequence.
#[derive(Clone, Debug)]
pub struct HashStream {
    key: u64,
    counter: u64,
}

impl HashStream {
    /// A stream keyed by `key` (usually one of the `hash*` functions' output).
    #[must_use]
    pub const fn new(key: u64) -> Self {
        Self { key, counter: 0 }
    }

    /// The next 64-bit hash of the stream.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.counter += 1;
        absorb(self.key, self.counter)
    }

    /// Next value uniform in [0, 1).
    #[inline]
    pub fn unit_f32(&mut self) -> f32 {
        unit_f32(self.next_u64())
    }

    /// Next value uniform in [lo, hi).
    #[inline]
    pub fn range_f32(&mut self, lo: f32, hi: f32) -> f32 {
        range_f32(self.next_u64(), lo, hi)
    }

    /// Next value uniform in [lo, hi), f64.
    #[inline]
    pub fn range_f64(&mut self, lo: f64, hi: f64) -> f64 {
        range_f64(self.next_u64(), lo, hi)
    }

    /// Next index in `0..n`.
    #[inline]
    pub fn index(&mut self, n: usize) -> usize {
        index(self.next_u64(), n)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn named_salts_differ_for_every_name() {
        let names: Vec<String> = (0..5000)
            .map(|i| format!("field{i}"))
            .chain(
                ["", "a", "a\0", "ab", "terrain.hills.height_m", "terrain.hills.height_m.", "materials[1].color"]
                    .map(String::from),
            )
            .collect();
        let mut salts: Vec<u64> = names.iter().map(|n| salt_str(n)).collect();
        salts.sort_unstable();
        salts.dedup();
        assert_eq!(salts.len(), names.len());
        assert_eq!(salt_str("terrain.hills.height_m"), salt_str(&String::from("terrain.hills.height_m")));
    }

    use super::*;

    #[test]
    fn hashes_are_pinned() {
        // Exact bits: a change here changes every world (bump GENERATOR_VERSION).
        assert_eq!(mix64(0), 0);
        assert_eq!(mix64(1), 0x5692_161d_100b_05e5);
        assert_eq!(hash3(42, salt(b"test"), -1, 0, 1 << 40), hash3(42, salt(b"test"), -1, 0, 1 << 40));
        assert_eq!(salt(b"ab"), 0x6261);
    }

    #[test]
    fn each_input_matters() {
        let base = hash4(7, 11, 1, 2, 3, 4);
        let variants = [
            hash4(8, 11, 1, 2, 3, 4),
            hash4(7, 12, 1, 2, 3, 4),
            hash4(7, 11, 0, 2, 3, 4),
            hash4(7, 11, 1, 3, 3, 4),
            hash4(7, 11, 1, 2, -3, 4),
            hash4(7, 11, 1, 2, 3, 5),
            // Swapped coordinates must not collide.
            hash4(7, 11, 2, 1, 3, 4),
        ];
        for v in variants {
            assert_ne!(v, base);
        }
    }

    #[test]
    fn avalanche_is_near_half() {
        // Flipping one input bit flips about 32 of 64 output bits on average.
        let mut total = 0u32;
        let mut samples = 0u32;
        for x in -64i64..64 {
            let h = hash2(1, 2, x, 5);
            for bit in 0..64 {
                total += (h ^ hash2(1, 2, x ^ (1 << bit), 5)).count_ones();
                samples += 1;
            }
        }
        let mean = f64::from(total) / f64::from(samples);
        assert!((mean - 32.0).abs() < 0.5, "mean flipped bits {mean}");
    }

    #[test]
    fn floats_are_in_range_and_uniform() {
        let mut buckets = [0u32; 16];
        for i in 0..160_000i64 {
            let h = hash1(3, 4, i);
            let u = unit_f32(h);
            assert!((0.0..1.0).contains(&u));
            let s = signed_f32(h);
            assert!((-1.0..1.0).contains(&s));
            let d = unit_f64(h);
            assert!((0.0..1.0).contains(&d));
            buckets[(u * 16.0) as usize] += 1;
            assert!(index(h, 7) < 7);
        }
        // Chi-square against uniform with 15 degrees of freedom: 37.7 is p = 0.001.
        let expected = 10_000.0;
        let chi2: f64 = buckets
            .iter()
            .map(|&b| {
                let d = f64::from(b) - expected;
                d * d / expected
            })
            .sum();
        assert!(chi2 < 37.7, "chi-square {chi2}: {buckets:?}");
        assert_eq!(unit_f32(u64::MAX), 16_777_215.0 / 16_777_216.0);
    }

    #[test]
    fn stream_is_repeatable_and_keyed() {
        let mut a = HashStream::new(99);
        let mut b = HashStream::new(99);
        let mut c = HashStream::new(100);
        for _ in 0..10 {
            let x = a.next_u64();
            assert_eq!(x, b.next_u64());
            assert_ne!(x, c.next_u64());
        }
    }
}
