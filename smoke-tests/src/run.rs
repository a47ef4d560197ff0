//! Running a scenario: stream and draw along its path headless on a simulated
//! clock, frame by frame; at each keyframe stream until settled (timed), draw
//! with every fade finished and save the PNG. Records what a regression would
//! show in: engine, render and apply time per frame, per-stage job times,
//! regions per second, settle times, peak memory, triangles and draw calls,
//! and a calibration (a fixed set of regions built on one thread) that puts
//! figures from different machines on one scale.

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
    /// Per stage (generate, polygonize, spherify) and whole region jobs, ms.
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

/// The calibration: eight fixed regions of the default home planet, built on
/// this thread after one untimed warm-up round; the fastest of seven rounds,
/// ms. The fastest, not the median: whatever else the machine is doing only
/// ever adds time, and one slow calibration scales every time of its run.
#[must_use]
pub fn calibrate() -> f64 {
    let system = PlannedSystem::default_system();
    let terrain = Arc::new(planet::terrain::Terrain::new(&system.planets[1]));
    let builder = PlanetBuilder::new(Arc::clone(&terrain));
    let keys: Vec<_> =
        (0..8).map(|i| terrain.surface_key(lat_lon_direction(-30.0 + i as f32 * 7.0, -90.0), 0)).collect();
    let cancel = jobs::CancelToken::default();
    let round = || {
        let start = Instant::now();
        for &k in &keys {
            let _ = builder.build(k, &cancel);
        }
        start.elapsed().as_secs_f64() * 1e3
    };
    round();
    (0..7).map(|_| round()).fold(f64::INFINITY, f64::min)
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
    // Calibrated before and after the run, keeping the faster: a run's first
    // calibration can meet a cold process or a busy machine.
    let calibration_before = calibrate();
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
    let mut seen = BTreeSet::new();
    let mut stage_ms: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut peak_rss = 0f64;
    let start = Instant::now();
    for i in 0..count {
        let t = i as f64 * dt;
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
        record_stages(&capture.world, &mut seen, &mut stage_ms);
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
            record_stages(&capture.world, &mut seen, &mut stage_ms);
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
    let mut stages: BTreeMap<String, Percentiles> =
        stage_ms.iter().map(|(k, v)| ((*k).to_string(), Percentiles::of(v))).collect();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    stages.insert("region job".into(), Percentiles { p50: ms(region.p50), p95: ms(region.p95), p99: ms(region.p99) });
    Ok(ScenarioResult {
        name: scenario.name.clone(),
        backend: backend_key(&gpu),
        device: gpu.describe(),
        calibration_ms: calibration_before.min(calibrate()),
        keyframes,
        frames,
        stages,
        regions_built: region.completed,
        regions_per_s: region.completed as f64 / wall_s.max(1e-9),
        peak_rss_mib: peak_rss,
        wall_s,
    })
}

/// Adds the stage times of regions shown now and not seen before.
fn record_stages(world: &World, seen: &mut BTreeSet<(u32, planet::RegionKey)>, out: &mut BTreeMap<&str, Vec<f64>>) {
    let Some(a) = world.attached() else { return };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let time = |r: &engine::BuiltRegion, s: Stage| ms(r.times.of(s));
    for r in a.streamer.shown_regions() {
        if seen.insert((a.planet, r.key)) {
            // The baselines' three figures: generate is both terrain passes.
            out.entry("generate").or_default().push(time(&r, &stages::COLUMNS) + time(&r, &stages::VOXELS));
            out.entry("polygonize").or_default().push(time(&r, &stages::CUBE_MESH));
            out.entry("spherify").or_default().push(time(&r, &stages::SPHERE_MESH));
            for s in [&stages::COLLIDER, &stages::NAVMESH] {
                out.entry(s.name).or_default().push(time(&r, s));
            }
        }
    }
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
