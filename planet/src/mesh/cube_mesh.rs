//! `CubeMesh`: a region's meshes in cube-face space, the polygonizers' output
//! and spherify's input. Every vertex names the face whose grid it lies in
//! (a region's mesh reaches a little onto its neighbours, across face edges
//! too, and those vertices are in the neighbour face's frame, exactly as the
//! neighbour computes them).

use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::geometry::RegionKey;

/// A vertex in cube-face space.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CubeVertex {
    /// The face whose grid frame the vertex is in.
    pub face: u8,
    /// Minimum corner of its cell: grid x and y on that face, and the layer
    /// counted from the bottom of the voxel shell.
    pub cell: [i32; 3],
    /// Position inside the cell, each coordinate in [0, 1].
    pub local: Vec3,
    /// Height of layer 0 above the base radius here, metres (the elevated
    /// surface minus the shell's depth; sea level for water).
    pub base_m: f32,
    /// How `base_m` changes per cell along the face's x and y, metres: spherify
    /// needs it to turn normals into planet space.
    pub base_slope: [f32; 2],
    /// Smooth normal in the face's grid frame (a density gradient, not unit in metres).
    pub smooth_normal: Vec3,
    /// Face normal in the face's grid frame.
    pub face_normal: Vec3,
    /// Primary and secondary material ids.
    pub materials: [u8; 2],
    /// Share of the secondary material.
    pub blend: u16,
    /// Sky light, 0 (none, deep in a cave) to 255 (open ground): `mesh/sky.rs`.
    pub sky: u8,
}

/// One mesh of a region: vertices, the triangles the region owns, and the
/// overlap strip (triangles owned by its neighbours, one cell deep around it)
/// that hides cracks where a neighbour is drawn at another LOD.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CubePart {
    /// Vertices.
    pub vertices: Vec<CubeVertex>,
    /// Triangles the region owns, counter-clockwise seen from outside.
    pub triangles: Vec<u32>,
    /// Triangles of the overlap strip.
    pub overlap: Vec<u32>,
}

impl CubePart {
    /// Empties the part, keeping its memory.
    pub fn clear(&mut self) {
        self.vertices.clear();
        self.triangles.clear();
        self.overlap.clear();
    }
}

/// A region's meshes in cube-face space.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CubeMesh {
    /// The region.
    pub key: RegionKey,
    /// The terrain surface (dual contouring or surface nets).
    pub terrain: CubePart,
    /// Block faces of resource voxels (near the camera only).
    pub blocks: CubePart,
    /// The sea surface over the region's footprint.
    pub water: CubePart,
}
