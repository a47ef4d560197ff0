//! Smoke tests (the talk's per-build screenshots and performance, DESIGN.md):
//! fixed scenarios (`data/smoke/*.json`) streamed and drawn headless along a
//! camera path; a PNG per keyframe and the timings that show regressions,
//! compared with the baselines in `data/smoke/baselines/<backend>/`, and a
//! report (`report.json`, `report.html`) a person reads at a glance.
//!
//! `cargo run --release -p smoke-tests -- [--out DIR] [--scenario NAME] [--short] [--bless]`

pub mod compare;
mod error;
pub mod report;
pub mod run;
pub mod scenario;

pub use crate::error::SmokeError;
use std::path::{Path, PathBuf};

use engine::read::FileKind;

use compare::compare;
use report::{Report, ScenarioReport};
use run::{RunOptions, ScenarioResult, run_scenario};
use scenario::Scenario;

/// What to run and where.
#[derive(Clone, Debug)]
pub struct SmokeOptions {
    /// Folder of scenario files.
    pub scenarios: PathBuf,
    /// Folder of baselines (one subfolder per backend).
    pub baselines: PathBuf,
    /// Where screenshots and the report go.
    pub out: PathBuf,
    /// Scenario names to run (empty: all, or the short set with `short`).
    pub names: Vec<String>,
    /// Only the short set.
    pub short: bool,
    /// Rewrite the baselines with this run.
    pub bless: bool,
    /// Bless even when this run's calibration is far slower than the other
    /// baselines' (all of them are being blessed on a machine of another speed).
    pub new_machine: bool,
    /// How to run each scenario.
    pub run: RunOptions,
}

impl SmokeOptions {
    /// The repository's scenarios and baselines, output under `target/smoke`.
    #[must_use]
    pub fn repository() -> Self {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        Self {
            scenarios: root.join("data/smoke"),
            baselines: root.join("data/smoke/baselines"),
            out: root.join("target/smoke"),
            names: Vec::new(),
            short: false,
            bless: false,
            new_machine: false,
            run: RunOptions::default(),
        }
    }
}

/// The scenarios `options` selects; unknown names are errors listing the known ones.
pub fn select(options: &SmokeOptions) -> Result<Vec<Scenario>, SmokeError> {
    let all = scenario::all_in(&options.scenarios)?;
    for name in &options.names {
        if !all.iter().any(|s| &s.name == name) {
            let known: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
            return Err(SmokeError::UnknownScenario { name: name.clone(), known: known.join(", ") });
        }
    }
    Ok(all
        .into_iter()
        .filter(|s| if options.names.is_empty() { !options.short || s.short } else { options.names.contains(&s.name) })
        .collect())
}

/// Runs the selected scenarios, compares them (or blesses them), writes the
/// report, and returns it; `Err` is for bad input and broken files, not for
/// regressions (those are `Report::failures`).
pub fn run_smoke(options: &SmokeOptions, progress: &mut dyn FnMut(&str)) -> Result<Report, SmokeError> {
    let scenarios = select(options)?;
    if scenarios.is_empty() {
        return Err(SmokeError::NoScenarios(options.scenarios.clone()));
    }
    std::fs::create_dir_all(&options.out).map_err(|e| SmokeError::io("create", &options.out, e))?;
    let mut report = Report { passed: true, failures: Vec::new(), blessed: options.bless, scenarios: Vec::new() };
    for s in &scenarios {
        progress(&format!(
            "{}: {} keyframes, {:.0} s of path at {} fps",
            s.name,
            s.keyframes.len(),
            s.duration(),
            s.fps
        ));
        let dir = options.out.join(&s.name);
        let mut result = run_scenario(s, &dir, &options.run)?;
        let base_dir = options.baselines.join(&result.backend).join(&s.name);
        let baseline = load_baseline(&base_dir)?;
        for k in &result.keyframes {
            let from = base_dir.join(&k.image);
            if from.exists() {
                let to = dir.join(format!("{}.baseline.png", k.name));
                copy_file(&from, &to)?;
            }
        }
        let mut comparison = compare(&result, &dir, baseline.as_ref(), &base_dir)?;
        if !options.bless && comparison.slow() {
            // A slow figure must be slow twice: the machine may have been busy.
            let slow: Vec<&str> = comparison.metrics.iter().filter(|m| !m.pass).map(|m| m.name.as_str()).collect();
            progress(&format!("{}: over the allowance ({}); running again to confirm", s.name, slow.join(", ")));
            result = run_scenario(s, &dir, &options.run)?;
            comparison = compare(&result, &dir, baseline.as_ref(), &base_dir)?.confirmed_by(&comparison, &s.name);
        }
        if options.bless {
            if !options.new_machine {
                let others = other_calibrations(&options.baselines.join(&result.backend), &s.name)?;
                if let Some(why) = compare::busy_calibration(result.calibration_ms, &others) {
                    return Err(SmokeError::invalid(&base_dir.join("baseline.json"), format!("not blessed: {why}")));
                }
            }
            bless(&result, &dir, &base_dir)?;
            progress(&format!("{}: baseline written to {}", s.name, base_dir.display()));
        } else {
            if baseline.is_none() {
                progress(&format!("{}: no baseline for backend {} (run with --bless)", s.name, result.backend));
            }
            report.failures.extend(comparison.failures.iter().cloned());
        }
        progress(&format!(
            "{}: {:.1} s, {} keyframes, {} failures",
            s.name,
            result.wall_s,
            result.keyframes.len(),
            if options.bless { 0 } else { comparison.failures.len() }
        ));
        report.scenarios.push(ScenarioReport { result, comparison, baseline });
    }
    report.passed = report.failures.is_empty();
    report::write(&report, &options.out)?;
    Ok(report)
}

/// Writes `bytes` to `file` through `engine::write`: whole or not at all,
/// an interrupted run never leaving a half-written screenshot or figure file.
pub(crate) fn write_file(file: &Path, bytes: &[u8]) -> Result<(), SmokeError> {
    engine::write::replace_bytes(file, bytes).map_err(|e| SmokeError::io(e.action, &e.path, e.source))
}

/// An image as PNG at `file`, whole or not at all.
pub(crate) fn write_png(file: &Path, image: &image::RgbaImage) -> Result<(), SmokeError> {
    let mut bytes = std::io::Cursor::new(Vec::new());
    image.write_to(&mut bytes, image::ImageFormat::Png).map_err(|e| SmokeError::io("write", file, e))?;
    write_file(file, bytes.get_ref())
}

/// `from` copied to `to`, whole or not at all.
fn copy_file(from: &Path, to: &Path) -> Result<(), SmokeError> {
    let bytes = std::fs::read(from).map_err(|e| SmokeError::io("read", from, e))?;
    write_file(to, &bytes)
}

/// The UTF-8 text of `path`, read through the engine's bounded reader (a
/// directory, device or FIFO is refused by type, anything over its kind's
/// cap by size, before it is read).
pub(crate) fn read_text(path: &Path, kind: FileKind) -> Result<String, SmokeError> {
    let bytes = engine::read::bounded(path, kind).map_err(|e| match e {
        engine::read::Unread::Refused(m) => SmokeError::invalid(path, m),
        engine::read::Unread::Io(e) => SmokeError::io("read", path, e),
    })?;
    String::from_utf8(bytes).map_err(|_| SmokeError::invalid(path, format!("not UTF-8 text; {} is JSON", kind.name())))
}

fn load_baseline(dir: &Path) -> Result<Option<ScenarioResult>, SmokeError> {
    let file = dir.join("baseline.json");
    if !file.exists() {
        return Ok(None);
    }
    let text = read_text(&file, FileKind::Baseline)?;
    planet::json::parse(&text).map(Some).map_err(|e| SmokeError::invalid(&file, format!("not a baseline: {e}")))
}

/// The calibrations of the baselines in `backend_dir` other than `scenario`'s.
fn other_calibrations(backend_dir: &Path, scenario: &str) -> Result<Vec<f64>, SmokeError> {
    let Ok(entries) = std::fs::read_dir(backend_dir) else { return Ok(Vec::new()) };
    let mut calibrations = Vec::new();
    for entry in entries.flatten() {
        if entry.file_name().to_str() == Some(scenario) {
            continue;
        }
        if let Some(baseline) = load_baseline(&entry.path())? {
            calibrations.push(baseline.calibration_ms);
        }
    }
    Ok(calibrations)
}

/// Rewrites a baseline: PNGs first, then `baseline.json`, each whole or not
/// at all, so an interrupted bless never leaves a half-written file.
fn bless(result: &ScenarioResult, from: &Path, to: &Path) -> Result<(), SmokeError> {
    for k in &result.keyframes {
        copy_file(&from.join(&k.image), &to.join(&k.image))?;
    }
    let json = serde_json::to_string_pretty(result).map_err(|e| SmokeError::invalid(&to.join("baseline.json"), e))?;
    write_file(&to.join("baseline.json"), json.as_bytes())
}
