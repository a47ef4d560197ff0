//! `scatter`: `PlanetPlan`, `ColumnField`, `CubeMesh` and `SphereMesh` (its origin) ->
//! `Scatter` (the region's trees, bushes, grass, rocks and crystals, seated
//! on its mesh, and the settlements' buildings it draws or collides with). Binary: see `dump/scatter.rs`.

use super::super::{Chain, RegionInput, RegionStage, StageDef, StageValue};
use super::{COLUMNS, CUBE_MESH, PLANET_PLAN, SPHERE_MESH};
use crate::RegionKey;
use crate::dump::binary::{Field, Section};
use crate::dump::{DumpError, physics, scatter as layout};
use crate::mesh::{CubeMesh, SphereMesh};
use crate::plan::PlanetPlan;
use crate::scatter::{Scatter, scatter, scatter_with};
use crate::terrain::ColumnField;

/// The stage.
pub struct ScatterStage;

/// Its row in the table.
pub static SCATTER: StageDef = StageDef::of::<ScatterStage>();

impl StageValue for Scatter {}

impl RegionStage for ScatterStage {
    type Output = Scatter;
    const NAME: &'static str = "scatter";
    const TYPE_NAME: &'static str = "Scatter";
    const INPUTS: &'static [&'static str] =
        &["planet_plan", "planet_layout", "planet_settlements", "columns", "cube_mesh", "sphere_mesh"];

    fn run(input: &RegionInput<'_>, chain: &Chain) -> Result<Scatter, DumpError> {
        let terrain = input.terrain(chain, &SCATTER)?;
        let columns = chain.need::<ColumnField>(&COLUMNS, &SCATTER)?;
        let mesh = chain.need::<CubeMesh>(&CUBE_MESH, &SCATTER)?;
        let sphere = chain.need::<SphereMesh>(&SPHERE_MESH, &SCATTER)?;
        if mesh.key != sphere.key || mesh.key != columns.key {
            return Err(DumpError::new(format!(
                "columns (key {}), cube_mesh (key {}) and sphere_mesh (key {}) are not of one region",
                columns.key, mesh.key, sphere.key
            )));
        }
        terrain.grid.check(mesh.key).map_err(|e| DumpError::new(format!("cube_mesh key {}: {e}", mesh.key)))?;
        let buildings = crate::settlements::region_buildings(&terrain, mesh.key, sphere.origin);
        if !input.scatter {
            return Ok(Scatter { key: mesh.key, origin: sphere.origin, objects: Vec::new(), buildings });
        }
        let mut placed = match (input.habitat_memo, input.terrain) {
            (Some(memo), Some(_)) => scatter_with(memo, &terrain, columns, mesh, sphere.origin),
            _ => scatter(&terrain, columns, mesh, sphere.origin),
        };
        placed.buildings = buildings;
        if !input.edits.is_empty() || !input.bakes.is_empty() {
            // Objects on dug-out ground go with it, and filled ground buries
            // them; a bake's tombstones keep those its edits took gone.
            let origin = placed.origin;
            placed.objects.retain(|o| {
                let base = (origin + o.position.as_dvec3()).as_vec3();
                !crate::edit::buries(input.edits, base, crate::edit::object_reach_m(o.size_m))
                    && !input.bakes.iter().any(|b| b.bake.buried(o.id))
            });
        }
        Ok(placed)
    }

    fn key(s: &Scatter) -> Option<RegionKey> {
        Some(s.key)
    }

    fn sections(s: &Scatter) -> Vec<Section> {
        layout::scatter_sections(s)
    }

    fn layout() -> Vec<(String, &'static [&'static [Field]])> {
        layout::SCATTER_SECTIONS.iter().map(|&(n, l)| (n.to_owned(), l)).collect()
    }

    fn read(key: RegionKey, s: &[Section]) -> Result<Scatter, DumpError> {
        s[0].expect_count(1)?;
        layout::read_scatter(key, s, None)
    }

    /// Its origin is its sphere mesh's, bit for bit, and every rule is the plan's.
    fn check(s: &Scatter, chain: &Chain, _input: &RegionInput<'_>) -> Vec<String> {
        let mut problems: Vec<String> =
            physics::origin_problem(s.origin, chain.value::<SphereMesh>(&SPHERE_MESH)).into_iter().collect();
        if let Some(plan) = chain.value::<PlanetPlan>(&PLANET_PLAN) {
            let rules = plan.recipe.scatter.len();
            problems.extend(s.objects.iter().enumerate().filter(|(_, o)| o.rule as usize >= rules).take(3).map(
                |(i, o)| format!("objects[{i}].rule = {}: must be in 0..{rules} (the plan's scatter rules)", o.rule),
            ));
        }
        problems
    }

    fn summary(s: &Scatter) -> String {
        let mut counts = [0usize; crate::scatter::KINDS.len()];
        for o in &s.objects {
            counts[crate::scatter::kind_index(o.kind)] += 1;
        }
        let parts: Vec<String> = crate::scatter::KINDS
            .iter()
            .zip(counts)
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| format!("{n} {}", crate::scatter::kind_name(*k)))
            .collect();
        let owned = s.buildings.iter().filter(|b| b.owned).count();
        let buildings = if s.buildings.is_empty() {
            String::new()
        } else {
            format!("; {} buildings ({owned} drawn here)", s.buildings.len())
        };
        format!(
            "{} objects{}{}{buildings}",
            s.objects.len(),
            if parts.is_empty() { "" } else { ": " },
            parts.join(", ")
        )
    }
}
