//! The planet layout: making it (each default planet; its relief on every
//! core, the rest on one), and what it costs every region: the generate
//! stage (columns + voxels) of LOD-0 surface regions on random land, and of
//! those by rivers, on stamps and on plots (the plan's worst), with the
//! layout and with it switched off
//! (`Layout::none`), in the same run. Targets: a layout in at most 300 ms;
//! generate at most 15% dearer with it.
//!
//! `cargo bench -p planet --bench layout` ends with a summary of medians and
//! each part's share of the making (timed by `PlanetLayout::build_observed`),
//! and the generate extra measured again in alternating rounds (criterion
//! times one after the other, seconds apart, and on this shared machine the
//! two medians drift apart by more than the margin being judged).

mod common;

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use glam::Vec3;
use planet::layout::{Layout, PARTS, PlanetLayout};
use planet::terrain::Terrain;
use planet::{PlannedSystem, RegionKey};

/// Places on the home planet: on river courses, on stamps' flanks, and on
/// a spread of open ground.
fn places(t: &Terrain) -> Vec<Vec3> {
    let l = &t.layout.data;
    let mut out: Vec<Vec3> = l.rivers.iter().step_by(40).map(|r| r.points[r.points.len() / 2].direction).collect();
    out.extend(
        l.stamps.iter().step_by(60).map(|s| (s.centre + s.axis * (s.radius_m * 0.4 / t.recipe.radius_m)).normalize()),
    );
    out.extend(l.plots.iter().step_by(30).map(|p| p.centre));
    out
}

/// Random places on the home planet's land (a fixed stream of directions,
/// those above the sea kept): what a LOD-0 region is, most of them far
/// from the features `places` picks.
fn land_places(t: &Terrain) -> Vec<Vec3> {
    let mut h = 0x5eed_u64;
    let mut next = || {
        h = h.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (h >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    };
    let sea = t.recipe.sea.level_m;
    std::iter::repeat_with(|| Vec3::new(next(), next(), next()))
        .filter(|v| (0.01..1.0).contains(&v.length_squared()))
        .map(Vec3::normalize)
        .filter(|&d| t.surface_at(d).surface_m > sea)
        .take(40)
        .collect()
}

/// The LOD-0 region holding `t`'s own surface at each place. Each terrain
/// takes its own: without the layout the ground there is often a region
/// lower or higher (no valley carved, no stamp raised), and the region over
/// the other terrain's surface is all air or all rock, which the voxel pass
/// fills without noise: a cheaper region, not the same work without the plan.
fn surface_regions(t: &Terrain, places: &[Vec3]) -> Vec<RegionKey> {
    places.iter().map(|&d| t.surface_key(d, 0)).collect()
}

fn bench(c: &mut Criterion) {
    let system = PlannedSystem::default_system();
    let mut g = c.benchmark_group("layout");
    g.sample_size(10);
    for plan in &system.planets {
        g.bench_function(format!("planet{}", plan.index), |b| b.iter(|| PlanetLayout::build(black_box(plan))));
    }
    g.finish();
    let (with, without) = terrains(&system.planets[1]);
    for (group, places) in [("generate", places(&with)), ("generate_land", land_places(&with))] {
        let mut g = c.benchmark_group(group);
        for (name, t) in [("with_layout", &with), ("layout_off", &without)] {
            let keys = surface_regions(t, &places);
            g.bench_function(name, |b| {
                b.iter(|| {
                    for &k in &keys {
                        black_box(t.voxels(&t.columns(k)));
                    }
                });
            });
        }
        g.finish();
    }
}

fn summary(dir: &Path) {
    let system = PlannedSystem::default_system();
    println!("\nlayout summary (medians)");
    for plan in &system.planets {
        // Each part's median over five makings, timed as the parts finish.
        let mut parts = vec![Vec::new(); PARTS.len()];
        for _ in 0..5 {
            let mut last = Instant::now();
            let mut i = 0;
            PlanetLayout::build_observed(plan, &mut |_| {
                parts[i].push(last.elapsed().as_secs_f64() * 1e3);
                last = Instant::now();
                i += 1;
            });
        }
        let med = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let shares: Vec<String> =
            PARTS.iter().zip(parts.iter_mut()).map(|(n, v)| format!("{n} {:.0}", med(v))).collect();
        let total = common::median_ns(dir, "layout", &format!("planet{}", plan.index)).map(|ns| ns / 1e6);
        let verdict = total.map_or("-", |t| if t <= 300.0 { "met" } else { "MISSED" });
        println!(
            "  planet {} {:<8} {:>7} ms (target 300: {verdict}); parts, ms: {}",
            plan.index,
            format!("{:?}", plan.kind),
            total.map_or_else(|| "-".to_owned(), |t| format!("{t:.0}")),
            shares.join(", ")
        );
    }
    let (with, without) = terrains(&system.planets[1]);
    for (group, what, places) in [
        ("generate_land", "40 LOD-0 regions on random land", land_places(&with)),
        ("generate", "25 LOD-0 regions on rivers, stamps and plots", places(&with)),
    ] {
        let criterion = (common::median_ns(dir, group, "with_layout"), common::median_ns(dir, group, "layout_off"));
        if let (Some(a), Some(b)) = criterion {
            println!(
                "  generate of {what}: {:.0} µs with the layout, {:.0} µs without: {:+.1}% (criterion's medians)",
                a / 1e3,
                b / 1e3,
                (a / b - 1.0) * 100.0
            );
        }
        let (a, b, extra) = paired(&with, &without, &places);
        let verdict = if extra <= 15.0 { "met" } else { "MISSED" };
        println!(
            "    paired, {PAIRED_ROUNDS} rounds: {a:.0} µs with, {b:.0} µs without; median round {extra:+.1}% (target +15%: {verdict})"
        );
    }
}

/// Rounds of the paired comparison.
const PAIRED_ROUNDS: usize = 41;

/// Generate of the regions at `places` with the layout and without, in
/// alternating rounds (which goes first alternates too), so a change in the
/// machine's speed falls on both alike: the median time of each, µs, and
/// the median of the rounds' extra, %.
fn paired(with: &Terrain, without: &Terrain, places: &[Vec3]) -> (f64, f64, f64) {
    let keys = [surface_regions(with, places), surface_regions(without, places)];
    let time = |t: &Terrain, keys: &[RegionKey]| {
        let start = Instant::now();
        for &k in keys {
            black_box(t.voxels(&t.columns(k)));
        }
        start.elapsed().as_secs_f64() * 1e6
    };
    let (mut a, mut b, mut extra) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..PAIRED_ROUNDS {
        let (x, y) = if round % 2 == 0 {
            let x = time(with, &keys[0]);
            (x, time(without, &keys[1]))
        } else {
            let y = time(without, &keys[1]);
            (time(with, &keys[0]), y)
        };
        a.push(x);
        b.push(y);
        extra.push((x / y - 1.0) * 100.0);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (median(&mut a), median(&mut b), median(&mut extra))
}

/// The home planet's terrain with its layout and with it switched off.
fn terrains(plan: &planet::PlanetPlan) -> (Terrain, Terrain) {
    let with = Terrain::new(plan);
    let without =
        Terrain::with_layout(plan, Arc::new(Layout::none(plan.recipe.radius_m, plan.recipe.terrain.rivers.valley_m)));
    (with, without)
}

fn main() {
    let c = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    common::run(c, bench, summary);
}
