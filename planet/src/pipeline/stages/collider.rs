//! `collider`: `SphereMesh` and `Scatter` -> `Collider` (the terrain and
//! block triangles, owned and overlap, and the scatter's trunks and boulders
//! at the LODs a walker stands on, with their linear BVH). Binary: see `dump/physics.rs`;
//! the BVH is not stored but rebuilt on reading, and compared.

use super::super::{Chain, RegionInput, RegionStage, StageDef, StageValue};
use super::{SCATTER, SPHERE_MESH};
use crate::RegionKey;
use crate::dump::binary::{Field, Section};
use crate::dump::{DumpError, diff, physics};
use crate::mesh::SphereMesh;
use crate::physics::{Collider, region_collider};
use crate::scatter::Scatter;

/// The stage.
pub struct ColliderStage;

/// Its row in the table.
pub static COLLIDER: StageDef = StageDef::of::<ColliderStage>();

impl StageValue for Collider {}

impl RegionStage for ColliderStage {
    type Output = Collider;
    const NAME: &'static str = "collider";
    const TYPE_NAME: &'static str = "Collider";
    const INPUTS: &'static [&'static str] = &["sphere_mesh", "scatter"];

    fn run(_input: &RegionInput<'_>, chain: &Chain) -> Result<Collider, DumpError> {
        let mesh = chain.need::<SphereMesh>(&SPHERE_MESH, &COLLIDER)?;
        let scatter = chain.need::<Scatter>(&SCATTER, &COLLIDER)?;
        if let Some(problem) = physics::key_problem("scatter", scatter.key, mesh) {
            return Err(problem);
        }
        if let Some(problem) = physics::origin_problem(scatter.origin, Some(mesh)) {
            return Err(DumpError::new(format!("scatter: {problem}")));
        }
        Ok(region_collider(mesh, scatter))
    }

    fn key(c: &Collider) -> Option<RegionKey> {
        Some(c.key)
    }

    fn sections(c: &Collider) -> Vec<Section> {
        physics::collider_sections(c)
    }

    fn layout() -> Vec<(String, &'static [&'static [Field]])> {
        physics::COLLIDER_SECTIONS.iter().map(|&(n, l)| (n.to_owned(), l)).collect()
    }

    fn read(key: RegionKey, s: &[Section]) -> Result<Collider, DumpError> {
        s[0].expect_count(1)?;
        physics::read_collider(key, s)
    }

    /// Its origin is its sphere mesh's, bit for bit.
    fn check(c: &Collider, chain: &Chain, _input: &RegionInput<'_>) -> Vec<String> {
        physics::origin_problem(c.origin, chain.value::<SphereMesh>(&SPHERE_MESH)).into_iter().collect()
    }

    fn difference(a: &Collider, b: &Collider) -> Option<String> {
        // The file holds what the BVH is built from; the BVH itself must follow.
        diff::sections_difference(Some(a.key), &Self::sections(a), Some(b.key), &Self::sections(b)).or_else(|| {
            (a.bvh != b.bvh)
                .then(|| "bvh: the tree differs, though the origin, vertices and triangles agree".to_owned())
        })
    }
}
