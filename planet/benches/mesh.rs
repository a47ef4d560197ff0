//! Meshing throughput on the golden regions' grids: dual contouring and
//! surface nets (`fast-surface-nets`) on the same grids in one run, µs per
//! region and their ratio (target: dual contouring within 2.5x), and spherify
//! µs per region.
//!
//! `cargo bench -p planet --bench mesh` ends with a summary of medians.

mod common;

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::Criterion;
use planet::mesh::{
    CubePart, DualContourWorkspace, MeshWorkspace, SurfaceNetsWorkspace, dual_contour, polygonize, spherify,
    surface_nets_mesh,
};
use planet::terrain::{ColumnField, Terrain, VoxelGrid, lat_lon_direction};
use planet::{PlannedSystem, RegionKey};

/// Surface regions of the golden set (the grids every mesh test uses).
fn regions() -> Vec<(String, Terrain, ColumnField, VoxelGrid)> {
    let system = PlannedSystem::default_system();
    let cases: [(&str, usize, f32, f32, u8); 6] = [
        ("rocky_mountains_lod0", 1, 43.5, -179.5, 0),
        ("rocky_coast_lod0", 1, 2.0, -15.0, 0),
        ("lava_shore_lod0", 0, 30.0, -40.0, 0),
        ("desert_dunes_lod0", 3, 10.0, 10.0, 0),
        ("ice_sheet_lod0", 4, -20.0, 100.0, 0),
        ("rocky_mountains_lod3", 1, 43.5, -179.5, 3),
    ];
    cases
        .iter()
        .map(|&(name, planet, lat, lon, lod)| {
            let t = Terrain::new(&system.planets[planet]);
            let key: RegionKey = t.surface_key(lat_lon_direction(lat, lon), lod);
            let columns = t.columns(key);
            let voxels = t.voxels(&columns);
            (name.to_owned(), t, columns, voxels)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let regions = regions();
    let mut dc_ws = DualContourWorkspace::default();
    let mut sn_ws = SurfaceNetsWorkspace::default();
    let mut ws = MeshWorkspace::default();
    let mut part = CubePart::default();
    // One group per region, the polygonizers back to back, so that the ratio
    // compares runs minutes apart at most on a noisy machine.
    for (name, t, columns, voxels) in &regions {
        let mut g = c.benchmark_group(name.as_str());
        g.bench_function("dual_contour", |b| {
            b.iter(|| dual_contour(t, columns, black_box(voxels), &mut dc_ws, &mut part));
        });
        g.bench_function("surface_nets", |b| {
            b.iter(|| surface_nets_mesh(t, columns, black_box(voxels), &mut sn_ws, &mut part));
        });
        let cube = polygonize(t, columns, voxels, &mut ws);
        g.bench_function("spherify", |b| b.iter(|| spherify(&t.grid, black_box(&cube))));
        g.finish();
    }
}

fn summary(dir: &Path) {
    let mut ws = MeshWorkspace::default();
    println!("\nmesh summary (medians, µs per region)");
    println!(
        "  {:<22} {:>10} {:>10} {:>7} {:>10} {:>10}",
        "region", "dual cont.", "surf. nets", "ratio", "spherify", "triangles"
    );
    let mut worst: f64 = 0.0;
    for (name, t, columns, voxels) in regions() {
        let triangles = polygonize(&t, &columns, &voxels, &mut ws).terrain.triangles.len() / 3;
        let dc = common::median_us(dir, &name, "dual_contour");
        let sn = common::median_us(dir, &name, "surface_nets");
        let sp = common::median_us(dir, &name, "spherify");
        let fmt = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.1}"));
        let ratio = dc.zip(sn).map(|(a, b)| a / b);
        worst = worst.max(ratio.unwrap_or(0.0));
        println!(
            "  {name:<22} {:>10} {:>10} {:>7} {:>10} {triangles:>10}",
            fmt(dc),
            fmt(sn),
            ratio.map_or_else(|| "-".to_owned(), |r| format!("{r:.2}")),
            fmt(sp)
        );
    }
    let verdict = if worst <= 2.5 { "met" } else { "MISSED" };
    println!("  worst dual contouring / surface nets ratio: {worst:.2} (target <= 2.5: {verdict})");
}

fn main() {
    let c = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    common::run(c, bench, summary);
}
