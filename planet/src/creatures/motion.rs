//! Where an animal is at any moment: a pure function of its herd's path,
//! its place in the herd and the world clock (DESIGN.md invariant 9).
//!
//! A herd walks its loop in stops and starts (grazing between short
//! walks) while its species is about, and lies still the rest of the day.
//! The time it has been about is counted in closed form from the planet's
//! spin and the sun: a place's sun elevation over a turn is
//! `a + r·cos(θ - φ)`, so the share of each turn above a threshold is an arc
//! of the turn's angle. No step-by-step simulation: a clock years in costs
//! what a clock a second in does.

use glam::{DVec3, Vec3};

use super::path::Herd;
use super::species::{Activity, Gait, Species};
use crate::plan::Spin;

/// Seconds of one graze-and-walk cycle.
pub const CYCLE_S: f64 = 24.0;
/// The share of a cycle spent walking.
pub const WALK_SHARE: f64 = 0.45;
/// Sine of the sun's elevation at which day animals wake (a little before
/// sunrise) and night animals lie down.
pub const DAWN_SINE: f64 = -0.08;
/// ... and at which night animals wake (a little after sunset).
pub const DUSK_SINE: f64 = 0.08;

/// The sun as a planet's ground sees it over time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Daylight {
    /// The planet's spin.
    pub spin: Spin,
    /// Unit direction from the planet to the sun, system axes (fixed: the
    /// planets do not orbit).
    pub sun: DVec3,
}

/// Sine of the sun's elevation over a place as a turn's angle θ goes round:
/// `a + r·cos(θ - φ)`.
#[derive(Clone, Copy, Debug)]
struct SunWave {
    a: f64,
    r: f64,
    phi: f64,
}

impl Daylight {
    /// The daylight of a planet turning with `spin` whose centre is at
    /// `position` (system space; the sun is at the origin).
    #[must_use]
    pub fn of_planet(spin: Spin, position: DVec3) -> Self {
        Self { spin, sun: (-position).normalize_or(DVec3::Y) }
    }

    fn wave(&self, up: DVec3) -> SunWave {
        // The ground turns by θ about the axis k: up(θ) = u∥ + cos θ·u⊥ + sin θ·(k × u⊥).
        let k = self.spin.axis();
        let along = up.dot(k);
        let across = up - k * along;
        let (b, c) = (across.dot(self.sun), k.cross(across).dot(self.sun));
        SunWave { a: along * k.dot(self.sun), r: libm::sqrt(b * b + c * c), phi: libm::atan2(c, b) }
    }

    /// Sine of the sun's elevation over planet-local unit direction `up` at `time_s`.
    #[must_use]
    pub fn sun_sine(&self, up: DVec3, time_s: f64) -> f64 {
        let w = self.wave(up);
        w.a + w.r * libm::cos(self.spin.angle(time_s) - w.phi)
    }

    /// Whether `activity` is about at `up` at `time_s`.
    #[must_use]
    pub fn is_about(&self, up: DVec3, activity: Activity, time_s: f64) -> bool {
        let s = self.sun_sine(up, time_s);
        match activity {
            Activity::Day => s > DAWN_SINE,
            Activity::Night => s < DUSK_SINE,
        }
    }

    /// Seconds of `0..time_s` (negative times count backwards, negatively)
    /// in which `activity` was about at `up`.
    #[must_use]
    pub fn about_seconds(&self, up: DVec3, activity: Activity, time_s: f64) -> f64 {
        let w = self.wave(up);
        let tau = std::f64::consts::TAU;
        // The arc of each turn where the sine is over `threshold`: centred on φ.
        let over = |threshold: f64| -> f64 {
            if w.r < 1e-12 {
                return if w.a > threshold { std::f64::consts::PI } else { 0.0 };
            }
            libm::acos(((threshold - w.a) / w.r).clamp(-1.0, 1.0))
        };
        let turns = time_s / self.spin.day_s;
        let whole = libm::floor(turns);
        let angle = (turns - whole) * tau;
        let seconds_per_radian = self.spin.day_s / tau;
        let above = |threshold: f64| {
            let half = over(threshold);
            (whole * 2.0 * half + arc_overlap(angle, w.phi - half, 2.0 * half)) * seconds_per_radian
        };
        match activity {
            Activity::Day => above(DAWN_SINE),
            Activity::Night => time_s - above(DUSK_SINE),
        }
    }
}

/// The measure of `[0, x]` (x in `[0, 2π)`) inside the arc of `width` from
/// `start`, modulo 2π.
fn arc_overlap(x: f64, start: f64, width: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    if width >= tau {
        return x;
    }
    let start = start.rem_euclid(tau);
    let overlap = |lo: f64, hi: f64| (hi.min(x) - lo.max(0.0)).max(0.0);
    overlap(start, start + width) + overlap(start - tau, start + width - tau)
}

/// Seconds of walking in `about_s` seconds of being about: the walking
/// share of each graze-and-walk cycle.
#[must_use]
pub fn walking_seconds(about_s: f64) -> f64 {
    let cycles = libm::floor(about_s / CYCLE_S);
    cycles * WALK_SHARE * CYCLE_S + (about_s - cycles * CYCLE_S).min(WALK_SHARE * CYCLE_S)
}

/// An animal at one moment, on its path (the 2D ground: the engine sets it
/// down on the colliders).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Its feet, planet-local metres, on the path's ground.
    pub position: DVec3,
    /// The way it faces (unit, along the path).
    pub forward: Vec3,
    /// Metres it has walked (the walk cycle's clock).
    pub walked_m: f64,
    /// How much its legs swing, 0..=1.
    pub stride: f32,
    /// How far it is lying down, 0..=1.
    pub rest: f32,
    /// A flyer's height over the ground in flight, metres.
    pub flight_m: f32,
}

/// Where animal `member` sits in its herd: metres behind the lead, metres
/// to its side, and seconds it starts each walk after the lead.
#[must_use]
pub fn place_in_herd(herd: &Herd, species: &Species, member: u8) -> (f32, f32, f64) {
    let roll = |k: u64| crate::hash::unit_f32(crate::hash::mix64(herd.member_id(member) ^ k));
    let m = f32::from(member);
    let behind = m * species.size_m * (1.3 + 0.6 * roll(1));
    let side = if member.is_multiple_of(2) { 1.0 } else { -1.0 } * species.size_m * (0.3 + 0.9 * roll(2));
    let lag = f64::from(m) * 0.5 + f64::from(roll(3)) * 0.8;
    (behind, if member == 0 { 0.0 } else { side }, lag)
}

impl Herd {
    /// Animal `member`'s pose at `time_s` under `daylight`.
    #[must_use]
    pub fn pose(&self, species: &Species, member: u8, daylight: &Daylight, time_s: f64) -> Pose {
        let up = self.home.as_dvec3();
        let (behind, side, lag) = place_in_herd(self, species, member);
        let about = daylight.about_seconds(up, species.activity, time_s) - lag;
        let walked_s = walking_seconds(about);
        let walked_m = walked_s * f64::from(species.speed_m_s);
        let s = f64::from(self.start_m) + walked_m - f64::from(behind);
        let (point, forward) = self.along(s);
        let across = point.normalize_or_zero().cross(forward).normalize_or_zero();
        let position = (point + across * side).as_dvec3();
        // Legs swing while walking, easing in and out over half a second.
        let in_cycle = about - libm::floor(about / CYCLE_S) * CYCLE_S;
        let walk_s = WALK_SHARE * CYCLE_S;
        let awake = daylight.is_about(up, species.activity, time_s);
        let stride =
            if awake && in_cycle < walk_s { ((in_cycle.min(walk_s - in_cycle)) / 0.5).min(1.0) as f32 } else { 0.0 };
        let sine = daylight.sun_sine(up, time_s);
        let rest = match species.activity {
            Activity::Day => smooth((DAWN_SINE - sine) / 0.03),
            Activity::Night => smooth((sine - DUSK_SINE) / 0.03),
        };
        let flight_m = if species.gait == Gait::Flyer && awake && in_cycle < walk_s {
            (3.0 + 3.0 * species.size_m) * libm::sin(std::f64::consts::PI * in_cycle / walk_s) as f32
        } else {
            0.0
        };
        Pose { position, forward, walked_m, stride, rest, flight_m }
    }
}

/// 0 below 0, 1 above 1, smooth between.
fn smooth(x: f64) -> f32 {
    let x = x.clamp(0.0, 1.0);
    (x * x * (3.0 - 2.0 * x)) as f32
}
