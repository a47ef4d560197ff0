//! Brushes: a sphere, or a box standing square to the local up at its
//! centre and turned about it. Each gives a signed distance in metres
//! (negative inside) at any planet-local point, a weight that is 1 at the
//! centre and fades to 0 at the edge (flatten's), and a reach: the radius
//! of a ball about the centre that holds it (what the log's spatial index
//! and the voxel pass bound an edit by, with `Edit::reach_m`).

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::{EditError, MAX_BRUSH_M, MIN_BRUSH_M};
use crate::scatter::object_axes;

/// A brush's shape and size.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Brush {
    /// A ball.
    Sphere {
        /// Its radius, metres.
        radius_m: f32,
    },
    /// A box whose second axis is the local up at its centre.
    Box {
        /// Half its size along its side, up and forward axes, metres.
        half_m: [f32; 3],
        /// Its turn about the local up, degrees.
        yaw_deg: f32,
    },
}

impl Brush {
    /// Checks its sizes: each in [`MIN_BRUSH_M`]..=[`MAX_BRUSH_M`], the yaw finite.
    pub fn check(&self) -> Result<(), EditError> {
        let size = |field: &'static str, v: f32| {
            if (MIN_BRUSH_M..=MAX_BRUSH_M).contains(&v) {
                Ok(())
            } else {
                Err(EditError::Range { field, value: v.to_string(), range: format!("{MIN_BRUSH_M}..={MAX_BRUSH_M} m") })
            }
        };
        match *self {
            Brush::Sphere { radius_m } => size("radius_m", radius_m),
            Brush::Box { half_m, yaw_deg } => {
                for (field, v) in ["half_m[0]", "half_m[1]", "half_m[2]"].into_iter().zip(half_m) {
                    size(field, v)?;
                }
                if yaw_deg.is_finite() && yaw_deg.abs() <= 360.0 {
                    Ok(())
                } else {
                    Err(EditError::Range { field: "yaw_deg", value: yaw_deg.to_string(), range: "-360..=360".into() })
                }
            }
        }
    }

    /// (shape, size, yaw) as saves store them: shape 0 a sphere (size its
    /// radius three times, yaw 0), 1 a box.
    #[must_use]
    pub fn parts(&self) -> (u8, [f32; 3], f32) {
        match *self {
            Brush::Sphere { radius_m } => (0, [radius_m; 3], 0.0),
            Brush::Box { half_m, yaw_deg } => (1, half_m, yaw_deg),
        }
    }

    /// The brush of [`Brush::parts`]; `None` for an unknown shape.
    #[must_use]
    pub fn from_parts(shape: u8, size: [f32; 3], yaw_deg: f32) -> Option<Brush> {
        match shape {
            0 => Some(Brush::Sphere { radius_m: size[0] }),
            1 => Some(Brush::Box { half_m: size, yaw_deg }),
            _ => None,
        }
    }

    /// Its largest extent from the centre, metres (a bounding radius).
    #[must_use]
    pub fn reach_m(&self) -> f32 {
        match *self {
            Brush::Sphere { radius_m } => radius_m,
            Brush::Box { half_m, .. } => Vec3::from_array(half_m).length(),
        }
    }

    /// Its smallest half extent, metres (how far its weight fades).
    #[must_use]
    pub fn inner_m(&self) -> f32 {
        match *self {
            Brush::Sphere { radius_m } => radius_m,
            Brush::Box { half_m, .. } => half_m[0].min(half_m[1]).min(half_m[2]),
        }
    }

    /// The placed brush at planet-local `centre`.
    #[must_use]
    pub fn at(&self, centre: Vec3) -> Placed {
        let up = centre.normalize_or(Vec3::Y);
        let yaw = match *self {
            Brush::Sphere { .. } => 0.0,
            Brush::Box { yaw_deg, .. } => yaw_deg.to_radians(),
        };
        Placed { brush: *self, centre, axes: object_axes(up, yaw) }
    }
}

/// A brush at its place: what the voxel pass evaluates per sample.
#[derive(Clone, Copy, Debug)]
pub struct Placed {
    brush: Brush,
    /// Its centre, planet-local.
    pub centre: Vec3,
    /// Side, up and forward (`scatter::object_axes` of the local up).
    pub axes: [Vec3; 3],
}

impl Placed {
    /// Signed distance from `p` to the brush's surface, metres: negative inside.
    #[must_use]
    pub fn distance(&self, p: Vec3) -> f32 {
        let d = p - self.centre;
        match self.brush {
            Brush::Sphere { radius_m } => libm::sqrtf(d.length_squared()) - radius_m,
            Brush::Box { half_m, .. } => {
                let q = Vec3::new(d.dot(self.axes[0]), d.dot(self.axes[1]), d.dot(self.axes[2])).abs()
                    - Vec3::from_array(half_m);
                let outside = q.max(Vec3::ZERO);
                libm::sqrtf(outside.length_squared()) + q.max_element().min(0.0)
            }
        }
    }

    /// Height of `p` above the plane through the centre square to its up, metres.
    #[must_use]
    pub fn height(&self, p: Vec3) -> f32 {
        (p - self.centre).dot(self.axes[1])
    }

    /// 1 deep inside, 0 at and beyond the surface, smooth between (over the
    /// outer half of the brush's smallest half extent).
    #[must_use]
    pub fn weight(&self, p: Vec3) -> f32 {
        let t = (-self.distance(p) / (0.5 * self.brush.inner_m())).clamp(0.0, 1.0);
        t * t * (3.0 - 2.0 * t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_are_signed_and_exact_on_the_axes() {
        let centre = Vec3::new(0.0, 4000.0, 0.0);
        let ball = Brush::Sphere { radius_m: 3.0 }.at(centre);
        assert!((ball.distance(centre) + 3.0).abs() < 1e-4);
        assert!((ball.distance(centre + Vec3::X * 5.0) - 2.0).abs() < 1e-3);
        let block = Brush::Box { half_m: [1.0, 2.0, 3.0], yaw_deg: 0.0 }.at(centre);
        let [side, up, forward] = block.axes;
        assert!((block.distance(centre + up * 2.0)).abs() < 1e-3, "the top face");
        assert!((block.distance(centre + side * 3.0) - 2.0).abs() < 1e-3);
        assert!((block.distance(centre + forward * 2.0) + 1.0).abs() < 1e-3);
        assert!((block.height(centre + up * 1.5) - 1.5).abs() < 1e-3);
        assert_eq!(block.weight(centre + up * 5.0), 0.0);
        assert!((block.weight(centre) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn the_reach_holds_the_brush() {
        let centre = Vec3::new(2500.0, 1200.0, -3000.0);
        let shape = Brush::Box { half_m: [4.0, 1.0, 9.0], yaw_deg: 33.0 };
        let brush = shape.at(centre);
        let mut inside = 0;
        for i in 0..2000 {
            let h = crate::hash::mix64(i);
            let f = |s: u32| ((h >> s) & 0xffff) as f32 / 65535.0 * 24.0 - 12.0;
            let p = centre + Vec3::new(f(0), f(16), f(32));
            if brush.distance(p) < 0.0 {
                inside += 1;
                assert!(p.distance(centre) <= shape.reach_m(), "{p} inside the brush, beyond its reach");
            }
        }
        assert!(inside > 30, "only {inside} points fell inside the brush");
    }
}
