//! Terrain: the generator that fills a region with voxels, in two passes.
//! `columns` (the 2D pass, `ColumnField`) and `voxels` (the 3D pass,
//! `VoxelGrid`); `Terrain` holds what both need from a `PlanetPlan`.
//!
//! ```
//! use planet::{PlannedSystem, RegionKey};
//! use planet::terrain::Terrain;
//!
//! let system = PlannedSystem::default_system();
//! let terrain = Terrain::new(&system.planets[1]);
//! let key: RegionKey = "4/3/20/20/0".parse().unwrap();
//! let grid = terrain.region(key).unwrap();
//! assert_eq!(grid.voxels.len(), 36 * 36 * 36);
//! ```

mod climate;
mod column_memo;
mod columns;
mod features;
mod fields;
mod lattice;
mod point;
mod voxels;

pub use climate::{Ground, biome, ground, moisture, temperature_c};
pub use column_memo::ColumnMemo;
pub use columns::{Column, ColumnField, GroundProbe, GroundSample, NO_WATER, SurfaceSample};
pub use features::{CAPSULES_PER_MOUTH, Capsule, Deposit, grade};
pub use fields::{CoarseFields, Fields, smoothstep};
pub use lattice::{LATTICE, NodeKey, Site, Window, near_cube_corner};
pub use point::PointDensity;
pub use voxels::{COVER_PER_M, DENSITY_PER_M, Voxel, VoxelGrid};
pub(crate) use voxels::{quantize, quantize_cover};

use std::sync::Arc;

use glam::Vec3;

use crate::geometry::{KeyError, PlanetGrid, REGION_CELLS, RegionKey, face_coords};
use crate::layout::Layout;
use crate::plan::PlanetPlan;
use crate::recipe::PlanetRecipe;
use crate::settlements::Settlements;

/// Everything the terrain passes need of one planet, built once from its plan.
#[derive(Clone, Debug)]
pub struct Terrain {
    /// The planet's seed.
    pub seed: u64,
    /// The planet's recipe.
    pub recipe: PlanetRecipe,
    /// The planet's voxel grid.
    pub grid: PlanetGrid,
    /// The planet's noise layers.
    pub fields: Fields,
    /// The planet's layout (belts, rivers, lakes, coast, plots), shared.
    pub layout: Arc<Layout>,
    /// The planet's settlements (sites, and towns as they are made), shared.
    pub settlements: Arc<Settlements>,
}

impl Terrain {
    /// The terrain generator of a planet.
    #[must_use]
    pub fn new(plan: &PlanetPlan) -> Self {
        Self::with_layout(plan, Arc::new(Layout::build(plan)))
    }

    /// The terrain generator of a planet whose layout is made already (the
    /// layout stage's output, or one a caller keeps by signature).
    #[must_use]
    pub fn with_layout(plan: &PlanetPlan, layout: Arc<Layout>) -> Self {
        let settlements = Arc::new(Settlements::build(plan, &layout));
        Self::with_parts(plan, layout, settlements)
    }

    /// The terrain generator from a layout and settlements made already
    /// (the stages' outputs, or ones a caller keeps).
    #[must_use]
    pub fn with_parts(plan: &PlanetPlan, layout: Arc<Layout>, settlements: Arc<Settlements>) -> Self {
        Self {
            seed: plan.seed,
            recipe: plan.recipe.clone(),
            grid: PlanetGrid::new(&plan.recipe),
            fields: Fields::new(plan.seed, &plan.recipe),
            layout,
            settlements,
        }
    }

    /// The terrain before any structure: no settlements, so no levelling
    /// (the ground towns are laid out on).
    #[must_use]
    pub fn bare(plan: &PlanetPlan, layout: Arc<Layout>) -> Self {
        Self::with_parts(plan, layout, Arc::new(Settlements::none(plan.recipe.radius_m)))
    }

    /// Both passes for `key`, after checking that it names a region of this planet.
    pub fn region(&self, key: RegionKey) -> Result<VoxelGrid, KeyError> {
        self.grid.check(key)?;
        Ok(self.voxels(&self.columns(key)))
    }

    /// Spacing of lattice nodes at `lod`, metres. Fields sampled at nodes drop
    /// the octaves finer than twice this: the lattice could not hold them.
    #[must_use]
    pub fn node_cell_m(&self, lod: u8) -> f32 {
        Self::lattice_cell_m(&self.grid, lod)
    }

    /// `node_cell_m` of a planet of `grid`.
    #[must_use]
    pub fn lattice_cell_m(grid: &PlanetGrid, lod: u8) -> f32 {
        Self::node_spacing_m(grid.cell_m(lod))
    }

    /// The spacing of the lattice nodes that columns `cell_m` wide are
    /// interpolated from (one formula, so a column and its nodes agree on
    /// what the nodes hold).
    #[must_use]
    pub(crate) fn node_spacing_m(cell_m: f32) -> f32 {
        LATTICE as f32 * cell_m
    }

    /// The region at `lod` holding the surface at direction `d`.
    #[must_use]
    pub fn surface_key(&self, d: Vec3, lod: u8) -> RegionKey {
        let column = self.column_key(d, lod);
        let s = self.surface_at(d);
        let above_floor = self.grid.shell_below_m + (s.surface_m - s.elevation_m);
        let layer = above_floor / self.grid.layer_m(column.lod);
        let z = ((layer / REGION_CELLS as f32).max(0.0) as u32).min(self.grid.regions_up(column.lod) - 1);
        RegionKey { z, ..column }
    }

    /// The bottom region (layer 0) of the column holding direction `d` at
    /// `lod` (at most the grid's coarsest): no terrain is evaluated.
    #[must_use]
    pub fn column_key(&self, d: Vec3, lod: u8) -> RegionKey {
        let lod = lod.min(self.grid.max_lod);
        let (face, u, v) = face_coords(d);
        let cells = self.grid.cells_across(lod) as f32;
        let regions = self.grid.regions_across(lod);
        let column = |t: f32| (((t + 1.0) * 0.5 * cells / REGION_CELLS as f32) as u32).min(regions - 1);
        RegionKey { face: face.index(), lod, x: column(u), y: column(v), z: 0 }
    }
}

/// The unit direction of latitude and longitude in degrees (+Y is north).
#[must_use]
pub fn lat_lon_direction(lat_deg: f32, lon_deg: f32) -> Vec3 {
    let (lat, lon) = (lat_deg.to_radians(), lon_deg.to_radians());
    Vec3::new(libm::cosf(lat) * libm::cosf(lon), libm::sinf(lat), libm::cosf(lat) * libm::sinf(lon))
}
