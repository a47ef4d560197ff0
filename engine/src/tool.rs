//! The edit tool the flight client digs and builds with: where the player
//! looks (a ray from the eye along the view, over the shown regions'
//! colliders), and the edit a brush of the chosen operation and size makes
//! there. A dig is centred on the point looked at, so the hole opens under
//! the crosshair; a fill half a radius out of the surface, so it builds up
//! towards the player; flatten and paint on the point.

use glam::DVec3;
use planet::edit::{Brush, Edit, Operation};

use crate::physics::Colliders;
use crate::view::Pose;
use crate::world::World;

/// How far away the tool reaches, metres.
pub const REACH_M: f64 = 250.0;
/// Brush radii the tool steps through, metres.
pub const RADII_M: [f32; 7] = [0.5, 1.0, 2.0, 3.0, 4.0, 8.0, 16.0];

/// What the player aims at: a point of a planet's ground.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aim {
    /// The planet.
    pub planet: u32,
    /// The point, planet-local metres.
    pub point: DVec3,
    /// The ground's normal there, towards the player.
    pub normal: DVec3,
    /// How far from the eye, metres.
    pub distance: f64,
}

/// The tool: an operation, a brush shape and a size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EditTool {
    /// What a click does.
    pub op: Operation,
    /// Index into [`RADII_M`].
    pub size: usize,
    /// The material a fill adds or a paint lays.
    pub material: u8,
    /// A box (a cube of the radius's half size, square to the local up)
    /// instead of a ball.
    pub cube: bool,
}

impl Default for EditTool {
    fn default() -> Self {
        Self { op: Operation::Dig, size: 3, material: 0, cube: false }
    }
}

impl EditTool {
    /// The brush's name for readouts: `ball` or `box`.
    #[must_use]
    pub fn shape(&self) -> &'static str {
        if self.cube { "box" } else { "ball" }
    }

    /// The brush radius, metres.
    #[must_use]
    pub fn radius_m(&self) -> f32 {
        RADII_M[self.size.min(RADII_M.len() - 1)]
    }

    /// A size step up (+1) or down (-1), within [`RADII_M`].
    pub fn resize(&mut self, step: i32) {
        self.size = (self.size as i32 + step).clamp(0, RADII_M.len() as i32 - 1) as usize;
    }

    /// The edit `op` makes at `aim` with this brush.
    #[must_use]
    pub fn edit(&self, op: Operation, aim: &Aim) -> Edit {
        let r = f64::from(self.radius_m());
        let centre = match op {
            Operation::Fill => aim.point + aim.normal * (0.5 * r),
            _ => aim.point,
        };
        let half = self.radius_m();
        let brush =
            if self.cube { Brush::Box { half_m: [half; 3], yaw_deg: 0.0 } } else { Brush::Sphere { radius_m: half } };
        Edit { op, brush, centre: centre.as_vec3().to_array(), material: self.material }
    }
}

/// The streamed planet's shown ground, gathered once a frame for the aim
/// and the marker's rim.
#[derive(Debug)]
pub struct Ground {
    planet: u32,
    centre: DVec3,
    /// System to planet-local axes at this frame's clock.
    to_local: glam::DQuat,
    colliders: Colliders,
}

impl Ground {
    /// The ground of the streamed planet, if one is streamed.
    #[must_use]
    pub fn of(world: &World) -> Option<Self> {
        let attached = world.attached()?;
        let p = &world.planets[attached.planet as usize];
        Some(Self {
            planet: attached.planet,
            centre: p.position,
            to_local: p.orientation.inverse(),
            colliders: Colliders::shown(&attached.streamer),
        })
    }

    /// What `pose` looks at within [`REACH_M`].
    #[must_use]
    pub fn aim(&self, pose: &Pose) -> Option<Aim> {
        let forward = self.to_local * pose.forward;
        let hit = self.colliders.ray_cast(self.to_local * (pose.position - self.centre), forward, REACH_M)?;
        let normal = if hit.normal.dot(forward) < 0.0 { hit.normal } else { -hit.normal };
        Some(Aim { planet: self.planet, point: hit.point, normal, distance: hit.distance })
    }

    /// Points around the brush's rim on the ground, planet-local: what the
    /// client's marker shows (`points` of them, each the ground found by a
    /// ray down the aim's normal through the rim; none where there is none).
    #[must_use]
    pub fn rim(&self, aim: &Aim, radius_m: f32, points: u32) -> Vec<DVec3> {
        let r = f64::from(radius_m);
        let side = aim.normal.any_orthonormal_vector();
        let forward = aim.normal.cross(side);
        (0..points)
            .filter_map(|i| {
                let a = f64::from(i) / f64::from(points) * core::f64::consts::TAU;
                let over = aim.point + (side * libm::cos(a) + forward * libm::sin(a)) * r + aim.normal * r;
                self.colliders.ray_cast(over, -aim.normal, 2.5 * r).map(|hit| hit.point)
            })
            .collect()
    }
}
