//! Spherify: cube-face-space meshes onto the planet. Each vertex's face
//! coordinates go through the tangent warp to a direction, its layer and the
//! elevated surface under it to a radius; normals go through the inverse
//! transpose of that mapping's Jacobian, so they stay perpendicular to the
//! surface on the sphere. Positions are stored as f32 relative to the region's
//! f64 origin (a point on the base sphere under the region's centre).

use glam::{DVec3, Vec3};
use serde::{Deserialize, Serialize};

use super::cube_mesh::{CubeMesh, CubePart, CubeVertex};
use super::vertex::{Indices, Vertex, blend_u8, octahedral_encode};
use crate::geometry::{Face, GridPoint, PlanetGrid, REGION_CELLS, RegionKey, direction_warped, warp};

/// One mesh of a region on the planet.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MeshPart {
    /// Vertices, positions relative to the region's origin.
    pub vertices: Vec<Vertex>,
    /// Triangles the region owns.
    pub indices: Indices,
    /// Triangles of the overlap strip (drawn where a neighbour is at another LOD).
    pub overlap: Indices,
}

/// A region's meshes on the planet: the renderer's and the physics' input.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SphereMesh {
    /// The region.
    pub key: RegionKey,
    /// Planet-local origin the vertex positions are relative to, metres.
    pub origin: DVec3,
    /// The terrain surface.
    pub terrain: MeshPart,
    /// Block faces of resource voxels.
    pub blocks: MeshPart,
    /// The sea surface.
    pub water: MeshPart,
}

impl MeshPart {
    /// Heap bytes it holds (capacities, indices at their width).
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.vertices.capacity() * size_of::<Vertex>() + self.indices.heap_bytes() + self.overlap.heap_bytes()
    }

    /// Trims every buffer to fill its allocator block (`heap::fit_to_block`).
    pub fn fit_to_blocks(&mut self) {
        crate::heap::fit_to_block(&mut self.vertices);
        self.indices.fit_to_block();
        self.overlap.fit_to_block();
    }
}

impl SphereMesh {
    /// Heap bytes its three parts hold.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.terrain.heap_bytes() + self.blocks.heap_bytes() + self.water.heap_bytes()
    }

    /// Trims every buffer to fill its allocator block (`heap::fit_to_block`).
    pub fn fit_to_blocks(&mut self) {
        self.terrain.fit_to_blocks();
        self.blocks.fit_to_blocks();
        self.water.fit_to_blocks();
    }

    /// A signature of every vertex and index of every part (what determinism
    /// tests and streaming runs compare).
    #[must_use]
    pub fn signature(&self) -> crate::Signature {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&self.origin.to_array().map(f64::to_bits).map(u64::to_le_bytes).concat());
        for part in [&self.terrain, &self.blocks, &self.water] {
            bytes.extend_from_slice(&(part.vertices.len() as u64).to_le_bytes());
            bytes.extend_from_slice(bytemuck::cast_slice(&part.vertices));
            for indices in [&part.indices, &part.overlap] {
                bytes.extend_from_slice(&(indices.len() as u64).to_le_bytes());
                for i in 0..indices.len() {
                    bytes.extend_from_slice(&indices.get(i).to_le_bytes());
                }
            }
        }
        crate::Signature::of_bytes("sphere mesh", &bytes)
    }

    /// Triangles the region owns, all parts together.
    #[must_use]
    pub fn triangle_count(&self) -> usize {
        (self.terrain.indices.len() + self.blocks.indices.len() + self.water.indices.len()) / 3
    }
}

/// The planet-local origin of a region: the base sphere under its centre.
#[must_use]
pub fn region_origin(grid: &PlanetGrid, key: RegionKey) -> DVec3 {
    let centre = REGION_CELLS / 2;
    let p = GridPoint {
        face: key.face(),
        x: key.x as i32 * REGION_CELLS + centre,
        y: key.y as i32 * REGION_CELLS + centre,
    };
    (grid.direction(key.lod, p) * grid.radius_m).as_dvec3()
}

/// A cube-space vertex's planet-local position and its two normals, in metres.
#[must_use]
pub fn spherify_vertex(grid: &PlanetGrid, lod: u8, v: &CubeVertex) -> (Vec3, Vec3, Vec3) {
    let face = Face::from_index(v.face).expect("meshes only hold faces 0..=5");
    let scale = 2.0 / grid.cells_across(lod) as f32;
    let layer_m = grid.layer_m(lod);
    let u = (v.cell[0] as f32 + v.local.x) * scale - 1.0;
    let w = (v.cell[1] as f32 + v.local.y) * scale - 1.0;
    let (wu, wv) = (warp(u), warp(w));
    let dir = direction_warped(face, wu, wv);
    let r = grid.radius_m + v.base_m + (v.cell[2] as f32 + v.local.z) * layer_m;
    let position = dir * r;

    // Jacobian of (x, y, layer) in cells -> planet space, column by column.
    let p = face.normal() + face.tu() * wu + face.tv() * wv;
    let inv_len = 1.0 / libm::sqrtf(p.length_squared());
    let quarter_pi = core::f32::consts::FRAC_PI_4;
    let d_dir = |t: Vec3, wt: f32| {
        let dp = t * (quarter_pi * (1.0 + wt * wt) * scale);
        (dp - dir * dir.dot(dp)) * inv_len
    };
    let ju = d_dir(face.tu(), wu) * r + dir * v.base_slope[0];
    let jv = d_dir(face.tv(), wv) * r + dir * v.base_slope[1];
    let jh = dir * layer_m;
    let to_planet = |n: Vec3| {
        let m = jv.cross(jh) * n.x + jh.cross(ju) * n.y + ju.cross(jv) * n.z;
        m.normalize_or(dir)
    };
    (position, to_planet(v.smooth_normal), to_planet(v.face_normal))
}

fn spherify_part(grid: &PlanetGrid, lod: u8, origin: DVec3, part: &CubePart) -> MeshPart {
    let vertices: Vec<Vertex> = part
        .vertices
        .iter()
        .map(|v| {
            let (p, smooth, face) = spherify_vertex(grid, lod, v);
            Vertex {
                position: (p.as_dvec3() - origin).as_vec3().to_array(),
                smooth_normal: octahedral_encode(smooth),
                face_normal: octahedral_encode(face),
                materials: v.materials,
                blend: blend_u8(v.blend),
                sky: v.sky,
            }
        })
        .collect();
    let count = vertices.len();
    MeshPart {
        vertices,
        indices: Indices::from_u32(&part.triangles, count),
        overlap: Indices::from_u32(&part.overlap, count),
    }
}

/// Spherifies every part of a cube-space mesh.
#[must_use]
pub fn spherify(grid: &PlanetGrid, mesh: &CubeMesh) -> SphereMesh {
    let key = mesh.key;
    let origin = region_origin(grid, key);
    SphereMesh {
        key,
        origin,
        terrain: spherify_part(grid, key.lod, origin, &mesh.terrain),
        blocks: spherify_part(grid, key.lod, origin, &mesh.blocks),
        water: spherify_part(grid, key.lod, origin, &mesh.water),
    }
}
