//! The scatter models (`planet::scatter::models`, generated at load time)
//! in one vertex and one index buffer on the GPU, with a second vertex
//! buffer that tells each vertex its kind's far distance and whether it is
//! an impostor's: what the objects shader used to read from a draw's slot,
//! so one multi-draw can hold every type and level of a planet.

use planet::scatter::models::{IMPOSTOR, LEVELS, ModelRange, ModelSet};
use planet::scatter::{KINDS, VARIANTS};
use wgpu::util::DeviceExt;

use crate::meshes::far_m;

/// The models on the GPU.
#[derive(Debug)]
pub struct GpuModels {
    /// Vertices.
    pub vertices: wgpu::Buffer,
    /// Per vertex, `[far_m, impostor]` ([`vertex_kinds`]).
    pub kinds: wgpu::Buffer,
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
            kinds: buffer("model kinds", bytemuck::cast_slice(&vertex_kinds(&set)), wgpu::BufferUsages::VERTEX),
            indices: buffer("models", bytemuck::cast_slice(&set.indices), wgpu::BufferUsages::INDEX),
            levels: set.levels,
        }
    }
}

/// Per vertex of `set`, its type's far distance (metres) and 1 for an
/// impostor's vertex (0 otherwise), found through the levels' indices.
#[must_use]
pub fn vertex_kinds(set: &ModelSet) -> Vec<[f32; 2]> {
    let mut kinds = vec![[f32::NAN; 2]; set.vertices.len()];
    for (i, range) in set.levels.iter().enumerate() {
        let (model, level) = (i / LEVELS, i % LEVELS);
        let kind = [far_m(KINDS[model / VARIANTS as usize]), if level == IMPOSTOR { 1.0 } else { 0.0 }];
        for &v in &set.indices[range.first as usize..(range.first + range.count) as usize] {
            let slot = &mut kinds[v as usize];
            // A vertex two levels or types shared would have to say two things.
            debug_assert!(slot[0].is_nan() || *slot == kind, "vertex {v} shared by two kinds or levels");
            *slot = kind;
        }
    }
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vertex_knows_one_kind_and_level() {
        let set = ModelSet::generate();
        let kinds = vertex_kinds(&set);
        let mut seen = vec![None; set.vertices.len()];
        for (i, range) in set.levels.iter().enumerate() {
            for &v in &set.indices[range.first as usize..(range.first + range.count) as usize] {
                let owner = seen[v as usize].get_or_insert(i);
                assert_eq!(*owner, i, "vertex {v} is in the ranges of levels {owner} and {i}");
            }
            let kind = KINDS[i / LEVELS / VARIANTS as usize];
            let v = set.indices[range.first as usize] as usize;
            assert_eq!(kinds[v], [far_m(kind), if i % LEVELS == IMPOSTOR { 1.0 } else { 0.0 }]);
        }
        // Vertices no level uses stay NaN; there are none.
        assert!(kinds.iter().all(|k| !k[0].is_nan()));
    }
}
