//! The navmesh stage: a region's walkable triangles as navigation polygons.
//!
//! A terrain triangle the region owns is walkable when its slope against the
//! local up (the direction from the planet's centre) is at most
//! `max_slope_deg`, it lies above the sea, and nothing of the region's
//! collider is within `headroom_m` above it. Each polygon knows its
//! neighbour across each edge inside the region; an edge with no walkable
//! neighbour is open, and the engine links open edges to the neighbouring
//! regions' (across region, LOD and cube-face boundaries alike).

use glam::{DVec3, Vec3};
use parry3d::math::Vector;
use parry3d::query::{Ray, RayCast};
use serde::{Deserialize, Serialize};

use super::collider::Collider;
use crate::geometry::RegionKey;
use crate::mesh::SphereMesh;
use crate::recipe::PlanetRecipe;

/// An edge with no walkable neighbour inside the region.
pub const NO_NEIGHBOUR: u32 = u32::MAX;

/// What counts as walkable.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct NavSettings {
    /// Steepest walkable slope, degrees from level.
    pub max_slope_deg: f32,
    /// Free height needed above a walkable triangle, metres.
    pub headroom_m: f32,
    /// Radius of the sea surface from the planet's centre (none without a sea), metres.
    pub sea_radius_m: Option<f32>,
}

impl NavSettings {
    /// The settings for a planet: 40° slopes, 1.8 m of headroom, dry land only.
    #[must_use]
    pub fn for_recipe(recipe: &PlanetRecipe) -> Self {
        Self {
            max_slope_deg: 40.0,
            headroom_m: 1.8,
            sea_radius_m: recipe.sea.enabled.then_some(recipe.radius_m + recipe.sea.level_m),
        }
    }
}

/// A navigation polygon: a walkable triangle, counter-clockwise seen from above.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct NavPolygon {
    /// Its corners, indices into the navmesh's vertices.
    pub vertices: [u32; 3],
    /// The polygon across edge i (corner i to corner i + 1), or `NO_NEIGHBOUR`.
    pub neighbours: [u32; 3],
}

/// A region's navigation polygons.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NavMesh {
    /// The region.
    pub key: RegionKey,
    /// Planet-local origin the vertices are relative to, metres (the mesh's).
    pub origin: DVec3,
    /// Corners of the polygons, relative to `origin`.
    pub vertices: Vec<[f32; 3]>,
    /// The polygons.
    pub polygons: Vec<NavPolygon>,
}

impl NavMesh {
    /// A corner's planet-local position.
    #[must_use]
    pub fn vertex(&self, i: u32) -> DVec3 {
        self.origin + Vec3::from_array(self.vertices[i as usize]).as_dvec3()
    }

    /// A polygon's centre, planet-local.
    #[must_use]
    pub fn centre(&self, polygon: u32) -> DVec3 {
        let p = &self.polygons[polygon as usize];
        (self.vertex(p.vertices[0]) + self.vertex(p.vertices[1]) + self.vertex(p.vertices[2])) / 3.0
    }

    /// Approximate memory held, bytes.
    #[must_use]
    pub fn bytes(&self) -> usize {
        64 + self.vertices.len() * 12 + self.polygons.len() * size_of::<NavPolygon>()
    }

    /// A signature of every vertex and polygon (what determinism tests compare).
    #[must_use]
    pub fn signature(&self) -> crate::Signature {
        let mut bytes = Vec::with_capacity(self.vertices.len() * 12 + self.polygons.len() * 24 + 64);
        bytes.extend_from_slice(&self.origin.to_array().map(f64::to_bits).map(u64::to_le_bytes).concat());
        for v in &self.vertices {
            for c in v {
                bytes.extend_from_slice(&c.to_bits().to_le_bytes());
            }
        }
        for p in &self.polygons {
            for i in p.vertices.iter().chain(&p.neighbours) {
                bytes.extend_from_slice(&i.to_le_bytes());
            }
        }
        crate::Signature::of_bytes("navmesh", &bytes)
    }
}

/// Builds the navmesh of a region from its mesh and its collider (for headroom).
#[must_use]
pub fn navmesh(mesh: &SphereMesh, collider: &Collider, settings: &NavSettings) -> NavMesh {
    let part = &mesh.terrain;
    let position = |i: u32| Vec3::from_array(part.vertices[i as usize].position);
    let min_cos = libm::cosf(settings.max_slope_deg.to_radians());
    let sea2 = settings.sea_radius_m.map(|r| f64::from(r) * f64::from(r));
    let mut remap = vec![u32::MAX; part.vertices.len()];
    let mut vertices: Vec<[f32; 3]> = Vec::new();
    let mut polygons: Vec<NavPolygon> = Vec::new();
    for t in 0..part.indices.len() / 3 {
        let tri = [part.indices.get(3 * t), part.indices.get(3 * t + 1), part.indices.get(3 * t + 2)];
        let [a, b, c] = tri.map(position);
        let cross = (b - a).cross(c - a);
        let area2 = cross.length_squared();
        if area2.is_nan() || area2 <= 1e-12 {
            continue;
        }
        let normal = cross / libm::sqrtf(area2);
        let centre = (a + b + c) / 3.0;
        let planet = mesh.origin + centre.as_dvec3();
        let r2 = planet.length_squared();
        if sea2.is_some_and(|s| r2 < s) {
            continue;
        }
        let up = (planet / libm::sqrt(r2)).as_vec3();
        if normal.dot(up) < min_cos {
            continue;
        }
        if let Some(trimesh) = &collider.mesh {
            let from = centre + up * 0.05;
            let ray = Ray::new(Vector::new(from.x, from.y, from.z), Vector::new(up.x, up.y, up.z));
            if trimesh.cast_local_ray(&ray, settings.headroom_m, false).is_some() {
                continue;
            }
        }
        let corners = tri.map(|i| {
            if remap[i as usize] == u32::MAX {
                remap[i as usize] = vertices.len() as u32;
                vertices.push(part.vertices[i as usize].position);
            }
            remap[i as usize]
        });
        polygons.push(NavPolygon { vertices: corners, neighbours: [NO_NEIGHBOUR; 3] });
    }
    // Neighbours: an edge shared by exactly two polygons (wound opposite ways) links them.
    let mut edges: Vec<(u32, u32, u32, u8)> = Vec::with_capacity(polygons.len() * 3);
    for (p, polygon) in polygons.iter().enumerate() {
        for e in 0..3 {
            let (i, j) = (polygon.vertices[e], polygon.vertices[(e + 1) % 3]);
            edges.push((i.min(j), i.max(j), p as u32, e as u8));
        }
    }
    edges.sort_unstable();
    let mut k = 0;
    while k < edges.len() {
        let mut end = k + 1;
        while end < edges.len() && edges[end].0 == edges[k].0 && edges[end].1 == edges[k].1 {
            end += 1;
        }
        if end - k == 2 {
            let (a, b) = (edges[k], edges[k + 1]);
            polygons[a.2 as usize].neighbours[a.3 as usize] = b.2;
            polygons[b.2 as usize].neighbours[b.3 as usize] = a.2;
        }
        k = end;
    }
    NavMesh { key: mesh.key, origin: mesh.origin, vertices, polygons }
}
