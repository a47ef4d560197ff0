//! A survey's figures of one planet (`engine::survey::measure`): its terrain
//! made (layout and settlements), 2,048 surface samples, six columns of
//! LOD-1 regions counted for caves and 24 LOD-0 surface regions built
//! through the whole pipeline; each of the five default planets in turn.
//! Then the parts apart on the home planet: the terrain alone, and the
//! figures with the regions and caves left out, so that what the samples
//! cost is the difference. One thread; `planet survey` runs a planet a core.
//!
//! `cargo bench -p engine --bench survey`.

use std::time::Duration;

use criterion::Criterion;
use engine::survey::{SurveyPlanet, SurveySample, measure};
use planet::PlannedSystem;
use planet::terrain::Terrain;

fn bench(c: &mut Criterion) {
    let system = PlannedSystem::default_system();
    let mut g = c.benchmark_group("survey");
    for p in &system.planets {
        let id = SurveyPlanet { system: 0, planet: p.index };
        g.bench_function(format!("measure planet {} {}", p.index, p.kind), |b| {
            b.iter(|| measure(id, p, SurveySample::default()));
        });
    }
    let home = &system.planets[1];
    let id = SurveyPlanet { system: 0, planet: 1 };
    g.bench_function("terrain only, planet 1", |b| b.iter(|| Terrain::new(home)));
    let surface_only = SurveySample { regions: 0, cave_columns: 0, ..SurveySample::default() };
    g.bench_function("terrain and surface samples, planet 1", |b| b.iter(|| measure(id, home, surface_only)));
    g.finish();
}

fn main() {
    let mut c = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(8)).configure_from_args();
    bench(&mut c);
    c.final_summary();
}
