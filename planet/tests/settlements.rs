//! Settlements: the nearest settlement from a million random directions
//! equals brute force over every settlement (across face edges and cube
//! corners too); sites stand on plots, one a cell, their towns inside their
//! cells; every town of the default planets keeps the placement rules
//! (landmarks, spacing of grown boxes, ground gates, a bent route its
//! buildings keep clear of, taller buildings along the growth axis); the
//! ground under every footprint is levelled to the building's base in the
//! terrain at every LOD; and the settlements stage reads back equal and
//! refuses damaged sites.

use glam::{Vec2, Vec3};
use planet::hash::{hash2, salt, signed_f32};
use planet::settlements::{Building, BuildingKind, SettlementSites, Settlements, angle, box_gap};
use planet::terrain::Terrain;
use planet::{PlanetPlan, PlannedSystem, RegionKey};

fn default_terrains() -> Vec<Terrain> {
    let plans: Vec<PlanetPlan> = PlannedSystem::default_system().planets;
    std::thread::scope(|s| {
        let handles: Vec<_> = plans.iter().map(|p| s.spawn(move || Terrain::new(p))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// A random unit direction for (seed, i); every eighth one pushed next to a
/// cube edge or corner, where the grid's faces meet.
fn direction(seed: u64, i: i64) -> Vec3 {
    let h = |k: i64| signed_f32(hash2(seed, salt(b"dir"), i, k));
    let mut d = Vec3::new(h(0), h(1), h(2));
    if i % 8 == 0 {
        // Two components nearly equal in size: an edge; all three: a corner.
        let s = d.signum();
        d = Vec3::new(s.x, s.y * (1.0 - 1e-3 * h(3).abs()), if i % 16 == 0 { s.z } else { d.z });
    }
    d.try_normalize().unwrap_or(Vec3::Z)
}

/// The road of town `i`: no steeper than its grade anywhere, at each
/// landmark's base at its ends, and the terrain's surface along it is the
/// road's profile (the structure term levels it).
fn check_road(t: &Terrain, i: usize, town: &planet::settlements::Town) {
    let road = town.road();
    let heights = &town.road_heights_m;
    let cell = t.settlements.data.sites[i].cell;
    assert_eq!(heights.len(), road.len(), "town {cell}: a height per road point");
    let grade = libm::tanf(planet::settlements::ROAD_GRADE_DEG.to_radians());
    for k in 1..road.len() {
        let run = road[k].distance(road[k - 1]);
        let rise = (heights[k] - heights[k - 1]).abs();
        assert!(rise <= grade * run + 1e-3, "town {cell}: the road climbs {rise} m over {run} m at point {k}");
    }
    assert_eq!(heights[0], town.buildings[0].base_m, "town {cell}: the road leaves its landmark's base");
    assert_eq!(heights[road.len() - 1], town.buildings[1].base_m, "town {cell}: the road reaches its landmark's base");
    let frame = t.settlements.frame(i);
    for (k, p) in road.iter().enumerate().step_by(4) {
        let ground = t.surface_height_at(frame.direction(*p));
        assert!(
            (ground - heights[k]).abs() <= 0.02,
            "town {cell}: the ground at road point {k} is {ground} m, the road {} m",
            heights[k]
        );
    }
}

#[test]
fn the_nearest_settlement_is_the_brute_force_nearest_from_a_million_directions() {
    let terrains = default_terrains();
    let total_sites: usize = terrains.iter().map(|t| t.settlements.data.sites.len()).sum();
    assert!(total_sites >= 200, "only {total_sites} settlements on the default planets");
    let per_planet = 1_000_000 / terrains.len() as i64;
    std::thread::scope(|s| {
        for (p, t) in terrains.iter().enumerate() {
            s.spawn(move || {
                let sites = &t.settlements.data.sites;
                for i in 0..per_planet {
                    let d = direction(p as u64, i);
                    let found = t.settlements.nearest(d);
                    let brute = sites.iter().map(|x| (x, angle(d, x.centre))).fold(
                        None,
                        |b: Option<(&planet::settlements::Settlement, f32)>, (x, a)| match b {
                            Some((_, ba)) if ba <= a => b,
                            _ => Some((x, a)),
                        },
                    );
                    match (found, brute) {
                        (None, None) => {}
                        (Some((f, dist)), Some((b, a))) => {
                            assert!(
                                f.cell == b.cell,
                                "planet {p} direction {d}: nearest {} at {dist} m, brute force {} at {} m",
                                f.cell,
                                b.cell,
                                a * t.recipe.radius_m
                            );
                            assert!((dist - a * t.recipe.radius_m).abs() < 1e-3);
                        }
                        (f, b) => panic!(
                            "planet {p} direction {d}: search {:?}, brute {:?}",
                            f.map(|x| x.0.cell),
                            b.map(|x| x.0.cell)
                        ),
                    }
                }
            });
        }
    });
}

#[test]
fn sites_stand_on_plots_one_a_cell_their_towns_inside_their_cells() {
    for t in default_terrains() {
        let s = &t.settlements;
        let plots = &t.layout.data.plots;
        let mut last = None;
        for site in &s.data.sites {
            assert!(last.is_none_or(|l| site.cell > l), "cells ascend, one settlement each");
            last = Some(site.cell);
            let plot = &plots[site.plot as usize];
            assert_eq!(site.centre, plot.centre, "a settlement stands on its plot");
            assert_eq!(s.grid().cell_of(site.centre), site.cell, "a settlement's plot lies in its cell");
            let inset = s.grid().inset_m(site.cell, site.centre);
            assert!(inset >= site.radius_m + 20.0, "town {} is {inset} m from its cell's edge", site.cell);
        }
        // Made again from the layout alone: the same sites.
        assert_eq!(s.data, Settlements::build(&plan_of(&t), &t.layout).data);
    }
}

fn plan_of(t: &Terrain) -> PlanetPlan {
    PlannedSystem::default_system().planets.into_iter().find(|p| p.seed == t.seed).unwrap()
}

/// Every point of a bent building within its grown box (give or take the
/// sampling between the box's heights).
fn holds_its_bend(b: &Building) -> bool {
    (0..=64).all(|k| {
        let t = k as f32 / 64.0;
        [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0), (0.0, 1.0), (1.0, 0.0)].iter().all(|&(x, y)| {
            let p = b.point(x, y, t);
            planet::settlements::box_distance(&b.bounds, Vec2::new(p.x, p.y)) <= 0.25
        })
    })
}

#[test]
fn every_town_keeps_the_placement_rules() {
    let mut towns = 0;
    let mut kinds = [0usize; 3];
    let (mut ahead, mut behind) = (Vec::new(), Vec::new());
    for t in default_terrains() {
        let r = t.recipe.settlements;
        let s = &t.settlements;
        for (i, site) in s.data.sites.iter().enumerate() {
            let town = s.town(i).unwrap();
            assert!(town.buildings.len() >= 2 && town.buildings[0].landmark && town.buildings[1].landmark);
            assert_eq!(town.buildings.iter().filter(|b| b.landmark).count(), 2, "town {}: two landmarks", site.cell);
            for (k, b) in town.buildings.iter().enumerate() {
                kinds[b.kind as usize] += 1;
                assert!(holds_its_bend(b), "town {} building {k}: its box misses its bend", site.cell);
                assert_eq!(b.bounds, b.grown_bounds());
                for o in &town.buildings[..k] {
                    let gap = box_gap(&o.bounds, &b.bounds);
                    assert!(gap >= r.spacing_m - 1e-3, "town {} building {k}: {gap} m from another", site.cell);
                }
                if !b.landmark {
                    assert!((r.footprint_m[0]..=r.footprint_m[1]).contains(&b.width_m));
                    assert!(b.depth_m >= b.width_m * r.aspect[0] - 1e-3 && b.depth_m <= b.width_m * r.aspect[1] + 1e-3);
                    assert!((r.floor_height_m[0]..=r.floor_height_m[1]).contains(&b.floor_height_m));
                    assert_eq!(b.curve.is_straight(), b.kind == BuildingKind::Flat);
                    // The route's corridor is clear.
                    let (d, _) = planet::settlements::road_clearance(&town.road(), &b.bounds);
                    assert!(d >= r.route_push_m - 1e-3, "town {} building {k}: {d} m from the road", site.cell);
                    // On its ground: within the band of the plot, above the sea.
                    assert!((b.base_m - site.height_m).abs() <= r.height_band_m + 1e-3);
                    let along = Vec2::from(b.centre).dot(Vec2::from(town.growth));
                    if along > 0.0 { &mut ahead } else { &mut behind }.push(b.floors as f32);
                }
                assert!(
                    Vec2::from(b.centre).length() <= site.radius_m + 1e-3,
                    "town {} building {k} outside",
                    site.cell
                );
            }
            // The route bends: its widest point is well off the straight line
            // (by the recipe's amplitude, less where the line is short).
            let (a, z) = (Vec2::from(town.route[0]), Vec2::from(*town.route.last().unwrap()));
            let chord = (z - a).normalize();
            let off = town.route.iter().map(|&p| (Vec2::from(p) - a).perp_dot(chord).abs()).fold(0.0, f32::max);
            let half_waves = (r.route_waves * 2.0).round().max(1.0);
            let amplitude = r.route_amplitude_m.min(a.distance(z) / (core::f32::consts::PI * half_waves));
            assert!(off >= amplitude * 0.9, "town {}: the route strays only {off} m", site.cell);
            check_road(&t, i, town);
            towns += 1;
        }
    }
    assert!(towns >= 200, "only {towns} towns");
    assert!(kinds.iter().all(|&k| k > 50), "building types {kinds:?}");
    let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len() as f32;
    assert!(
        mean(&ahead) > mean(&behind) * 1.1,
        "taller along the growth axis: {} against {}",
        mean(&ahead),
        mean(&behind)
    );
}

#[test]
fn the_ground_under_every_footprint_is_its_base_at_every_lod() {
    for t in default_terrains() {
        let s = &t.settlements;
        for i in (0..s.data.sites.len()).step_by(5) {
            let town = s.town(i).unwrap();
            let frame = s.frame(i);
            for b in &town.buildings {
                // Under the footprint, in the exact surface.
                for (x, y) in [(0.0, 0.0), (0.9, 0.9), (-0.9, 0.5), (0.3, -0.9)] {
                    let p = b.point(x, y, 0.0);
                    let d = frame.direction(Vec2::new(p.x, p.y));
                    let h = t.surface_height_at(d);
                    assert!(
                        (h - b.base_m).abs() < 0.01,
                        "town {}: ground {h} under a building on {}",
                        town.cell,
                        b.base_m
                    );
                }
                // And in the columns of the regions holding its centre, at LODs 0 and 2.
                let d = frame.direction(Vec2::from(b.centre));
                for lod in [0u8, 2] {
                    let key: RegionKey = t.surface_key(d, lod);
                    let columns = t.columns(key);
                    let near = columns
                        .columns
                        .iter()
                        .min_by(|a, c| angle(a.direction, d).total_cmp(&angle(c.direction, d)))
                        .unwrap();
                    let p = frame.local(near.direction);
                    if b.footprint_distance(p) == 0.0 {
                        assert!(
                            (near.surface_m() - b.base_m).abs() < 0.01,
                            "LOD {lod}: {} on {}",
                            near.surface_m(),
                            b.base_m
                        );
                        assert_eq!(near.structure, 1.0);
                    }
                }
            }
        }
    }
}

#[test]
fn the_settlements_stage_reads_back_equal_and_refuses_damage() {
    let plan = &PlannedSystem::default_system().planets[1];
    let t = Terrain::new(plan);
    let json = serde_json::to_string(&t.settlements.data).unwrap();
    let back: SettlementSites = serde_json::from_str(&json).unwrap();
    assert_eq!(back, t.settlements.data);
    assert!(back.problems().is_empty());
    let mut bad = back.clone();
    bad.cells_across = 0;
    bad.sites[0].cell = 1_000_000;
    bad.sites[1].centre = Vec3::new(2.0, 0.0, 0.0);
    let problems = bad.problems();
    assert!(problems.iter().any(|p| p.starts_with("cells_across = 0")), "{problems:?}");
    assert!(problems.iter().any(|p| p.starts_with("sites[0].cell = 1000000")), "{problems:?}");
    assert!(problems.iter().any(|p| p.starts_with("sites[1].centre")), "{problems:?}");
}
