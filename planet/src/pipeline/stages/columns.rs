//! `columns`: `PlanetPlan` and the key -> `ColumnField` (the 2D pass: the
//! surface, slope, climate, biome and surface materials of every column of
//! the region's window). Binary: one `columns` section of 36 x 36 `Column`s.

use super::super::{Chain, RegionInput, RegionStage, StageDef, StageValue};
use super::PLANET_PLAN;
use crate::RegionKey;
use crate::dump::DumpError;
use crate::dump::binary::{self, COLUMN, Section};
use crate::geometry::WINDOW;
use crate::plan::PlanetPlan;
use crate::terrain::ColumnField;

/// The stage.
pub struct ColumnsStage;

/// Its row in the table.
pub static COLUMNS: StageDef = StageDef::of::<ColumnsStage>();

impl StageValue for ColumnField {}

impl RegionStage for ColumnsStage {
    type Output = ColumnField;
    const NAME: &'static str = "columns";
    const TYPE_NAME: &'static str = "ColumnField";
    const INPUTS: &'static [&'static str] = &["planet_plan", "planet_layout", "planet_settlements", "key"];

    fn run(input: &RegionInput<'_>, chain: &Chain) -> Result<ColumnField, DumpError> {
        let terrain = input.terrain(chain, &COLUMNS)?;
        terrain.grid.check(input.key).map_err(|e| DumpError::new(format!("key {}: {e}", input.key)))?;
        // A memo belongs to the terrain lent with it, never to one built from the chain.
        Ok(match (input.column_memo, input.terrain) {
            (Some(memo), Some(_)) => memo.columns(&terrain, input.key),
            _ => terrain.columns(input.key),
        })
    }

    fn key(c: &ColumnField) -> Option<RegionKey> {
        Some(c.key)
    }

    fn sections(c: &ColumnField) -> Vec<Section> {
        vec![Section::new("columns", COLUMN, binary::column_bytes(&c.columns))]
    }

    fn layout() -> Vec<(String, &'static [&'static [binary::Field]])> {
        vec![("columns".into(), &[COLUMN])]
    }

    fn read(key: RegionKey, s: &[Section]) -> Result<ColumnField, DumpError> {
        s[0].expect_count(WINDOW * WINDOW)?;
        Ok(ColumnField { key, columns: binary::read_columns(&s[0].bytes) })
    }

    /// Biome and material ids are in the plan's palette.
    fn check(field: &ColumnField, chain: &Chain, _input: &RegionInput<'_>) -> Vec<String> {
        let Some(plan) = chain.value::<PlanetPlan>(&PLANET_PLAN) else { return Vec::new() };
        let (biomes, materials) = (plan.recipe.biomes.len(), plan.recipe.materials.len());
        let mut found = Vec::new();
        for (i, c) in field.columns.iter().enumerate() {
            let at = format!("columns[{}, {}]", i % ColumnField::SIDE, i / ColumnField::SIDE);
            if usize::from(c.biome) >= biomes {
                found.push(format!("{at}.biome = {}: must be in 0..{biomes} (the plan's biomes)", c.biome));
            }
            for (name, m) in
                ["surface[0]", "surface[1]", "subsurface"].into_iter().zip([c.surface[0], c.surface[1], c.subsurface])
            {
                if usize::from(m) >= materials {
                    found.push(binary::bad_material(&format!("{at}.{name}"), m, materials));
                }
            }
        }
        found
    }
}
