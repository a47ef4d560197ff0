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
        let half_diagonal = libm::atan(libm::tan(self.fov_y * 0.5) * libm::sqrt(1.0 + self.aspect * self.aspect));
        let angle = libm::acos((to.dot(self.forward) / distance).clamp(-1.0, 1.0));
        angle <= half_diagonal + libm::asin((radius / distance).min(1.0))
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
}
