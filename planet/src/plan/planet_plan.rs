//! The second generator: a planet's slot in the system -> `PlanetPlan`, its full
//! recipe, derived from its seed and kind, with the system recipe's overrides
//! merged on top and validated.

use glam::DVec3;
use serde::{Deserialize, Serialize};

use super::system_plan::PlanetSlot;
use crate::recipe::{
    Checker, PlanetKind, PlanetOverride, PlanetRecipe, RecipeError, Validate, derive_recipe_with_radius, merge,
};
use crate::signature::Signature;

/// Everything needed to generate one planet's terrain: the input of every later stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanetPlan {
    /// 0 = nearest the sun.
    pub index: u32,
    /// Display name.
    pub name: String,
    /// The planet's seed.
    pub seed: u64,
    /// Its kind.
    pub kind: PlanetKind,
    /// Centre in system space, metres.
    pub position_m: DVec3,
    /// The full recipe.
    pub recipe: PlanetRecipe,
}

impl PlanetPlan {
    /// Plans the planet in `slot`. `over` is its entry in the system recipe and
    /// `path` that entry's JSON path (`planets[2]`), for error messages.
    pub fn generate(slot: &PlanetSlot, over: Option<(&PlanetOverride, &str)>) -> Result<Self, Vec<RecipeError>> {
        // An overridden radius is derived with, so what scales with it follows.
        let radius = over
            .and_then(|(o, _)| o.recipe.get("radius_m"))
            .and_then(serde_json::Value::as_f64)
            .map(|r| r as f32)
            .filter(|r| (500.0..=50_000.0).contains(r));
        let derived = derive_recipe_with_radius(slot.kind, slot.seed, radius);
        let recipe = match over {
            Some((o, path)) if !o.recipe.is_empty() => apply_overrides(&derived, o, path)?,
            _ => derived,
        };
        let plan = Self {
            index: slot.index,
            name: slot.name.clone(),
            seed: slot.seed,
            kind: slot.kind,
            position_m: slot.position_m,
            recipe,
        };
        let path = over.map_or_else(|| format!("(planet {}, derived)", slot.index), |(_, p)| p.to_owned());
        let errors = plan.validate_at(&path);
        if errors.is_empty() { Ok(plan) } else { Err(errors) }
    }

    /// Validates the recipe, with errors under `path`.
    #[must_use]
    pub fn validate_at(&self, path: &str) -> Vec<RecipeError> {
        let mut c = Checker::new(path);
        self.recipe.validate(&mut c);
        c.into_errors()
    }

    /// The planet's signature: the key of its region cache.
    #[must_use]
    pub fn signature(&self) -> Signature {
        Signature::of("planet", self)
    }
}

/// Merges an override's recipe fields over the derived recipe and reads the result back.
fn apply_overrides(derived: &PlanetRecipe, o: &PlanetOverride, path: &str) -> Result<PlanetRecipe, Vec<RecipeError>> {
    let mut value = serde_json::to_value(derived).expect("a recipe always serializes");
    let mut errors = Vec::new();
    merge(&mut value, &o.recipe, path, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    serde_path_to_error::deserialize::<_, PlanetRecipe>(&value).map_err(|e| {
        let inner = e.path().to_string();
        let at = if inner == "." { path.to_owned() } else { format!("{path}.{inner}") };
        // A number of the wrong sign or size is told its field's real range,
        // not its type's ("expected u32").
        let mut c = Checker::recording();
        derived.validate(&mut c);
        let given = json_pointer(&inner).and_then(|p| value.pointer(&p).cloned());
        match (c.into_limits().get(&inner), given) {
            (Some(range), Some(v)) if v.is_number() => vec![RecipeError::value(at, v, range.clone())],
            _ => vec![RecipeError::field(at, e.into_inner().to_string())],
        }
    })
}

/// A JSON path as recipe errors write it (`terrain.hills.noise.octaves`,
/// `materials[3].color`) as a JSON pointer (`/terrain/hills/noise/octaves`).
fn json_pointer(path: &str) -> Option<String> {
    let mut out = String::new();
    for part in path.split('.') {
        let (name, rest) = part.split_once('[').unwrap_or((part, ""));
        out.push('/');
        out.push_str(name);
        for index in rest.split('[').filter(|s| !s.is_empty()) {
            out.push('/');
            out.push_str(index.strip_suffix(']')?);
        }
    }
    Some(out)
}
