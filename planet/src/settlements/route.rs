//! The route: the reference's guarantee that a town can always be crossed.
//! A sine wave runs from the front of one landmark to the front of the
//! other (whole half-waves, so it meets both ends; never a straight
//! hallway). Then, in building order, every building whose grown box comes
//! within `route_delete_m` of the road is removed, and one within
//! `route_push_m` is pushed straight away from its nearest point of the road
//! until its box is `route_push_m` clear; a pushed building that then fails
//! its ground gates or its spacing to a kept one is removed too.
//!
//! The road is the route with the landmarks' centres at its ends, levelled
//! (`level.rs`) to a profile that makes it walkable whatever the ground:
//! the ground under it smoothed, held to each landmark's base near it, kept
//! dry, and nowhere steeper than `ROAD_GRADE_DEG` along it.

use glam::Vec2;

use super::building::{Building, box_distance, box_gap};
use super::town::{DRY_M, GroundSample, Town, TownInput, ground_under};

/// Points along the centre line.
const ROUTE_POINTS: usize = 97;
/// Clear ground between a landmark's grown box and the route's end, metres:
/// no bent landmark leans over the route's first steps, and the end lies
/// two cells of the walker's LOD-1 mesh from the wall, on the navmesh
/// (which keeps off the triangles against a wall).
const DOOR_M: f32 = 4.0;
/// Steepest grade of the road along its line, degrees (a walker climbs 40°;
/// the margin is the mesh's facets and the skirts beside the road).
pub const ROAD_GRADE_DEG: f32 = 20.0;
/// How far either side the ground under the road is averaged for its profile, metres.
const SMOOTH_M: f32 = 12.0;
/// The most the road may cut into or stand over the ground for an axis to
/// be preferred, metres (a town falls back to more only where no axis does).
const EARTHWORK_M: f32 = 5.0;

/// A route's centre line and its road, town-local metres.
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    /// From the first landmark's front to the second's: the way a walker takes.
    pub points: Vec<Vec2>,
    /// The road: the first landmark's centre, `points`, the second's centre.
    pub road: Vec<Vec2>,
    /// The height the road is levelled to at each of its points, metres
    /// above the base radius.
    pub heights_m: Vec<f32>,
    /// The ground under each of `points`.
    ground: Vec<GroundSample>,
}

impl Route {
    /// The sine wave between the fronts of `landmarks` (the growth axis's
    /// far end first), across the growth axis by the recipe's amplitude
    /// (less on a short line), and its road's profile. Its points are evenly
    /// spaced along the line between its ends (the wave runs square to it),
    /// which `level.rs` uses to find the few segments near a point.
    #[must_use]
    pub(crate) fn between(input: &TownInput<'_>, growth: Vec2, landmarks: &[Building; 2]) -> Self {
        let r = input.recipe;
        let (a, b) = (Vec2::from(landmarks[0].centre), Vec2::from(landmarks[1].centre));
        let start = front(&landmarks[0], (b - a).normalize_or(-growth));
        let end = front(&landmarks[1], (a - b).normalize_or(growth));
        let across = growth.perp();
        let half_waves = (r.route_waves * 2.0).round().max(1.0);
        // Where big landmarks leave a short line, the wave flattens so it
        // never turns more than 45° off the line (and never folds back on itself).
        let amplitude = r.route_amplitude_m.min(start.distance(end) / (core::f32::consts::PI * half_waves));
        let points: Vec<Vec2> = (0..ROUTE_POINTS)
            .map(|k| {
                let s = k as f32 / (ROUTE_POINTS - 1) as f32;
                let wave = libm::sinf(core::f32::consts::PI * half_waves * s) * amplitude;
                start + (end - start) * s + across * wave
            })
            .collect();
        let mut road = Vec::with_capacity(points.len() + 2);
        road.push(a);
        road.extend_from_slice(&points);
        road.push(b);
        let ground: Vec<GroundSample> = road.iter().map(|&p| (input.ground)(input.frame.direction(p))).collect();
        let heights_m = profile(input, &road, &ground, landmarks);
        let ground = ground[1..=points.len()].to_vec();
        Self { points, road, heights_m, ground }
    }

    /// Whether the route is a good one: every point of the line dry and
    /// above the lowest ground, and its road nowhere cut or raised more
    /// than `EARTHWORK_M` from the ground.
    #[must_use]
    pub(crate) fn is_clear(&self, input: &TownInput<'_>) -> bool {
        let dry = self.ground.iter().all(|s| !s.wet && s.height_m >= input.lowest_m);
        let modest = self.ground.iter().zip(&self.heights_m[1..]).all(|(s, h)| (h - s.height_m).abs() <= EARTHWORK_M);
        dry && modest
    }

    /// The least distance from the road to a box, and the road's point nearest it.
    #[must_use]
    pub fn clearance(&self, bounds: &[f32; 4]) -> (f32, Vec2) {
        road_clearance(&self.road, bounds)
    }
}

/// The least distance from the polyline `road` to a box, and its point nearest it.
#[must_use]
pub fn road_clearance(road: &[Vec2], bounds: &[f32; 4]) -> (f32, Vec2) {
    let mut best = (f32::MAX, road[0]);
    for w in road.windows(2) {
        // Along each segment at sub-metre steps: exact enough for boxes.
        let steps = (w[0].distance(w[1]) / 0.5).ceil().max(1.0) as usize;
        for s in 0..=steps {
            let p = w[0].lerp(w[1], s as f32 / steps as f32);
            let d = box_distance(bounds, p);
            if d < best.0 {
                best = (d, p);
            }
        }
    }
    best
}

/// Where the route meets `landmark`: from its centre `towards` the other,
/// the first point `DOOR_M` clear of its grown box.
fn front(landmark: &Building, towards: Vec2) -> Vec2 {
    let c = Vec2::from(landmark.centre);
    let mut k = landmark.width_m.min(landmark.depth_m) * 0.5;
    while box_distance(&landmark.bounds, c + towards * k) < DOOR_M {
        k += 0.25;
    }
    c + towards * k
}

/// The heights the road is levelled to, one per point of `road`: the ground
/// under it averaged over `SMOOTH_M` either side, then held between cones
/// of slope `ROAD_GRADE_DEG`: pinned to a landmark's base wherever the road
/// reaches its footprint (so the landmark stays level), at least `DRY_M`
/// over any water drawn there. Each part is a function of grade at most
/// the cones' and the max and min of such functions are too, so no step
/// of the road is steeper, whatever the ground.
fn profile(input: &TownInput<'_>, road: &[Vec2], ground: &[GroundSample], landmarks: &[Building; 2]) -> Vec<f32> {
    let r = input.recipe;
    let grade = libm::tanf(ROAD_GRADE_DEG.to_radians());
    let mut along = Vec::with_capacity(road.len());
    let mut s = 0.0f32;
    for (k, p) in road.iter().enumerate() {
        if k > 0 {
            s += p.distance(road[k - 1]);
        }
        along.push(s);
    }
    let target: Vec<f32> = along
        .iter()
        .map(|&sk| {
            let (mut sum, mut weight) = (0.0, 0.0);
            for (sj, g) in along.iter().zip(ground) {
                let w = 1.0 - (sj - sk).abs() / SMOOTH_M;
                if w > 0.0 {
                    sum += w * g.height_m;
                    weight += w;
                }
            }
            sum / weight
        })
        .collect();
    // A landmark pins the road from its centre to the route's end at its
    // front, and wherever else the road comes within its reach (and a
    // segment more) of the footprint.
    let step = along.last().copied().unwrap_or(0.0) / (road.len() - 1).max(1) as f32;
    let last = road.len() - 1;
    let pins: Vec<(f32, f32)> = road
        .iter()
        .zip(&along)
        .enumerate()
        .filter_map(|(k, (&p, &sk))| {
            let end = match k {
                0 | 1 => Some(&landmarks[0]),
                k if k + 1 >= last => Some(&landmarks[1]),
                _ => landmarks.iter().find(|b| b.footprint_distance(p) <= r.route_push_m + step),
            };
            end.map(|b| (sk, b.base_m))
        })
        .collect();
    let floors: Vec<(f32, f32)> =
        along.iter().zip(ground).filter_map(|(&sk, g)| g.water_m.map(|w| (sk, w + DRY_M))).collect();
    let below = |points: &[(f32, f32)], sk: f32| {
        points.iter().map(|&(sj, h)| h - grade * (sj - sk).abs()).fold(f32::MIN, f32::max)
    };
    let above = |points: &[(f32, f32)], sk: f32| {
        points.iter().map(|&(sj, h)| h + grade * (sj - sk).abs()).fold(f32::MAX, f32::min)
    };
    let targets: Vec<(f32, f32)> = along.iter().copied().zip(target).collect();
    along
        .iter()
        .map(|&sk| {
            // The middle of the target's two cones: the nearest graded line to it.
            let middle = 0.5 * (below(&targets, sk) + above(&targets, sk));
            middle.max(below(&pins, sk)).max(below(&floors, sk)).min(above(&pins, sk))
        })
        .collect()
}

/// Clears the route's corridor through `town` (landmarks stay).
pub(crate) fn clear(input: &TownInput<'_>, line: &Route, town: &mut Town) {
    let r = input.recipe;
    let mut kept: Vec<Building> = Vec::with_capacity(town.buildings.len());
    for b in town.buildings.drain(..) {
        if b.landmark {
            kept.push(b);
            continue;
        }
        let (d, nearest) = line.clearance(&b.bounds);
        if d >= r.route_push_m {
            // Clear of the route, but a building pushed before it may now crowd it.
            if kept.iter().all(|o| box_gap(&o.bounds, &b.bounds) >= r.spacing_m) {
                kept.push(b);
            } else {
                town.counts.removed += 1;
            }
            continue;
        }
        if d < r.route_delete_m {
            town.counts.removed += 1;
            continue;
        }
        match pushed(input, line, &b, nearest, &kept) {
            Some(moved) => {
                town.counts.pushed += 1;
                kept.push(moved);
            }
            None => town.counts.removed += 1,
        }
    }
    town.buildings = kept;
}

/// `b` pushed away from the route's point `nearest` until its box is the
/// push radius clear, if its ground and spacing still hold there.
fn pushed(input: &TownInput<'_>, line: &Route, b: &Building, nearest: Vec2, kept: &[Building]) -> Option<Building> {
    let r = input.recipe;
    let centre = Vec2::from(b.centre);
    let away = (centre - nearest).normalize_or(Vec2::X);
    let mut moved = *b;
    // Each step moves the box by the shortfall; a few steps settle it where
    // the line bends under the box.
    for _ in 0..4 {
        let (d, _) = line.clearance(&moved.bounds);
        if d >= r.route_push_m {
            break;
        }
        let shift = away * (r.route_push_m - d + 0.05);
        moved.centre = (Vec2::from(moved.centre) + shift).to_array();
        moved.bounds = moved.grown_bounds();
    }
    if line.clearance(&moved.bounds).0 < r.route_push_m {
        return None;
    }
    if Vec2::from(moved.centre).length() > input.site.radius_m {
        return None;
    }
    moved.base_m = ground_under(input, &moved).ok()?;
    let spaced = kept.iter().all(|o| box_gap(&o.bounds, &moved.bounds) >= r.spacing_m);
    spaced.then_some(moved)
}
