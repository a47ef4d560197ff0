//! One building: its type, its footprint on the town's tangent plane, its
//! floors, and the curve that bends it (the building-placement reference's
//! `BuildingCurve`). The bend is one function of height, `BuildingCurve::offset`,
//! which the vertex shader evaluates to draw a curved or arched building and
//! the CPU evaluates for its box and its collider, so what is drawn and what
//! is hit are the same shape. A straight building's curve is zero.
//!
//! Town-local coordinates are metres on the plane tangent to the town's
//! centre (`TownFrame`): x along the frame's first axis, y along its second,
//! z up from the building's base.

use glam::{Vec2, Vec3};
use serde::{Deserialize, Serialize};

/// The three building types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BuildingKind {
    /// A straight box with a flat roof.
    Flat,
    /// Bent sideways as it rises (and maybe waved).
    Curved,
    /// Bent by a blend of the rising curve and an arch (out and back in).
    Arched,
}

impl BuildingKind {
    /// All types, in their recipe share order.
    pub const ALL: [Self; 3] = [Self::Flat, Self::Curved, Self::Arched];

    /// Its position in [`Self::ALL`] (its declaration order): the index of
    /// its model, its dump byte.
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }

    /// Lower-case name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Flat => "flat",
            Self::Curved => "curved",
            Self::Arched => "arched",
        }
    }
}

/// How a building bends with height (the reference's `BuildingCurve`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildingCurve {
    /// The bend's direction in the building's own (width, depth) axes, unit length.
    pub direction: [f32; 2],
    /// Sideways offset at the top (or the arch's crown), metres.
    pub strength_m: f32,
    /// Shape of the rising curve: offset = strength · t^exponent at height share t.
    pub exponent: f32,
    /// A wave on top of the curve, metres.
    pub wave_amplitude_m: f32,
    /// Whole waves from base to top.
    pub wave_frequency: f32,
    /// The wave's phase, radians.
    pub wave_phase: f32,
    /// 0: the rising curve; 1: an arch (out at mid-height, back at the top).
    pub profile_blend: f32,
}

impl BuildingCurve {
    /// The sideways offset, metres, at height share `t` in [0, 1] (0 at the base).
    #[must_use]
    pub fn offset(&self, t: f32) -> Vec2 {
        let t = t.clamp(0.0, 1.0);
        let rise = libm::powf(t, self.exponent.max(0.05));
        let arch = libm::sinf(core::f32::consts::PI * t);
        let curve = self.strength_m * (rise + (arch - rise) * self.profile_blend);
        let wave =
            self.wave_amplitude_m * t * libm::sinf(core::f32::consts::TAU * self.wave_frequency * t + self.wave_phase);
        Vec2::from(self.direction) * (curve + wave)
    }

    /// Whether it bends at all.
    #[must_use]
    pub fn is_straight(&self) -> bool {
        self.strength_m == 0.0 && self.wave_amplitude_m == 0.0
    }
}

/// Height shares at which a bent building's box and collider are sampled.
pub const BEND_SAMPLES: usize = 17;

/// One building of a town.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Building {
    /// Its type.
    pub kind: BuildingKind,
    /// One of the town's two landmarks.
    pub landmark: bool,
    /// Centre of its footprint, town-local metres.
    pub centre: [f32; 2],
    /// Rotation of its width axis from the town's x axis, radians.
    pub yaw: f32,
    /// Footprint along its width axis, metres.
    pub width_m: f32,
    /// Footprint along its depth axis, metres.
    pub depth_m: f32,
    /// Floors.
    pub floors: u32,
    /// Height of a floor, metres.
    pub floor_height_m: f32,
    /// The ground it stands on (levelled to this), metres above the base radius.
    pub base_m: f32,
    /// Its bend (zero for a flat-topped building).
    pub curve: BuildingCurve,
    /// Its box on the town plane, grown to hold the bent shape: min x, min y, max x, max y.
    pub bounds: [f32; 4],
}

impl Building {
    /// Height from base to roof, metres.
    #[must_use]
    pub fn height_m(&self) -> f32 {
        self.floors as f32 * self.floor_height_m
    }

    /// The building's own axes on the town plane: width, depth.
    #[must_use]
    pub fn axes(&self) -> (Vec2, Vec2) {
        let (s, c) = (libm::sinf(self.yaw), libm::cosf(self.yaw));
        (Vec2::new(c, s), Vec2::new(-s, c))
    }

    /// A point of the building in town-local metres: `a`, `b` in [-1, 1]
    /// across its width and depth, `t` in [0, 1] up its height, bent.
    #[must_use]
    pub fn point(&self, a: f32, b: f32, t: f32) -> Vec3 {
        let (w, d) = self.axes();
        let bend = self.curve.offset(t);
        let local = Vec2::new(a * self.width_m * 0.5 + bend.x, b * self.depth_m * 0.5 + bend.y);
        let p = Vec2::from(self.centre) + w * local.x + d * local.y;
        Vec3::new(p.x, p.y, t * self.height_m())
    }

    /// The box on the town plane holding every point of the bent building,
    /// grown from its four corners at `BEND_SAMPLES` heights (the
    /// reference's fix for bent buildings clipping each other and the route).
    #[must_use]
    pub fn grown_bounds(&self) -> [f32; 4] {
        let mut b = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
        for s in 0..BEND_SAMPLES {
            let t = s as f32 / (BEND_SAMPLES - 1) as f32;
            for (x, y) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
                let p = self.point(x, y, t);
                b = [b[0].min(p.x), b[1].min(p.y), b[2].max(p.x), b[3].max(p.y)];
            }
        }
        b
    }

    /// Distance from town-local point `p` to the footprint (its base
    /// rectangle), metres; 0 inside.
    #[must_use]
    pub fn footprint_distance(&self, p: Vec2) -> f32 {
        let (w, d) = self.axes();
        let q = p - Vec2::from(self.centre);
        let out =
            Vec2::new((q.dot(w).abs() - self.width_m * 0.5).max(0.0), (q.dot(d).abs() - self.depth_m * 0.5).max(0.0));
        out.length()
    }
}

/// The gap between two boxes (min x, min y, max x, max y), metres; 0 where they overlap.
#[must_use]
pub fn box_gap(a: &[f32; 4], b: &[f32; 4]) -> f32 {
    let dx = (a[0] - b[2]).max(b[0] - a[2]).max(0.0);
    let dy = (a[1] - b[3]).max(b[1] - a[3]).max(0.0);
    libm::sqrtf(dx * dx + dy * dy)
}

/// Distance from point `p` to a box, metres; 0 inside.
#[must_use]
pub fn box_distance(b: &[f32; 4], p: Vec2) -> f32 {
    let dx = (b[0] - p.x).max(p.x - b[2]).max(0.0);
    let dy = (b[1] - p.y).max(p.y - b[3]).max(0.0);
    libm::sqrtf(dx * dx + dy * dy)
}
