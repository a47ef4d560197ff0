//! Headless capture: stream a view until it is settled (every region it
//! wants is ready, every planet it may see made) or a timeout, then draw
//! it offscreen with every fade finished and read the pixels back. Settled
//! views draw the same bytes every time on one backend.

use crate::error::RenderError;
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::{ViewSpec, World};
use image::RgbaImage;

use crate::gpu::{Gpu, GpuError};
use crate::renderer::{FrameStats, RenderOptions, Renderer, ViewCamera};
use crate::target::{CAPTURE_FORMAT, Offscreen};
use crate::textures::MaterialSet;

/// A world with a headless device and target.
#[derive(Debug)]
pub struct Capture {
    /// The world streamed.
    pub world: World,
    /// The renderer.
    pub renderer: Renderer,
    /// The target.
    pub target: Offscreen,
}

/// One captured frame.
#[derive(Debug)]
pub struct Shot {
    /// The pixels.
    pub image: RgbaImage,
    /// Whether streaming settled before the timeout.
    pub settled: bool,
    /// Seconds spent streaming before the draw.
    pub stream_s: f64,
    /// What the frame drew.
    pub stats: FrameStats,
}

impl Capture {
    /// A headless device, a renderer for `world` and a target of `size` pixels.
    pub fn new(world: World, size: (u32, u32)) -> Result<Self, GpuError> {
        let materials = MaterialSet::generate(&world.system);
        Ok(Self::with_gpu(world, Arc::new(Gpu::headless()?), &materials, size))
    }

    /// [`Capture::new`] on a device and material textures made already
    /// (say, on another thread while the world was built).
    #[must_use]
    pub fn with_gpu(world: World, gpu: Arc<Gpu>, materials: &MaterialSet, size: (u32, u32)) -> Self {
        let renderer = Renderer::with_materials(Arc::clone(&gpu), CAPTURE_FORMAT, &world, materials);
        let target = Offscreen::new(&gpu, CAPTURE_FORMAT, size);
        Self { world, renderer, target }
    }

    /// Streams around `camera` until what it shows is settled (its regions
    /// ready, every planet it may see made: `World::is_settled_for`) or
    /// `timeout`; returns whether it settled.
    pub fn settle(&mut self, camera: &ViewCamera, timeout: Duration) -> bool {
        let (w, h) = self.target.size();
        let cull = camera.engine_camera(f64::from(w) / f64::from(h.max(1)));
        let start = Instant::now();
        // The planets in view are made now, beside the region jobs, on
        // threads of this one's class (a thread already making one is
        // waited for); the others may wait.
        for planet in self.world.planets.iter().filter(|p| p.made().is_none() && p.may_be_seen_by(&cull)) {
            planet.begin_proxy();
        }
        loop {
            self.world.update(&cull);
            if self.world.is_settled_for(&cull) {
                return true;
            }
            if start.elapsed() >= timeout {
                return false;
            }
            std::thread::sleep(Duration::from_millis(4));
        }
    }

    /// Draws the world as it stands from `camera`, every fade finished.
    pub fn draw(
        &mut self,
        camera: &ViewCamera,
        options: &RenderOptions,
    ) -> Result<(RgbaImage, FrameStats), RenderError> {
        // Bring every shown region in and end its fade before drawing; the
        // draw's own sync then finds nothing new, so its uploads are these.
        let uploaded = self.renderer.sync(&self.world, options.time);
        self.renderer.finish_fades();
        self.world.finish_fades();
        let mut stats = self.renderer.render(&self.world, camera, &self.target.view, &self.target.depth, options);
        stats.uploaded_bytes += uploaded;
        let image = self.target.read(self.renderer.gpu())?;
        Ok((image, stats))
    }
}

/// Streams `view` until settled (or `timeout`) and captures it with the sky.
pub fn capture_view(capture: &mut Capture, view: &ViewSpec, timeout: Duration) -> Result<Shot, RenderError> {
    let pose = view.pose(&capture.world)?;
    let camera = ViewCamera { pose, fov_y: view.fov.to_radians() };
    let start = Instant::now();
    let settled = capture.settle(&camera, timeout);
    let stream_s = start.elapsed().as_secs_f64();
    let (image, stats) = capture.draw(&camera, &RenderOptions::default())?;
    Ok(Shot { image, settled, stream_s, stats })
}
