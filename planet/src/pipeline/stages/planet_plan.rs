//! `planet_plan`: the system recipe and `SystemPlan` -> `PlanetPlan` (one
//! planet's full, validated recipe: its seed's derivation with the recipe's
//! overrides merged over it). Dumped as hand-editable JSON.

use super::super::{Chain, RegionInput, RegionStage, StageDef, StageValue};
use super::SYSTEM_PLAN;
use crate::dump::{self, DumpError};
use crate::geometry::PlanetGrid;
use crate::plan::{PlanetPlan, SystemPlan};

/// The stage.
pub struct PlanetPlanStage;

/// Its row in the table.
pub static PLANET_PLAN: StageDef = StageDef::of::<PlanetPlanStage>();

impl StageValue for PlanetPlan {}

impl RegionStage for PlanetPlanStage {
    type Output = PlanetPlan;
    const NAME: &'static str = "planet_plan";
    const TYPE_NAME: &'static str = "PlanetPlan";
    const INPUTS: &'static [&'static str] = &["recipe", "system_plan"];
    const JSON: bool = true;
    const PER_REGION: bool = false;

    fn run(input: &RegionInput<'_>, chain: &Chain) -> Result<PlanetPlan, DumpError> {
        let recipe = input.recipe.ok_or_else(|| DumpError::new("planet_plan needs the system recipe"))?;
        let system = chain.need::<SystemPlan>(&SYSTEM_PLAN, &PLANET_PLAN)?;
        let slot = system.planets.iter().find(|s| s.index == input.planet).ok_or_else(|| {
            DumpError::new(format!("system_plan has no planet {} ({} planets)", input.planet, system.planets.len()))
        })?;
        let over = recipe
            .planets
            .iter()
            .enumerate()
            .find(|(_, o)| o.index == input.planet)
            .map(|(i, o)| (o, format!("planets[{i}]")));
        PlanetPlan::generate(slot, over.as_ref().map(|(o, p)| (*o, p.as_str()))).map_err(super::recipe_errors)
    }

    fn summary(plan: &PlanetPlan) -> String {
        format!("planet {} {} ({:?}), radius {} m", plan.index, plan.name, plan.kind, plan.recipe.radius_m)
    }

    fn encode(plan: &PlanetPlan, _generator_version: u32) -> Vec<u8> {
        dump::pretty_json(plan)
    }

    fn decode(bytes: &[u8]) -> Result<PlanetPlan, DumpError> {
        dump::json_from(bytes)
    }

    fn difference(a: &PlanetPlan, b: &PlanetPlan) -> Option<String> {
        dump::diff::json_difference(a, b)
    }

    /// The plan validates (errors are JSON paths inside `planet_plan.json`)
    /// and the key is a region of its planet.
    fn check(plan: &PlanetPlan, _chain: &Chain, input: &RegionInput<'_>) -> Vec<String> {
        let invalid = plan.validate_at("recipe");
        if !invalid.is_empty() {
            return invalid.iter().map(ToString::to_string).collect();
        }
        match PlanetGrid::new(&plan.recipe).check(input.key) {
            Ok(()) => Vec::new(),
            Err(e) => vec![format!("the manifest's key {} is not a region of this plan: {e}", input.key)],
        }
    }
}
