//! Creatures near the camera (issue 20): which herds are brought in (within
//! a radius of the camera, with hysteresis), where each animal stands now
//! (its pose on its path from `planet::creatures`, set down on the
//! colliders), its fade, and the sparse record of changes to animals (one
//! scared off its path, one removed) that a save keeps.

use std::collections::BTreeMap;
use std::sync::Arc;

use glam::{DVec3, Vec3};
use planet::creatures::{Change, CreatureChange, Daylight, Fauna, Herd, HerdCell, Pose};

pub use planet::creatures::Gait;

use crate::physics::Colliders;
use crate::world::WorldPlanet;

/// One animal as the renderer draws it, in the attached planet's local space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CreatureView {
    /// The animal's id: unique on its planet, the same every visit.
    pub id: u64,
    /// Its species (index into the planet's species).
    pub species: u16,
    /// Its body plan (which model).
    pub gait: Gait,
    /// Body length, metres (the model is one unit long).
    pub size_m: f32,
    /// Where its feet are, planet-local metres.
    pub position: DVec3,
    /// The way it faces (unit, square to `up`).
    pub forward: Vec3,
    /// Its body's up (unit): the ground's normal, leaned toward the local up.
    pub up: Vec3,
    /// The walk cycle, in cycles (its fraction is the phase).
    pub phase: f32,
    /// How much its legs swing, 0 (standing) to 1 (walking).
    pub stride: f32,
    /// How far it is lying down, 0 (standing) to 1 (asleep).
    pub rest: f32,
    /// Height above the ground of a flyer in flight, metres (0 on the ground).
    pub flight_m: f32,
    /// Fade-in, 0 (not yet drawn) to 1 (whole), for the terrain's dither.
    pub fade: f32,
    /// Linear RGB of its back and of its belly and legs.
    pub colours: [Vec3; 2],
}

/// How near a walker comes before an animal runs from it, metres.
pub const SCARE_M: f64 = 4.0;

/// How near animals are brought in, and how they fade.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CreatureSettings {
    /// A herd whose cell has ground within this of the camera is brought in, metres.
    pub reach_m: f64,
    /// A herd is let go once its cell has none within this, metres (the hysteresis).
    pub keep_m: f64,
    /// Updates a herd takes to fade in.
    pub fade_frames: u32,
    /// Highest camera altitude at which animals are brought in, metres.
    pub max_altitude_m: f64,
}

impl Default for CreatureSettings {
    fn default() -> Self {
        Self { reach_m: 300.0, keep_m: 380.0, fade_frames: 24, max_altitude_m: 600.0 }
    }
}

/// A herd brought in.
#[derive(Debug)]
struct Loaded {
    /// `None`: the cell holds no herd (remembered so it is not planned again).
    herd: Option<Arc<Herd>>,
    /// The update it came in at.
    since: u64,
}

/// The animals of the attached planet near the camera, and every planet's
/// record of changes to its animals.
#[derive(Debug, Default)]
pub struct Creatures {
    settings: CreatureSettings,
    /// The planet the loaded herds are of, and its animals.
    fauna: Option<(u32, Arc<Fauna>)>,
    herds: BTreeMap<HerdCell, Loaded>,
    /// Where the cells near the camera were last found, and which they were.
    cells_at: Option<(DVec3, Vec<HerdCell>, Vec<HerdCell>)>,
    frame: u64,
    shown: Vec<CreatureView>,
    /// Herds planned so far (what bringing animals in has cost).
    planned: u64,
    /// Per planet, changes to animals by id.
    changes: Vec<BTreeMap<u64, Change>>,
    /// The colliders the last update placed animals on, and where the camera was.
    ground: Option<(DVec3, Colliders)>,
}

impl Creatures {
    /// No animals yet, no changes, for a system of `planets` planets.
    #[must_use]
    pub fn new(planets: usize, settings: CreatureSettings) -> Self {
        Self { settings, changes: vec![BTreeMap::new(); planets], ..Self::default() }
    }

    /// The animals to draw this frame, in herd and member order.
    #[must_use]
    pub fn shown(&self) -> &[CreatureView] {
        &self.shown
    }

    /// The herds brought in now (cells that hold one), in cell order.
    pub fn herds(&self) -> impl Iterator<Item = &Arc<Herd>> {
        self.herds.values().filter_map(|l| l.herd.as_ref())
    }

    /// How many herds have been planned since the start: bringing animals
    /// in costs this, and it grows with the ground the camera passes over,
    /// never with the planet's population.
    #[must_use]
    pub fn planned(&self) -> u64 {
        self.planned
    }

    /// The settings.
    #[must_use]
    pub fn settings(&self) -> &CreatureSettings {
        &self.settings
    }

    /// Ends every fade: the herds brought in count as in for long enough,
    /// and the animals shown now are whole.
    pub fn finish_fades(&mut self) {
        let whole = self.frame.saturating_sub(u64::from(self.settings.fade_frames));
        for loaded in self.herds.values_mut() {
            loaded.since = loaded.since.min(whole);
        }
        for c in &mut self.shown {
            c.fade = 1.0;
        }
    }

    /// Lets every herd go (the camera left the planet).
    pub fn clear(&mut self) {
        self.ground = None;
        self.herds.clear();
        self.cells_at = None;
        self.shown.clear();
    }

    /// One update: brings in and lets go of herds around `camera` (planet-
    /// local) and places every animal of those kept at clock `time_s`, set
    /// down on `colliders` (an animal over no ground, or in the sea, is not shown).
    pub fn update(&mut self, planet: &WorldPlanet, colliders: &Colliders, camera: DVec3, time_s: f64) {
        self.update_with(planet, camera, time_s, || colliders);
    }

    /// [`Creatures::update`] with the colliders made by `ground` only when
    /// some herd is kept, and kept from one update to the next until the
    /// shown regions change (`changed`) or the camera moves 25 m: what the
    /// world does (most of a flight passes over no herd, and gathering
    /// colliders is not free).
    pub fn update_lazily(
        &mut self,
        planet: &WorldPlanet,
        camera: DVec3,
        time_s: f64,
        changed: bool,
        ground: impl FnOnce() -> Colliders,
    ) {
        if changed || self.ground.as_ref().is_none_or(|(at, _)| at.distance(camera) > 25.0) {
            self.ground = None;
        }
        let mut kept = self.ground.take();
        self.update_with(planet, camera, time_s, || &kept.get_or_insert_with(|| (camera, ground())).1);
        self.ground = kept.filter(|_| self.herds().next().is_some());
    }

    fn update_with<'g>(
        &mut self,
        planet: &WorldPlanet,
        camera: DVec3,
        time_s: f64,
        ground: impl FnOnce() -> &'g Colliders,
    ) {
        self.frame += 1;
        if self.fauna.as_ref().is_none_or(|(p, _)| *p != planet.index) {
            self.clear();
            self.fauna = Some((planet.index, Arc::new(Fauna::new(planet.terrain()))));
        }
        let Some((_, fauna)) = self.fauna.clone() else { return };
        let altitude = camera.length() - planet.radius;
        if self.settings.reach_m <= 0.0 || altitude > self.settings.max_altitude_m || !camera.is_finite() {
            self.clear();
            return;
        }
        self.bring_in(planet, &fauna, camera);
        self.forget_finished(planet.index, time_s);
        if self.herds().next().is_none() {
            self.shown.clear();
            return;
        }
        self.place(planet, &fauna, ground(), time_s);
    }

    /// Plans the herds of cells newly within reach and lets go of those
    /// beyond the keep radius. Cells are looked up again only after the
    /// camera has moved a tenth of the hysteresis.
    fn bring_in(&mut self, planet: &WorldPlanet, fauna: &Fauna, camera: DVec3) {
        let moved = self
            .cells_at
            .as_ref()
            .is_none_or(|(at, _, _)| at.distance(camera) > (self.settings.keep_m - self.settings.reach_m) * 0.1);
        if moved {
            let up = camera.normalize().as_vec3();
            let reach = fauna.grid.cells_near(up, self.settings.reach_m as f32);
            let keep = fauna.grid.cells_near(up, self.settings.keep_m as f32);
            self.cells_at = Some((camera, reach, keep));
        }
        let Some((_, reach, keep)) = &self.cells_at else { return };
        self.herds.retain(|cell, _| keep.binary_search(cell).is_ok());
        for &cell in reach {
            if !self.herds.contains_key(&cell) {
                self.planned += 1;
                let herd = fauna.herd(planet.terrain(), cell).map(Arc::new);
                self.herds.insert(cell, Loaded { herd, since: self.frame });
            }
        }
    }

    /// Drops scares that are run and walked back from: the animal is on
    /// its path again and the record forgets it.
    fn forget_finished(&mut self, planet: u32, time_s: f64) {
        if let Some(changes) = self.changes.get_mut(planet as usize) {
            changes.retain(|_, c| !c.is_over(time_s));
        }
    }

    /// Every kept herd's animals at `time_s`, set down on the ground.
    fn place(&mut self, planet: &WorldPlanet, fauna: &Fauna, colliders: &Colliders, time_s: f64) {
        self.shown.clear();
        let daylight = Daylight::of_planet(planet.spin, planet.position);
        let sea =
            planet.terrain().recipe.sea.enabled.then(|| planet.radius + f64::from(planet.terrain().recipe.sea.level_m));
        let changes = self.changes.get(planet.index as usize);
        for loaded in self.herds.values() {
            let Some(herd) = &loaded.herd else { continue };
            let species = &fauna.species[usize::from(herd.species)];
            let fade = ((self.frame - loaded.since) as f32 / self.settings.fade_frames.max(1) as f32).min(1.0);
            for member in 0..herd.count {
                let id = herd.member_id(member);
                let on_path = herd.pose(species, member, &daylight, time_s);
                let pose = match changes.and_then(|c| c.get(&id)) {
                    Some(change) => match change.pose(on_path, species, time_s) {
                        Some(p) => p,
                        None => continue,
                    },
                    None => on_path,
                };
                let Some((feet, normal)) = set_down(colliders, &pose) else { continue };
                if sea.is_some_and(|r| feet.length() < r) {
                    continue;
                }
                let up = (normal * 0.6 + feet.normalize() * 0.4).normalize_or(feet.normalize()).as_vec3();
                let forward = (pose.forward - up * pose.forward.dot(up)).normalize_or(up.any_orthonormal_vector());
                let stride_m = f64::from(species.size_m) * if species.gait == Gait::Hopper { 1.4 } else { 0.9 };
                self.shown.push(CreatureView {
                    id,
                    species: herd.species,
                    gait: species.gait,
                    size_m: species.size_m,
                    position: feet,
                    forward,
                    up,
                    phase: (pose.walked_m / stride_m).rem_euclid(1024.0) as f32,
                    stride: pose.stride,
                    rest: pose.rest,
                    flight_m: pose.flight_m,
                    fade,
                    colours: species.colours.map(Vec3::from),
                });
            }
        }
    }

    /// Scares the shown animals within `radius_m` of `at` (planet-local)
    /// at clock `time_s`: each runs straight away from `at`. Returns how many.
    pub fn scare(&mut self, planet: u32, at: DVec3, radius_m: f64, time_s: f64) -> usize {
        let Some(changes) = self.changes.get_mut(planet as usize) else { return 0 };
        let mut scared = 0;
        for c in &self.shown {
            if c.position.distance(at) > radius_m || changes.contains_key(&c.id) {
                continue;
            }
            let up = c.position.normalize();
            let off = c.position - at;
            let away = (off - up * off.dot(up)).normalize_or(c.forward.as_dvec3()).as_vec3();
            changes.insert(c.id, Change::Scared { at_s: time_s, from: c.position, away });
            scared += 1;
        }
        scared
    }

    /// Removes the shown animals within `radius_m` of `centre` (planet-
    /// local): what a dig or fill does to those it reaches. Returns how many.
    pub fn remove_within(&mut self, planet: u32, centre: DVec3, radius_m: f64) -> usize {
        let Some(changes) = self.changes.get_mut(planet as usize) else { return 0 };
        let gone: Vec<u64> =
            self.shown.iter().filter(|c| c.position.distance(centre) <= radius_m).map(|c| c.id).collect();
        for &id in &gone {
            changes.insert(id, Change::Removed);
        }
        self.shown.retain(|c| !gone.contains(&c.id));
        gone.len()
    }

    /// A planet's changes to its animals, ids increasing (what a save keeps).
    #[must_use]
    pub fn changes(&self, planet: u32) -> Vec<CreatureChange> {
        self.changes
            .get(planet as usize)
            .map(|m| m.iter().map(|(&id, &change)| CreatureChange { id, change }).collect())
            .unwrap_or_default()
    }

    /// Replaces a planet's changes (a loaded save's).
    pub fn set_changes(&mut self, planet: u32, changes: &[CreatureChange]) {
        if let Some(slot) = self.changes.get_mut(planet as usize) {
            *slot = changes.iter().map(|c| (c.id, c.change)).collect();
        }
    }
}

/// The steepest ground an animal stands on, as the cosine of its slope (40°,
/// the navmesh's walkable slope).
const MIN_UP_DOT: f64 = 0.766;

/// Where an animal at `pose` stands: the first ground straight down from
/// well above its path's point, on the walkable regions (else the coarser
/// shown ones, beyond them), and the ground's normal there. Where that
/// ground is too steep or is a rock or trunk, the animal steps up to two
/// metres to either side for walkable ground; with none there it is not
/// shown.
pub fn set_down(colliders: &Colliders, pose: &Pose) -> Option<(DVec3, DVec3)> {
    let up = pose.position.normalize_or_zero();
    let side = up.cross(pose.forward.as_dvec3()).normalize_or_zero();
    [0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0]
        .into_iter()
        .find_map(|offset| ground_at(colliders, pose.position + side * offset))
}

/// The walkable ground straight down from well above `point`, and its normal.
fn ground_at(colliders: &Colliders, point: DVec3) -> Option<(DVec3, DVec3)> {
    const ABOVE_M: f64 = 24.0;
    let up = point.normalize_or_zero();
    let from = point + up * ABOVE_M;
    let Some(hit) = colliders.ray_cast(from, -up, ABOVE_M * 3.0) else {
        // Beyond the walkable regions: the coarse ground drawn there.
        return colliders.coarse_ground_below(from, ABOVE_M * 3.0).map(|(h, _)| (h.point, h.normal));
    };
    let normal = if hit.normal.dot(up) < 0.0 { -hit.normal } else { hit.normal };
    (!hit.object && normal.dot(hit.point.normalize_or_zero()) >= MIN_UP_DOT).then_some((hit.point, normal))
}
