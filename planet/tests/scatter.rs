//! Scatter over many regions of the default and a seeded system, at LODs 0
//! and 1, on face edges and corners: every object owned by one region, the
//! same cells giving the same objects at two LODs, exact spacing, density as
//! the rule asks, nothing under the sea, floating or buried.

use std::collections::{BTreeMap, BTreeSet};

use glam::Vec3;
use planet::hash::{hash1, salt};
use planet::mesh::{CubeMesh, SphereMesh};
use planet::physics::Collider;
use planet::pipeline::{Chain, Pipeline, RegionInput, stages};
use planet::recipe::ScatterKind;
use planet::scatter::{
    Habitat, HabitatMemo, Placement, Refusals, Scatter, ScatterObject, candidate, cell_area_m2, cells_over, place,
    place_with, scatter_seed,
};
use planet::terrain::{ColumnField, Terrain};
use planet::{PlannedSystem, RegionKey};

fn planets() -> Vec<Terrain> {
    let mut all: Vec<Terrain> = PlannedSystem::default_system().planets.iter().map(Terrain::new).collect();
    all.extend(PlannedSystem::from_json(r#"{ "seed": 7 }"#).unwrap().planets.iter().map(Terrain::new));
    all
}

/// A region's chain up to its collider, and its scatter with the refusals.
fn build(terrain: &Terrain, key: RegionKey) -> (Chain, Scatter, Refusals) {
    let pipe = Pipeline::standard();
    let upto = pipe.index(&stages::COLLIDER).unwrap();
    let mut chain = Chain::default();
    let list: Vec<usize> = pipe.region_stages().map(|(i, _)| i).filter(|&i| i <= upto).collect();
    pipe.run(&RegionInput::of_terrain(terrain, key), &mut chain, list, &|| false, |_, _| {}).unwrap();
    let mesh = chain.value::<CubeMesh>(&stages::CUBE_MESH).unwrap();
    let columns = chain.value::<ColumnField>(&stages::COLUMNS).unwrap();
    let origin = chain.value::<Collider>(&stages::COLLIDER).unwrap().origin;
    let (s, r) = place(terrain, columns, mesh, origin);
    (chain, s, r)
}

/// Every region of the column of `key`.
fn column(terrain: &Terrain, key: RegionKey) -> Vec<(Chain, Scatter, Refusals)> {
    (0..terrain.grid.regions_up(key.lod)).map(|z| build(terrain, RegionKey { z, ..key })).collect()
}

/// A pseudo-random column at `lod`: one in four on a face edge or corner.
fn pick(terrain: &Terrain, lod: u8, i: u64) -> RegionKey {
    let n = terrain.grid.regions_across(lod);
    let h = |k: i64| hash1(0x5ca7, salt(b"pick"), i as i64 * 8 + k);
    let at = |k: i64| (h(k) % u64::from(n)) as u32;
    let (mut x, mut y) = (at(1), at(2));
    match h(3) % 8 {
        0 => x = 0,
        1 => y = n - 1,
        2 => (x, y) = (0, 0),
        _ => {}
    }
    RegionKey { face: (h(4) % 6) as u8, lod, x, y, z: 0 }
}

/// Columns with ground on land: random picks, kept only where something grows.
fn patches(count: usize) -> Vec<(usize, RegionKey)> {
    let all = planets();
    let mut out = Vec::new();
    let mut i = 0;
    while out.len() < count && i < 40 * count as u64 {
        let p = (hash1(9, salt(b"planet"), i as i64) % all.len() as u64) as usize;
        let key = pick(&all[p], (i % 2) as u8, i);
        i += 1;
        if column(&all[p], key).iter().any(|(_, s, _)| !s.objects.is_empty()) {
            out.push((p, key));
        }
    }
    assert_eq!(out.len(), count, "too few columns with objects");
    out
}

fn up(s: &Scatter, o: &ScatterObject) -> glam::DVec3 {
    (s.origin + o.position.as_dvec3()).normalize()
}

#[test]
fn every_object_is_owned_by_one_region_and_spaced_as_its_rule_says() {
    let all = planets();
    let mut objects = 0;
    for (p, key) in patches(24) {
        let t = &all[p];
        let mut seen: BTreeMap<u64, RegionKey> = BTreeMap::new();
        let mut parents: BTreeMap<u8, Vec<(glam::DVec3, u64)>> = BTreeMap::new();
        for dy in -1..=1 {
            for dx in -1..=1 {
                let Some(k) = t.grid.neighbour(key, dx, dy, 0) else { continue };
                for (_, s, _) in column(t, k) {
                    for o in &s.objects {
                        if let Some(other) = seen.insert(o.id, s.key) {
                            panic!("planet {p}: object {:x} in {} and {other}", o.id, s.key);
                        }
                        if !o.child {
                            parents.entry(o.rule).or_default().push((up(&s, o), o.id));
                        }
                    }
                }
            }
        }
        objects += seen.len();
        for (rule, list) in parents {
            let spacing = f64::from(t.recipe.scatter[rule as usize].min_spacing_m);
            for (i, a) in list.iter().enumerate() {
                for b in &list[i + 1..] {
                    let metres = a.0.angle_between(b.0) * f64::from(t.grid.radius_m);
                    assert!(metres >= spacing * 0.999, "planet {p} rule {rule}: {metres} m < {spacing} m");
                }
            }
        }
    }
    assert!(objects > 5_000, "only {objects} objects over the patches");
}

#[test]
fn the_same_cells_give_the_same_objects_at_lod_0_and_1() {
    let all = planets();
    let (mut both, mut one) = (0usize, 0usize);
    for (p, key) in patches(40).into_iter().filter(|(_, k)| k.lod == 1) {
        let t = &all[p];
        // Each object with its direction from the planet's centre (the ground it is seated on aside).
        let by_id = |keys: Vec<RegionKey>| -> BTreeMap<u64, (glam::DVec3, ScatterObject)> {
            keys.into_iter()
                .flat_map(|k| column(t, k))
                .flat_map(|(_, s, _)| s.objects.iter().map(|o| (o.id, (up(&s, o), *o))).collect::<Vec<_>>())
                .collect()
        };
        let coarse = by_id(vec![key]);
        let fine = by_id(t.grid.children(key).into_iter().filter(|c| c.z == 0).collect());
        let ids: BTreeSet<u64> = coarse.keys().chain(fine.keys()).copied().collect();
        for id in ids {
            let (Some((da, a)), Some((db, b))) = (coarse.get(&id), fine.get(&id)) else {
                one += 1;
                continue;
            };
            both += 1;
            let same = (a.rule, a.kind, a.variant, a.child, a.yaw.to_bits(), a.size_m.to_bits(), a.color)
                == (b.rule, b.kind, b.variant, b.child, b.yaw.to_bits(), b.size_m.to_bits(), b.color);
            assert!(same, "planet {p}: object {id:x} differs between LODs: {a:?} / {b:?}");
            let apart = da.angle_between(*db) * f64::from(t.grid.radius_m);
            assert!(apart < 0.01, "planet {p}: object {id:x} moved {apart} m across the ground between LODs");
        }
    }
    let share = one as f64 / (both + one) as f64;
    println!("{both} objects at both LODs, {one} at one only ({:.2}%)", share * 100.0);
    assert!(both > 2_000, "only {both} objects compared");
    assert!(share < 0.05, "{:.2}% of objects are at one LOD only", share * 100.0);
}

/// Realised counts against the chance each cell was given, rule by rule,
/// over whole columns of flat ground (mean slope at most 12°; placed plus
/// refused: every candidate that exists).
#[test]
fn realised_density_is_what_the_rules_and_the_habitat_ask() {
    let all = planets();
    let mut expected: BTreeMap<(usize, u8), f64> = BTreeMap::new();
    let mut realised: BTreeMap<(usize, u8), f64> = BTreeMap::new();
    let (mut placed, mut refused) = (0u32, 0u32);
    let mut flat = 0;
    for i in 0..6_000u64 {
        let p = (hash1(11, salt(b"planet"), i as i64) % all.len() as u64) as usize;
        let t = &all[p];
        let key = pick(t, 0, i + 1_000_000);
        let columns = t.columns(key);
        let n = columns.columns.len() as f32;
        let mean_slope = columns.columns.iter().map(|c| c.slope_deg).sum::<f32>() / n;
        let sea = if t.recipe.sea.enabled { t.recipe.sea.level_m } else { f32::MIN };
        let growing = |c: &planet::terrain::Column| t.recipe.biomes[c.biome as usize].scatter_density >= 0.5;
        if mean_slope > 12.0 || columns.columns.iter().any(|c| c.surface_m() < sea + 2.0 || !growing(c)) {
            continue;
        }
        flat += 1;
        if flat > 60 {
            break;
        }
        let regions = column(t, key);
        let placements = Placement::all(&t.recipe);
        let n = t.grid.cells_across(0) as f32;
        let to_uv = |x: u32| 2.0 * (x as i32 * 32) as f32 / n - 1.0;
        let (lo, hi) = ([to_uv(key.x), to_uv(key.y)], [to_uv(key.x + 1), to_uv(key.y + 1)]);
        let pad = |a: [f32; 2], d: f32| [a[0] + d, a[1] + d];
        let needs = vec![(pad(lo, -0.01), pad(hi, 0.01)); placements.len()];
        let habitat = Habitat::new(t, &placements, key.face(), &needs);
        for (index, rule) in placements.iter().enumerate() {
            let (first, last) = cells_over(rule, lo, hi);
            for j in first[1]..last[1] {
                for i in first[0]..last[0] {
                    let Some(c) = candidate(scatter_seed(t.seed), rule, key.face(), i, j) else { continue };
                    let inside = |x: f32, a: f32, b: f32| x >= a && (x < b || (b >= 1.0 && x <= 1.0));
                    if inside(c.u, lo[0], hi[0]) && inside(c.v, lo[1], hi[1]) {
                        let chance =
                            rule.per_m2 * habitat.factor(index, c.u, c.v) * cell_area_m2(rule, i, j, t.grid.radius_m);
                        *expected.entry((p, rule.rule)).or_default() += f64::from(chance.min(1.0));
                    }
                }
            }
        }
        for (_, s, r) in regions {
            let parents: Vec<&ScatterObject> = s.objects.iter().filter(|o| !o.child).collect();
            placed += parents.len() as u32;
            refused += r.parents();
            for o in parents {
                *realised.entry((p, o.rule)).or_default() += 1.0;
            }
            for (rule, &n) in r.parents_by_rule.iter().enumerate().filter(|(_, n)| **n > 0) {
                *realised.entry((p, rule as u8)).or_default() += f64::from(n);
            }
        }
    }
    println!("{flat} flat columns");
    let refused_share = f64::from(refused) / f64::from(placed + refused).max(1.0);
    println!("{placed} parents placed, {refused} refused ({:.2}%)", refused_share * 100.0);
    assert!(refused_share < 0.1, "{:.1}% of parents refused", refused_share * 100.0);
    let mut checked = 0;
    for (k, &want) in &expected {
        let got = realised.get(k).copied().unwrap_or(0.0);
        println!("planet {} rule {}: {got:.0} objects, {want:.1} expected", k.0, k.1);
        if want < 400.0 {
            continue;
        }
        checked += 1;
        assert!((got - want).abs() <= 0.1 * want, "planet {} rule {}: {got:.0} objects, {want:.1} expected", k.0, k.1);
    }
    let (got, want): (f64, f64) = (realised.values().sum(), expected.values().sum());
    assert!((got - want).abs() <= 0.05 * want, "in all: {got:.0} objects, {want:.0} expected");
    assert!(checked >= 3, "too few rules with enough objects to judge ({checked})");
}

#[test]
fn objects_stand_on_the_ground_above_the_sea() {
    let all = planets();
    let mut gaps = Vec::new();
    let mut depths = Vec::new();
    for (p, key) in patches(16) {
        let t = &all[p];
        for (chain, s, _) in column(t, key) {
            // The ground alone: the region's collider also holds the objects' trunks and boulders.
            let collider = planet::physics::collider(chain.value::<SphereMesh>(&stages::SPHERE_MESH).unwrap());
            for o in &s.objects {
                let up = up(&s, o).as_vec3();
                let height = (s.origin + o.position.as_dvec3()).length() as f32 - t.grid.radius_m;
                if t.recipe.sea.enabled {
                    assert!(height > t.recipe.sea.level_m, "planet {p}: object {:x} under the sea", o.id);
                }
                let from: Vec3 = o.position + up * 2.0;
                let gap = collider.cast_ray(from, -up, 4.0).map_or(f32::MAX, |h| (h.distance - 2.0).abs());
                gaps.push(gap);
                depths.push(t.surface_with(up, 4.0).0 - height);
            }
        }
    }
    gaps.sort_by(f32::total_cmp);
    depths.sort_by(f32::total_cmp);
    let q = |f: f64| depths[((depths.len() - 1) as f64 * f) as usize];
    println!(
        "nominal - seat: p0.1 {} p1 {} p50 {} p99 {} p99.9 {} max {}",
        q(0.001),
        q(0.01),
        q(0.5),
        q(0.99),
        q(0.999),
        q(1.0)
    );
    let p99 = gaps[gaps.len() * 99 / 100];
    println!("{} objects, base-to-ground gap p50 {} m, p99 {p99} m", gaps.len(), gaps[gaps.len() / 2]);
    assert!(gaps.len() > 2_000);
    assert!(p99 <= 0.1, "p99 gap {p99} m");
}

/// The region's collider holds every tree trunk and boulder of its scatter
/// at LODs 0 and 1 (exactly their models' solid triangles, nothing of the
/// grass, bushes, pebbles or crystals) and none at coarser LODs; a ray at
/// walking height aimed at a trunk or a boulder from just outside it hits
/// it, from every side.
#[test]
fn trunks_and_boulders_are_in_the_walkers_collider() {
    let all = planets();
    let models = planet::scatter::models::ModelSet::shared();
    let (mut solids, mut rays) = (0, 0);
    for (p, key) in patches(48) {
        let t = &all[p];
        for lod in [key.lod, 2] {
            let key = RegionKey { lod, x: key.x >> (lod - key.lod), y: key.y >> (lod - key.lod), ..key };
            for (chain, s, _) in column(t, key) {
                let full = chain.value::<Collider>(&stages::COLLIDER).unwrap();
                let ground = planet::physics::collider(chain.value::<SphereMesh>(&stages::SPHERE_MESH).unwrap());
                let solid: Vec<&ScatterObject> = s
                    .objects
                    .iter()
                    .filter(|o| o.kind == ScatterKind::Tree || (o.kind == ScatterKind::Rock && !o.child))
                    .collect();
                let triangles: usize = solid.iter().map(|o| models.solid_triangles(o, s.origin).count()).sum();
                let want = if lod <= planet::physics::SOLID_MAX_LOD { triangles } else { 0 };
                assert_eq!(full.triangle_count(), ground.triangle_count() + want, "planet {p} {}", s.key);
                if lod > planet::physics::SOLID_MAX_LOD {
                    continue;
                }
                solids += solid.len();
                for o in solid {
                    let [x, up, z] = o.axes(s.origin);
                    // A trunk at knee height, a boulder at a third of its height (the widest).
                    let (height, reach) = match o.kind {
                        ScatterKind::Tree => ((0.2 * o.size_m).min(0.5), 0.05 * o.size_m + 0.3),
                        _ => (0.15 * o.size_m, 0.7 * o.size_m + 0.3),
                    };
                    for k in 0..8 {
                        let a = k as f32 * std::f32::consts::FRAC_PI_4;
                        let side = x * libm::cosf(a) + z * libm::sinf(a);
                        let from = o.position + up * height + side * reach;
                        let hit = full.cast_ray(from, -side, reach);
                        assert!(
                            hit.is_some(),
                            "planet {p} {}: {:?} {:x} of {} m missed from side {k}",
                            s.key,
                            o.kind,
                            o.id,
                            o.size_m
                        );
                        rays += 1;
                    }
                }
            }
        }
    }
    println!("{solids} trunks and boulders, {rays} rays");
    assert!(solids > 200, "{solids} solid objects");
}

/// A random surface region at LOD 0 to 4 of one of `all`, and its chain up
/// to the sphere mesh.
fn surface_region(all: &[Terrain], i: u64) -> (usize, RegionKey, Chain) {
    let h = |k: i64| hash1(0x4ab1, salt(b"memo"), i as i64 * 8 + k);
    let p = (h(0) % all.len() as u64) as usize;
    let f = |k: i64| (h(k) >> 11) as f32 / (1u64 << 53) as f32 * 2.0 - 1.0;
    let d = Vec3::new(f(1), f(2), f(3)).normalize_or(Vec3::Y);
    let key = all[p].surface_key(d, (h(4) % 5) as u8);
    let pipe = Pipeline::standard();
    let upto = pipe.index(&stages::SPHERE_MESH).unwrap();
    let mut chain = Chain::default();
    let list: Vec<usize> = pipe.region_stages().map(|(i, _)| i).filter(|&i| i <= upto).collect();
    pipe.run(&RegionInput::of_terrain(&all[p], key), &mut chain, list, &|| false, |_, _| {}).unwrap();
    (p, key, chain)
}

#[test]
fn a_shared_habitat_memo_gives_the_same_objects_in_any_order_from_any_thread() {
    let all = planets();
    let regions: Vec<_> = (0..240).map(|i| surface_region(&all, i)).collect();
    let place_in = |(p, _, chain): &(usize, RegionKey, Chain), memo: Option<&HabitatMemo>| {
        let mesh = chain.value::<CubeMesh>(&stages::CUBE_MESH).unwrap();
        let columns = chain.value::<ColumnField>(&stages::COLUMNS).unwrap();
        let origin = chain.value::<SphereMesh>(&stages::SPHERE_MESH).unwrap().origin;
        match memo {
            Some(memo) => place_with(memo, &all[*p], columns, mesh, origin),
            None => place(&all[*p], columns, mesh, origin),
        }
    };
    let alone: Vec<_> = regions.iter().map(|r| place_in(r, None)).collect();
    // One memo per planet, as a builder keeps one per terrain; a small one,
    // so tiles are evicted and made again. Two threads take the regions in
    // opposite orders.
    let memos: Vec<HabitatMemo> = all.iter().map(|_| HabitatMemo::new(6)).collect();
    let shared: Vec<Vec<_>> = std::thread::scope(|s| {
        let forward = s.spawn(|| regions.iter().map(|r| place_in(r, Some(&memos[r.0]))).collect::<Vec<_>>());
        let backward = s.spawn(|| {
            let mut v: Vec<_> = regions.iter().rev().map(|r| place_in(r, Some(&memos[r.0]))).collect();
            v.reverse();
            v
        });
        vec![forward.join().unwrap(), backward.join().unwrap()]
    });
    for run in &shared {
        for ((a, b), (_, key, _)) in alone.iter().zip(run).zip(&regions) {
            assert_eq!(a.0, b.0, "region {key}: the memo changed its objects");
            assert_eq!(a.1, b.1, "region {key}: the memo changed its refusals");
        }
    }
    let objects: usize = alone.iter().map(|(s, _)| s.objects.len()).sum();
    let lods: BTreeSet<u8> =
        regions.iter().zip(&alone).filter(|(_, (s, _))| !s.objects.is_empty()).map(|(r, _)| r.1.lod).collect();
    assert!(objects > 10_000, "only {objects} objects: too few to compare");
    assert_eq!(lods.len(), 5, "regions with objects at every scattering LOD, 0 to 4: {lods:?}");
    assert!(memos.iter().all(|m| m.len() <= 6), "a memo outgrew its capacity");
}
