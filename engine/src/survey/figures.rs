//! One planet's figures for a survey, measured headless from its terrain:
//! land and sea from the surface over a Fibonacci sphere of directions, an
//! elevation histogram, biome shares over its land, cave volume in columns
//! of regions through the voxel shell, its plan's rivers, lakes and plots,
//! its settlements, and a sample of surface regions built through the whole
//! region pipeline (triangles, scatter, build times).
//!
//! Everything but the times is a pure function of the planet's recipe; the
//! times go into [`PlanetTimings`], apart, so tables of figures stay
//! identical from run to run and shard to shard.

use std::time::{Duration, Instant};

use glam::Vec3;
use planet::mesh::SphereMesh;
use planet::pipeline::{Pipeline, RegionInput, StageTimes, stages};
use planet::scatter::Scatter;
use planet::terrain::{Terrain, VoxelGrid};
use planet::{PlanetPlan, RegionKey};
use serde::{Deserialize, Serialize};

use super::flags::Flag;
use super::selection::SurveyPlanet;

/// The edges of the elevation histogram's bins, metres above sea level (the
/// base radius where a planet has no sea): the first bin is everything
/// below the first edge, the last everything above the last.
pub const ELEVATION_EDGES_M: [f32; 11] = [-500.0, -200.0, -100.0, -50.0, -20.0, 0.0, 20.0, 50.0, 100.0, 200.0, 500.0];

/// How much of a planet a survey samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SurveySample {
    /// Directions the surface is read at (land, sea, elevation, biomes).
    pub directions: u32,
    /// LOD-0 surface regions built through the whole pipeline.
    pub regions: u32,
    /// Columns of LOD-1 regions, ground to sky, whose voxels are counted for caves.
    pub cave_columns: u32,
}

impl Default for SurveySample {
    fn default() -> Self {
        Self { directions: 2048, regions: 24, cave_columns: 6 }
    }
}

/// What a survey says of one planet: a pure function of its recipe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanetFigures {
    /// Which planet.
    pub id: SurveyPlanet,
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: String,
    /// Its recipe's signature.
    pub signature: String,
    /// Base radius, metres.
    pub radius_m: f64,
    /// Share of the sampled surface above the sea (all of it without a sea).
    pub land_share: f64,
    /// Share of the sampled surface under the sea.
    pub sea_share: f64,
    /// Share of the samples in each bin of [`ELEVATION_EDGES_M`].
    pub elevation: Vec<f64>,
    /// The 5th and 95th percentile of the surface above sea level, metres.
    pub elevation_p5_p95_m: [f64; 2],
    /// Each biome's share of the land (of all samples on a planet with
    /// none), largest first, those with none left out.
    pub biomes: Vec<(String, f64)>,
    /// Share of the ground (the voxel shell's solid before caves are
    /// carved) that caves and cave mouths open.
    pub cave_share: f64,
    /// Rivers in the plan.
    pub rivers: usize,
    /// Their length in all, kilometres.
    pub river_km: f64,
    /// Lakes in the plan.
    pub lakes: usize,
    /// Mountain stamps in the plan.
    pub stamps: usize,
    /// Buildable plots in the plan.
    pub plots: usize,
    /// Settlements.
    pub settlements: usize,
    /// Scattered objects (and buildings) a sampled surface region holds, mean.
    pub scatter_per_region: f64,
    /// Triangles a sampled surface region holds, mean.
    pub triangles_per_region: f64,
    /// Share of sampled surface regions with no triangle at all.
    pub empty_region_share: f64,
    /// The checks that fail (see [`Flag`]).
    pub flags: Vec<Flag>,
}

impl PlanetFigures {
    /// The figures of planet `id` (of `plan`) whose measuring panicked with
    /// `message`: all zero, flagged [`Flag::Crashed`].
    #[must_use]
    pub fn crashed(id: SurveyPlanet, plan: &PlanetPlan, message: &str) -> Self {
        Self {
            id,
            name: plan.name.clone(),
            kind: plan.kind.to_string(),
            signature: plan.signature().to_string(),
            radius_m: f64::from(plan.recipe.radius_m),
            land_share: 0.0,
            sea_share: 0.0,
            elevation: vec![0.0; ELEVATION_EDGES_M.len() + 1],
            elevation_p5_p95_m: [0.0; 2],
            biomes: Vec::new(),
            cave_share: 0.0,
            rivers: 0,
            river_km: 0.0,
            lakes: 0,
            stamps: 0,
            plots: 0,
            settlements: 0,
            scatter_per_region: 0.0,
            triangles_per_region: 0.0,
            empty_region_share: 0.0,
            flags: vec![Flag::crashed(message)],
        }
    }

    /// The share of the largest biome (0 when there is none).
    #[must_use]
    pub fn top_biome_share(&self) -> f64 {
        self.biomes.first().map_or(0.0, |b| b.1)
    }
}

/// What was timed beside a planet's figures: depends on the machine and its load.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanetTimings {
    /// Which planet.
    pub id: SurveyPlanet,
    /// Making its terrain (layout, settlements), milliseconds.
    pub plan_ms: f64,
    /// A sampled region's whole pipeline, median and 95th percentile, milliseconds.
    pub region_ms: [f64; 2],
    /// A sampled region's generate stages (columns and voxels), median, milliseconds.
    pub generate_ms: f64,
    /// All of the figures, seconds.
    pub figures_s: f64,
    /// The pictures, seconds (0 without any).
    pub views_s: f64,
    /// Views that did not settle in their time.
    pub unsettled: Vec<String>,
    /// The timing checks that fail (see [`super::timing_flags`]).
    pub flags: Vec<Flag>,
}

impl PlanetTimings {
    /// No times: those of a planet whose measuring panicked.
    #[must_use]
    pub fn none(id: SurveyPlanet) -> Self {
        Self {
            id,
            plan_ms: 0.0,
            region_ms: [0.0; 2],
            generate_ms: 0.0,
            figures_s: 0.0,
            views_s: 0.0,
            unsettled: Vec::new(),
            flags: Vec::new(),
        }
    }
}

/// Measures `plan` (planet `id` of a survey): its terrain is made here.
#[must_use]
pub fn measure(id: SurveyPlanet, plan: &PlanetPlan, sample: SurveySample) -> (PlanetFigures, PlanetTimings) {
    let start = Instant::now();
    let terrain = Terrain::new(plan);
    let plan_ms = ms(start.elapsed());
    let mut figures = surface_figures(id, plan, &terrain, sample.directions);
    let regions = region_sample(&terrain, sample.regions);
    figures.scatter_per_region = mean(regions.iter().map(|r| r.objects as f64));
    figures.triangles_per_region = mean(regions.iter().map(|r| r.triangles as f64));
    figures.empty_region_share = mean(regions.iter().map(|r| f64::from(u8::from(r.triangles == 0))));
    figures.cave_share = cave_share(&terrain, sample.cave_columns);
    figures.flags = Flag::of_figures(&figures, plan);
    let mut total: Vec<f64> = regions.iter().map(|r| r.total_ms).collect();
    let mut generate: Vec<f64> = regions.iter().map(|r| r.generate_ms).collect();
    let timings = PlanetTimings {
        id,
        plan_ms,
        region_ms: [percentile(&mut total, 0.5), percentile(&mut total, 0.95)],
        generate_ms: percentile(&mut generate, 0.5),
        figures_s: start.elapsed().as_secs_f64(),
        views_s: 0.0,
        unsettled: Vec::new(),
        flags: Vec::new(),
    };
    (figures, timings)
}

/// The `n` directions of a Fibonacci sphere, turned by `turn` of a golden
/// angle so that two sets with different turns do not coincide.
fn fibonacci(n: u32, turn: f32) -> impl Iterator<Item = Vec3> {
    (0..n).map(move |i| {
        let y = 1.0 - (i as f32 + 0.5) / n as f32 * 2.0;
        let r = libm::sqrtf((1.0 - y * y).max(0.0));
        let angle = (i as f32 + turn) * 2.399_963;
        Vec3::new(r * libm::cosf(angle), y, r * libm::sinf(angle))
    })
}

/// Land, sea, elevation, biomes and the plan's figures.
fn surface_figures(id: SurveyPlanet, plan: &PlanetPlan, terrain: &Terrain, n: u32) -> PlanetFigures {
    let r = &plan.recipe;
    let sea = if r.sea.enabled { r.sea.level_m } else { 0.0 };
    let mut bins = vec![0u32; ELEVATION_EDGES_M.len() + 1];
    let mut heights = Vec::with_capacity(n as usize);
    let (mut land_biomes, mut all_biomes) = (vec![0u32; r.biomes.len()], vec![0u32; r.biomes.len()]);
    let mut land = 0u32;
    for d in fibonacci(n, 0.0) {
        let s = terrain.surface_at(d);
        let above = s.surface_m - sea;
        bins[ELEVATION_EDGES_M.partition_point(|&e| e <= above)] += 1;
        heights.push(f64::from(above));
        let biome = usize::from(s.ground.biome).min(r.biomes.len() - 1);
        all_biomes[biome] += 1;
        if !r.sea.enabled || above > 0.0 {
            land += 1;
            land_biomes[biome] += 1;
        }
    }
    let counts = if land > 0 { land_biomes } else { all_biomes };
    let counted: u32 = counts.iter().sum();
    let mut biomes: Vec<(String, f64)> = (r.biomes.iter().zip(&counts))
        .filter(|(_, c)| **c > 0)
        .map(|(b, c)| (b.name.clone(), f64::from(*c) / f64::from(counted)))
        .collect();
    // Largest first; the recipe's order among equals.
    biomes.sort_by(|a, b| b.1.total_cmp(&a.1));
    let layout = terrain.layout.data.figures();
    let share = |c: u32| f64::from(c) / f64::from(n);
    PlanetFigures {
        id,
        name: plan.name.clone(),
        kind: plan.kind.to_string(),
        signature: plan.signature().to_string(),
        radius_m: f64::from(r.radius_m),
        land_share: share(land),
        sea_share: if r.sea.enabled { share(n - land) } else { 0.0 },
        elevation: bins.into_iter().map(share).collect(),
        elevation_p5_p95_m: [percentile(&mut heights, 0.05), percentile(&mut heights, 0.95)],
        biomes,
        cave_share: 0.0,
        rivers: layout.rivers,
        river_km: f64::from(layout.river_length_m) / 1000.0,
        lakes: layout.lakes,
        stamps: layout.stamps,
        plots: layout.plots,
        settlements: terrain.settlements.data.sites.len(),
        scatter_per_region: 0.0,
        triangles_per_region: 0.0,
        empty_region_share: 0.0,
        flags: Vec::new(),
    }
}

/// One built region of the sample.
struct BuiltSample {
    triangles: usize,
    objects: usize,
    total_ms: f64,
    generate_ms: f64,
}

/// `n` LOD-0 regions where the surface is, built through every region stage.
fn region_sample(terrain: &Terrain, n: u32) -> Vec<BuiltSample> {
    let pipeline = Pipeline::standard();
    fibonacci(n, 0.5)
        .map(|d| {
            let key = terrain.surface_key(d, 0);
            let mut times = StageTimes::default();
            let chain = pipeline
                .run_region(&RegionInput::of_terrain(terrain, key), &|| false, |i, t| times.0[i] = t)
                .ok()
                .flatten();
            let mesh = chain.as_ref().and_then(|c| c.value::<SphereMesh>(&stages::SPHERE_MESH));
            let scatter = chain.as_ref().and_then(|c| c.value::<Scatter>(&stages::SCATTER));
            BuiltSample {
                triangles: mesh.map_or(0, SphereMesh::triangle_count),
                objects: scatter.map_or(0, |s| s.objects.len() + s.buildings.len()),
                total_ms: ms(times.total()),
                generate_ms: ms(times.of(&stages::COLUMNS) + times.of(&stages::VOXELS)),
            }
        })
        .collect()
}

/// The share of the uncarved ground that caves open, over `n` columns of
/// LOD-1 regions through the whole shell (LOD 1 is the coarsest LOD whose
/// regions carve worm caves). Each region's own cells only: the margins
/// its neighbours own are not counted twice.
fn cave_share(terrain: &Terrain, n: u32) -> f64 {
    let (mut ground, mut open) = (0u64, 0u64);
    let inner = 2..VoxelGrid::SIDE - 2;
    for d in fibonacci(n, 0.25) {
        let column = terrain.column_key(d, 1);
        for z in 0..terrain.grid.regions_up(column.lod) {
            let Ok(grid) = terrain.region(RegionKey { z, ..column }) else { continue };
            for b in inner.clone() {
                for a in inner.clone() {
                    for c in inner.clone() {
                        if grid.cover_at(a, b, c) > 0 {
                            ground += 1;
                            open += u64::from(!grid.at(a, b, c).is_solid());
                        }
                    }
                }
            }
        }
    }
    if ground == 0 { 0.0 } else { open as f64 / ground as f64 }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0u32), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / f64::from(n) }
}

fn percentile(values: &mut [f64], q: f64) -> f64 {
    crate::run::percentile(values, q)
}

#[cfg(test)]
mod tests {
    use planet::{PlannedSystem, SystemRecipe};

    use super::*;

    fn small() -> SurveySample {
        SurveySample { directions: 256, regions: 4, cave_columns: 2 }
    }

    fn shares_hold(f: &PlanetFigures) {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(f.elevation.iter().sum(), 1.0), "{}: elevation shares {:?}", f.id, f.elevation);
        assert!(close(f.land_share + f.sea_share, 1.0) || f.sea_share == 0.0, "{}: land and sea", f.id);
        assert!(close(f.biomes.iter().map(|b| b.1).sum(), 1.0), "{}: biomes {:?}", f.id, f.biomes);
        assert!(f.biomes.windows(2).all(|w| w[0].1 >= w[1].1), "{}: biomes not largest first", f.id);
        assert!((0.0..=1.0).contains(&f.cave_share), "{}: cave share {}", f.id, f.cave_share);
        assert!(f.elevation_p5_p95_m[0] <= f.elevation_p5_p95_m[1]);
    }

    #[test]
    fn figures_are_shares_that_add_up_on_planets_of_many_systems() {
        for seed in [0, 7, 1_234, 99_999] {
            let system = PlannedSystem::build(&SystemRecipe::from_seed(seed)).unwrap();
            for p in &system.planets {
                let (f, t) = measure(SurveyPlanet { system: seed, planet: p.index }, p, small());
                shares_hold(&f);
                assert_eq!(f.name, p.name);
                assert!(t.region_ms[0] <= t.region_ms[1]);
            }
        }
    }

    #[test]
    fn a_planet_s_figures_are_the_same_on_any_thread_and_run() {
        let system = PlannedSystem::default_system();
        let p = &system.planets[1];
        let id = SurveyPlanet { system: 0, planet: 1 };
        let here = measure(id, p, small()).0;
        let there: Vec<PlanetFigures> = std::thread::scope(|s| {
            let runs: Vec<_> = (0..2).map(|_| s.spawn(|| measure(id, p, small()).0)).collect();
            runs.into_iter().map(|r| r.join().unwrap()).collect()
        });
        assert_eq!(there, vec![here.clone(), here.clone()]);
        // And the default planets have what their kinds promise.
        assert!(here.rivers > 0 && here.settlements > 0 && here.land_share > 0.3, "{here:?}");
        assert!(here.triangles_per_region > 0.0 && here.scatter_per_region > 0.0);
        assert!(here.flags.is_empty(), "{:?}", here.flags);
    }

    #[test]
    fn a_sea_over_every_peak_is_flagged_as_no_land() {
        let recipe = SystemRecipe::from_json(include_str!("../../../data/systems/drowned.json")).unwrap();
        let system = PlannedSystem::build(&recipe).unwrap();
        let (f, _) = measure(SurveyPlanet { system: 5, planet: 1 }, &system.planets[1], small());
        assert!(f.land_share < 0.01, "{f:?}");
        assert_eq!(f.flags.first(), Some(&Flag::NoLand), "{:?}", f.flags);
    }
}
