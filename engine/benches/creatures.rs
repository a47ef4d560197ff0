//! Creature update time per animal near the camera: `Creatures::update` on
//! a settled world over a herd of the home planet (the herds already brought
//! in, so the update places every animal: its pose from the clock, set down
//! on the walkable colliders), divided by the animals shown; and the same
//! update while the camera crosses new ground, herds planned as they come.
//!
//! `cargo bench -p engine --bench creatures`.

use std::sync::Arc;
use std::time::Duration;

use criterion::Criterion;
use engine::creatures::{CreatureSettings, Creatures};
use engine::physics::Colliders;
use engine::{Camera, World, WorldSettings};
use planet::PlannedSystem;
use planet::creatures::Fauna;

fn bench(c: &mut Criterion) {
    let mut world =
        World::new(Arc::new(PlannedSystem::default_system()), WorldSettings { threads: 2, ..WorldSettings::default() });
    let terrain = Arc::clone(world.planets[1].terrain());
    let fauna = Fauna::new(&terrain);
    // The first herd of a quadruped species, for a herd of several animals.
    let herd = fauna
        .grid
        .all()
        .step_by(5)
        .filter_map(|cell| fauna.herd(&terrain, cell))
        .find(|h| h.count >= 6)
        .expect("a herd on the home planet");
    let planet = &world.planets[1];
    let up = herd.home.as_dvec3();
    let local = up * (planet.radius + f64::from(terrain.surface_height_at(herd.home)) + 10.0);
    let camera = Camera::new(planet.to_system(local), up.any_orthonormal_vector());
    world.update(&camera);
    while !world.is_settled() {
        world.update(&camera);
        std::thread::sleep(Duration::from_millis(1));
    }
    let colliders = Colliders::walkable(&world.attached().expect("attached").streamer);
    let planet = &world.planets[1];
    let mut creatures = Creatures::new(5, CreatureSettings::default());
    creatures.update(planet, &colliders, local, 400.0);
    let shown = creatures.shown().len().max(1);
    let mut g = c.benchmark_group("creatures");
    g.bench_function("update_settled", |b| {
        let mut t = 400.0;
        b.iter(|| {
            t += 0.05;
            creatures.update(planet, &colliders, local, t);
        });
    });
    // Crossing the planet: every update 40 m on, herds planned as cells come in reach.
    let side = up.any_orthonormal_vector();
    g.bench_function("update_crossing", |b| {
        let mut crossing = Creatures::new(5, CreatureSettings::default());
        let mut step = 0.0f64;
        b.iter(|| {
            step += 1.0;
            let angle = step * 40.0 / planet.radius;
            let at = (up * libm::cos(angle) + side * libm::sin(angle)) * local.length();
            crossing.update(planet, &colliders, at, 400.0 + step);
        });
    });
    g.finish();
    eprintln!("{shown} animals shown over the herd (divide update_settled by it for a figure per animal)");
}

fn main() {
    let mut c = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(5)).configure_from_args();
    bench(&mut c);
    c.final_summary();
}
