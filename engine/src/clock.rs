//! The world clock: one simulated time that everything time-dependent reads
//! (planets' spin and so the sun's course across each sky; creatures later),
//! with a time scale for pause and speed-up. It advances by real frame time
//! times the scale; captures and smoke runs set it directly, so what they
//! show is a pure function of the time they name (DESIGN.md invariant 9).

/// The time scales the client cycles through: paused, real time, then 10x,
/// 100x and 1000x (a 25-minute day in 1.5 s).
pub const SCALES: [f64; 5] = [0.0, 1.0, 10.0, 100.0, 1_000.0];

/// Latest time a clock may be set to, seconds (about 3,000 years: the spin's
/// fraction of a day still resolves microseconds).
pub const MAX_TIME_S: f64 = 1e11;

/// Simulated time and how fast it runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldClock {
    time_s: f64,
    scale: f64,
}

impl Default for WorldClock {
    fn default() -> Self {
        Self { time_s: 0.0, scale: 1.0 }
    }
}

impl WorldClock {
    /// Simulated seconds since the world began.
    #[must_use]
    pub fn time_s(&self) -> f64 {
        self.time_s
    }

    /// Simulated seconds per real second (0: paused).
    #[must_use]
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Sets the time (clamped to `0..=MAX_TIME_S`; NaN is ignored).
    pub fn set_time(&mut self, time_s: f64) {
        if !time_s.is_nan() {
            self.time_s = clamp_time(time_s);
        }
    }

    /// Sets the scale (clamped to `0..=1000`; NaN is ignored).
    pub fn set_scale(&mut self, scale: f64) {
        if !scale.is_nan() {
            self.scale = scale.clamp(0.0, SCALES[SCALES.len() - 1]);
        }
    }

    /// The next of `SCALES` after the current scale (wrapping to paused).
    pub fn cycle_scale(&mut self) -> f64 {
        self.scale = SCALES.iter().copied().find(|&s| s > self.scale).unwrap_or(SCALES[0]);
        self.scale
    }

    /// Advances by `real_s` seconds of real time; returns the simulated step.
    pub fn advance(&mut self, real_s: f64) -> f64 {
        if !(real_s.is_finite() && real_s > 0.0) {
            return 0.0;
        }
        let before = self.time_s;
        self.time_s = clamp_time(self.time_s + real_s * self.scale);
        self.time_s - before
    }
}

fn clamp_time(t: f64) -> f64 {
    t.clamp(0.0, MAX_TIME_S)
}

/// Local solar time at `place` (a planet-local direction) on a planet
/// turning about `axis` with the sun towards `to_sun` (both planet-local),
/// hours in [0, 24): 12 when the sun crosses the place's meridian, and the
/// afternoon the side the planet turns away from the sun.
#[must_use]
pub fn solar_hours(place: glam::DVec3, axis: glam::DVec3, to_sun: glam::DVec3) -> f64 {
    let flat = |v: glam::DVec3| v - axis * v.dot(axis);
    let (p, s) = (flat(place), flat(to_sun));
    let angle = libm::atan2(axis.dot(s.cross(p)), s.dot(p));
    (12.0 + angle / std::f64::consts::TAU * 24.0).rem_euclid(24.0)
}

/// `hours` as a clock reads: `14:05`.
#[must_use]
pub fn clock_text(hours: f64) -> String {
    let minutes = (hours.rem_euclid(24.0) * 60.0) as u32;
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_runs_at_its_scale_and_pauses() {
        let mut c = WorldClock::default();
        c.set_time(100.0);
        assert_eq!(c.advance(0.5), 0.5);
        c.set_scale(100.0);
        assert_eq!(c.advance(0.5), 50.0);
        assert_eq!(c.time_s(), 150.5);
        c.set_scale(0.0);
        assert_eq!(c.advance(3.0), 0.0);
        for bad in [f64::NAN, f64::INFINITY, -1.0, 0.0] {
            assert_eq!(c.advance(bad), 0.0);
        }
        c.set_time(f64::NAN);
        c.set_scale(f64::NAN);
        assert_eq!((c.time_s(), c.scale()), (150.5, 0.0));
        c.set_time(-5.0);
        assert_eq!(c.time_s(), 0.0);
        c.set_time(1e300);
        assert_eq!(c.time_s(), MAX_TIME_S);
    }

    #[test]
    fn the_scale_cycles_through_every_step_and_wraps() {
        let mut c = WorldClock::default();
        let seen: Vec<f64> = (0..5).map(|_| c.cycle_scale()).collect();
        assert_eq!(seen, [10.0, 100.0, 1_000.0, 0.0, 1.0]);
    }

    #[test]
    fn solar_time_is_noon_under_the_sun_and_afternoon_where_the_ground_turns_away() {
        use glam::DVec3;
        let axis = DVec3::Y;
        let sun = DVec3::X;
        assert!((solar_hours(DVec3::X, axis, sun) - 12.0).abs() < 1e-9);
        assert!(
            solar_hours(DVec3::NEG_X, axis, sun).abs() < 1e-9
                || (solar_hours(DVec3::NEG_X, axis, sun) - 24.0).abs() < 1e-9
        );
        // Turning counter-clockwise about +Y, +X moves towards -Z: that side is past noon.
        assert!((solar_hours(DVec3::NEG_Z, axis, sun) - 18.0).abs() < 1e-9);
        assert!((solar_hours(DVec3::Z, axis, sun) - 6.0).abs() < 1e-9);
        assert_eq!(clock_text(14.09), "14:05");
        assert_eq!(clock_text(24.0), "00:00");
    }
}
