//! Render tests on the device (Mesa's lavapipe in CI; `.ci/run` installs
//! it): what a person would see, checked pixel by pixel.
//!
//! - A planet from orbit fills the disc of pixels its radius predicts.
//! - A surface view has sky above the horizon and, below it, no pixel of the
//!   clear colour: every ray that must hit the ground hits a triangle.
//! - The same view, streamed and drawn twice from scratch, is byte-identical,
//!   whether the planets were made before the renderer or while it streamed.
//! - A capture's figures count the meshes it uploaded.
//! - A night landing shows the ground and the horizon.
//! - A forest drawn with one indirect multi-draw for its objects is
//!   byte-identical to it drawn with one instanced draw per batch.
//! - The survey's hole count is zero over a streamed planet.

use std::sync::Arc;
use std::time::Duration;

use engine::{ViewSpec, World, WorldSettings};
use glam::{DVec3, Vec4};
use image::RgbaImage;
use render::{Capture, RenderOptions, ViewCamera};

const MAGENTA: [u8; 4] = [255, 0, 255, 255];
const SIZE: (u32, u32) = (320, 180);

fn capture() -> Capture {
    capture_of(World::new(
        Arc::new(planet::PlannedSystem::default_system()),
        WorldSettings { threads: 2, ..WorldSettings::default() },
    ))
}

fn capture_of(world: World) -> Capture {
    Capture::new(world, SIZE).expect("a Vulkan device (install mesa-vulkan-drivers for lavapipe)")
}

/// Streams `view` until settled and draws it; with `sky: false` the clear
/// colour is magenta wherever nothing was drawn.
fn shoot(capture: &mut Capture, view: &str, sky: bool) -> (RgbaImage, ViewCamera) {
    let view: ViewSpec = view.parse().unwrap();
    let camera = ViewCamera::new(view.pose(&capture.world).unwrap());
    assert!(capture.settle(&camera, Duration::from_secs(120)), "{view:?} did not settle");
    let clear = if sky { [0.0, 0.0, 0.0, 1.0] } else { [1.0, 0.0, 1.0, 1.0] };
    let options = RenderOptions { sky, clear, time: 100.0, lights: sky };
    let before = capture.renderer.uploaded_bytes();
    let (image, stats) = capture.draw(&camera, &options).unwrap();
    // The draw's figures count what it uploaded (everything, on a fresh capture).
    assert!(stats.draws > 0 && stats.resident_regions > 0, "{stats:?}");
    assert_eq!(stats.uploaded_bytes, capture.renderer.uploaded_bytes() - before, "{stats:?}");
    assert!(before > 0 || stats.uploaded_bytes > 0, "{stats:?}");
    (image, camera)
}

/// The camera ray through the centre of pixel (x, y).
fn ray(camera: &ViewCamera, x: u32, y: u32) -> DVec3 {
    let inverse = camera.view_proj(SIZE.0 as f32 / SIZE.1 as f32).inverse();
    let ndc = [(x as f32 + 0.5) / SIZE.0 as f32 * 2.0 - 1.0, 1.0 - (y as f32 + 0.5) / SIZE.1 as f32 * 2.0];
    let p = inverse * Vec4::new(ndc[0], ndc[1], 0.5, 1.0);
    (p.truncate() / p.w).as_dvec3().normalize()
}

/// Whether a ray from `origin` along `dir` meets the sphere of `radius` at `centre`.
fn hits(origin: DVec3, dir: DVec3, centre: DVec3, radius: f64) -> bool {
    let o = origin - centre;
    let b = o.dot(dir);
    let c = o.length_squared() - radius * radius;
    b * b - c >= 0.0 && (-b + (b * b - c).max(0.0).sqrt()) > 0.0
}

#[test]
fn a_planet_from_orbit_fills_its_disc() {
    let mut capture = capture();
    let (image, camera) = shoot(&mut capture, "planet=1,lat=10,lon=20,alt=9000,pitch=-90", false);
    let planet = &capture.world.planets[1];
    // The lowest and highest ground, with room for the chords of the coarsest
    // regions (a root region's triangles span degrees: they sag metres below
    // the sphere through their corners).
    let [low, high] = planet.proxy().radius_range_m.map(f64::from);
    let low = low - 30.0;
    let (mut drawn, mut inside_low, mut outside_high, mut misses) = (0u32, 0u32, 0u32, 0u32);
    let (mut cx, mut cy) = (0f64, 0f64);
    for (x, y, p) in image.enumerate_pixels() {
        let d = ray(&camera, x, y);
        let is_drawn = p.0 != MAGENTA;
        if is_drawn {
            drawn += 1;
            cx += f64::from(x);
            cy += f64::from(y);
        }
        // Rays that must hit the planet (its lowest ground) and rays that cannot
        // (beyond its highest ground, atmosphere not drawn without the sky).
        if hits(camera.pose.position, d, planet.position, low) {
            inside_low += 1;
            misses += u32::from(!is_drawn);
        } else if !hits(camera.pose.position, d, planet.position, high + 1.0) {
            outside_high += u32::from(is_drawn);
        }
    }
    assert!(inside_low > 5000, "the disc is too small to test: {inside_low} px");
    assert_eq!(misses, 0, "{misses} pixels inside the planet's disc show the clear colour");
    assert_eq!(outside_high, 0, "{outside_high} pixels outside the planet's disc are drawn");
    let (cx, cy) = (cx / f64::from(drawn), cy / f64::from(drawn));
    assert!((cx - 160.0).abs() < 3.0 && (cy - 90.0).abs() < 3.0, "disc centred at ({cx:.1}, {cy:.1})");
}

/// The night side reads: standing at midnight (`planet=1,night`), the
/// ground under the horizon is lit by starlight and the night exposure well
/// above black (a mean luma of 65 of 255; 13 without the night light and exposure), and brighter
/// than the sky over it, so the horizon shows.
#[test]
fn a_night_landing_shows_the_ground_and_the_horizon() {
    let mut capture = capture();
    let (image, camera) = shoot(&mut capture, "planet=1,night", true);
    let planet = &capture.world.planets[1];
    let low = f64::from(planet.proxy().radius_range_m[0]) - 30.0;
    let up = (camera.pose.position - planet.position).normalize();
    let luma =
        |p: &image::Rgba<u8>| 0.2126 * f64::from(p.0[0]) + 0.7152 * f64::from(p.0[1]) + 0.0722 * f64::from(p.0[2]);
    let (mut ground, mut ground_n, mut sky, mut sky_n) = (0.0, 0u32, 0.0, 0u32);
    for (x, y, p) in image.enumerate_pixels() {
        let d = ray(&camera, x, y);
        if hits(camera.pose.position, d, planet.position, low) {
            ground += luma(p);
            ground_n += 1;
        } else if d.dot(up) > 0.1 {
            // Well above the horizon (and any hill on it).
            sky += luma(p);
            sky_n += 1;
        }
    }
    assert!(ground_n > 10_000 && sky_n > 5_000, "{ground_n} ground and {sky_n} sky pixels");
    let (ground, sky) = (ground / f64::from(ground_n), sky / f64::from(sky_n));
    eprintln!("night: ground {ground:.1}, sky {sky:.1} of 255 (mean luma)");
    assert!(ground > 30.0, "the night ground is too dark to read: mean luma {ground:.1} of 255");
    assert!(ground > sky * 2.0, "no horizon: ground {ground:.1} against sky {sky:.1}");
}

#[test]
fn a_surface_view_has_sky_above_and_no_holes_below() {
    let mut capture = capture();
    let view = "planet=1,lat=-30,lon=-90,alt=25,heading=60,pitch=-8";
    let (image, camera) = shoot(&mut capture, view, false);
    let planet = &capture.world.planets[1];
    // Below the lowest ground any ray must hit a triangle: the lowest proxy
    // sample less a margin for what the proxy's samples miss.
    let floor = f64::from(planet.proxy().radius_range_m[0]) - 100.0;
    let (mut must_hit, mut holes, mut open) = (0u32, Vec::new(), 0u32);
    for (x, y, p) in image.enumerate_pixels() {
        let d = ray(&camera, x, y);
        if hits(camera.pose.position, d, planet.position, floor) {
            must_hit += 1;
            if p.0 == MAGENTA {
                holes.push((x, y));
            }
        } else if p.0 == MAGENTA {
            open += 1;
        }
    }
    assert!(must_hit > 10_000, "too little ground in view: {must_hit} px");
    assert!(holes.is_empty(), "{} holes below the horizon, first at {:?}", holes.len(), holes.first());
    assert!(open > 2_000, "no open sky above the horizon ({open} px)");

    // With the sky drawn: the top row is sky (blue over red), the bottom row is ground.
    let (image, _) = shoot(&mut capture, view, true);
    let top_blue = (0..SIZE.0).filter(|&x| image.get_pixel(x, 0).0[2] > image.get_pixel(x, 0).0[0]).count();
    assert!(top_blue as u32 > SIZE.0 * 9 / 10, "the sky is not blue: {top_blue} of {} px", SIZE.0);
    let bottom = image.get_pixel(SIZE.0 / 2, SIZE.1 - 1).0;
    assert_ne!(bottom, image.get_pixel(SIZE.0 / 2, 0).0, "the ground looks like the sky");
}

/// The same view, streamed and drawn twice from scratch: once with every
/// planet made before the renderer existed (it uploads every proxy at
/// once), once entered at planet 1 with the others made in the background
/// while it streams (their proxies uploaded as they come).
#[test]
fn the_same_view_renders_byte_identical_twice() {
    let view = "planet=1,lat=-30,lon=-90,alt=40,heading=200,pitch=-15";
    let system = || Arc::new(planet::PlannedSystem::default_system());
    let settings = WorldSettings { threads: 2, ..WorldSettings::default() };
    let mut made_first = {
        let world = World::new(system(), settings);
        for p in &world.planets {
            let _ = p.proxy();
        }
        capture_of(world)
    };
    let entered = World::new_at(system(), settings, 1);
    // Planet 1's proxy is made after every other planet, by a background maker.
    assert!(entered.planets_made() < 5, "nothing was left to make in the background");
    let mut in_background = capture_of(entered);
    let (a, _) = shoot(&mut made_first, view, true);
    let (b, _) = shoot(&mut in_background, view, true);
    let differing = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    assert_eq!(differing, 0, "{differing} pixels differ between two renders of {view}");
    // And the picture is not blank.
    let first = a.get_pixel(0, 0);
    assert!(a.pixels().filter(|p| *p != first).count() > 10_000);
}

#[test]
fn indirect_object_draws_match_instanced_ones_pixel_for_pixel() {
    let view = "planet=1,lat=-22.3233,lon=-16.7839,alt=25,heading=30,pitch=-15";
    let mut capture = capture();
    if !capture.renderer.set_indirect(true) {
        eprintln!("skipped: {} has no indirect first instance", capture.renderer.gpu().describe());
        return;
    }
    let parsed: ViewSpec = view.parse().unwrap();
    let camera = ViewCamera::new(parsed.pose(&capture.world).unwrap());
    assert!(capture.settle(&camera, Duration::from_secs(120)), "{view} did not settle");
    let options = RenderOptions { sky: true, clear: [0.0, 0.0, 0.0, 1.0], time: 100.0, lights: true };
    let (indirect, a) = capture.draw(&camera, &options).unwrap();
    capture.renderer.set_indirect(false);
    let (direct, b) = capture.draw(&camera, &options).unwrap();
    assert!(a.object_batches > 10 && a.objects > 1_000, "a forest without objects: {a:?}");
    assert_eq!((a.object_draws, b.object_draws), (1, b.object_batches), "{a:?} {b:?}");
    assert_eq!((a.object_batches, a.objects, a.triangles), (b.object_batches, b.objects, b.triangles));
    let differing = indirect.pixels().zip(direct.pixels()).filter(|(p, q)| p != q).count();
    assert_eq!(differing, 0, "{differing} pixels differ between indirect and direct object draws");
}

/// Pixels inside `planet`'s lowest-ground disc that show the clear colour.
fn holes_in_disc(image: &RgbaImage, camera: &ViewCamera, centre: DVec3, low: f64) -> (u32, u32) {
    let (mut inside, mut holes) = (0, 0);
    for (x, y, p) in image.enumerate_pixels() {
        if hits(camera.pose.position, ray(camera, x, y), centre, low) {
            inside += 1;
            holes += u32::from(p.0 == MAGENTA);
        }
    }
    (inside, holes)
}

#[test]
fn a_flight_to_another_planet_never_shows_a_hole() {
    // The client's way: a few frames of streaming at each point, drawn as it
    // stands, never waiting for anything to settle.
    let mut capture = capture();
    let (from, to) = (&capture.world.planets[1], &capture.world.planets[2]);
    let (a, ra, b, rb) = (from.position, from.radius, to.position, to.radius);
    let low_b = f64::from(to.proxy().radius_range_m[0]) - 30.0;
    let low_a = f64::from(from.proxy().radius_range_m[0]) - 30.0;
    let out = (b - a).normalize();
    let stops = [
        // Leaving planet 1: looking back down at it from 3 radii.
        (a + out * ra * 3.0, a, 1),
        // Halfway: planet 2 ahead, both proxies.
        ((a + b) * 0.5, b, 2),
        // Arriving: 3 radii out from planet 2, attached, regions coming in.
        (b - out * rb * 3.0, b, 2),
        // Low over planet 2, looking at its centre.
        (b - out * (rb + 400.0), b, 2),
    ];
    let mut attached = Vec::new();
    let mut time = 0.0;
    for (position, target, planet) in stops {
        let pose = engine::Pose::looking(position, target - position, DVec3::Y);
        let camera = ViewCamera::new(pose);
        // Drawn on the first frame at each stop (nothing streamed yet for a
        // planet just reached), again a second later with nothing streamed in
        // between (every fade has run its course), and six frames later.
        for frames in [1, 0, 6] {
            for _ in 0..frames {
                capture.world.update(&camera.engine_camera(16.0 / 9.0));
                std::thread::sleep(Duration::from_millis(16));
            }
            time += 1.0;
            let options = RenderOptions { sky: false, clear: [1.0, 0.0, 1.0, 1.0], time, lights: false };
            let stats =
                capture.renderer.render(&capture.world, &camera, &capture.target.view, &capture.target.depth, &options);
            assert!(stats.draws > 0);
            let image = capture.target.read(capture.renderer.gpu()).unwrap();
            let (centre, low) = if planet == 1 { (a, low_a) } else { (b, low_b) };
            let (inside, holes) = holes_in_disc(&image, &camera, centre, low);
            assert!(inside > 0, "planet {planet} is not in view from {position}");
            assert_eq!(holes, 0, "{holes} of {inside} px of planet {planet}'s disc are holes at {position}");
        }
        attached.push(capture.world.attached().map(|a| a.planet));
    }
    // The streamer followed the camera: planet 1, open space, then planet 2.
    assert_eq!(attached, vec![Some(1), None, Some(2), Some(2)]);
}

#[test]
fn the_survey_s_hole_count_is_zero_over_a_streamed_planet() {
    let mut capture = capture();
    let (_, camera) = shoot(&mut capture, "planet=1,lat=10,lon=20,alt=9000,pitch=-90", true);
    let holes = render::holes_in_view(&mut capture, &camera, 1).unwrap();
    assert!(holes.inside > 5_000 && holes.holes == 0, "from orbit: {holes:?}");
}
