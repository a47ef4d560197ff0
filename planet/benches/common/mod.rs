//! What the benches share: reading criterion's saved estimates back for the
//! summary tables they print after their runs.

use std::path::{Path, PathBuf};

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
