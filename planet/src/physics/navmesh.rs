//! The navmesh stage: a region's walkable triangles as navigation polygons.
//!
//! A terrain triangle the region owns is walkable when its slope against the
//! local up (the direction from the planet's centre) is at most
//! `max_slope_deg`, it lies above the sea, and nothing of the region's
//! collider is within `headroom_m` above it (tested against the collider's
//! ceilings only, so a triangle buried under a fold of the terrain itself,
//! where the ray starts inside the ground, passes: see `Ceilings`). Each
//! polygon knows its neighbour across each edge inside the region; an edge
//! with no walkable neighbour is open, and the engine links open edges to
//! the neighbouring regions' (across region, LOD and cube-face boundaries
//! alike).

use glam::{DVec3, Vec3};
use parry3d::math::Vector;
use parry3d::query::{Ray, RayCast};
use parry3d::shape::Triangle;
use serde::{Deserialize, Serialize};

use super::collider::{Collider, solid_triangles};
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
    // Built on the first triangle that needs a headroom ray: a region with
    // nothing walkable (a sea floor) pays nothing for it.
    let mut ceilings: Option<Option<Ceilings>> = None;
    walkable(mesh, settings, |from, up| {
        let ceilings = ceilings.get_or_insert_with(|| Ceilings::new(mesh, collider));
        ceilings.as_ref().is_some_and(|c| c.blocks(from, up, settings.headroom_m))
    })
}

/// The navmesh of the triangles that are walkable but for headroom, less
/// those where `blocked(from, up)` (a headroom ray from `from` along `up`).
fn walkable(mesh: &SphereMesh, settings: &NavSettings, mut blocked: impl FnMut(Vec3, Vec3) -> bool) -> NavMesh {
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
        if blocked(centre + up * 0.05, up) {
            continue;
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
    link_neighbours(&mut polygons, vertices.len());
    NavMesh { key: mesh.key, origin: mesh.origin, vertices, polygons }
}

/// Links the polygons across their shared edges: an edge shared by exactly
/// two polygons (wound opposite ways) links them.
///
/// The edges are bucketed by their lower corner (a counting sort, linear
/// where sorting every edge was a fifth of the stage); a bucket holds the
/// few edges around one corner, in polygon order, so the links do not
/// depend on anything but the polygons.
fn link_neighbours(polygons: &mut [NavPolygon], vertex_count: usize) {
    let edge = |p: &NavPolygon, e: usize| {
        let (i, j) = (p.vertices[e], p.vertices[(e + 1) % 3]);
        (i.min(j), i.max(j))
    };
    let mut start = vec![0u32; vertex_count + 1];
    for p in polygons.iter() {
        for e in 0..3 {
            start[edge(p, e).0 as usize + 1] += 1;
        }
    }
    for i in 0..vertex_count {
        start[i + 1] += start[i];
    }
    // (upper corner, polygon, edge) per bucket.
    let mut slots = vec![(0u32, 0u32, 0u8); polygons.len() * 3];
    let mut fill = start.clone();
    for (p, polygon) in polygons.iter().enumerate() {
        for e in 0..3 {
            let (lo, hi) = edge(polygon, e);
            slots[fill[lo as usize] as usize] = (hi, p as u32, e as u8);
            fill[lo as usize] += 1;
        }
    }
    for v in 0..vertex_count {
        let bucket = &slots[start[v] as usize..start[v + 1] as usize];
        for (k, &(hi, p, e)) in bucket.iter().enumerate() {
            let mut same = bucket.iter().enumerate().filter(|&(l, s)| l != k && s.0 == hi);
            if let (Some((_, other)), None) = (same.next(), same.next()) {
                polygons[p as usize].neighbours[e as usize] = other.1;
            }
        }
    }
}

/// What a headroom ray can meet first: the terrain triangles of the collider
/// that face down or sideways and every block triangle, in a grid across
/// the region's up.
///
/// A ray cast up from the air just above a walkable triangle can only first
/// meet a surface it enters the solid through, one that faces against it (a
/// cave's ceiling, an overhang): those are few on open ground, none on most
/// of it, so a ray tests a handful of triangles instead of the collider's
/// BVH. Blocks are solids of their own that the terrain runs through, so a
/// ray that starts inside one meets its top from below: they all count. The
/// one difference from the whole collider: a ray that starts inside the
/// terrain, under a fold of its surface (a few in a hundred thousand
/// triangles), meets the fold's upper sheet from below and is not stopped.
struct Ceilings {
    /// The region's up and two directions across it (the grid's axes).
    frame: [Vec3; 3],
    /// Grid origin and cells per metre across the up, and cells per side.
    lo: [f32; 2],
    per_m: [f32; 2],
    cells: [usize; 2],
    /// The triangles of each cell: `items[start[c]..start[c + 1]]`.
    start: Vec<u32>,
    items: Vec<u32>,
    /// The candidate triangles and their bounds in the frame (padded).
    triangles: Vec<(Triangle, Vec3, Vec3)>,
}

impl Ceilings {
    /// Padding of the bounds, metres, and per metre from the origin: far
    /// above the rounding of the frame's projections, so the grid never
    /// drops a triangle the exact test hits.
    const PAD: f32 = 0.01;
    const PAD_PER_M: f32 = 1e-5;
    /// Margin on the facing test (normal · up), beyond the spread of the
    /// region's ups: rounding, and rays that start a hair inside a fold.
    const MARGIN: f32 = 0.1;

    /// The candidates among the collider's triangles (the mesh's terrain and
    /// blocks, as [`collider`](super::collider) takes them); `None` where
    /// there are none.
    fn new(mesh: &SphereMesh, collider: &Collider) -> Option<Self> {
        let (mins, maxs) = collider.bounds()?;
        let centre = collider.origin + ((mins + maxs) * 0.5).as_dvec3();
        let half = f64::from((maxs - mins).length()) * 0.5;
        let pad = Vec3::splat(Self::PAD.max(mins.abs().max(maxs.abs()).length() * Self::PAD_PER_M));
        let r = centre.length();
        // A ray's up is within ψ of the region centre's, sin ψ ≤ h / (r − h)
        // (h: half the bounds' diagonal), so a triangle it meets face on has
        // normal · up ≤ sin ψ there; a region that is not small against the
        // planet keeps every triangle.
        let limit = if r > 2.0 * half { (half / (r - half)) as f32 + Self::MARGIN } else { f32::INFINITY };
        let up = (centre / r).as_vec3();
        let (across_a, across_b) = up.any_orthonormal_pair();
        let frame = [across_a, across_b, up];
        let to_frame = |v: Vec3| Vec3::new(v.dot(frame[0]), v.dot(frame[1]), v.dot(frame[2]));
        let mut triangles = Vec::new();
        for (part, every) in [(&mesh.terrain, false), (&mesh.blocks, true)] {
            let position = |i: u32| Vec3::from_array(part.vertices[i as usize].position);
            for tri in solid_triangles(part) {
                let [a, b, c] = tri.map(position);
                let normal = (b - a).cross(c - a);
                if !every && normal.dot(up) > limit * libm::sqrtf(normal.length_squared()) {
                    continue;
                }
                let [fa, fb, fc] = [a, b, c].map(to_frame);
                let (lo, hi) = (fa.min(fb).min(fc) - pad, fa.max(fb).max(fc) + pad);
                let parry = |v: Vec3| Vector::new(v.x, v.y, v.z);
                triangles.push((Triangle::new(parry(a), parry(b), parry(c)), lo, hi));
            }
        }
        if triangles.is_empty() {
            return None;
        }
        // About one triangle per cell.
        let (lo, hi) =
            triangles.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(l, h), t| (l.min(t.1), h.max(t.2)));
        let side = (libm::sqrtf(triangles.len() as f32) as usize).clamp(1, 64);
        let cells = [side, side];
        let per_m = [0, 1].map(|k| if hi[k] > lo[k] { side as f32 / (hi[k] - lo[k]) } else { 0.0 });
        let mut ceilings = Self {
            frame,
            lo: [lo.x, lo.y],
            per_m,
            cells,
            start: vec![0; side * side + 1],
            items: Vec::new(),
            triangles,
        };
        for t in 0..ceilings.triangles.len() {
            let (_, lo, hi) = ceilings.triangles[t];
            let ([x0, x1], [y0, y1]) = ceilings.cell_range(lo, hi);
            for y in y0..=y1 {
                for x in x0..=x1 {
                    ceilings.start[y * side + x + 1] += 1;
                }
            }
        }
        for c in 0..side * side {
            ceilings.start[c + 1] += ceilings.start[c];
        }
        let mut fill = ceilings.start.clone();
        ceilings.items = vec![0; ceilings.start[side * side] as usize];
        for t in 0..ceilings.triangles.len() {
            let (_, lo, hi) = ceilings.triangles[t];
            let ([x0, x1], [y0, y1]) = ceilings.cell_range(lo, hi);
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let c = y * side + x;
                    ceilings.items[fill[c] as usize] = t as u32;
                    fill[c] += 1;
                }
            }
        }
        Some(ceilings)
    }

    /// The cells, x and y inclusive ranges, that bounds in the frame overlap.
    fn cell_range(&self, lo: Vec3, hi: Vec3) -> ([usize; 2], [usize; 2]) {
        let cell = |k: usize, v: f32| {
            // Saturating: NaN and what lies outside go to the edge cells.
            let c = ((v - self.lo[k]) * self.per_m[k]) as usize;
            c.min(self.cells[k] - 1)
        };
        ([cell(0, lo.x), cell(0, hi.x)], [cell(1, lo.y), cell(1, hi.y)])
    }

    /// Whether a ray from `from` along `up` meets a triangle closer than
    /// `headroom` metres: the collider's answer (`TriMesh::cast_local_ray`,
    /// hollow, strictly closer) for a ray that starts in the air.
    fn blocks(&self, from: Vec3, up: Vec3, headroom: f32) -> bool {
        let to_frame = |v: Vec3| Vec3::new(v.dot(self.frame[0]), v.dot(self.frame[1]), v.dot(self.frame[2]));
        let (a, b) = (to_frame(from), to_frame(from + up * headroom));
        let (lo, hi) = (a.min(b), a.max(b));
        let ray = Ray::new(Vector::new(from.x, from.y, from.z), Vector::new(up.x, up.y, up.z));
        let ([x0, x1], [y0, y1]) = self.cell_range(lo, hi);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let c = y * self.cells[0] + x;
                for &t in &self.items[self.start[c] as usize..self.start[c + 1] as usize] {
                    let (triangle, tlo, thi) = &self.triangles[t as usize];
                    if tlo.cmple(hi).all()
                        && thi.cmpge(lo).all()
                        && triangle.cast_local_ray(&ray, headroom, false).is_some_and(|toi| toi < headroom)
                    {
                        return true;
                    }
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use parry3d::math::Vector;
    use parry3d::query::{Ray, RayCast};

    use super::{Ceilings, NavSettings, walkable};
    use crate::PlannedSystem;
    use crate::mesh::{MeshWorkspace, polygonize, spherify};
    use crate::physics::{collider, navmesh};
    use crate::terrain::{Terrain, lat_lon_direction};

    /// Headroom against the ceilings is headroom against the whole collider
    /// on open ground, cliffs, caves and blocks, at several LODs, but where
    /// the ray starts inside the terrain (a fold of the surface over the
    /// triangle, whose first hit is a back face); and caves' ceilings do take
    /// polygons away.
    #[test]
    fn headroom_against_the_ceilings_is_headroom_against_the_collider() {
        let system = PlannedSystem::default_system();
        let mut ws = MeshWorkspace::default();
        let (mut rays, mut roofed, mut buried) = (0, 0, 0);
        for planet in [1, 3] {
            let t = Terrain::new(&system.planets[planet]);
            let settings = NavSettings::for_recipe(&t.recipe);
            let headroom = settings.headroom_m;
            let mut directions: Vec<Vec3> = [(43.5, -179.5), (-15.0, 0.0), (20.0, 30.0), (10.0, 10.0), (2.0, -15.0)]
                .map(|(lat, lon)| lat_lon_direction(lat, lon))
                .to_vec();
            let centre = lat_lon_direction(20.0, 30.0) * t.grid.radius_m;
            let mouths = t.cave_mouths_near(centre - Vec3::splat(800.0), centre + Vec3::splat(800.0));
            directions.extend(mouths.iter().map(|m| ((m.a + m.b) * 0.5).normalize()));
            let mut keys: Vec<_> =
                directions.iter().flat_map(|&d| [0, 1, 4].map(|lod| t.surface_key(d, lod))).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let columns = t.columns(key);
                let voxels = t.voxels(&columns);
                let mesh = spherify(&t.grid, &polygonize(&t, &columns, &voxels, &mut ws));
                let col = collider(&mesh);
                let ceilings = Ceilings::new(&mesh, &col);
                let fast = walkable(&mesh, &settings, |from, up| {
                    let ray = Ray::new(Vector::new(from.x, from.y, from.z), Vector::new(up.x, up.y, up.z));
                    let every = col.cast_ray(from, up, headroom).is_some();
                    let ours = ceilings.as_ref().is_some_and(|c| c.blocks(from, up, headroom));
                    rays += 1;
                    if ours != every {
                        // The ceilings only hold the collider's triangles:
                        // what they meet, it meets.
                        assert!(every, "{key}: a ceiling where the collider has none");
                        let first = (0..col.triangle_count() as u32).map(|t| col.triangle(t)).filter_map(|tri| {
                            let toi = tri.cast_local_ray(&ray, headroom, false)?;
                            Some((toi, tri.normal()?.dot(ray.dir)))
                        });
                        let (_, facing) = first.min_by(|a, b| a.0.total_cmp(&b.0)).unwrap();
                        assert!(facing > 0.0, "{key}: a ray from the air first meets a triangle the ceilings miss");
                        buried += 1;
                    }
                    ours
                });
                assert_eq!(navmesh(&mesh, &col, &settings), fast, "{key}");
                roofed += walkable(&mesh, &settings, |_, _| false).polygons.len() - fast.polygons.len();
            }
        }
        assert!(roofed > 0, "no polygon lost its headroom: the test meets no ceiling");
        assert!(buried * 1000 < rays, "{buried} of {rays} rays start inside the terrain");
    }
}
