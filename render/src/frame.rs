//! The axes a picture is drawn in: the local axes of the planet the camera
//! is at (the streamed one, else the nearest), centred on it. The streamed
//! planet's regions, objects and buildings are planet-local, so in these axes
//! they need no turning whatever the clock says; the sun, the stars and the
//! other planets (drawn as turned proxies) move round instead. A picture is
//! the same in any rigid frame; this one keeps the draws that matter exact
//! and the coordinates small.

use glam::{DQuat, DVec3};

use engine::World;
use engine::view::Pose;

/// Positions and orientations of a frame's contents, in its axes.
#[derive(Clone, Debug)]
pub struct RenderFrame {
    /// The planet whose local axes these are.
    pub reference: u32,
    centre: DVec3,
    /// System to frame axes.
    to_frame: DQuat,
    /// Each planet's centre.
    pub positions: Vec<DVec3>,
    /// Each planet's local-to-frame axes (identity for the reference).
    pub orientations: Vec<DQuat>,
    /// The sun's centre.
    pub sun: DVec3,
}

impl RenderFrame {
    /// The frame of `world` for an eye at `eye` (system space).
    #[must_use]
    pub fn new(world: &World, eye: DVec3) -> Self {
        let reference = world.attached().map_or_else(|| world.nearest(eye).0.index, |a| a.planet);
        let p = &world.planets[reference as usize];
        let to_frame = p.orientation.inverse();
        let centre = p.position;
        let point = |x: DVec3| to_frame * (x - centre);
        Self {
            reference,
            centre,
            to_frame,
            positions: world.planets.iter().map(|q| point(q.position)).collect(),
            orientations: world
                .planets
                .iter()
                .map(|q| if q.index == reference { DQuat::IDENTITY } else { to_frame * q.orientation })
                .collect(),
            sun: point(DVec3::ZERO),
        }
    }

    /// A system-space point in frame coordinates.
    #[must_use]
    pub fn point(&self, x: DVec3) -> DVec3 {
        self.to_frame * (x - self.centre)
    }

    /// A system-space pose in frame coordinates.
    #[must_use]
    pub fn pose(&self, pose: &Pose) -> Pose {
        Pose { position: self.point(pose.position), forward: self.to_frame * pose.forward, up: self.to_frame * pose.up }
    }

    /// Frame axes to system axes: the stars are fixed in the latter.
    #[must_use]
    pub fn to_system(&self) -> DQuat {
        self.to_frame.inverse()
    }

    /// Unit direction from `at` (frame coordinates) to the sun.
    #[must_use]
    pub fn to_sun(&self, at: DVec3) -> DVec3 {
        (self.sun - at).normalize_or(DVec3::Y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn the_frame_is_a_rigid_motion_that_holds_the_reference_still() {
        let settings = engine::WorldSettings { threads: 0, proxy_quads: 4, ..engine::WorldSettings::default() };
        let mut world = World::new(Arc::new(planet::PlannedSystem::default_system()), settings);
        for t in [0.0, 17.0, 333.3, 5_000.0, 1e6] {
            world.set_time(t);
            let eye = world.planets[1].position + DVec3::new(100.0, 4_000.0, 30.0);
            let f = RenderFrame::new(&world, eye);
            assert_eq!(f.reference, 1);
            assert!(f.positions[1].length() < 1e-9);
            // Distances between everything are kept.
            for (i, p) in world.planets.iter().enumerate() {
                assert!((f.positions[i].distance(f.sun) - p.position.length()).abs() < 1e-6);
                assert!((f.positions[i].distance(f.point(eye)) - p.position.distance(eye)).abs() < 1e-6);
            }
            // A planet-local point lands where its planet's orientation puts it.
            let local = DVec3::new(-300.0, 2_900.0, 700.0);
            for (i, p) in world.planets.iter().enumerate() {
                let via_frame = f.positions[i] + f.orientations[i] * local;
                assert!(via_frame.distance(f.point(p.to_system(local))) < 1e-6, "planet {i} at {t}");
            }
            // In the reference's axes its ground is where it was generated.
            assert!(f.point(world.planets[1].to_system(local)).distance(local) < 1e-6);
        }
    }
}
