//! The player without a window: the flying speed law, the floor under a
//! flying camera, the walk toggle, and walking into a cave, each driven by
//! frames of input as the flight client drives it.

use std::sync::Arc;

use engine::player::{EYE_M, Mode, Player, PlayerInput, flying_speed};
use engine::{Camera, ViewSpec, World, WorldSettings};
use planet::PlannedSystem;

fn world() -> World {
    let settings = WorldSettings { threads: 0, proxy_quads: 4, ..WorldSettings::default() };
    World::new(Arc::new(PlannedSystem::default_system()), settings)
}

fn player_at(world: &World, alt: f64, pitch: f64) -> Player {
    let (lat, lon) = engine::sunlit_land(world, 1);
    let view = ViewSpec { planet: 1, lat, lon, alt, pitch, ..ViewSpec::default() };
    Player::new(view.pose(world).expect("a valid view"))
}

#[test]
fn take_off_speed_grows_with_altitude_and_boost() {
    assert_eq!(flying_speed(0.0), 2.0);
    assert_eq!(flying_speed(-5.0), 2.0);
    assert_eq!(flying_speed(10.0), 17.0);
    assert_eq!(flying_speed(1e9), 20_000.0);
    let world = world();
    for alt in [2.0, 50.0, 1_000.0, 30_000.0] {
        for boost in [false, true] {
            let mut player = player_at(&world, alt, 10.0);
            let before = player.pose.position;
            let altitude = world.altitude(before);
            player.step(&world, &PlayerInput { forward: 1.0, boost, ..PlayerInput::default() }, 0.1);
            let want = flying_speed(altitude) * if boost { 5.0 } else { 1.0 };
            assert!((player.speed - want).abs() < 1e-9, "at {alt} m: {} m/s, want {want}", player.speed);
            let moved = player.pose.position.distance(before);
            assert!((moved - want * 0.1).abs() < 1e-6 * want.max(1.0), "at {alt} m: moved {moved} m in 0.1 s");
        }
    }
}

#[test]
fn a_flying_camera_never_goes_under_the_ground() {
    let world = world();
    // Straight down from 20 m, full speed, boosted: it stops at eye height.
    let mut player = player_at(&world, 20.0, -89.0);
    let down = PlayerInput { forward: 1.0, up: -1.0, boost: true, ..PlayerInput::default() };
    for frame in 0..200 {
        player.step(&world, &down, 1.0 / 30.0);
        let altitude = world.altitude(player.pose.position);
        assert!(altitude > EYE_M - 1e-6, "frame {frame}: {altitude:.4} m over the ground");
    }
    assert!((world.altitude(player.pose.position) - EYE_M).abs() < 1e-3, "it rests at eye height");
    assert!(matches!(player.mode, Mode::Fly));
}

#[test]
fn the_walk_key_toggles_once_per_press() {
    let world = world();
    let mut player = player_at(&world, 2.0, 0.0);
    let walk = PlayerInput { walk: true, ..PlayerInput::default() };
    let none = PlayerInput::default();
    let mut modes = Vec::new();
    for input in [walk, walk, walk, none, walk, none, none, walk] {
        player.step(&world, &input, 1.0 / 60.0);
        modes.push(player.walking());
    }
    assert_eq!(modes, [true, true, true, true, false, false, false, true]);
    // Nothing streamed: the walker waits for ground, holding still.
    assert_eq!(player.mode_name(), "walk (waiting for ground)");
    assert_eq!(player.speed, 4.0);
}

#[test]
fn walking_into_a_cave_reads_underground() {
    let mut world = world();
    let view = engine::view::sunlit_cave_mouth(&world, 1, 15.0).expect("the home planet has caves");
    let mut player = Player::new(view.pose(&world).expect("a valid view"));
    let dt = 1.0 / 6.0;
    let mut deepest: f64 = 0.0;
    for frame in 0..160 {
        world.update(&Camera::new(player.pose.position, player.pose.forward));
        // Walk mode on at once; wait for the ground; then walk ahead.
        let walk = frame == 0;
        let forward = if frame > 30 { 1.0 } else { 0.0 };
        player.step(&world, &PlayerInput { walk, forward, ..PlayerInput::default() }, dt);
        if let (_, Some(depth)) = player.altitude(&world) {
            deepest = deepest.max(depth);
        }
    }
    assert!(player.walking(), "still walking");
    assert!(deepest > 10.0, "deepest {deepest:.1} m underground: never walked into the cave");
}

#[test]
fn a_flying_camera_rises_out_of_ground_the_3d_noise_lifts() {
    // Over spots of the home planet where the voxels' ground stands a metre
    // or more above the 2D surface (which the floor is measured from), a
    // camera set down at eye height over that surface rises onto the ground.
    let mut world = world();
    let terrain = Arc::clone(world.planets[1].terrain());
    let (lat0, lon0) = engine::sunlit_land(&world, 1);
    let mut tried = 0;
    let mut lifted = 0;
    for i in 0..400 {
        let (lat, lon) = (lat0 + f64::from(i % 20) * 0.05, lon0 + f64::from(i / 20) * 0.05);
        let d = planet::terrain::lat_lon_direction(lat as f32, lon as f32);
        let Some(ground) = planet::edit::ground_radius(&terrain, &planet::edit::EditLog::new(), d) else { continue };
        let height = terrain.surface_height_at(d);
        let surface = terrain.recipe.radius_m + height;
        let sea = terrain.recipe.sea;
        if ground - surface < 1.0 || sea.enabled && height < sea.level_m + 1.0 {
            continue;
        }
        tried += 1;
        let view = ViewSpec { planet: 1, lat, lon, alt: EYE_M, pitch: -20.0, ..ViewSpec::default() };
        let mut player = Player::new(view.pose(&world).expect("a valid view"));
        let camera = Camera::new(player.pose.position, player.pose.forward);
        world.update(&camera);
        while !world.is_settled() {
            world.update(&camera);
        }
        player.step(&world, &PlayerInput::default(), 1.0 / 30.0);
        let eye = (player.pose.position - world.planets[1].position).length();
        assert!(
            eye > f64::from(ground) + EYE_M - 0.3,
            "at {lat:.3},{lon:.3}: the eye is {:.2} m over the voxels' ground ({:.2} m over the 2D surface)",
            eye - f64::from(ground),
            eye - f64::from(surface)
        );
        lifted += 1;
        if tried == 3 {
            break;
        }
    }
    assert!(lifted >= 2, "only {lifted} spots where the ground stands over the 2D surface");
}

/// A player left standing for a simulated day (the clock at 200x, a frame
/// a simulated 6.7 s) stays on the same spot of ground within 1 cm, and a
/// camera hovering 30 m up stays over the same ground within 1 cm: both
/// turn with the planet. Their poses in system space swept round the axis.
#[test]
fn a_player_left_standing_for_a_day_stays_on_the_spot() {
    let mut world = world();
    world.set_time_scale(200.0);
    let planet = 1usize;
    let day = world.planets[planet].spin.day_s;
    let mut walker = player_at(&world, 2.0, -10.0);
    let mut hover = player_at(&world, 30.0, -10.0);
    let dt = 1.0 / 30.0;
    // Walk mode on, then wait for the ground to stream in and the walker to land.
    for frame in 0..600 {
        world.update(&Camera::new(walker.pose.position, walker.pose.forward));
        walker.step(&world, &PlayerInput { walk: frame == 0, ..PlayerInput::default() }, dt);
        hover.step(&world, &PlayerInput::default(), dt);
        if world.is_settled() && walker.mode_name() == "walk" && frame > 60 {
            break;
        }
    }
    assert_eq!(walker.mode_name(), "walk", "the walker never landed");
    fn p(w: &World) -> &engine::WorldPlanet {
        &w.planets[1]
    }
    let (feet0, hover0) = (p(&world).to_local(walker.pose.position), p(&world).to_local(hover.pose.position));
    let (system0, start) = (walker.pose.position, world.clock().time_s());
    let mut farthest: f64 = 0.0;
    while world.clock().time_s() - start < day {
        world.advance_clock(dt);
        walker.step(&world, &PlayerInput::default(), dt);
        hover.step(&world, &PlayerInput::default(), dt);
        world.update(&Camera::new(walker.pose.position, walker.pose.forward));
        farthest = farthest.max(walker.pose.position.distance(system0));
    }
    let drift = p(&world).to_local(walker.pose.position).distance(feet0);
    let hover_drift = p(&world).to_local(hover.pose.position).distance(hover0);
    println!("a day of {day:.0} s: standing drift {drift:.4} m, hovering {hover_drift:.4} m, swept {farthest:.0} m");
    assert!(drift < 0.01, "the standing player drifted {drift:.4} m over the day");
    assert!(hover_drift < 0.01, "the hovering camera drifted {hover_drift:.4} m over the day");
    assert!(farthest > world.planets[planet].radius, "the planet never turned ({farthest:.0} m)");
}
