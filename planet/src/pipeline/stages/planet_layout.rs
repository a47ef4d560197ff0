//! `planet_layout`: `PlanetPlan` -> `PlanetLayout` (the plan made once per
//! planet: mountain belts and their stamps, rivers, lakes, the coast
//! distance, buildable plots; `crate::layout`). Dumped as JSON; read back,
//! it is checked and indexed again.

use std::sync::Arc;

use super::super::{Chain, RegionInput, RegionStage, StageDef, StageValue};
use super::PLANET_PLAN;
use crate::dump::{self, DumpError};
use crate::layout::{Layout, PlanetLayout};
use crate::plan::PlanetPlan;

/// The stage.
pub struct PlanetLayoutStage;

/// Its row in the table.
pub static PLANET_LAYOUT: StageDef = StageDef::of::<PlanetLayoutStage>();

impl StageValue for Arc<Layout> {}

impl RegionStage for PlanetLayoutStage {
    type Output = Arc<Layout>;
    const NAME: &'static str = "planet_layout";
    const TYPE_NAME: &'static str = "PlanetLayout";
    const INPUTS: &'static [&'static str] = &["planet_plan"];
    const JSON: bool = true;
    const PER_REGION: bool = false;

    fn run(input: &RegionInput<'_>, chain: &Chain) -> Result<Arc<Layout>, DumpError> {
        if let Some(t) = input.terrain {
            return Ok(Arc::clone(&t.layout));
        }
        let plan = chain.need::<PlanetPlan>(&PLANET_PLAN, &PLANET_LAYOUT)?;
        Ok(Arc::new(Layout::build(plan)))
    }

    fn summary(layout: &Arc<Layout>) -> String {
        let f = layout.data.figures();
        format!(
            "{} stamps, {} rivers ({:.1} km), {} lakes, {} plots",
            f.stamps,
            f.rivers,
            f.river_length_m / 1000.0,
            f.lakes,
            f.plots
        )
    }

    fn encode(layout: &Arc<Layout>, _generator_version: u32) -> Vec<u8> {
        let mut bytes = serde_json::to_vec(&layout.data).expect("a layout always serializes");
        bytes.push(b'\n');
        bytes
    }

    fn decode(bytes: &[u8]) -> Result<Arc<Layout>, DumpError> {
        let data: PlanetLayout = dump::json_from(bytes)?;
        let problems = data.problems();
        if !problems.is_empty() {
            return Err(DumpError::new(problems.join("\n")));
        }
        Ok(Arc::new(Layout::new(data)))
    }

    fn difference(a: &Arc<Layout>, b: &Arc<Layout>) -> Option<String> {
        dump::diff::json_difference(&a.data, &b.data)
    }

    /// The layout is of the plan's planet (its radius and valleys).
    fn check(layout: &Arc<Layout>, chain: &Chain, _input: &RegionInput<'_>) -> Vec<String> {
        let Some(plan) = chain.value::<PlanetPlan>(&PLANET_PLAN) else { return Vec::new() };
        let mut found = layout.data.problems();
        if layout.data.radius_m != plan.recipe.radius_m {
            found.push(format!(
                "radius_m = {}: must be the plan's radius_m ({})",
                layout.data.radius_m, plan.recipe.radius_m
            ));
        }
        if layout.data.valley_m != plan.recipe.terrain.rivers.valley_m {
            found.push(format!(
                "valley_m = {}: must be the plan's terrain.rivers.valley_m ({})",
                layout.data.valley_m, plan.recipe.terrain.rivers.valley_m
            ));
        }
        found
    }
}
