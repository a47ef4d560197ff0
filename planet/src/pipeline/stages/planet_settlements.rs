//! `planet_settlements`: `PlanetPlan` and `PlanetLayout` -> `SettlementSites`
//! (where the planet's towns stand, one at most in each cell of the offset
//! grid, on the layout's plots; `crate::settlements`). Made once per planet,
//! dumped as JSON; read back, it is checked and its towns are made from the
//! plan and layout again as regions need them.

use std::sync::Arc;

use super::super::{Chain, RegionInput, RegionStage, StageDef, StageValue};
use super::{PLANET_LAYOUT, PLANET_PLAN};
use crate::dump::{self, DumpError};
use crate::layout::Layout;
use crate::plan::PlanetPlan;
use crate::settlements::{SettlementSites, Settlements};

/// The stage.
pub struct PlanetSettlementsStage;

/// Its row in the table.
pub static PLANET_SETTLEMENTS: StageDef = StageDef::of::<PlanetSettlementsStage>();

impl StageValue for Arc<Settlements> {}

impl RegionStage for PlanetSettlementsStage {
    type Output = Arc<Settlements>;
    const NAME: &'static str = "planet_settlements";
    const TYPE_NAME: &'static str = "SettlementSites";
    const INPUTS: &'static [&'static str] = &["planet_plan", "planet_layout"];
    const JSON: bool = true;
    const PER_REGION: bool = false;

    fn run(input: &RegionInput<'_>, chain: &Chain) -> Result<Arc<Settlements>, DumpError> {
        if let Some(t) = input.terrain {
            return Ok(Arc::clone(&t.settlements));
        }
        let plan = chain.need::<PlanetPlan>(&PLANET_PLAN, &PLANET_SETTLEMENTS)?;
        let layout = chain.need::<Arc<Layout>>(&PLANET_LAYOUT, &PLANET_SETTLEMENTS)?;
        Ok(Arc::new(Settlements::build(plan, layout)))
    }

    fn summary(s: &Arc<Settlements>) -> String {
        format!("{} settlements ({} cells a face side)", s.data.sites.len(), s.data.cells_across)
    }

    fn encode(s: &Arc<Settlements>, _generator_version: u32) -> Vec<u8> {
        dump::pretty_json(&s.data)
    }

    fn decode(bytes: &[u8]) -> Result<Arc<Settlements>, DumpError> {
        let data: SettlementSites = dump::json_from(bytes)?;
        let problems = data.problems();
        if !problems.is_empty() {
            return Err(DumpError::new(problems.join("\n")));
        }
        Ok(Arc::new(Settlements::from_sites(data)))
    }

    fn difference(a: &Arc<Settlements>, b: &Arc<Settlements>) -> Option<String> {
        dump::diff::json_difference(&a.data, &b.data)
    }

    /// The sites are of the plan's planet, on its layout's plots.
    fn check(s: &Arc<Settlements>, chain: &Chain, _input: &RegionInput<'_>) -> Vec<String> {
        let mut found = s.data.problems();
        if let Some(plan) = chain.value::<PlanetPlan>(&PLANET_PLAN)
            && s.data.radius_m != plan.recipe.radius_m
        {
            found.push(format!(
                "radius_m = {}: must be the plan's radius_m ({})",
                s.data.radius_m, plan.recipe.radius_m
            ));
        }
        if let Some(layout) = chain.value::<Arc<Layout>>(&PLANET_LAYOUT) {
            let plots = layout.data.plots.len();
            for (i, site) in s.data.sites.iter().enumerate() {
                if site.plot as usize >= plots {
                    found.push(format!("sites[{i}].plot = {}: must be in 0..{plots} (the layout's plots)", site.plot));
                }
            }
        }
        found
    }
}
