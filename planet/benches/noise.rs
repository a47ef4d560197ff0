//! Noise throughput: ns per sample for every kind of noise in `planet::noise`,
//! and, in the same run, the `noise` crate's `Fbm<Perlin>` for comparison.
//!
//! `cargo bench -p planet --bench noise` prints criterion's figures, then a
//! summary table of median ns per sample and the ratio of our 5-octave 3D
//! gradient fbm to the `noise` crate's (the target is a ratio at or below 1).

mod common;

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput};
use glam::{Vec2, Vec3};
use noise::{MultiFractal, NoiseFn};
use planet::noise::{
    Fractal, FractalParams, Gradient, Value, Warp3, cellular2, cellular3, gradient2, gradient3, value2, value3,
};

/// Samples per iteration: a 16^3 block of points 0.37 lattice units apart, so
/// that most samples of the higher octaves fall in a new lattice cell.
const SIDE: usize = 16;
const N: usize = SIDE * SIDE * SIDE;

fn points() -> Vec<Vec3> {
    let mut p = Vec::with_capacity(N);
    for z in 0..SIDE {
        for y in 0..SIDE {
            for x in 0..SIDE {
                p.push(Vec3::new(x as f32, y as f32, z as f32) * 0.37 + Vec3::new(-2.9, 11.3, 5.7));
            }
        }
    }
    p
}

fn params(octaves: u32) -> FractalParams {
    FractalParams { octaves, lacunarity: 2.0, gain: 0.5 }
}

fn bench(c: &mut Criterion) {
    let pts = points();
    let pts64: Vec<[f64; 3]> = pts.iter().map(|p| [f64::from(p.x), f64::from(p.y), f64::from(p.z)]).collect();

    let mut g = c.benchmark_group("basis");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("gradient2", |b| b.iter(|| pts.iter().map(|p| gradient2(1, p.x, p.y)).sum::<f32>()));
    g.bench_function("gradient3", |b| b.iter(|| pts.iter().map(|p| gradient3(1, p.x, p.y, p.z)).sum::<f32>()));
    g.bench_function("value2", |b| b.iter(|| pts.iter().map(|p| value2(1, p.x, p.y)).sum::<f32>()));
    g.bench_function("value3", |b| b.iter(|| pts.iter().map(|p| value3(1, p.x, p.y, p.z)).sum::<f32>()));
    g.bench_function("cellular2", |b| b.iter(|| pts.iter().map(|p| cellular2(1, p.truncate(), 1.0).f1).sum::<f32>()));
    g.bench_function("cellular3", |b| b.iter(|| pts.iter().map(|p| cellular3(1, *p, 1.0).f1).sum::<f32>()));
    g.finish();

    let mut g = c.benchmark_group("fractal");
    g.throughput(Throughput::Elements(N as u64));
    for octaves in [4u32, 5, 6] {
        let f = Fractal::new(1, params(octaves));
        g.bench_function(format!("fbm3_gradient_{octaves}oct"), |b| {
            b.iter(|| pts.iter().map(|p| f.fbm3::<Gradient>(*black_box(p))).sum::<f32>());
        });
        let theirs = noise::Fbm::<noise::Perlin>::new(1).set_octaves(octaves as usize);
        g.bench_function(format!("noise_crate_fbm_perlin_{octaves}oct"), |b| {
            b.iter(|| pts64.iter().map(|p| theirs.get(*black_box(p))).sum::<f64>());
        });
    }
    let f5 = Fractal::new(1, params(5));
    g.bench_function("fbm3_value_5oct", |b| b.iter(|| pts.iter().map(|p| f5.fbm3::<Value>(*p)).sum::<f32>()));
    g.bench_function("fbm2_gradient_5oct", |b| {
        b.iter(|| pts.iter().map(|p| f5.fbm2::<Gradient>(Vec2::new(p.x, p.y))).sum::<f32>());
    });
    g.bench_function("ridged3_gradient_5oct", |b| {
        b.iter(|| pts.iter().map(|p| f5.ridged3::<Gradient>(*p)).sum::<f32>());
    });
    g.bench_function("turbulence3_gradient_5oct", |b| {
        b.iter(|| pts.iter().map(|p| f5.turbulence3::<Gradient>(*p)).sum::<f32>());
    });
    let warp = Warp3::new(2, params(2), 0.25, 1.5);
    g.bench_function("warp3_2oct_then_fbm3_5oct", |b| {
        b.iter(|| pts.iter().map(|p| f5.fbm3::<Gradient>(warp.warp(*p))).sum::<f32>());
    });
    g.finish();
}

fn summary(dir: &Path) {
    println!("\nnoise summary: median ns per sample ({N} samples per iteration)");
    for (group, ids) in [
        ("basis", &["gradient2", "gradient3", "value2", "value3", "cellular2", "cellular3"][..]),
        (
            "fractal",
            &[
                "fbm3_gradient_4oct",
                "noise_crate_fbm_perlin_4oct",
                "fbm3_gradient_5oct",
                "noise_crate_fbm_perlin_5oct",
                "fbm3_gradient_6oct",
                "noise_crate_fbm_perlin_6oct",
                "fbm3_value_5oct",
                "fbm2_gradient_5oct",
                "ridged3_gradient_5oct",
                "turbulence3_gradient_5oct",
                "warp3_2oct_then_fbm3_5oct",
            ][..],
        ),
    ] {
        for id in ids {
            match ns_per_sample(dir, group, id) {
                Some(ns) => println!("  {id:<32} {ns:>8.2} ns"),
                None => println!("  {id:<32}    (not run)"),
            }
        }
    }
    for octaves in [4, 5, 6] {
        let ours = ns_per_sample(dir, "fractal", &format!("fbm3_gradient_{octaves}oct"));
        let theirs = ns_per_sample(dir, "fractal", &format!("noise_crate_fbm_perlin_{octaves}oct"));
        if let (Some(a), Some(b)) = (ours, theirs) {
            let verdict =
                if octaves == 5 { if a <= b { "  (target <= 1: met)" } else { "  (target <= 1: MISSED)" } } else { "" };
            println!("  ratio ours / noise crate, 3D fbm {octaves} octaves: {:.2}{verdict}", a / b);
        }
    }
}

fn main() {
    common::run(Criterion::default(), bench, summary);
}

/// Median ns per sample of one benchmark.
fn ns_per_sample(dir: &Path, group: &str, id: &str) -> Option<f64> {
    common::median_ns(dir, group, id).map(|ns| ns / N as f64)
}
