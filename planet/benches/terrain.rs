//! Terrain throughput on the default planets: the 2D pass in ns per column,
//! the 3D pass and whole regions (both passes) in ms at LOD 0, 2 and 5, and
//! in the same run the naive baseline: 5-octave 3D fbm at every one of a
//! LOD-0 region's 36³ samples.
//!
//! `cargo bench -p planet --bench terrain` ends with a summary table of
//! medians and the ratio naive / ours. Target: a LOD-0 region (both passes)
//! at or below 1.0 ms on one core.

mod common;

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput};
use planet::PlannedSystem;
use planet::noise::{Fractal, FractalParams, Gradient};
use planet::terrain::{Terrain, lat_lon_direction};

/// A land point of each default planet, from its `planet map`.
const PLACES: [(f32, f32); 5] = [(30.0, -40.0), (43.5, -179.5), (67.0, -50.0), (10.0, 10.0), (-20.0, 100.0)];
const LODS: [u8; 3] = [0, 2, 5];

fn setups() -> Vec<(String, Terrain, f32, f32)> {
    let system = PlannedSystem::default_system();
    system
        .planets
        .iter()
        .zip(PLACES)
        .map(|(p, (lat, lon))| (format!("{}_{}", p.index, p.kind), Terrain::new(p), lat, lon))
        .collect()
}

fn bench(c: &mut Criterion) {
    let setups = setups();
    let mut g = c.benchmark_group("columns");
    g.throughput(Throughput::Elements(36 * 36));
    for (name, t, lat, lon) in &setups {
        let key = t.surface_key(lat_lon_direction(*lat, *lon), 0);
        g.bench_function(name.as_str(), |b| b.iter(|| t.columns(black_box(key))));
    }
    g.finish();

    for lod in LODS {
        let mut g = c.benchmark_group(format!("voxels_lod{lod}"));
        for (name, t, lat, lon) in &setups {
            let key = t.surface_key(lat_lon_direction(*lat, *lon), lod);
            let columns = t.columns(key);
            g.bench_function(name.as_str(), |b| b.iter(|| t.voxels(black_box(&columns))));
        }
        g.finish();
        let mut g = c.benchmark_group(format!("region_lod{lod}"));
        for (name, t, lat, lon) in &setups {
            let key = t.surface_key(lat_lon_direction(*lat, *lon), lod);
            g.bench_function(name.as_str(), |b| b.iter(|| t.voxels(&t.columns(black_box(key)))));
        }
        g.finish();
    }

    // The naive baseline: 5-octave gradient fbm at every sample of a LOD-0 region.
    let (_, t, lat, lon) = &setups[1];
    let key = t.surface_key(lat_lon_direction(*lat, *lon), 0);
    let columns = t.columns(key);
    let layer_m = t.grid.layer_m(0);
    let points: Vec<glam::Vec3> = columns
        .columns
        .iter()
        .flat_map(|c| {
            let floor_r = t.recipe.radius_m + c.elevation_m - t.grid.shell_below_m;
            (0..36).map(move |i| c.direction * (floor_r + (key.z as i32 * 32 - 2 + i) as f32 * layer_m))
        })
        .collect();
    let fbm = Fractal::new(7, FractalParams { octaves: 5, lacunarity: 2.0, gain: 0.5 });
    let mut g = c.benchmark_group("naive");
    g.bench_function("fbm5_every_sample_lod0", |b| {
        b.iter(|| points.iter().map(|p| fbm.fbm3::<Gradient>(*p * (1.0 / 48.0))).sum::<f32>());
    });
    g.finish();
}

fn summary(dir: &Path) {
    let names: Vec<String> = setups().into_iter().map(|s| s.0).collect();
    println!("\nterrain summary (medians, one core)");
    println!("  {:<10} {:>12} {}", "planet", "2D ns/col", LODS.map(|l| format!("  3D / both LOD {l} (ms)")).join(""));
    let mut lod0_regions = Vec::new();
    for name in &names {
        let mut line = format!("  {name:<10}");
        match common::median_ns(dir, "columns", name) {
            Some(ns) => line += &format!(" {:>12.1}", ns / (36.0 * 36.0)),
            None => line += &format!(" {:>12}", "-"),
        }
        for lod in LODS {
            let v = common::median_ns(dir, &format!("voxels_lod{lod}"), name);
            let r = common::median_ns(dir, &format!("region_lod{lod}"), name);
            if lod == 0 {
                lod0_regions.extend(r);
            }
            match (v, r) {
                (Some(v), Some(r)) => line += &format!("  {:>10.3} / {:>8.3}", v / 1e6, r / 1e6),
                _ => line += &format!("  {:>21}", "-"),
            }
        }
        println!("{line}");
    }
    if let Some(naive) = common::median_ns(dir, "naive", "fbm5_every_sample_lod0") {
        println!("  naive 5-octave fbm at all 36^3 samples: {:.3} ms", naive / 1e6);
        if !lod0_regions.is_empty() {
            lod0_regions.sort_by(f64::total_cmp);
            let median = lod0_regions[lod0_regions.len() / 2];
            let verdict = if median <= 1e6 { "met" } else { "MISSED" };
            println!(
                "  LOD-0 region, both passes, median over the planets: {:.3} ms (target <= 1.0: {verdict}); naive / ours = {:.1}",
                median / 1e6,
                naive / median
            );
        }
    }
}

fn main() {
    let c = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    common::run(c, bench, summary);
}
