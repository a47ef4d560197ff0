//! A planet's spin: a day length and a tilted axis, derived from the system
//! seed and the planet's index (or the recipe's `day_s` and `tilt_deg`), and
//! its orientation at any moment of the world clock (DESIGN.md invariant 9:
//! a pure function of the clock and the recipe, so nothing is simulated while
//! away). At time zero every planet stands as generated, so a view or a save
//! made before planets turned still shows the same ground under the same sun.
//!
//! Spin moves the world; it does not make it. It is kept beside the plan, not
//! in the system signature, so saves and goldens name the same ground
//! whatever the day length.

use glam::{DQuat, DVec3};
use serde::{Deserialize, Serialize};

use crate::hash::{HashStream, hash1, salt};

/// Shortest and longest day a recipe may give, seconds.
pub const DAY_S: std::ops::RangeInclusive<f64> = 60.0..=864_000.0;
/// Axis tilt a recipe may give, degrees from the orbit's normal (over 90 turns backwards).
pub const TILT_DEG: std::ops::RangeInclusive<f64> = 0.0..=180.0;

/// How a planet turns.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spin {
    /// Seconds of world clock for one turn (a sidereal day).
    pub day_s: f64,
    /// Axis tilt from the orbit plane's normal (+Y), degrees.
    pub tilt_deg: f64,
    /// Which way the axis leans, degrees around +Y from +X.
    pub lean_deg: f64,
}

impl Spin {
    /// The spin of planet `index` of the system with `seed`: days of 15 to 45
    /// minutes (a landing sees the sun move; a flight to a neighbour and back
    /// comes home to another time of day), tilts up to 28 degrees.
    #[must_use]
    pub fn derive(seed: u64, index: u32) -> Self {
        let mut s = HashStream::new(hash1(seed, salt(b"spin"), i64::from(index)));
        let day_s = (s.range_f64(900.0, 2_700.0) / 10.0).round() * 10.0;
        let tilt_deg = (s.range_f64(0.0, 28.0) * 10.0).round() / 10.0;
        let lean_deg = (s.range_f64(0.0, 360.0) * 10.0).round() / 10.0;
        Self { day_s, tilt_deg, lean_deg }
    }

    /// The unit axis it turns about (counter-clockwise seen from its tip).
    #[must_use]
    pub fn axis(&self) -> DVec3 {
        let (tilt, lean) = (self.tilt_deg.to_radians(), self.lean_deg.to_radians());
        let s = libm::sin(tilt);
        DVec3::new(s * libm::cos(lean), libm::cos(tilt), s * libm::sin(lean))
    }

    /// The turn angle at `time_s`, radians in [0, 2π): the fraction of a day
    /// is taken before the angle, so a clock days or years in stays exact.
    #[must_use]
    pub fn angle(&self, time_s: f64) -> f64 {
        let turns = time_s / self.day_s;
        (turns - libm::floor(turns)) * std::f64::consts::TAU
    }

    /// The planet's orientation at `time_s`: planet-local to system axes.
    /// Identity at time zero. Built with libm so every platform agrees.
    #[must_use]
    pub fn orientation(&self, time_s: f64) -> DQuat {
        let half = self.angle(time_s) * 0.5;
        let v = self.axis() * libm::sin(half);
        DQuat::from_xyzw(v.x, v.y, v.z, libm::cos(half)).normalize()
    }

    /// Angular velocity, radians per second along the axis.
    #[must_use]
    pub fn angular_velocity(&self) -> DVec3 {
        self.axis() * (std::f64::consts::TAU / self.day_s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_spins_are_in_range_and_differ() {
        let spins: Vec<Spin> = (0..200).map(|i| Spin::derive(i / 8, (i % 8) as u32)).collect();
        for s in &spins {
            assert!((900.0..=2_700.0).contains(&s.day_s) && DAY_S.contains(&s.day_s), "{s:?}");
            assert!((0.0..=28.0).contains(&s.tilt_deg) && (0.0..=360.0).contains(&s.lean_deg), "{s:?}");
            assert!((s.axis().length() - 1.0).abs() < 1e-12);
        }
        let distinct: std::collections::BTreeSet<u64> = spins.iter().map(|s| s.day_s as u64).collect();
        assert!(distinct.len() > 100, "{} distinct days of 200", distinct.len());
        assert_eq!(Spin::derive(7, 3), Spin::derive(7, 3));
    }

    #[test]
    fn a_planet_turns_once_a_day_about_its_tilted_axis() {
        let mut stream = HashStream::new(99);
        for _ in 0..300 {
            let spin = Spin {
                day_s: stream.range_f64(60.0, 90_000.0),
                tilt_deg: stream.range_f64(0.0, 180.0),
                lean_deg: stream.range_f64(0.0, 360.0),
            };
            let axis = spin.axis();
            assert!(spin.orientation(0.0).abs_diff_eq(DQuat::IDENTITY, 1e-15));
            // The axis never moves; a point on the equator sweeps the angle.
            let t = stream.range_f64(0.0, 1e7);
            let q = spin.orientation(t);
            assert!((q * axis).distance(axis) < 1e-9);
            let across = axis.any_orthonormal_vector();
            let turned = q * across;
            let angle = libm::atan2(axis.dot(across.cross(turned)), across.dot(turned));
            let expected = spin.angle(t);
            let wrapped = (angle - expected).rem_euclid(std::f64::consts::TAU);
            assert!(wrapped.min(std::f64::consts::TAU - wrapped) < 1e-9, "{spin:?} at {t}: {angle} vs {expected}");
            // Whole days later it stands the same; half a day later, opposite.
            assert!(
                spin.orientation(t + 3.0 * spin.day_s).abs_diff_eq(q, 1e-7)
                    || (spin.orientation(t + 3.0 * spin.day_s).abs_diff_eq(-q, 1e-7))
            );
            let half = spin.orientation(t + 0.5 * spin.day_s) * across;
            assert!((half + turned).length() < 1e-7);
            // Counter-clockwise seen from the tip: the angular velocity agrees
            // with a small step's motion.
            let dt = spin.day_s * 1e-4;
            let moved = spin.orientation(t + dt) * across - turned;
            let predicted = spin.angular_velocity().cross(turned) * dt;
            assert!(moved.distance(predicted) < predicted.length() * 1e-3);
        }
    }
}
