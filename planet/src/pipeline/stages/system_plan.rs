//! `system_plan`: the system recipe -> `SystemPlan` (the sun, the planets'
//! seeds, kinds and places). Dumped as hand-editable JSON.

use super::super::{Chain, RegionInput, RegionStage, StageDef, StageValue};
use crate::dump::{self, DumpError};
use crate::plan::SystemPlan;

/// The stage.
pub struct SystemPlanStage;

/// Its row in the table.
pub static SYSTEM_PLAN: StageDef = StageDef::of::<SystemPlanStage>();

impl StageValue for SystemPlan {}

impl RegionStage for SystemPlanStage {
    type Output = SystemPlan;
    const NAME: &'static str = "system_plan";
    const TYPE_NAME: &'static str = "SystemPlan";
    const INPUTS: &'static [&'static str] = &["recipe"];
    const JSON: bool = true;
    const PER_REGION: bool = false;

    fn run(input: &RegionInput<'_>, _chain: &Chain) -> Result<SystemPlan, DumpError> {
        let recipe = input.recipe.ok_or_else(|| DumpError::new("system_plan needs the system recipe"))?;
        SystemPlan::generate(recipe).map_err(super::recipe_errors)
    }

    fn summary(plan: &SystemPlan) -> String {
        format!("{} planets", plan.planets.len())
    }

    fn encode(plan: &SystemPlan, _generator_version: u32) -> Vec<u8> {
        dump::pretty_json(plan)
    }

    fn decode(bytes: &[u8]) -> Result<SystemPlan, DumpError> {
        dump::json_from(bytes)
    }

    fn difference(a: &SystemPlan, b: &SystemPlan) -> Option<String> {
        dump::diff::json_difference(a, b)
    }

    fn check(plan: &SystemPlan, _chain: &Chain, input: &RegionInput<'_>) -> Vec<String> {
        if plan.planets.iter().any(|p| p.index == input.planet) {
            return Vec::new();
        }
        vec![format!(
            "planets: no planet with index {} (the manifest's planet; {} planets)",
            input.planet,
            plan.planets.len()
        )]
    }
}
