//! Golden files under `data/golden/`: compared exactly, rewritten only with
//! `BLESS=1`. A golden records the `GENERATOR_VERSION` it was written at, so a
//! change of output without a version bump fails with its own message, and
//! `BLESS=1` refuses to rewrite it: blessing adds new values, or rewrites a
//! golden of another version, never changes a value under the same version.

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
    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    match bless_or_compare(name, actual, std::fs::read_to_string(&path).ok().as_deref(), bless) {
        Ok(Some(text)) => {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            eprintln!("blessed {}", path.display());
        }
        Ok(None) => {}
        Err(message) => panic!("{message}"),
    }
}

/// What `check_golden` does with golden text `golden` (`None`: no file): the
/// text to write (under `bless`), nothing (it matches), or why it fails.
pub fn bless_or_compare(
    name: &str,
    actual: &Value,
    golden: Option<&str>,
    bless: bool,
) -> Result<Option<String>, String> {
    let current = json!({ "generator_version": GENERATOR_VERSION, "values": actual });
    let write = serde_json::to_string_pretty(&current).unwrap() + "\n";
    let Some(text) = golden else {
        return if bless { Ok(Some(write)) } else { Err(format!("{name}: no golden file; create it with BLESS=1")) };
    };
    let golden: Value = serde_json::from_str(text).map_err(|e| format!("{name}: not JSON ({e}); re-bless it"))?;
    let version = golden["generator_version"].as_u64().unwrap_or(0);
    let differences = diff("", &golden["values"], actual);
    // Values the golden does not hold yet are additions, not changes.
    let changed: Vec<&String> = differences.iter().filter(|d| !d.contains(": golden null,")).collect();
    let same_version = version == u64::from(GENERATOR_VERSION);
    if same_version && !changed.is_empty() {
        let list = changed.iter().map(|d| d.as_str()).collect::<Vec<_>>().join("\n");
        return Err(if bless {
            format!(
                "{name}: BLESS=1 refuses to rewrite it: {} values changed while GENERATOR_VERSION stayed \
                 {GENERATOR_VERSION}. Bump GENERATOR_VERSION (planet/src/signature.rs) for a change of output, \
                 then bless.\n{list}",
                changed.len()
            )
        } else {
            format!(
                "{name}: outputs changed while GENERATOR_VERSION stayed {GENERATOR_VERSION}. Bump it, then re-bless \
                 with BLESS=1.\n{list}"
            )
        });
    }
    if bless {
        return Ok((!differences.is_empty() || !same_version).then_some(write));
    }
    if !same_version {
        return Err(format!(
            "{name}: written at GENERATOR_VERSION {version}, now {GENERATOR_VERSION}; {} values differ. Check them, \
             then re-bless with BLESS=1.",
            differences.len()
        ));
    }
    if differences.is_empty() {
        Ok(None)
    } else {
        Err(format!("{name}: {} new values; add them with BLESS=1.\n{}", differences.len(), differences.join("\n")))
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
