//! A walking body on a planet: gravity towards the centre, standing and
//! walking on the colliders, stepping up small ledges, stopped and slid along
//! by walls, jumping, and sliding off slopes too steep to stand on.
//!
//! The body is a point at the feet with a sphere for the chest. Each
//! sub-step moves the chest sphere across (a sweep, sliding along what it
//! meets), then the feet up or down, and then looks for the ground with a
//! ray from a step above the feet (above where they were before falling, so
//! no fall is fast enough to pass through the ground). Where no region under
//! the body has a collider yet, it waits in the air: it never falls where
//! the ground is not there yet. Over ground too coarse to stand on
//! ([`Colliders::walkable`]) it falls until it is as near as that ground
//! may be off the true surface, and waits there for the finer regions. Where the body finds itself inside the ground
//! (a finer region replaced the one it stood on and its surface is higher,
//! or a cave's ceiling region arrived around it), the first surface above
//! its feet is seen from behind: it is put back on top of it.

use glam::DVec3;

use super::Colliders;

/// How a walker moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WalkSettings {
    /// Gravity, m/s² (the planet recipe's `gravity_mps2`).
    pub gravity: f64,
    /// Jump take-off speed, m/s.
    pub jump_speed: f64,
    /// Steepest slope it stands on, degrees; steeper ground slides it off.
    pub max_slope_deg: f64,
    /// Chest sphere radius, metres.
    pub radius: f64,
    /// Height of the body, feet to the top of the head, metres.
    pub height: f64,
    /// Highest ledge it steps onto, metres.
    pub step: f64,
    /// How far below the feet the ground may drop while it stays on it, metres.
    pub snap: f64,
    /// Fastest fall, m/s.
    pub max_fall: f64,
}

impl WalkSettings {
    /// A person under `gravity` m/s².
    #[must_use]
    pub fn person(gravity: f64) -> Self {
        Self {
            gravity,
            jump_speed: 5.0,
            max_slope_deg: 45.0,
            radius: 0.3,
            height: 1.8,
            step: 0.45,
            snap: 0.4,
            max_fall: 120.0,
        }
    }
}

/// What the walker is asked to do this step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WalkInput {
    /// Wanted velocity across the ground, m/s (its vertical part is ignored).
    pub motion: DVec3,
    /// Jump (when standing).
    pub jump: bool,
}

/// A walking body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Walker {
    /// The feet, planet-local, metres.
    pub position: DVec3,
    /// Velocity, m/s.
    pub velocity: DVec3,
    /// Standing on walkable ground.
    pub grounded: bool,
    /// On ground too steep to stand on.
    pub sliding: bool,
    /// Whether a collider was found under it at the last step (false: waiting for one).
    pub supported: bool,
    /// The ground's normal where it last stood.
    pub ground_normal: DVec3,
    /// How it moves.
    pub settings: WalkSettings,
}

const SUBSTEP: f64 = 1.0 / 120.0;
const SKIN: f64 = 0.02;
/// Deepest inside the ground a walker is looked for its way out, metres.
const MAX_LIFT: f64 = 2_000.0;

impl Walker {
    /// A walker with its feet at `position` (planet-local), at rest.
    #[must_use]
    pub fn new(position: DVec3, settings: WalkSettings) -> Self {
        Self {
            position,
            velocity: DVec3::ZERO,
            grounded: false,
            sliding: false,
            supported: true,
            ground_normal: position.normalize_or(DVec3::Y),
            settings,
        }
    }

    /// The local up at the feet.
    #[must_use]
    pub fn up(&self) -> DVec3 {
        self.position.normalize_or(DVec3::Y)
    }

    /// Advances `dt` seconds (in sub-steps of at most 1/120 s, at most 0.25 s in all).
    pub fn step(&mut self, colliders: &Colliders, input: &WalkInput, dt: f64) {
        if dt.is_nan() || dt <= 0.0 || !self.position.is_finite() {
            return;
        }
        let dt = dt.min(0.25);
        let n = (dt / SUBSTEP).ceil().max(1.0);
        let h = dt / n;
        let mut jump = input.jump;
        for _ in 0..n as u32 {
            self.substep(colliders, input.motion, jump, h);
            jump = false;
        }
    }

    fn substep(&mut self, c: &Colliders, motion: DVec3, jump: bool, dt: f64) {
        let s = self.settings;
        let up = self.up();
        let want = motion - up * motion.dot(up);
        if self.grounded {
            // Walk along the ground's plane, at the wanted speed.
            let n = self.ground_normal;
            let along = want - n * want.dot(n);
            self.velocity = along.normalize_or_zero() * want.length();
            if jump {
                self.velocity += up * s.jump_speed;
                self.grounded = false;
            }
        } else {
            self.velocity -= up * (s.gravity * dt);
            if !self.sliding {
                // A little control in the air.
                let across = self.velocity - up * self.velocity.dot(up);
                self.velocity += (want - across) * (2.0 * dt).min(1.0);
            }
            let fall = self.velocity.dot(up);
            if fall < -s.max_fall {
                self.velocity -= up * (fall + s.max_fall);
            }
        }
        let step = self.velocity * dt;
        let start = self.position;

        // Across: the chest sphere, sliding along walls.
        let mut pos = self.position;
        let mut across = step - up * step.dot(up);
        for _ in 0..3 {
            let length = across.length();
            if length < 1e-7 {
                break;
            }
            let centre = pos + up * (s.step + s.radius);
            let Some(hit) = c.sweep_sphere(centre, s.radius, across) else {
                pos += across;
                break;
            };
            let t = (hit.distance - SKIN / length).max(0.0);
            pos += across * t;
            let wall = (hit.normal - up * hit.normal.dot(up)).normalize_or_zero();
            if wall == DVec3::ZERO {
                break;
            }
            let rest = across * (1.0 - t);
            across = rest - wall * rest.dot(wall).min(0.0);
            self.velocity -= wall * self.velocity.dot(wall).min(0.0);
        }

        // Up or down.
        let up = pos.normalize_or(up);
        let mut rise = step.dot(up);
        if rise > 0.0 {
            // From the chest, not the head: under a roof lower than the body
            // (a cave) the head is already past it, and a ray from there
            // would let the body rise into the rock.
            let chest = s.step + s.radius;
            let reach = s.height - chest;
            if let Some(hit) = c.ray_cast(pos + up * chest, up, reach + rise + SKIN) {
                rise = (hit.distance - reach - SKIN).max(0.0);
                self.velocity -= up * self.velocity.dot(up).max(0.0);
            }
        }
        pos += up * rise;

        // The ground: a ray from a step above where the feet were; or, when
        // that finds none and the feet are inside the ground, its top.
        let drop = (-rise).max(0.0);
        let snap = if self.grounded { s.snap } else { 0.0 };
        let top = s.step + drop;
        let mut ground = c.ground_below(pos + up * top, top + snap).map(|hit| (hit, top - hit.distance));
        if ground.is_none()
            && let Some(inside) = c.ray_cast(pos, up, MAX_LIFT).filter(|h| !h.front)
        {
            ground = c.ground_below(inside.point + up * s.step, s.step + SKIN).map(|hit| (hit, inside.distance));
            self.velocity -= up * self.velocity.dot(up);
        }
        match ground {
            Some((hit, height)) => {
                // `height`: the ground over the new feet.
                let rising = self.velocity.dot(up) > 0.0 && !self.grounded;
                if rising && height < 0.0 {
                    self.grounded = false;
                    self.sliding = false;
                } else {
                    pos = hit.point;
                    self.ground_normal = hit.normal;
                    self.velocity -= hit.normal * self.velocity.dot(hit.normal).min(0.0);
                    let cos_max = libm::cos(s.max_slope_deg.to_radians());
                    self.grounded = hit.normal.dot(up) >= cos_max;
                    self.sliding = !self.grounded;
                }
                self.supported = true;
            }
            None => {
                self.grounded = false;
                self.sliding = false;
                // Is there any ground under it at all? If not, its region's
                // collider is not ready: wait in the air rather than fall.
                // Over ground too coarse to stand on, fall towards it while
                // it is further below than it may be off, then wait there.
                // (The coarse ground is only asked where there is no fine.)
                let from = pos + up * top;
                self.supported = c.ground_below(from, 20_000.0).is_some()
                    || c.coarse_ground_below(from, 20_000.0).is_some_and(|(hit, off)| hit.distance - top > off);
                if !self.supported {
                    pos = start;
                    self.velocity = DVec3::ZERO;
                }
            }
        }
        if !pos.is_finite() {
            pos = start;
            self.velocity = DVec3::ZERO;
        }
        // Wedged between steep slopes (sliding, and going nowhere): that is
        // standing, as a foot in a V-shaped notch stands.
        if self.sliding && pos.distance(start) < 1e-3 * dt * 120.0 {
            self.grounded = true;
            self.sliding = false;
            self.ground_normal = up;
            self.velocity = DVec3::ZERO;
        }
        self.position = pos;
    }
}
