//! Streaming around moving cameras: the visible set covers the planet exactly
//! once at every frame (a property test over random camera paths), the cache
//! is reused, work the camera leaves behind is cancelled, holes are filled
//! coarse first, and the regions ready at the end of a path do not depend on
//! the thread count (edits made on the way included).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use engine::coverage::check_exact_cover;
use engine::path::{CameraPath, Keyframe, keyframe_camera};
use engine::{
    BuiltRegion, Camera, ColumnKey, LodSettings, LodTree, PlanetBuilder, RegionBuilder, RegionCache, RegionId,
    RegionJobs, StreamSettings, Streamer, descends_from,
};
use glam::DVec3;
use jobs::CancelToken;
use parking_lot::Mutex;
use planet::mesh::SphereMesh;
use planet::terrain::Terrain;
use planet::{PlannedSystem, RegionKey, Signature};
use proptest::prelude::*;

/// Builds instantly and remembers what it built, in order, and which
/// regions it gave their physics after they were built without.
#[derive(Default)]
struct FakeBuilder {
    built: Mutex<Vec<RegionKey>>,
    given_physics: Mutex<Vec<RegionKey>>,
}

impl RegionBuilder for FakeBuilder {
    fn build_with(
        &self,
        key: RegionKey,
        _: &planet::edit::RegionEdits,
        physics: bool,
        cancel: &CancelToken,
    ) -> Option<BuiltRegion> {
        if cancel.is_cancelled() {
            return None;
        }
        self.built.lock().push(key);
        Some(BuiltRegion {
            key,
            mesh: SphereMesh { key, ..SphereMesh::default() },
            voxels: Signature::of("fake region", &key),
            stamp: 0,
            physics,
            collider: None,
            navmesh: None,
            scatter: None,
            times: planet::pipeline::StageTimes::default(),
        })
    }

    fn add_physics(&self, region: &BuiltRegion, _: &planet::edit::RegionEdits, _: &CancelToken) -> Option<BuiltRegion> {
        self.given_physics.lock().push(region.key);
        Some(BuiltRegion { physics: true, ..region.clone() })
    }
}

/// The home planet, made once for every test here (its layout is the
/// slowest part of a rig).
fn home() -> (Signature, Arc<Terrain>) {
    static HOME: std::sync::OnceLock<(Signature, Arc<Terrain>)> = std::sync::OnceLock::new();
    let (signature, terrain) = HOME.get_or_init(|| {
        let plan = &PlannedSystem::default_system().planets[1];
        (plan.signature(), Arc::new(Terrain::new(plan)))
    });
    (*signature, Arc::clone(terrain))
}

struct Rig<B: RegionBuilder> {
    streamer: Streamer<B>,
    jobs: Arc<RegionJobs>,
    builder: Arc<B>,
    cache: Arc<Mutex<RegionCache>>,
}

fn rig<B: RegionBuilder>(builder: B, threads: usize, cache_bytes: usize) -> Rig<B> {
    let (signature, terrain) = home();
    let builder = Arc::new(builder);
    let jobs = Arc::new(RegionJobs::new(threads));
    let cache = Arc::new(Mutex::new(RegionCache::new(cache_bytes)));
    let streamer = Streamer::new(
        signature,
        terrain,
        Arc::clone(&builder),
        Arc::clone(&jobs),
        Arc::clone(&cache),
        StreamSettings { apply_budget: Duration::from_secs(1), ..StreamSettings::default() },
    );
    Rig { streamer, jobs, builder, cache }
}

fn camera_at(terrain: &Terrain, lat: f64, lon: f64, altitude_m: f64, heading_deg: f64) -> Camera {
    keyframe_camera(terrain, &Keyframe { t: 0.0, lat, lon, altitude_m, heading_deg, pitch_deg: -10.0 })
}

/// Checks one frame's invariants once the cover is complete: an exact cover
/// of ready columns, and no place shown coarser than the frame before unless
/// the region tree now wants it that coarse (children stay until their parent
/// is ready again; a parent stays until all its children are).
fn check_frame<B: RegionBuilder>(rig: &Rig<B>, frame: usize, before: &[ColumnKey]) -> Result<(), TestCaseError> {
    let s = &rig.streamer;
    let visible = s.visible();
    check_exact_cover(s.tree().grid(), visible).map_err(|e| TestCaseError::fail(format!("frame {frame}: {e}")))?;
    for &c in visible {
        prop_assert!(s.column_ready(c), "frame {frame}: {c:?} shown but not ready");
    }
    let max_lod = s.tree().grid().max_lod;
    let wanted: BTreeSet<ColumnKey> = s.wanted().iter().copied().collect();
    let within_wanted = |c: ColumnKey| {
        let mut a = c;
        loop {
            if wanted.contains(&a) {
                return true;
            }
            if a.lod >= max_lod {
                return false;
            }
            a = a.parent();
        }
    };
    // Every split column is ready or being built: the fallback its area
    // shows while one of its leaves is missing.
    for c in s.tree().split_columns() {
        for key in c.regions(s.tree().grid()) {
            let id = RegionId::new(s.signature(), key);
            prop_assert!(
                rig.cache.lock().contains(&id) || rig.jobs.is_pending(&id),
                "frame {frame}: split column {c:?} neither ready nor being built"
            );
        }
    }
    let shown_before: BTreeSet<ColumnKey> = before.iter().copied().collect();
    for &v in visible.iter().filter(|v| !shown_before.contains(v)) {
        let coarser = before.iter().any(|&u| u != v && descends_from(u, v));
        prop_assert!(
            !coarser || within_wanted(v),
            "frame {frame}: {v:?} replaced finer columns but is coarser than wanted"
        );
    }
    Ok(())
}

#[derive(Clone, Debug)]
struct Leg {
    lat: f64,
    lon: f64,
    altitude_m: f64,
    frames: usize,
    jobs_per_frame: usize,
}

fn leg() -> impl Strategy<Value = Leg> {
    (
        -80.0..80.0f64,
        -180.0..180.0f64,
        prop_oneof![0.0..30.0f64, 30.0..3000.0f64, 3000.0..40_000.0f64],
        1usize..12,
        0usize..40,
    )
        .prop_map(|(lat, lon, altitude_m, frames, jobs_per_frame)| Leg {
            lat,
            lon,
            altitude_m,
            frames,
            jobs_per_frame,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random flights (slow drifts, fast hops, teleports, climbs to orbit and
    /// dives to the ground, each camera moving at its speed over a 60 fps
    /// frame, so the tree looks ahead and coarsens) with a random, often too
    /// small, amount of work done per frame and a small cache: once the
    /// cover first completes, it stays an exact cover of ready columns at
    /// every frame.
    #[test]
    fn visible_set_covers_the_planet_exactly_once(legs in prop::collection::vec(leg(), 2..7)) {
        let mut rig = rig(FakeBuilder::default(), 0, 600 * 256);
        let terrain = Arc::clone(rig.streamer.terrain());
        let mut from = legs[0].clone();
        let mut frame = 0;
        let mut complete = false;
        let mut before = Vec::new();
        let mut last_position = None;
        for leg in &legs {
            for i in 0..leg.frames {
                let s = (i + 1) as f64 / leg.frames as f64;
                let mix = |a: f64, b: f64| a + (b - a) * s;
                let camera = camera_at(&terrain, mix(from.lat, leg.lat), mix(from.lon, leg.lon), mix(from.altitude_m, leg.altitude_m), 90.0);
                let camera = camera.moving((camera.position - last_position.unwrap_or(camera.position)) * 60.0);
                last_position = Some(camera.position);
                rig.jobs.run_pending(leg.jobs_per_frame);
                let report = rig.streamer.update(&camera);
                frame += 1;
                complete |= report.complete;
                if complete {
                    prop_assert!(report.complete, "frame {frame}: the cover was complete and is not now");
                    check_frame(&rig, frame, &before)?;
                }
                before = rig.streamer.visible().to_vec();
            }
            from = leg.clone();
        }
        // Given time, it settles on exactly the wanted columns.
        let camera = camera_at(&terrain, from.lat, from.lon, from.altitude_m, 90.0);
        for _ in 0..1000 {
            rig.jobs.run_pending(64);
            rig.streamer.update(&camera);
            frame += 1;
            check_frame(&rig, frame, &before)?;
            before = rig.streamer.visible().to_vec();
            if rig.streamer.is_settled() {
                break;
            }
        }
        rig.streamer.update(&camera);
        prop_assert!(rig.streamer.is_settled());
        prop_assert_eq!(rig.streamer.visible(), rig.streamer.wanted());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A still view streamed without fallbacks (as `planet capture` streams
    /// one) builds each region of the wanted leaves once and nothing else,
    /// is complete only once they are all ready, and settles on the same
    /// shown columns as with fallbacks: the same picture. Without the
    /// leaves out of view too, it builds only those that may be in view,
    /// and settles on the same shown columns bar the others.
    #[test]
    fn a_still_view_without_fallbacks_settles_on_the_same_cover(
        lat in -89.0..89.0f64,
        lon in -180.0..180.0f64,
        altitude_m in prop_oneof![0.0..30.0f64, 30.0..3000.0f64, 3000.0..40_000.0f64],
        heading_deg in 0.0..360.0f64,
        jobs_per_frame in 1usize..64,
    ) {
        let mut with = rig(FakeBuilder::default(), 0, 64 << 20);
        let terrain = Arc::clone(with.streamer.terrain());
        let camera = camera_at(&terrain, lat, lon, altitude_m, heading_deg);
        settle(&mut with, &camera, jobs_per_frame);
        let still = StreamSettings { apply_budget: Duration::from_secs(1), fallbacks: false, ..StreamSettings::default() };
        for build_unseen in [true, false] {
            let mut without = rig(FakeBuilder::default(), 0, 64 << 20);
            without.streamer = Streamer::new(
                without.streamer.signature(),
                Arc::clone(&terrain),
                Arc::clone(&without.builder),
                Arc::clone(&without.jobs),
                Arc::clone(&without.cache),
                StreamSettings { build_unseen, ..still },
            );
            let mut frames = 0;
            loop {
                without.jobs.run_pending(jobs_per_frame);
                let report = without.streamer.update(&camera);
                let settled = without.streamer.is_settled();
                prop_assert_eq!(report.complete, settled, "frame {}: complete before every leaf is ready", frames);
                if settled {
                    break;
                }
                frames += 1;
                prop_assert!(frames < 10_000, "never settled");
            }
            let s = &without.streamer;
            prop_assert_eq!(s.visible(), s.wanted());
            let mut shown: Vec<ColumnKey> = s.visible().iter().chain(s.unseen()).copied().collect();
            shown.sort_unstable();
            prop_assert_eq!(&shown, with.streamer.visible());
            prop_assert_eq!(build_unseen, s.unseen().is_empty());
            for &c in s.unseen() {
                prop_assert!(!s.tree().may_show(c, &camera));
            }
            let grid = s.tree().grid().clone();
            let mut built = without.builder.built.lock().clone();
            let count = built.len();
            built.sort_unstable();
            built.dedup();
            prop_assert_eq!(built.len(), count, "a region built twice");
            let wanted: Vec<RegionKey> = s.wanted().iter().flat_map(|c| c.regions(&grid)).collect();
            prop_assert_eq!(built, wanted);
        }
    }
}

/// What a still view leaves unbuilt holds nothing in its view: over random
/// still cameras on the home planet (on the ground, hundreds of metres and
/// kilometres up, looking every way), the unseen columns nearest each
/// camera are built whole, and no vertex of their terrain, blocks or water
/// comes within `STANDING_M` of the view cone (so nothing standing on them
/// does), nor any of their objects. Most of a standing camera's leaves are
/// out of its view.
#[test]
fn what_a_still_view_does_not_build_has_nothing_in_its_view() {
    let (_, terrain) = home();
    let builder = PlanetBuilder::new(Arc::clone(&terrain));
    let mut tree = LodTree::new(&terrain, LodSettings::default());
    let mut h = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = || {
        h ^= h << 13;
        h ^= h >> 7;
        h ^= h << 17;
        (h >> 11) as f64 / (1u64 << 53) as f64
    };
    let (mut regions, mut vertices, mut objects, mut unseen_share) = (0, 0, 0, 0.0);
    let cameras = 64;
    for i in 0..cameras {
        let altitude_m = [2.0, 40.0, 400.0, 4000.0][i % 4] * (0.5 + next());
        let mut camera = camera_at(&terrain, next() * 170.0 - 85.0, next() * 360.0 - 180.0, altitude_m, next() * 360.0);
        camera.fov_y = (40.0 + 50.0 * next()).to_radians();
        let leaves = tree.update(&terrain, &camera);
        let (seen, mut unseen): (Vec<ColumnKey>, Vec<ColumnKey>) =
            leaves.iter().partition(|&&c| tree.may_show(c, &camera));
        unseen_share += unseen.len() as f64 / leaves.len() as f64;
        assert!(!seen.is_empty(), "camera {i}: nothing in view");
        // The nearest unseen columns: those beside and behind the camera.
        unseen.sort_by_cached_key(|&c| {
            let b = tree.bounds(&terrain, c);
            (b.centre.distance(camera.position) - b.radius).max(0.0) as u64
        });
        for &c in unseen.iter().take(8) {
            for key in c.regions(tree.grid()) {
                let built = builder.build_with(key, &Default::default(), false, &CancelToken::new()).expect("built");
                regions += 1;
                let origin = built.mesh.origin;
                let parts = [&built.mesh.terrain, &built.mesh.blocks, &built.mesh.water];
                for v in parts.iter().flat_map(|p| &p.vertices) {
                    let at = origin + glam::Vec3::from_array(v.position).as_dvec3();
                    assert!(!camera.sees(at, engine::STANDING_M), "camera {i}: {key} has a vertex in view at {at}");
                    vertices += 1;
                }
                for o in built.scatter.iter().flat_map(|s| &s.objects) {
                    let at = origin + o.position.as_dvec3();
                    assert!(!camera.sees(at, engine::STANDING_M), "camera {i}: {key} has an object in view at {at}");
                    objects += 1;
                }
            }
        }
    }
    assert!(regions >= 400 && vertices >= 200_000 && objects >= 5_000, "{regions} {vertices} {objects}");
    assert!(unseen_share / f64::from(cameras as u32) > 0.3, "only {unseen_share} of the leaves unseen");
}

/// Runs single-threaded frames at `camera` until settled; returns the frames taken.
fn settle<B: RegionBuilder>(rig: &mut Rig<B>, camera: &Camera, jobs_per_frame: usize) -> usize {
    for frame in 0..10_000 {
        rig.jobs.run_pending(jobs_per_frame);
        rig.streamer.update(camera);
        if rig.streamer.is_settled() {
            return frame;
        }
    }
    panic!("never settled");
}

#[test]
fn coming_back_to_a_place_does_not_rebuild_it() {
    // Physics apart (no region gets any): `physics_follow_the_camera` is theirs.
    let mut rig = rig(FakeBuilder::default(), 0, 64 << 20);
    rig.streamer = Streamer::new(
        rig.streamer.signature(),
        Arc::clone(rig.streamer.terrain()),
        Arc::clone(&rig.builder),
        Arc::clone(&rig.jobs),
        Arc::clone(&rig.cache),
        StreamSettings { apply_budget: Duration::from_secs(1), physics_range_m: -1.0, ..StreamSettings::default() },
    );
    let terrain = Arc::clone(rig.streamer.terrain());
    let here = camera_at(&terrain, 12.0, 20.0, 2.0, 90.0);
    let there = camera_at(&terrain, -40.0, 150.0, 2.0, 90.0);
    settle(&mut rig, &here, 32);
    let first = rig.builder.built.lock().len();
    let wanted_here = rig.streamer.wanted().to_vec();
    settle(&mut rig, &there, 32);
    let second = rig.builder.built.lock().len();
    assert!(second > first);
    // Shown again from the cache at once (the regions near the camera then
    // get their physics back, which takes a few more frames).
    let mut again = 0;
    loop {
        rig.jobs.run_pending(32);
        rig.streamer.update(&here);
        if rig.streamer.wanted().iter().all(|&c| rig.streamer.column_ready(c)) {
            break;
        }
        again += 1;
        assert!(again < 100, "not shown again after {again} frames");
    }
    settle(&mut rig, &here, 32);
    // Nothing built twice. Hysteresis may keep a column or two split that was
    // split on the far side (a few new regions), never more.
    let built = rig.builder.built.lock();
    assert_eq!(built.iter().collect::<BTreeSet<_>>().len(), built.len(), "a region was rebuilt");
    assert!(built.len() - second <= first / 20, "{} new regions of {first} on the way back", built.len() - second);
    assert!(again <= 2, "showing from the cache took {again} frames");
    let wanted_again: BTreeSet<_> = rig.streamer.wanted().iter().collect();
    let kept = wanted_here.iter().filter(|c| wanted_again.contains(c)).count();
    assert!(kept * 20 >= wanted_here.len() * 19, "{kept} of {} columns wanted again", wanted_here.len());
}

/// Shown regions within the physics range have their physics and those
/// well beyond it have none; how many of each.
fn check_physics<B: RegionBuilder>(rig: &Rig<B>, tree: &mut LodTree, camera: &Camera) -> (usize, usize) {
    let (terrain, range) = (rig.streamer.terrain(), StreamSettings::default().physics_range_m);
    let (mut near, mut far) = (0, 0);
    for region in rig.streamer.shown_regions() {
        let bounds = tree.bounds(terrain, ColumnKey::of(region.key));
        let distance = bounds.centre.distance(camera.position) - bounds.radius;
        if distance <= range {
            assert!(region.physics, "{}, {distance:.0} m away, has no physics", region.key);
            near += 1;
        } else if distance > 1.5 * range {
            assert!(!region.physics, "{}, {distance:.0} m away, kept its physics", region.key);
            far += 1;
        }
    }
    (near, far)
}

/// Regions hold their physics near the camera only: built with them within
/// the physics range and without beyond it, given them (not built again)
/// as the camera comes near, and kept without them once left behind.
#[test]
fn physics_follow_the_camera() {
    let mut rig = rig(FakeBuilder::default(), 0, 256 << 20);
    let terrain = Arc::clone(rig.streamer.terrain());
    let mut tree = LodTree::new(&terrain, LodSettings::default());
    let here = camera_at(&terrain, 12.0, 20.0, 2.0, 90.0);
    settle(&mut rig, &here, 32);
    let (near, far) = check_physics(&rig, &mut tree, &here);
    assert!(near > 50 && far > 50, "{near} regions within the physics range, {far} well beyond it");
    assert!(rig.builder.given_physics.lock().is_empty(), "a first build near the camera has its physics");
    let shown_here: Vec<RegionKey> = rig.streamer.shown_regions().map(|r| r.key).collect();
    // Fly 5 km east at 2 m, 250 m a step, checking as it goes.
    let degrees_per_m = 180.0 / std::f64::consts::PI / f64::from(terrain.recipe.radius_m);
    for step in 1..=20 {
        let camera = camera_at(&terrain, 12.0, 20.0 + f64::from(step) * 250.0 * degrees_per_m, 2.0, 90.0);
        settle(&mut rig, &camera, 32);
        check_physics(&rig, &mut tree, &camera);
    }
    let built = rig.builder.built.lock().clone();
    assert_eq!(built.iter().collect::<BTreeSet<_>>().len(), built.len(), "a region was built twice");
    let given = rig.builder.given_physics.lock().clone();
    assert!(given.len() > 50, "only {} regions were given their physics on the way", given.len());
    // Whatever was given physics was built before without them.
    assert!(given.iter().all(|k| built.contains(k)));
    // What the camera left behind is kept without its physics.
    let in_use: BTreeSet<RegionKey> = rig.streamer.shown_regions().map(|r| r.key).collect();
    let cache = rig.cache.lock();
    let mut left = 0;
    for key in shown_here.iter().filter(|k| !in_use.contains(k)) {
        if let Some(region) = cache.peek(&RegionId::new(rig.streamer.signature(), *key)) {
            assert!(!region.physics, "{key}, left behind, kept its physics");
            left += 1;
        }
    }
    assert!(left > 50, "only {left} regions left behind are still cached");
}

/// A column the camera comes down to splits, and until its children are in
/// it is shown as their fallback: it keeps the physics it had as a leaf (a
/// walker stands on it), and lets them go once its children cover it.
#[test]
fn a_fallback_column_keeps_its_physics_while_shown() {
    let mut rig = rig(FakeBuilder::default(), 0, 256 << 20);
    let terrain = Arc::clone(rig.streamer.terrain());
    settle(&mut rig, &camera_at(&terrain, 12.0, 20.0, 400.0, 90.0), 64);
    let physical: BTreeSet<RegionKey> = rig.streamer.shown_regions().filter(|r| r.physics).map(|r| r.key).collect();
    let down = camera_at(&terrain, 12.0, 20.0, 2.0, 90.0);
    rig.streamer.update(&down);
    let grid = rig.streamer.tree().grid().clone();
    let fallbacks: Vec<ColumnKey> =
        rig.streamer.visible().iter().copied().filter(|&c| rig.streamer.tree().is_split(c)).collect();
    // The leaves with physics at 400 m that are fallbacks now.
    let held: Vec<Arc<BuiltRegion>> = fallbacks
        .iter()
        .flat_map(|c| c.regions(&grid))
        .filter(|k| physical.contains(k))
        .filter_map(|k| rig.streamer.region(k))
        .collect();
    assert!(held.len() >= 4, "{} fallback regions shown after the descent had physics", held.len());
    for region in &held {
        assert!(region.physics, "{}, shown as a fallback under the camera, lost its physics", region.key);
    }
    settle(&mut rig, &down, 64);
    let cache = rig.cache.lock();
    for region in &held {
        let now = cache.peek(&RegionId::new(rig.streamer.signature(), region.key)).expect("split columns stay built");
        assert!(!now.physics, "{}, covered by its children, kept its physics", region.key);
    }
}

#[test]
fn the_cache_keeps_to_its_budget_without_dropping_what_is_shown() {
    let one = FakeBuilder::default().build(RegionKey::default(), &CancelToken::new()).unwrap().bytes();
    let mut rig = rig(FakeBuilder::default(), 0, one * 900);
    let terrain = Arc::clone(rig.streamer.terrain());
    for (i, lon) in [0.0, 60.0, 120.0, 180.0, 240.0].into_iter().enumerate() {
        let camera = camera_at(&terrain, 5.0 * i as f64, lon, 2.0, 90.0);
        settle(&mut rig, &camera, 64);
        let held = rig.cache.lock().bytes();
        let shown: usize = rig.streamer.visible().iter().map(|c| c.regions(rig.streamer.tree().grid()).len()).sum();
        assert!(held <= (one * 900).max(shown * one), "{held} bytes held for {shown} shown regions");
        check_exact_cover(rig.streamer.tree().grid(), rig.streamer.visible()).unwrap();
    }
    // After five places the cache would hold far more than 900 regions unchecked.
    assert!(rig.builder.built.lock().len() > 1500);
}

#[test]
fn work_the_camera_leaves_behind_is_cancelled() {
    let mut rig = rig(FakeBuilder::default(), 0, 64 << 20);
    let terrain = Arc::clone(rig.streamer.terrain());
    // Queue a surface's worth of work, run none of it, and leave for orbit.
    let ground = camera_at(&terrain, 12.0, 20.0, 2.0, 90.0);
    let queued = rig.streamer.update(&ground).submitted;
    assert!(queued > 300, "{queued}");
    let orbit = camera_at(&terrain, 12.0, 20.0, 30_000.0, 90.0);
    let report = rig.streamer.update(&orbit);
    assert!(report.cancelled + 50 > queued, "{} of {queued} cancelled", report.cancelled);
    settle(&mut rig, &orbit, 1000);
    // Nothing fine was built: only what orbit wants (and the roots).
    let built = rig.builder.built.lock();
    let max_lod = rig.streamer.tree().grid().max_lod;
    assert!(built.iter().all(|k| k.lod + 4 >= max_lod), "{:?}", built.iter().map(|k| k.lod).min());
    let stats = rig.jobs.stats();
    assert!(stats.kinds["region"].cancelled as usize >= report.cancelled);
}

#[test]
fn holes_fill_coarse_first_then_near_before_far() {
    let mut rig = rig(FakeBuilder::default(), 0, 64 << 20);
    let terrain = Arc::clone(rig.streamer.terrain());
    let camera = camera_at(&terrain, 12.0, 20.0, 2.0, 90.0);
    settle(&mut rig, &camera, 16);
    let built = rig.builder.built.lock();
    let max_lod = rig.streamer.tree().grid().max_lod;
    // The first frame's work (16 jobs) goes to the holes, coarsest first: the
    // six roots, then the coarsest wanted columns.
    assert!(built[..6].iter().all(|k| k.lod == max_lod), "{:?}", &built[..6]);
    assert!(built[6..16].iter().all(|k| k.lod + 2 >= max_lod), "{:?}", &built[6..16]);
    // With the planet covered, regions in view before the rest, nearer first.
    let mut tree = LodTree::new(&terrain, LodSettings::default());
    let mut bounds = |k: &RegionKey| tree.bounds(&terrain, ColumnKey::of(*k));
    let later = &built[16..];
    let in_view: Vec<bool> = later
        .iter()
        .map(|k| {
            let b = bounds(k);
            camera.sees(b.centre, b.radius)
        })
        .collect();
    let first_behind = in_view.iter().position(|&a| !a).unwrap_or(in_view.len());
    let late = in_view[first_behind..].iter().filter(|&&a| a).count();
    assert_eq!(late, 0, "{late} regions in view built after one behind");
    let centre =
        |k: &RegionKey| LodTree::new(&terrain, LodSettings::default()).bounds(&terrain, ColumnKey::of(*k)).centre;
    let lod0: Vec<f64> =
        later[..first_behind].iter().filter(|k| k.lod == 0).map(|k| centre(k).distance(camera.position)).collect();
    assert!(lod0.len() > 20);
    let (near, far) = lod0.split_at(lod0.len() / 2);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert!(mean(near) < mean(far), "near half {} m, far half {} m", mean(near), mean(far));
}

/// The voxel, mesh, scatter and collider hashes of every region ready when
/// a short descent ends (and how many objects they hold, and how many
/// regions hold edits: six digs in a row and a fill under its end, made
/// halfway down).
fn descent_hashes(threads: usize) -> (Vec<(RegionKey, [Signature; 4])>, usize, usize) {
    let (signature, terrain) = home();
    let builder = Arc::new(PlanetBuilder::new(Arc::clone(&terrain)));
    let jobs = Arc::new(RegionJobs::new(threads));
    let cache = Arc::new(Mutex::new(RegionCache::new(256 << 20)));
    let settings = StreamSettings { lod: LodSettings { min_lod: 3, ..Default::default() }, ..Default::default() };
    let mut streamer = Streamer::new(signature, Arc::clone(&terrain), builder, jobs.clone(), cache, settings);
    let path = CameraPath::builtin("descent").unwrap();
    let below = path.camera(&terrain, 45.0).position.normalize();
    let ground = below * f64::from(terrain.recipe.radius_m + terrain.surface_at(below.as_vec3()).surface_m);
    for frame in 0..=45 {
        let camera = path.camera(&terrain, f64::from(frame));
        if frame == 20 {
            use planet::edit::{Brush, Edit, Operation};
            let at = |along: f64| (ground + below.any_orthonormal_vector() * along).as_vec3().to_array();
            for i in 0..6 {
                let dig = Edit {
                    op: Operation::Dig,
                    brush: Brush::Sphere { radius_m: 16.0 },
                    centre: at(f64::from(i) * 60.0),
                    material: 0,
                };
                streamer.edit(dig).unwrap();
            }
            let fill = Edit {
                op: Operation::Fill,
                brush: Brush::Box { half_m: [3.0, 5.0, 3.0], yaw_deg: 30.0 },
                centre: at(12.0),
                material: 1,
            };
            streamer.edit(fill).unwrap();
        }
        if threads == 0 {
            jobs.run_pending(8);
        } else {
            std::thread::sleep(Duration::from_millis(5));
        }
        streamer.update(&camera);
    }
    let camera = path.camera(&terrain, 45.0);
    // Bounded by updates (the settled set does not depend on how many it takes).
    let mut updates = 0;
    while !streamer.is_settled() {
        if threads == 0 {
            jobs.run_pending(8);
        } else {
            // Pacing only: the jobs' results are applied by the streamer.
            std::thread::sleep(Duration::from_millis(5));
        }
        streamer.update(&camera);
        updates += 1;
        assert!(updates < 20_000, "not settled after {updates} updates ({threads} threads)");
    }
    let mut objects = 0;
    let mut edited = 0;
    let mut tree = LodTree::new(&terrain, LodSettings::default());
    let range = settings.physics_range_m;
    let (mut near, mut far) = (0, 0);
    let hashes = streamer
        .wanted()
        .iter()
        .flat_map(|c| c.regions(streamer.tree().grid()))
        .map(|k| {
            let r = streamer.region(k).expect("settled regions are ready");
            let scatter = r.scatter.as_ref().expect("the engine scatters every region");
            objects += scatter.objects.len();
            edited += usize::from(r.stamp != 0);
            // Within the physics range a region has its collider; well
            // beyond it, none; between, as the path left it.
            let bounds = tree.bounds(&terrain, ColumnKey::of(k));
            let distance = bounds.centre.distance(camera.position) - bounds.radius;
            let collider = r.collider.as_ref().map(|c| c.signature());
            near += usize::from(distance <= range);
            far += usize::from(distance > 1.5 * range);
            if distance <= range {
                assert!(r.physics && collider.is_some(), "{k}, {distance:.0} m away, has no collider");
            } else if distance > 1.5 * range {
                assert!(!r.physics && collider.is_none(), "{k}, {distance:.0} m away, kept its collider");
            }
            let collider = if distance <= range { collider.unwrap_or(Signature(0)) } else { Signature(0) };
            (k, [r.voxels, r.mesh.signature(), scatter.signature(), collider])
        })
        .collect();
    assert!(near > 50 && far > 50, "{near} regions within the physics range, {far} well beyond it");
    (hashes, objects, edited)
}

/// Voxels, meshes, scatter (the same objects whichever neighbours were
/// built first) and colliders (with their trunks and boulders), edits
/// made halfway down included.
#[test]
fn ready_regions_are_the_same_with_one_thread_and_two() {
    let (single, objects, edited) = descent_hashes(0);
    assert!(single.len() > 100 && objects > 1_000, "{} regions, {objects} objects", single.len());
    assert!(edited >= 4, "only {edited} settled regions hold the edits");
    assert_eq!(single, descent_hashes(1).0);
    assert_eq!(single, descent_hashes(2).0);
}

#[test]
fn a_camera_far_from_the_planet_wants_only_the_roots() {
    let mut rig = rig(FakeBuilder::default(), 0, 64 << 20);
    let camera = Camera::new(DVec3::new(0.0, 0.0, 1.0e7), DVec3::NEG_Z);
    settle(&mut rig, &camera, 8);
    assert_eq!(rig.streamer.wanted(), rig.streamer.tree().roots());
    assert_eq!(rig.builder.built.lock().len(), 6);
}
