//! Surface nets through the `fast-surface-nets` crate: the speed baseline, and
//! a polygonizer a recipe may pick per LOD. Smooth rather than sharp: a vertex
//! is the mean of its cell's edge crossings.
//!
//! The crate meshes the window in the region's own frame, so a cell beyond a
//! face edge gets a vertex of the region's face extended past the edge: a real
//! point on the planet, but not bit-identical to the neighbour face's vertex
//! for that cell (dual contouring's vertices are; see `dual_contour.rs`). The
//! overlap strip still closes the seam.

use fast_surface_nets::ndshape::ConstShape3u32;
use fast_surface_nets::{SurfaceNetsBuffer, surface_nets};
use glam::Vec3;

use super::cube_mesh::{CubePart, CubeVertex};
use super::dual_contour::owns_edge;
use super::sky::sky_in_cell;
use crate::geometry::{REGION_CELLS, WINDOW};
use crate::terrain::{ColumnField, Terrain, VoxelGrid};

/// The window as the crate sees it: its x is our layer, y our x, z our y, so
/// that its linear order is the voxel grid's (and the axes keep their handedness).
type Shape = ConstShape3u32<36, 36, 36>;

/// Scratch memory of the surface-nets polygonizer.
#[derive(Debug, Default)]
pub struct SurfaceNetsWorkspace {
    sdf: Vec<f32>,
    buffer: SurfaceNetsBufferBox,
}

/// `SurfaceNetsBuffer` does not implement `Debug`.
#[derive(Default)]
struct SurfaceNetsBufferBox(SurfaceNetsBuffer);

impl std::fmt::Debug for SurfaceNetsBufferBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SurfaceNetsBuffer")
    }
}

/// Meshes `voxels` with surface nets into `out`.
pub fn surface_nets_mesh(
    terrain: &Terrain,
    columns: &ColumnField,
    voxels: &VoxelGrid,
    ws: &mut SurfaceNetsWorkspace,
    out: &mut CubePart,
) {
    out.clear();
    let key = voxels.key;
    let grid = &terrain.grid;
    let n = grid.cells_across(key.lod);
    let origin = (key.x as i32 * REGION_CELLS - 2, key.y as i32 * REGION_CELLS - 2);
    let first_layer = key.z as i32 * REGION_CELLS - 2;
    let interior = origin.0 >= 0 && origin.1 >= 0 && origin.0 + WINDOW as i32 <= n && origin.1 + WINDOW as i32 <= n;
    // The crate's interior is negative: solid.
    ws.sdf.clear();
    ws.sdf.extend(voxels.voxels.iter().map(|v| -f32::from(v.density)));
    let buffer = &mut ws.buffer.0;
    surface_nets(&ws.sdf, &Shape {}, [0; 3], [WINDOW as u32 - 1; 3], buffer);

    let shell_below = grid.shell_below_m;
    for (i, &[x, y, z]) in buffer.surface_points.iter().enumerate() {
        let (c, a, b) = (x as usize, y as usize, z as usize);
        let p = buffer.positions[i];
        let local = Vec3::new(p[1] - a as f32, p[2] - b as f32, p[0] - c as f32);
        let g = buffer.normals[i];
        let normal = Vec3::new(g[1], g[2], g[0]).normalize_or(Vec3::Z);
        let column_base = |i: usize, j: usize| columns.at(a + i, b + j).elevation_m - shell_below;
        let (b0, b1, b2, b3) = (column_base(0, 0), column_base(1, 0), column_base(0, 1), column_base(1, 1));
        let (lx, ly) = (local.x, local.y);
        let base = (b0 * (1.0 - lx) + b1 * lx) * (1.0 - ly) + (b2 * (1.0 - lx) + b3 * lx) * ly;
        let base_slope = [(b1 - b0) * (1.0 - ly) + (b3 - b2) * ly, (b2 - b0) * (1.0 - lx) + (b3 - b1) * lx];
        // Materials of the solid corner nearest the vertex.
        let mut best = (f32::MAX, voxels.at(a, b, c));
        for k in 0..8 {
            let (i, j, l) = (k & 1, (k >> 1) & 1, k >> 2);
            let v = voxels.at(a + i, b + j, c + l);
            let d = Vec3::new(i as f32, j as f32, l as f32).distance_squared(local);
            if v.is_solid() && d < best.0 {
                best = (d, v);
            }
        }
        out.vertices.push(CubeVertex {
            face: key.face,
            cell: [origin.0 + a as i32, origin.1 + b as i32, first_layer + c as i32],
            local,
            base_m: base,
            base_slope,
            smooth_normal: normal,
            face_normal: normal,
            materials: best.1.materials,
            blend: best.1.blend,
            sky: sky_in_cell(voxels, (a, b, c), local),
        });
    }

    // Keep each triangle by the ownership of the edge its quad was made for:
    // the axis along which its three cells agree, at their largest corner.
    let owned = 2..2 + REGION_CELLS as usize;
    let overlap = 1..3 + REGION_CELLS as usize;
    for t in buffer.indices.chunks_exact(3) {
        let cells: [[u32; 3]; 3] = [0, 1, 2].map(|k| buffer.surface_points[t[k] as usize]);
        let Some(axis) = (0..3).find(|&d| cells[0][d] == cells[1][d] && cells[1][d] == cells[2][d]) else { continue };
        let start: [usize; 3] = core::array::from_fn(|d| cells.iter().map(|c| c[d]).max().unwrap_or(0) as usize);
        let (c, a, b) = (start[0], start[1], start[2]);
        if !owned.contains(&c) || !overlap.contains(&a) || !overlap.contains(&b) {
            continue;
        }
        let step = match axis {
            1 => (1, 0),
            2 => (0, 1),
            _ => (0, 0),
        };
        let core = if interior {
            owned.contains(&a) && owned.contains(&b)
        } else {
            owns_edge(grid, key, origin, (a, b), step)
        };
        let target = if core { &mut out.triangles } else { &mut out.overlap };
        target.extend_from_slice(t);
    }
}
