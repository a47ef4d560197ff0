//! What the CLI tests share: running the `planet` binary as a user would
//! (and checking that no panic reaches the terminal), and scratch folders.

// Each test file uses some of these.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

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
