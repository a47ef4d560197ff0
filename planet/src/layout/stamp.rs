//! A mountain stamp: a radial height profile on an elliptical footprint, with
//! its own centre, rotation (the long axis) and scale. The profile is
//! `1 - smoothstep(0, 1, r)` of the elliptical radius r: flat at the peak and
//! flat where it meets the ground, so stamps blend without a rim. Stamps
//! combine by their maximum, so overlapping ones never stack into a spike.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::terrain::smoothstep;

/// One stamp.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stamp {
    /// Unit direction of the peak.
    pub centre: Vec3,
    /// Unit tangent at the centre along the footprint's long axis.
    pub axis: Vec3,
    /// Radius along the long axis, metres.
    pub radius_m: f32,
    /// Width over length of the footprint.
    pub aspect: f32,
    /// Height of the peak above the ground it stands on, metres.
    pub peak_m: f32,
}

/// What a stamp gives a point of its footprint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StampSample {
    /// Height added, metres.
    pub height_m: f32,
    /// How much mountain, 0..=1: the ridged detail's mask and the rock's.
    pub weight: f32,
}

impl Stamp {
    /// The elliptical radius of direction `d` in units of the footprint (1 at its edge),
    /// on a planet of base radius `radius_m`.
    #[inline]
    #[must_use]
    pub fn radius_at(&self, d: Vec3, radius_m: f32) -> f32 {
        // Far round the sphere (the antipode projects onto the centre): outside.
        if d.dot(self.centre) < 0.5 {
            return f32::INFINITY;
        }
        self.elliptical_radius(d, radius_m)
    }

    /// `radius_at` without its test for the far side of the sphere.
    #[inline]
    fn elliptical_radius(&self, d: Vec3, radius_m: f32) -> f32 {
        let offset = (d - self.centre) * radius_m;
        let side = self.centre.cross(self.axis);
        let a = offset.dot(self.axis) / self.radius_m;
        let b = offset.dot(side) / (self.radius_m * self.aspect);
        libm::sqrtf(a * a + b * b)
    }

    /// A bound from below on `radius_at` over the directions within
    /// `within_m` (chord) of unit direction `d`: the footprint's map from
    /// offsets to radii stretches no offset by more than one over its
    /// shorter radius.
    #[must_use]
    pub fn least_radius(&self, d: Vec3, within_m: f32, radius_m: f32) -> f32 {
        self.elliptical_radius(d, radius_m) - within_m / (self.radius_m * self.aspect.min(1.0))
    }

    /// The stamp at `d`, or `None` outside its footprint.
    #[inline]
    #[must_use]
    pub fn at(&self, d: Vec3, radius_m: f32) -> Option<StampSample> {
        let r = self.radius_at(d, radius_m);
        (r < 1.0).then(|| {
            let shape = 1.0 - smoothstep(0.0, 1.0, r);
            StampSample { height_m: self.peak_m * shape, weight: 1.0 - smoothstep(0.45, 0.95, r) }
        })
    }
}

/// The highest of `stamps` over `d` and the strongest weight, (0, 0) outside all.
#[inline]
#[must_use]
pub fn combine(stamps: impl Iterator<Item = Stamp>, d: Vec3, radius_m: f32) -> StampSample {
    let mut out = StampSample { height_m: 0.0, weight: 0.0 };
    for s in stamps {
        if let Some(x) = s.at(d, radius_m) {
            out.height_m = out.height_m.max(x.height_m);
            out.weight = out.weight.max(x.weight);
        }
    }
    out
}
