//! The polygonize stage: a region's `VoxelGrid` (and its `ColumnField`) to a
//! `CubeMesh`, with the terrain polygonizer the recipe picks for the LOD, block
//! faces for resources near the camera, and the sea.

use super::blocks::blocks;
use super::cube_mesh::CubeMesh;
use super::dual_contour::{DualContourWorkspace, dual_contour};
use super::surface_nets::{SurfaceNetsWorkspace, surface_nets_mesh};
use super::water::water;
use crate::recipe::Polygonizer;
use crate::terrain::{ColumnField, Terrain, VoxelGrid};

/// Scratch memory of every polygonizer, reused from region to region.
#[derive(Debug, Default)]
pub struct MeshWorkspace {
    /// Dual contouring's.
    pub dual_contour: DualContourWorkspace,
    /// Surface nets'.
    pub surface_nets: SurfaceNetsWorkspace,
}

/// The terrain polygonizer the recipe picks for `lod` (the last entry serves every coarser LOD).
#[must_use]
pub fn polygonizer_for(terrain: &Terrain, lod: u8) -> Polygonizer {
    let by_lod = &terrain.recipe.meshing.polygonizer_by_lod;
    by_lod.get(usize::from(lod)).or(by_lod.last()).copied().unwrap_or(Polygonizer::DualContouring)
}

/// Polygonizes one region.
#[must_use]
pub fn polygonize(terrain: &Terrain, columns: &ColumnField, voxels: &VoxelGrid, ws: &mut MeshWorkspace) -> CubeMesh {
    let key = voxels.key;
    let mut mesh = CubeMesh { key, ..CubeMesh::default() };
    // All rock or all air (a region the surface does not cross: about half
    // of those streamed): no edge changes sign, so neither polygonizer nor
    // the blocks find a face. A scan of the densities costs a tenth of
    // walking the grid for nothing.
    let solid = voxels.voxels[0].is_solid();
    if voxels.voxels.iter().all(|v| v.is_solid() == solid) {
        water(terrain, columns, &mut mesh.water);
        return mesh;
    }
    match polygonizer_for(terrain, key.lod) {
        Polygonizer::DualContouring => dual_contour(terrain, columns, voxels, &mut ws.dual_contour, &mut mesh.terrain),
        Polygonizer::SurfaceNets => {
            surface_nets_mesh(terrain, columns, voxels, &mut ws.surface_nets, &mut mesh.terrain);
        }
    }
    if u32::from(key.lod) <= terrain.recipe.meshing.cube_resources_max_lod {
        blocks(terrain, columns, voxels, &mut mesh.blocks);
    }
    water(terrain, columns, &mut mesh.water);
    mesh
}
