//! Material textures at start-up (issue 21: start-up before streaming, and
//! the first frame, wait on them): every layer of the default system, as
//! `MaterialSet::generate` makes them on its threads, and one layer of each
//! pattern on one thread.
//!
//! `cargo bench -p render --bench textures`.

use std::time::Duration;

use criterion::Criterion;
use planet::PlannedSystem;
use render::{MaterialSet, material_layer};

fn main() {
    let mut c = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(8)).configure_from_args();
    let system = PlannedSystem::default_system();
    c.bench_function("textures/default system", |b| b.iter(|| MaterialSet::generate(&system)));
    let mut seen = Vec::new();
    for (i, m) in system.planets.iter().flat_map(|p| p.recipe.materials.iter()).enumerate() {
        if !seen.contains(&m.pattern) {
            seen.push(m.pattern);
            let name = format!("textures/one layer/{:?}", m.pattern);
            c.bench_function(&name, |b| b.iter(|| material_layer(m, i as u64)));
        }
    }
    c.final_summary();
}
