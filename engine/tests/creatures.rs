//! Animals near the camera: leaving and coming back a thousand times at
//! random clock times finds every animal where its path puts it (none
//! twice, none missing, the same as an animal watched all along); animals
//! shown stand on walkable ground and never in the sea; scared ones run and
//! come back, and a save carries the record.

use std::sync::Arc;

use engine::creatures::{CreatureSettings, Creatures, set_down};
use engine::nav::NavGraph;
use engine::physics::Colliders;
use engine::{Camera, World, WorldSettings};
use glam::DVec3;
use planet::PlannedSystem;
use planet::creatures::{Change, Daylight, Fauna, Herd};
use planet::hash::HashStream;

fn world() -> World {
    let settings = WorldSettings { threads: 2, proxy_quads: 8, ..WorldSettings::default() };
    World::new(Arc::new(PlannedSystem::default_system()), settings)
}

fn settle(world: &mut World, planet: u32, local: (DVec3, DVec3)) {
    let camera = camera(world, planet, local);
    for _ in 0..40_000 {
        world.update(&camera);
        if world.is_settled() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    panic!("the world never settled");
}

/// Herds of `planet`, a few hundred cells apart, picked by `seed`.
fn some_herds(world: &World, planet: u32, seed: u64, n: usize) -> Vec<Herd> {
    let terrain = &world.planets[planet as usize].terrain();
    let fauna = Fauna::new(terrain);
    let all: Vec<_> = fauna.grid.all().collect();
    let mut s = HashStream::new(seed);
    let mut out = Vec::new();
    while out.len() < n {
        if let Some(h) = fauna.herd(terrain, all[s.index(all.len())]) {
            out.push(h);
        }
    }
    out
}

/// A camera 12 m over a herd's home, planet-local, looking along the ground.
fn over(herd: &Herd, world: &World, planet: u32) -> (DVec3, DVec3) {
    let p = &world.planets[planet as usize];
    let up = herd.home.as_dvec3();
    let ground = p.radius + f64::from(p.terrain().surface_height_at(herd.home));
    (up * (ground + 12.0), up.any_orthonormal_vector())
}

fn camera(world: &World, planet: u32, local: (DVec3, DVec3)) -> Camera {
    let p = &world.planets[planet as usize];
    Camera::new(p.to_system(local.0), p.vector_to_system(local.1))
}

#[test]
fn leaving_and_returning_finds_every_animal_where_its_path_puts_it() {
    let mut world = world();
    let herds = some_herds(&world, 1, 77, 4);
    let home = over(&herds[0], &world, 1);
    for other in &herds[1..] {
        assert!(over(other, &world, 1).0.distance(home.0) > 1_000.0, "pick herds further apart");
    }
    settle(&mut world, 1, home);
    let colliders = Colliders::walkable(&world.attached().unwrap().streamer);
    let planet = &world.planets[1];
    let fauna = Fauna::new(planet.terrain());
    let daylight = Daylight::of_planet(planet.spin, planet.position);
    let settings = CreatureSettings::default();
    let mut roaming = Creatures::new(5, settings);
    // One that never leaves, updated as the clock crawls between the visits.
    let mut watcher = Creatures::new(5, settings);
    let mut s = HashStream::new(9);
    let mut time = 0.0;
    let (mut seen, mut visits_with_animals) = (0usize, 0usize);
    for cycle in 0..1_000 {
        // Away: another herd's ground, high above, or another planet.
        match cycle % 3 {
            0 => roaming.update(planet, &colliders, over(&herds[1 + (cycle / 3) % 3], &world, 1).0, time),
            1 => roaming.update(planet, &colliders, home.0 * 1.5, time),
            _ => roaming.update(&world.planets[2], &Colliders::default(), DVec3::Y * 9_000.0, time),
        }
        let next = time + if s.unit_f32() < 0.2 { s.range_f64(0.0, 1e7) } else { s.range_f64(0.0, 600.0) };
        // The watcher sees the time between, a few seconds a step.
        let steps = ((next - time) / 5.0).ceil().min(40.0) as u32;
        for k in 1..=steps {
            watcher.update(planet, &colliders, home.0, time + (next - time) * f64::from(k) / f64::from(steps));
        }
        time = next;
        roaming.update(planet, &colliders, home.0, time);
        watcher.update(planet, &colliders, home.0, time);
        let shown = roaming.shown();
        let mut ids: Vec<u64> = shown.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), shown.len(), "cycle {cycle}: an animal shown twice");
        // Every animal of every herd brought in, where its path puts it.
        let mut expected = Vec::new();
        for herd in roaming.herds() {
            let species = &fauna.species[usize::from(herd.species)];
            for m in 0..herd.count {
                let pose = herd.pose(species, m, &daylight, time);
                if let Some((feet, _)) = set_down(&colliders, &pose) {
                    expected.push((herd.member_id(m), feet));
                }
            }
        }
        assert_eq!(shown.len(), expected.len(), "cycle {cycle} at t = {time}: animals missing or extra");
        for (c, (id, feet)) in shown.iter().zip(&expected) {
            assert_eq!(c.id, *id, "cycle {cycle}");
            assert!(c.position.distance(*feet) < 1e-9, "cycle {cycle}: {} off its path", c.id);
        }
        // The same as the one that watched all along.
        let watched: Vec<(u64, DVec3)> = watcher.shown().iter().map(|c| (c.id, c.position)).collect();
        let now: Vec<(u64, DVec3)> = shown.iter().map(|c| (c.id, c.position)).collect();
        assert_eq!(now, watched, "cycle {cycle}: coming back differs from staying");
        seen += shown.len();
        visits_with_animals += usize::from(!shown.is_empty());
    }
    assert!(visits_with_animals > 900, "only {visits_with_animals} visits found animals");
    // Each return plans its herds again: the cost follows the ground visited.
    assert!(roaming.planned() > 1_000, "{}", roaming.planned());
    eprintln!("{seen} animals checked over 1,000 returns; {} herds planned", roaming.planned());
}

#[test]
fn animals_near_the_camera_stand_on_walkable_ground_and_never_in_the_sea() {
    let mut world = world();
    let mut places: Vec<(u32, Herd)> = Vec::new();
    for (planet, n) in [(1u32, 3usize), (0, 1), (2, 1), (4, 1)] {
        places.extend(some_herds(&world, planet, 1000 + u64::from(planet), n).into_iter().map(|h| (planet, h)));
    }
    let mut s = HashStream::new(21);
    let (mut checked, mut hidden) = (0usize, 0usize);
    for (planet, herd) in &places {
        let local = over(herd, &world, *planet);
        settle(&mut world, *planet, local);
        // The camera stays put on the ground as the clock moves: the regions do too.
        let nav = NavGraph::shown(&world.attached().unwrap().streamer);
        for _ in 0..10 {
            world.set_time(s.range_f64(0.0, 1e6));
            let cam = camera(&world, *planet, local);
            world.update(&cam);
            let p = &world.planets[*planet as usize];
            let sea = p.radius + f64::from(p.terrain().recipe.sea.level_m);
            let members: usize = world.creature_state().herds().map(|h| usize::from(h.count)).sum();
            hidden += members - world.creatures().len();
            for c in world.creatures() {
                if c.position.distance(local.0) > 120.0 {
                    continue;
                }
                checked += 1;
                assert!(
                    nav.locate(c.position, 0.2).is_some(),
                    "planet {planet} herd {}: animal {:x} at {:?} is not within 0.2 m of walkable ground",
                    herd.cell,
                    c.id,
                    c.position
                );
                if p.terrain().recipe.sea.enabled {
                    assert!(c.position.length() > sea, "planet {planet}: animal {:x} in the sea", c.id);
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} animals near the camera");
    eprintln!("{checked} animals near the camera on walkable ground; {hidden} not shown (no walkable ground)");
}

#[test]
fn a_scared_animal_runs_comes_back_and_a_save_keeps_the_record() {
    let mut world = world();
    let herd = &some_herds(&world, 1, 5, 1)[0];
    let local = over(herd, &world, 1);
    world.set_time(1_000.0);
    settle(&mut world, 1, local);
    let first = *world.creatures().first().expect("animals near the herd's home");
    let at = world.planets[1].to_system(first.position + first.forward.as_dvec3() * 2.0);
    assert!(world.scare_creatures(at, 3.0) >= 1);
    let save = world.save();
    assert!(save.creatures[1].iter().any(|c| c.id == first.id && matches!(c.change, Change::Scared { .. })));
    let bytes = save.encode();
    let decoded = planet::edit::save::Save::decode(&bytes).unwrap();
    assert_eq!(decoded.creatures, save.creatures);
    // Two seconds on it has run away from what scared it.
    world.set_time(1_002.0);
    world.update(&camera(&world, 1, local));
    let now = world.creatures().iter().find(|c| c.id == first.id).copied().expect("still shown");
    let from = world.planets[1].to_local(at);
    assert!(now.position.distance(from) > first.position.distance(from) + 2.0);
    // A fresh world loading the save sees the same run.
    let mut other = self::world();
    other.load(&decoded).unwrap();
    other.set_time(1_002.0);
    settle(&mut other, 1, local);
    let there = other.creatures().iter().find(|c| c.id == first.id).copied().expect("shown after loading");
    assert!(there.position.distance(now.position) < 1e-6);
    // Once run and walked back it is on its path, and the record forgets it.
    world.set_time(1_000.0 + planet::creatures::FLEE_S + planet::creatures::RETURN_S + 1.0);
    world.update(&camera(&world, 1, local));
    assert!(world.save().creatures[1].is_empty());
}
