//! Running a scenario: stream and draw along its path headless on a simulated
//! clock, frame by frame; at each keyframe stream until settled (timed), draw
//! with every fade finished and save the PNG. Records what a regression would
//! show in: engine, render and apply time per frame, whole region job times,
//! regions per second, settle times, peak memory, triangles and draw calls,
//! and a calibration (a fixed set of regions built on one thread) that puts
//! figures from different machines on one scale.
//!
//! Per-stage times are not taken from the run: which regions it builds
//! follows how fast streaming kept up, and they share the cores with
//! lavapipe, so one build's generate p50 read 1.05 and 1.35 ms in two runs
//! with the same calibration. They are timed after the run, like the
//! calibration: a fixed sample of the regions the keyframes showed, built
//! again on one thread, each stage's fastest of five rounds.

use crate::error::SmokeError;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::{PlanetBuilder, RegionBuilder, World, WorldSettings};
use planet::PlannedSystem;
use planet::pipeline::{Stage, stages};
use planet::terrain::lat_lon_direction;
use render::{Capture, RenderOptions, ViewCamera};
use serde::{Deserialize, Serialize};

use crate::scenario::{Scenario, pose_at};

/// How to run.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// Job threads.
    pub threads: usize,
    /// Longest wait for a keyframe to settle.
    pub settle_timeout: Duration,
    /// A planted slow stage (tests only; zero otherwise).
    pub slow_builds: Duration,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self { threads: 2, settle_timeout: Duration::from_secs(120), slow_builds: Duration::ZERO }
    }
}

/// Percentiles of a timing, milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
}

impl Percentiles {
    /// Nearest-rank percentiles of `values` (zero when empty).
    #[must_use]
    pub fn of(values: &[f64]) -> Self {
        let mut v = values.to_vec();
        let mut at = |q: f64| engine::run::percentile(&mut v, q);
        Self { p50: at(0.5), p95: at(0.95), p99: at(0.99) }
    }
}

/// One keyframe's capture.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeyframeResult {
    /// Keyframe name.
    pub name: String,
    /// PNG file name, in the scenario's folder.
    pub image: String,
    /// Seconds from reaching the keyframe to settled.
    pub settle_s: f64,
    /// Whether it settled before the timeout.
    pub settled: bool,
    /// Draw calls of the capture.
    pub draws: u32,
    /// Triangles of the capture.
    pub triangles: u64,
}

/// One frame along the path.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrameSample {
    /// Path time, s.
    pub t: f64,
    /// Engine (streaming) CPU time, ms.
    pub engine_ms: f64,
    /// Render CPU time (encoding and submitting), ms.
    pub render_ms: f64,
    /// Main-thread time applying finished regions, ms.
    pub apply_ms: f64,
    /// Regions wanted and ready.
    pub ready: usize,
    /// Regions wanted.
    pub wanted: usize,
}

/// Everything a scenario run measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScenarioResult {
    /// Scenario name.
    pub name: String,
    /// Backend key (baselines are kept per backend).
    pub backend: String,
    /// The device, in words.
    pub device: String,
    /// Calibration: ms to build the fixed calibration regions on one thread
    /// (the fastest round, before or after the run).
    pub calibration_ms: f64,
    /// The keyframes.
    pub keyframes: Vec<KeyframeResult>,
    /// Every frame along the path.
    pub frames: Vec<FrameSample>,
    /// Per stage (generate, polygonize, spherify, collider, navmesh: the
    /// keyframe sample timed after the run) and whole region jobs (the run), ms.
    pub stages: BTreeMap<String, Percentiles>,
    /// Regions built.
    pub regions_built: u64,
    /// Regions built per second of the run.
    pub regions_per_s: f64,
    /// Peak resident memory, MiB.
    pub peak_rss_mib: f64,
    /// Wall time of the run, s.
    pub wall_s: f64,
}

impl ScenarioResult {
    /// Per-frame figure percentiles.
    #[must_use]
    pub fn frame_percentiles(&self, pick: impl Fn(&FrameSample) -> f64) -> Percentiles {
        Percentiles::of(&self.frames.iter().map(pick).collect::<Vec<_>>())
    }
}

/// The backend key of a device description: its API and the first word of its name.
#[must_use]
pub fn backend_key(gpu: &render::Gpu) -> String {
    let info = gpu.adapter.get_info();
    let name: String = info
        .name
        .split_whitespace()
        .next()
        .unwrap_or("unknown")
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_lowercase();
    format!("{:?}-{name}", info.backend).to_lowercase()
}

/// The calibration's regions: eight fixed regions of the default home planet.
fn calibration_regions() -> (PlanetBuilder, Vec<planet::RegionKey>) {
    let system = PlannedSystem::default_system();
    let terrain = Arc::new(planet::terrain::Terrain::new(&system.planets[1]));
    let keys = (0..8).map(|i| terrain.surface_key(lat_lon_direction(-30.0 + i as f32 * 7.0, -90.0), 0)).collect();
    (PlanetBuilder::new(terrain), keys)
}

/// Runs `scenario`, writing its PNGs into `dir`.
pub fn run_scenario(scenario: &Scenario, dir: &Path, options: &RunOptions) -> Result<ScenarioResult, SmokeError> {
    let plan = match scenario.system_file() {
        None => PlannedSystem::default_system(),
        Some(file) => {
            let text = std::fs::read_to_string(&file).map_err(|e| SmokeError::io("read", &file, e))?;
            PlannedSystem::from_json(&text)
                .map_err(|e| SmokeError::invalid(&file, format!("not a valid system recipe:\n{e}")))?
        }
    };
    std::fs::create_dir_all(dir).map_err(|e| SmokeError::io("create", dir, e))?;
    let settings =
        WorldSettings { threads: options.threads, slow_builds: options.slow_builds, ..WorldSettings::default() };
    let mut world = World::new(Arc::new(plan), settings);
    if let Some(file) = scenario.save_file() {
        let save = engine::savefile::read_save(&file).map_err(|e| SmokeError::invalid(&file, e))?;
        world.load(&save).map_err(|e| SmokeError::invalid(&file, e))?;
    }
    let size = (scenario.size[0], scenario.size[1]);
    let mut capture = Capture::new(world, size)?;
    let gpu = Arc::clone(capture.renderer.gpu());
    let stops = scenario.stops();
    let aspect = f64::from(size.0) / f64::from(size.1);
    let dt = 1.0 / scenario.fps;
    let count = (scenario.duration() / dt).floor() as usize + 1;
    let mut frames = Vec::with_capacity(count);
    let mut keyframes = Vec::new();
    let mut next_stop = 0;
    let mut shown = BTreeSet::new();
    let mut peak_rss = 0f64;
    let start = Instant::now();
    for i in 0..count {
        let t = i as f64 * dt;
        capture.world.set_time(scenario.clock_at(t));
        let (pose, fov_y) = pose_at(&capture.world, &stops, t)?;
        let camera = ViewCamera { pose, fov_y };
        let frame_start = Instant::now();
        let report = capture.world.update(&camera.engine_camera(aspect)).cloned().unwrap_or_default();
        let engine_done = Instant::now();
        let render_options = RenderOptions { time: t, ..RenderOptions::default() };
        capture.renderer.render(&capture.world, &camera, &capture.target.view, &capture.target.depth, &render_options);
        let render_done = Instant::now();
        capture.renderer.wait_idle();
        frames.push(FrameSample {
            t,
            engine_ms: (engine_done - frame_start).as_secs_f64() * 1e3,
            render_ms: (render_done - engine_done).as_secs_f64() * 1e3,
            apply_ms: report.apply_time.as_secs_f64() * 1e3,
            ready: report.ready,
            wanted: report.wanted,
        });
        peak_rss = peak_rss.max(engine::run::resident_mib());
        // The keyframes this frame reaches: settle there and capture.
        while next_stop < stops.len() && stops[next_stop].t < t + dt * 0.5 {
            let stop = &stops[next_stop];
            let pose = stop.view.pose(&capture.world)?;
            let camera = ViewCamera { pose, fov_y: stop.view.fov.to_radians() };
            let settle_start = Instant::now();
            let settled = capture.settle(&camera, options.settle_timeout);
            let settle_s = settle_start.elapsed().as_secs_f64();
            let (image, stats) = capture.draw(&camera, &RenderOptions { time: t, ..RenderOptions::default() })?;
            let file = format!("{}.png", stop.name);
            crate::write_png(&dir.join(&file), &image)?;
            note_shown(&capture.world, &mut shown);
            keyframes.push(KeyframeResult {
                name: stop.name.clone(),
                image: file,
                settle_s,
                settled,
                draws: stats.draws,
                triangles: stats.triangles,
            });
            next_stop += 1;
        }
    }
    let wall_s = start.elapsed().as_secs_f64();
    let stats = capture.world.jobs().stats();
    let region = stats.kinds.get("region").cloned().unwrap_or_default();
    // Timed with the world's workers and the device gone, as the calibration is.
    let terrains: Vec<_> = capture.world.planets.iter().map(|p| Arc::clone(p.terrain())).collect();
    drop(capture);
    let (calibration_ms, mut stages) = time_stages(&terrains, &shown);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    stages.insert("region job".into(), Percentiles { p50: ms(region.p50), p95: ms(region.p95), p99: ms(region.p99) });
    Ok(ScenarioResult {
        name: scenario.name.clone(),
        backend: backend_key(&gpu),
        device: gpu.describe(),
        calibration_ms,
        keyframes,
        frames,
        stages,
        regions_built: region.completed,
        regions_per_s: region.completed as f64 / wall_s.max(1e-9),
        peak_rss_mib: peak_rss,
        wall_s,
    })
}

/// Regions (with their planet) a settled keyframe shows.
fn note_shown(world: &World, shown: &mut BTreeSet<(u32, planet::RegionKey)>) {
    if let Some(a) = world.attached() {
        shown.extend(a.streamer.shown_regions().map(|r| (a.planet, r.key)));
    }
}

/// The most regions whose stages are timed after a run.
const STAGE_SAMPLE: usize = 48;

/// Timed rounds of the calibration and the stage sample (after an untimed one).
const TIMED_ROUNDS: usize = 5;

/// The calibration (ms) and per-stage percentiles (ms) over an evenly
/// spaced sample of `shown`, timed in one window: each round builds the
/// calibration regions, then the sample, on this thread, so a machine slowed
/// by its neighbours slows both and their ratio holds (timed apart, one
/// build read 0.87 and 1.06 ms of generate at 21 ms calibrations, and a
/// calibration read 28.9 ms beside generate's 0.87). Every time is its
/// fastest round. Regions are built with no edits or scatter: this times
/// the stages' code on the scenario's ground, not its state.
fn time_stages(
    terrains: &[Arc<planet::terrain::Terrain>],
    shown: &BTreeSet<(u32, planet::RegionKey)>,
) -> (f64, BTreeMap<String, Percentiles>) {
    let all: Vec<_> = shown.iter().copied().collect();
    let step = all.len().div_ceil(STAGE_SAMPLE).max(1);
    let sample: Vec<_> = all.iter().step_by(step).copied().collect();
    let builders: BTreeMap<u32, PlanetBuilder> =
        sample.iter().map(|&(p, _)| (p, PlanetBuilder::new(Arc::clone(&terrains[p as usize])))).collect();
    let (calibration_builder, calibration_keys) = calibration_regions();
    let cancel = jobs::CancelToken::default();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let figures: [(&str, &[Stage]); 5] = [
        // The baselines' generate is both terrain passes.
        ("generate", &[&stages::COLUMNS, &stages::VOXELS]),
        ("polygonize", &[&stages::CUBE_MESH]),
        ("spherify", &[&stages::SPHERE_MESH]),
        ("collider", &[&stages::COLLIDER]),
        ("navmesh", &[&stages::NAVMESH]),
    ];
    let mut calibration = f64::INFINITY;
    let mut fastest = vec![[f64::INFINITY; 5]; sample.len()];
    let build_calibration = || {
        let start = Instant::now();
        for &k in &calibration_keys {
            let _ = calibration_builder.build(k, &cancel);
        }
        ms(start.elapsed())
    };
    for round in 0..=TIMED_ROUNDS {
        // Twice, timing the second: the first meets caches the sample filled.
        build_calibration();
        let calibration_round = build_calibration();
        for (i, (planet, key)) in sample.iter().enumerate() {
            let Some(region) = builders[planet].build(*key, &cancel) else { continue };
            for (f, (_, parts)) in figures.iter().enumerate() {
                let t: f64 = parts.iter().map(|s| ms(region.times.of(s))).sum();
                if round > 0 {
                    fastest[i][f] = fastest[i][f].min(t);
                }
            }
        }
        if round > 0 {
            calibration = calibration.min(calibration_round);
        }
    }
    let stages = figures
        .iter()
        .enumerate()
        .map(|(f, (name, _))| {
            let times: Vec<f64> = fastest.iter().map(|r| r[f]).filter(|t| t.is_finite()).collect();
            ((*name).to_string(), Percentiles::of(&times))
        })
        .collect();
    (calibration, stages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        let p = Percentiles::of(&v);
        assert_eq!((p.p50, p.p95, p.p99), (50.0, 95.0, 99.0));
        assert_eq!(Percentiles::of(&[]), Percentiles::default());
        assert_eq!(Percentiles::of(&[3.0]).p99, 3.0);
    }
}
