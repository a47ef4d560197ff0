//! Proxy planets: the cheap stand-in drawn for every planet the camera is not
//! streaming (DESIGN.md, "Streaming and jobs"). Per cube face, a grid of
//! columns two voxels high: the bottom voxel at the elevated surface, the top
//! one reaching the terrain (or the sea where the ground is under water). The
//! mesh is that shell's outer surface, from the same `surface_at` fields and
//! ground materials as the streamed regions, so the switch to streamed terrain
//! shows no change of height or colour, only of detail.

use glam::{DVec3, Vec3};

use crate::geometry::{Face, direction};
use crate::mesh::{Indices, MeshPart, Vertex, octahedral_encode};
use crate::terrain::Terrain;

/// Quads along each cube-face edge of a proxy by default: about 18k triangles
/// a planet, a few milliseconds to build.
pub const PROXY_QUADS: u32 = 48;

/// A planet's proxy mesh; positions are planet-local metres (`origin` is the
/// centre), which f32 holds to a millimetre on planets of tens of kilometres.
#[derive(Clone, Debug, PartialEq)]
pub struct ProxyMesh {
    /// The ground (and sea where the ground is under it).
    pub part: MeshPart,
    /// Lowest and highest surface radius, metres.
    pub radius_range_m: [f32; 2],
}

/// Builds the proxy of `terrain` with `quads` quads along each face edge
/// (at least 2).
#[must_use]
pub fn proxy_mesh(terrain: &Terrain, quads: u32) -> ProxyMesh {
    let n = quads.max(2) as usize;
    let recipe = &terrain.recipe;
    let radius = recipe.radius_m;
    let sea = recipe.sea.enabled.then_some(recipe.sea.level_m);
    let side = n + 1;
    let mut vertices = Vec::with_capacity(6 * side * side);
    let mut triangles = Vec::with_capacity(6 * n * n * 6);
    let mut range = [f32::MAX, f32::MIN];
    for face in Face::ALL {
        let first = vertices.len() as u32;
        // Positions first; normals need the neighbours.
        let mut points = Vec::with_capacity(side * side);
        let mut grounds = Vec::with_capacity(side * side);
        for j in 0..side {
            for i in 0..side {
                let (u, v) = (-1.0 + 2.0 * i as f32 / n as f32, -1.0 + 2.0 * j as f32 / n as f32);
                let d = direction(face, u, v);
                let sample = terrain.surface_at(d);
                let (height, ground) = match sea {
                    Some(level) if sample.surface_m < level => (level, ([recipe.sea.material as u8; 2], 0)),
                    _ => (sample.surface_m, (sample.ground.surface, sample.ground.blend)),
                };
                range = [range[0].min(radius + height), range[1].max(radius + height)];
                points.push(d * (radius + height));
                grounds.push(ground);
            }
        }
        for j in 0..side {
            for i in 0..side {
                let at = |a: usize, b: usize| points[b.min(n) * side + a.min(n)];
                let (l, r) = (at(i.saturating_sub(1), j), at(i + 1, j));
                let (d, u) = (at(i, j.saturating_sub(1)), at(i, j + 1));
                let mut normal = (r - l).cross(u - d).normalize_or_zero();
                let outward = points[j * side + i].normalize();
                if normal.dot(outward) < 0.0 {
                    normal = -normal;
                }
                if normal == Vec3::ZERO {
                    normal = outward;
                }
                let (materials, blend) = grounds[j * side + i];
                let encoded = octahedral_encode(normal);
                vertices.push(Vertex {
                    position: points[j * side + i].to_array(),
                    smooth_normal: encoded,
                    face_normal: encoded,
                    materials,
                    blend: crate::mesh::blend_u8(blend),
                    sky: u8::MAX,
                });
            }
        }
        for j in 0..n {
            for i in 0..n {
                let a = first + (j * side + i) as u32;
                let (b, c, d) = (a + 1, a + 1 + side as u32, a + side as u32);
                // Outward winding: counter-clockwise seen from outside on every face.
                triangles.extend_from_slice(&[a, b, c, a, c, d]);
            }
        }
    }
    orient_outward(&vertices, &mut triangles);
    let part =
        MeshPart { indices: Indices::from_u32(&triangles, vertices.len()), vertices, overlap: Indices::default() };
    ProxyMesh { part, radius_range_m: range }
}

/// Flips triangles whose winding faces the planet's centre, so every face of
/// the cube winds the same way whatever its axes' handedness.
fn orient_outward(vertices: &[Vertex], triangles: &mut [u32]) {
    for t in triangles.chunks_exact_mut(3) {
        let p = |i: u32| DVec3::from(Vec3::from_array(vertices[i as usize].position));
        let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
        if (b - a).cross(c - a).dot(a + b + c) < 0.0 {
            t.swap(1, 2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlannedSystem;

    #[test]
    fn proxy_follows_the_terrain_and_is_closed_and_outward() {
        let system = PlannedSystem::default_system();
        for plan in &system.planets {
            let terrain = Terrain::new(plan);
            let proxy = proxy_mesh(&terrain, 16);
            let part = &proxy.part;
            assert_eq!(part.vertices.len(), 6 * 17 * 17);
            assert_eq!(part.indices.len(), 6 * 16 * 16 * 6);
            let radius = terrain.recipe.radius_m;
            let sea = terrain.recipe.sea.enabled.then_some(terrain.recipe.sea.level_m);
            for v in &part.vertices {
                let p = Vec3::from_array(v.position);
                let expected = terrain.surface_at(p.normalize()).surface_m.max(sea.unwrap_or(f32::MIN));
                // The vertex sits at the surface of its own direction (to f32 precision).
                assert!((p.length() - radius - expected).abs() < 0.05, "{} vs {}", p.length() - radius, expected);
            }
            let idx = part.indices.to_u32();
            for t in idx.chunks_exact(3) {
                let p = |i: u32| Vec3::from_array(part.vertices[i as usize].position).as_dvec3();
                let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
                assert!((b - a).cross(c - a).dot(a + b + c) >= 0.0, "inward triangle");
            }
            assert!(proxy.radius_range_m[0] <= proxy.radius_range_m[1]);
        }
    }

    #[test]
    fn proxy_is_deterministic() {
        let plan = &PlannedSystem::default_system().planets[2];
        let terrain = Terrain::new(plan);
        assert_eq!(proxy_mesh(&terrain, 8), proxy_mesh(&terrain, 8));
    }
}
