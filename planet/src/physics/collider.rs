//! The collider stage: a region's terrain and block triangles as a `parry3d`
//! `TriMesh` (with its BVH), positions relative to the region's origin.

use glam::DVec3;
use parry3d::math::Vector;
use parry3d::shape::TriMesh;
use serde::{Deserialize, Serialize};

use crate::geometry::RegionKey;
use crate::mesh::{MeshPart, SphereMesh};

/// A region's collision mesh.
#[derive(Clone, Serialize, Deserialize)]
pub struct Collider {
    /// The region.
    pub key: RegionKey,
    /// Planet-local origin the mesh is relative to, metres (the mesh's).
    pub origin: DVec3,
    /// The triangles with their BVH; `None` where the region has no surface.
    pub mesh: Option<TriMesh>,
}

impl std::fmt::Debug for Collider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collider")
            .field("key", &self.key)
            .field("origin", &self.origin)
            .field("triangles", &self.triangle_count())
            .finish()
    }
}

impl Collider {
    /// Triangles held.
    #[must_use]
    pub fn triangle_count(&self) -> usize {
        self.mesh.as_ref().map_or(0, |m| m.indices().len())
    }

    /// Approximate memory held, bytes (vertices, triangles and the BVH).
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.mesh.as_ref().map_or(0, |m| m.vertices().len() * 12 + m.indices().len() * (12 + 2 * 32))
    }

    /// A signature of the whole collider, its BVH included (what determinism
    /// tests compare).
    #[must_use]
    pub fn signature(&self) -> crate::Signature {
        let bytes = serde_json::to_vec(self).unwrap_or_default();
        crate::Signature::of_bytes("collider", &bytes)
    }
}

/// The triangles of a part that can be hit, owned and overlap: all but the
/// degenerate ones (two equal corners), which collide with nothing.
pub(super) fn solid_triangles(part: &MeshPart) -> impl Iterator<Item = [u32; 3]> + '_ {
    [&part.indices, &part.overlap].into_iter().flat_map(|indices| {
        (0..indices.len() / 3)
            .map(|t| [indices.get(3 * t), indices.get(3 * t + 1), indices.get(3 * t + 2)])
            .filter(|tri| tri[0] != tri[1] && tri[1] != tri[2] && tri[0] != tri[2])
    })
}

fn add_part(part: &MeshPart, vertices: &mut Vec<Vector>, triangles: &mut Vec<[u32; 3]>) {
    let base = vertices.len() as u32;
    vertices.extend(part.vertices.iter().map(|v| Vector::new(v.position[0], v.position[1], v.position[2])));
    triangles.extend(solid_triangles(part).map(|tri| tri.map(|i| i + base)));
}

/// Builds the collider of a region's mesh: its terrain and block triangles,
/// owned and overlap (the sea is not solid).
#[must_use]
pub fn collider(mesh: &SphereMesh) -> Collider {
    let mut vertices = Vec::with_capacity(mesh.terrain.vertices.len() + mesh.blocks.vertices.len());
    let count = |p: &MeshPart| (p.indices.len() + p.overlap.len()) / 3;
    let mut triangles = Vec::with_capacity(count(&mesh.terrain) + count(&mesh.blocks));
    add_part(&mesh.terrain, &mut vertices, &mut triangles);
    add_part(&mesh.blocks, &mut vertices, &mut triangles);
    let mesh_out = if triangles.is_empty() { None } else { TriMesh::new(vertices, triangles).ok() };
    Collider { key: mesh.key, origin: mesh.origin, mesh: mesh_out }
}
