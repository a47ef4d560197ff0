//! A region job as the streamer runs it (`PlanetBuilder::build_with`: every
//! stage, physics included, and the voxel signature), for the kinds of
//! LOD-0 region a column of the home planet's land holds: the one the
//! surface crosses; those the 2D pass proves all air (`Terrain::proves_all_air`:
//! over every column's overhang band); those all air that it cannot prove
//! so (their lowest layers in the band, where the 3D noise is worked out);
//! and those all rock under the surface (caves run through them, so nothing
//! proves them solid). A column's regions share their 2D pass
//! (`ColumnMemo`), as they do when streamed: each timed job but the surface
//! one's follows its column's surface region, built untimed. Issue 21's
//! target for a region the 2D pass proves empty is 0.1 ms.
//!
//! `cargo bench -p engine --bench region_job` prints how many regions of
//! each kind its 40 columns hold, then the mean job of each kind, then
//! where a surface job's time goes: each stage's mean (its own clock, as
//! the streamer records it in `BuiltRegion::times`), the median of ten
//! rounds over the 40 surface regions. Last, the surface regions of the
//! same columns at LODs 0 to 6 without their physics (as the streamer
//! builds all but the nearest): each LOD's mean job and its stages, built
//! first by a fresh builder (its habitat memo empty) and then again (the
//! memo holding their nodes, as for a region whose neighbours or parent
//! were built before it). Last of all, how many regions with triangles two
//! threads build a second: the surface regions of 200 land columns at
//! LODs 0 to 4, without and with their physics (issue 21's target: 1,500).

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use engine::{BuiltRegion, PlanetBuilder, RegionBuilder};
use glam::Vec3;
use jobs::CancelToken;
use planet::edit::RegionEdits;
use planet::pipeline::Pipeline;
use planet::terrain::Terrain;
use planet::{PlannedSystem, RegionKey};

/// Columns on random land of the home planet (a fixed stream of directions).
const COLUMNS: usize = 40;

/// The kinds of region, in the order they are benched.
const KINDS: [&str; 4] = ["surface", "proven_air", "other_air", "all_rock"];

/// A column's surface region and its other regions, each with its kind (an index into `KINDS`).
type Column = (RegionKey, Vec<(usize, RegionKey)>);

/// Directions to `count` points of the planet's land (a fixed stream).
fn land(t: &Terrain, count: usize) -> Vec<Vec3> {
    let mut h = 0x5eed_u64;
    let mut next = || {
        h = h.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (h >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    };
    let sea = t.recipe.sea.level_m;
    let land = std::iter::repeat_with(|| Vec3::new(next(), next(), next()))
        .filter(|v| (0.01..1.0).contains(&v.length_squared()))
        .map(Vec3::normalize)
        .filter(|&d| t.surface_at(d).surface_m > sea);
    land.take(count).collect()
}

fn columns(builder: &PlanetBuilder) -> Vec<Column> {
    let t = builder.terrain();
    let cancel = CancelToken::new();
    land(t, COLUMNS)
        .into_iter()
        .map(|d| {
            let surface = t.surface_key(d, 0);
            let mut others = Vec::new();
            for z in (0..t.grid.regions_up(0)).filter(|&z| z != surface.z) {
                let key = RegionKey { z, ..surface };
                let region = builder.build(key, &cancel).expect("not cancelled");
                if has_triangles(&region) {
                    continue;
                }
                let kind = match (z > surface.z, t.proves_all_air(&t.columns(key))) {
                    (true, true) => 1,
                    (true, false) => 2,
                    (false, _) => 3,
                };
                others.push((kind, key));
            }
            (surface, others)
        })
        .collect()
}

/// Whether a region has any triangle to draw: terrain or water.
fn has_triangles(region: &BuiltRegion) -> bool {
    !region.mesh.terrain.indices.is_empty() || !region.mesh.water.indices.is_empty()
}

/// The upper median of `values` (the middle one of an odd count).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The mean time of one job of kind `kind`.
fn mean_job(builder: &PlanetBuilder, columns: &[Column], kind: usize) -> Duration {
    let cancel = CancelToken::new();
    let edits = RegionEdits::default();
    let (mut total, mut jobs) = (Duration::ZERO, 0u32);
    for (surface, others) in columns {
        let keys: Vec<RegionKey> = if kind == 0 {
            vec![*surface]
        } else {
            others.iter().filter(|(k, _)| *k == kind).map(|(_, key)| *key).collect()
        };
        for key in keys {
            if kind != 0 {
                builder.build_with(*surface, &edits, true, &cancel);
            }
            let start = Instant::now();
            std::hint::black_box(builder.build_with(key, &edits, true, &cancel));
            total += start.elapsed();
            jobs += 1;
        }
    }
    total / jobs.max(1)
}

fn bench(c: &mut Criterion) {
    let system = PlannedSystem::default_system();
    let builder = PlanetBuilder::new(Arc::new(Terrain::new(&system.planets[1])));
    let columns = columns(&builder);
    let count = |kind: usize| columns.iter().flat_map(|c| &c.1).filter(|(k, _)| *k == kind).count();
    eprintln!(
        "{COLUMNS} columns: {} regions proven all air, {} other all air, {} all rock",
        count(1),
        count(2),
        count(3)
    );
    let mut g = c.benchmark_group("region_job");
    g.sample_size(10);
    for (kind, name) in KINDS.iter().enumerate() {
        g.bench_function(*name, |b| {
            b.iter_custom(|iters| (0..iters).map(|_| mean_job(&builder, &columns, kind)).sum());
        });
    }
    g.finish();
    stage_breakdown(&builder, &columns);
    lod_breakdown(&system);
    throughput(&system);
}

/// Land columns whose surface regions the throughput rounds build.
const THROUGHPUT_COLUMNS: usize = 200;

/// Prints how many regions with triangles two threads build a second (issue
/// 21's target: 1,500 on two cores): the surface regions of
/// `THROUGHPUT_COLUMNS` land columns at each LOD, shared out one at a time
/// as the job pool does, without and with their physics. Each round has a
/// fresh builder, so no memo holds what it builds (as for ground the camera
/// has not seen); the median of three rounds.
fn throughput(system: &PlannedSystem) {
    const ROUNDS: usize = 3;
    const THREADS: usize = 2;
    eprintln!(
        "regions with triangles built a second by {THREADS} threads (surface regions of {THROUGHPUT_COLUMNS} land columns, median of {ROUNDS} rounds; target 1,500):"
    );
    eprintln!("  LOD  without physics  with physics");
    let terrain = Arc::new(Terrain::new(&system.planets[1]));
    let directions = land(&terrain, THROUGHPUT_COLUMNS);
    for lod in 0..5u8 {
        let keys: Vec<RegionKey> = directions.iter().map(|&d| terrain.surface_key(d, lod)).collect();
        let rates = [false, true].map(|physics| {
            median(
                (0..ROUNDS).map(|_| rate(&PlanetBuilder::new(Arc::clone(&terrain)), &keys, physics, THREADS)).collect(),
            )
        });
        eprintln!("  {lod:>3}  {:>15.0}  {:>12.0}", rates[0], rates[1]);
    }
}

/// Regions with triangles that `threads` threads build a second from `keys`.
fn rate(builder: &PlanetBuilder, keys: &[RegionKey], physics: bool, threads: usize) -> f64 {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (next, non_empty) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let edits = RegionEdits::default();
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let cancel = CancelToken::new();
                while let Some(&key) = keys.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let region = builder.build_with(key, &edits, physics, &cancel).expect("not cancelled");
                    if has_triangles(&region) {
                        non_empty.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    non_empty.into_inner() as f64 / start.elapsed().as_secs_f64()
}

/// Prints, for each LOD, the mean job of the surface regions of the
/// bench's columns without physics and its stages (µs), built once by a
/// fresh builder and then, the median of five more rounds, again.
fn lod_breakdown(system: &PlannedSystem) {
    const ROUNDS: usize = 5;
    let cancel = CancelToken::new();
    let edits = RegionEdits::default();
    // The stages before physics: the collider is the first of those.
    let stages: Vec<_> = Pipeline::standard().region_stages().take_while(|(_, s)| s.name != "collider").collect();
    eprintln!(
        "surface jobs without physics by LOD (mean µs a region; the first round by a fresh builder, then the median of {ROUNDS}):"
    );
    let names: String = stages.iter().map(|(_, s)| format!(" {:>11}", s.name)).collect();
    eprintln!("  LOD  round        whole{names}");
    for lod in 0..7u8 {
        let builder = PlanetBuilder::new(Arc::new(Terrain::new(&system.planets[1])));
        let t = builder.terrain();
        let keys: Vec<RegionKey> = land(t, COLUMNS).into_iter().map(|d| t.surface_key(d, lod)).collect();
        let mut rounds: Vec<Vec<f64>> = Vec::new();
        for _ in 0..=ROUNDS {
            let mut sums = vec![Duration::ZERO; stages.len() + 1];
            for &key in &keys {
                let start = Instant::now();
                let region = builder.build_with(key, &edits, false, &cancel).expect("not cancelled");
                sums[0] += start.elapsed();
                for (sum, &(i, _)) in sums[1..].iter_mut().zip(&stages) {
                    *sum += region.times.0[i];
                }
            }
            rounds.push(sums.iter().map(|d| d.as_secs_f64() * 1e6 / keys.len() as f64).collect());
        }
        let first = rounds.remove(0);
        let again: Vec<f64> = (0..first.len()).map(|k| median(rounds.iter().map(|r| r[k]).collect())).collect();
        for (label, row) in [("first", &first), ("again", &again)] {
            let cells: String = row.iter().map(|us| format!(" {us:>11.0}")).collect();
            eprintln!("  {lod:>3}  {label:<5}{cells}");
        }
    }
}

/// Prints each stage's share of a surface job: the median over ten rounds
/// of its mean time over the surface regions, and the whole job's.
fn stage_breakdown(builder: &PlanetBuilder, columns: &[Column]) {
    const ROUNDS: usize = 10;
    let cancel = CancelToken::new();
    let edits = RegionEdits::default();
    let stages: Vec<_> = Pipeline::standard().region_stages().collect();
    // Each round's mean of each region stage, then of the whole job.
    let mut rounds = vec![Vec::with_capacity(ROUNDS); stages.len() + 1];
    for _ in 0..ROUNDS {
        let mut sums = vec![Duration::ZERO; stages.len() + 1];
        for (surface, _) in columns {
            let start = Instant::now();
            let region = builder.build_with(*surface, &edits, true, &cancel).expect("not cancelled");
            sums[stages.len()] += start.elapsed();
            for (sum, &(i, _)) in sums.iter_mut().zip(&stages) {
                *sum += region.times.0[i];
            }
        }
        for (round, sum) in rounds.iter_mut().zip(&sums) {
            round.push(sum.as_secs_f64() * 1e6 / columns.len() as f64);
        }
    }
    let medians: Vec<f64> = rounds.into_iter().map(median).collect();
    let whole = medians[stages.len()];
    eprintln!("a surface job's stages (mean µs a region, median of {ROUNDS} rounds):");
    for ((_, stage), us) in stages.iter().zip(&medians) {
        eprintln!("  {:<16} {us:>8.1} µs {:>5.1}%", stage.name, 100.0 * us / whole);
    }
    eprintln!("  {:<16} {whole:>8.1} µs (target 1,500)", "whole job");
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
