//! What the CLI tests share: running the `planet` binary as a user would
//! (and checking that no panic reaches the terminal), and scratch folders.

// Each test file uses some of these.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// Runs `planet args` with no display (unless `env` sets one) and the
/// variables of `env`; fails the test on a panic message.
pub fn planet_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_planet"));
    command.args(args);
    command.env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY");
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked") && !stderr.contains("internal error"), "panic in {args:?}: {stderr}");
    out
}

/// Runs `planet args` (see [`planet_env`]).
pub fn planet(args: &[&str]) -> Output {
    planet_env(args, &[])
}

/// Runs `planet args` with no display and stdout connected to `stdout` (a
/// closed pipe, `/dev/full`): its exit code and stderr; fails on a panic.
pub fn planet_with_stdout<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(
    args: &[S],
    stdout: Stdio,
) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_planet"))
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("the binary runs");
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("panicked") && !stderr.contains("internal error"), "{args:?}: {stderr}");
    (out.status.code(), stderr)
}

/// `planet args` into a closed pipe ends with exit 141 (saying nothing when
/// `quiet`: the device probe may print its own lines) and onto `/dev/full`
/// with exit 1 and the reason.
pub fn assert_closed_and_full_stdout<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(args: &[S], quiet: bool) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let (code, stderr) = planet_with_stdout(args, writer.into());
    assert_eq!(code, Some(141), "{args:?} into a closed pipe: {stderr}");
    assert!(!quiet || !stderr.contains("error"), "{args:?} into a closed pipe is quiet: {stderr}");
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let (code, stderr) = planet_with_stdout(args, full.into());
    assert_eq!(code, Some(1), "{args:?} onto /dev/full: {stderr}");
    assert!(stderr.contains("error: cannot write to stdout: No space left on device"), "{args:?}: {stderr}");
}

/// Runs `planet args` once cleanly, then kills it at 50 points spread over
/// such a run, and asserts after each kill that `state` (what the output
/// folder or file holds) is what the clean run left: the earlier output or
/// the complete new one, never a partial one. The clean run must add no
/// temporary (dot) name to `dir`, the folder the output lies in; killed
/// runs may leave theirs.
pub fn assert_kills_keep_the_output<S: AsRef<std::ffi::OsStr> + std::fmt::Debug, T: PartialEq>(
    args: &[S],
    dir: &std::path::Path,
    state: impl Fn() -> T,
) {
    let dot_names = || {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        names.sort();
        names
    };
    let before = dot_names();
    let start = std::time::Instant::now();
    let (code, stderr) = planet_with_stdout(args, Stdio::null());
    assert_eq!(code, Some(0), "{args:?}: {stderr}");
    let took = start.elapsed();
    assert_eq!(dot_names(), before, "{args:?}: a clean run left a temporary file");
    let good = state();
    for i in 0..50u32 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_planet"))
            .args(args)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(took.mul_f64(f64::from(i) / 40.0));
        let _ = child.kill();
        let _ = child.wait();
        assert!(state() == good, "{args:?} killed after {i}/40 of a run: the output is not the earlier or the new one");
    }
}

/// Bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh, empty scratch folder `name` of this test process, under `suite`.
pub fn scratch_dir(suite: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("planet-{suite}-{}", std::process::id())).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
