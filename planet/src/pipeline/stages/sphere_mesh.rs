//! `sphere_mesh`: `PlanetPlan` and `CubeMesh` -> `SphereMesh` (spherify:
//! planet-local positions relative to the region's origin, two octahedral
//! normals, materials). Binary: `origin` (one `f64` x, y, z), then for each
//! part `PART.vertices` (`Vertex`, 24 bytes), `PART.indices` and
//! `PART.overlap` (`u16` or `u32` indices, as the mesh holds them).

use super::super::{Chain, RegionInput, RegionStage, StageDef, StageValue};
use super::{CUBE_MESH, PLANET_PLAN};
use crate::RegionKey;
use crate::dump::DumpError;
use crate::dump::binary::{self, INDEX16, INDEX32, ORIGIN, PARTS, Section, VERTEX};
use crate::geometry::PlanetGrid;
use crate::mesh::{CubeMesh, MeshPart, SphereMesh, spherify};
use crate::plan::PlanetPlan;

/// The stage.
pub struct SphereMeshStage;

/// Its row in the table.
pub static SPHERE_MESH: StageDef = StageDef::of::<SphereMeshStage>();

impl StageValue for SphereMesh {}

impl RegionStage for SphereMeshStage {
    type Output = SphereMesh;
    const NAME: &'static str = "sphere_mesh";
    const TYPE_NAME: &'static str = "SphereMesh";
    const INPUTS: &'static [&'static str] = &["planet_plan", "cube_mesh"];

    fn run(input: &RegionInput<'_>, chain: &Chain) -> Result<SphereMesh, DumpError> {
        let cube = chain.need::<CubeMesh>(&CUBE_MESH, &SPHERE_MESH)?;
        let own;
        let grid = match input.terrain {
            Some(t) => &t.grid,
            None => {
                own = PlanetGrid::new(&chain.need::<PlanetPlan>(&PLANET_PLAN, &SPHERE_MESH)?.recipe);
                &own
            }
        };
        grid.check(cube.key).map_err(|e| DumpError::new(format!("cube_mesh key {}: {e}", cube.key)))?;
        Ok(spherify(grid, cube))
    }

    fn key(m: &SphereMesh) -> Option<RegionKey> {
        Some(m.key)
    }

    fn sections(m: &SphereMesh) -> Vec<Section> {
        let mut out = vec![Section::new("origin", ORIGIN, binary::origin_bytes(m.origin))];
        for (name, part) in PARTS.into_iter().zip([&m.terrain, &m.blocks, &m.water]) {
            out.push(Section::new(&format!("{name}.vertices"), VERTEX, binary::vertex_bytes(&part.vertices)));
            out.push(binary::indices_section(format!("{name}.indices"), &part.indices));
            out.push(binary::indices_section(format!("{name}.overlap"), &part.overlap));
        }
        out
    }

    fn layout() -> Vec<(String, &'static [&'static [binary::Field]])> {
        std::iter::once(("origin".to_owned(), &[ORIGIN] as &[_]))
            .chain(PARTS.iter().flat_map(|p| {
                [
                    (format!("{p}.vertices"), &[VERTEX] as &[_]),
                    (format!("{p}.indices"), &[INDEX16, INDEX32]),
                    (format!("{p}.overlap"), &[INDEX16, INDEX32]),
                ]
            }))
            .collect()
    }

    fn read(key: RegionKey, s: &[Section]) -> Result<SphereMesh, DumpError> {
        s[0].expect_count(1)?;
        let origin = binary::read_origin(&s[0].bytes);
        let mut parts = Vec::with_capacity(3);
        for (p, name) in PARTS.iter().enumerate() {
            let vertices = binary::read_vertices(&s[1 + 3 * p].bytes);
            let indices = binary::read_indices(&s[2 + 3 * p]);
            let overlap = binary::read_indices(&s[3 + 3 * p]);
            binary::check_indices(name, "indices", &indices.to_u32(), vertices.len())?;
            binary::check_indices(name, "overlap", &overlap.to_u32(), vertices.len())?;
            parts.push(MeshPart { vertices, indices, overlap });
        }
        let [terrain, blocks, water]: [MeshPart; 3] = parts.try_into().unwrap_or_else(|_| unreachable!("three parts"));
        Ok(SphereMesh { key, origin, terrain, blocks, water })
    }

    fn summary(m: &SphereMesh) -> String {
        let part = |p: &MeshPart| format!("{} vertices, {} triangles", p.vertices.len(), p.indices.len() / 3);
        format!(
            "origin {}; terrain {}; blocks {}; water {}",
            m.origin,
            part(&m.terrain),
            part(&m.blocks),
            part(&m.water)
        )
    }
}
