//! A rule's world cells on a cube face and the one candidate each may hold:
//! its id, its place in face coordinates, and the rolls that decide its
//! existence, size, turn, variant and tint. All of it is a hash of (planet,
//! rule, face, cell), so a cell gives the same candidate to every region
//! that asks, at every LOD, in any order.

use super::rules::Placement;
use crate::Face;
use crate::hash::{hash0, hash3, mix64, salt, unit_f32};

/// One cell's candidate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// The object's id: unique per (planet, rule, face, cell).
    pub id: u64,
    /// Face coordinates of its base.
    pub u: f32,
    /// Face coordinates of its base.
    pub v: f32,
}

impl Candidate {
    /// A uniform roll in [0, 1) for purpose `k` (each purpose its own).
    #[must_use]
    pub fn roll(&self, k: u64) -> f32 {
        unit_f32(mix64(self.id ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
    }
}

/// Roll purposes.
pub mod roll {
    /// Whether the candidate exists.
    pub const EXISTS: u64 = 1;
    /// Where in its cell, along u.
    pub const JITTER_U: u64 = 2;
    /// Where in its cell, along v.
    pub const JITTER_V: u64 = 3;
    /// Its size.
    pub const SIZE: u64 = 4;
    /// Its turn about the local up.
    pub const YAW: u64 = 5;
    /// Its model variant.
    pub const VARIANT: u64 = 6;
    /// Its tint.
    pub const TINT: u64 = 7;
    /// How many children.
    pub const CHILDREN: u64 = 8;
}

/// The seed of a planet's scatter.
#[must_use]
pub fn scatter_seed(planet_seed: u64) -> u64 {
    hash0(planet_seed, salt(b"scatter"))
}

/// The cell (i, j) range of `rule` on a face whose candidates can lie in
/// face coordinates `lo..=hi`.
#[must_use]
pub fn cells_over(rule: &Placement, lo: [f32; 2], hi: [f32; 2]) -> ([i32; 2], [i32; 2]) {
    let c = rule.cell_units();
    let shift = if rule.offset_rows { 1 } else { 0 };
    let first = |t: f32| (((t + 1.0) / c).floor() as i32 - 1 - shift).max(0);
    let last = |t: f32| (((t + 1.0) / c).floor() as i32 + 1).min(rule.cells);
    ([first(lo[0]), first(lo[1])], [last(hi[0]), last(hi[1])])
}

/// The candidate of cell (i, j) of `rule` on `face`, or `None` when the
/// cell's candidate falls off the face (the offset rows' last cell).
#[must_use]
pub fn candidate(seed: u64, rule: &Placement, face: Face, i: i32, j: i32) -> Option<Candidate> {
    let id = hash3(seed, u64::from(rule.rule), i64::from(i), i64::from(j), i64::from(face.index()));
    let probe = Candidate { id, u: 0.0, v: 0.0 };
    let c = rule.cell_units();
    let shift = if rule.offset_rows && j % 2 == 1 { 0.5 } else { 0.0 };
    let offset = |r: f32| 0.5 + (r - 0.5) * rule.jitter;
    let u = -1.0 + (i as f32 + shift + offset(probe.roll(roll::JITTER_U))) * c;
    let v = -1.0 + (j as f32 + offset(probe.roll(roll::JITTER_V))) * c;
    (u < 1.0 && v < 1.0).then_some(Candidate { id, u, v })
}
