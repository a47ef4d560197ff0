//! Pure, deterministic planet generation.
//!
//! Everything a world is made of comes from a small recipe through a chain of
//! generators, each a pure function whose output is a serde type
//! (DESIGN.md, "The data flow"):
//!
//! ```text
//! SystemRecipe ─► SystemPlan ─► PlanetPlan ─► (terrain, meshes, ... in later stages)
//! ```
//!
//! The building blocks are seeded integer hashing ([`hash`]) and f32 noise on
//! libm ([`noise`]); a world is named by its [`Signature`].
//!
//! ```
//! use planet::PlannedSystem;
//!
//! let system = PlannedSystem::from_json(r#"{ "seed": 7 }"#).unwrap();
//! assert!(system.planets.len() >= 3);
//! // The same recipe always plans the same world.
//! assert_eq!(system.signature(), PlannedSystem::from_json(r#"{"seed":7}"#).unwrap().signature());
//! ```
//!
//! **Invariant:** nothing in this crate reads a clock, a thread id, a global or
//! a hashed container's iteration order; f32 and f64 transcendentals go
//! through libm (enforced by `planet/clippy.toml`).

pub mod creatures;
pub mod dump;
pub mod edit;
pub mod geometry;
pub mod hash;
pub mod heap;
pub mod json;
pub mod layout;
pub mod mesh;
pub mod noise;
pub mod physics;
pub mod pipeline;
mod plan;
pub mod proxy;
pub mod recipe;
pub mod scatter;
pub mod settlements;
mod signature;
pub mod terrain;

pub use geometry::{Face, PlanetGrid, RegionKey};
pub use plan::{PlanetPlan, PlanetSlot, PlannedSystem, Spin, SunPlan, SystemPlan};
pub use recipe::{PlanetKind, PlanetRecipe, RecipeError, RecipeErrors, SystemRecipe};
pub use signature::{GENERATOR_VERSION, Signature};
