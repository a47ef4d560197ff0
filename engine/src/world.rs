//! The whole system as the camera flies through it: every planet's terrain
//! and proxy, made in the background once the system is entered (the
//! camera's planet's terrain first: `making.rs`), and one streamer attached to
//! the planet the camera is near. The streamer moves to another planet as the
//! camera does (DESIGN.md, "Streaming and jobs"); planets not streamed, and
//! the streamed one until its coarsest regions cover it, are drawn as proxies.
//!
//! Positions here are system space: metres from the sun, f64. Planets turn
//! with the world clock (`planet::plan::Spin`): a planet's local space is
//! system space about its centre, turned back by its orientation at the
//! clock's time (`WorldPlanet::to_local`, `to_system`). The streamer,
//! colliders and edits work in local space, so the ground stands still there.
//! The camera's velocity over the ground, which the streamer looks ahead
//! along, is its local motion over the real time the clock advanced by.

use std::sync::Arc;
use std::time::Duration;

use glam::{DQuat, DVec3, Vec3};
use jobs::CancelToken;
use parking_lot::Mutex;
use planet::PlannedSystem;
use planet::Spin;
use planet::edit::save::{Save, SaveError};
use planet::edit::{Edit, EditError, EditLog, Operation, RegionEdits};
use planet::proxy::{PROXY_QUADS, ProxyMesh};
use planet::recipe::PlanetRecipe;
use planet::terrain::Terrain;

use crate::builder::{BuiltRegion, PlanetBuilder, RegionBuilder};
use crate::cache::RegionCache;
use crate::camera::Camera;
use crate::clock::WorldClock;
use crate::making::{MadePlanet, PlanetMaking};
use crate::physics::Colliders;
use crate::streamer::{FrameReport, RegionJobs, StreamSettings, Streamer};

/// How the world streams.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldSettings {
    /// Streaming settings of the attached planet.
    pub stream: StreamSettings,
    /// Job threads (0: run jobs on the calling thread in `update`).
    pub threads: usize,
    /// Region cache budget, bytes.
    pub cache_bytes: usize,
    /// The streamer attaches to a planet when the camera is within this many
    /// radii of its centre...
    pub attach_radii: f64,
    /// ...and leaves it beyond this many (hysteresis, so it does not flap).
    pub detach_radii: f64,
    /// Quads along a proxy's face edge.
    pub proxy_quads: u32,
    /// Extra time every region job spends before its stages: zero, except
    /// where a test plants a slow stage (the smoke tests check they catch it).
    pub slow_builds: Duration,
    /// Whether regions get their trees, rocks and grass (off only to
    /// measure what scatter costs: `planet capture --no-scatter`).
    pub scatter: bool,
    /// How animals near the camera are brought in (`reach_m` 0: none).
    pub creatures: crate::creatures::CreatureSettings,
    /// Whether background threads make the planets other than the
    /// camera's, beside the region jobs (the flight client, whose sky shows
    /// them). Without them each planet is made where it is first needed: a
    /// single-view capture makes only the planets it may see
    /// (`is_settled_for`).
    pub planet_makers: bool,
}

impl Default for WorldSettings {
    fn default() -> Self {
        Self {
            stream: StreamSettings::default(),
            threads: 2,
            cache_bytes: crate::cache::DEFAULT_CACHE_BYTES,
            attach_radii: 6.0,
            detach_radii: 7.0,
            proxy_quads: PROXY_QUADS,
            slow_builds: Duration::ZERO,
            scatter: true,
            creatures: crate::creatures::CreatureSettings::default(),
            planet_makers: true,
        }
    }
}

/// A sphere of this many radii around a planet holds its proxy and its
/// towns' lights whatever its relief (no mountain is a radius high).
const VISIBLE_RADII: f64 = 2.0;

/// One planet of the world. Its terrain and proxy are made in the
/// background (`making.rs`); `terrain` and `proxy` wait for them, or make
/// them, where they are not made yet.
#[derive(Debug)]
pub struct WorldPlanet {
    /// Index in the system.
    pub index: u32,
    /// Centre, system space, metres.
    pub position: DVec3,
    /// Base radius, metres.
    pub radius: f64,
    /// How it turns.
    pub spin: Spin,
    /// Planet-local to system axes at the clock's time (identity at time zero).
    pub orientation: DQuat,
    making: Arc<PlanetMaking>,
}

impl WorldPlanet {
    /// The generator (made here, or waited for, if it is not made yet).
    #[must_use]
    pub fn terrain(&self) -> &Arc<Terrain> {
        self.making.terrain(self.index as usize)
    }

    /// The stand-in drawn while the planet is not streamed (made here, or
    /// waited for, if it is not made yet).
    #[must_use]
    pub fn proxy(&self) -> &Arc<ProxyMesh> {
        &self.making.get(self.index as usize).proxy
    }

    /// Whether `camera` (system space) may see the planet: its proxy or a
    /// town's light.
    #[must_use]
    pub fn may_be_seen_by(&self, camera: &Camera) -> bool {
        camera.sees(self.position, self.radius * VISIBLE_RADII)
    }

    /// Starts making the proxy on a thread of its own, at the caller's
    /// priority, and returns: the flight client opens its window meanwhile.
    /// `proxy` then waits for it (or makes it, if no thread could start).
    pub fn begin_proxy(&self) {
        let making = Arc::clone(&self.making);
        let index = self.index as usize;
        let spawned = std::thread::Builder::new().name("proxy".into()).spawn(move || {
            let _ = making.get(index);
        });
        drop(spawned);
    }

    /// The terrain and proxy if they are made, without waiting.
    #[must_use]
    pub fn made(&self) -> Option<&MadePlanet> {
        self.making.ready(self.index as usize)
    }

    /// The planet's recipe (the plan's: there before the terrain is made).
    #[must_use]
    pub fn recipe(&self) -> &PlanetRecipe {
        &self.making.system().planets[self.index as usize].recipe
    }

    /// A system-space point in this planet's local space.
    #[must_use]
    pub fn to_local(&self, point: DVec3) -> DVec3 {
        self.orientation.inverse() * (point - self.position)
    }

    /// A planet-local point in system space.
    #[must_use]
    pub fn to_system(&self, local: DVec3) -> DVec3 {
        self.position + self.orientation * local
    }

    /// A system-space direction or offset in local axes.
    #[must_use]
    pub fn vector_to_local(&self, v: DVec3) -> DVec3 {
        self.orientation.inverse() * v
    }

    /// A local direction or offset in system axes.
    #[must_use]
    pub fn vector_to_system(&self, v: DVec3) -> DVec3 {
        self.orientation * v
    }

    /// A system-space streaming camera in this planet's local space.
    #[must_use]
    pub fn camera_to_local(&self, camera: &Camera) -> Camera {
        Camera { position: self.to_local(camera.position), forward: self.vector_to_local(camera.forward), ..*camera }
    }

    /// Unit direction from the centre to the sun (at the system's origin),
    /// in local axes: where noon is now.
    #[must_use]
    pub fn sun_local(&self) -> DVec3 {
        self.vector_to_local((-self.position).normalize_or(DVec3::Y))
    }

    /// Where `point` (system space) is carried in `dt` seconds by the
    /// planet's turning: how the ground moves something standing on it.
    #[must_use]
    pub fn carried(&self, point: DVec3, dt: f64) -> DVec3 {
        // The axis is fixed in system space, so a turn of dt is the spin's
        // orientation at dt, whatever the orientation now.
        self.position + self.spin.orientation(dt) * (point - self.position)
    }

    /// Local solar time at `local` (a planet-local direction), hours.
    #[must_use]
    pub fn solar_hours(&self, local: DVec3) -> f64 {
        crate::clock::solar_hours(local, self.spin.axis(), self.sun_local())
    }
}

/// The region builder the world streams with: the planet's stages, after
/// `WorldSettings::slow_builds` of idling.
#[derive(Debug)]
pub struct WorldBuilder {
    stages: PlanetBuilder,
    delay: Duration,
}

impl RegionBuilder for WorldBuilder {
    fn build_with(
        &self,
        key: planet::RegionKey,
        edits: &RegionEdits,
        physics: bool,
        cancel: &CancelToken,
    ) -> Option<BuiltRegion> {
        if !self.delay.is_zero() {
            std::thread::sleep(self.delay);
        }
        self.stages.build_with(key, edits, physics, cancel)
    }

    fn add_physics(&self, region: &BuiltRegion, edits: &RegionEdits, cancel: &CancelToken) -> Option<BuiltRegion> {
        self.stages.add_physics(region, edits, cancel)
    }
}

/// Why a save's edits cannot be loaded into a world.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A save of another world or generator.
    #[error(transparent)]
    World(#[from] SaveError),
    /// An edit its planet refuses.
    #[error("planet {planet}, edit {index}: {error}")]
    Edit {
        /// The planet.
        planet: u32,
        /// The edit's position in the planet's log.
        index: usize,
        /// Why.
        error: EditError,
    },
}

/// The streamed planet.
#[derive(Debug)]
pub struct Attached {
    /// Which planet.
    pub planet: u32,
    /// Its streamer.
    pub streamer: Streamer<WorldBuilder>,
    /// The last update's report.
    pub report: FrameReport,
}

/// The live system.
#[derive(Debug)]
pub struct World {
    /// The plan it was built from.
    pub system: Arc<PlannedSystem>,
    /// Every planet, in system order.
    pub planets: Vec<WorldPlanet>,
    making: Arc<PlanetMaking>,
    settings: WorldSettings,
    jobs: Arc<RegionJobs>,
    cache: Arc<Mutex<RegionCache>>,
    attached: Option<Attached>,
    clock: WorldClock,
    /// Per planet, its edit log while no streamer holds it (the attached
    /// planet's is in its streamer: `World::edits` reads either).
    edits: Vec<EditLog>,
    /// The attached planet's animals near the camera.
    creatures: crate::creatures::Creatures,
    /// The camera's motion over the ground, for the streamer to look ahead:
    /// the real time of the frame since the last update (0 when the clock
    /// has not advanced since), and the camera's planet and local position
    /// at the last update.
    frame_s: f64,
    last_local: Option<(u32, DVec3)>,
}

/// A camera that seems to move faster than this, metres a second, jumped
/// (a new view, another planet): it is taken as standing still.
const JUMP_SPEED: f64 = 50_000.0;

impl World {
    /// Enters `system`: its planets are made in the background, on as many
    /// threads as there are cores (more only held more half-built layouts
    /// in memory at once: 50-70 MiB each while made), or where they are
    /// first needed (`making.rs`).
    #[must_use]
    pub fn new(system: Arc<PlannedSystem>, settings: WorldSettings) -> Self {
        Self::entering(system, settings, None)
    }

    /// Enters `system` at planet `first` (the camera's): its terrain made on
    /// this thread before this returns, and then the other planets (and
    /// every proxy) in the background.
    ///
    /// # Panics
    /// If `first` is not a planet of the system.
    #[must_use]
    pub fn new_at(system: Arc<PlannedSystem>, settings: WorldSettings, first: u32) -> Self {
        Self::entering(system, settings, Some(first))
    }

    fn entering(system: Arc<PlannedSystem>, settings: WorldSettings, first: Option<u32>) -> Self {
        let making = PlanetMaking::new(Arc::clone(&system), settings.proxy_quads);
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        let others = system.planets.len() - usize::from(first.is_some());
        if let Some(first) = first {
            // Alone on the cores until it is made: streaming waits for it,
            // the other planets do not.
            let _ = making.terrain(first as usize);
        }
        if settings.planet_makers {
            making.start(cores.clamp(1, others.max(1)));
        }
        let planets: Vec<WorldPlanet> = system
            .planets
            .iter()
            .map(|plan| WorldPlanet {
                index: plan.index,
                position: plan.position_m,
                radius: f64::from(plan.recipe.radius_m),
                spin: system.spin(plan.index),
                orientation: DQuat::IDENTITY,
                making: Arc::clone(&making),
            })
            .collect();
        let planet_count = planets.len();
        Self {
            system,
            edits: vec![EditLog::new(); planet_count],
            planets,
            making,
            settings,
            jobs: Arc::new(RegionJobs::new(settings.threads)),
            cache: Arc::new(Mutex::new(RegionCache::new(settings.cache_bytes))),
            attached: None,
            clock: WorldClock::default(),
            creatures: crate::creatures::Creatures::new(planet_count, settings.creatures),
            frame_s: 0.0,
            last_local: None,
        }
    }

    /// How many planets are made (the rest are being made in the background).
    #[must_use]
    pub fn planets_made(&self) -> usize {
        self.making.made_count()
    }

    /// The attached planet's animals near the camera, as the last update
    /// placed them (planet-local; none in open space).
    #[must_use]
    pub fn creatures(&self) -> &[crate::creatures::CreatureView] {
        self.creatures.shown()
    }

    /// The world clock.
    #[must_use]
    pub fn clock(&self) -> &WorldClock {
        &self.clock
    }

    /// Sets the clock's time and turns every planet to it.
    pub fn set_time(&mut self, time_s: f64) {
        self.clock.set_time(time_s);
        self.turn_planets();
    }

    /// Sets the clock's scale (0: paused).
    pub fn set_time_scale(&mut self, scale: f64) {
        self.clock.set_scale(scale);
    }

    /// The clock's next time scale (paused, 1x, 10x, 100x, 1000x).
    pub fn cycle_time_scale(&mut self) -> f64 {
        self.clock.cycle_scale()
    }

    /// Says that `real_s` seconds of real time passed since the last update
    /// where the clock is set rather than advanced (a scripted flight): the
    /// camera's velocity over the ground is its motion over that time.
    pub fn pass_real_time(&mut self, real_s: f64) {
        self.frame_s += real_s;
    }

    /// Advances the clock by `real_s` seconds of real time and turns every
    /// planet; returns the simulated step.
    pub fn advance_clock(&mut self, real_s: f64) -> f64 {
        self.frame_s += real_s;
        let step = self.clock.advance(real_s);
        self.turn_planets();
        step
    }

    fn turn_planets(&mut self) {
        let t = self.clock.time_s();
        for p in &mut self.planets {
            p.orientation = p.spin.orientation(t);
        }
    }

    /// `planet`'s edits, in order.
    ///
    /// # Panics
    /// If `planet` is not a planet of the system.
    #[must_use]
    pub fn edits(&self, planet: u32) -> &EditLog {
        match &self.attached {
            Some(a) if a.planet == planet => a.streamer.edits(),
            _ => &self.edits[planet as usize],
        }
    }

    /// Applies `edit` to `planet` (a smooth's surface fitted to the ground
    /// first, `EditLog::fit`): logged, and every region it touches at
    /// every LOD built again (the streamed planet's from the next update,
    /// nearest first; the old regions stay shown until then). Returns how
    /// many regions it touches.
    pub fn edit(&mut self, planet: u32, edit: Edit) -> Result<usize, EditError> {
        let Some(p) = self.planets.get(planet as usize) else {
            return Err(EditError::Range {
                field: "planet",
                value: planet.to_string(),
                range: format!("0..{}", self.planets.len()),
            });
        };
        let touched = match &mut self.attached {
            Some(a) if a.planet == planet => {
                let touched = a.streamer.edit(edit)?;
                // Animals in a dug or filled brush go with the ground.
                let centre = Vec3::from(edit.centre).as_dvec3();
                if matches!(edit.op, Operation::Dig | Operation::Fill) {
                    self.creatures.remove_within(planet, centre, f64::from(edit.brush.reach_m()));
                }
                touched
            }
            _ => {
                let log = &mut self.edits[planet as usize];
                log.push(p.terrain(), log.fit(p.terrain(), edit))?
            }
        };
        Ok(touched.len())
    }

    /// The world's edits as a save.
    #[must_use]
    pub fn save(&self) -> Save {
        let mut save = Save::new(self.system.signature(), self.planets.len());
        for (i, (edits, bakes)) in save.planets.iter_mut().zip(&mut save.bakes).enumerate() {
            let log = self.edits(i as u32);
            *edits = log.edits().to_vec();
            *bakes = log.bakes();
        }
        save.creatures = (0..self.planets.len() as u32).map(|p| self.creatures.changes(p)).collect();
        save
    }

    /// Replaces every planet's edits with a save's, after checking that it
    /// is of this world and generator and that every edit suits its planet.
    pub fn load(&mut self, save: &Save) -> Result<(), LoadError> {
        save.check_world(self.system.signature(), self.planets.len())?;
        let mut logs = Vec::with_capacity(self.planets.len());
        for (i, ((planet, edits), bakes)) in self.planets.iter().zip(&save.planets).zip(&save.bakes).enumerate() {
            // A planet with nothing saved needs no terrain to check against
            // (so loading does not wait for the planets still being made).
            if edits.is_empty() && bakes.is_empty() {
                logs.push(EditLog::new());
                continue;
            }
            let log = EditLog::with_bakes(planet.terrain(), edits, bakes).map_err(|(at, error)| LoadError::Edit {
                planet: i as u32,
                index: at,
                error,
            })?;
            logs.push(log);
        }
        for (i, changes) in save.creatures.iter().enumerate() {
            self.creatures.set_changes(i as u32, changes);
        }
        for (i, log) in logs.into_iter().enumerate() {
            match &mut self.attached {
                Some(a) if a.planet as usize == i => a.streamer.set_edits(log),
                _ => self.edits[i] = log,
            }
        }
        Ok(())
    }

    /// The settings.
    #[must_use]
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// The job system (for statistics).
    #[must_use]
    pub fn jobs(&self) -> &Arc<RegionJobs> {
        &self.jobs
    }

    /// The streamed planet, if any.
    #[must_use]
    pub fn attached(&self) -> Option<&Attached> {
        self.attached.as_ref()
    }

    /// The planet whose surface is nearest to `position` (system space), and
    /// the distance from its centre.
    #[must_use]
    pub fn nearest(&self, position: DVec3) -> (&WorldPlanet, f64) {
        self.planets
            .iter()
            .map(|p| (p, position.distance(p.position)))
            .min_by(|a, b| (a.1 - a.0.radius).total_cmp(&(b.1 - b.0.radius)))
            .expect("a validated system has planets")
    }

    /// Height of the ground above the base radius under `position`, on `planet`,
    /// metres (the 2D surface, or the sea where it is higher).
    #[must_use]
    pub fn ground_height(&self, planet: &WorldPlanet, position: DVec3) -> f64 {
        let d: Vec3 = planet.to_local(position).normalize_or(DVec3::Y).as_vec3();
        let recipe = &planet.terrain().recipe;
        let ground = f64::from(planet.terrain().surface_height_at(d));
        if recipe.sea.enabled { ground.max(f64::from(recipe.sea.level_m)) } else { ground }
    }

    /// Altitude of `position` above the ground of the nearest planet, metres.
    #[must_use]
    pub fn altitude(&self, position: DVec3) -> f64 {
        let (planet, distance) = self.nearest(position);
        distance - planet.radius - self.ground_height(planet, position)
    }

    /// Whether `planet`'s proxy should be drawn: always, unless it is the
    /// streamed planet and its shown regions cover it.
    #[must_use]
    pub fn proxy_shown(&self, planet: u32) -> bool {
        self.attached.as_ref().is_none_or(|a| a.planet != planet || !a.report.complete)
    }

    /// One frame: attach the streamer to the planet the camera is near (or
    /// detach it in open space) and stream it around `camera` (system space).
    pub fn update(&mut self, camera: &Camera) -> Option<&FrameReport> {
        let (near, distance) = self.nearest(camera.position);
        let near_index = near.index;
        let attach = distance < near.radius * self.settings.attach_radii;
        let keep = self.attached.as_ref().is_some_and(|a| {
            let planet = &self.planets[a.planet as usize];
            a.planet == near_index
                && camera.position.distance(planet.position) < planet.radius * self.settings.detach_radii
        });
        if !keep {
            if let Some(mut left) = self.attached.take() {
                self.edits[left.planet as usize] = left.streamer.take_edits();
            }
            if attach {
                let planet = &self.planets[near_index as usize];
                let stages = PlanetBuilder::new(Arc::clone(planet.terrain())).with_scatter(self.settings.scatter);
                let builder = Arc::new(WorldBuilder { stages, delay: self.settings.slow_builds });
                let signature = self.system.planets[near_index as usize].signature();
                let mut streamer = Streamer::new(
                    signature,
                    Arc::clone(planet.terrain()),
                    builder,
                    Arc::clone(&self.jobs),
                    Arc::clone(&self.cache),
                    self.settings.stream,
                );
                streamer.set_edits(std::mem::take(&mut self.edits[near_index as usize]));
                self.attached = Some(Attached { planet: near_index, streamer, report: FrameReport::default() });
            }
        }
        if self.settings.threads == 0 {
            self.jobs.run_pending(usize::MAX);
        }
        if let Some(a) = self.attached.as_mut() {
            let local = self.planets[a.planet as usize].camera_to_local(camera);
            let velocity = match self.last_local {
                Some((planet, before)) if planet == a.planet && self.frame_s > 0.0 => {
                    Some((local.position - before) / self.frame_s).filter(|v| v.length() < JUMP_SPEED)
                }
                _ => None,
            };
            self.last_local = Some((a.planet, local.position));
            a.report = a.streamer.update(&local.moving(velocity.unwrap_or(DVec3::ZERO)));
        } else {
            self.last_local = None;
        }
        self.frame_s = 0.0;
        self.update_creatures(camera);
        self.attached.as_ref().map(|a| &a.report)
    }

    /// Brings animals in around `camera` on the attached planet and places
    /// them at the clock's time (none in open space, or from high up).
    fn update_creatures(&mut self, camera: &Camera) {
        let Some(a) = &self.attached else {
            self.creatures.clear();
            return;
        };
        let planet = &self.planets[a.planet as usize];
        let local = planet.to_local(camera.position);
        // The ground within the keep radius (and a herd's loop beyond it).
        let reach = self.creatures.settings().keep_m + 2.0 * f64::from(planet::creatures::HERD_CELL_M);
        let streamer = &a.streamer;
        self.creatures.update_lazily(planet, local, self.clock.time_s(), a.report.applied > 0, || {
            Colliders::walkable_near(streamer, local, reach)
        });
    }

    /// Ends every animal's fade-in (a capture of a settled view draws them whole).
    pub fn finish_fades(&mut self) {
        self.creatures.finish_fades();
    }

    /// The animals: those brought in, and every planet's changes to its own.
    #[must_use]
    pub fn creature_state(&self) -> &crate::creatures::Creatures {
        &self.creatures
    }

    /// Scares the animals within `radius_m` of `at` (system space) on the
    /// attached planet: they run from it, then walk back to their paths.
    /// Returns how many.
    pub fn scare_creatures(&mut self, at: DVec3, radius_m: f64) -> usize {
        let Some(a) = &self.attached else { return 0 };
        let local = self.planets[a.planet as usize].to_local(at);
        self.creatures.scare(a.planet, local, radius_m, self.clock.time_s())
    }

    /// Whether every planet is made and the attached planet's wanted
    /// regions are all ready (in open space, nothing streams).
    #[must_use]
    pub fn is_settled(&self) -> bool {
        self.planets_made() == self.planets.len() && self.is_streamed()
    }

    /// Whether what `camera` (system space) shows is all there: the
    /// attached planet's wanted regions ready and every planet the camera
    /// may see made. A planet it cannot see changes no pixel of its frame
    /// (a renderer culls its proxy and its towns' lights by the same cone,
    /// given a radius within the one counted here), so a frame drawn now is
    /// the frame drawn once every planet is made.
    #[must_use]
    pub fn is_settled_for(&self, camera: &Camera) -> bool {
        self.is_streamed() && self.planets.iter().all(|p| p.made().is_some() || !p.may_be_seen_by(camera))
    }

    /// Whether the attached planet's wanted regions are all ready.
    fn is_streamed(&self) -> bool {
        self.attached.as_ref().is_none_or(|a| a.streamer.is_settled() && a.report.complete)
    }
}

impl Drop for World {
    /// The background makers begin no further planet for a world no one holds.
    fn drop(&mut self) {
        self.making.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> World {
        let settings = WorldSettings { threads: 0, proxy_quads: 8, ..WorldSettings::default() };
        World::new(Arc::new(PlannedSystem::default_system()), settings)
    }

    #[test]
    fn every_planet_is_entered_once_in_system_order_with_its_own_terrain() {
        let world = world();
        assert_eq!(world.planets.len(), world.system.planets.len());
        for (i, (p, plan)) in world.planets.iter().zip(&world.system.planets).enumerate() {
            assert_eq!((p.index as usize, plan.index as usize), (i, i));
            assert_eq!(p.terrain().seed, plan.seed, "planet {i}: another planet's terrain");
            assert_eq!(p.radius, f64::from(plan.recipe.radius_m));
        }
    }

    /// A proxy begun on its own thread is the one made where it is needed;
    /// asking for it waits for that thread, and no other planet is made.
    #[test]
    fn a_proxy_begun_in_the_background_is_the_one_made_here() {
        let here = world();
        let made_here = Arc::clone(here.planets[3].proxy());
        let background = world();
        background.planets[3].begin_proxy();
        let proxy = background.planets[3].proxy();
        assert_eq!((&proxy.part, proxy.radius_range_m), (&made_here.part, made_here.radius_range_m));
        assert_eq!(background.planets_made(), 1, "only the planet begun is made (threads: 0)");
    }

    /// A view is settled for a camera once the planets it may see are made,
    /// whatever the others: between planets 1 and 2 (nothing streams),
    /// looking at 2 it waits for 2; looking out of the planets' plane it
    /// waits for none. Without background makers, nothing else is made.
    #[test]
    fn a_view_waits_only_for_the_planets_it_may_see() {
        let settings = WorldSettings { threads: 0, proxy_quads: 8, planet_makers: false, ..WorldSettings::default() };
        let world = World::new(Arc::new(PlannedSystem::default_system()), settings);
        let (p1, p2) = (world.planets[1].position, world.planets[2].position);
        let between = (p1 + p2) * 0.5;
        let at_2 = Camera::new(between, p2 - between);
        let seen: Vec<usize> =
            world.planets.iter().filter(|p| p.may_be_seen_by(&at_2)).map(|p| p.index as usize).collect();
        assert!(seen.contains(&2) && !seen.contains(&1), "seen {seen:?}");
        // Out of the plane the planets lie in: none in view.
        let p0 = world.planets[0].position;
        let up = (p1 - p0).cross(p2 - p0);
        let blind = Camera::new(between, up);
        assert!(world.planets.iter().all(|p| !p.may_be_seen_by(&blind)), "a planet in view along {up}");
        assert_eq!(world.planets_made(), 0);
        assert!(!world.is_settled_for(&at_2), "settled before the planets in view were made");
        assert!(world.is_settled_for(&blind), "a view of no planet waits for one");
        for &i in &seen {
            let _ = world.planets[i].proxy();
        }
        assert!(world.is_settled_for(&at_2), "not settled with every planet in view made");
        assert_eq!(world.planets_made(), seen.len(), "a planet out of view was made");
        assert!(!world.is_settled());
    }

    #[test]
    fn the_streamer_follows_the_camera_between_planets() {
        let mut world = world();
        let (a, b) = (&world.planets[1], &world.planets[2]);
        let (pa, ra, pb, rb) = (a.position, a.radius, b.position, b.radius);
        // Near planet 1: attached, and its proxy shows until the roots are in.
        let near_a = Camera::new(pa + DVec3::Y * (ra * 1.5), DVec3::NEG_Y);
        world.update(&near_a);
        assert_eq!(world.attached().map(|a| a.planet), Some(1));
        assert!(world.proxy_shown(1) && world.proxy_shown(2));
        for _ in 0..200 {
            world.update(&near_a);
            if !world.proxy_shown(1) {
                break;
            }
        }
        assert!(!world.proxy_shown(1), "the streamed planet's roots never covered it");
        // Halfway between: open space, nothing streams, every proxy shows.
        let between = Camera::new((pa + pb) * 0.5, DVec3::X);
        world.update(&between);
        assert!(world.attached().is_none());
        // Settled once every planet is made (in the background, or here).
        assert_eq!(world.is_settled(), world.planets_made() == 5);
        for p in &world.planets {
            let _ = p.proxy();
        }
        assert!(world.planets_made() == 5 && world.is_settled());
        assert!((0..5).all(|i| world.proxy_shown(i)));
        // Near planet 2.
        world.update(&Camera::new(pb + DVec3::X * (rb * 2.0), DVec3::NEG_X));
        assert_eq!(world.attached().map(|a| a.planet), Some(2));
    }

    /// The streaming camera moves at its planet-local motion over the real
    /// time the clock advanced by: 100 m in a tenth of a second is 1 km/s,
    /// which coarsens the finest LOD wanted; the same step with no time
    /// passed (a jump, a new view) is a camera at rest.
    #[test]
    fn the_streamer_sees_the_camera_move_at_its_speed() {
        // The camera 100 m up at latitude 10, `east_m` along the parallel,
        // in system space as planet 1 stands now.
        fn at(world: &World, east_m: f64) -> Camera {
            let planet = &world.planets[1];
            let degrees_per_m = 180.0 / std::f64::consts::PI / planet.radius / libm::cos(10f64.to_radians());
            let k = crate::path::Keyframe {
                t: 0.0,
                lat: 10.0,
                lon: east_m * degrees_per_m,
                altitude_m: 100.0,
                heading_deg: -90.0,
                pitch_deg: -10.0,
            };
            let local = crate::path::keyframe_camera(planet.terrain(), &k);
            Camera {
                position: planet.to_system(local.position),
                forward: planet.vector_to_system(local.forward),
                ..local
            }
        }
        let finest = |seconds: f64| {
            let settings = WorldSettings { threads: 1, proxy_quads: 8, ..WorldSettings::default() };
            let mut world = World::new(Arc::new(PlannedSystem::default_system()), settings);
            world.update(&at(&world, 0.0));
            if seconds > 0.0 {
                // The planet turns meanwhile; the camera keeps to its ground.
                world.advance_clock(seconds);
            }
            world.update(&at(&world, 100.0));
            let streamer = &world.attached().expect("attached near planet 1").streamer;
            streamer.wanted().iter().map(|c| c.lod).min().expect("columns are wanted")
        };
        assert_eq!(finest(0.0), 0, "a camera at rest wants LOD 0 under it");
        assert_eq!(finest(0.1), 2, "at 1 km/s the finest LOD is 2");
        assert_eq!(finest(1.0), 0, "at 100 m/s it stays 0");
    }

    /// The sun's direction in a planet's local axes at time t is the
    /// recipe's: turned back about the tilted axis by the day's fraction
    /// (checked against glam's own axis-angle rotation), on every planet.
    #[test]
    fn the_sun_crosses_each_sky_as_day_length_and_tilt_give() {
        let mut world = world();
        let mut stream = planet::hash::HashStream::new(11);
        for _ in 0..300 {
            let t = stream.range_f64(0.0, 1e7);
            world.set_time(t);
            for p in &world.planets {
                let axis = DVec3::new(
                    p.spin.tilt_deg.to_radians().sin() * p.spin.lean_deg.to_radians().cos(),
                    p.spin.tilt_deg.to_radians().cos(),
                    p.spin.tilt_deg.to_radians().sin() * p.spin.lean_deg.to_radians().sin(),
                );
                let angle = (t / p.spin.day_s).fract() * std::f64::consts::TAU;
                let expected = DQuat::from_axis_angle(axis, -angle) * (-p.position).normalize();
                assert!(p.sun_local().distance(expected) < 1e-9, "planet {} at {t}", p.index);
                // Noon comes round once a day, at the same place.
                let place = p.sun_local();
                let noon = p.solar_hours(place);
                assert!((noon - 12.0).abs() < 1e-6, "{noon}");
            }
        }
        // Six hours' worth of a day later, a place at noon is at 18:00.
        world.set_time(1_000.0);
        let p = &world.planets[1];
        let place = p.sun_local();
        let day = p.spin.day_s;
        world.set_time(1_000.0 + day / 4.0);
        assert!((world.planets[1].solar_hours(place) - 18.0).abs() < 1e-6);
    }

    #[test]
    fn local_and_system_space_are_one_rigid_motion_at_any_time() {
        let mut world = world();
        let mut stream = planet::hash::HashStream::new(12);
        for _ in 0..200 {
            world.set_time(stream.range_f64(0.0, 1e9));
            let p = &world.planets[stream.index(world.planets.len())];
            let local =
                DVec3::new(stream.range_f64(-9e3, 9e3), stream.range_f64(-9e3, 9e3), stream.range_f64(-9e3, 9e3));
            let system = p.to_system(local);
            assert!(p.to_local(system).distance(local) < 1e-6);
            assert!((system.distance(p.position) - local.length()).abs() < 1e-6);
            // Carried a while, a point keeps its local place.
            let dt = stream.range_f64(0.0, 5_000.0);
            let carried = p.carried(system, dt);
            let later = p.spin.orientation(world.clock().time_s() + dt);
            let back = later.inverse() * (carried - p.position);
            assert!(back.distance(local) < 1e-5, "{back} vs {local}");
        }
    }

    #[test]
    fn altitude_is_above_the_ground_or_sea() {
        let world = world();
        let p = &world.planets[2];
        let up = DVec3::new(0.3, 0.8, 0.1).normalize();
        let ground = world.ground_height(p, p.position + up);
        let at = p.position + up * (p.radius + ground + 50.0);
        assert!((world.altitude(at) - 50.0).abs() < 1e-6);
    }
}
