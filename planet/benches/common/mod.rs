//! What the benches share: their criterion set-up, and reading criterion's
//! saved estimates back for the summary tables they print after their runs.

// Each bench compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use criterion::Criterion;

/// A bench's `main`: runs `bench` with `criterion` (the command line may
/// override its settings), then prints `summary` of the estimates criterion
/// saved (or says why it cannot).
pub fn run(criterion: Criterion, bench: fn(&mut Criterion), summary: fn(&Path)) {
    let mut c = criterion.configure_from_args();
    bench(&mut c);
    c.final_summary();
    match criterion_dir() {
        Some(dir) => summary(&dir),
        None => println!("(no criterion output directory found; summary skipped)"),
    }
}

/// Where criterion wrote its estimates: `$CRITERION_HOME`, else the target
/// directory that holds this bench binary.
pub fn criterion_dir() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return Some(PathBuf::from(home));
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return Some(PathBuf::from(target).join("criterion"));
    }
    let exe = std::env::current_exe().ok()?;
    exe.ancestors().find(|p| p.join("criterion").is_dir()).map(|p| p.join("criterion"))
}

/// The median time of one iteration of benchmark `group/id`, ns.
pub fn median_ns(dir: &Path, group: &str, id: &str) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join(group).join(id).join("new").join("estimates.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

/// The median time of one iteration of benchmark `group/id`, µs.
pub fn median_us(dir: &Path, group: &str, id: &str) -> Option<f64> {
    median_ns(dir, group, id).map(|ns| ns / 1e3)
}
