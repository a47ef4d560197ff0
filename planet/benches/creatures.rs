//! Creatures: planning one herd's loop path (`Fauna::herd`, on a cell that
//! holds a herd), refusing a cell that holds none, and one animal's pose at
//! a clock time, on every default planet with animals; beside them the
//! generate stage (columns and voxels) of the LOD-0 region under each of the
//! same herds' homes. Target: a path costs at most 10% of its region's
//! generate stage.
//!
//! Up to 24 cells of each kind a planet (fewer where it has fewer herds);
//! `cargo bench -p planet --bench creatures` ends with a summary of medians
//! per herd, cell or animal.

mod common;

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::Criterion;
use planet::PlannedSystem;
use planet::creatures::{Daylight, Fauna, HerdCell};
use planet::terrain::Terrain;

/// Cells of `fauna` that hold a herd and that do not: 24 of each, spread over the planet.
fn cells(terrain: &Terrain, fauna: &Fauna) -> (Vec<HerdCell>, Vec<HerdCell>) {
    let all: Vec<HerdCell> = fauna.grid.all().collect();
    let step = (all.len() / 400).max(1);
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for &c in all.iter().step_by(step) {
        if fauna.herd(terrain, c).is_some() { with.push(c) } else { without.push(c) }
    }
    with.truncate(24);
    without.truncate(24);
    (with, without)
}

fn bench(c: &mut Criterion) {
    let system = PlannedSystem::default_system();
    for plan in &system.planets {
        let terrain = Terrain::new(plan);
        let fauna = Fauna::new(&terrain);
        let (with, without) = cells(&terrain, &fauna);
        if with.is_empty() {
            continue;
        }
        let id = format!("planet{}", plan.index);
        let mut g = c.benchmark_group("herd_24");
        g.bench_function(&id, |b| {
            b.iter(|| black_box(with.iter().filter(|&&c| fauna.herd(&terrain, c).is_some()).count()));
        });
        g.finish();
        let mut g = c.benchmark_group("no_herd_24");
        g.bench_function(&id, |b| {
            b.iter(|| black_box(without.iter().filter(|&&c| fauna.herd(&terrain, c).is_none()).count()));
        });
        g.finish();
        let keys: Vec<_> = with.iter().map(|&c| terrain.surface_key(fauna.grid.home(c), 0)).collect();
        let mut g = c.benchmark_group("generate_24");
        g.sample_size(10);
        g.bench_function(&id, |b| {
            b.iter(|| black_box(keys.iter().map(|&k| terrain.region(k).map_or(0, |v| v.voxels.len())).sum::<usize>()));
        });
        g.finish();
        let herds: Vec<_> = with.iter().filter_map(|&c| fauna.herd(&terrain, c)).collect();
        let daylight = Daylight::of_planet(system.spin(plan.index), plan.position_m);
        let mut g = c.benchmark_group("pose_24");
        g.bench_function(&id, |b| {
            let mut t = 0.0;
            b.iter(|| {
                t += 13.7;
                black_box(
                    herds
                        .iter()
                        .map(|h| h.pose(&fauna.species[usize::from(h.species)], 0, &daylight, t).position.x)
                        .sum::<f64>(),
                )
            });
        });
        g.finish();
    }
}

fn summary(dir: &Path) {
    let system = PlannedSystem::default_system();
    println!("\ncreatures summary (medians, per herd or animal)");
    for plan in &system.planets {
        let id = format!("planet{}", plan.index);
        // The same cells the bench timed: as many as the planet has of each.
        let terrain = Terrain::new(plan);
        let (with, without) = cells(&terrain, &Fauna::new(&terrain));
        let count = |group: &str| if group == "no_herd_24" { without.len() } else { with.len() }.max(1) as f64;
        let per = |group: &str| common::median_ns(dir, group, &id).map(|ns| ns / count(group) / 1e3);
        let (Some(herd), Some(generate)) = (per("herd_24"), per("generate_24")) else { continue };
        let share = herd / generate * 100.0;
        println!(
            "  planet {} {:<8} path {herd:>6.1} µs, empty cell {:>5.1} µs, pose {:>5.2} µs; generate {generate:>7.1} µs; path {share:.1}% of generate (target 10%: {})",
            plan.index,
            format!("{:?}", plan.kind),
            per("no_herd_24").unwrap_or(0.0),
            per("pose_24").unwrap_or(0.0),
            if share <= 10.0 { "met" } else { "MISSED" },
        );
    }
}

fn main() {
    let c = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    common::run(c, bench, summary);
}
