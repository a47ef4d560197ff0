//! A region's stages side by side, in one run: generate (both terrain
//! passes), polygonize, spherify, and the physics stages built on them, the
//! collider (its triangles and linear BVH) and the navmesh (walkable
//! triangles, headroom rays, neighbours, quads joined), µs per region.
//! Target: the collider and the navmesh each under the same region's
//! generate time.
//!
//! `cargo bench -p planet --bench stages` ends with a summary of medians.

mod common;

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::Criterion;
use planet::mesh::{MeshWorkspace, SphereMesh, polygonize, spherify};
use planet::physics::{NavSettings, collider, navmesh};
use planet::terrain::{Terrain, lat_lon_direction};
use planet::{PlannedSystem, RegionKey};

/// Surface regions: dry land at three LODs, a desert, and a sea floor (no walkable polygons).
fn regions() -> Vec<(String, Terrain, RegionKey)> {
    let system = PlannedSystem::default_system();
    let cases: [(&str, usize, f32, f32, u8); 5] = [
        ("rocky_seafloor_lod0", 1, 43.5, -179.5, 0),
        ("rocky_continent_lod0", 1, -15.0, 0.0, 0),
        ("rocky_continent_lod1", 1, -15.0, 0.0, 1),
        ("rocky_continent_lod4", 1, -15.0, 0.0, 4),
        ("desert_dunes_lod0", 3, 10.0, 10.0, 0),
    ];
    cases
        .iter()
        .map(|&(name, planet, lat, lon, lod)| {
            let t = Terrain::new(&system.planets[planet]);
            let key = t.surface_key(lat_lon_direction(lat, lon), lod);
            (name.to_owned(), t, key)
        })
        .collect()
}

fn mesh_of(t: &Terrain, key: RegionKey, ws: &mut MeshWorkspace) -> SphereMesh {
    let columns = t.columns(key);
    let voxels = t.voxels(&columns);
    spherify(&t.grid, &polygonize(t, &columns, &voxels, ws))
}

fn bench(c: &mut Criterion) {
    let mut ws = MeshWorkspace::default();
    // One group per region, every stage back to back.
    for (name, t, key) in &regions() {
        let key = *key;
        let settings = NavSettings::for_recipe(&t.recipe);
        let mut g = c.benchmark_group(name.as_str());
        g.bench_function("generate", |b| b.iter(|| t.voxels(&t.columns(black_box(key)))));
        let columns = t.columns(key);
        let voxels = t.voxels(&columns);
        g.bench_function("polygonize", |b| b.iter(|| polygonize(t, &columns, black_box(&voxels), &mut ws)));
        let cube = polygonize(t, &columns, &voxels, &mut ws);
        g.bench_function("spherify", |b| b.iter(|| spherify(&t.grid, black_box(&cube))));
        let mesh = spherify(&t.grid, &cube);
        g.bench_function("collider", |b| b.iter(|| collider(black_box(&mesh))));
        let col = collider(&mesh);
        g.bench_function("navmesh", |b| b.iter(|| navmesh(black_box(&mesh), &col, &settings)));
        g.finish();
    }
}

fn summary(dir: &Path) {
    let mut ws = MeshWorkspace::default();
    println!("\nstages summary (medians, µs per region)");
    println!(
        "  {:<22} {:>9} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "region", "generate", "polygonize", "spherify", "collider", "navmesh", "triangles", "walkable", "polygons"
    );
    let mut met = true;
    for (name, t, key) in regions() {
        let mesh = mesh_of(&t, key, &mut ws);
        let col = collider(&mesh);
        let nav = navmesh(&mesh, &col, &NavSettings::for_recipe(&t.recipe));
        let walkable: usize = nav.polygons.iter().map(|p| p.count as usize - 2).sum();
        let [generate, polygonize, spherify, collider, navmesh] =
            ["generate", "polygonize", "spherify", "collider", "navmesh"].map(|id| common::median_us(dir, &name, id));
        if let Some(g) = generate {
            met &= collider.is_some_and(|c| c < g) && navmesh.is_some_and(|n| n < g);
        }
        let fmt = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.1}"));
        println!(
            "  {name:<22} {:>9} {:>10} {:>9} {:>9} {:>9} {:>9} {walkable:>9} {:>9}",
            fmt(generate),
            fmt(polygonize),
            fmt(spherify),
            fmt(collider),
            fmt(navmesh),
            col.triangle_count(),
            nav.polygons.len(),
        );
    }
    let verdict = if met { "met" } else { "MISSED" };
    println!("  collider and navmesh each under the region's generate time: {verdict}");
}

fn main() {
    let c = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    common::run(c, bench, summary);
}
