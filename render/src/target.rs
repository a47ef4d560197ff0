//! Offscreen targets: a colour texture and its depth buffer, and the read
//! back of a drawn frame into an RGBA image (rows unpadded, BGRA swizzled),
//! for captures, tests and the flight client's screenshots.

use crate::error::RenderError;
use image::RgbaImage;

use crate::gpu::Gpu;
use crate::renderer::DepthTarget;

/// A colour texture with its depth buffer.
#[derive(Debug)]
pub struct Offscreen {
    /// Colour.
    pub color: wgpu::Texture,
    /// Its view.
    pub view: wgpu::TextureView,
    /// Depth.
    pub depth: DepthTarget,
    /// Format of `color`.
    pub format: wgpu::TextureFormat,
}

/// The colour format of headless captures.
pub const CAPTURE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

impl Offscreen {
    /// A target of `size` pixels in `format` (an 8-bit RGBA or BGRA format).
    #[must_use]
    pub fn new(gpu: &Gpu, format: wgpu::TextureFormat, size: (u32, u32)) -> Self {
        let color = gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("offscreen"),
            size: wgpu::Extent3d { width: size.0.max(1), height: size.1.max(1), depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = color.create_view(&wgpu::TextureViewDescriptor::default());
        Self { color, view, depth: DepthTarget::new(&gpu.device, size), format }
    }

    /// Size in pixels.
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        self.depth.size
    }

    /// Reads the colour back (waits for the GPU).
    pub fn read(&self, gpu: &Gpu) -> Result<RgbaImage, RenderError> {
        read_texture(gpu, &self.color, self.format)
    }
}

/// Reads an 8-bit RGBA or BGRA texture back into an image.
pub fn read_texture(gpu: &Gpu, texture: &wgpu::Texture, format: wgpu::TextureFormat) -> Result<RgbaImage, RenderError> {
    let (width, height) = (texture.width(), texture.height());
    let row = (4 * width).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: u64::from(row) * u64::from(height),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("readback") });
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(row), rows_per_image: Some(height) },
        },
        wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
    );
    gpu.queue.submit([encoder.finish()]);
    let slice = buffer.slice(..);
    let (sender, receiver) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = sender.send(r);
    });
    gpu.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| RenderError::Poll(e.to_string()))?;
    receiver
        .recv()
        .map_err(|e| RenderError::Readback(e.to_string()))?
        .map_err(|e| RenderError::Readback(e.to_string()))?;
    let bgra = matches!(format, wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb);
    let mut pixels = Vec::with_capacity((4 * width * height) as usize);
    {
        let data = slice.get_mapped_range().map_err(|e| RenderError::Readback(format!("{e:?}")))?;
        for y in 0..height as usize {
            let start = y * row as usize;
            let line = &data[start..start + 4 * width as usize];
            if bgra {
                for p in line.chunks_exact(4) {
                    pixels.extend_from_slice(&[p[2], p[1], p[0], p[3]]);
                }
            } else {
                pixels.extend_from_slice(line);
            }
        }
    }
    buffer.unmap();
    RgbaImage::from_raw(width, height, pixels).ok_or(RenderError::WrongSize)
}
