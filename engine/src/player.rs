//! The player: how a person moves through the world, flying or walking, one
//! frame of input at a time. The flight client maps its keys and mouse to a
//! [`PlayerInput`] and draws from [`Player::pose`]; everything else (the
//! speed law, the floor, the walk toggle, caves) lives here, headless.
//!
//! Flying, speed grows with altitude: 2 m/s on the ground, 1.5 m/s more
//! per metre up, at most 20 km/s, five times that boosted, so the hop
//! between planets takes under a minute. The camera never goes below eye
//! height over the ground or the sea, except in a cave's air. Walking, a
//! [`Walker`] carries the feet over the colliders at 4 m/s (9 boosted).
//!
//! Planets turn (`World::advance_clock`). Walking, the feet are planet-local,
//! so the player turns with the ground; flying within a planet's streaming
//! range, the pose is carried by the planet's turn since the last frame, so
//! a hovering camera stays over the same ground and a landing does not
//! drift. In open space the pose is left alone.

use glam::DVec3;

use crate::physics::{Colliders, WalkInput, WalkSettings, Walker};
use crate::view::Pose;
use crate::world::{World, WorldPlanet};

/// Eye height over the feet in walk mode, metres (also the flight floor).
pub const EYE_M: f64 = 1.7;

/// Flying speed at `altitude` metres over the ground, m/s (unboosted).
#[must_use]
pub fn flying_speed(altitude: f64) -> f64 {
    (2.0 + altitude.max(0.0) * 1.5).min(20_000.0)
}

/// What is held this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlayerInput {
    /// Forward, back, right, left (each -1..=1 along its axis when held).
    pub forward: f64,
    /// Right minus left.
    pub right: f64,
    /// Up minus down (flying; up also jumps when walking).
    pub up: f64,
    /// Five times faster flying, running when walking.
    pub boost: bool,
    /// The walk key: walk mode toggles when it is first held.
    pub walk: bool,
    /// Jump (walking).
    pub jump: bool,
    /// Turn this frame, degrees: yaw to the right, pitch up.
    pub look_deg: (f64, f64),
}

/// How the player moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    /// Free flight, kept above the ground.
    Fly,
    /// Walking on the colliders: the feet, planet-local, and their height
    /// over the ground under them (`None` while no fine ground is ready).
    Walk {
        /// The walking body.
        walker: Walker,
        /// Height of the feet over the ground under them, metres.
        height: Option<f64>,
    },
}

/// The player: a pose, a mode and the speed of the last frame.
#[derive(Clone, Copy, Debug)]
pub struct Player {
    /// Where the eye is and where it looks, system space.
    pub pose: Pose,
    /// Flying or walking.
    pub mode: Mode,
    /// Speed of the last frame, m/s.
    pub speed: f64,
    walk_held: bool,
    /// The world clock's time at the last frame (the turn since is carried).
    clock_s: Option<f64>,
}

impl Player {
    /// A player flying at `pose`.
    #[must_use]
    pub fn new(pose: Pose) -> Self {
        Self { pose, mode: Mode::Fly, speed: 0.0, walk_held: false, clock_s: None }
    }

    /// Whether the player walks.
    #[must_use]
    pub fn walking(&self) -> bool {
        matches!(self.mode, Mode::Walk { .. })
    }

    /// One frame of `dt` seconds with `input` held.
    pub fn step(&mut self, world: &World, input: &PlayerInput, dt: f64) {
        self.turn_with_the_ground(world);
        let (planet, _) = world.nearest(self.pose.position);
        let up = (self.pose.position - planet.position).normalize();
        let forward = look(self.pose.forward, up, input.look_deg);
        if input.walk && !self.walk_held {
            self.toggle_walk(world, planet, up);
        }
        self.walk_held = input.walk;
        match self.mode {
            Mode::Fly => self.fly(world, input, forward, up, dt),
            Mode::Walk { walker, .. } => self.walk(world, planet, input, forward, walker, dt),
        }
    }

    /// Carries the pose by the nearest planet's turn since the last frame,
    /// within its streaming range.
    fn turn_with_the_ground(&mut self, world: &World) {
        let now = world.clock().time_s();
        let since = self.clock_s.map_or(0.0, |then| now - then);
        self.clock_s = Some(now);
        let (planet, distance) = world.nearest(self.pose.position);
        if since == 0.0 || distance > planet.radius * world.settings().attach_radii {
            return;
        }
        let turn = planet.spin.orientation(since);
        let position = planet.carried(self.pose.position, since);
        self.pose = Pose::looking(position, turn * self.pose.forward, turn * self.pose.up);
    }

    /// Walk mode on (the feet an eye height under the eye) or off (flying on from there).
    fn toggle_walk(&mut self, world: &World, planet: &WorldPlanet, up: DVec3) {
        self.mode = match self.mode {
            Mode::Walk { .. } => Mode::Fly,
            Mode::Fly => {
                let gravity = f64::from(world.system.planets[planet.index as usize].recipe.gravity_mps2);
                let eye = planet.to_local(self.pose.position);
                let feet = eye - planet.vector_to_local(up) * EYE_M;
                Mode::Walk { walker: Walker::new(feet, WalkSettings::person(gravity)), height: None }
            }
        };
    }

    fn fly(&mut self, world: &World, input: &PlayerInput, forward: DVec3, up: DVec3, dt: f64) {
        let boost = if input.boost { 5.0 } else { 1.0 };
        self.speed = flying_speed(world.altitude(self.pose.position)) * boost;
        let right = forward.cross(up).normalize_or(DVec3::X);
        let motion = forward * input.forward + right * input.right + up * input.up;
        let mut position = self.pose.position + motion.normalize_or_zero() * self.speed * dt;
        // Never below the ground: at least eye height over it (or over the sea), but in a cave's air.
        let (planet, distance) = world.nearest(position);
        let floor = planet.radius + world.ground_height(planet, position) + EYE_M;
        // The shown ground, gathered once for both checks, and only near it.
        let colliders = if distance < floor + LIFT_M { walkable(world, planet.index) } else { None };
        if distance < floor && !in_cave(colliders.as_ref(), planet.to_local(position), floor - distance) {
            position = planet.position + (position - planet.position).normalize() * floor;
        }
        // The voxels' ground stands off that surface by the 3D noise's
        // metres (and edits): feet inside it rise onto it.
        if let Some(top) = colliders.as_ref().and_then(|c| ground_over_feet(c, planet.to_local(position))) {
            position = planet.to_system(top + top.normalize() * EYE_M);
        }
        let up = (position - world.nearest(position).0.position).normalize();
        self.pose = Pose::looking(position, forward, up);
    }

    fn walk(
        &mut self,
        world: &World,
        planet: &WorldPlanet,
        input: &PlayerInput,
        forward: DVec3,
        mut walker: Walker,
        dt: f64,
    ) {
        let colliders = match world.attached() {
            Some(a) if a.planet == planet.index => Colliders::walkable(&a.streamer),
            _ => Colliders::default(),
        };
        // The walker is planet-local; the look is in system axes.
        let up = walker.up();
        let forward_local = planet.vector_to_local(forward);
        let flat = (forward_local - up * forward_local.dot(up)).normalize_or_zero();
        let right = flat.cross(up).normalize_or(DVec3::X);
        self.speed = if input.boost { 9.0 } else { 4.0 };
        let across = (flat * input.forward + right * input.right).normalize_or_zero();
        let step = WalkInput { motion: across * self.speed, jump: input.jump || input.up > 0.0 };
        walker.step(&colliders, &step, dt);
        // The readout's altitude in walk mode: over the ground under the feet
        // (a cave's floor, too), not over the planet's outer surface.
        let height = colliders.height_above_ground(walker.position, 1.0, 2_000.0);
        self.mode = Mode::Walk { walker, height };
        let eye = planet.to_system(walker.position + walker.up() * EYE_M);
        self.pose = Pose::looking(eye, forward, planet.vector_to_system(walker.up()));
    }

    /// What the readout says of the mode: `fly`, `walk`, `walk (sliding)`, ...
    #[must_use]
    pub fn mode_name(&self) -> &'static str {
        match &self.mode {
            Mode::Fly => "fly",
            Mode::Walk { walker, .. } if walker.grounded => "walk",
            Mode::Walk { walker, .. } if walker.sliding => "walk (sliding)",
            Mode::Walk { walker, .. } if !walker.supported => "walk (waiting for ground)",
            Mode::Walk { .. } => "walk (in the air)",
        }
    }

    /// The altitude to show, metres, and how deep under the outer surface the
    /// player is when that is more than a few metres (in a cave): walking,
    /// over the ground under the feet; flying, over the outer surface.
    #[must_use]
    pub fn altitude(&self, world: &World) -> (f64, Option<f64>) {
        let surface = world.altitude(self.pose.position);
        match self.mode {
            Mode::Walk { height: Some(h), .. } if surface - EYE_M < -3.0 => (h, Some(EYE_M - surface)),
            Mode::Walk { height: Some(h), .. } => (h, None),
            _ => (surface, None),
        }
    }
}

/// `forward` turned by `look_deg` (yaw about the local up, pitch about the
/// right axis, kept short of straight up or down): the horizon stays level.
fn look(forward: DVec3, up: DVec3, (yaw, pitch): (f64, f64)) -> DVec3 {
    let mut forward = rotate(forward, up, -yaw.to_radians());
    let right = forward.cross(up).normalize_or(DVec3::X);
    let pitched = rotate(forward, right, pitch.to_radians());
    if pitched.dot(up).abs() < 0.995 {
        forward = pitched;
    }
    forward
}

/// How far above the 2D surface the shown ground may stand and still lift
/// a flying camera's feet onto it, metres.
const LIFT_M: f64 = 8.0;

/// The walkable colliders of `planet`, if it is the streamed one.
fn walkable(world: &World, planet: u32) -> Option<Colliders> {
    world.attached().filter(|a| a.planet == planet).map(|a| Colliders::walkable(&a.streamer))
}

/// The top of the shown ground over the feet of an eye at planet-local
/// `eye`, when the feet are inside it: a ray up from them meets the back
/// of its surface (a trunk or a boulder does not count).
fn ground_over_feet(colliders: &Colliders, eye: DVec3) -> Option<DVec3> {
    let up = eye.normalize_or_zero();
    let feet = eye - up * EYE_M;
    let hit = colliders.ray_cast(feet, up, LIFT_M + EYE_M)?;
    (!hit.front && !hit.object).then_some(hit.point)
}

/// Whether `local` (planet-local) is in a cave's air: under the outer
/// surface, the first surface within `depth` above it is a roof seen from
/// below. There the camera may fly (a walker who switches walk mode off in a
/// cave flies on from where it stands); in the rock it may not. No
/// colliders (the planet is not streamed): not in a cave.
fn in_cave(colliders: Option<&Colliders>, local: DVec3, depth: f64) -> bool {
    colliders.is_some_and(|c| c.ray_cast(local, local.normalize_or_zero(), depth + 1.0).is_some_and(|roof| roof.front))
}

/// `v` turned by `angle` radians about the unit axis `axis` (Rodrigues).
fn rotate(v: DVec3, axis: DVec3, angle: f64) -> DVec3 {
    let (s, c) = (libm::sin(angle), libm::cos(angle));
    (v * c + axis.cross(v) * s + axis * axis.dot(v) * (1.0 - c)).normalize()
}
