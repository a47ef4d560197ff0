//! One file per stage, each a [`RegionStage`](super::RegionStage) and its
//! row: what the stage reads, how it runs, and its dump layout.

mod collider;
mod columns;
mod creature_paths;
mod cube_mesh;
mod navmesh;
mod planet_layout;
mod planet_plan;
mod planet_settlements;
mod scatter;
mod sphere_mesh;
mod system_plan;
mod voxels;

pub use collider::COLLIDER;
pub use columns::COLUMNS;
pub use creature_paths::{CREATURE_PATHS, CreaturePaths};
pub use cube_mesh::CUBE_MESH;
pub use navmesh::NAVMESH;
pub use planet_layout::PLANET_LAYOUT;
pub use planet_plan::PLANET_PLAN;
pub use planet_settlements::PLANET_SETTLEMENTS;
pub use scatter::SCATTER;
pub use sphere_mesh::SPHERE_MESH;
pub use system_plan::SYSTEM_PLAN;
pub use voxels::VOXELS;

use crate::RecipeError;
use crate::dump::DumpError;

/// Recipe errors as one dump error, a line each.
fn recipe_errors(errors: Vec<RecipeError>) -> DumpError {
    DumpError::new(errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))
}
