//! Walking on the planet's colliders: a scripted walk of more than 5 km over
//! the default planet's home world, across many region, LOD and cube-face
//! boundaries, never falls through the ground; nor does a walk in a cave.
//!
//! The regions under the walker form a cover of mixed LODs (each LOD-1 column
//! shown whole or as its four LOD-0 columns, picked by a hash of the column),
//! so the ground under its feet changes LOD every few dozen metres, as it
//! does while finer regions stream in.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use engine::physics::{Colliders, WalkInput, WalkSettings, Walker};
use engine::{BuiltRegion, Camera, ColumnKey, PlanetBuilder, RegionBuilder, World, WorldSettings};
use glam::{DVec3, Vec3};
use jobs::CancelToken;
use planet::terrain::{CAPSULES_PER_MOUTH, Terrain, lat_lon_direction};
use planet::{PlannedSystem, RegionKey};

struct Ground {
    terrain: Arc<Terrain>,
    builder: PlanetBuilder,
    built: BTreeMap<RegionKey, Arc<BuiltRegion>>,
    columns: BTreeSet<ColumnKey>,
    colliders: Colliders,
}

fn mix(c: ColumnKey) -> u64 {
    let mut h = (u64::from(c.face) << 56) ^ (u64::from(c.x) << 28) ^ u64::from(c.y) ^ (u64::from(c.lod) << 60);
    h = (h ^ (h >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 29)
}

/// The column of the mixed cover that holds LOD-0 column `c`.
fn cover(c: ColumnKey) -> ColumnKey {
    let one = ColumnKey { lod: 1, x: c.x >> 1, y: c.y >> 1, ..c };
    if mix(one).is_multiple_of(2) { one } else { c }
}

impl Ground {
    fn new() -> Self {
        Self::of(Terrain::new(&PlannedSystem::default_system().planets[1]))
    }

    /// The home planet with no cave mouths: for walks that test the surface.
    fn without_cave_mouths() -> Self {
        let mut plan = PlannedSystem::default_system().planets[1].clone();
        plan.recipe.caves.mouth_probability = 0.0;
        Self::of(Terrain::new(&plan))
    }

    fn of(terrain: Terrain) -> Self {
        let terrain = Arc::new(terrain);
        let builder = PlanetBuilder::new(Arc::clone(&terrain));
        Self { terrain, builder, built: BTreeMap::new(), columns: BTreeSet::new(), colliders: Colliders::default() }
    }

    /// Makes the cover's columns within ~40 m of `p` ready (built on two threads).
    fn around(&mut self, p: DVec3) {
        let up = p.normalize();
        let east = DVec3::Y.cross(up).normalize_or(DVec3::X);
        let north = up.cross(east);
        let mut columns = BTreeSet::new();
        for i in -4..=4 {
            for j in -4..=4 {
                let q = p + east * (f64::from(i) * 10.0) + north * (f64::from(j) * 10.0);
                columns.insert(cover(ColumnKey::of(self.terrain.surface_key(q.normalize().as_vec3(), 0))));
            }
        }
        if columns == self.columns {
            return;
        }
        let grid = &self.terrain.grid;
        let missing: Vec<RegionKey> =
            columns.iter().flat_map(|c| c.regions(grid)).filter(|k| !self.built.contains_key(k)).collect();
        let builder = &self.builder;
        let made: Vec<Arc<BuiltRegion>> = std::thread::scope(|s| {
            let halves: Vec<_> = [0, 1]
                .map(|w| {
                    let missing = &missing;
                    s.spawn(move || {
                        missing
                            .iter()
                            .skip(w)
                            .step_by(2)
                            .map(|&k| Arc::new(builder.build(k, &CancelToken::new()).unwrap()))
                            .collect::<Vec<_>>()
                    })
                })
                .into_iter()
                .collect();
            halves.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        for r in made {
            self.built.insert(r.key, r);
        }
        let keep: BTreeSet<RegionKey> = columns.iter().flat_map(|c| c.regions(grid)).collect();
        self.built.retain(|k, _| keep.contains(k));
        self.colliders = Colliders::new(self.built.values().cloned());
        self.columns = columns;
    }
}

struct Walk {
    distance: f64,
    steps: u32,
    grounded: u32,
    worst_below: f64,
    regions: BTreeSet<RegionKey>,
    lod_changes: u32,
    faces: BTreeSet<u8>,
    covered: u32,
    highest: f64,
    under_coarser: u32,
    turns: u32,
    /// How far under the 2D surface the feet went, metres (a cave).
    deepest: f64,
}

/// Walks from `start` (feet, planet-local) for `seconds`, heading turning
/// slowly and a jump every 7 s; checks every step that the feet are on the
/// ground (within 5 cm, when standing) and never under it.
fn walk(ground: &mut Ground, start: DVec3, seconds: f64, speed: f64, in_cave: bool) -> Walk {
    let gravity = f64::from(ground.terrain.recipe.gravity_mps2);
    ground.around(start);
    let mut walker = Walker::new(start, WalkSettings::person(gravity));
    let up = start.normalize();
    let mut heading = up.cross(DVec3::Y).normalize_or(DVec3::X);
    let dt = 1.0 / 30.0;
    let mut w = Walk {
        distance: 0.0,
        steps: 0,
        grounded: 0,
        worst_below: 0.0,
        regions: BTreeSet::new(),
        lod_changes: 0,
        faces: BTreeSet::new(),
        covered: 0,
        highest: 0.0,
        under_coarser: 0,
        turns: 0,
        deepest: 0.0,
    };
    let mut last_lod = None;
    let mut t = 0.0;
    let mut check = (0.0, start);
    let mut resume: Option<DVec3> = None;
    while t < seconds {
        let up = walker.up();
        heading = (heading - up * heading.dot(up)).normalize();
        // Stuck (a pit, a steep wall, a tree)? Turn right a quarter; in the
        // open, only for a while, then back onto the old heading (a detour
        // round a trunk or a boulder); in a cave, for good (a tunnel's end).
        if t - check.0 > 4.0 {
            if walker.position.distance(check.1) < 4.0 * speed * 0.4 {
                if !in_cave {
                    resume = Some(resume.unwrap_or(heading));
                }
                heading = heading.cross(up).normalize();
                w.turns += 1;
            } else if let Some(old) = resume.take() {
                heading = (old - up * old.dot(up)).normalize_or(heading);
            }
            check = (t, walker.position);
            if std::env::var_os("WALK_TRACE").is_some() {
                let p = walker.position;
                eprintln!(
                    "t {t:.0} r {:.1} lat {:.3} lon {:.3} grounded {} sliding {} n.up {:.2} d {:.0}",
                    p.length(),
                    libm::asin(p.y / p.length()).to_degrees(),
                    libm::atan2(p.z, p.x).to_degrees(),
                    walker.grounded,
                    walker.sliding,
                    walker.ground_normal.dot(walker.up()),
                    w.distance
                );
            }
        }
        // Turn a little, one way then the other.
        let turn = 0.03 * libm::sin(t * 0.05) * dt;
        heading = (heading + up.cross(heading) * turn).normalize();
        let jump = (t % 7.0) < dt;
        ground.around(walker.position);
        let before = walker.position;
        walker.step(&ground.colliders, &WalkInput { motion: heading * speed, jump }, dt);
        t += dt;
        w.steps += 1;
        let step = walker.position - before;
        w.distance += (step - up * step.dot(up)).length();
        assert!(walker.supported, "no collider under the walker at {:?}", walker.position);
        // The ground under the feet, from a metre above them.
        let up = walker.up();
        let hit = ground
            .colliders
            .ground_below(walker.position + up * 1.0, 500.0)
            .unwrap_or_else(|| panic!("no ground under the walker at t = {t:.2}: {:?}", walker.position));
        let mut height = hit.distance - 1.0;
        let mut standing_on = hit.region;
        if height < -0.05 {
            // Under the edge of a neighbour of another LOD (see below): the
            // feet stand on their own region's ground, just under them.
            let feet = ground.colliders.ground_below(walker.position + up * 0.05, 1.0);
            let coarse = f64::from(ground.terrain.grid.cell_m(hit.region.lod.max(feet.map_or(0, |f| f.region.lod))));
            let under_coarser =
                feet.is_some_and(|f| f.region.lod != hit.region.lod && f.distance < 0.1) && -height < coarse;
            // Or beside a boulder, under its bulge (the ray from above met the boulder).
            let beside_object = hit.object && feet.is_some_and(|f| f.distance < 0.1);
            let excused = under_coarser || beside_object;
            assert!(
                excused,
                "the feet are {:.3} m under the ground at t = {t:.2} (hit {hit:?}, feet {feet:?})",
                -height
            );
            // The feet's height over the ground the ray from just over them meets.
            height = feet.map_or(height, |f| f.distance - 0.05);
            standing_on = feet.map_or(hit.region, |f| f.region);
            w.under_coarser += 1;
        }
        w.worst_below = w.worst_below.max(-height);
        w.highest = w.highest.max(height);
        if walker.grounded {
            w.grounded += 1;
            assert!(height.abs() < 0.05, "standing {height:.3} m off the ground at t = {t:.2}");
        }
        // In the air, not in the rock: the first surface above the feet, if
        // any, is a roof seen from below (its outer side). Where it is the
        // edge of a neighbour of another LOD, the two meshes of one ground
        // may disagree by up to a coarser cell (a dual vertex lies anywhere
        // in its cell, and on a steep cave wall that is up or down).
        if let Some(roof) = ground.colliders.ray_cast(walker.position + up * 0.05, up, 300.0) {
            if in_cave {
                w.covered += 1;
            }
            if !roof.front {
                let coarse = f64::from(ground.terrain.grid.cell_m(roof.region.lod.max(standing_on.lod)));
                let excused = roof.region.lod != standing_on.lod && roof.distance < coarse;
                assert!(excused, "the walker is {:.2} m inside the ground at t = {t:.2}", roof.distance);
                w.under_coarser += 1;
            }
        }
        if w.steps.is_multiple_of(30) {
            let surface = ground.terrain.surface_height_at(walker.position.normalize().as_vec3());
            let radius = f64::from(ground.terrain.recipe.radius_m + surface);
            w.deepest = w.deepest.max(radius - walker.position.length());
        }
        w.regions.insert(hit.region);
        w.faces.insert(hit.region.face);
        if last_lod.is_some_and(|l| l != hit.region.lod) {
            w.lod_changes += 1;
        }
        last_lod = Some(hit.region.lod);
    }
    w
}

/// Feet on the top surface at a latitude and longitude.
fn surface_at(ground: &mut Ground, lat: f32, lon: f32) -> DVec3 {
    surface_along(ground, lat_lon_direction(lat, lon).as_dvec3()).expect("the ground is under the sky")
}

/// Feet on the top surface along unit direction `d` from the centre, if a
/// ray down from 2 km over the shell finds ground.
fn surface_along(ground: &mut Ground, d: DVec3) -> Option<DVec3> {
    let high = d * (f64::from(ground.terrain.grid.radius_m) + 2000.0);
    ground.around(d * f64::from(ground.terrain.grid.radius_m));
    let hit = ground.colliders.ground_below(high, 3000.0)?;
    ground.around(hit.point);
    Some(hit.point)
}

#[test]
fn a_five_kilometre_walk_never_falls_through_the_ground() {
    // The surface only: a walk that drops into a cave mouth spends the rest
    // of its time in the tunnels (the walks below test those). Generator 11
    // sent this one into a mouth by a river 3 km on, 44 m down.
    let mut ground = Ground::without_cave_mouths();
    // Towards the edge of faces 0 and 4 (at 45° east), and beyond. 15
    // minutes: where it is stuck the walker turns, and how often is the
    // route's (generator 13's turned 13 times in 13 minutes and walked
    // 4,913 m), so the walk is long enough for 5 km on any route.
    let start = surface_at(&mut ground, 20.0, 36.0);
    let w = walk(&mut ground, start, 900.0, 7.0, false);
    eprintln!(
        "walked {:.0} m in {} steps, standing {:.1}%, {} regions, {} LOD changes, faces {:?}, worst {:.3} m under, highest {:.2} m over, {} steps under a coarser neighbour's edge, {} turns when stuck",
        w.distance,
        w.steps,
        100.0 * f64::from(w.grounded) / f64::from(w.steps),
        w.regions.len(),
        w.lod_changes,
        w.faces,
        w.worst_below,
        w.highest,
        w.under_coarser,
        w.turns
    );
    assert!(w.distance > 5000.0, "walked only {:.0} m", w.distance);
    assert!(w.regions.len() > 150, "crossed only {} regions", w.regions.len());
    assert!(w.lod_changes > 50, "only {} LOD changes", w.lod_changes);
    assert!(w.faces.len() > 1, "stayed on face {:?}", w.faces);
    // The walker jumps every 7 s, so about an eighth of its steps are in the
    // air by design; the rest of the margin is falls off banks and steps.
    // The share is the route's: 79.8% when the walk crossed the town of
    // Qualois (generator 10), 77.7% on generator 11's route without mouths;
    // eleven starts 0.05° around this one stood 69-83% of their steps at
    // generators 12 and 13. The route also differs between machines: on an
    // AMD EPYC this start stood 62.7% (22 turns) at generators 16 and 17,
    // and nine starts 0.05° around it 62.7-82.2%, the same at both, where
    // the machines CI passed on at generator 16 stood over 65% (the cause is
    // not found: this walk and the terrain use libm). A walker that fell
    // through the ground, or kept falling off it, would stand far less.
    assert!(f64::from(w.grounded) > 0.55 * f64::from(w.steps), "standing only {} of {} steps", w.grounded, w.steps);
}

/// Walks that head into a cave mouth, 40 m short of it, drop into tunnels
/// lower than the walker, where it jumps every 7 s. Its body once rose into
/// their roof: the ray that stops a rise started at the head, already past
/// the roof. Every step's checks hold now, all the way. (The five-kilometre
/// walk's route found that mouth by chance, 3 km on, at generators 11 and
/// 12; this walks into each of the mouths near that route's start until
/// one takes it 30 m down.)
#[test]
fn a_walk_that_drops_into_a_cave_mouth_never_rises_into_its_roof() {
    let mut ground = Ground::new();
    let terrain = Arc::clone(&ground.terrain);
    let centre = lat_lon_direction(20.0, 36.0) * terrain.grid.radius_m;
    let mouths = terrain.cave_mouths_near(centre - Vec3::splat(3000.0), centre + Vec3::splat(3000.0));
    let mut depths = Vec::new();
    for mouth in mouths.iter().step_by(CAPSULES_PER_MOUTH).take(8) {
        // `walk` sets off along up x Y, so start 40 m back from the mouth along it.
        let at = mouth.a.as_dvec3();
        let heading = at.normalize().cross(DVec3::Y).normalize();
        let Some(start) = surface_along(&mut ground, (at - heading * 40.0).normalize()) else { continue };
        let w = walk(&mut ground, start, 60.0, 7.0, false);
        depths.push(w.deepest);
        if w.deepest > 30.0 {
            eprintln!(
                "mouth {} of {}: walked {:.0} m, {:.1} m under the surface at the deepest",
                depths.len(),
                mouths.len() / CAPSULES_PER_MOUTH,
                w.distance,
                w.deepest
            );
            return;
        }
    }
    panic!("no walk went 30 m down a mouth (deepest of each: {depths:?}): this no longer tests a cave");
}

#[test]
fn a_walk_in_a_cave_never_falls_through_its_floor() {
    let mut ground = Ground::new();
    let terrain = Arc::clone(&ground.terrain);
    // A cave mouth's tunnel: start on its floor, well inside.
    let centre = lat_lon_direction(20.0, 30.0) * terrain.grid.radius_m;
    let mouths = terrain.cave_mouths_near(centre - Vec3::splat(800.0), centre + Vec3::splat(800.0));
    let tunnel = mouths.iter().find(|c| c.a != c.b).expect("a cave mouth near the start");
    let inside = ((tunnel.a + tunnel.b) * 0.5).as_dvec3();
    ground.around(inside);
    let floor = ground.colliders.ground_below(inside, 30.0).expect("the tunnel has a floor").point;
    let w = walk(&mut ground, floor + floor.normalize() * 0.1, 60.0, 3.0, true);
    eprintln!(
        "cave: walked {:.0} m, standing {:.1}%, under a roof {:.1}%, worst {:.3} m under",
        w.distance,
        100.0 * f64::from(w.grounded) / f64::from(w.steps),
        100.0 * f64::from(w.covered) / f64::from(w.steps),
        w.worst_below
    );
    assert!(w.distance > 20.0, "walked only {:.0} m", w.distance);
    assert!(f64::from(w.covered) > 0.5 * f64::from(w.steps), "mostly not in the cave");
}

#[test]
fn a_walker_inside_the_ground_is_put_back_on_top_of_it() {
    // As when a finer region replaces the one the walker stood on and its
    // surface is higher, or it fell while only coarser ground was there.
    let mut ground = Ground::new();
    let gravity = f64::from(ground.terrain.recipe.gravity_mps2);
    let surface = surface_at(&mut ground, 20.0, 36.0);
    let up = surface.normalize();
    for depth in [0.3, 2.0, 25.0] {
        let mut walker = Walker::new(surface - up * depth, WalkSettings::person(gravity));
        walker.step(&ground.colliders, &WalkInput::default(), 1.0 / 30.0);
        let height = ground.colliders.height_above_ground(walker.position, 1.0, 100.0).expect("ground under it");
        assert!(height.abs() < 0.05, "{depth} m down: {height:.3} m over the ground after a step");
        let inside = ground.colliders.ray_cast(walker.position + up * 0.05, up, 300.0).filter(|h| !h.front);
        assert!(inside.is_none(), "{depth} m down: still inside the ground");
        assert!(walker.position.distance(surface) < 0.05, "{depth} m down: not put back on the surface");
        assert!(walker.grounded || walker.sliding, "{depth} m down: not standing");
    }
}

#[test]
fn a_walker_started_before_the_ground_streams_in_waits_for_it_and_walks_into_a_cave() {
    // The flight client's walk mode switched on at its first frame, over a
    // cave mouth: the world streams from nothing (coarse ground first, tens
    // of metres off the true surface), the frames are slow.
    let settings = WorldSettings { threads: 0, proxy_quads: 4, ..WorldSettings::default() };
    let mut world = World::new(Arc::new(PlannedSystem::default_system()), settings);
    let view = engine::view::sunlit_cave_mouth(&world, 1, 15.0).expect("the home planet has caves");
    let pose = view.pose(&world).expect("a valid view");
    let centre = world.planets[1].position;
    let gravity = f64::from(world.system.planets[1].recipe.gravity_mps2);
    let start_up = (pose.position - centre).normalize();
    let start = pose.position - centre - start_up * 1.7;
    let mut walker = Walker::new(start, WalkSettings::person(gravity));
    let heading = (pose.forward - start_up * pose.forward.dot(start_up)).normalize();
    let dt = 1.0 / 6.0;
    let (mut waited_over_coarse, mut covered) = (0, 0);
    for frame in 0..140 {
        let t = f64::from(frame - 20) * dt;
        // The first 20 frames the camera is 1 km up: only coarse ground
        // streams in under the walker (with its colliders: within the
        // physics range), and the walker must wait for the fine.
        let eye = centre + walker.position + walker.up() * if frame < 20 { 1000.0 } else { 1.7 };
        world.update(&Camera::new(eye, heading));
        let streamer = &world.attached().expect("streaming the home planet").streamer;
        let under = Colliders::shown(streamer).ground_below(walker.position + walker.up() * 2.0, 500.0);
        if under.is_some_and(|h| h.region.lod > engine::physics::WALK_MAX_LOD) {
            waited_over_coarse += 1;
            assert!(frame < 25, "coarse ground under the walker at t = {t:.2}");
        }
        let colliders = Colliders::walkable(streamer);
        let up = walker.up();
        let flat = (heading - up * heading.dot(up)).normalize();
        let motion = if t > 2.0 { flat * 4.0 } else { DVec3::ZERO };
        walker.step(&colliders, &WalkInput { motion, jump: false }, dt);
        if under.is_some_and(|h| h.region.lod > engine::physics::WALK_MAX_LOD) {
            assert!(!walker.supported && walker.position.distance(start) < 1e-6, "it fell onto coarse ground");
            continue;
        }
        if !walker.supported {
            continue; // nothing streamed under it yet
        }
        let up = walker.up();
        let height = colliders.height_above_ground(walker.position, 1.0, 500.0).expect("ground under the walker");
        assert!(height > -0.05, "the feet are {:.3} m under the ground at t = {t:.2}", -height);
        if let Some(roof) = colliders.ray_cast(walker.position + up * 0.05, up, 300.0) {
            let coarse = f64::from(world.planets[1].terrain().grid.cell_m(1));
            assert!(
                roof.front || roof.distance < 0.5 * coarse,
                "{:.2} m inside the ground at t = {t:.2}",
                roof.distance
            );
            covered += 1;
        }
    }
    let depth = -world.altitude(centre + walker.position);
    eprintln!(
        "waited {waited_over_coarse} frames over coarse ground, under a roof {covered} of 120 frames, ends {depth:.1} m under the surface"
    );
    assert!(waited_over_coarse > 5, "only {waited_over_coarse} frames with coarse ground under the walker");
    assert!(covered > 20, "under a roof only {covered} frames: never walked into the cave");
    assert!(depth > 10.0, "ends only {depth:.1} m under the surface");
}

#[test]
fn a_walker_switched_on_high_above_the_ground_falls_and_lands_on_it() {
    // Walk mode switched on 400 m up: the ground under it is coarse at
    // first; it falls towards it, the finer ground streams in under the
    // falling camera, and it lands on that (it never hangs in the air for
    // good, nor stands on the coarse ground).
    let settings = WorldSettings { threads: 0, proxy_quads: 4, ..WorldSettings::default() };
    let mut world = World::new(Arc::new(PlannedSystem::default_system()), settings);
    let (lat, lon) = engine::sunlit_land(&world, 1);
    let view = engine::ViewSpec { planet: 1, lat, lon, alt: 400.0, ..engine::ViewSpec::default() };
    let pose = view.pose(&world).expect("a valid view");
    let centre = world.planets[1].position;
    let gravity = f64::from(world.system.planets[1].recipe.gravity_mps2);
    let mut walker = Walker::new(pose.position - centre, WalkSettings::person(gravity));
    let dt = 1.0 / 10.0;
    let mut landed = None;
    for frame in 0..300 {
        world.update(&Camera::new(centre + walker.position, pose.forward));
        let colliders = Colliders::walkable(&world.attached().expect("streaming").streamer);
        walker.step(&colliders, &WalkInput::default(), dt);
        if walker.grounded || walker.sliding {
            let hit = colliders.ground_below(walker.position + walker.up(), 10.0).expect("ground under it");
            assert!(hit.region.lod <= engine::physics::WALK_MAX_LOD, "stands on LOD {}", hit.region.lod);
            assert!((hit.distance - 1.0).abs() < 0.05, "stands {:.3} m off the ground", hit.distance - 1.0);
            landed = Some(frame);
            break;
        }
    }
    let frame = landed.unwrap_or_else(|| panic!("still in the air after 30 s, at {:?}", walker.position));
    let fell = (pose.position - centre).length() - walker.position.length();
    eprintln!("landed after {:.1} s, {fell:.0} m down", f64::from(frame) * dt);
    assert!(fell > 300.0, "fell only {fell:.0} m");
}

/// A walker sent straight at a tree stops at its trunk: its axis never
/// comes nearer the trunk's than the trunk's inner radius plus its own,
/// over forty trees of the home planet's forest at LODs 0 and 1 (and it
/// does reach most of them).
#[test]
fn a_walker_stops_at_a_tree_trunk() {
    let mut ground = Ground::new();
    let gravity = f64::from(ground.terrain.recipe.gravity_mps2);
    let settings = WalkSettings::person(gravity);
    let forest = surface_at(&mut ground, -22.3233, -16.7839);
    let trees: Vec<(DVec3, f64)> = ground
        .built
        .values()
        .filter_map(|r| r.scatter.as_ref())
        .flat_map(|s| {
            s.objects
                .iter()
                .filter(|o| o.kind == planet::recipe::ScatterKind::Tree && o.size_m > 3.0)
                .map(|o| (s.origin + o.position.as_dvec3(), f64::from(o.size_m)))
        })
        .filter(|(p, _)| p.distance(forest) < 35.0)
        .take(40)
        .collect();
    assert!(trees.len() >= 10, "only {} trees near the forest's centre", trees.len());
    let (mut nearest, mut reached) = (f64::INFINITY, 0);
    for (k, &(base, size)) in trees.iter().enumerate() {
        let up = base.normalize();
        let side = up.any_orthonormal_vector();
        let a = k as f64 * 2.4;
        let out = side * a.cos() + up.cross(side) * a.sin();
        let trunk = 0.045 * size * (std::f64::consts::PI / 6.0).cos();
        let start = base + out * (trunk + settings.radius + 2.0) + up * 0.5;
        ground.around(start);
        let mut walker = Walker::new(start, settings);
        let mut closest = f64::INFINITY;
        for _ in 0..120 {
            walker.step(&ground.colliders, &WalkInput { motion: -out * 1.5, jump: false }, 1.0 / 30.0);
            let d = walker.position - base;
            let across = d - up * d.dot(up);
            // Only while level with the trunk (a walker on a slope may pass under nothing else).
            if d.dot(up).abs() < 2.0 {
                closest = closest.min(across.length());
            }
        }
        nearest = nearest.min(closest - trunk);
        // Another trunk, a boulder or a steep bank may stop it short.
        reached += usize::from(closest < trunk + settings.radius + 0.5);
        assert!(
            closest >= trunk + settings.radius - 0.05,
            "tree {k} ({size:.1} m): the walker came within {closest:.2} m of the axis (trunk {trunk:.2} m)"
        );
    }
    eprintln!(
        "{} trees, {reached} reached: the walker's axis stopped at least {nearest:.3} m from a trunk's surface",
        trees.len()
    );
    assert!(reached * 10 >= trees.len() * 8, "the walker reached only {reached} of {} trees", trees.len());
}
