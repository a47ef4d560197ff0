//! Runs the `planet` binary as a user would: on the default system, on good
//! and bad recipe files, with bad arguments. Checks output, messages and exit
//! codes, and that no panic ever reaches the terminal.

use std::path::PathBuf;
use std::process::{Command, Output};

use planet::PlannedSystem;

fn planet(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_planet")).args(args).output().expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked") && !stderr.contains("internal error"), "panic in {args:?}: {stderr}");
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A file in a fresh scratch directory of this test process.
fn scratch(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("planet-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn system_prints_the_default_table() {
    let out = planet(&["system"]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    let system = PlannedSystem::default_system();
    assert!(stdout.contains(&system.signature().to_string()));
    for p in &system.planets {
        assert!(stdout.contains(&p.name) && stdout.contains(&p.signature().to_string()), "{stdout}");
    }
    // No arguments at all prints the same table.
    let bare = planet(&[]);
    assert!(bare.status.success());
    assert!(text(&bare.stdout).starts_with(&stdout));
}

#[test]
fn system_json_is_the_plan() {
    let out = planet(&["system", "--json"]);
    assert!(out.status.success());
    let plan: PlannedSystem = serde_json::from_slice(&out.stdout).expect("valid plan JSON");
    assert_eq!(plan, PlannedSystem::default_system());
}

#[test]
fn signature_prints_one_hex_line() {
    let out = planet(&["signature"]);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), format!("{}\n", PlannedSystem::default_system().signature()));
    let file = scratch("seed7.json", br#"{"seed": 7}"#);
    let out = planet(&["signature", file.to_str().unwrap()]);
    let expected = PlannedSystem::from_json(r#"{"seed": 7}"#).unwrap().signature();
    assert_eq!(text(&out.stdout).trim(), expected.to_string());
}

#[test]
fn validate_accepts_good_files() {
    let file = scratch("good.json", br#"{"seed": 3, "planets": [{"index": 0, "kind": "ice", "radius_m": 2000}]}"#);
    let out = planet(&["validate", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "ok\n");
    let default = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/systems/default.json");
    assert_eq!(planet(&["validate", default.to_str().unwrap()]).status.code(), Some(0));
}

#[test]
fn validate_lists_every_error_and_exits_2() {
    let file = scratch(
        "bad.json",
        br#"{"seed": 1, "planets": [{"index": 0, "radius_m": -5, "gravity_mps2": 99}, {"index": 0}]}"#,
    );
    let out = planet(&["validate", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("planets[1].index = 0: duplicates planets[0]"));

    let file = scratch("bad2.json", br#"{"seed": 1, "planets": [{"index": 2, "radius_m": -5, "gravity_mps2": 99}]}"#);
    let stderr = text(&planet(&["validate", file.to_str().unwrap()]).stderr);
    assert_eq!(
        stderr,
        "planets[0].radius_m = -5: must be in 500..=50000\nplanets[0].gravity_mps2 = 99: must be in 0.5..=30\n"
    );
}

#[test]
fn damaged_files_get_clear_errors() {
    let cases: &[(&str, &[u8], i32, &str)] = &[
        ("empty.json", b"", 2, "the file is empty"),
        ("truncated.json", br#"{"seed": 12, "planets": [{"ind"#, 2, "the JSON ends too early"),
        ("binary.json", &[0x7b, 0xff, 0xfe, 0x00, 0x22], 2, "is not UTF-8 text"),
        ("flipped.json", br#"{"seed": 12, "planets": [{"index": 0, "radius_m": 3000}]]"#, 2, "invalid JSON"),
    ];
    for (name, contents, code, message) in cases {
        let file = scratch(name, contents);
        for cmd in ["validate", "system", "signature"] {
            let out = planet(&[cmd, file.to_str().unwrap()]);
            assert_eq!(out.status.code(), Some(*code), "{cmd} {name}");
            assert!(text(&out.stderr).contains(message), "{cmd} {name}: {}", text(&out.stderr));
        }
    }
}

#[test]
fn missing_files_and_bad_arguments() {
    let out = planet(&["validate", "/no/such/recipe.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("cannot read /no/such/recipe.json"));
    let out = planet(&["validate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("Usage"));
    let out = planet(&["fly-to-the-moon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(planet(&["--help"]).status.success());
}
