//! The region pipeline: one ordered table of stages ([`Pipeline`]) and one
//! runner, shared by the engine's region jobs, `planet dump`, `replay`,
//! `inspect` and the stages bench.
//!
//! A stage is a [`RegionStage`]: its name, the stages it reads, its run
//! function and its dump layout, in one file under `stages/`. Its row
//! ([`StageDef::of`]) erases the output's type, so the table, the runner,
//! [`Chain`] and the dump files treat every stage alike:
//!
//! ```
//! use planet::pipeline::{Pipeline, RegionInput, StageTimes, stages};
//! use planet::terrain::{Terrain, lat_lon_direction};
//! use planet::{PlannedSystem, mesh::SphereMesh};
//!
//! let system = PlannedSystem::default_system();
//! let terrain = Terrain::new(&system.planets[1]);
//! let key = terrain.surface_key(lat_lon_direction(-15.0, 0.0), 6);
//! let mut times = StageTimes::default();
//! let chain = Pipeline::standard()
//!     .run_region(&RegionInput::of_terrain(&terrain, key), &|| false, |i, t| times.0[i] = t)
//!     .unwrap()
//!     .expect("not cancelled");
//! let mesh: &SphereMesh = chain.value(&stages::SPHERE_MESH).unwrap();
//! assert_eq!(mesh.key, key);
//! assert!(times.of(&stages::NAVMESH) > std::time::Duration::ZERO);
//! ```

mod chain;
mod stage;
pub mod stages;
mod table;

pub use chain::{Chain, RegionInput};
pub use stage::{RegionStage, Stage, StageDef, StageOutput, StageValue};
pub use table::{MAX_STAGES, Pipeline, PipelineError, Run, StageTimes};

#[cfg(test)]
mod tests;
