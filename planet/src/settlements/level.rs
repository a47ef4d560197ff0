//! The structure term of the 2D pass (rung 6 of the precedence ladder in
//! ARCHITECTURE.md): under every building's footprint, and an apron around
//! it, the surface is its base height exactly; over the skirt beyond, the
//! terrain blends back in with a smoothstep. So nothing floats or is buried,
//! at every LOD, since each column's level is a pure function of its direction.
//! Where skirts overlap, their bases are averaged by weight, so the ground
//! stays continuous between buildings on different bases.

use glam::Vec2;

use super::building::Building;
use super::town::{Town, TownFrame};
use crate::terrain::smoothstep;

/// Flat ground around a footprint before its skirt begins, metres.
pub const APRON_M: f32 = 1.5;

/// What the structure term does to one column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Levelling {
    /// How much of the column is levelled, 0..=1 (1 under a footprint).
    pub weight: f32,
    /// The height it is levelled to, metres above the base radius.
    pub base_m: f32,
}

/// The levelling at town-local point `p` of `town`, skirts `skirt_m` wide.
/// Where skirts overlap, the base is the buildings' bases averaged by their
/// weights and the weight is the greatest: continuous everywhere, so two
/// neighbours on different bases meet in a slope, never a step. (Under a
/// footprint no other building weighs anything: boxes keep the spacing,
/// wider than an apron and a skirt.)
#[must_use]
pub fn levelling(town: &Town, p: Vec2, skirt_m: f32) -> Option<Levelling> {
    let reach = APRON_M + skirt_m;
    let (mut weight, mut sum, mut based) = (0.0f32, 0.0f32, 0.0f32);
    for b in &town.buildings {
        if !near_box(b, p, reach) {
            continue;
        }
        let d = b.footprint_distance(p);
        let w = 1.0 - smoothstep(APRON_M, reach.max(APRON_M + 1e-3), d);
        if w > 0.0 {
            weight = weight.max(w);
            sum += w;
            based += w * b.base_m;
        }
    }
    (weight > 0.0).then(|| Levelling { weight, base_m: based / sum })
}

/// Whether `p` is within `reach` of the footprint's box (a cheap test before the exact one).
fn near_box(b: &Building, p: Vec2, reach: f32) -> bool {
    let half = b.width_m.max(b.depth_m) * 0.75 + reach;
    (p.x - b.centre[0]).abs() <= half && (p.y - b.centre[1]).abs() <= half
}

/// The largest distance from a town's centre at which it levels anything,
/// metres (its radius, the biggest building's half-diagonal and a skirt).
#[must_use]
pub fn town_reach_m(radius_m: f32, largest_m: f32, skirt_m: f32) -> f32 {
    radius_m + largest_m * 0.75 + APRON_M + skirt_m
}

/// Town-local point of direction `d` in `frame`, if `d` is on the town's side.
#[must_use]
pub fn local_point(frame: &TownFrame, d: glam::Vec3) -> Option<Vec2> {
    (d.dot(frame.centre) > 0.5).then(|| frame.local(d))
}
