//! `navmesh`: `PlanetPlan` (its `NavSettings`), `SphereMesh`, `Scatter` (its
//! buildings) and `Collider` -> `NavMesh` (walkable polygons and their
//! neighbours inside the region, around its buildings).
//! Binary: see `dump/physics.rs`.

use super::super::{Chain, RegionInput, RegionStage, StageDef, StageValue};
use super::{COLLIDER, PLANET_PLAN, SCATTER, SPHERE_MESH};
use crate::RegionKey;
use crate::dump::binary::{Field, Section};
use crate::dump::{DumpError, physics};
use crate::mesh::SphereMesh;
use crate::physics::{Collider, NavMesh, NavSettings, navmesh_around};
use crate::plan::PlanetPlan;
use crate::scatter::Scatter;

/// The stage.
pub struct NavMeshStage;

/// Its row in the table.
pub static NAVMESH: StageDef = StageDef::of::<NavMeshStage>();

impl StageValue for NavMesh {}

impl RegionStage for NavMeshStage {
    type Output = NavMesh;
    const NAME: &'static str = "navmesh";
    const TYPE_NAME: &'static str = "NavMesh";
    const INPUTS: &'static [&'static str] = &["planet_plan", "sphere_mesh", "scatter", "collider"];

    fn run(input: &RegionInput<'_>, chain: &Chain) -> Result<NavMesh, DumpError> {
        let settings = match input.terrain {
            Some(t) => NavSettings::for_recipe(&t.recipe),
            None => NavSettings::for_recipe(&chain.need::<PlanetPlan>(&PLANET_PLAN, &NAVMESH)?.recipe),
        };
        let mesh = chain.need::<SphereMesh>(&SPHERE_MESH, &NAVMESH)?;
        let col = chain.need::<Collider>(&COLLIDER, &NAVMESH)?;
        if col.key != mesh.key || physics::origin_problem(col.origin, Some(mesh)).is_some() {
            return Err(DumpError::new(format!(
                "collider (key {}, origin {}) is not of sphere_mesh (key {}, origin {})",
                col.key, col.origin, mesh.key, mesh.origin
            )));
        }
        let scatter = chain.need::<Scatter>(&SCATTER, &NAVMESH)?;
        if let Some(problem) = physics::key_problem("scatter", scatter.key, mesh) {
            return Err(problem);
        }
        Ok(navmesh_around(mesh, col, &settings, &scatter.buildings))
    }

    fn key(n: &NavMesh) -> Option<RegionKey> {
        Some(n.key)
    }

    fn sections(n: &NavMesh) -> Vec<Section> {
        physics::navmesh_sections(n)
    }

    fn layout() -> Vec<(String, &'static [&'static [Field]])> {
        physics::NAVMESH_SECTIONS.iter().map(|&(n, l)| (n.to_owned(), l)).collect()
    }

    fn read(key: RegionKey, s: &[Section]) -> Result<NavMesh, DumpError> {
        s[0].expect_count(1)?;
        physics::read_navmesh(key, s)
    }

    /// Its origin is its sphere mesh's, bit for bit.
    fn check(n: &NavMesh, chain: &Chain, _input: &RegionInput<'_>) -> Vec<String> {
        physics::origin_problem(n.origin, chain.value::<SphereMesh>(&SPHERE_MESH)).into_iter().collect()
    }
}
