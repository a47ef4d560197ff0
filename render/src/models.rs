//! The scatter models (`planet::scatter::models`, generated at load time)
//! in one vertex and one index buffer on the GPU.

use planet::scatter::models::{ModelRange, ModelSet};
use wgpu::util::DeviceExt;

/// The models on the GPU.
#[derive(Debug)]
pub struct GpuModels {
    /// Vertices.
    pub vertices: wgpu::Buffer,
    /// Indices, u32.
    pub indices: wgpu::Buffer,
    /// Per type and level (`type * LEVELS + level`), its range.
    pub levels: Vec<ModelRange>,
}

impl GpuModels {
    /// Generates and uploads every model.
    #[must_use]
    pub fn new(device: &wgpu::Device) -> Self {
        let set = ModelSet::generate();
        let buffer = |label, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents, usage })
        };
        Self {
            vertices: buffer("models", bytemuck::cast_slice(&set.vertices), wgpu::BufferUsages::VERTEX),
            indices: buffer("models", bytemuck::cast_slice(&set.indices), wgpu::BufferUsages::INDEX),
            levels: set.levels,
        }
    }
}
