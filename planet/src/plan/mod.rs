//! The top-down generators before terrain: system seed -> `SystemPlan` ->
//! `PlanetPlan` per planet. `PlannedSystem` holds both, and its signature names
//! the whole world.

mod planet_plan;
mod system_plan;

pub use planet_plan::PlanetPlan;
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
        if errors.is_empty() { Ok(Self { system, planets }) } else { Err(RecipeErrors(errors)) }
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
        Signature::of("system", self)
    }

    /// The planet with `index`, if the system has it.
    #[must_use]
    pub fn planet(&self, index: u32) -> Option<&PlanetPlan> {
        self.planets.get(index as usize)
    }
}
