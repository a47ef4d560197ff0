//! `voxels`: `PlanetPlan` and `ColumnField` -> `VoxelGrid` (the 3D pass:
//! density, two materials and their blend for each of the 36³ samples),
//! then the region's edits (`edit::apply_edits`) over what was generated.
//! Binary: a `voxels` section, z fastest, then x, then y, and a `cover`
//! section (each sample's depth in the cave-less ground) in the same order.

use super::super::{Chain, RegionInput, RegionStage, StageDef, StageValue};
use super::{COLUMNS, PLANET_PLAN};
use crate::RegionKey;
use crate::dump::DumpError;
use crate::dump::binary::{self, COVER, Section, VOXEL};
use crate::geometry::WINDOW;
use crate::plan::PlanetPlan;
use crate::terrain::{ColumnField, VoxelGrid};

/// The stage.
pub struct VoxelsStage;

/// Its row in the table.
pub static VOXELS: StageDef = StageDef::of::<VoxelsStage>();

impl StageValue for VoxelGrid {}

impl RegionStage for VoxelsStage {
    type Output = VoxelGrid;
    const NAME: &'static str = "voxels";
    const TYPE_NAME: &'static str = "VoxelGrid";
    const INPUTS: &'static [&'static str] = &["planet_plan", "planet_layout", "planet_settlements", "columns"];

    fn run(input: &RegionInput<'_>, chain: &Chain) -> Result<VoxelGrid, DumpError> {
        let terrain = input.terrain(chain, &VOXELS)?;
        let columns = chain.need::<ColumnField>(&COLUMNS, &VOXELS)?;
        terrain.grid.check(columns.key).map_err(|e| DumpError::new(format!("columns key {}: {e}", columns.key)))?;
        let mut grid = terrain.voxels(columns);
        crate::edit::apply_edits(&terrain, &mut grid, columns, input.edits, input.bakes);
        Ok(grid)
    }

    fn key(v: &VoxelGrid) -> Option<RegionKey> {
        Some(v.key)
    }

    fn sections(v: &VoxelGrid) -> Vec<Section> {
        vec![
            Section::new("voxels", VOXEL, VoxelGrid::to_bytes(v)),
            Section::new("cover", COVER, v.cover_bytes().to_vec()),
        ]
    }

    fn layout() -> Vec<(String, &'static [&'static [binary::Field]])> {
        vec![("voxels".into(), &[VOXEL]), ("cover".into(), &[COVER])]
    }

    fn read(key: RegionKey, s: &[Section]) -> Result<VoxelGrid, DumpError> {
        s[0].expect_count(WINDOW * WINDOW * WINDOW)?;
        s[1].expect_count(WINDOW * WINDOW * WINDOW)?;
        let cover = s[1].bytes.iter().map(|&b| i8::from_le_bytes([b])).collect();
        Ok(VoxelGrid { key, voxels: binary::read_voxels(&s[0].bytes), cover })
    }

    /// Material ids are in the plan's palette.
    fn check(grid: &VoxelGrid, chain: &Chain, _input: &RegionInput<'_>) -> Vec<String> {
        let Some(plan) = chain.value::<PlanetPlan>(&PLANET_PLAN) else { return Vec::new() };
        let materials = plan.recipe.materials.len();
        let mut found = Vec::new();
        for (i, v) in grid.voxels.iter().enumerate() {
            for (j, &m) in v.materials.iter().enumerate() {
                if usize::from(m) >= materials {
                    let (c, rest) = (i % VoxelGrid::SIDE, i / VoxelGrid::SIDE);
                    let at = format!("voxels[{}, {}, {c}]", rest % VoxelGrid::SIDE, rest / VoxelGrid::SIDE);
                    found.push(binary::bad_material(&format!("{at}.materials[{j}]"), m, materials));
                }
            }
        }
        found
    }
}
