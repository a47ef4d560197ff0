//! Meshes: the polygonizers that turn a region's `VoxelGrid` into a
//! `CubeMesh` in cube-face space (dual contouring or surface nets for the
//! terrain, block faces for resources, a flat grid for the sea), spherify,
//! which maps it onto the planet as a `SphereMesh`, the GPU vertex format,
//! and each vertex's sky light (dark caves).
//!
//! ```
//! use planet::PlannedSystem;
//! use planet::mesh::{MeshWorkspace, polygonize, spherify};
//! use planet::terrain::{Terrain, lat_lon_direction};
//!
//! let system = PlannedSystem::default_system();
//! let terrain = Terrain::new(&system.planets[1]);
//! let key = terrain.surface_key(lat_lon_direction(43.5, -179.5), 2);
//! let columns = terrain.columns(key);
//! let voxels = terrain.voxels(&columns);
//! let mut workspace = MeshWorkspace::default();
//! let cube = polygonize(&terrain, &columns, &voxels, &mut workspace);
//! let mesh = spherify(&terrain.grid, &cube);
//! assert!(mesh.terrain.indices.len() > 0);
//! ```

mod blocks;
mod cell;
mod cube_mesh;
mod dual_contour;
mod field_look;
mod polygonize;
mod qef;
mod sky;
mod spherify;
mod surface_nets;
mod vertex;
mod water;

pub use blocks::blocks;
pub use cell::{CellVertex, Components, components, trilinear_gradient, vertices};
pub use cube_mesh::{CubeMesh, CubePart, CubeVertex};
pub use dual_contour::{DualContourWorkspace, QEF_BIAS, dual_contour};
pub use polygonize::{MeshWorkspace, polygonize, polygonizer_for};
pub use qef::Qef;
pub use sky::{DARK_COVER_M, OPEN_COVER_M, sky_in_cell, sky_of_cover};
pub use spherify::{MeshPart, SphereMesh, region_origin, spherify, spherify_vertex};
pub use surface_nets::{SurfaceNetsWorkspace, surface_nets_mesh};
pub use vertex::{Indices, Vertex, blend_u8, octahedral_decode, octahedral_encode};
pub use water::water;
