//! The route: the reference's guarantee that a town can always be crossed.
//! A sine wave runs from the front of one landmark to the front of the
//! other (whole half-waves, so it meets both ends; never a straight
//! hallway). Then, in building order, every building whose grown box comes
//! within `route_delete_m` of the centre line is removed, and one within
//! `route_push_m` is pushed straight away from its nearest point of the line
//! until its box is `route_push_m` clear; a pushed building that then fails
//! its ground gates or its spacing to a kept one is removed too.

use glam::Vec2;

use super::building::{Building, box_distance, box_gap};
use super::town::{GroundSample, Town, TownInput, ground_under};

/// Points along the centre line.
const ROUTE_POINTS: usize = 97;
/// Steepest ground along a route a walker takes, degrees.
const WALKABLE_DEG: f32 = 30.0;

/// A route's centre line, town-local metres.
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    /// From the first landmark's front to the second's.
    pub points: Vec<Vec2>,
}

impl Route {
    /// The sine wave between the fronts of `landmarks` (the growth axis's
    /// far end first), across the growth axis by the recipe's amplitude.
    #[must_use]
    pub(crate) fn between(input: &TownInput<'_>, growth: Vec2, landmarks: &[Building; 2]) -> Self {
        let r = input.recipe;
        let front = |b: &Building, towards: Vec2| {
            let c = Vec2::from(b.centre);
            c + towards * (b.width_m.max(b.depth_m) * 0.75 + 2.0)
        };
        let (a, b) = (Vec2::from(landmarks[0].centre), Vec2::from(landmarks[1].centre));
        let start = front(&landmarks[0], (b - a).normalize_or(-growth));
        let end = front(&landmarks[1], (a - b).normalize_or(growth));
        let across = growth.perp();
        let half_waves = (r.route_waves * 2.0).round().max(1.0);
        let points = (0..ROUTE_POINTS)
            .map(|k| {
                let s = k as f32 / (ROUTE_POINTS - 1) as f32;
                let wave = libm::sinf(core::f32::consts::PI * half_waves * s) * r.route_amplitude_m;
                start + (end - start) * s + across * wave
            })
            .collect();
        Self { points }
    }

    /// Whether every point of the line is dry, above the lowest ground, and
    /// no step of it steeper than a walker climbs.
    #[must_use]
    pub(crate) fn is_clear(&self, input: &TownInput<'_>) -> bool {
        let samples: Vec<GroundSample> =
            self.points.iter().map(|&p| (input.ground)(input.frame.direction(p))).collect();
        let dry = samples.iter().all(|s| !s.wet && s.height_m >= input.lowest_m);
        let gentle = self.points.windows(2).zip(samples.windows(2)).all(|(p, s)| {
            let run = p[0].distance(p[1]).max(1e-3);
            libm::atanf((s[1].height_m - s[0].height_m).abs() / run).to_degrees() <= WALKABLE_DEG
        });
        dry && gentle
    }

    /// The least distance from the line to a box, and the line's point nearest it.
    #[must_use]
    pub fn clearance(&self, bounds: &[f32; 4]) -> (f32, Vec2) {
        let mut best = (f32::MAX, self.points[0]);
        for w in self.points.windows(2) {
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
