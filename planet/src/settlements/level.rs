//! The structure term of the 2D pass (rung 6 of the precedence ladder in
//! ARCHITECTURE.md): under every building's footprint, and an apron around
//! it, the surface is its base height exactly; over the skirt beyond, the
//! terrain blends back in with a smoothstep. So nothing floats or is buried,
//! at every LOD, since each column's level is a pure function of its direction.
//! Where skirts overlap, their bases are averaged by weight, so the ground
//! stays continuous between buildings on different bases.
//!
//! Over that, the road (`route.rs`): within `route_delete_m` of its line the
//! surface is the road's profile exactly, blending back out to
//! `route_push_m`, where the nearest footprint begins, so the road never
//! moves a building's ground and building skirts never tilt the road.

use glam::Vec2;

use super::building::Building;
use super::town::{Town, TownFrame};
use crate::recipe::SettlementRecipe;
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
    /// How much of the column is street, 0..=1: the road's flat width,
    /// faded over a metre at its edge (drawn in the street material).
    pub street: f32,
}

/// The levelling at town-local point `p` of `town`: its buildings', then
/// its road's over them. Layered as two blends, terrain to buildings then
/// that to the road, it is one blend of weight `1 - (1 - wb)(1 - wr)`.
#[must_use]
pub fn levelling(town: &Town, p: Vec2, recipe: &SettlementRecipe) -> Option<Levelling> {
    layered(building_levelling(town.buildings.iter(), p, recipe.skirt_m), town, p, recipe)
}

/// `levelling` where only the buildings `near` (indices, ascending) and,
/// if `road`, the road may reach `p` (see `buildings_near`, `road_near`):
/// the same result.
#[must_use]
pub fn levelling_among(town: &Town, near: &[u32], road: bool, p: Vec2, recipe: &SettlementRecipe) -> Option<Levelling> {
    let buildings = building_levelling(near.iter().map(|&b| &town.buildings[b as usize]), p, recipe.skirt_m);
    if road { layered(buildings, town, p, recipe) } else { buildings }
}

/// Whether `town`'s road may level a point within `radius_m` of town-local
/// point `centre`.
#[must_use]
pub fn road_near(town: &Town, centre: Vec2, recipe: &SettlementRecipe, radius_m: f32) -> bool {
    let reach_m = road_reach_m(recipe.route_delete_m, recipe.route_push_m) + radius_m;
    // Every segment `road_levelling` may read, the landmarks' ends included.
    levels_a_road(town)
        && (0..=town.route.len())
            .any(|k| nearest_on_segment(centre, town.road_point(k), town.road_point(k + 1)).0 <= reach_m)
}

/// Whether `town` has a road to level: two buildings, a route, and a
/// height for each of its points and the landmarks' ends.
fn levels_a_road(town: &Town) -> bool {
    town.buildings.len() >= 2 && town.route.len() >= 2 && town.road_heights_m.len() == town.route.len() + 2
}

/// How far from its line a road flat to `flat_m` and blended out to
/// `reach_m` levels anything (a millimetre past the flat at least).
fn road_reach_m(flat_m: f32, reach_m: f32) -> f32 {
    reach_m.max(flat_m + 1e-3)
}

/// The buildings of `town` whose levelling may reach a point within
/// `radius_m` of town-local point `centre`, ascending.
#[must_use]
pub fn buildings_near(town: &Town, centre: Vec2, skirt_m: f32, radius_m: f32) -> Vec<u32> {
    buildings_near_among(town, 0..town.buildings.len() as u32, centre, skirt_m, radius_m)
}

/// `buildings_near` of the buildings `among` (ascending): those of them that may reach.
#[must_use]
pub fn buildings_near_among(
    town: &Town,
    among: impl IntoIterator<Item = u32>,
    centre: Vec2,
    skirt_m: f32,
    radius_m: f32,
) -> Vec<u32> {
    // A point within the radius is no farther from a box along either axis.
    let reach = APRON_M + skirt_m + radius_m;
    among.into_iter().filter(|&b| near_box(&town.buildings[b as usize], centre, reach)).collect()
}

/// The road's levelling over the buildings' `buildings`.
fn layered(buildings: Option<Levelling>, town: &Town, p: Vec2, recipe: &SettlementRecipe) -> Option<Levelling> {
    let road = road_levelling(town, p, recipe.route_delete_m, recipe.route_push_m);
    match (buildings, road) {
        (b, None) => b,
        (None, r) => r,
        (Some(b), Some(r)) => {
            let weight = 1.0 - (1.0 - b.weight) * (1.0 - r.weight);
            let base_m = (b.base_m * b.weight * (1.0 - r.weight) + r.base_m * r.weight) / weight;
            Some(Levelling { weight, base_m, street: r.street })
        }
    }
}

/// The levelling at `p` of `buildings`, skirts `skirt_m` wide.
/// Where skirts overlap, the base is the buildings' bases averaged by their
/// weights and the weight is the greatest: continuous everywhere, so two
/// neighbours on different bases meet in a slope, never a step. (Under a
/// footprint no other building weighs anything: boxes keep the spacing,
/// wider than an apron and a skirt.)
fn building_levelling<'a>(buildings: impl Iterator<Item = &'a Building>, p: Vec2, skirt_m: f32) -> Option<Levelling> {
    let reach = APRON_M + skirt_m;
    let (mut weight, mut sum, mut based) = (0.0f32, 0.0f32, 0.0f32);
    for b in buildings {
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
    (weight > 0.0).then(|| Levelling { weight, base_m: based / sum, street: 0.0 })
}

/// The road's levelling at `p`: its profile at the nearest point of its
/// line, flat to `flat_m` from it and blended out to `reach_m`.
fn road_levelling(town: &Town, p: Vec2, flat_m: f32, reach_m: f32) -> Option<Levelling> {
    if !levels_a_road(town) {
        return None;
    }
    let route = &town.route;
    // The route's points are evenly spaced along the line between its ends:
    // only segments whose span along it comes within the reach can be near.
    let (a, b) = (Vec2::from(route[0]), Vec2::from(route[route.len() - 1]));
    let length = a.distance(b).max(1e-3);
    let along = (p - a).dot(b - a) / length;
    let spacing = length / (route.len() - 1) as f32;
    let last = route.len() - 2;
    let lo = libm::floorf((along - reach_m) / spacing - 1.0).clamp(0.0, last as f32) as usize;
    let hi = libm::ceilf((along + reach_m) / spacing + 1.0).clamp(0.0, last as f32) as usize;
    // Road segment k runs from point k to k + 1: 0 and route.len() are the landmarks' ends.
    let ends = [0, route.len()];
    let mut best = (f32::MAX, 0.0f32);
    for k in ends.into_iter().chain(lo + 1..=hi + 1) {
        let (d, t) = nearest_on_segment(p, town.road_point(k), town.road_point(k + 1));
        if d < best.0 {
            let h = town.road_heights_m[k] + (town.road_heights_m[k + 1] - town.road_heights_m[k]) * t;
            best = (d, h);
        }
    }
    let weight = 1.0 - smoothstep(flat_m, road_reach_m(flat_m, reach_m), best.0);
    let street = 1.0 - smoothstep(flat_m - 0.5, flat_m + 0.5, best.0);
    (weight > 0.0).then_some(Levelling { weight, base_m: best.1, street })
}

/// The distance from `p` to the segment from `a` to `b`, and how far along
/// it (0 at `a`, 1 at `b`) its nearest point is.
pub(crate) fn nearest_on_segment(p: Vec2, a: Vec2, b: Vec2) -> (f32, f32) {
    let ab = b - a;
    let t = if ab.length_squared() > 0.0 { ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
    ((a + ab * t).distance(p), t)
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
