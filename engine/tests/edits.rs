//! Edits in the live world: a dig at the player's feet is streamed in with
//! no frame showing a hole, shows in every LOD's region it touches, drops
//! the walker into the hole, and survives a save: a world loaded from it
//! builds every touched region, at every LOD, to the same bytes.

use std::sync::Arc;

use engine::player::{Mode, Player, PlayerInput};
use engine::{Camera, PlanetBuilder, RegionBuilder, ViewSpec, World, WorldSettings};
use glam::DVec3;
use jobs::CancelToken;
use planet::PlannedSystem;
use planet::edit::save::Save;
use planet::edit::{Brush, Edit, Operation, Surface};

fn world() -> World {
    World::new(Arc::new(PlannedSystem::default_system()), WorldSettings { threads: 2, ..WorldSettings::default() })
}

/// Updates `world` for `camera` until settled, checking every frame that
/// once the shown regions have covered the planet they always do (no
/// hole); returns the frames taken.
fn settle(world: &mut World, camera: &Camera) -> usize {
    let mut covered = false;
    for frame in 0..20_000 {
        world.update(camera);
        let complete = world.attached().unwrap().report.complete;
        assert!(complete || !covered, "frame {frame}: a hole in the shown regions");
        covered |= complete;
        if world.is_settled() {
            return frame;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    panic!("the world never settled");
}

const VIEW: &str = "planet=1,lat=-22.3233,lon=-16.7839,alt=1.7,heading=30,pitch=-10";

/// The voxels' ground under the view (the 3D noise moves it off the 2D
/// surface), planet-local, and the camera.
fn spot(world: &World) -> (DVec3, Camera) {
    let pose = VIEW.parse::<ViewSpec>().unwrap().pose(world).unwrap();
    let planet = &world.planets[1];
    let up = (pose.position - planet.position).normalize();
    let ground = planet::edit::ground_radius(planet.terrain(), &planet::edit::EditLog::new(), up.as_vec3())
        .expect("ground under the view");
    (up * f64::from(ground), Camera::new(pose.position, pose.forward))
}

#[test]
fn a_dig_at_the_feet_streams_in_without_a_hole_and_the_walker_falls_in() {
    let mut world = world();
    let (feet, camera) = spot(&world);
    settle(&mut world, &camera);
    let mut player = Player::new(VIEW.parse::<ViewSpec>().unwrap().pose(&world).unwrap());
    let walk = PlayerInput { walk: true, ..PlayerInput::default() };
    player.step(&world, &walk, 1.0 / 30.0);
    for _ in 0..60 {
        player.step(&world, &PlayerInput::default(), 1.0 / 30.0);
    }
    let Mode::Walk { walker, .. } = player.mode else { panic!("not walking") };
    let standing = walker.position.length();

    let dig = Edit {
        op: Operation::Dig,
        brush: Brush::Sphere { radius_m: 4.0 },
        centre: feet.as_vec3().to_array(),
        material: 0,
    };
    let touched = world.edit(1, dig).unwrap();
    assert!(touched >= 4, "a 4 m dig touches {touched} regions");
    let frames = settle(&mut world, &camera);
    assert!(frames > 0, "the dig's regions were built in no frame at all");
    // Every region shown now includes the dig where it touches it.
    let streamer = &world.attached().unwrap().streamer;
    for region in streamer.shown_regions() {
        let edits = streamer.edits().region(region.key);
        if !edits.edits.is_empty() {
            let rebuilt = PlanetBuilder::new(Arc::clone(streamer.terrain()))
                .build_with(region.key, &edits, false, &CancelToken::new())
                .unwrap();
            assert_eq!(region.voxels, rebuilt.voxels, "{} shows a build without the dig", region.key);
        }
    }
    // The walker falls into the hole.
    for _ in 0..90 {
        player.step(&world, &PlayerInput::default(), 1.0 / 30.0);
    }
    let Mode::Walk { walker, .. } = player.mode else { panic!("not walking") };
    let drop = standing - walker.position.length();
    assert!(drop > 2.5, "the walker stands {drop:.2} m lower after a 4 m dig under its feet");
}

#[test]
fn a_saved_world_loads_to_the_same_regions_at_every_lod() {
    let mut world = world();
    let (feet, camera) = spot(&world);
    let up = feet.normalize().as_vec3();
    let at = |along: f32| (feet.as_vec3() + up.any_orthonormal_vector() * along).to_array();
    let edits = [
        Edit { op: Operation::Dig, brush: Brush::Sphere { radius_m: 6.0 }, centre: at(0.0), material: 0 },
        Edit {
            op: Operation::Fill,
            brush: Brush::Box { half_m: [2.0, 3.0, 2.0], yaw_deg: 20.0 },
            centre: at(9.0),
            material: 3,
        },
        Edit { op: Operation::Flatten, brush: Brush::Sphere { radius_m: 10.0 }, centre: at(-14.0), material: 0 },
        Edit { op: Operation::Paint, brush: Brush::Sphere { radius_m: 5.0 }, centre: at(20.0), material: 1 },
        // Over the dig's rim: its surface is fitted when it is made, and saved.
        Edit {
            op: Operation::Smooth(Surface::FLAT),
            brush: Brush::Sphere { radius_m: 8.0 },
            centre: at(4.0),
            material: 0,
        },
    ];
    world.update(&camera);
    for e in edits {
        world.edit(1, e).unwrap();
    }
    // And sixty small digs about a spot 150 m away, which bake the regions there.
    let crowd = (0..60).map(|i| {
        let a = f64::from(i) * 2.4;
        let p = glam::Vec3::from_array(at(150.0))
            + (up.any_orthonormal_vector() * (a.cos() as f32)
                + up.any_orthonormal_vector().cross(up) * (a.sin() as f32))
                * (f64::from(i % 7) as f32 * 0.7)
            - up * 0.5;
        Edit {
            op: Operation::Dig,
            brush: Brush::Sphere { radius_m: 1.0 + (i % 5) as f32 * 0.2 },
            centre: p.to_array(),
            material: 0,
        }
    });
    for e in crowd {
        world.edit(1, e).unwrap();
    }
    assert!(world.edits(1).baked_regions() >= 1, "sixty digs at one spot baked no region");
    let saved = Save::decode(&world.save().encode()).unwrap();
    assert!(!saved.bakes[1].is_empty(), "the save holds no bake");
    assert_eq!(saved.planets[1][..4], edits[..4]);
    let Operation::Smooth(fitted) = saved.planets[1][4].op else { panic!("the smooth is saved as one") };
    assert_ne!(fitted, Surface::FLAT, "the smooth was saved unfitted");

    let mut loaded = self::world();
    loaded.load(&saved).unwrap();
    settle(&mut loaded, &camera);
    assert_eq!(loaded.edits(1), world.edits(1), "the loaded log differs");
    // Every region the edits touch, at every LOD, builds to the same bytes from either log.
    let terrain = Arc::clone(world.planets[1].terrain());
    let builder = PlanetBuilder::new(Arc::clone(&terrain));
    let mut lods = std::collections::BTreeSet::new();
    let mut keys: Vec<_> = Vec::new();
    let mut surface = std::collections::BTreeSet::new();
    let baked_spot = glam::Vec3::from_array(at(150.0)).normalize();
    for lod in 0..=terrain.grid.max_lod {
        let key = terrain.surface_key(up, lod);
        surface.insert(key);
        keys.push(key);
        keys.extend(terrain.grid.neighbours(key));
        let key = terrain.surface_key(baked_spot, lod);
        keys.push(key);
        keys.extend(terrain.grid.neighbours(key));
    }
    let mut with_bakes = 0;
    for key in keys {
        let (a, b) = (world.edits(1).region(key), loaded.edits(1).region(key));
        assert_eq!(a, b, "{key}: the logs name different edits");
        if a.edits.is_empty() && a.bakes.is_empty() {
            continue;
        }
        with_bakes += usize::from(!a.bakes.is_empty());
        lods.insert(key.lod);
        let x = builder.build_with(key, &a, false, &CancelToken::new()).unwrap();
        let y = builder.build_with(key, &b, false, &CancelToken::new()).unwrap();
        assert_eq!(x.voxels, y.voxels, "{key}");
        let plain = builder.build(key, &CancelToken::new()).unwrap();
        // The region holding the dig's surface shows it at every LOD that resolves 6 m.
        if key.lod <= 2 && surface.contains(&key) {
            assert_ne!(x.voxels, plain.voxels, "{key}: the edits do not show");
        }
    }
    assert_eq!(lods.len(), usize::from(terrain.grid.max_lod) + 1, "edits touch LODs {lods:?}");
    assert!(with_bakes >= 3, "only {with_bakes} regions compared with bakes");
    // The loaded world streams them: what it shows there is the edited ground.
    let shown =
        loaded.attached().unwrap().streamer.shown_regions().filter(|r| loaded.edits(1).stamp(r.key) != 0).count();
    assert!(shown > 0, "the loaded world shows no edited region");
    // Another world's save is refused, naming both.
    let other = Save { system: planet::Signature(1), ..saved };
    let e = loaded.load(&other).unwrap_err().to_string();
    assert!(e.contains("00000000000000000000000000000001") && e.contains(&world.system.signature().to_string()), "{e}");
}
