//! `GENERATOR_VERSION` and signatures: a stable 128-bit hash (XXH3-128) over a
//! canonical encoding of a plan and the version. A signature names a world:
//! equal signatures mean equal terrain, and it is the key of every cache.
//!
//! **Invariant:** bump `GENERATOR_VERSION` whenever any generator's output
//! changes; the golden tests in `data/golden/` fail when an output changes
//! while the version stays the same (DESIGN.md, invariant 5).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The version of every generator together. Part of every signature.
/// 2: dual contouring keeps every mesh manifold (ambiguous faces, the QEF
/// fallback) and cave mouths rise as a shaft (issue 14). 3: every derived
/// recipe field drawn from its own stream, keyed by its path (issue 14).
/// 4: the scatter stage runs before the collider, whose LOD-0 and LOD-1
/// colliders hold the trunks and boulders (issue 16). 5: the planet layout
/// (issue 18): belts of mountain stamps, routed rivers with their own water,
/// lakes, beaches from the coast distance, deposits rarest first. 6:
/// settlements (issue 19): towns on the plots, the ground under their
/// buildings levelled, the 3D noise and caves kept from under them. 7:
/// levelling skirts of 8 m whose overlaps average their bases, and
/// buildings only where the skirt meets the terrain gently (issue 19). 8:
/// buildings in the regions' scatter, colliders and navmeshes (issue 19),
/// and dump format 7, which every stage's dump bytes carry. 9: each town's
/// road levelled to a walkable profile, routes clear of their landmarks'
/// bent boxes and flattened where short, cave mouths kept off levelled
/// ground (issue 19). 10: dark caves (issue 20): each voxel sample's cover
/// (its depth in the cave-less ground), each vertex's sky light from it,
/// and no scatter on dim ground; the collider's BVH leaves filled (issue 21).
/// 11: the worm caves' cap continued beyond their layers, rising a metre a
/// metre, so no density jumps 40 m between two layers at the worm floor;
/// cave mouths carved four layers beyond their capsules' boxes, so none
/// jumps at the rim; a dual-contouring vertex kept as a sharp feature only
/// where its planes explain its cell's corners and the tricubic
/// interpolant finds the surface near it (issue 14). 12: river courses
/// merged into fewer carve segments where no point strays more than 0.25 m
/// (less for narrow channels), and the carve's arithmetic rearranged to
/// skip the divisions it does not need; a plan field whose four nearest
/// cells read one value gives that value (issue 18). 13: an edge crossing
/// taken from a bend's straight piece as far as six samples show the piece
/// straight beyond the bend (a curve or a jump past the edge no longer reads
/// as a crease), six-sample crossings up every column in the layers whose
/// stencil fits, and the overhang noise tapered to nothing across its band's
/// outer two layers so the density no longer jumps where the band ends
/// (issue 14). 14: the mountain ridges' long octaves (at least eight
/// lattice spacings) interpolated from the lattice nodes, their crease
/// still taken at every column (issue 18). 15: a dual-contouring corner or
/// edge kept sharp only where its tangent planes also put the 4³ samples
/// around its cell on their own sides (issue 14). 16: water quads share
/// their corners' vertices and water has no overlap strip (never drawn):
/// the same surfaces in a third of the bytes (issue 21). 17: a normal
/// across an edge takes the central difference where neither side of its
/// crossing runs straight (both bend alike, or the straighter one by over
/// half its slope), not one side's slope: a worm tunnel's crossings at the
/// bottom of its cross-section no longer make a crease it does not have
/// (issue 14). 18: a sharp vertex over half a cell from its samples'
/// trilinear zero set is kept only where the generator's own density has
/// its zero set that near (a true crease), else pulled in: a crease the
/// samples alias no longer stands off the ground (issue 14).
pub const GENERATOR_VERSION: u32 = 18;

/// A 128-bit world signature, written as 32 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature(pub u128);

impl Signature {
    /// The signature of `value` under `domain` (so a system and a planet whose
    /// encodings happened to match still get different signatures). The
    /// canonical encoding is compact JSON with fields in declaration order and
    /// floats in shortest round-trip form.
    #[must_use]
    pub fn of(domain: &str, value: &impl Serialize) -> Self {
        let mut bytes = Vec::with_capacity(4096);
        bytes.extend_from_slice(&GENERATOR_VERSION.to_le_bytes());
        bytes.extend_from_slice(domain.as_bytes());
        bytes.push(0);
        serde_json::to_writer(&mut bytes, value).expect("plans always serialize");
        Self(xxhash_rust::xxh3::xxh3_128(&bytes))
    }

    /// A signature of raw bytes (voxel grids, meshes) under `domain`.
    #[must_use]
    pub fn of_bytes(domain: &str, data: &[u8]) -> Self {
        let mut hasher = SignatureHasher::new(domain);
        hasher.update(data);
        hasher.finish()
    }
}

/// A signature of raw bytes fed a piece at a time, equal to `of_bytes` over
/// the pieces joined (so a large value is hashed without copying it whole
/// into one buffer first).
#[derive(Clone)]
pub struct SignatureHasher(xxhash_rust::xxh3::Xxh3);

impl SignatureHasher {
    /// A hasher for `domain`.
    #[must_use]
    pub fn new(domain: &str) -> Self {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(&GENERATOR_VERSION.to_le_bytes());
        h.update(domain.as_bytes());
        h.update(&[0]);
        Self(h)
    }

    /// Adds the next bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The signature of everything added.
    #[must_use]
    pub fn finish(&self) -> Signature {
        Signature(self.0.digest128())
    }
}

impl fmt::Debug for SignatureHasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SignatureHasher")
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signature({self})")
    }
}

impl FromStr for Signature {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.len() != 32 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("{s:?} is not a signature: expected 32 hex digits"));
        }
        u128::from_str_radix(s, 16).map(Self).map_err(|e| e.to_string())
    }
}

impl Serialize for Signature {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Signature {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip_and_domains() {
        let a = Signature::of("a", &[1, 2, 3]);
        let b = Signature::of("b", &[1, 2, 3]);
        assert_ne!(a, b);
        assert_eq!(a, Signature::of("a", &[1, 2, 3]));
        assert_eq!(a.to_string().len(), 32);
        assert_eq!(a.to_string().parse::<Signature>().unwrap(), a);
        assert!("xyz".parse::<Signature>().is_err());
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(serde_json::from_str::<Signature>(&json).unwrap(), a);
    }

    /// The hasher fed in pieces gives the one-shot hash of the pieces
    /// joined, however they are cut (lengths about xxh3's internal blocks).
    #[test]
    fn pieces_hash_as_the_whole() {
        let data: Vec<u8> = (0..70_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let whole = Signature::of_bytes("pieces", &data);
        let mut state = 12345u32;
        for _ in 0..50 {
            let mut hasher = SignatureHasher::new("pieces");
            let mut at = 0;
            while at < data.len() {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let len = [0, 1, 63, 64, 65, 240, 1024, 3072, 5000][(state >> 28) as usize % 9];
                let end = (at + len).min(data.len());
                hasher.update(&data[at..end]);
                at = end;
            }
            assert_eq!(hasher.finish(), whole);
        }
        assert_ne!(SignatureHasher::new("other").finish(), SignatureHasher::new("pieces").finish());
    }
}
