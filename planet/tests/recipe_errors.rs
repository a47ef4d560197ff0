//! Bad system recipes, one per row: each must fail with an error that names
//! the field, the value and what is allowed. None may panic.

use planet::PlannedSystem;

/// (what the row tests, the recipe, text every error line set must contain).
const CASES: &[(&str, &str, &[&str])] = &[
    ("empty file", "", &["the file is empty"]),
    ("only whitespace", "  \n\t ", &["the file is empty"]),
    ("truncated JSON", "{\"seed\": 1,", &["line 1, column 11: the JSON ends too early"]),
    ("truncated inside a planet", "{\"seed\": 1, \"planets\": [{\"index\": 0", &["the JSON ends too early"]),
    ("not an object", "[1, 2]", &["[1,2]: a system recipe must be a JSON object"]),
    ("missing seed", "{}", &["seed: missing"]),
    ("negative seed", "{\"seed\": -1}", &["seed = -1: must be an integer in 0..=18446744073709551615"]),
    ("fractional seed", "{\"seed\": 1.5}", &["seed = 1.5: must be an integer"]),
    ("seed as a string", "{\"seed\": \"12\"}", &["seed = \"12\": must be an integer"]),
    (
        "seed too large for u64",
        "{\"seed\": 18446744073709551616}",
        &["seed = 1.8446744073709552e+19: must be an integer"],
    ),
    ("number overflowing f64", "{\"seed\": 1e400}", &["line 1, column 14: invalid JSON: number out of range"]),
    ("NaN literal", "{\"seed\": NaN}", &["line 1, column 10: invalid JSON"]),
    ("Infinity literal", "{\"seed\": 1, \"planets\": [{\"index\": 0, \"radius_m\": Infinity}]}", &["invalid JSON"]),
    (
        "unknown top-level field",
        "{\"seed\": 1, \"sed\": 2}",
        &["sed: unknown field; expected one of name, description, seed"],
    ),
    ("planet_count zero", "{\"seed\": 1, \"planet_count\": 0}", &["planet_count = 0: must be in 1..=16"]),
    ("planet_count huge", "{\"seed\": 1, \"planet_count\": 1000000}", &["planet_count = 1000000: must be in 1..=16"]),
    ("planets not a list", "{\"seed\": 1, \"planets\": {}}", &["planets = {}: must be a list of planet entries"]),
    (
        "planet entry not an object",
        "{\"seed\": 1, \"planets\": [3]}",
        &["planets[0] = 3: a planet entry must be an object"],
    ),
    ("planet index missing", "{\"seed\": 1, \"planets\": [{\"kind\": \"ice\"}]}", &["planets[0].index: missing"]),
    (
        "duplicated planet index",
        "{\"seed\": 1, \"planets\": [{\"index\": 0}, {\"index\": 0}]}",
        &["planets[1].index = 0: duplicates planets[0]"],
    ),
    (
        "planet index beyond the system",
        "{\"seed\": 1, \"planet_count\": 3, \"planets\": [{\"index\": 5}]}",
        &["planets[0].index = 5: must be in 0..=2 (the system has 3 planets)"],
    ),
    (
        "unknown planet kind",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"kind\": \"gas\"}]}",
        &["planets[0].kind = \"gas\": must be one of rocky, ocean, desert, ice, lava"],
    ),
    (
        "radius out of range",
        "{\"seed\": 1, \"planets\": [{\"index\": 2, \"radius_m\": -5}]}",
        &["planets[0].radius_m = -5: must be in 500..=50000"],
    ),
    (
        "radius overflowing f32",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"radius_m\": 1e39}]}",
        &["planets[0].radius_m = inf: must be in 500..=50000"],
    ),
    (
        "radius of the wrong type",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"radius_m\": \"big\"}]}",
        &["planets[0].radius_m: invalid type: string \"big\", expected f32"],
    ),
    (
        "unknown recipe field",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"radius\": 3000}]}",
        &["planets[0].radius: unknown field `radius`, expected one of"],
    ),
    (
        "unknown nested field",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"sea\": {\"lvl\": 3}}]}",
        &["planets[0].sea.lvl: unknown field `lvl`"],
    ),
    (
        "material index out of range",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"sea\": {\"material\": 99}}]}",
        &["planets[0].sea.material = 99: must be in 0..=10 (an index into materials)"],
    ),
    (
        "street material out of range",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"settlements\": {\"street_material\": 12}}]}",
        &["planets[0].settlements.street_material = 12: must be in 0..=10 (an index into materials)"],
    ),
    (
        "list edit beyond the list",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"materials\": {\"40\": {\"roughness\": 0.5}}}]}",
        &["planets[0].materials = {\"40\": ..}: edits a list by index: keys must be in 0..=10"],
    ),
    (
        "colour channel out of range",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"materials\": {\"1\": {\"color\": [2, 0, 0]}}}]}",
        &["planets[0].materials[1].color[0] = 2: must be in 0..=1"],
    ),
    (
        "shell not a multiple of a region",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"shell\": {\"thickness_m\": 100}}]}",
        &["planets[0].shell.thickness_m = 100: must be a multiple of 32"],
    ),
    (
        "terrain taller than the shell",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"terrain\": {\"mountains\": {\"height_m\": 300}}}]}",
        &["planets[0].terrain = a rise of up to", "must stay at least 4 m inside the 80 m of shell above the surface"],
    ),
    (
        "zero octaves",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"terrain\": {\"hills\": {\"noise\": {\"octaves\": 0}}}}]}",
        &["planets[0].terrain.hills.noise.octaves = 0: must be in 1..=16"],
    ),
    (
        "inverted range",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"caves\": {\"mouth_radius_m\": [10, 2]}}]}",
        &["planets[0].caves.mouth_radius_m = [10, 2]: the minimum must not exceed the maximum"],
    ),
    (
        "name with a control character",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"name\": \"a\\u0007b\"}]}",
        &["planets[0].name = \"a\\u0007b\": must be a string of 1..=32 printable characters"],
    ),
    (
        "empty biome list and elevation too high for the radius",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"radius_m\": 600, \"elevation\": {\"amplitude_m\": 400}, \"biomes\": []}]}",
        &["planets[0].elevation = amplitude_m + ranges_m", "planets[0].biomes = 0 entries: must have 1..=32 entries"],
    ),
    (
        "several errors reported together",
        "{\"seed\": 1, \"planets\": [{\"index\": 0, \"radius_m\": 100, \"gravity_mps2\": 0}, {\"index\": 1, \"kind\": \"ice\", \"sea\": {\"level_m\": 1e9}}]}",
        &[
            "planets[0].radius_m = 100: must be in 500..=50000",
            "planets[0].gravity_mps2 = 0: must be in 0.5..=30",
            "planets[1].sea.level_m = 1000000000: must be in",
        ],
    ),
];

#[test]
fn bad_recipes_get_clear_errors() {
    assert!(CASES.len() >= 20);
    let mut failures = Vec::new();
    for (what, recipe, expected) in CASES {
        match PlannedSystem::from_json(recipe) {
            Ok(_) => failures.push(format!("{what}: accepted")),
            Err(e) => {
                let text = e.to_string();
                for needle in *expected {
                    if !text.contains(needle) {
                        failures.push(format!("{what}: expected {needle:?} in:\n{text}"));
                    }
                }
                // One error per line, none empty.
                assert!(text.lines().all(|l| !l.trim().is_empty()), "{what}: {text}");
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn good_overrides_apply() {
    let s = PlannedSystem::from_json(
        r#"{"seed": 1, "planet_count": 2, "planets": [{"index": 1, "kind": "lava", "name": "Forge", "seed": 99,
            "radius_m": 2500, "materials": {"1": {"color": [0.5, 0.5, 0.5]}}}]}"#,
    )
    .unwrap();
    let p = &s.planets[1];
    assert_eq!((p.name.as_str(), p.seed, p.recipe.radius_m), ("Forge", 99, 2500.0));
    assert_eq!(p.recipe.materials[1].color, [0.5, 0.5, 0.5]);
    assert_eq!(p.kind, planet::PlanetKind::Lava);
}
