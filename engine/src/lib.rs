//! The live world, headless (DESIGN.md, "Shape of the workspace"): the solar
//! system, the LOD region tree per cube face, streaming, proxies, floating
//! origin, physics queries, creatures, edits and saves.
//!
//! Not built yet: issue 5 starts it. It depends on `planet` and `jobs` only,
//! never on a GPU crate.
