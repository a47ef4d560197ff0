//! The stages as functions of the stages before them: what `planet dump`
//! runs to write a dump and `planet replay` to check one. Every stage builds
//! what it needs from its inputs (a `Terrain` from the plan, a fresh mesh
//! workspace), so a stage's time is the same whether it is dumped or replayed.

use super::{DumpError, Stage, StageOutput};
use crate::RegionKey;
use crate::geometry::PlanetGrid;
use crate::mesh::{CubeMesh, MeshWorkspace, SphereMesh, polygonize, spherify};
use crate::physics::{Collider, NavMesh, NavSettings, collider, navmesh};
use crate::plan::{PlanetPlan, SystemPlan};
use crate::recipe::SystemRecipe;
use crate::terrain::{ColumnField, Terrain, VoxelGrid};

/// What every stage of a region may need besides the stages before it.
#[derive(Clone, Copy, Debug)]
pub struct RegionInput<'a> {
    /// The system recipe (the first stages' input).
    pub recipe: &'a SystemRecipe,
    /// The planet's index.
    pub planet: u32,
    /// The region.
    pub key: RegionKey,
}

/// The outputs of a region's stages so far: each stage reads the ones before it.
#[derive(Clone, Debug, Default)]
pub struct Chain {
    /// `SystemPlan`.
    pub system_plan: Option<SystemPlan>,
    /// `PlanetPlan`.
    pub planet_plan: Option<PlanetPlan>,
    /// `ColumnField`.
    pub columns: Option<ColumnField>,
    /// `VoxelGrid`.
    pub voxels: Option<VoxelGrid>,
    /// `CubeMesh`.
    pub cube_mesh: Option<CubeMesh>,
    /// `SphereMesh`.
    pub sphere_mesh: Option<SphereMesh>,
    /// `Collider`.
    pub collider: Option<Collider>,
    /// `NavMesh`.
    pub navmesh: Option<NavMesh>,
}

impl PartialEq for Chain {
    fn eq(&self, other: &Self) -> bool {
        let colliders = match (&self.collider, &other.collider) {
            (Some(a), Some(b)) => a == b,
            (a, b) => a.is_none() && b.is_none(),
        };
        self.system_plan == other.system_plan
            && self.planet_plan == other.planet_plan
            && self.columns == other.columns
            && self.voxels == other.voxels
            && self.cube_mesh == other.cube_mesh
            && self.sphere_mesh == other.sphere_mesh
            && colliders
            && self.navmesh == other.navmesh
    }
}

impl Chain {
    /// Puts a stage's output in its place.
    pub fn set(&mut self, out: StageOutput) {
        match out {
            StageOutput::SystemPlan(v) => self.system_plan = Some(v),
            StageOutput::PlanetPlan(v) => self.planet_plan = Some(v),
            StageOutput::Columns(v) => self.columns = Some(v),
            StageOutput::Voxels(v) => self.voxels = Some(v),
            StageOutput::CubeMesh(v) => self.cube_mesh = Some(v),
            StageOutput::SphereMesh(v) => self.sphere_mesh = Some(v),
            StageOutput::Collider(v) => self.collider = Some(v),
            StageOutput::NavMesh(v) => self.navmesh = Some(v),
        }
    }

    /// A copy of a stage's output, if the chain has it.
    #[must_use]
    pub fn get(&self, stage: Stage) -> Option<StageOutput> {
        match stage {
            Stage::SystemPlan => self.system_plan.clone().map(StageOutput::SystemPlan),
            Stage::PlanetPlan => self.planet_plan.clone().map(StageOutput::PlanetPlan),
            Stage::Columns => self.columns.clone().map(StageOutput::Columns),
            Stage::Voxels => self.voxels.clone().map(StageOutput::Voxels),
            Stage::CubeMesh => self.cube_mesh.clone().map(StageOutput::CubeMesh),
            Stage::SphereMesh => self.sphere_mesh.clone().map(StageOutput::SphereMesh),
            Stage::Collider => self.collider.clone().map(StageOutput::Collider),
            Stage::NavMesh => self.navmesh.clone().map(StageOutput::NavMesh),
        }
    }
}

fn need<T>(value: &Option<T>, stage: Stage, input: Stage) -> Result<&T, DumpError> {
    value.as_ref().ok_or_else(|| DumpError::new(format!("{stage} needs {input}, which the chain does not hold")))
}

/// Runs one stage on the outputs before it. Inputs are assumed checked
/// ([`check_chain`]); what a stage can still refuse (a planet or key its
/// inputs do not have) is an error, never a panic.
pub fn run_stage(stage: Stage, input: &RegionInput<'_>, chain: &Chain) -> Result<StageOutput, DumpError> {
    let recipe_errors =
        |e: Vec<crate::RecipeError>| DumpError::new(e.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"));
    Ok(match stage {
        Stage::SystemPlan => StageOutput::SystemPlan(SystemPlan::generate(input.recipe).map_err(recipe_errors)?),
        Stage::PlanetPlan => {
            let system = need(&chain.system_plan, stage, Stage::SystemPlan)?;
            let slot = system.planets.iter().find(|s| s.index == input.planet).ok_or_else(|| {
                DumpError::new(format!("system_plan has no planet {} ({} planets)", input.planet, system.planets.len()))
            })?;
            let over = input
                .recipe
                .planets
                .iter()
                .enumerate()
                .find(|(_, o)| o.index == input.planet)
                .map(|(i, o)| (o, format!("planets[{i}]")));
            let plan =
                PlanetPlan::generate(slot, over.as_ref().map(|(o, p)| (*o, p.as_str()))).map_err(recipe_errors)?;
            StageOutput::PlanetPlan(plan)
        }
        Stage::Columns => {
            let plan = need(&chain.planet_plan, stage, Stage::PlanetPlan)?;
            let terrain = Terrain::new(plan);
            terrain.grid.check(input.key).map_err(|e| DumpError::new(format!("key {}: {e}", input.key)))?;
            StageOutput::Columns(terrain.columns(input.key))
        }
        Stage::Voxels => {
            let plan = need(&chain.planet_plan, stage, Stage::PlanetPlan)?;
            let columns = need(&chain.columns, stage, Stage::Columns)?;
            let terrain = Terrain::new(plan);
            terrain.grid.check(columns.key).map_err(|e| DumpError::new(format!("columns key {}: {e}", columns.key)))?;
            StageOutput::Voxels(terrain.voxels(columns))
        }
        Stage::CubeMesh => {
            let plan = need(&chain.planet_plan, stage, Stage::PlanetPlan)?;
            let columns = need(&chain.columns, stage, Stage::Columns)?;
            let voxels = need(&chain.voxels, stage, Stage::Voxels)?;
            let terrain = Terrain::new(plan);
            terrain.grid.check(voxels.key).map_err(|e| DumpError::new(format!("voxels key {}: {e}", voxels.key)))?;
            let mut ws = MeshWorkspace::default();
            StageOutput::CubeMesh(polygonize(&terrain, columns, voxels, &mut ws))
        }
        Stage::SphereMesh => {
            let plan = need(&chain.planet_plan, stage, Stage::PlanetPlan)?;
            let cube = need(&chain.cube_mesh, stage, Stage::CubeMesh)?;
            let grid = PlanetGrid::new(&plan.recipe);
            grid.check(cube.key).map_err(|e| DumpError::new(format!("cube_mesh key {}: {e}", cube.key)))?;
            StageOutput::SphereMesh(spherify(&grid, cube))
        }
        Stage::Collider => StageOutput::Collider(collider(need(&chain.sphere_mesh, stage, Stage::SphereMesh)?)),
        Stage::NavMesh => {
            let plan = need(&chain.planet_plan, stage, Stage::PlanetPlan)?;
            let mesh = need(&chain.sphere_mesh, stage, Stage::SphereMesh)?;
            let col = need(&chain.collider, stage, Stage::Collider)?;
            if col.key != mesh.key
                || col.origin.to_array().map(f64::to_bits) != mesh.origin.to_array().map(f64::to_bits)
            {
                return Err(DumpError::new(format!(
                    "collider (key {}, origin {}) is not of sphere_mesh (key {}, origin {})",
                    col.key, col.origin, mesh.key, mesh.origin
                )));
            }
            StageOutput::NavMesh(navmesh(mesh, col, &NavSettings::for_recipe(&plan.recipe)))
        }
    })
}

/// Checks that a chain's outputs fit together, as a replay will use them:
/// the plan validates (errors are JSON paths inside `planet_plan.json`), the
/// key is a region of the planet, every grid and mesh is of that key, and
/// their material and biome ids are in the plan's palette. One message a
/// problem, with the stage whose file is at fault (at most a few per stage).
#[must_use]
pub fn check_chain(chain: &Chain, planet: u32, key: RegionKey) -> Vec<(Stage, String)> {
    let mut errors = Vec::new();
    if let Some(system) = &chain.system_plan
        && !system.planets.iter().any(|p| p.index == planet)
    {
        errors.push((
            Stage::SystemPlan,
            format!("planets: no planet with index {planet} (the manifest's planet; {} planets)", system.planets.len()),
        ));
    }
    let Some(plan) = &chain.planet_plan else { return errors };
    let invalid = plan.validate_at("recipe");
    if !invalid.is_empty() {
        errors.extend(invalid.iter().map(|e| (Stage::PlanetPlan, e.to_string())));
        return errors;
    }
    let grid = PlanetGrid::new(&plan.recipe);
    if let Err(e) = grid.check(key) {
        errors.push((Stage::PlanetPlan, format!("the manifest's key {key} is not a region of this plan: {e}")));
        return errors;
    }
    let materials = plan.recipe.materials.len();
    let biomes = plan.recipe.biomes.len();
    let bad_material = |what: String, m: u8| format!("{what} = {m}: must be in 0..{materials} (the plan's materials)");
    for (stage, k) in [
        (Stage::Columns, chain.columns.as_ref().map(|c| c.key)),
        (Stage::Voxels, chain.voxels.as_ref().map(|v| v.key)),
        (Stage::CubeMesh, chain.cube_mesh.as_ref().map(|m| m.key)),
        (Stage::SphereMesh, chain.sphere_mesh.as_ref().map(|m| m.key)),
        (Stage::Collider, chain.collider.as_ref().map(|c| c.key)),
        (Stage::NavMesh, chain.navmesh.as_ref().map(|n| n.key)),
    ] {
        if let Some(k) = k
            && k != key
        {
            errors.push((stage, format!("key = {k}: must be the manifest's key {key}")));
        }
    }
    if let Some(mesh) = &chain.sphere_mesh {
        // Both are relative to the mesh's origin, bit for bit.
        let bits = |o: glam::DVec3| o.to_array().map(f64::to_bits);
        for (stage, origin) in [
            (Stage::Collider, chain.collider.as_ref().map(|c| c.origin)),
            (Stage::NavMesh, chain.navmesh.as_ref().map(|n| n.origin)),
        ] {
            if let Some(o) = origin
                && bits(o) != bits(mesh.origin)
            {
                errors.push((stage, format!("origin = {o}: must be the sphere mesh's origin {}", mesh.origin)));
            }
        }
    }
    const MAX: usize = 8;
    if let Some(columns) = &chain.columns {
        let mut found = Vec::new();
        for (i, c) in columns.columns.iter().enumerate() {
            let at = format!("columns[{}, {}]", i % ColumnField::SIDE, i / ColumnField::SIDE);
            if usize::from(c.biome) >= biomes {
                found.push(format!("{at}.biome = {}: must be in 0..{biomes} (the plan's biomes)", c.biome));
            }
            for (field, m) in
                ["surface[0]", "surface[1]", "subsurface"].into_iter().zip([c.surface[0], c.surface[1], c.subsurface])
            {
                if usize::from(m) >= materials {
                    found.push(bad_material(format!("{at}.{field}"), m));
                }
            }
        }
        errors.extend(found.into_iter().take(MAX).map(|e| (Stage::Columns, e)));
    }
    if let Some(voxels) = &chain.voxels {
        let mut found = Vec::new();
        for (i, v) in voxels.voxels.iter().enumerate() {
            for (j, &m) in v.materials.iter().enumerate() {
                if usize::from(m) >= materials {
                    let (c, rest) = (i % VoxelGrid::SIDE, i / VoxelGrid::SIDE);
                    let at = format!("voxels[{}, {}, {c}]", rest % VoxelGrid::SIDE, rest / VoxelGrid::SIDE);
                    found.push(bad_material(format!("{at}.materials[{j}]"), m));
                }
            }
        }
        errors.extend(found.into_iter().take(MAX).map(|e| (Stage::Voxels, e)));
    }
    errors
}
