//! Tidy checks over the whole workspace, in the manner of rust-analyzer's
//! `tidy.rs`: every source module is named in ARCHITECTURE.md's code map
//! (under its crate's heading), and every source file opens with a `//!`
//! paragraph saying what it makes and why.

use std::path::{Path, PathBuf};

const CRATES: [&str; 6] = ["planet", "jobs", "engine", "render", "tools", "smoke-tests"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace holds this crate").to_owned()
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The code map's section of `krate`: from its `### `krate/`` heading to the next heading.
fn section<'a>(map: &'a str, krate: &str) -> &'a str {
    let heading = format!("### `{krate}/`");
    let Some(start) = map.find(&heading) else { return "" };
    let rest = &map[start + heading.len()..];
    let end = rest.find("\n### ").or_else(|| rest.find("\n## ")).unwrap_or(rest.len());
    &rest[..end]
}

/// The names a module may go by in the code map: `stem.rs`, `stem`, its
/// path from the crate folder, or `dir/` for a `mod.rs`.
fn names(file: &Path, crate_dir: &Path) -> Vec<String> {
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let parent = file.parent().and_then(|p| p.file_name()).and_then(|s| s.to_str()).unwrap_or_default();
    let rel = file.strip_prefix(crate_dir).unwrap_or(file).to_string_lossy().replace('\\', "/");
    let mut out = vec![format!("`{rel}`")];
    if stem == "mod" {
        out.push(format!("`{parent}/`"));
    } else {
        out.push(format!("`{stem}.rs`"));
        out.push(format!("`{stem}`"));
        let from_kind = rel.split_once('/').map_or(rel.as_str(), |(_, r)| r);
        out.push(format!("`{from_kind}`"));
    }
    out
}

#[test]
fn every_module_is_in_the_code_map() {
    let root = root();
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md at the root");
    let mut missing = Vec::new();
    let mut checked = 0;
    for krate in CRATES {
        let crate_dir = root.join(krate);
        let text = section(&map, krate);
        assert!(!text.is_empty(), "ARCHITECTURE.md has no `### `{krate}/`` section");
        for kind in ["src", "tests", "benches"] {
            for file in rust_files(&crate_dir.join(kind)) {
                let name = file.file_name().and_then(|s| s.to_str()).unwrap_or_default();
                // The crate roots are the section itself; a module's `tests.rs` is its own unit tests.
                if matches!(name, "lib.rs" | "main.rs" | "tests.rs") {
                    continue;
                }
                checked += 1;
                if !names(&file, &crate_dir).iter().any(|n| text.contains(n.as_str())) {
                    missing.push(file.strip_prefix(&root).unwrap_or(&file).display().to_string());
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} modules found: is the workspace where this test looks?");
    assert!(
        missing.is_empty(),
        "{} modules are not in ARCHITECTURE.md's code map (name each under its crate's heading):\n  {}",
        missing.len(),
        missing.join("\n  ")
    );
}

#[test]
fn every_source_file_opens_with_a_module_doc() {
    let root = root();
    let mut bare = Vec::new();
    for krate in CRATES {
        for file in rust_files(&root.join(krate).join("src")) {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or_default();
            // A module's `tests.rs` opens with its tests' own doc or goes straight to them.
            if !first.starts_with("//!") && !file.ends_with("tests.rs") {
                bare.push(file.strip_prefix(&root).unwrap_or(&file).display().to_string());
            }
        }
    }
    assert!(bare.is_empty(), "source files without a `//!` paragraph:\n  {}", bare.join("\n  "));
}
