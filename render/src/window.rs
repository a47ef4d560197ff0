//! A window's surface: the device made for it, its configuration (an sRGB
//! format, vsync), resizing, and presenting frames. When asked, a frame is
//! read back before it is presented, so a screenshot is exactly what the
//! window showed.

use crate::error::RenderError;
use std::sync::Arc;

use image::RgbaImage;

use crate::gpu::{Gpu, GpuError};
use crate::renderer::FrameStats;
use crate::target::read_texture;

/// A window to draw to.
#[derive(Debug)]
pub struct WindowSurface {
    gpu: Arc<Gpu>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    can_copy: bool,
    last: Option<RgbaImage>,
}

impl WindowSurface {
    /// A surface for `window` (a winit window behind an `Arc`, say) of `size`
    /// pixels, with a device that can draw to it.
    pub fn new(
        instance: wgpu::Instance,
        window: impl Into<wgpu::SurfaceTarget<'static>>,
        size: (u32, u32),
    ) -> Result<Self, GpuError> {
        let surface = instance.create_surface(window)?;
        let gpu = Arc::new(Gpu::for_surface(instance, &surface)?);
        let caps = surface.get_capabilities(&gpu.adapter);
        let format = caps.formats.iter().copied().find(wgpu::TextureFormat::is_srgb).unwrap_or(caps.formats[0]);
        let can_copy = caps.usages.contains(wgpu::TextureUsages::COPY_SRC);
        let mut usage = wgpu::TextureUsages::RENDER_ATTACHMENT;
        if can_copy {
            usage |= wgpu::TextureUsages::COPY_SRC;
        }
        let config = wgpu::SurfaceConfiguration {
            usage,
            format,
            width: size.0.max(1),
            height: size.1.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps.alpha_modes[0],
            view_formats: vec![],
            color_space: wgpu::SurfaceColorSpace::Auto,
        };
        surface.configure(&gpu.device, &config);
        Ok(Self { gpu, surface, config, can_copy, last: None })
    }

    /// The device.
    #[must_use]
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// The colour format frames are drawn in.
    #[must_use]
    pub fn format(&self) -> wgpu::TextureFormat {
        self.config.format
    }

    /// Size, px.
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// Follows the window to a new size.
    pub fn resize(&mut self, size: (u32, u32)) {
        if size.0 > 0 && size.1 > 0 && size != self.size() {
            self.config.width = size.0;
            self.config.height = size.1;
            self.surface.configure(&self.gpu.device, &self.config);
        }
    }

    /// Draws one frame with `draw` into the window's next texture and presents
    /// it; with `keep`, reads it back first (see `last_frame`). A frame the
    /// window cannot take now (minimised, resized under it) is skipped.
    pub fn draw(
        &mut self,
        keep: bool,
        draw: impl FnOnce(&wgpu::TextureView) -> FrameStats,
    ) -> Result<Option<FrameStats>, RenderError> {
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.gpu.device, &self.config);
                return Ok(None);
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => return Ok(None),
            wgpu::CurrentSurfaceTexture::Validation => return Err(RenderError::InvalidSurface),
        };
        let view = texture.texture.create_view(&wgpu::TextureViewDescriptor::default());
        let stats = draw(&view);
        if keep && self.can_copy {
            self.last = Some(read_texture(&self.gpu, &texture.texture, self.config.format)?);
        }
        self.gpu.queue.present(texture);
        Ok(Some(stats))
    }

    /// The last frame kept by `draw`, if any.
    #[must_use]
    pub fn last_frame(&self) -> Option<RgbaImage> {
        self.last.clone()
    }
}
