//! Golden files under `data/golden/`: compared exactly, rewritten only with
//! `BLESS=1`. A golden records the `GENERATOR_VERSION` it was written at, so a
//! change of output without a version bump fails with its own message.

use std::path::PathBuf;

use planet::GENERATOR_VERSION;
use serde_json::{Value, json};

/// The path of a golden file.
pub fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/golden").join(name)
}

/// Compares `actual` with the golden file `name`, or rewrites it under `BLESS=1`.
pub fn check_golden(name: &str, actual: &Value) {
    let path = golden_path(name);
    let current = json!({ "generator_version": GENERATOR_VERSION, "values": actual });
    if std::env::var_os("BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&current).unwrap() + "\n").unwrap();
        eprintln!("blessed {}", path.display());
        return;
    }
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}; create it with BLESS=1", path.display()));
    let golden: Value = serde_json::from_str(&text).unwrap();
    let version = golden["generator_version"].as_u64().unwrap();
    let differences = diff("", &golden["values"], actual);
    if version == u64::from(GENERATOR_VERSION) {
        assert!(
            differences.is_empty(),
            "{name}: outputs changed while GENERATOR_VERSION stayed {GENERATOR_VERSION}. Bump it, then re-bless with BLESS=1.\n{}",
            differences.join("\n")
        );
    } else {
        panic!(
            "{name}: written at GENERATOR_VERSION {version}, now {GENERATOR_VERSION}; {} values differ. Check them, then re-bless with BLESS=1.",
            differences.len()
        );
    }
}

fn diff(path: &str, a: &Value, b: &Value) -> Vec<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter()
                .flat_map(|k| {
                    diff(&format!("{path}.{k}"), x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null))
                })
                .collect()
        }
        _ if a == b => Vec::new(),
        _ => vec![format!("  {path}: golden {a}, now {b}")],
    }
}
