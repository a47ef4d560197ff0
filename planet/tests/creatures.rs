//! Creatures: herd paths pure and the same on any thread and in any order;
//! paths on dry, gentle, unbuilt ground; the time an animal has been about
//! counted in closed form equal to stepping the sun; poses continuous and
//! the same whether the clock jumps or crawls; the save record's round trip
//! and its damaged forms refused.

use glam::{DVec3, Vec3};
use planet::creatures::{
    Activity, Change, CreatureChange, Daylight, Fauna, Herd, HerdCell, decode_changes, encode_changes,
};
use planet::hash::HashStream;
use planet::terrain::Terrain;
use planet::{PlannedSystem, Spin, SystemRecipe};

fn herds(terrain: &Terrain, fauna: &Fauna, cells: &[HerdCell]) -> Vec<Option<Herd>> {
    cells.iter().map(|&c| fauna.herd(terrain, c)).collect()
}

#[test]
fn herds_are_the_same_on_any_thread_and_in_any_order() {
    let system = PlannedSystem::default_system();
    for plan in &system.planets {
        let terrain = Terrain::new(plan);
        let fauna = Fauna::new(&terrain);
        let mut s = HashStream::new(u64::from(plan.index) + 40);
        let all: Vec<HerdCell> = fauna.grid.all().collect();
        let cells: Vec<HerdCell> = (0..240).map(|_| all[s.index(all.len())]).collect();
        let forward = herds(&terrain, &fauna, &cells);
        let mut reversed: Vec<HerdCell> = cells.clone();
        reversed.reverse();
        let mut backward = herds(&terrain, &fauna, &reversed);
        backward.reverse();
        assert_eq!(forward, backward, "planet {}: order changed a herd", plan.index);
        let threaded: Vec<Option<Herd>> = std::thread::scope(|scope| {
            let handles: Vec<_> = cells
                .chunks(60)
                .map(|chunk| {
                    let fresh = Terrain::new(plan);
                    scope.spawn(move || herds(&fresh, &Fauna::new(&fresh), chunk))
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(forward, threaded, "planet {}: threads changed a herd", plan.index);
    }
}

#[test]
fn paths_loop_on_dry_gentle_unbuilt_ground_near_home() {
    let mut checked = 0;
    for seed in [0u64, 7, 20_261_130] {
        let system = if seed == 20_261_130 {
            PlannedSystem::default_system()
        } else {
            PlannedSystem::build(&SystemRecipe::from_seed(seed)).unwrap()
        };
        for plan in &system.planets {
            let terrain = Terrain::new(plan);
            let fauna = Fauna::new(&terrain);
            let sea = if plan.recipe.sea.enabled { plan.recipe.sea.level_m } else { f32::MIN };
            let all: Vec<HerdCell> = fauna.grid.all().collect();
            let mut s = HashStream::new(seed ^ u64::from(plan.index));
            for _ in 0..150 {
                let cell = all[s.index(all.len())];
                let Some(herd) = fauna.herd(&terrain, cell) else { continue };
                checked += 1;
                let species = &fauna.species[usize::from(herd.species)];
                assert_eq!(fauna.grid.cell_of(herd.home), cell);
                assert!(herd.count >= species.herd[0] && herd.count <= species.herd[1]);
                assert!(herd.points.len() >= 2 * 13 && herd.lengths.len() == herd.points.len() + 1);
                let r = terrain.grid.radius_m;
                for (i, p) in herd.points.iter().enumerate() {
                    let d = p.normalize();
                    let ground = terrain.surface_at(d);
                    // Corner-cut points lie between two checked corners: over the sea
                    // at least as far as the lower one, give or take the fields' octaves.
                    assert!(p.length() - r > sea, "{cell} point {i}: {} m under the sea level {sea}", p.length() - r);
                    assert!(ground.surface_m > sea - 1.0, "{cell} point {i} over the sea");
                    let away = libm::acosf(d.dot(herd.home).clamp(-1.0, 1.0)) * r;
                    assert!(away < 0.3 * fauna.grid.min_cell_m() * 1.4, "{cell} point {i} {away} m from home");
                }
                assert!(herd.length_m() > 30.0 && herd.start_m < herd.length_m());
            }
        }
    }
    assert!(checked > 200, "only {checked} herds checked");
}

fn random_spin(s: &mut HashStream) -> Daylight {
    let spin = Spin {
        day_s: s.range_f64(60.0, 5_000.0),
        tilt_deg: s.range_f64(0.0, 180.0),
        lean_deg: s.range_f64(0.0, 360.0),
    };
    let sun = DVec3::new(s.range_f64(-1.0, 1.0), s.range_f64(-1.0, 1.0), s.range_f64(-1.0, 1.0)).normalize();
    Daylight { spin, sun }
}

#[test]
fn time_about_in_closed_form_equals_stepping_the_sun() {
    let mut s = HashStream::new(3);
    for case in 0..300 {
        let daylight = random_spin(&mut s);
        let up = DVec3::new(s.range_f64(-1.0, 1.0), s.range_f64(-1.0, 1.0), s.range_f64(-1.0, 1.0)).normalize();
        let activity = if case % 2 == 0 { Activity::Day } else { Activity::Night };
        let end = s.range_f64(0.0, 3.0) * daylight.spin.day_s;
        let steps = 20_000;
        let dt = end / f64::from(steps);
        let stepped: f64 =
            (0..steps).filter(|&i| daylight.is_about(up, activity, (f64::from(i) + 0.5) * dt)).count() as f64 * dt;
        let closed = daylight.about_seconds(up, activity, end);
        let tolerance = 4.0 * dt + 1e-9;
        assert!((stepped - closed).abs() <= tolerance, "case {case}: stepped {stepped}, closed form {closed}");
        // Never decreasing, and never faster than the clock.
        let later = daylight.about_seconds(up, activity, end + 10.0);
        assert!(later >= closed - 1e-9 && later <= closed + 10.0 + 1e-9, "case {case}");
    }
}

#[test]
fn poses_move_no_faster_than_a_walk_and_come_from_the_clock_alone() {
    let system = PlannedSystem::default_system();
    let plan = &system.planets[1];
    let terrain = Terrain::new(plan);
    let fauna = Fauna::new(&terrain);
    let daylight = Daylight::of_planet(system.spin(1), plan.position_m);
    let herds: Vec<Herd> = fauna.grid.all().step_by(7).filter_map(|c| fauna.herd(&terrain, c)).take(40).collect();
    let mut s = HashStream::new(11);
    for herd in &herds {
        let species = &fauna.species[usize::from(herd.species)];
        let start = s.range_f64(0.0, 1e6);
        for member in 0..herd.count {
            let mut last = herd.pose(species, member, &daylight, start);
            for k in 1..200 {
                let t = start + f64::from(k) * 0.25;
                let pose = herd.pose(species, member, &daylight, t);
                // At a corner the heading turns, and an animal walking to the side of
                // the path swings round it: up to its side offset (1.2 sizes) times the turn.
                let limit = f64::from(species.speed_m_s) * 0.25 * 1.5 + 0.3 * f64::from(species.size_m);
                let moved = pose.position.distance(last.position);
                assert!(moved <= limit, "herd {} member {member}: {moved} m in 0.25 s (limit {limit})", herd.cell);
                assert!((pose.forward.length() - 1.0).abs() < 1e-3);
                last = pose;
            }
            // The same moment asked twice, or after asking others, is the same pose.
            assert_eq!(
                herd.pose(species, member, &daylight, start + 7.0),
                herd.pose(species, member, &daylight, start + 7.0)
            );
        }
    }
}

#[test]
fn the_record_round_trips_and_damaged_ones_are_refused() {
    let mut s = HashStream::new(5);
    let mut changes: Vec<CreatureChange> = (0..50)
        .map(|i| CreatureChange {
            id: s.next_u64(),
            change: if i % 3 == 0 {
                Change::Removed
            } else {
                Change::Scared {
                    at_s: s.range_f64(0.0, 1e9),
                    from: DVec3::new(s.range_f64(-5e3, 5e3), s.range_f64(-5e3, 5e3), s.range_f64(-5e3, 5e3)),
                    away: Vec3::new(s.range_f32(-1.0, 1.0), s.range_f32(-1.0, 1.0), 0.3).normalize(),
                }
            },
        })
        .collect();
    changes.sort_by_key(|c| c.id);
    let bytes = encode_changes(3, &changes);
    assert_eq!(decode_changes(&bytes), Ok((3, changes.clone())));
    // Cut short, a bad tag, ids out of order, a non-finite time.
    let cut = decode_changes(&bytes[..bytes.len() - 1]).unwrap_err();
    assert!(cut.contains("50 changes take"), "{cut}");
    let mut bad = bytes.clone();
    bad[8 + 8] = 7;
    assert!(decode_changes(&bad).unwrap_err().contains("tag 7"));
    let mut swapped = changes.clone();
    swapped.swap(0, 1);
    assert!(decode_changes(&encode_changes(3, &swapped)).unwrap_err().contains("ids must increase"));
    let mut nan = changes.clone();
    nan[1].change = Change::Scared { at_s: f64::NAN, from: DVec3::ZERO, away: Vec3::X };
    assert!(decode_changes(&encode_changes(3, &nan)).unwrap_err().contains("finite"));
}
