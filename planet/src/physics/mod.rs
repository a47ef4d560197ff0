//! The physics and navigation stages of a region, after spherify
//! (DESIGN.md, "The data flow": `SphereMesh ─► Collider + NavMesh`):
//!
//! - [`collider`]: the region's collision mesh, the terrain and block
//!   triangles (owned and overlap, so a neighbour at another LOD leaves no
//!   gap to fall through) with a bounding volume hierarchy ([`bvh`]), and
//!   `parry3d` answering each triangle's ray and shape casts;
//! - [`navmesh`]: the walkable triangles (slope against the local up, above
//!   the sea, with headroom under the region's own surface), each pair that
//!   the polygonizer split from one quad joined again where the quad is
//!   convex and nearly flat: navigation polygons, with their neighbours
//!   inside the region and the open edges where the engine links them to
//!   the neighbouring regions.
//!
//! Both are pure functions of the mesh (and the recipe's sea and radius):
//! the same bytes on any thread, in any order. `parry3d` is built with its
//! `enhanced-determinism` feature, so its math goes through libm too.
//!
//! ```
//! use planet::PlannedSystem;
//! use planet::mesh::{MeshWorkspace, polygonize, spherify};
//! use planet::physics::{NavSettings, collider, navmesh};
//! use planet::terrain::{Terrain, lat_lon_direction};
//!
//! let system = PlannedSystem::default_system();
//! let terrain = Terrain::new(&system.planets[1]);
//! let key = terrain.surface_key(lat_lon_direction(20.0, 30.0), 1);
//! let columns = terrain.columns(key);
//! let voxels = terrain.voxels(&columns);
//! let mesh = spherify(&terrain.grid, &polygonize(&terrain, &columns, &voxels, &mut MeshWorkspace::default()));
//! let collider = collider(&mesh);
//! let nav = navmesh(&mesh, &collider, &NavSettings::for_recipe(&terrain.recipe));
//! assert!(nav.polygons.len() <= mesh.terrain.indices.len() / 3);
//! ```

pub mod bvh;
mod collider;
mod navmesh;

pub use collider::{Collider, RayHit, SOLID_MAX_LOD, collider, region_collider};
pub use navmesh::{
    MAX_BEND_DEG, MAX_CORNERS, NO_NEIGHBOUR, NavMesh, NavPolygon, NavSettings, WALL_CLEARANCE_M, navmesh,
    navmesh_around,
};
pub use parry3d;
