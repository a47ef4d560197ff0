//! `cube_mesh`: `PlanetPlan`, `ColumnField` and `VoxelGrid` -> `CubeMesh`
//! (the polygonizers: dual contouring or surface nets, resource blocks and
//! water, in cube-face space). Binary: for each part `terrain`, `blocks`,
//! `water`: `PART.vertices` (`CubeVertex`), `PART.triangles` and
//! `PART.overlap` (`u32` indices).

use super::super::{Chain, RegionInput, RegionStage, StageDef, StageValue};
use super::{COLUMNS, VOXELS};
use crate::RegionKey;
use crate::dump::DumpError;
use crate::dump::binary::{self, CUBE_VERTEX, INDEX32, PARTS, Section};
use crate::mesh::{CubeMesh, CubePart, polygonize};
use crate::terrain::{ColumnField, VoxelGrid};

/// The stage.
pub struct CubeMeshStage;

/// Its row in the table.
pub static CUBE_MESH: StageDef = StageDef::of::<CubeMeshStage>();

impl StageValue for CubeMesh {}

impl RegionStage for CubeMeshStage {
    type Output = CubeMesh;
    const NAME: &'static str = "cube_mesh";
    const TYPE_NAME: &'static str = "CubeMesh";
    const INPUTS: &'static [&'static str] =
        &["planet_plan", "planet_layout", "planet_settlements", "columns", "voxels"];

    fn run(input: &RegionInput<'_>, chain: &Chain) -> Result<CubeMesh, DumpError> {
        let terrain = input.terrain(chain, &CUBE_MESH)?;
        let columns = chain.need::<ColumnField>(&COLUMNS, &CUBE_MESH)?;
        let voxels = chain.need::<VoxelGrid>(&VOXELS, &CUBE_MESH)?;
        terrain.grid.check(voxels.key).map_err(|e| DumpError::new(format!("voxels key {}: {e}", voxels.key)))?;
        Ok(input.with_workspace(|ws| polygonize(&terrain, columns, voxels, ws)))
    }

    fn key(m: &CubeMesh) -> Option<RegionKey> {
        Some(m.key)
    }

    fn sections(m: &CubeMesh) -> Vec<Section> {
        let mut out = Vec::new();
        for (name, part) in PARTS.into_iter().zip([&m.terrain, &m.blocks, &m.water]) {
            out.push(Section::new(&format!("{name}.vertices"), CUBE_VERTEX, binary::cube_vertex_bytes(&part.vertices)));
            out.push(Section::new(&format!("{name}.triangles"), INDEX32, binary::u32_bytes(&part.triangles)));
            out.push(Section::new(&format!("{name}.overlap"), INDEX32, binary::u32_bytes(&part.overlap)));
        }
        out
    }

    fn layout() -> Vec<(String, &'static [&'static [binary::Field]])> {
        PARTS
            .iter()
            .flat_map(|p| {
                [
                    (format!("{p}.vertices"), &[CUBE_VERTEX] as &[_]),
                    (format!("{p}.triangles"), &[INDEX32]),
                    (format!("{p}.overlap"), &[INDEX32]),
                ]
            })
            .collect()
    }

    fn read(key: RegionKey, s: &[Section]) -> Result<CubeMesh, DumpError> {
        let mut parts = Vec::with_capacity(3);
        for (p, name) in PARTS.iter().enumerate() {
            let vertices = binary::read_cube_vertices(&s[3 * p].bytes);
            if let Some(i) = vertices.iter().position(|v| v.face > 5) {
                return Err(DumpError::new(format!(
                    "{name}.vertices[{i}].face = {}: must be in 0..=5",
                    vertices[i].face
                )));
            }
            let triangles = binary::read_u32s(&s[3 * p + 1].bytes);
            let overlap = binary::read_u32s(&s[3 * p + 2].bytes);
            binary::check_indices(name, "triangles", &triangles, vertices.len())?;
            binary::check_indices(name, "overlap", &overlap, vertices.len())?;
            parts.push(CubePart { vertices, triangles, overlap });
        }
        let [terrain, blocks, water]: [CubePart; 3] = parts.try_into().unwrap_or_else(|_| unreachable!("three parts"));
        Ok(CubeMesh { key, terrain, blocks, water })
    }

    fn summary(m: &CubeMesh) -> String {
        let part = |p: &CubePart| format!("{} vertices, {} triangles", p.vertices.len(), p.triangles.len() / 3);
        format!("terrain {}; blocks {}; water {}", part(&m.terrain), part(&m.blocks), part(&m.water))
    }
}
