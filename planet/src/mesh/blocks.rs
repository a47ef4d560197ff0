//! The cube polygonizer: block faces for resource voxels, between a solid
//! voxel of a resource material and anything that is not the same, the way a
//! block game would draw them. Vertex-heavy but cheap, so it runs only for
//! regions near the camera (LOD up to the recipe's `cube_resources_max_lod`).
//! A block is the cube of one cell centred on its sample; a region draws the
//! blocks of its own 32³ samples.

use glam::Vec3;

use super::cube_mesh::{CubePart, CubeVertex};
use super::sky::sky_of_cover;
use crate::geometry::{REGION_CELLS, WINDOW};
use crate::terrain::{COVER_PER_M, ColumnField, Terrain, VoxelGrid};

/// The six block faces: outward normal and its four corners (offsets from the
/// sample, in half cells), counter-clockwise seen from outside.
const FACES: [([i32; 3], [[i32; 3]; 4]); 6] = [
    ([1, 0, 0], [[1, -1, -1], [1, 1, -1], [1, 1, 1], [1, -1, 1]]),
    ([-1, 0, 0], [[-1, -1, -1], [-1, -1, 1], [-1, 1, 1], [-1, 1, -1]]),
    ([0, 1, 0], [[-1, 1, -1], [-1, 1, 1], [1, 1, 1], [1, 1, -1]]),
    ([0, -1, 0], [[-1, -1, -1], [1, -1, -1], [1, -1, 1], [-1, -1, 1]]),
    ([0, 0, 1], [[-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]]),
    ([0, 0, -1], [[-1, -1, -1], [-1, 1, -1], [1, 1, -1], [1, -1, -1]]),
];

/// Block faces of the resource voxels among the region's own samples, into `out`.
pub fn blocks(terrain: &Terrain, columns: &ColumnField, voxels: &VoxelGrid, out: &mut CubePart) {
    out.clear();
    let resources: Vec<u8> = terrain.recipe.resources.iter().map(|r| r.material as u8).collect();
    if resources.is_empty() {
        return;
    }
    let key = voxels.key;
    let origin = (key.x as i32 * REGION_CELLS - 2, key.y as i32 * REGION_CELLS - 2);
    let first_layer = key.z as i32 * REGION_CELLS - 2;
    let shell_below = terrain.grid.shell_below_m;
    let own = 2..2 + REGION_CELLS as usize;
    for b in own.clone() {
        for a in own.clone() {
            for c in own.clone() {
                let v = voxels.at(a, b, c);
                if !v.is_solid() || !resources.contains(&v.materials[0]) {
                    continue;
                }
                for (normal, corners) in FACES {
                    let (na, nb, nc) = (a as i32 + normal[0], b as i32 + normal[1], c as i32 + normal[2]);
                    let inside = |i: i32| (0..WINDOW as i32).contains(&i);
                    if inside(na) && inside(nb) && inside(nc) {
                        let w = voxels.at(na as usize, nb as usize, nc as usize);
                        if w.is_solid() && w.materials[0] == v.materials[0] {
                            continue; // hidden between two blocks of one resource
                        }
                    }
                    let first = out.vertices.len() as u32;
                    // A block is lit as the cover of its own sample says.
                    let sky = sky_of_cover(f32::from(voxels.cover_at(a, b, c)) / COVER_PER_M);
                    let n = Vec3::new(normal[0] as f32, normal[1] as f32, normal[2] as f32);
                    for h in corners {
                        // The corner, in cells of the region's frame.
                        let p = Vec3::new(a as f32, b as f32, c as f32)
                            + Vec3::new(h[0] as f32, h[1] as f32, h[2] as f32) * 0.5;
                        let cell = p.floor();
                        let local = p - cell;
                        // Layer-0 height: bilinear over the four columns around the corner.
                        let (ca, cb) = (cell.x as usize, cell.y as usize);
                        let base = |i: usize, j: usize| {
                            columns.at((ca + i).min(WINDOW - 1), (cb + j).min(WINDOW - 1)).elevation_m - shell_below
                        };
                        let (b0, b1, b2, b3) = (base(0, 0), base(1, 0), base(0, 1), base(1, 1));
                        let (lx, ly) = (local.x, local.y);
                        out.vertices.push(CubeVertex {
                            face: key.face,
                            cell: [origin.0 + ca as i32, origin.1 + cb as i32, first_layer + cell.z as i32],
                            local,
                            base_m: (b0 * (1.0 - lx) + b1 * lx) * (1.0 - ly) + (b2 * (1.0 - lx) + b3 * lx) * ly,
                            base_slope: [
                                (b1 - b0) * (1.0 - ly) + (b3 - b2) * ly,
                                (b2 - b0) * (1.0 - lx) + (b3 - b1) * lx,
                            ],
                            smooth_normal: n,
                            face_normal: n,
                            materials: [v.materials[0]; 2],
                            blend: 0,
                            sky,
                        });
                    }
                    out.triangles.extend_from_slice(&[first, first + 1, first + 2, first, first + 2, first + 3]);
                }
            }
        }
    }
}
