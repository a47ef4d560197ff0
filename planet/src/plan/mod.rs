//! The top-down generators before terrain: system seed -> `SystemPlan` ->
//! `PlanetPlan` per planet. `PlannedSystem` holds both, and its signature names
//! the whole world.

mod planet_plan;
mod spin;
mod system_plan;

pub use planet_plan::PlanetPlan;
pub use spin::{DAY_S, Spin, TILT_DEG};
pub(crate) use system_plan::name_from;
pub use system_plan::{PlanetSlot, SunPlan, SystemPlan};

use serde::{Deserialize, Serialize};

use crate::recipe::{RecipeErrors, SystemRecipe};
use crate::signature::Signature;

/// A system with every planet planned: the input of all terrain generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlannedSystem {
    /// The sun and the planets' places.
    pub system: SystemPlan,
    /// Every planet's full plan, in index order.
    pub planets: Vec<PlanetPlan>,
    /// Every planet's spin, in index order (not signed: it moves the world,
    /// it does not make it; absent from older dumps, then derived).
    #[serde(default)]
    pub spins: Vec<Spin>,
}

/// What the signature hashes: the plans, not the spins. Field names as in
/// `PlannedSystem`, so signatures are those of the plans alone as before.
#[derive(Serialize)]
struct SignedSystem<'a> {
    system: &'a SystemPlan,
    planets: &'a [PlanetPlan],
}

impl PlannedSystem {
    /// Plans the whole system, reporting every error in every planet's overrides.
    pub fn build(recipe: &SystemRecipe) -> Result<Self, RecipeErrors> {
        let system = SystemPlan::generate(recipe).map_err(RecipeErrors)?;
        let mut planets = Vec::with_capacity(system.planets.len());
        let mut errors = Vec::new();
        for slot in &system.planets {
            let over = recipe
                .planets
                .iter()
                .enumerate()
                .find(|(_, o)| o.index == slot.index)
                .map(|(i, o)| (o, format!("planets[{i}]")));
            match PlanetPlan::generate(slot, over.as_ref().map(|(o, p)| (*o, p.as_str()))) {
                Ok(plan) => planets.push(plan),
                Err(e) => errors.extend(e),
            }
        }
        let spins = system
            .planets
            .iter()
            .map(|slot| {
                let derived = Spin::derive(system.seed, slot.index);
                let over = recipe.planets.iter().find(|o| o.index == slot.index);
                Spin {
                    day_s: over.and_then(|o| o.day_s).unwrap_or(derived.day_s),
                    tilt_deg: over.and_then(|o| o.tilt_deg).unwrap_or(derived.tilt_deg),
                    ..derived
                }
            })
            .collect();
        if errors.is_empty() { Ok(Self { system, planets, spins }) } else { Err(RecipeErrors(errors)) }
    }

    /// Parses and plans a system recipe in JSON.
    pub fn from_json(text: &str) -> Result<Self, RecipeErrors> {
        Self::build(&SystemRecipe::from_json(text)?)
    }

    /// The embedded default system.
    #[must_use]
    pub fn default_system() -> Self {
        Self::build(&SystemRecipe::default_system()).expect("the embedded default system is valid (tested)")
    }

    /// The system's signature: hashes every planned number and `GENERATOR_VERSION`.
    #[must_use]
    pub fn signature(&self) -> Signature {
        Signature::of("system", &SignedSystem { system: &self.system, planets: &self.planets })
    }

    /// Planet `index`'s spin (derived when a dump carried none).
    #[must_use]
    pub fn spin(&self, index: u32) -> Spin {
        self.spins.get(index as usize).copied().unwrap_or_else(|| Spin::derive(self.system.seed, index))
    }

    /// The planet with `index`, if the system has it.
    #[must_use]
    pub fn planet(&self, index: u32) -> Option<&PlanetPlan> {
        self.planets.get(index as usize)
    }
}
