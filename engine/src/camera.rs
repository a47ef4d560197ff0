//! The camera as the streamer sees it: a planet-local position (f64) and a
//! view cone, for distances and "in view" tests.

use glam::DVec3;
use serde::{Deserialize, Serialize};

/// A camera in planet-local space.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Camera {
    /// Position, metres from the planet's centre.
    pub position: DVec3,
    /// Unit view direction.
    pub forward: DVec3,
    /// Vertical field of view, radians.
    pub fov_y: f64,
    /// Width over height of the view.
    pub aspect: f64,
    /// Velocity over the ground, metres a second (planet-local, as the
    /// position): the region tree looks ahead along it and coarsens with it.
    #[serde(default)]
    pub velocity: DVec3,
}

impl Camera {
    /// A camera at `position` looking along `forward`, with a 60° by 16:9 view.
    #[must_use]
    pub fn new(position: DVec3, forward: DVec3) -> Self {
        Self {
            position,
            forward: forward.normalize_or(DVec3::NEG_Z),
            fov_y: 60f64.to_radians(),
            aspect: 16.0 / 9.0,
            velocity: DVec3::ZERO,
        }
    }

    /// The same camera moving at `velocity` (planet-local, metres a second).
    #[must_use]
    pub fn moving(self, velocity: DVec3) -> Self {
        Self { velocity, ..self }
    }

    /// Whether a sphere may be in view: inside the cone around `forward` that
    /// holds the whole view rectangle, widened by the sphere's angular radius.
    #[must_use]
    pub fn sees(&self, centre: DVec3, radius: f64) -> bool {
        let to = centre - self.position;
        let distance = to.length();
        if distance <= radius {
            return true;
        }
        let half_diagonal = self.half_diagonal();
        let angle = libm::acos((to.dot(self.forward) / distance).clamp(-1.0, 1.0));
        angle <= half_diagonal + libm::asin((radius / distance).min(1.0))
    }

    /// Whether any point within `radius` of the segment from `a` to `b`
    /// may be in view: the segment comes within `radius` of the view cone.
    /// For a segment of one point this is [`Camera::sees`].
    #[must_use]
    pub fn sees_segment(&self, a: DVec3, b: DVec3, radius: f64) -> bool {
        // The distance to a convex cone is a convex function along the
        // segment, so a ternary search finds its least value; the distance
        // changes by at most the step along the segment, so what remains of
        // the interval bounds the error (and is allowed for).
        let half_diagonal = self.half_diagonal();
        let at = |t: f64| self.cone_distance(a + (b - a) * t, half_diagonal);
        let (mut low, mut high) = (0.0, 1.0);
        for _ in 0..40 {
            let (l, h) = (low + (high - low) / 3.0, high - (high - low) / 3.0);
            if at(l) <= at(h) {
                high = h;
            } else {
                low = l;
            }
        }
        let slack = (high - low) * a.distance(b);
        at(0.5 * (low + high)) <= radius + slack
    }

    /// Half the angle of the cone around `forward` that holds the whole view rectangle.
    fn half_diagonal(&self) -> f64 {
        libm::atan(libm::tan(self.fov_y * 0.5) * libm::sqrt(1.0 + self.aspect * self.aspect))
    }

    /// The distance from `point` to the view cone of half-angle `half_diagonal`.
    fn cone_distance(&self, point: DVec3, half_diagonal: f64) -> f64 {
        let to = point - self.position;
        let distance = to.length();
        if distance == 0.0 {
            return 0.0;
        }
        let outside = libm::acos((to.dot(self.forward) / distance).clamp(-1.0, 1.0)) - half_diagonal;
        if outside <= 0.0 {
            0.0
        } else if outside >= core::f64::consts::FRAC_PI_2 {
            distance
        } else {
            distance * libm::sin(outside)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sees_what_is_in_front() {
        let c = Camera::new(DVec3::ZERO, DVec3::Z);
        assert!(c.sees(DVec3::new(0.0, 0.0, 100.0), 1.0));
        assert!(!c.sees(DVec3::new(0.0, 0.0, -100.0), 1.0));
        assert!(c.sees(DVec3::new(0.0, 0.0, -100.0), 150.0));
        // Just outside the corner of the view, and a big sphere there.
        assert!(!c.sees(DVec3::new(100.0, 0.0, 10.0), 1.0));
        assert!(c.sees(DVec3::new(100.0, 0.0, 10.0), 60.0));
    }

    /// A segment is seen where a sphere on it would be: over random
    /// cameras, segments and radii, `sees_segment` says yes where the
    /// sphere of one of 2,001 points along the segment is seen, and no where
    /// none is seen even widened by the points' spacing (so none between
    /// them is either).
    #[test]
    fn a_segment_is_seen_where_a_sphere_on_it_is() {
        let mut h = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            h ^= h << 13;
            h ^= h >> 7;
            h ^= h << 17;
            (h >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let (mut seen, mut cleared) = (0, 0);
        for _ in 0..2000 {
            let mut camera = Camera::new(DVec3::new(next(), next(), next()) * 50.0, DVec3::new(next(), next(), next()));
            camera.fov_y = (20.0 + 60.0 * (next() + 1.0)).to_radians();
            camera.aspect = 1.0 + next().abs();
            let a = DVec3::new(next(), next(), next()) * 400.0;
            let b = a + DVec3::new(next(), next(), next()) * 600.0 * next().abs();
            let radius = 40.0 * (next() + 1.0);
            let says = camera.sees_segment(a, b, radius);
            let points = (0..=2000).map(|i| a.lerp(b, f64::from(i) / 2000.0));
            let any = points.clone().any(|p| camera.sees(p, radius));
            let spacing = a.distance(b) / 2000.0;
            let clear = points.clone().all(|p| !camera.sees(p, radius + spacing));
            assert!(!any || says, "a point of the segment is seen, the segment is not");
            if clear {
                assert!(!says, "no point within {radius} m of the segment is seen, but it is");
            }
            seen += usize::from(any);
            cleared += usize::from(clear);
        }
        assert!(seen > 300 && cleared > 300, "seen {seen}, clear {cleared}");
    }
}
