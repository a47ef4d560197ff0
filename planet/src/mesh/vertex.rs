//! The GPU vertex format and index buffers: 24-byte vertices (position, two
//! octahedral-encoded normals, two materials, their blend and the sky light)
//! and `u16` indices wherever a mesh has few enough vertices.

use bytemuck::{Pod, Zeroable};
use glam::{Vec2, Vec3};
use serde::{Deserialize, Serialize};

/// One vertex as the renderer receives it. 24 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable, Serialize, Deserialize)]
#[repr(C)]
pub struct Vertex {
    /// Position relative to the mesh's origin, metres.
    pub position: [f32; 3],
    /// Smooth normal (for texturing), octahedral, snorm16.
    pub smooth_normal: [i16; 2],
    /// Face normal (for lighting, drawn flat), octahedral, snorm16.
    pub face_normal: [i16; 2],
    /// Primary and secondary material ids.
    pub materials: [u8; 2],
    /// Share of the secondary material, 0..=255 (a height blend in the
    /// shader: 256 steps are finer than the texels that decide it).
    pub blend: u8,
    /// Sky light, 0 (deep in a cave) to 255 (open ground): `mesh/sky.rs`.
    pub sky: u8,
}

const _: () = assert!(size_of::<Vertex>() == 24);

/// A 16-bit material share as the vertex's 8 bits, rounded to nearest.
#[inline]
#[must_use]
pub fn blend_u8(blend: u16) -> u8 {
    ((u32::from(blend) * 255 + 32767) / 65535) as u8
}

/// Encodes a unit vector with the octahedral mapping into two snorm16 values:
/// near-uniform precision over the sphere in 4 bytes (error below 0.01 degrees).
#[must_use]
pub fn octahedral_encode(n: Vec3) -> [i16; 2] {
    let n = n / (n.x.abs() + n.y.abs() + n.z.abs()).max(f32::MIN_POSITIVE);
    let mut p = Vec2::new(n.x, n.y);
    if n.z < 0.0 {
        let sign = Vec2::new(if p.x >= 0.0 { 1.0 } else { -1.0 }, if p.y >= 0.0 { 1.0 } else { -1.0 });
        p = (Vec2::ONE - Vec2::new(p.y.abs(), p.x.abs())) * sign;
    }
    let q = |v: f32| {
        let s = (v.clamp(-1.0, 1.0) * 32767.0).round_ties_even();
        s as i16
    };
    [q(p.x), q(p.y)]
}

/// Decodes `octahedral_encode`'s output to a unit vector.
#[must_use]
pub fn octahedral_decode(e: [i16; 2]) -> Vec3 {
    let p = Vec2::new(f32::from(e[0]) / 32767.0, f32::from(e[1]) / 32767.0);
    let z = 1.0 - p.x.abs() - p.y.abs();
    let t = (-z).max(0.0);
    let x = p.x + if p.x >= 0.0 { -t } else { t };
    let y = p.y + if p.y >= 0.0 { -t } else { t };
    Vec3::new(x, y, z).normalize()
}

/// A triangle index buffer: `u16` when every index fits, else `u32`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Indices {
    /// At most 65536 vertices.
    U16(Vec<u16>),
    /// More vertices than `u16` can name.
    U32(Vec<u32>),
}

impl Default for Indices {
    fn default() -> Self {
        Self::U16(Vec::new())
    }
}

impl Indices {
    /// The narrowest buffer for `indices` into `vertex_count` vertices.
    #[must_use]
    pub fn from_u32(indices: &[u32], vertex_count: usize) -> Self {
        if vertex_count <= usize::from(u16::MAX) + 1 {
            Self::U16(indices.iter().map(|&i| i as u16).collect())
        } else {
            Self::U32(indices.to_vec())
        }
    }

    /// Number of indices.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Self::U16(v) => v.len(),
            Self::U32(v) => v.len(),
        }
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index `i` widened.
    #[must_use]
    pub fn get(&self, i: usize) -> u32 {
        match self {
            Self::U16(v) => u32::from(v[i]),
            Self::U32(v) => v[i],
        }
    }

    /// All indices widened.
    #[must_use]
    pub fn to_u32(&self) -> Vec<u32> {
        match self {
            Self::U16(v) => v.iter().map(|&i| u32::from(i)).collect(),
            Self::U32(v) => v.clone(),
        }
    }

    /// Heap bytes it holds: its capacity at its width.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        match self {
            Self::U16(v) => v.capacity() * 2,
            Self::U32(v) => v.capacity() * 4,
        }
    }

    /// Trims its capacity to fill the allocator block its length needs (`heap::fit_to_block`).
    pub fn fit_to_block(&mut self) {
        match self {
            Self::U16(v) => crate::heap::fit_to_block(v),
            Self::U32(v) => crate::heap::fit_to_block(v),
        };
    }

    /// The raw bytes (little-endian), for upload.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Self::U16(v) => bytemuck::cast_slice(v),
            Self::U32(v) => bytemuck::cast_slice(v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octahedral_round_trip_is_precise() {
        let mut worst = 0.0f32;
        for i in 0..2000 {
            let t = i as f32 * 0.7;
            let n = Vec3::new(libm::sinf(t * 1.3), libm::cosf(t * 0.9), libm::sinf(t * 2.1 + 0.5)).normalize();
            let back = octahedral_decode(octahedral_encode(n));
            // The chord is the angle to well within f32 precision (acos near 1 is not).
            worst = worst.max(n.distance(back).to_degrees());
        }
        for n in [Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y, Vec3::Z, Vec3::NEG_Z] {
            assert!(octahedral_decode(octahedral_encode(n)).distance(n) < 1e-4, "{n}");
        }
        assert!(worst < 0.01, "worst error {worst} degrees");
    }

    #[test]
    fn indices_pick_their_width() {
        assert!(matches!(Indices::from_u32(&[0, 1, 2], 3), Indices::U16(_)));
        assert!(matches!(Indices::from_u32(&[0, 70_000, 2], 70_001), Indices::U32(_)));
        assert_eq!(Indices::from_u32(&[5, 6, 7], 8).to_u32(), vec![5, 6, 7]);
        assert_eq!(Indices::from_u32(&[5, 6], 8).as_bytes().len(), 4);
    }
}
