//! The collider stage: a region's terrain and block triangles, owned and
//! overlap (the sea is not solid), and the trunks and boulders of its
//! scatter and the convex pieces of its buildings (at the LODs a walker
//! stands on), with a bounding volume hierarchy over
//! them (`bvh.rs`), positions relative to the region's origin. `parry3d`
//! answers each triangle's ray cast and shape cast (its `Triangle` shape and
//! `cast_shapes`); the tree only finds the triangles to ask.

use std::cell::Cell;

use glam::{DVec3, Vec3};
use parry3d::math::{Pose, Vector};
use parry3d::query::{Ray, RayCast, ShapeCastHit, ShapeCastOptions, cast_shapes};
use parry3d::shape::{FeatureId, Shape, Triangle};
use serde::{Deserialize, Serialize};

use super::bvh::{Bvh, ray_enters};
use crate::geometry::RegionKey;
use crate::mesh::{Indices, MeshPart, SphereMesh};
use crate::scatter::Scatter;
use crate::scatter::models::ModelSet;

/// A region's collision mesh.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Collider {
    /// The region.
    pub key: RegionKey,
    /// Planet-local origin the mesh is relative to, metres (the mesh's).
    pub origin: DVec3,
    /// Triangle corners, relative to `origin`.
    pub vertices: Vec<[f32; 3]>,
    /// The triangles' corners (three vertex indices a triangle, `u16`
    /// where every vertex can be named so), in the tree's order; none where
    /// the region has no surface.
    pub corners: Indices,
    /// The first vertex of the scatter's solid objects (trunks, boulders):
    /// a triangle whose corners are from here on is an object's, the rest
    /// are the ground's. `vertices.len()` when it holds none.
    pub objects_from: u32,
    /// The tree over the triangles.
    pub bvh: Bvh,
}

/// Where a ray met a collider's triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Distance along the ray (its direction is a unit vector).
    pub distance: f32,
    /// The triangle's unit normal, on the side the ray came from.
    pub normal: Vec3,
    /// Whether the ray met the triangle's outer side (its winding's front).
    pub front: bool,
    /// The triangle, an index into `triangles`.
    pub triangle: u32,
    /// Whether the triangle is a scatter object's (a trunk, a boulder), not the ground's.
    pub object: bool,
}

impl Collider {
    /// A collider of `triangles` over `vertices`, checked (every corner in
    /// range, every coordinate finite) and its tree built (which reorders
    /// the triangles; a collider's own triangles come back in their order).
    pub fn from_parts(
        key: RegionKey,
        origin: DVec3,
        vertices: Vec<[f32; 3]>,
        triangles: Vec<[u32; 3]>,
        objects_from: u32,
    ) -> Result<Self, String> {
        if objects_from as usize > vertices.len() {
            return Err(format!("objects_from = {objects_from}: must be in 0..={} (the vertex count)", vertices.len()));
        }
        if let Some((i, c)) =
            vertices.iter().enumerate().find_map(|(i, v)| v.iter().position(|x| !x.is_finite()).map(|c| (i, c)))
        {
            return Err(format!("vertices[{i}].{} = {:?}: must be finite", ["x", "y", "z"][c], vertices[i][c]));
        }
        let flat = triangles.as_flattened();
        if let Some(i) = flat.iter().position(|&v| v as usize >= vertices.len()) {
            return Err(format!(
                "triangles[{}].vertices[{}] = {}: must be in 0..{} (the vertex count)",
                i / 3,
                i % 3,
                flat[i],
                vertices.len()
            ));
        }
        Ok(Self::with_tree(key, origin, vertices, triangles, objects_from))
    }

    /// Builds the tree over `triangles` (reordering them) and keeps them at
    /// the narrowest width.
    fn with_tree(
        key: RegionKey,
        origin: DVec3,
        vertices: Vec<[f32; 3]>,
        mut triangles: Vec<[u32; 3]>,
        objects_from: u32,
    ) -> Self {
        let bvh = Bvh::build(&vertices, &mut triangles);
        let corners = Indices::from_u32(triangles.as_flattened(), vertices.len());
        Self { key, origin, vertices, corners, objects_from, bvh }
    }

    /// Triangles held.
    #[must_use]
    pub fn triangle_count(&self) -> usize {
        self.corners.len() / 3
    }

    /// Whether it has no triangles (a region without a surface).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.corners.is_empty()
    }

    /// Heap bytes held (the capacities of its vertices, triangles and tree).
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.vertices.capacity() * 12
            + self.corners.heap_bytes()
            + self.bvh.nodes.capacity() * size_of::<super::bvh::BvhNode>()
    }

    /// Trims every buffer to fill its allocator block (`heap::fit_to_block`).
    pub fn fit_to_blocks(&mut self) {
        crate::heap::fit_to_block(&mut self.vertices);
        self.corners.fit_to_block();
        crate::heap::fit_to_block(&mut self.bvh.nodes);
    }

    /// The box holding every triangle, relative to `origin`.
    #[must_use]
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        self.bvh.bounds()
    }

    /// Whether triangle `t` is a scatter object's, not the ground's.
    #[must_use]
    pub fn is_object(&self, t: u32) -> bool {
        self.corners.get(3 * t as usize) >= self.objects_from
    }

    /// Triangle `t`'s corners (vertex indices).
    #[must_use]
    pub fn triangle_corners(&self, t: u32) -> [u32; 3] {
        let i = 3 * t as usize;
        [self.corners.get(i), self.corners.get(i + 1), self.corners.get(i + 2)]
    }

    /// Every triangle's corners, in order.
    pub fn triangles(&self) -> impl Iterator<Item = [u32; 3]> + '_ {
        (0..self.triangle_count() as u32).map(|t| self.triangle_corners(t))
    }

    /// Triangle `t` as `parry3d` takes it.
    #[must_use]
    pub fn triangle(&self, t: u32) -> Triangle {
        let [a, b, c] = self.triangle_corners(t).map(|i| {
            let [x, y, z] = self.vertices[i as usize];
            Vector::new(x, y, z)
        });
        Triangle::new(a, b, c)
    }

    /// A signature of the whole collider, its tree included (what
    /// determinism tests compare); corners count as `u32` at any width.
    #[must_use]
    pub fn signature(&self) -> crate::Signature {
        let mut bytes = Vec::with_capacity(64 + 2 * self.bytes());
        bytes.extend(self.origin.to_array().map(f64::to_bits).map(u64::to_le_bytes).concat());
        bytes.extend(self.vertices.iter().flatten().flat_map(|x| x.to_bits().to_le_bytes()));
        bytes.extend(self.corners.to_u32().iter().flat_map(|i| i.to_le_bytes()));
        bytes.extend(self.objects_from.to_le_bytes());
        let tree = [self.bvh.lo, self.bvh.hi, self.bvh.step];
        bytes.extend(tree.as_flattened().iter().flat_map(|x| x.to_bits().to_le_bytes()));
        bytes.extend(self.bvh.triangles.to_le_bytes());
        for n in &self.bvh.nodes {
            bytes.extend(n.min.iter().chain(&n.max).flat_map(|x| x.to_le_bytes()));
            bytes.extend(n.index.to_le_bytes());
        }
        crate::Signature::of_bytes("collider", &bytes)
    }

    /// The first triangle along the ray from `origin` in unit direction
    /// `dir` (relative to the collider's origin) within `max` metres; either
    /// side of a triangle counts.
    #[must_use]
    pub fn cast_ray(&self, origin: Vec3, dir: Vec3, max: f32) -> Option<RayHit> {
        let ray = Ray::new(Vector::new(origin.x, origin.y, origin.z), Vector::new(dir.x, dir.y, dir.z));
        let inv = dir.recip();
        let best: Cell<Option<RayHit>> = Cell::new(None);
        let limit = || best.get().map_or(max, |b| b.distance);
        self.bvh.visit(
            |lo, hi| ray_enters(origin, inv, limit(), lo, hi),
            |first, count| {
                for t in first..first + count {
                    let Some(hit) = self.triangle(t).cast_local_ray_and_get_normal(&ray, limit(), false) else {
                        continue;
                    };
                    if best.get().is_none_or(|b| hit.time_of_impact < b.distance) {
                        let n = Vec3::new(hit.normal.x, hit.normal.y, hit.normal.z);
                        best.set(Some(RayHit {
                            distance: hit.time_of_impact,
                            normal: if n.dot(dir) > 0.0 { -n } else { n },
                            front: hit.feature == FeatureId::Face(0),
                            triangle: t,
                            object: self.is_object(t),
                        }));
                    }
                }
                true
            },
        );
        best.get()
    }

    /// Sweeps `shape`, centred at `centre` (relative to the collider's
    /// origin; `bound`: a radius holding the shape), through `motion`: the
    /// first contact with a triangle, `parry3d`'s answer for it, and the triangle.
    #[must_use]
    pub fn cast_shape(
        &self,
        centre: Vec3,
        motion: Vec3,
        shape: &dyn Shape,
        bound: f32,
        options: ShapeCastOptions,
    ) -> Option<(ShapeCastHit, u32)> {
        let (lo, hi) = (centre.min(centre + motion) - bound, centre.max(centre + motion) + bound);
        let at = Pose::from_translation(Vector::new(centre.x, centre.y, centre.z));
        let velocity = Vector::new(motion.x, motion.y, motion.z);
        let mut best: Option<(ShapeCastHit, u32)> = None;
        self.bvh.visit(
            |min, max| (min.cmple(hi).all() && max.cmpge(lo).all()).then_some(0.0),
            |first, count| {
                for t in first..first + count {
                    let triangle = self.triangle(t);
                    let hit = cast_shapes(&at, velocity, shape, &Pose::IDENTITY, Vector::ZERO, &triangle, options);
                    if let Ok(Some(hit)) = hit
                        && best.is_none_or(|b| hit.time_of_impact < b.0.time_of_impact)
                    {
                        best = Some((hit, t));
                    }
                }
                true
            },
        );
        best
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

fn add_part(part: &MeshPart, vertices: &mut Vec<[f32; 3]>, triangles: &mut Vec<[u32; 3]>) {
    let base = vertices.len() as u32;
    vertices.extend(part.vertices.iter().map(|v| v.position));
    triangles.extend(solid_triangles(part).map(|tri| tri.map(|i| i + base)));
}

/// Builds the collider of a region's mesh: its terrain and block triangles,
/// owned and overlap (the sea is not solid).
#[must_use]
pub fn collider(mesh: &SphereMesh) -> Collider {
    build(mesh, None)
}

/// The LODs whose colliders hold the scatter's solid objects: those a
/// walker stands on (the engine's `WALK_MAX_LOD`); coarser colliders only
/// say where the ground lies.
pub const SOLID_MAX_LOD: u8 = 1;

/// The collider stage: [`collider`], plus (at LODs up to [`SOLID_MAX_LOD`])
/// the solid part of every object of `scatter` (tree trunks, boulders), as
/// the triangles of their models, and every building's convex pieces
/// (`PlacedBuilding::hulls`), so a walker cannot pass through them and
/// stands on a roof.
#[must_use]
pub fn region_collider(mesh: &SphereMesh, scatter: &Scatter) -> Collider {
    build(mesh, (mesh.key.lod <= SOLID_MAX_LOD).then_some(scatter))
}

fn build(mesh: &SphereMesh, scatter: Option<&Scatter>) -> Collider {
    let mut vertices = Vec::with_capacity(mesh.terrain.vertices.len() + mesh.blocks.vertices.len());
    let mut triangles = Vec::with_capacity(
        (mesh.terrain.indices.len()
            + mesh.terrain.overlap.len()
            + mesh.blocks.indices.len()
            + mesh.blocks.overlap.len())
            / 3,
    );
    add_part(&mesh.terrain, &mut vertices, &mut triangles);
    add_part(&mesh.blocks, &mut vertices, &mut triangles);
    if triangles.is_empty() {
        vertices.clear();
    }
    let objects_from = vertices.len() as u32;
    if let Some(scatter) = scatter {
        let models = ModelSet::shared();
        for object in &scatter.objects {
            for corners in models.solid_triangles(object, scatter.origin) {
                let base = vertices.len() as u32;
                vertices.extend(corners.map(|c| c.to_array()));
                triangles.push([base, base + 1, base + 2]);
            }
        }
        // Buildings: the convex pieces of every one the region reaches.
        for building in &scatter.buildings {
            for piece in building.hulls() {
                let base = vertices.len() as u32;
                vertices.extend(piece.points.iter().map(|p| p.to_array()));
                triangles.extend(piece.triangles.iter().map(|t| t.map(|i| i + base)));
            }
        }
    }
    Collider::with_tree(mesh.key, mesh.origin, vertices, triangles, objects_from)
}
