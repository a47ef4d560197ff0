//! A headless streaming run: a camera driven along a scripted path at a fixed
//! simulated frame rate, paced in real time so the job threads have the time
//! a player's machine would give them, with statistics per second of the path
//! and a summary. `planet stream` and the smoke tests drive it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use planet::terrain::Terrain;
use planet::{PlanetPlan, RegionKey, Signature};
use serde::{Deserialize, Serialize};

use crate::builder::PlanetBuilder;
use crate::cache::RegionCache;
use crate::coverage::coverage_deficit;
use crate::lod::{ColumnKey, LodTree};
use crate::path::CameraPath;
use crate::streamer::{RegionJobs, StreamSettings, Streamer};

/// How a run is driven.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunOptions {
    /// Job threads (0: single-threaded, jobs run on the main thread between frames).
    pub threads: usize,
    /// Where the job threads stand with the OS scheduler.
    pub worker_priority: jobs::WorkerPriority,
    /// Simulated frames per second.
    pub fps: f64,
    /// Whether frames are paced in real time (otherwise as fast as they go).
    pub realtime: bool,
    /// After the path ends, how long to keep going at its last camera until
    /// every wanted region is ready.
    pub settle_timeout: Duration,
    /// Region cache budget, bytes.
    pub cache_bytes: usize,
    /// Radius around the camera the coverage deficit is measured over, metres.
    pub deficit_radius_m: f64,
    /// Streaming settings.
    pub stream: StreamSettings,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            threads: std::thread::available_parallelism().map_or(2, usize::from),
            worker_priority: jobs::WorkerPriority::Low,
            fps: 60.0,
            realtime: true,
            settle_timeout: Duration::from_secs(30),
            cache_bytes: crate::cache::DEFAULT_CACHE_BYTES,
            deficit_radius_m: 1000.0,
            stream: StreamSettings::default(),
        }
    }
}

/// Stages finished per second, by stage name (`columns`, `voxels`, ...).
pub type StageRates = BTreeMap<String, f64>;

/// One second of the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SecondReport {
    /// Start of the second on the path, seconds (past the path's end while settling).
    pub t: f64,
    /// Frames in it.
    pub frames: usize,
    /// Regions wanted (at its last frame).
    pub wanted: usize,
    /// Wanted regions ready.
    pub ready: usize,
    /// Regions shown.
    pub visible: usize,
    /// Jobs waiting.
    pub queued: usize,
    /// Jobs running, or finished but not yet applied.
    pub in_flight: usize,
    /// Mean coverage deficit over its frames (0..=1), against the static target.
    pub deficit_mean: f64,
    /// Mean coverage deficit over its frames against what the speed allows.
    #[serde(default)]
    pub deficit_speed_mean: f64,
    /// Worst frame's coverage deficit.
    pub deficit_max: f64,
    /// Stages finished per second.
    pub jobs_per_s: StageRates,
    /// Jobs submitted.
    pub submitted: usize,
    /// Jobs cancelled.
    pub cancelled: usize,
    /// Main-thread apply time, median frame, milliseconds.
    pub apply_ms_p50: f64,
    /// Main-thread apply time, 99th percentile frame, milliseconds.
    pub apply_ms_p99: f64,
    /// Whole main-thread update, slowest frame, milliseconds.
    pub update_ms_max: f64,
    /// Resident memory at its end, MiB (0 where the platform does not say).
    pub rss_mib: f64,
}

/// The run as a whole.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Path length, seconds.
    pub path_s: f64,
    /// Frames run (path and settling).
    pub frames: usize,
    /// Frames that started late (the main thread fell behind the frame rate).
    pub late_frames: usize,
    /// First time every wanted region was ready, seconds from the start.
    pub first_settled_s: Option<f64>,
    /// Time after the path's end until every wanted region was ready (None: not within the timeout).
    pub settle_after_path_s: Option<f64>,
    /// Mean coverage deficit over the path's frames (0..=1), against the
    /// static target: the tree a camera standing still there would want.
    pub deficit_mean: f64,
    /// Worst frame's coverage deficit over the path, against the static target.
    pub deficit_max: f64,
    /// Mean coverage deficit over the path's frames against what the speed
    /// allows: the tree without look-ahead, its finest LOD limited by the
    /// camera's ground speed (equal to the static target at rest).
    #[serde(default)]
    pub deficit_speed_mean: f64,
    /// Worst frame's coverage deficit against what the speed allows.
    #[serde(default)]
    pub deficit_speed_max: f64,
    /// Frames, after the first that covered the planet, whose shown columns
    /// did not cover it (somewhere the ground was missing).
    #[serde(default)]
    pub hole_frames: usize,
    /// Main-thread apply time over all frames, median, milliseconds.
    pub apply_ms_p50: f64,
    /// Main-thread apply time over all frames, 99th percentile, milliseconds.
    pub apply_ms_p99: f64,
    /// Main-thread update time over all frames, 99th percentile, milliseconds.
    pub update_ms_p99: f64,
    /// Regions built.
    pub regions_built: u64,
    /// Jobs cancelled.
    pub jobs_cancelled: u64,
    /// Job run time, median, milliseconds.
    pub job_ms_p50: f64,
    /// Job run time, 99th percentile, milliseconds.
    pub job_ms_p99: f64,
    /// Regions ready at the end (all wanted, if settled).
    pub ready_at_end: usize,
    /// Region cache at the end, MiB.
    pub cache_mib: f64,
    /// Regions in the cache at the end.
    pub cache_regions: usize,
    /// Of them, those holding their physics (collider and navmesh).
    pub cache_physical: usize,
    /// Physics jobs run (regions given their physics after being built without).
    pub physics_jobs: u64,
    /// Most resident memory seen, MiB.
    pub peak_rss_mib: f64,
    /// Hash of every region ready at the end: keys, voxels and meshes.
    pub final_hash: String,
}

/// A run's report: what ran, each second, and the summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// Path name.
    pub path: String,
    /// Planet index.
    pub planet: u32,
    /// Planet signature.
    pub signature: String,
    /// Job threads.
    pub threads: usize,
    /// Simulated frame rate.
    pub fps: f64,
    /// Per second.
    pub seconds: Vec<SecondReport>,
    /// Summary.
    pub summary: RunSummary,
}

/// Where a run is, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Time on the path (or past it, settling), seconds.
    pub t: f64,
    /// Path length, seconds.
    pub path_s: f64,
    /// Wanted regions.
    pub wanted: usize,
    /// Ready regions.
    pub ready: usize,
    /// Jobs waiting.
    pub queued: usize,
    /// Whether the path is over and the run is waiting for the last regions.
    pub settling: bool,
}

/// Runs `path` over the planet of `plan`, calling `progress` every frame.
pub fn run_path(
    plan: &PlanetPlan,
    path: &CameraPath,
    options: &RunOptions,
    mut progress: impl FnMut(&Progress),
) -> RunReport {
    let terrain = Arc::new(Terrain::new(plan));
    let builder = Arc::new(PlanetBuilder::new(Arc::clone(&terrain)));
    let jobs = Arc::new(RegionJobs::with_priority(options.threads, options.worker_priority));
    let cache = Arc::new(Mutex::new(RegionCache::new(options.cache_bytes)));
    let mut streamer = Streamer::new(
        plan.signature(),
        Arc::clone(&terrain),
        Arc::clone(&builder),
        Arc::clone(&jobs),
        Arc::clone(&cache),
        options.stream,
    );

    let frame_time = Duration::from_secs_f64(1.0 / options.fps);
    let path_s = path.duration();
    let path_frames = (path_s * options.fps).round() as usize;
    let settle_frames = (options.settle_timeout.as_secs_f64() * options.fps).round() as usize;
    let mut seconds = Vec::new();
    let mut second = Accumulator::default();
    let mut all_apply = Vec::new();
    let mut all_update = Vec::new();
    let mut path_deficits = Vec::new();
    let mut path_speed_deficits = Vec::new();
    let mut hole_frames = 0;
    let mut covered_once = false;
    // The targets the deficit is measured against, followed beside the
    // streamer's own tree (outside the update's time).
    let mut static_target = LodTree::new(&terrain, options.stream.lod.fixed());
    let mut speed_target = LodTree::new(&terrain, options.stream.lod.speed_allowed());
    let mut first_settled = None;
    let mut settle_after_path = None;
    let mut late_frames = 0;
    let mut peak_rss = 0.0f64;
    let mut stages_before = builder.counters.snapshot();
    let start = Instant::now();
    let mut frame = 0;
    while frame <= path_frames + settle_frames {
        let t = frame as f64 / options.fps;
        if options.realtime {
            let due = start + frame_time * frame as u32;
            let now = Instant::now();
            if now > due + frame_time {
                late_frames += 1;
            } else if now < due {
                std::thread::sleep(due - now);
            }
        } else if options.threads == 0 {
            jobs.run_pending(1);
        }
        let camera = path.camera(&terrain, t.min(path_s));
        let update_start = Instant::now();
        let report = streamer.update(&camera);
        let update_time = update_start.elapsed();
        let settled = streamer.is_settled();
        if options.realtime && options.threads == 0 {
            // Single-threaded: work in what is left of the frame.
            let due = start + frame_time * (frame as u32 + 1);
            while Instant::now() < due && jobs.run_pending(1) > 0 {}
        }
        let grid = streamer.tree().grid();
        let against = |target: &[ColumnKey]| {
            coverage_deficit(grid, camera.position, options.deficit_radius_m, target, streamer.visible())
        };
        // The fixed settings look neither ahead nor at the speed.
        let deficit = against(&static_target.update(&terrain, &camera));
        let speed_deficit = against(&speed_target.update(&terrain, &camera));
        if frame <= path_frames {
            path_deficits.push(deficit);
            path_speed_deficits.push(speed_deficit);
        }
        covered_once |= report.complete;
        hole_frames += usize::from(covered_once && !report.complete);
        if settled && first_settled.is_none() {
            first_settled = Some(t);
        }
        let apply_ms = report.apply_time.as_secs_f64() * 1e3;
        all_apply.push(apply_ms);
        all_update.push(update_time.as_secs_f64() * 1e3);
        second.add(apply_ms, update_time.as_secs_f64() * 1e3, (deficit, speed_deficit), &report);
        let at_second_end = (frame + 1) % options.fps.round() as usize == 0;
        let finished = frame >= path_frames && settled;
        if at_second_end || finished {
            let stages = builder.counters.snapshot();
            let dt = second.frames as f64 / options.fps;
            let before = std::mem::replace(&mut stages_before, stages);
            let rates: StageRates = planet::pipeline::Pipeline::standard()
                .stages()
                .iter()
                .enumerate()
                .map(|(i, s)| (s.name.to_owned(), (stages[i] - before[i]) as f64 / dt))
                .collect();
            let rss = resident_mib();
            peak_rss = peak_rss.max(rss);
            seconds.push(second.finish(
                seconds.len() as f64,
                &report,
                jobs.queued(),
                jobs.pending().saturating_sub(jobs.queued()),
                rates,
                rss,
            ));
        }
        progress(&Progress {
            t,
            path_s,
            wanted: report.wanted,
            ready: report.ready,
            queued: jobs.queued(),
            settling: frame > path_frames,
        });
        if finished {
            settle_after_path = Some(t - path_s);
            break;
        }
        frame += 1;
    }

    let stats = jobs.stats();
    let region_stats = stats.kinds.get("region").cloned().unwrap_or_default();
    let grid = streamer.tree().grid().clone();
    let mut ready: Vec<(RegionKey, Signature, Signature)> = Vec::new();
    for c in streamer.wanted() {
        for k in c.regions(&grid) {
            if let Some(r) = streamer.region(k) {
                ready.push((k, r.voxels, r.mesh.signature()));
            }
        }
    }
    let held = cache.lock();
    let summary = RunSummary {
        path_s,
        frames: all_apply.len(),
        late_frames,
        first_settled_s: first_settled,
        settle_after_path_s: settle_after_path,
        deficit_mean: mean(&path_deficits),
        deficit_max: path_deficits.iter().copied().fold(0.0, f64::max),
        deficit_speed_mean: mean(&path_speed_deficits),
        deficit_speed_max: path_speed_deficits.iter().copied().fold(0.0, f64::max),
        hole_frames,
        apply_ms_p50: percentile(&mut all_apply, 0.50),
        apply_ms_p99: percentile(&mut all_apply, 0.99),
        update_ms_p99: percentile(&mut all_update, 0.99),
        regions_built: builder.counters.regions(),
        jobs_cancelled: region_stats.cancelled,
        job_ms_p50: region_stats.p50.as_secs_f64() * 1e3,
        job_ms_p99: region_stats.p99.as_secs_f64() * 1e3,
        ready_at_end: ready.len(),
        cache_mib: held.bytes() as f64 / f64::from(1 << 20),
        cache_regions: held.len(),
        cache_physical: held.physical(),
        physics_jobs: stats.kinds.get("physics").map_or(0, |k| k.completed),
        peak_rss_mib: peak_rss,
        final_hash: Signature::of("stream final regions", &ready).to_string(),
    };
    drop(held);
    RunReport {
        path: path.name.clone(),
        planet: plan.index,
        signature: plan.signature().to_string(),
        threads: options.threads,
        fps: options.fps,
        seconds,
        summary,
    }
}

/// One second's frames, gathering.
#[derive(Debug, Default)]
struct Accumulator {
    frames: usize,
    apply_ms: Vec<f64>,
    update_ms_max: f64,
    deficits: Vec<f64>,
    speed_deficits: Vec<f64>,
    submitted: usize,
    cancelled: usize,
}

impl Accumulator {
    /// Adds a frame: its times, its deficits (against the static target and
    /// what the speed allows) and the streamer's report.
    fn add(&mut self, apply_ms: f64, update_ms: f64, deficits: (f64, f64), report: &crate::streamer::FrameReport) {
        self.frames += 1;
        self.apply_ms.push(apply_ms);
        self.update_ms_max = self.update_ms_max.max(update_ms);
        self.deficits.push(deficits.0);
        self.speed_deficits.push(deficits.1);
        self.submitted += report.submitted;
        self.cancelled += report.cancelled;
    }

    fn finish(
        &mut self,
        t: f64,
        last: &crate::streamer::FrameReport,
        queued: usize,
        in_flight: usize,
        jobs_per_s: StageRates,
        rss_mib: f64,
    ) -> SecondReport {
        let mut s = std::mem::take(self);
        SecondReport {
            t,
            frames: s.frames,
            wanted: last.wanted,
            ready: last.ready,
            visible: last.visible,
            queued,
            in_flight,
            deficit_mean: mean(&s.deficits),
            deficit_speed_mean: mean(&s.speed_deficits),
            deficit_max: s.deficits.iter().copied().fold(0.0, f64::max),
            jobs_per_s,
            submitted: s.submitted,
            cancelled: s.cancelled,
            apply_ms_p50: percentile(&mut s.apply_ms, 0.50),
            apply_ms_p99: percentile(&mut s.apply_ms, 0.99),
            update_ms_max: s.update_ms_max,
            rss_mib,
        }
    }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 }
}

/// The `q` quantile (nearest rank) of `v`; 0 when empty. Sorts `v`.
pub fn percentile(v: &mut [f64], q: f64) -> f64 {
    v.sort_unstable_by(f64::total_cmp);
    jobs::nearest_rank(v, q).unwrap_or(0.0)
}

/// Resident memory of this process, MiB (Linux: /proc/self/statm; elsewhere 0).
#[must_use]
pub fn resident_mib() -> f64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|p| p.parse::<f64>().ok()))
        .map_or(0.0, |pages| pages * 4096.0 / f64::from(1 << 20))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&mut v, 0.5), 50.0);
        assert_eq!(percentile(&mut v, 0.99), 99.0);
        assert_eq!(percentile(&mut [3.0], 0.99), 3.0);
        assert_eq!(percentile(&mut [], 0.5), 0.0);
    }
}
