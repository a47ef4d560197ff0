//! `planet stream`: streams a planet around a camera driven along a scripted
//! path (`data/paths/`: `descent`, `lowpass`, `walk`, or a JSON file) at a
//! fixed simulated frame rate, headless, with a progress bar; prints a
//! one-screen summary against the streaming targets and writes per-second
//! statistics as JSON. `--repeat N` runs it N times and reports medians.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use engine::path::CameraPath;
use engine::run::{Progress, RunOptions, RunReport, run_path};
use engine::{LodSettings, StreamSettings};
use indicatif::{ProgressBar, ProgressStyle};

use crate::failure::Failure;
use crate::load;
use crate::output::{errln, out, outln};

/// Arguments of `planet stream`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// System recipe (JSON); the embedded default system when omitted.
    #[arg(long, value_name = "FILE")]
    system: Option<PathBuf>,
    /// Camera path: a built-in name (descent, lowpass, walk; spiral1k, straight1k, straight3k fly fast) or a JSON file.
    #[arg(long, value_name = "NAME|FILE", default_value = "walk")]
    path: String,
    /// Planet to stream (default: the one the path names).
    #[arg(long, value_parser = engine::flags::planet, value_name = "N")]
    planet: Option<u32>,
    /// Job threads, 1..=256 (default: one per core).
    #[arg(long, value_parser = engine::flags::threads, value_name = "N")]
    threads: Option<usize>,
    /// Job threads' OS priority: idle (they never take a core from the
    /// frame's thread; Linux's SCHED_IDLE) or low (nice 9 in the batch
    /// class, a share beside other programs; waking one never preempts).
    #[arg(long, value_enum, value_name = "CLASS", default_value_t = Workers::Idle)]
    workers: Workers,
    /// Simulated frames per second, 1..=1000.
    #[arg(long, value_parser = engine::flags::fps, value_name = "FPS", default_value_t = 60.0)]
    fps: f64,
    /// Run frames as fast as they go instead of in real time.
    #[arg(long)]
    unpaced: bool,
    /// Seconds to wait after the path for the last regions, 0..=600.
    #[arg(long, value_parser = engine::flags::timeout, value_name = "S", default_value_t = 30.0)]
    settle_timeout: f64,
    /// Region cache budget, MiB, 16..=65536.
    #[arg(long, value_parser = engine::flags::cache_mib, value_name = "MIB", default_value_t = engine::DEFAULT_CACHE_BYTES >> 20)]
    cache_mib: usize,
    /// Split distance in column widths, 0.5..=8.
    #[arg(long, value_parser = engine::flags::split, value_name = "WIDTHS", default_value_t = LodSettings::default().split)]
    split: f64,
    /// Seconds the region tree looks ahead along the camera's velocity,
    /// 0..=10 (0: it follows the camera only where it is).
    #[arg(long, value_parser = engine::flags::look_ahead, value_name = "S", default_value_t = LodSettings::default().look_ahead_s)]
    look_ahead: f64,
    /// The least time the camera may take to pass a wanted column, seconds,
    /// 0..=10: the finest LOD coarsens with the ground speed (0: never).
    #[arg(long, value_parser = engine::flags::min_dwell, value_name = "S", default_value_t = LodSettings::default().min_dwell_s)]
    min_dwell: f64,
    /// Runs, 1..=1000; the summary gives medians.
    #[arg(long, value_parser = engine::flags::repeat, value_name = "N", default_value_t = 1)]
    repeat: u32,
    /// Write the report (every run's per-second statistics and summary) as JSON.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// Runs the path and prints the summary.
pub fn run(args: &Args) -> Result<(), Failure> {
    if let Some(file) = &args.report {
        // Before the stream, not after a minute of it.
        crate::save::expect_extension("--report", file, &["json"])?;
    }
    let options = options(args)?;
    let path = camera_path(&args.path)?;
    let system = load::system(args.system.as_deref())?;
    let index = args.planet.unwrap_or(path.planet);
    let count = system.planets.len();
    let plan = system.planet(index).ok_or_else(|| {
        let from = if args.planet.is_some() { "--planet".to_owned() } else { format!("path {}'s planet", path.name) };
        Failure::Invalid(format!("{from} {index}: must be in 0..={} (the system has {count} planets)", count - 1))
    })?;

    let mut runs = Vec::new();
    for i in 0..args.repeat {
        let bar = progress_bar(args.quiet, &path, i, args.repeat);
        let report = run_path(plan, &path, &options, |p| show(&bar, p));
        bar.finish_and_clear();
        if args.repeat > 1 {
            let s = &report.summary;
            errln!(
                "run {}/{}: settled {} | deficit {:.1}% | apply p99 {:.2} ms | hash {}",
                i + 1,
                args.repeat,
                s.first_settled_s.map_or("never".to_owned(), |t| format!("{t:.2} s")),
                s.deficit_mean * 100.0,
                s.apply_ms_p99,
                &s.final_hash[..12]
            );
        }
        runs.push(report);
    }
    out!("{}", summary(&runs, plan.name.as_str()));
    if let Some(file) = &args.report {
        write_report(file, &runs)?;
        outln!("report: {}", file.display());
    }
    Ok(())
}

/// `--workers`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Workers {
    Idle,
    Low,
}

fn options(args: &Args) -> Result<RunOptions, Failure> {
    // Every range was checked when the flags were parsed (`flags`).
    let threads = args.threads.unwrap_or_else(|| RunOptions::default().threads);
    Ok(RunOptions {
        threads,
        worker_priority: match args.workers {
            Workers::Idle => jobs::WorkerPriority::Idle,
            Workers::Low => jobs::WorkerPriority::Low,
        },
        fps: args.fps,
        realtime: !args.unpaced,
        settle_timeout: Duration::from_secs_f64(args.settle_timeout),
        cache_bytes: args.cache_mib << 20,
        stream: StreamSettings {
            lod: LodSettings {
                split: args.split,
                look_ahead_s: args.look_ahead,
                min_dwell_s: args.min_dwell,
                ..LodSettings::default()
            },
            ..StreamSettings::default()
        },
        ..RunOptions::default()
    })
}

/// A built-in path by name, or a path file.
fn camera_path(name: &str) -> Result<CameraPath, Failure> {
    if let Some(p) = CameraPath::builtin(name) {
        return Ok(p);
    }
    let file = Path::new(name);
    if !file.exists() {
        let names: Vec<&str> = engine::path::BUILTIN.iter().map(|(n, _)| *n).collect();
        return Err(Failure::Invalid(format!("--path {name}: no such built-in path ({}) or file", names.join(", "))));
    }
    CameraPath::from_json(&load::text(file, load::FileKind::CameraPath)?)
        .map_err(|e| Failure::Invalid(format!("{} is not a valid camera path: {e}", file.display())))
}

fn progress_bar(quiet: bool, path: &CameraPath, run: u32, runs: u32) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new((path.duration() * 10.0).round() as u64);
    let style = ProgressStyle::with_template("{prefix} [{bar:30}] {msg}").map(|s| s.progress_chars("=> "));
    if let Ok(style) = style {
        bar.set_style(style);
    }
    let run = if runs > 1 { format!(" run {}/{runs}", run + 1) } else { String::new() };
    bar.set_prefix(format!("{}{run}", path.name));
    bar
}

fn show(bar: &ProgressBar, p: &Progress) {
    bar.set_position((p.t.min(p.path_s) * 10.0).round() as u64);
    let phase =
        if p.settling { format!("settling +{:.1} s", p.t - p.path_s) } else { format!("{:.1}/{:.0} s", p.t, p.path_s) };
    bar.set_message(format!("{phase} | ready {}/{} | queued {}", p.ready, p.wanted, p.queued));
}

/// The median of some numbers (the lower middle one for an even count).
fn median(mut v: Vec<f64>) -> f64 {
    engine::run::percentile(&mut v, 0.5)
}

/// One screen: the run(s) against the targets.
fn summary(runs: &[RunReport], planet_name: &str) -> String {
    let first = &runs[0];
    let s = |f: fn(&RunReport) -> f64| median(runs.iter().map(f).collect());
    let settled: Vec<Option<f64>> = runs.iter().map(|r| r.summary.first_settled_s).collect();
    let never = settled.iter().filter(|t| t.is_none()).count();
    let settle = median(settled.iter().map(|t| t.unwrap_or(f64::INFINITY)).collect());
    let hashes: std::collections::BTreeSet<&str> = runs.iter().map(|r| r.summary.final_hash.as_str()).collect();
    let of = if runs.len() > 1 { format!(" (medians of {} runs)", runs.len()) } else { String::new() };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "path {} over planet {} ({planet_name}), {:.0} s at {} fps, {} job threads{of}",
        first.path, first.planet, first.summary.path_s, first.fps, first.threads
    );
    let last = first.seconds.last().cloned().unwrap_or_default();
    let _ = writeln!(
        out,
        "  regions at the end   {} wanted, {} ready, {} shown; {:.0} built, {:.0} cancelled",
        last.wanted,
        last.ready,
        last.visible,
        s(|r| r.summary.regions_built as f64),
        s(|r| r.summary.jobs_cancelled as f64)
    );
    let _ = writeln!(
        out,
        "  region job           p50 {:.1} ms, p99 {:.1} ms",
        s(|r| r.summary.job_ms_p50),
        s(|r| r.summary.job_ms_p99)
    );
    let settle_text = if settle.is_finite() { format!("{settle:.2} s") } else { "never".to_owned() };
    let never_text = if never > 0 { format!(" ({never} of {} runs never settled)", runs.len()) } else { String::new() };
    let _ = writeln!(
        out,
        "  all wanted ready     first at {settle_text}{never_text}   [target from a cold start on the surface: <= 2 s]"
    );
    let _ = writeln!(
        out,
        "  coverage deficit     mean {:.2}%, worst frame {:.1}%   [target on the low pass: mean <= 5%]",
        s(|r| r.summary.deficit_mean) * 100.0,
        s(|r| r.summary.deficit_max) * 100.0
    );
    let _ = writeln!(
        out,
        "  against the speed    mean {:.2}%, worst frame {:.1}% (the finest LOD the ground speed allows); {:.0} frames with a hole   [target at 3 km/s: mean <= 10%, no holes]",
        s(|r| r.summary.deficit_speed_mean) * 100.0,
        s(|r| r.summary.deficit_speed_max) * 100.0,
        s(|r| r.summary.hole_frames as f64)
    );
    let _ = writeln!(
        out,
        "  main-thread apply    p50 {:.3} ms, p99 {:.3} ms   [target: p99 <= 2 ms]; whole update p99 {:.2} ms [target: <= 1 ms]",
        s(|r| r.summary.apply_ms_p50),
        s(|r| r.summary.apply_ms_p99),
        s(|r| r.summary.update_ms_p99)
    );
    let _ = writeln!(
        out,
        "  frames               {} run, {:.0} late; cache {:.0} MiB, peak resident {:.0} MiB",
        first.summary.frames,
        s(|r| r.summary.late_frames as f64),
        s(|r| r.summary.cache_mib),
        s(|r| r.summary.peak_rss_mib)
    );
    let _ = writeln!(
        out,
        "  region cache         {:.0} regions, {:.1} KiB each; {:.0} with their physics; {:.0} physics jobs",
        s(|r| r.summary.cache_regions as f64),
        s(|r| r.summary.cache_mib * 1024.0 / (r.summary.cache_regions.max(1) as f64)),
        s(|r| r.summary.cache_physical as f64),
        s(|r| r.summary.physics_jobs as f64)
    );
    let agree = if runs.len() > 1 {
        if hashes.len() == 1 {
            " (all runs agree)".to_owned()
        } else {
            format!(" ({} different hashes!)", hashes.len())
        }
    } else {
        String::new()
    };
    let _ = writeln!(out, "  final regions hash   {}{agree}", first.summary.final_hash);
    out
}

fn write_report(file: &Path, runs: &[RunReport]) -> Result<(), Failure> {
    let json = serde_json::to_string_pretty(&serde_json::json!({ "runs": runs })).expect("reports serialize");
    crate::save::replace(file, &(json + "\n"))
}
