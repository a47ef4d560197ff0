//! Pins the exact bits of every noise function at fixed points, including
//! negative coordinates and coordinates tens of kilometres from the origin.
//! A changed bit changes every world: it needs a `GENERATOR_VERSION` bump.

mod common;

use glam::{Vec2, Vec3};
use planet::noise::{
    Fractal, FractalParams, Gradient, Value, Warp3, cellular2, cellular3, gradient2, gradient3, value2, value3,
};
use serde_json::{Map, Value as Json, json};

/// Points in metres: near the origin, negative, on lattice corners, and far out.
const POINTS: [[f32; 3]; 8] = [
    [0.0, 0.0, 0.0],
    [0.37, -1.25, 2.5],
    [-3.75, -0.125, -7.5],
    [123.456, -654.321, 98.765],
    [-12_345.678, 23_456.79, -34_567.89],
    [45_678.9, -56_789.01, 67_890.12],
    [-80_000.5, 80_000.25, -0.75],
    [31_999.99, 32_000.01, -32_000.0],
];

fn bits(v: f32) -> Json {
    json!(format!("{:#010x} ({v:e})", v.to_bits()))
}

#[test]
fn noise_bits_are_pinned() {
    let mut out = Map::new();
    let fbm = Fractal::new(42, FractalParams { octaves: 6, lacunarity: 2.0, gain: 0.5 });
    let warp = Warp3::new(43, FractalParams { octaves: 2, lacunarity: 2.0, gain: 0.5 }, 0.25, 1.5);
    for (i, p) in POINTS.iter().enumerate() {
        let m = Vec3::from_array(*p);
        // Lattice units as terrain uses them: metres times a layer's frequency.
        let l = m * (1.0 / 16.0);
        let mut row = Map::new();
        row.insert("gradient3".into(), bits(gradient3(7, l.x, l.y, l.z)));
        row.insert("gradient3_metres".into(), bits(gradient3(7, m.x, m.y, m.z)));
        row.insert("gradient2".into(), bits(gradient2(7, l.x, l.y)));
        row.insert("value3".into(), bits(value3(7, l.x, l.y, l.z)));
        row.insert("value2".into(), bits(value2(7, l.x, l.y)));
        row.insert("fbm3_gradient".into(), bits(fbm.fbm3::<Gradient>(l)));
        row.insert("fbm3_value".into(), bits(fbm.fbm3::<Value>(l)));
        row.insert("fbm2_gradient".into(), bits(fbm.fbm2::<Gradient>(Vec2::new(l.x, l.z))));
        row.insert("ridged3".into(), bits(fbm.ridged3::<Gradient>(l)));
        row.insert("ridged2".into(), bits(fbm.ridged2::<Gradient>(Vec2::new(l.x, l.y))));
        row.insert("turbulence3".into(), bits(fbm.turbulence3::<Gradient>(l)));
        let w = warp.warp(l);
        row.insert("warp3".into(), json!([bits(w.x), bits(w.y), bits(w.z)]));
        let c3 = cellular3(7, l, 1.0);
        row.insert("cellular3".into(), json!([bits(c3.f1), bits(c3.f2), c3.id]));
        let c2 = cellular2(7, Vec2::new(l.x, l.y), 0.8);
        row.insert("cellular2".into(), json!([bits(c2.f1), bits(c2.f2), c2.id]));
        out.insert(format!("p{i} ({}, {}, {})", p[0], p[1], p[2]), Json::Object(row));
    }
    common::check_golden("noise.json", &Json::Object(out));
}
