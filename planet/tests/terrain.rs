//! Terrain: coordinate purity (overlaps of neighbouring regions are
//! bit-identical, across face edges and corners too), independence from load
//! order and thread count, golden hashes of a dozen regions, no floating
//! islands, and bad keys.

mod common;

use std::collections::BTreeMap;

use planet::geometry::{GridPoint, PlanetGrid};
use planet::pipeline::{Pipeline, RegionInput};
use planet::terrain::{Column, Terrain, Voxel, lat_lon_direction};
use planet::{PlannedSystem, RegionKey, Signature};
use serde_json::json;

fn terrain(planet: usize) -> Terrain {
    Terrain::new(&PlannedSystem::default_system().planets[planet])
}

/// Every canonical sample of a region's window: (column, global layer) -> voxel,
/// and canonical column -> its 2D-pass column.
fn samples(t: &Terrain, key: RegionKey) -> (BTreeMap<(GridPoint, i32), Voxel>, BTreeMap<GridPoint, Column>) {
    let columns = t.columns(key);
    let grid = t.voxels(&columns);
    let face = key.face();
    let mut voxels = BTreeMap::new();
    let mut cols = BTreeMap::new();
    for b in 0..36 {
        for a in 0..36 {
            let p = GridPoint { face, x: key.x as i32 * 32 - 2 + a as i32, y: key.y as i32 * 32 - 2 + b as i32 };
            let Some(c) = t.grid.canonical(key.lod, p) else { continue };
            cols.insert(c, *columns.at(a, b));
            for layer in 0..36 {
                voxels.insert((c, key.z as i32 * 32 - 2 + layer as i32), grid.at(a, b, layer));
            }
        }
    }
    (voxels, cols)
}

/// Compares two regions' overlap; returns the number of shared samples.
fn compare(t: &Terrain, a: RegionKey, b: RegionKey) -> usize {
    let (va, ca) = samples(t, a);
    let (vb, cb) = samples(t, b);
    for (p, col) in &ca {
        if let Some(other) = cb.get(p) {
            assert_eq!(col, other, "column {p:?} differs between {a} and {b}");
        }
    }
    let mut shared = 0;
    for (k, v) in &va {
        if let Some(w) = vb.get(k) {
            assert_eq!(v, w, "sample {k:?} differs between {a} and {b}");
            shared += 1;
        }
    }
    shared
}

#[test]
fn overlaps_match_on_one_face() {
    let t = terrain(1);
    let key = t.surface_key(lat_lon_direction(43.5, -179.5), 0);
    let g = &t.grid;
    for (dx, dy, dz) in [(1, 0, 0), (0, 1, 0), (1, 1, 0), (-1, 1, 0), (0, 0, 1), (0, 0, -1), (1, 0, 1)] {
        let Some(n) = g.neighbour(key, dx, dy, dz) else { continue };
        let shared = compare(&t, key, n);
        assert!(shared >= 4 * 4 * 4, "{key} and {n} share only {shared} samples");
    }
    // A coarser LOD too.
    let coarse = t.surface_key(lat_lon_direction(10.0, 30.0), 3);
    assert!(compare(&t, coarse, g.neighbour(coarse, 1, 0, 0).unwrap()) >= 4 * 36 * 36);
}

#[test]
fn overlaps_match_across_every_face_edge() {
    let t = terrain(1);
    let g: &PlanetGrid = &t.grid;
    for lod in [0u8, 2] {
        let n = g.regions_across(lod);
        let z = g.regions_up(lod) / 2;
        for face in 0..6u8 {
            for (x, y, dx, dy) in [(n - 1, n / 3, 1, 0), (0, n / 2, -1, 0), (n / 4, n - 1, 0, 1), (n / 2 + 1, 0, 0, -1)]
            {
                let key = RegionKey { face, lod, x, y, z };
                let across = g.neighbour(key, dx, dy, 0).unwrap();
                let shared = compare(&t, key, across);
                // Windows reach 2 samples before a region and 1 beyond its far edge, so
                // across a face edge they share 3 to 5 columns, 35 or 36 samples long
                // (one fewer where the edge runs the other way on the neighbour).
                assert!(shared >= 3 * 35 * 36, "{key} and {across} share only {shared} samples");
            }
        }
    }
}

#[test]
fn overlaps_match_around_cube_corners() {
    let t = terrain(3);
    let g = &t.grid;
    for lod in [0u8, 1] {
        let n = g.regions_across(lod);
        for face in [0u8, 3, 5] {
            for (x, y) in [(0, 0), (n - 1, n - 1), (0, n - 1)] {
                let key = RegionKey { face, lod, x, y, z: 0 };
                let around: Vec<_> = g.neighbours(key).into_iter().filter(|k| k.z == 0 && k.face != face).collect();
                assert_eq!(around.len(), 4, "{key}: {around:?}");
                for other in around {
                    assert!(compare(&t, key, other) > 0, "{key} and {other} share nothing");
                }
            }
        }
    }
}

#[test]
fn features_are_the_same_on_both_sides_of_a_boundary() {
    let t = terrain(1);
    // Find a cave mouth and a deposit near some surface point, then compare the
    // region holding each with its eight neighbours.
    let mut found = None;
    for (lat, lon) in [(43.5, -179.5), (2.0, -15.0), (-30.0, 60.0), (20.0, 120.0), (-60.0, -100.0)] {
        let d = lat_lon_direction(lat, lon);
        let centre = d * (t.recipe.radius_m + t.surface_at(d).surface_m);
        let mouths = t.cave_mouths_near(centre - glam::Vec3::splat(1500.0), centre + glam::Vec3::splat(1500.0));
        let deposits = t.deposits_near(centre - glam::Vec3::splat(150.0), centre + glam::Vec3::splat(150.0));
        if let (Some(m), Some(dep)) = (mouths.first(), deposits.first()) {
            found = Some((m.a, dep.center));
            break;
        }
    }
    let (mouth, deposit) = found.expect("some mouth and deposit near the probe points");
    for p in [mouth, deposit] {
        let at = t.surface_key(p.normalize(), 0);
        for (dx, dy) in [(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)] {
            if let Some(n) = t.grid.neighbour(at, dx, dy, 0) {
                compare(&t, at, n);
            }
        }
    }
}

#[test]
fn regions_do_not_depend_on_order_or_threads() {
    let t = terrain(1);
    let g = &t.grid;
    let base = t.surface_key(lat_lon_direction(43.5, -179.5), 0);
    let mut keys = vec![base];
    keys.extend(g.neighbours(base).into_iter().take(7));
    keys.push(RegionKey { face: 2, lod: 4, x: 3, y: 5, z: 0 });
    keys.push(RegionKey { face: 5, lod: 0, x: 0, y: 0, z: 1 });
    let alone: Vec<_> = keys.iter().map(|&k| t.region(k).unwrap().signature()).collect();
    let reversed: Vec<_> = keys.iter().rev().map(|&k| t.region(k).unwrap().signature()).collect();
    assert_eq!(alone, reversed.into_iter().rev().collect::<Vec<_>>());
    // Four threads, each generating every key in its own order, with a fresh Terrain.
    let system = PlannedSystem::default_system();
    std::thread::scope(|s| {
        for shift in 0..4 {
            let (keys, alone, system) = (&keys, &alone, &system);
            s.spawn(move || {
                let t = Terrain::new(&system.planets[1]);
                for i in 0..keys.len() {
                    let j = (i + shift * 3) % keys.len();
                    assert_eq!(t.region(keys[j]).unwrap().signature(), alone[j], "{}", keys[j]);
                }
            });
        }
    });
}

#[test]
fn no_floating_islands() {
    let t = terrain(1);
    let fade = t.recipe.terrain.overhangs.fade_height_m;
    let mut checked = 0;
    for surface in [t.surface_key(lat_lon_direction(43.5, -179.5), 0), t.surface_key(lat_lon_direction(-5.0, 20.0), 1)]
    {
        for key in [surface, RegionKey { z: surface.z + 1, ..surface }] {
            if t.grid.check(key).is_err() {
                continue;
            }
            let columns = t.columns(key);
            let grid = t.voxels(&columns);
            let layer_m = t.grid.layer_m(key.lod);
            let mut air_checked = 0;
            for b in 0..36 {
                for a in 0..36 {
                    let s = t.grid.shell_below_m + columns.at(a, b).height_m;
                    for c in 0..36 {
                        let z = (key.z as i32 * 32 - 2 + c as i32) as f32 * layer_m;
                        // Above the fade height (and any deposit poking out), only air.
                        if z > s + fade + 6.0 {
                            assert!(
                                !grid.at(a, b, c).is_solid(),
                                "{key} ({a}, {b}, {c}) solid {} m above the surface",
                                z - s
                            );
                            air_checked += 1;
                        }
                    }
                }
            }
            checked += air_checked;
        }
    }
    assert!(checked > 10_000, "only {checked} samples checked");
}

#[test]
fn bad_keys_are_errors() {
    let t = terrain(1);
    let max = t.grid.max_lod;
    assert!("7/0/0/0/0".parse::<RegionKey>().is_err());
    for key in [
        RegionKey { face: 6, lod: 0, x: 0, y: 0, z: 0 },
        RegionKey { face: 0, lod: max + 1, x: 0, y: 0, z: 0 },
        RegionKey { face: 0, lod: 0, x: t.grid.regions_across(0), y: 0, z: 0 },
        RegionKey { face: 0, lod: 0, x: 0, y: u32::MAX, z: 0 },
        RegionKey { face: 0, lod: 3, x: 0, y: 0, z: 1 },
    ] {
        let e = t.region(key).unwrap_err().to_string();
        assert!(e.contains("must be in"), "{key}: {e}");
    }
}

/// The golden regions: (name, planet, key). Caves, ocean floor, face edges and
/// corners, and LODs 0, 3 and 6 on the default planets.
fn golden_keys() -> Vec<(&'static str, usize, RegionKey)> {
    let rocky = terrain(1);
    let n = rocky.grid.regions_across(0);
    vec![
        ("rocky surface, LOD 0", 1, rocky.surface_key(lat_lon_direction(43.5, -179.5), 0)),
        ("rocky cave, LOD 0", 1, RegionKey { face: 4, lod: 0, x: 103, y: 101, z: 0 }),
        ("rocky face edge, LOD 0", 1, RegionKey { face: 2, lod: 0, x: n - 1, y: n / 2, z: 1 }),
        ("rocky face corner, LOD 0", 1, RegionKey { face: 5, lod: 0, x: 0, y: n - 1, z: 1 }),
        ("rocky mountains, LOD 3", 1, rocky.surface_key(lat_lon_direction(43.5, -179.5), 3)),
        ("rocky coast, LOD 6", 1, rocky.surface_key(lat_lon_direction(2.0, -15.0), 6)),
        ("ocean floor, LOD 0", 2, terrain(2).surface_key(lat_lon_direction(0.0, 0.0), 0)),
        ("ocean island, LOD 3", 2, terrain(2).surface_key(lat_lon_direction(67.0, -50.0), 3)),
        ("lava sea shore, LOD 0", 0, terrain(0).surface_key(lat_lon_direction(30.0, -40.0), 0)),
        ("desert dunes, LOD 3", 3, terrain(3).surface_key(lat_lon_direction(10.0, 10.0), 3)),
        ("ice sheet, LOD 0", 4, terrain(4).surface_key(lat_lon_direction(-20.0, 100.0), 0)),
        ("ice corner, LOD 6", 4, RegionKey { face: 0, lod: 6, x: 3, y: 3, z: 0 }),
    ]
}

#[test]
fn golden_region_hashes() {
    let mut out = serde_json::Map::new();
    for (name, planet, key) in golden_keys() {
        let t = terrain(planet);
        let columns = t.columns(key);
        let grid = t.voxels(&columns);
        let solid = grid.voxels.iter().filter(|v| v.is_solid()).count();
        let mut value =
            json!({ "planet": planet, "key": key.to_string(), "voxels": grid.signature().to_string(), "solid": solid });
        // Every later region stage (meshes, collider, navmesh, and stages to come), by its dump bytes.
        let pipeline = Pipeline::standard();
        let chain = pipeline.run_region(&RegionInput::of_terrain(&t, key), &|| false, |_, _| {}).unwrap().unwrap();
        for (_, stage) in pipeline.region_stages().filter(|(_, s)| !matches!(s.name, "columns" | "voxels")) {
            let bytes = chain.get(stage).unwrap().encode(0);
            value[stage.name] = json!(Signature::of_bytes(stage.name, &bytes).to_string());
        }
        out.insert(name.to_owned(), value);
    }
    common::check_golden("regions.json", &serde_json::Value::Object(out));
}

#[test]
fn golden_regions_are_what_they_claim() {
    let keys = golden_keys();
    let get = |name: &str| *keys.iter().find(|k| k.0 == name).unwrap();
    // The cave region has air well below the 2D surface.
    let (_, p, key) = get("rocky cave, LOD 0");
    let t = terrain(p);
    let columns = t.columns(key);
    let grid = t.voxels(&columns);
    let mut cave = 0;
    for b in 2..34 {
        for a in 2..34 {
            let s = t.grid.shell_below_m + columns.at(a, b).height_m;
            for c in 2..34 {
                if !grid.at(a, b, c).is_solid() && ((c as f32 - 2.0) + 0.5) < s - 10.0 {
                    cave += 1;
                }
            }
        }
    }
    assert!(cave > 100, "only {cave} cave samples");
    // The ocean floor is under the sea; the island pokes out of it.
    let (_, p, key) = get("ocean floor, LOD 0");
    let t = terrain(p);
    assert!(t.columns(key).at(18, 18).surface_m() < t.recipe.sea.level_m - 20.0);
    // Surface regions have both ground and air.
    for name in ["rocky surface, LOD 0", "rocky mountains, LOD 3", "desert dunes, LOD 3", "ice sheet, LOD 0"] {
        let (_, p, key) = get(name);
        let g = terrain(p).region(key).unwrap();
        let solid = g.voxels.iter().filter(|v| v.is_solid()).count();
        assert!(solid > 1000 && solid < 45_000, "{name}: {solid} solid");
    }
}
