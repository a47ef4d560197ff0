//! A region's stages side by side, in one run: every region stage of the
//! pipeline's table (the 2D and 3D terrain passes, polygonize, spherify, and
//! the physics stages built on them, the collider and the navmesh), each run
//! through its row on the dumped-style chain of the stages before it, µs per
//! region. Target: the collider and the navmesh each under the same region's
//! generate time (columns + voxels).
//!
//! `cargo bench -p planet --bench stages` ends with a summary of medians.

mod common;

use std::hint::black_box;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use criterion::Criterion;
use planet::mesh::MeshWorkspace;
use planet::physics::{Collider, NavMesh};
use planet::pipeline::{Chain, Pipeline, RegionInput, stages};
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

/// Every region stage of `key`, in table order: what each stage reads.
fn full_chain(input: &RegionInput<'_>) -> Chain {
    Pipeline::standard()
        .run_region(input, &|| false, |_, _| {})
        .expect("a region of the planet's own grid")
        .expect("never cancelled")
}

fn bench(c: &mut Criterion) {
    let workspace = Mutex::new(MeshWorkspace::default());
    // One group per region, every stage back to back, each on the outputs of the ones before it.
    for (name, t, key) in &regions() {
        let input = RegionInput { workspace: Some(&workspace), ..RegionInput::of_terrain(t, *key) };
        let chain = full_chain(&input);
        let mut g = c.benchmark_group(name.as_str());
        for (_, stage) in Pipeline::standard().region_stages() {
            g.bench_function(stage.name, |b| b.iter(|| stage.run(black_box(&input), &chain)));
        }
        g.finish();
    }
}

fn summary(dir: &Path) {
    let pipeline = Pipeline::standard();
    let names: Vec<&str> = pipeline.region_stages().map(|(_, s)| s.name).collect();
    println!("\nstages summary (medians, µs per region; generate = columns + voxels)");
    let header: String = names.iter().map(|n| format!(" {n:>11}")).collect();
    println!("  {:<22}{header} {:>9} {:>9} {:>9} {:>9}", "region", "generate", "triangles", "walkable", "polygons");
    let mut met = true;
    for (name, t, key) in regions() {
        let chain = full_chain(&RegionInput::of_terrain(&t, key));
        let col: &Collider = chain.value(&stages::COLLIDER).expect("the chain holds every stage");
        let nav: &NavMesh = chain.value(&stages::NAVMESH).expect("the chain holds every stage");
        let walkable: usize = nav.polygons.iter().map(|p| p.count as usize - 2).sum();
        let median = |id: &str| common::median_us(dir, &name, id);
        let generate = median("columns").zip(median("voxels")).map(|(c, v)| c + v);
        if let Some(g) = generate {
            met &= median("collider").is_some_and(|c| c < g) && median("navmesh").is_some_and(|n| n < g);
        }
        let fmt = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.1}"));
        let row: String = names.iter().map(|n| format!(" {:>11}", fmt(median(n)))).collect();
        println!(
            "  {name:<22}{row} {:>9} {:>9} {walkable:>9} {:>9}",
            fmt(generate),
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
