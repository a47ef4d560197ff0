//! The smoke test catches what it is for: planted regressions. A tiny
//! scenario is blessed into a scratch baseline folder, then run again
//! unchanged (its pictures must match), with a recipe change that moves the
//! terrain (the screenshots must fail), and with an artificially slowed
//! stage (the timings must fail).

use std::path::{Path, PathBuf};
use std::time::Duration;

use smoke_tests::{SmokeOptions, run_smoke};

/// The smoke binary's allocator (see its `main.rs`), so the calibration here
/// is as steady as there.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("smoke-regressions-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("scenarios")).unwrap();
    dir
}

fn write_scenario(dir: &Path, system: &str) {
    let scenario = format!(
        r#"{{
  "name": "tiny",
  "description": "Orbit and a low view of the home planet, small.",
  "system": "{system}",
  "size": [64, 36],
  "fps": 2,
  "short": true,
  "keyframes": [
    {{ "name": "orbit", "t": 0, "view": "planet=1,lat=-7.4565,lon=-34.5481,alt=9000,pitch=-90" }},
    {{ "name": "low", "t": 3, "view": "planet=1,lat=-7.4565,lon=-34.5481,alt=60,heading=120,pitch=-20" }}
  ]
}}"#
    );
    std::fs::write(dir.join("scenarios/tiny.json"), scenario).unwrap();
}

fn options(dir: &Path, out: &str) -> SmokeOptions {
    let mut o = SmokeOptions::repository();
    o.scenarios = dir.join("scenarios");
    o.baselines = dir.join("baselines");
    o.out = dir.join(out);
    o
}

#[test]
fn planted_regressions_are_caught_and_the_unchanged_build_matches() {
    let dir = scratch("planted");
    write_scenario(&dir, "default");
    let quiet = &mut |_: &str| {};

    let mut bless = options(&dir, "bless");
    bless.bless = true;
    let blessed = run_smoke(&bless, quiet).unwrap();
    assert!(blessed.passed && blessed.blessed);
    assert!(dir.join("baselines").read_dir().unwrap().next().is_some(), "nothing blessed");

    // Unchanged: images identical, a report a person can open. Its timings
    // are not asserted: this machine is shared, and two runs a second apart
    // can differ by more than the allowance (`compare`'s unit test checks the
    // timing comparison on fixed figures).
    let same = run_smoke(&options(&dir, "same"), quiet).unwrap();
    let untimed: Vec<_> = same.failures.iter().filter(|f| !f.contains("worse than the baseline")).collect();
    assert!(untimed.is_empty(), "the unchanged build fails: {untimed:?}");
    let images = &same.scenarios[0].comparison.images;
    assert_eq!(images.len(), 2);
    assert!(images.iter().all(|c| c.has_baseline && c.changed == 0.0), "{images:?}");
    let html = std::fs::read_to_string(dir.join("same/report.html")).unwrap();
    assert!(html.contains("tiny/orbit.png") && html.contains("<svg") && html.contains("orbit.baseline.png"));
    assert!(dir.join("same/tiny/low.diff.png").exists());

    // A recipe change that moves the terrain: the home planet 60 m wider.
    let recipe = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/systems/default.json"))
        .unwrap()
        .replace(r#""radius_m": 4000"#, r#""radius_m": 4060"#);
    assert!(recipe.contains("4060"));
    std::fs::create_dir_all(dir.join("scenarios/systems")).unwrap();
    std::fs::write(dir.join("scenarios/systems/moved.json"), recipe).unwrap();
    write_scenario(&dir, "systems/moved.json");
    let moved = run_smoke(&options(&dir, "moved"), quiet).unwrap();
    assert!(!moved.passed);
    assert!(
        moved.failures.iter().any(|f| f.starts_with("tiny/low: image changed")),
        "the moved terrain went unnoticed: {:?}",
        moved.failures
    );

    // An artificially slowed stage: every region job 150 ms longer (a
    // debug build's jobs take tens of milliseconds; 40 ms more once read
    // only 1.2x under a busy CI). It shows
    // in the job times, the time to settle at the keyframes and the regions
    // per second; which of them crosses its allowance first depends on how
    // busy the machine is, so any of them will do.
    write_scenario(&dir, "default");
    let mut slow = options(&dir, "slow");
    slow.run.slow_builds = Duration::from_millis(150);
    let slowed = run_smoke(&slow, quiet).unwrap();
    let ratios: Vec<String> =
        slowed.scenarios[0].comparison.metrics.iter().map(|m| format!("{} {:.2}", m.name, m.ratio)).collect();
    assert!(!slowed.passed, "the slow stage passed: {ratios:?}");
    let timing = ["region job ms p50", "settle s", "s per 1000 regions"];
    assert!(
        slowed.failures.iter().any(|f| timing.iter().any(|t| f.contains(t))),
        "the slow stage went unnoticed: {:?}",
        slowed.failures
    );
    // Its pictures are still right: only the timings flag.
    assert!(slowed.scenarios[0].comparison.images.iter().all(|c| c.pass));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_scenarios_and_names_are_errors() {
    let dir = scratch("bad");
    write_scenario(&dir, "default");
    let mut o = options(&dir, "out");
    o.names = vec!["nowhere".into()];
    assert_eq!(
        run_smoke(&o, &mut |_| {}).unwrap_err().to_string(),
        "--scenario nowhere: no such scenario (known: tiny)"
    );
    std::fs::write(dir.join("scenarios/broken.json"), r#"{"name":"broken","size":[1,1]}"#).unwrap();
    let err = run_smoke(&options(&dir, "out"), &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("broken.json") && err.contains("missing field"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
