//! Drawing (DESIGN.md, "Rendering"): the only crate that will depend on wgpu.
//! Device setup for a window or headless, the terrain, water, proxy, object and
//! sky pipelines, uploads of ready regions, screenshot capture.
//!
//! Not built yet: issue 6 fills this crate and adds wgpu then, so that
//! everything else builds and tests without a GPU stack.
