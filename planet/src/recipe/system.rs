//! The solar-system recipe as written in JSON: a seed, and optional overrides
//! per planet. Parsing reports every problem it can find, each with its JSON
//! path, rather than stopping at the first.
//!
//! ```json
//! { "seed": 42, "planet_count": 5,
//!   "planets": [ { "index": 1, "kind": "ocean", "radius_m": 3000,
//!                  "sea": { "level_m": 40 }, "materials": { "3": { "color": [0.1, 0.4, 0.1] } } } ] }
//! ```
//!
//! A planet entry's fields other than `index`, `seed`, `kind`, `name`,
//! `day_s` and `tilt_deg` (its spin, `plan::Spin`) are
//! merged over the recipe derived from the planet's seed: objects key by key,
//! lists either whole (a JSON array) or element by element (an object whose
//! keys are indices), everything else replaced.

use serde::Serialize;
use serde_json::{Map, Value};

use super::error::{RecipeError, RecipeErrors, join_path};
use super::kind::PlanetKind;

/// Most planets a system may hold.
pub const MAX_PLANETS: u32 = 16;

/// The default system, embedded so that every command has a world with no files.
pub const DEFAULT_SYSTEM_JSON: &str = include_str!("../../../data/systems/default.json");

/// A solar-system recipe.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemRecipe {
    /// Display name of the system.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Free text for people; ignored by generation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The system seed every planet is derived from.
    pub seed: u64,
    /// Number of planets; derived from the seed (3..=8) when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planet_count: Option<u32>,
    /// Per-planet overrides.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub planets: Vec<PlanetOverride>,
}

/// Overrides for one planet of a system.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanetOverride {
    /// Which planet (0 = nearest the sun).
    pub index: u32,
    /// Replaces the planet's derived seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Replaces the planet's derived kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<PlanetKind>,
    /// Replaces the planet's derived name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Replaces the planet's derived day length, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub day_s: Option<f64>,
    /// Replaces the planet's derived axis tilt, degrees.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tilt_deg: Option<f64>,
    /// Planet-recipe fields merged over the derived recipe.
    #[serde(flatten)]
    pub recipe: Map<String, Value>,
}

const SYSTEM_FIELDS: &[&str] = &["name", "description", "seed", "planet_count", "planets"];

impl SystemRecipe {
    /// A recipe with just a seed.
    #[must_use]
    pub fn from_seed(seed: u64) -> Self {
        Self { name: None, description: None, seed, planet_count: None, planets: Vec::new() }
    }

    /// The embedded default system (`data/systems/default.json`).
    #[must_use]
    pub fn default_system() -> Self {
        Self::from_json(DEFAULT_SYSTEM_JSON).expect("the embedded default system is valid (tested)")
    }

    /// Parses a recipe, reporting every structural problem found. Values
    /// inside planet overrides are checked when the system is planned.
    pub fn from_json(text: &str) -> Result<Self, RecipeErrors> {
        if text.trim().is_empty() {
            return Err(RecipeError::field(
                "",
                "the file is empty: a system recipe is a JSON object such as {\"seed\": 1}",
            )
            .into());
        }
        let value: Value = serde_json::from_str(text).map_err(json_syntax_error)?;
        if let Some(e) = crate::json::duplicate_key(text) {
            return Err(RecipeError::field(e.path, e.message).into());
        }
        let Value::Object(map) = value else {
            return Err(RecipeError::value(
                "",
                short(&value),
                "a system recipe must be a JSON object such as {\"seed\": 1}",
            )
            .into());
        };
        let mut errors = Vec::new();
        let mut recipe = Self::from_seed(0);
        let mut has_seed = false;
        for (key, v) in &map {
            match key.as_str() {
                "name" => recipe.name = string_field(key, v, 1..=64, &mut errors),
                "description" => recipe.description = string_field(key, v, 0..=2000, &mut errors),
                "seed" => {
                    has_seed = true;
                    recipe.seed = u64_field(key, v, &mut errors).unwrap_or(0);
                }
                "planet_count" => {
                    recipe.planet_count = u64_field(key, v, &mut errors).and_then(|n| {
                        if (1..=u64::from(MAX_PLANETS)).contains(&n) {
                            Some(n as u32)
                        } else {
                            errors.push(RecipeError::value(key, n, format!("must be in 1..={MAX_PLANETS}")));
                            None
                        }
                    });
                }
                "planets" => match v {
                    Value::Array(items) => {
                        for (i, item) in items.iter().enumerate() {
                            if let Some(p) = PlanetOverride::parse(&format!("planets[{i}]"), item, &mut errors) {
                                recipe.planets.push(p);
                            }
                        }
                    }
                    other => errors.push(RecipeError::value(key, short(other), "must be a list of planet entries")),
                },
                _ => errors.push(unknown_field("", key, SYSTEM_FIELDS)),
            }
        }
        if !has_seed {
            errors.push(RecipeError::field(
                "seed",
                "missing: a system needs a seed, an integer in 0..=18446744073709551615",
            ));
        }
        if errors.is_empty() { Ok(recipe) } else { Err(RecipeErrors(errors)) }
    }

    /// The recipe as pretty JSON (the input format).
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a recipe always serializes")
    }
}

impl PlanetOverride {
    fn parse(path: &str, value: &Value, errors: &mut Vec<RecipeError>) -> Option<Self> {
        let Value::Object(map) = value else {
            errors.push(RecipeError::value(path, short(value), "a planet entry must be an object with an \"index\""));
            return None;
        };
        let before = errors.len();
        let mut entry =
            Self { index: 0, seed: None, kind: None, name: None, day_s: None, tilt_deg: None, recipe: Map::new() };
        let mut has_index = false;
        for (key, v) in map {
            let at = join_path(path, key);
            match key.as_str() {
                "index" => {
                    has_index = true;
                    match v.as_u64() {
                        Some(n) if n < u64::from(MAX_PLANETS) => entry.index = n as u32,
                        _ => {
                            errors.push(RecipeError::value(
                                at,
                                short(v),
                                format!("must be in 0..={}", MAX_PLANETS - 1),
                            ));
                        }
                    }
                }
                "seed" => entry.seed = u64_field(&at, v, errors),
                "name" => entry.name = string_field(&at, v, 1..=32, errors),
                "day_s" => entry.day_s = number_field(&at, v, crate::plan::DAY_S, errors),
                "tilt_deg" => entry.tilt_deg = number_field(&at, v, crate::plan::TILT_DEG, errors),
                "kind" => match v.as_str().map(str::parse::<PlanetKind>) {
                    Some(Ok(kind)) => entry.kind = Some(kind),
                    Some(Err(msg)) => errors.push(RecipeError::value(at, short(v), msg)),
                    None => errors.push(RecipeError::value(
                        at,
                        short(v),
                        "must be a string: rocky, ocean, desert, ice or lava",
                    )),
                },
                _ => {
                    entry.recipe.insert(key.clone(), v.clone());
                }
            }
        }
        if !has_index {
            errors.push(RecipeError::field(
                join_path(path, "index"),
                "missing: which planet this entry overrides (0 = nearest the sun)",
            ));
        }
        (errors.len() == before).then_some(entry)
    }
}

/// Merges `over` into `base`: objects key by key, a list element by element
/// when `over` is an object keyed by indices, anything else replaced. Keys that
/// `base` lacks are inserted (deserialization then rejects unknown fields).
pub(crate) fn merge(base: &mut Value, over: &Map<String, Value>, path: &str, errors: &mut Vec<RecipeError>) {
    match base {
        Value::Object(fields) => {
            for (key, v) in over {
                let at = join_path(path, key);
                match (fields.get_mut(key), v) {
                    (Some(slot @ (Value::Object(_) | Value::Array(_))), Value::Object(o)) => {
                        merge(slot, o, &at, errors);
                    }
                    (Some(slot), _) => *slot = v.clone(),
                    (None, _) => {
                        fields.insert(key.clone(), v.clone());
                    }
                }
            }
        }
        Value::Array(items) => {
            for (key, v) in over {
                let at = format!("{path}[{key}]");
                let Some(i) = key.parse::<usize>().ok().filter(|&i| i < items.len()) else {
                    errors.push(RecipeError::value(
                        path,
                        format!("{{\"{key}\": ..}}"),
                        format!("edits a list by index: keys must be in 0..={}", items.len().saturating_sub(1)),
                    ));
                    continue;
                };
                match (&mut items[i], v) {
                    (slot @ (Value::Object(_) | Value::Array(_)), Value::Object(o)) => merge(slot, o, &at, errors),
                    (slot, _) => *slot = v.clone(),
                }
            }
        }
        _ => {}
    }
}

/// A short rendering of a JSON value for an error message.
pub(crate) fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 48 { format!("{}...", s.chars().take(45).collect::<String>()) } else { s }
}

fn unknown_field(path: &str, key: &str, expected: &[&str]) -> RecipeError {
    RecipeError::field(join_path(path, key), format!("unknown field; expected one of {}", expected.join(", ")))
}

fn number_field(
    path: &str,
    v: &Value,
    range: std::ops::RangeInclusive<f64>,
    errors: &mut Vec<RecipeError>,
) -> Option<f64> {
    match v.as_f64() {
        Some(x) if range.contains(&x) => Some(x),
        _ => {
            errors.push(RecipeError::value(
                path,
                short(v),
                format!("must be a number in {}..={}", range.start(), range.end()),
            ));
            None
        }
    }
}

fn u64_field(path: &str, v: &Value, errors: &mut Vec<RecipeError>) -> Option<u64> {
    let n = v.as_u64();
    if n.is_none() {
        errors.push(RecipeError::value(path, short(v), "must be an integer in 0..=18446744073709551615"));
    }
    n
}

fn string_field(
    path: &str,
    v: &Value,
    chars: std::ops::RangeInclusive<usize>,
    errors: &mut Vec<RecipeError>,
) -> Option<String> {
    match v.as_str() {
        Some(s) if chars.contains(&s.chars().count()) && !s.chars().any(char::is_control) => Some(s.to_owned()),
        _ => {
            errors.push(RecipeError::value(
                path,
                short(v),
                format!("must be a string of {}..={} printable characters", chars.start(), chars.end()),
            ));
            None
        }
    }
}

/// A JSON syntax error as a recipe error, with its line and column.
pub(crate) fn json_syntax_error(e: serde_json::Error) -> RecipeErrors {
    let full = e.to_string();
    // serde_json appends " at line L column C"; we put the position first.
    let message = full.split(" at line ").next().unwrap_or(&full);
    let what = if e.is_eof() { "the JSON ends too early" } else { "invalid JSON" };
    RecipeError::field("", format!("line {}, column {}: {what}: {message}", e.line(), e.column())).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_round_trips() {
        let text = r#"{ "seed": 42, "name": "Test", "planet_count": 4,
            "planets": [ { "index": 1, "kind": "ocean", "radius_m": 3000, "sea": { "level_m": 40 } } ] }"#;
        let r = SystemRecipe::from_json(text).unwrap();
        assert_eq!(r.seed, 42);
        assert_eq!(r.planet_count, Some(4));
        assert_eq!(r.planets[0].kind, Some(PlanetKind::Ocean));
        assert_eq!(r.planets[0].recipe["radius_m"], 3000);
        assert_eq!(SystemRecipe::from_json(&r.to_json()).unwrap(), r);
    }

    #[test]
    fn spin_overrides_parse_and_name_their_range() {
        let text = r#"{ "seed": 1, "planets": [ { "index": 2, "day_s": 600, "tilt_deg": 23.5 } ] }"#;
        let r = SystemRecipe::from_json(text).unwrap();
        assert_eq!((r.planets[0].day_s, r.planets[0].tilt_deg), (Some(600.0), Some(23.5)));
        assert!(r.planets[0].recipe.is_empty(), "spin is not a planet-recipe field");
        assert_eq!(SystemRecipe::from_json(&r.to_json()).unwrap(), r);
        let plan = crate::PlannedSystem::build(&r).unwrap();
        assert_eq!((plan.spin(2).day_s, plan.spin(2).tilt_deg), (600.0, 23.5));
        assert_eq!(plan.spin(1), crate::Spin::derive(1, 1));
        for (field, bad) in [("day_s", "59"), ("day_s", "\"long\""), ("tilt_deg", "-1"), ("tilt_deg", "181")] {
            let text = format!(r#"{{ "seed": 1, "planets": [ {{ "index": 0, "{field}": {bad} }} ] }}"#);
            let e = SystemRecipe::from_json(&text).unwrap_err().to_string();
            assert!(e.contains(&format!("planets[0].{field}")) && e.contains("must be a number in"), "{e}");
        }
    }

    #[test]
    fn default_system_parses() {
        let r = SystemRecipe::default_system();
        assert!(!r.planets.is_empty());
    }

    #[test]
    fn merge_edits_objects_and_lists_by_index() {
        let mut base = serde_json::json!({ "a": { "b": 1, "c": 2 }, "list": [ { "x": 1 }, { "x": 2 } ], "v": 5 });
        let over = serde_json::json!({ "a": { "c": 3 }, "list": { "1": { "x": 9 } }, "v": 6 });
        let mut errors = Vec::new();
        merge(&mut base, over.as_object().unwrap(), "", &mut errors);
        assert!(errors.is_empty());
        assert_eq!(base, serde_json::json!({ "a": { "b": 1, "c": 3 }, "list": [ { "x": 1 }, { "x": 9 } ], "v": 6 }));
        let bad = serde_json::json!({ "list": { "7": { "x": 1 } } });
        merge(&mut base, bad.as_object().unwrap(), "p", &mut errors);
        assert_eq!(errors[0].to_string(), "p.list = {\"7\": ..}: edits a list by index: keys must be in 0..=1");
    }
}
