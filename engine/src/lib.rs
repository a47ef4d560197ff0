//! The live world, headless: the LOD region tree per cube face, streaming of
//! regions around a moving camera through the job system, the region cache,
//! and coverage checks. It depends on `planet` and `jobs` only, never on a
//! GPU crate (DESIGN.md, "Shape of the workspace").
//!
//! ```no_run
//! use std::sync::Arc;
//! use engine::{Camera, PlanetBuilder, RegionCache, RegionJobs, StreamSettings, Streamer};
//! use parking_lot::Mutex;
//! use planet::PlannedSystem;
//! use planet::terrain::Terrain;
//!
//! let plan = &PlannedSystem::default_system().planets[1];
//! let terrain = Arc::new(Terrain::new(plan));
//! let builder = Arc::new(PlanetBuilder::new(Arc::clone(&terrain)));
//! let jobs = Arc::new(RegionJobs::new(2));
//! let cache = Arc::new(Mutex::new(RegionCache::new(512 << 20)));
//! let mut streamer = Streamer::new(plan.signature(), terrain, builder, jobs, cache, StreamSettings::default());
//! let camera = Camera::new(glam::DVec3::new(0.0, 0.0, 4100.0), glam::DVec3::NEG_Z);
//! while !streamer.is_settled() {
//!     streamer.update(&camera);
//!     std::thread::sleep(std::time::Duration::from_millis(16));
//! }
//! ```

mod builder;
mod cache;
mod camera;
pub mod clock;
pub mod coverage;
pub mod creatures;
pub mod flags;
mod lod;
mod making;
pub mod nav;
pub mod path;
pub mod physics;
pub mod player;
pub mod read;
pub mod run;
pub mod savefile;
mod streamer;
pub mod survey;
pub mod tool;
pub mod view;
mod world;
pub mod write;

/// A hash set with a fast hash and a fixed seed, so its order is the same in
/// every run (determinism) while the streamer's per-frame lookups of every
/// shown region stay cheap.
pub(crate) type FastSet<T> = std::collections::HashSet<T, foldhash::fast::FixedState>;

/// A hash map with the same fast, fixed-seed hash as [`FastSet`].
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

pub use builder::{BuiltRegion, PlanetBuilder, RegionBuilder, StageCounters};
pub use cache::{DEFAULT_CACHE_BYTES, RegionCache, RegionId};
pub use camera::Camera;
pub use lod::{Bounds, ColumnKey, LodSettings, LodTree, STANDING_M};
pub use making::MadePlanet;
pub use streamer::{FrameReport, RegionJobs, StreamSettings, Streamer, descends_from};
pub use view::{Pose, ViewError, ViewSpec, lat_lon_of, sunlit_land};
pub use world::{Attached, LoadError, World, WorldBuilder, WorldPlanet, WorldSettings};
