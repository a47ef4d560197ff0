//! The polygonize stage: a region's `VoxelGrid` (and its `ColumnField`) to a
//! `CubeMesh`, with the terrain polygonizer the recipe picks for the LOD, block
//! faces for resources near the camera, and the sea.

use super::blocks::blocks;
use super::cube_mesh::CubeMesh;
use super::dual_contour::{DualContourWorkspace, dual_contour};
use super::surface_nets::{SurfaceNetsWorkspace, surface_nets_mesh};
use super::water::water;
use crate::geometry::WINDOW;
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
    polygonize_knowing(terrain, columns, voxels, ws, one_sign(voxels))
}

/// Whether every voxel is solid (`Some(true)`), every one air
/// (`Some(false)`), or neither.
fn one_sign(voxels: &VoxelGrid) -> Option<bool> {
    // The least and greatest density, a row of columns at a time: a
    // branch-free fold the compiler vectorises, several times faster than
    // a test per voxel, stopping at the first row that holds both signs
    // (in a region the surface crosses, usually the first).
    voxels.voxels.first()?;
    let (mut least, mut most) = (i16::MAX, i16::MIN);
    for row in voxels.voxels.chunks(WINDOW * WINDOW) {
        (least, most) = row.iter().fold((least, most), |(lo, hi), v| (lo.min(v.density), hi.max(v.density)));
        if least <= 0 && most > 0 {
            return None;
        }
    }
    // One sign throughout: all solid (a density above zero, `Voxel::is_solid`) or all air.
    Some(least > 0)
}

/// [`polygonize`], told whether the grid is all one sign. In a region the
/// surface does not cross (about half of those streamed) no edge changes
/// sign, so the polygonizer finds no face and is not run: a scan of the
/// densities costs a tenth of walking the grid for nothing. Blocks still
/// are in solid rock (a resource voxel shows its faces against other rock,
/// for caves to cut into); in air there are none.
fn polygonize_knowing(
    terrain: &Terrain,
    columns: &ColumnField,
    voxels: &VoxelGrid,
    ws: &mut MeshWorkspace,
    sign: Option<bool>,
) -> CubeMesh {
    let key = voxels.key;
    let mut mesh = CubeMesh { key, ..CubeMesh::default() };
    if sign.is_none() {
        match polygonizer_for(terrain, key.lod) {
            Polygonizer::DualContouring => {
                dual_contour(terrain, columns, voxels, &mut ws.dual_contour, &mut mesh.terrain);
            }
            Polygonizer::SurfaceNets => {
                surface_nets_mesh(terrain, columns, voxels, &mut ws.surface_nets, &mut mesh.terrain);
            }
        }
    }
    if sign != Some(false) && u32::from(key.lod) <= terrain.recipe.meshing.cube_resources_max_lod {
        blocks(terrain, columns, voxels, &mut mesh.blocks);
    }
    water(terrain, columns, &mut mesh.water);
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlannedSystem;
    use crate::geometry::seam_biased_direction;

    #[test]
    fn skipping_one_signed_grids_changes_no_mesh() {
        // Every layer of the columns under 120 random places of three
        // planets, the LODs that draw blocks and one more, face edges and corners among them (half the
        // regions all rock or all air, most over a deposit): the mesh is
        // the one the polygonizer and the blocks make without the skip.
        let system = PlannedSystem::default_system();
        let mut stream = crate::hash::HashStream::new(0x853c_49e6_748f_ea9b);
        let (mut one_signed, mut with_blocks) = (0, 0);
        for planet in [0usize, 1, 3] {
            let terrain = Terrain::new(&system.planets[planet]);
            let mut ws = MeshWorkspace::default();
            let block_lods = terrain.recipe.meshing.cube_resources_max_lod.min(3) as usize + 1;
            for _ in 0..40 {
                // Over a deposit where there is one near: all-rock regions
                // with blocks are found there.
                let mut direction = seam_biased_direction(&mut stream);
                let ground = direction * (terrain.recipe.radius_m + terrain.surface_at(direction).surface_m);
                let reach = glam::Vec3::splat(400.0);
                if let Some(deposit) = terrain.deposits_near(ground - reach, ground + reach).first() {
                    direction = deposit.center.normalize();
                }
                // Mostly the LODs that draw blocks, where the skip could lose them.
                let lod = stream.index(block_lods + 1) as u8;
                let key0 = terrain.surface_key(direction, lod);
                for z in 0..terrain.grid.regions_up(lod) {
                    let key = crate::RegionKey { z, ..key0 };
                    let columns = terrain.columns(key);
                    let voxels = terrain.voxels(&columns);
                    let sign = one_sign(&voxels);
                    let fast = polygonize(&terrain, &columns, &voxels, &mut ws);
                    let full = polygonize_knowing(&terrain, &columns, &voxels, &mut ws, None);
                    assert!(fast == full, "planet {planet} region {key}");
                    one_signed += usize::from(sign.is_some());
                    with_blocks += usize::from(sign == Some(true) && !fast.blocks.vertices.is_empty());
                }
            }
        }
        assert!(one_signed >= 20, "only {one_signed} one-signed regions");
        assert!(with_blocks >= 1, "no all-rock region with blocks: the test misses the case that once broke");
    }
}
