//! Drawing (DESIGN.md, "Rendering"): the only crate that depends on wgpu.
//! A device for a window or headless (Mesa's lavapipe without a GPU), the sky,
//! terrain, water, proxy, scatter-object, creature, building and town-light pipelines (models generated at load time), uploads of ready regions with fades,
//! material textures generated from the recipe, and captures to PNG.
//!
//! ```no_run
//! use std::sync::Arc;
//! use engine::{ViewSpec, World, WorldSettings};
//! use render::{Capture, capture_view};
//!
//! let world = World::new(Arc::new(planet::PlannedSystem::default_system()), WorldSettings::default());
//! let view: ViewSpec = "planet=1,lat=10,lon=20,alt=300,heading=45,pitch=-10".parse().unwrap();
//! let mut capture = Capture::new(world, (640, 360)).unwrap();
//! let shot = capture_view(&mut capture, &view, std::time::Duration::from_secs(30)).unwrap();
//! shot.image.save("shot.png").unwrap();
//! ```

mod batch;
mod buildings;
mod capture;
mod creatures;
mod error;
mod exposure;
mod frame;
mod glide;
mod gpu;
mod holes;
mod meshes;
mod models;
mod renderer;
mod target;
mod textures;
mod window;

pub use buildings::{BUILDINGS_FAR_M, LIGHTS_FULL_M, LIGHTS_NEAR_M};
pub use capture::{Capture, Shot, capture_view};
pub use error::RenderError;
pub use glide::GLIDE_S;
pub use gpu::{Gpu, GpuError, instance, instance_for_display};
pub use holes::{HOLE_COLOUR, Holes, holes_in_view};
pub use meshes::{FADE_S, objects_within};
pub use renderer::{DEPTH_FORMAT, DepthTarget, FrameStats, Marker, NEAR_M, RenderOptions, Renderer, ViewCamera};
pub use target::{CAPTURE_FORMAT, Offscreen, read_texture};
pub use textures::{MaterialSet, material_layer};
pub use window::WindowSurface;
