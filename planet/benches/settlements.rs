//! Settlements: the nearest settlement to a point (a search of the offset
//! grid's cells, over 1,000 random directions on each default planet),
//! listing every settlement of a planet (`SettlementSites::build`, from its
//! layout), and laying out one town. Targets: at most 20 µs a query, at most
//! 10 ms a listing.
//!
//! `cargo bench -p planet --bench settlements` ends with a summary of medians.

mod common;

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::Criterion;
use glam::Vec3;
use planet::PlannedSystem;
use planet::hash::{hash2, salt, signed_f32};
use planet::settlements::{SettlementSites, Settlements};
use planet::terrain::Terrain;

/// Query directions: 1,000 random ones.
fn directions() -> Vec<Vec3> {
    (0..1000)
        .map(|i| {
            let h = |k: i64| signed_f32(hash2(5, salt(b"bench"), i, k));
            Vec3::new(h(0), h(1), h(2)).try_normalize().unwrap_or(Vec3::Z)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let system = PlannedSystem::default_system();
    let terrains: Vec<Terrain> = system.planets.iter().map(Terrain::new).collect();
    let dirs = directions();
    let mut g = c.benchmark_group("nearest_1000");
    for (plan, t) in system.planets.iter().zip(&terrains) {
        g.bench_function(format!("planet{}", plan.index), |b| {
            b.iter(|| dirs.iter().filter(|&&d| black_box(t.settlements.nearest(d)).is_some()).count());
        });
    }
    g.finish();
    let mut g = c.benchmark_group("list");
    for (plan, t) in system.planets.iter().zip(&terrains) {
        g.bench_function(format!("planet{}", plan.index), |b| b.iter(|| SettlementSites::build(plan, &t.layout)));
    }
    g.finish();
    let plan = &system.planets[1];
    let t = &terrains[1];
    let mut g = c.benchmark_group("town");
    g.sample_size(20);
    g.bench_function("planet1_first", |b| {
        b.iter(|| {
            let fresh = Settlements::with_sites(plan, &t.layout, t.settlements.data.clone());
            black_box(fresh.town(0).map(|town| town.buildings.len()))
        });
    });
    g.finish();
}

fn summary(dir: &Path) {
    let system = PlannedSystem::default_system();
    println!("\nsettlements summary (medians)");
    for plan in &system.planets {
        let id = format!("planet{}", plan.index);
        let query = common::median_ns(dir, "nearest_1000", &id).map(|ns| ns / 1000.0 / 1e3);
        let list = common::median_ns(dir, "list", &id).map(|ns| ns / 1e6);
        let verdict = |v: Option<f64>, target: f64| v.map_or("-", |v| if v <= target { "met" } else { "MISSED" });
        println!(
            "  planet {} {:<8} nearest {:>6} µs a query (target 20: {}); listing {:>6} ms (target 10: {})",
            plan.index,
            format!("{:?}", plan.kind),
            query.map_or_else(|| "-".to_owned(), |q| format!("{q:.2}")),
            verdict(query, 20.0),
            list.map_or_else(|| "-".to_owned(), |l| format!("{l:.2}")),
            verdict(list, 10.0),
        );
    }
    if let Some(ms) = common::median_ns(dir, "town", "planet1_first").map(|ns| ns / 1e6) {
        println!("  one town of planet 1 laid out (with a fresh grid): {ms:.2} ms");
    }
}

fn main() {
    let c = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    common::run(c, bench, summary);
}
