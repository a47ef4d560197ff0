//! Pins the signature of the default system and of a few seed-only systems,
//! and of the default planets' layouts.
//! They change only with the recipe format, a generator or `GENERATOR_VERSION`.

mod common;

use planet::{PlannedSystem, SystemRecipe};
use serde_json::json;

#[test]
fn default_system_signature_is_pinned() {
    let system = PlannedSystem::default_system();
    let planets: Vec<_> = system
        .planets
        .iter()
        .map(|p| json!({ "name": p.name, "kind": p.kind, "signature": p.signature().to_string() }))
        .collect();
    let seeds: Vec<_> = [0u64, 1, 42, u64::MAX]
        .iter()
        .map(|&s| json!({ "seed": s, "signature": PlannedSystem::build(&SystemRecipe::from_seed(s)).unwrap().signature().to_string() }))
        .collect();
    // Each default planet's layout (the plan: belts, rivers, lakes, plots).
    let layouts: Vec<_> = system
        .planets
        .iter()
        .map(|p| json!({ "name": p.name, "layout": planet::layout::PlanetLayout::build(p).signature().to_string() }))
        .collect();
    common::check_golden(
        "signatures.json",
        &json!({
            "default_system": system.signature().to_string(),
            "default_planets": planets,
            "seed_only": seeds,
            "default_layouts": layouts,
        }),
    );
}

#[test]
fn signature_ignores_formatting_but_not_values() {
    let a = PlannedSystem::from_json(r#"{"seed": 5, "planets": [{"index": 0, "kind": "ice"}]}"#).unwrap();
    let b = PlannedSystem::from_json("{\n  \"planets\": [ { \"kind\": \"ice\", \"index\": 0 } ],\n  \"seed\": 5\n}")
        .unwrap();
    assert_eq!(a.signature(), b.signature());
    // An override equal to the derived value names the same world.
    let radius = a.planets[0].recipe.radius_m;
    let c = PlannedSystem::from_json(&format!(
        r#"{{"seed": 5, "planets": [{{"index": 0, "kind": "ice", "radius_m": {radius}}}]}}"#
    ))
    .unwrap();
    assert_eq!(a.signature(), c.signature());
    // Any planned number moves it.
    let d = PlannedSystem::from_json(r#"{"seed": 5, "planets": [{"index": 0, "kind": "ice", "gravity_mps2": 3.5}]}"#)
        .unwrap();
    assert_ne!(a.signature(), d.signature());
    assert_ne!(a.planets[0].signature(), d.planets[0].signature());
    assert_eq!(a.planets[1].signature(), d.planets[1].signature());
}

#[test]
fn planning_is_the_same_on_every_thread() {
    let expected = PlannedSystem::default_system().signature();
    let handles: Vec<_> = (0..4).map(|_| std::thread::spawn(|| PlannedSystem::default_system().signature())).collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), expected);
    }
}

#[test]
fn default_planets_differ_visibly() {
    let system = PlannedSystem::default_system();
    let mut kinds: Vec<_> = system.planets.iter().map(|p| p.kind).collect();
    kinds.sort();
    kinds.dedup();
    assert_eq!(kinds.len(), system.planets.len(), "every default planet has its own kind");
    let mut ground: Vec<_> = system.planets.iter().map(|p| p.recipe.materials[3].name.clone()).collect();
    ground.sort();
    ground.dedup();
    assert!(ground.len() >= 4, "ground materials {ground:?}");
}

/// `BLESS=1` adds values and rewrites goldens of another version, but
/// refuses to change a value written at this `GENERATOR_VERSION`.
#[test]
fn blessing_refuses_a_change_without_a_version_bump() {
    let golden = |version: u32, values: serde_json::Value| {
        serde_json::to_string(&json!({ "generator_version": version, "values": values })).unwrap()
    };
    let now = planet::GENERATOR_VERSION;
    let this = golden(now, json!({ "a": { "hash": "11" } }));
    let changed = json!({ "a": { "hash": "22" } });
    let grown = json!({ "a": { "hash": "11", "mesh": "33" } });
    let same = json!({ "a": { "hash": "11" } });
    for bless in [false, true] {
        let e = common::bless_or_compare("x.json", &changed, Some(&this), bless).unwrap_err();
        assert!(e.starts_with("x.json: ") && e.contains(".a.hash: golden \"11\", now \"22\""), "{e}");
        assert_eq!(e.contains("BLESS=1 refuses"), bless, "{e}");
        assert_eq!(common::bless_or_compare("x.json", &same, Some(&this), bless), Ok(None));
    }
    // New values: blessed in, or named until they are.
    assert!(common::bless_or_compare("x.json", &grown, Some(&this), true).unwrap().unwrap().contains("\"33\""));
    let e = common::bless_or_compare("x.json", &grown, Some(&this), false).unwrap_err();
    assert!(e.contains("1 new values") && e.contains(".a.mesh"), "{e}");
    // A golden of an older version: a failure to look at, and blessed on purpose.
    let old = golden(now - 1, json!({ "a": { "hash": "11" } }));
    assert!(common::bless_or_compare("x.json", &changed, Some(&old), false).unwrap_err().contains("written at"));
    let blessed = common::bless_or_compare("x.json", &changed, Some(&old), true).unwrap().unwrap();
    assert!(blessed.contains(&format!("\"generator_version\": {now}")) && blessed.contains("\"22\""));
    // No golden: create it with BLESS=1.
    assert!(common::bless_or_compare("x.json", &same, None, false).unwrap_err().contains("create it with BLESS=1"));
    assert!(common::bless_or_compare("x.json", &same, None, true).unwrap().is_some());
}
