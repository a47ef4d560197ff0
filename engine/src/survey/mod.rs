//! The survey of many planets (`planet survey`): which planets a run covers
//! (systems by seed, a template recipe, a shard's slice), and each planet's
//! figures and flags, measured headless. The pictures, tables and contact
//! sheet are the `planet` tool's; this module is what they are made of.
//!
//! A planet's figures are a pure function of its recipe (the same bytes in
//! any shard, on any thread count); the times measured beside them are kept
//! apart ([`PlanetTimings`]), so that tables of figures merge byte for byte.

mod figures;
mod flags;
mod selection;

pub use figures::{ELEVATION_EDGES_M, PlanetFigures, PlanetTimings, SurveySample, measure};
pub use flags::{Flag, timing_flags};
pub use selection::{MAX_SHARDS, MAX_SYSTEMS, Selection, SelectionError, Shard, SurveyPlanet, parse_seed_range};
