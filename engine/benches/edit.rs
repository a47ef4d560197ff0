//! Edit latency: from a 4 m dig at the feet of a player standing in the home
//! planet's forest to the frame whose shown regions hold it (every region it
//! touches that is shown or wanted, at every LOD, rebuilt on two job threads
//! and switched in together), on a settled world. The target is 100 ms.
//! The same for a 4 m smooth, its surface fitted when it is made.
//!
//! `cargo bench -p engine --bench edit`; each iteration digs at the next of
//! twelve spots on a 6 m ring around the feet into a world whose edits were
//! cleared and streamed back in between (untimed): one edit's latency, not
//! that of a region holding hundreds (a region's build grows with its edits:
//! see README, "Edits").

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use engine::{Camera, ViewSpec, World, WorldSettings};
use planet::PlannedSystem;
use planet::edit::save::Save;
use planet::edit::{Brush, Edit, Operation, Surface};

const VIEW: &str = "planet=1,lat=-22.3233,lon=-16.7839,alt=1.7,heading=30,pitch=-10";

fn settle(world: &mut World, camera: &Camera) {
    while !world.is_settled() {
        world.update(camera);
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn bench(c: &mut Criterion) {
    let mut world =
        World::new(Arc::new(PlannedSystem::default_system()), WorldSettings { threads: 2, ..WorldSettings::default() });
    let pose = VIEW.parse::<ViewSpec>().unwrap().pose(&world).unwrap();
    let camera = Camera::new(pose.position, pose.forward);
    world.update(&camera);
    settle(&mut world, &camera);
    let planet = &world.planets[1];
    let local = pose.position - planet.position;
    let feet = local.normalize() * (planet.radius + world.ground_height(planet, pose.position));
    let terrain = Arc::clone(planet.terrain());
    let key = terrain.surface_key(feet.as_vec3().normalize(), 0);
    let up = feet.normalize();
    let side = up.any_orthonormal_vector();
    let spots: Vec<Edit> = (0..12)
        .map(|i| {
            let a = f64::from(i) / 12.0 * core::f64::consts::TAU;
            let at = feet + (side * a.cos() + up.cross(side) * a.sin()) * 6.0;
            let centre = at.normalize() * (planet.radius + world.ground_height(planet, planet.position + at));
            Edit {
                op: Operation::Dig,
                brush: Brush::Sphere { radius_m: 4.0 },
                centre: centre.as_vec3().to_array(),
                material: 0,
            }
        })
        .collect();
    let mut touched = 0;
    let mut next = 0;
    // Into a clean world, and into one whose regions there already hold a
    // hundred digs (the build of a region grows with its edits).
    let clean = Save::new(world.system.signature(), world.planets.len());
    // Made as a player makes it (compacted, and baked where 48 crowd a region).
    for i in 0..100 {
        let radius_m = 4.0 + i as f32 * 1e-3;
        world.edit(1, Edit { brush: Brush::Sphere { radius_m }, ..spots[i % spots.len()] }).unwrap();
    }
    let crowded = world.save();
    eprintln!("100 digs: {} edits kept, {} regions baked", crowded.planets[1].len(), crowded.bakes[1].len());
    // And a smooth, whose surface is fitted to the LOD-0 ground when it is
    // made (on the caller's thread, inside the timed span).
    let smooth = Operation::Smooth(Surface::FLAT);
    for (name, start_from, op) in [
        ("dig_4m_at_the_feet_to_shown", clean.clone(), Operation::Dig),
        ("dig_4m_at_the_feet_to_shown_after_100_digs", crowded, Operation::Dig),
        ("smooth_4m_at_the_feet_to_shown", clean, smooth),
    ] {
        world.load(&start_from).unwrap();
        settle(&mut world, &camera);
        c.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    // Never the same edit twice: a repeat would find its builds in the cache.
                    let radius_m = 4.0 + (next / spots.len()) as f32 * 1e-4;
                    let dig = Edit { op, brush: Brush::Sphere { radius_m }, ..spots[next % spots.len()] };
                    next += 1;
                    let start = Instant::now();
                    touched = world.edit(1, dig).unwrap();
                    let stamp = world.edits(1).stamp(key);
                    loop {
                        world.update(&camera);
                        let streamer = &world.attached().unwrap().streamer;
                        if streamer.region(key).is_some_and(|r| r.stamp == stamp) {
                            break;
                        }
                        std::thread::sleep(Duration::from_micros(200));
                    }
                    total += start.elapsed();
                    world.load(&start_from).unwrap();
                    settle(&mut world, &camera);
                }
                total
            });
        });
    }
    eprintln!("a 4 m dig touches {touched} regions at every LOD");
}

fn main() {
    let mut c = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(10)).configure_from_args();
    bench(&mut c);
    c.final_summary();
}
