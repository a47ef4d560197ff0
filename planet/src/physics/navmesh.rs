//! The navmesh stage: a region's walkable ground as convex navigation
//! polygons.
//!
//! A terrain triangle the region owns is walkable when its slope against the
//! local up (the direction from the planet's centre) is at most
//! `max_slope_deg`, it lies above the sea, and nothing of the region's
//! collider is within `headroom_m` above it (tested against the collider's
//! ceilings only, so a triangle buried under a fold of the terrain itself,
//! where the ray starts inside the ground, passes: see `Ceilings`), and it
//! is not inside or against a building's walls (`navmesh_around`).
//!
//! The polygonizer makes a quad of each sign-changing edge and splits it in
//! two triangles, one after the other; where both are walkable the navmesh
//! joins them again into one polygon, if the quad is convex seen from the
//! local up (every corner turning by at least `MIN_TURN_DEG`) and its halves
//! face within `MAX_BEND_DEG` of each other, so it is nearly flat and a
//! point above it lies above one of its halves. That halves the polygons to
//! search; merging further, as Recast does up to six corners, took another
//! tenth off them and made the stage about 30% slower (README, "Physics and
//! navigation"). Each polygon knows its neighbour across each edge inside
//! the region; an edge with no walkable neighbour is open, and the engine
//! links open edges to the neighbouring regions' (across region, LOD and
//! cube-face boundaries alike).

use glam::{DVec3, Vec3};
use parry3d::math::Vector;
use parry3d::query::{Ray, RayCast};
use parry3d::shape::Triangle;
use serde::{Deserialize, Serialize};

use super::collider::{Collider, solid_triangles};
use crate::geometry::RegionKey;
use crate::mesh::SphereMesh;
use crate::recipe::PlanetRecipe;
use crate::settlements::PlacedBuilding;

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

/// The most corners a navigation polygon has: a quad.
pub const MAX_CORNERS: usize = 4;

/// The most the two halves of a quad may face apart, degrees.
pub const MAX_BEND_DEG: f32 = 20.0;

/// The least a quad's corner turns, degrees (seen from the up at its first
/// corner): a corner all but straight would leave a sliver for the funnel,
/// and could turn the other way seen from a neighbouring up.
pub const MIN_TURN_DEG: f32 = 1.0;

/// A navigation polygon, a walkable triangle or quad: convex seen from the
/// up at its first corner (each corner of a quad turning by at least
/// `MIN_TURN_DEG`), its corners counter-clockwise seen from above.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NavPolygon {
    /// How many corners it has, 3..=`MAX_CORNERS`.
    pub count: u32,
    /// Its corners, indices into the navmesh's vertices; `u32::MAX` past `count`.
    pub vertices: [u32; MAX_CORNERS],
    /// The polygon across edge i (corner i to corner i + 1, the last to the
    /// first), or `NO_NEIGHBOUR` (so too past `count`).
    pub neighbours: [u32; MAX_CORNERS],
}

impl NavPolygon {
    /// A polygon of these corners and their neighbours (at most `MAX_CORNERS`).
    #[must_use]
    pub fn new(corners: &[u32], neighbours: &[u32]) -> Self {
        debug_assert!(corners.len() <= MAX_CORNERS && corners.len() == neighbours.len());
        let mut p = Self {
            count: corners.len() as u32,
            vertices: [u32::MAX; MAX_CORNERS],
            neighbours: [NO_NEIGHBOUR; MAX_CORNERS],
        };
        p.vertices[..corners.len()].copy_from_slice(corners);
        p.neighbours[..neighbours.len()].copy_from_slice(neighbours);
        p
    }

    /// Its corners.
    #[must_use]
    pub fn corners(&self) -> &[u32] {
        &self.vertices[..self.count as usize]
    }

    /// The polygon across each edge (`NO_NEIGHBOUR` where none).
    #[must_use]
    pub fn links(&self) -> &[u32] {
        &self.neighbours[..self.count as usize]
    }

    /// Edge i: its two corners, in the polygon's winding.
    #[must_use]
    pub fn edge(&self, i: usize) -> (u32, u32) {
        let n = self.count as usize;
        (self.vertices[i % n], self.vertices[(i + 1) % n])
    }
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

    /// A polygon's centre (the mean of its corners), planet-local.
    #[must_use]
    pub fn centre(&self, polygon: u32) -> DVec3 {
        let p = &self.polygons[polygon as usize];
        p.corners().iter().map(|&i| self.vertex(i)).sum::<DVec3>() / f64::from(p.count)
    }

    /// A polygon's fan triangles (its first corner with each later edge),
    /// planet-local: together they are the polygon.
    pub fn fan(&self, polygon: u32) -> impl Iterator<Item = [DVec3; 3]> + '_ {
        let p = &self.polygons[polygon as usize];
        let first = self.vertex(p.vertices[0]);
        (1..p.count as usize - 1).map(move |i| [first, self.vertex(p.vertices[i]), self.vertex(p.vertices[i + 1])])
    }

    /// Heap bytes held (the capacities of its vertices and polygons).
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.vertices.capacity() * 12 + self.polygons.capacity() * size_of::<NavPolygon>()
    }

    /// Trims every buffer to fill its allocator block (`heap::fit_to_block`).
    pub fn fit_to_blocks(&mut self) {
        crate::heap::fit_to_block(&mut self.vertices);
        crate::heap::fit_to_block(&mut self.polygons);
    }

    /// A signature of every vertex and polygon (what determinism tests compare).
    #[must_use]
    pub fn signature(&self) -> crate::Signature {
        let mut bytes =
            Vec::with_capacity(self.vertices.len() * 12 + self.polygons.len() * size_of::<NavPolygon>() + 64);
        bytes.extend_from_slice(&self.origin.to_array().map(f64::to_bits).map(u64::to_le_bytes).concat());
        for v in &self.vertices {
            for c in v {
                bytes.extend_from_slice(&c.to_bits().to_le_bytes());
            }
        }
        for p in &self.polygons {
            for i in std::iter::once(&p.count).chain(&p.vertices).chain(&p.neighbours) {
                bytes.extend_from_slice(&i.to_le_bytes());
            }
        }
        crate::Signature::of_bytes("navmesh", &bytes)
    }
}

/// Builds the navmesh of a region from its mesh and its collider (for headroom).
#[must_use]
pub fn navmesh(mesh: &SphereMesh, collider: &Collider, settings: &NavSettings) -> NavMesh {
    navmesh_around(mesh, collider, settings, &[])
}

/// How close to a building's walls the navmesh comes, metres: a walker's
/// half-width, so a path along a wall does not scrape it.
pub const WALL_CLEARANCE_M: f32 = 0.4;

/// [`navmesh`], less the ground inside or within [`WALL_CLEARANCE_M`] of a
/// building's walls (the region's and its neighbours' that reach it): paths
/// go around buildings, not through them.
#[must_use]
pub fn navmesh_around(
    mesh: &SphereMesh,
    collider: &Collider,
    settings: &NavSettings,
    buildings: &[PlacedBuilding],
) -> NavMesh {
    // Built on the first triangle that needs a headroom ray: a region with
    // nothing walkable (a sea floor) pays nothing for it.
    let mut ceilings: Option<Option<Ceilings>> = None;
    walkable(mesh, settings, |from, up| {
        if buildings.iter().any(|b| b.contains(from, WALL_CLEARANCE_M)) {
            return true;
        }
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
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    // Each walkable triangle's normal times twice its area.
    let mut facings: Vec<Vec3> = Vec::new();
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
        triangles.push(tri.map(|i| {
            if remap[i as usize] == u32::MAX {
                remap[i as usize] = vertices.len() as u32;
                vertices.push(part.vertices[i as usize].position);
            }
            remap[i as usize]
        }));
        facings.push(cross);
    }
    let across = link_neighbours(&triangles, vertices.len());
    let polygons = merge(&vertices, &triangles, &across, &facings, mesh.origin);
    NavMesh { key: mesh.key, origin: mesh.origin, vertices, polygons }
}

/// The triangle across each edge of each triangle (edge i: corner i to
/// corner i + 1), or `NO_NEIGHBOUR`: an edge shared by exactly two triangles
/// links them.
///
/// The edges are bucketed by their lower corner (a counting sort, linear
/// where sorting every edge was a fifth of the stage); a bucket holds the
/// few edges around one corner, in triangle order, so the links do not
/// depend on anything but the triangles.
fn link_neighbours(triangles: &[[u32; 3]], vertex_count: usize) -> Vec<[u32; 3]> {
    let edge = |t: &[u32; 3], e: usize| {
        let (i, j) = (t[e], t[(e + 1) % 3]);
        (i.min(j), i.max(j))
    };
    let mut start = vec![0u32; vertex_count + 1];
    for t in triangles {
        for e in 0..3 {
            start[edge(t, e).0 as usize + 1] += 1;
        }
    }
    for i in 0..vertex_count {
        start[i + 1] += start[i];
    }
    // (upper corner, triangle, edge) per bucket.
    let mut slots = vec![(0u32, 0u32, 0u8); triangles.len() * 3];
    let mut fill = start.clone();
    for (t, triangle) in triangles.iter().enumerate() {
        for e in 0..3 {
            let (lo, hi) = edge(triangle, e);
            slots[fill[lo as usize] as usize] = (hi, t as u32, e as u8);
            fill[lo as usize] += 1;
        }
    }
    let mut across = vec![[NO_NEIGHBOUR; 3]; triangles.len()];
    for v in 0..vertex_count {
        let bucket = &slots[start[v] as usize..start[v + 1] as usize];
        for (k, &(hi, t, e)) in bucket.iter().enumerate() {
            let mut same = bucket.iter().enumerate().filter(|&(l, s)| l != k && s.0 == hi);
            if let (Some((_, other)), None) = (same.next(), same.next()) {
                across[t as usize][e as usize] = other.1;
            }
        }
    }
    across
}

/// Joins each pair of walkable triangles that came from one quad of the
/// polygonizer (one after the other, sharing an edge: their corners relative
/// to `origin`) into that quad where `quad` allows it; the rest stay
/// triangles. Links go to the polygons' indices.
fn merge(
    vertices: &[[f32; 3]],
    triangles: &[[u32; 3]],
    across: &[[u32; 3]],
    facings: &[Vec3],
    origin: DVec3,
) -> Vec<NavPolygon> {
    let pairs = Pairs {
        vertices,
        triangles,
        across,
        facings,
        origin,
        min_cos: libm::cosf(MAX_BEND_DEG.to_radians()),
        min_sin: libm::sinf(MIN_TURN_DEG.to_radians()),
    };
    // Polygons linked to triangles first, then to the polygons holding them.
    let mut polygons: Vec<NavPolygon> = Vec::with_capacity(triangles.len());
    let mut polygon_of = vec![0u32; triangles.len()];
    let mut t = 0;
    while t < triangles.len() {
        polygon_of[t] = polygons.len() as u32;
        if let Some((corners, links)) = pairs.quad(t) {
            polygon_of[t + 1] = polygons.len() as u32;
            polygons.push(NavPolygon::new(&corners, &links));
            t += 2;
        } else {
            polygons.push(NavPolygon::new(&triangles[t], &across[t]));
            t += 1;
        }
    }
    for p in &mut polygons {
        for link in p.neighbours.iter_mut().filter(|l| **l != NO_NEIGHBOUR) {
            *link = polygon_of[*link as usize];
        }
    }
    polygons
}

/// The walkable triangles, what `merge` reads to join pairs of them.
struct Pairs<'a> {
    vertices: &'a [[f32; 3]],
    triangles: &'a [[u32; 3]],
    across: &'a [[u32; 3]],
    facings: &'a [Vec3],
    origin: DVec3,
    /// The cosine of `MAX_BEND_DEG` and the sine of `MIN_TURN_DEG`.
    min_cos: f32,
    min_sin: f32,
}

impl Pairs<'_> {
    fn point(&self, i: u32) -> Vec3 {
        Vec3::from_array(self.vertices[i as usize])
    }

    /// Triangle `a` and the next one, where they share an edge, as one quad
    /// (its corners and the triangle across each edge), if they face within
    /// `MAX_BEND_DEG` of each other and the quad is convex seen from the up
    /// at its first corner, each corner turning left by at least
    /// `MIN_TURN_DEG`.
    fn quad(&self, a: usize) -> Option<([u32; MAX_CORNERS], [u32; MAX_CORNERS])> {
        let b = a + 1;
        // Only a triangle that exists is ever across an edge.
        let k = (0..3).find(|&k| self.across[a][k] == b as u32)?;
        let (fa, fb) = (self.facings[a], self.facings[b]);
        let cos = fa.dot(fb);
        if cos <= 0.0 || cos * cos < self.min_cos * self.min_cos * fa.length_squared() * fb.length_squared() {
            return None;
        }
        let (ta, tb) = (self.triangles[a], self.triangles[b]);
        let (from, to) = (ta[k], ta[(k + 1) % 3]);
        let m = (0..3).find(|&m| tb[m] == to && tb[(m + 1) % 3] == from)?;
        // From the shared edge's far end round `a` to its near end, then on
        // round `b`: `to`, `a`'s third corner, `from`, `b`'s third corner.
        let corners = [to, ta[(k + 2) % 3], from, tb[(m + 2) % 3]];
        let (across_a, across_b) = (self.across[a], self.across[b]);
        let links = [across_a[(k + 1) % 3], across_a[(k + 2) % 3], across_b[(m + 1) % 3], across_b[(m + 2) % 3]];
        let up = (self.origin.as_vec3() + self.point(to)).normalize();
        let min_sin2 = self.min_sin * self.min_sin;
        let convex = (0..4).all(|i| {
            let [p, q, r] = [i + 3, i, i + 1].map(|j| self.point(corners[j % 4]));
            let (u, v) = (q - p, r - q);
            let turn = u.cross(v).dot(up);
            turn > 0.0 && turn * turn > min_sin2 * u.length_squared() * v.length_squared()
        });
        convex.then_some((corners, links))
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
    /// `headroom` metres: the collider's answer (`Collider::cast_ray`,
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

    use glam::DVec3;

    use super::{Ceilings, MAX_CORNERS, NO_NEIGHBOUR, NavSettings, link_neighbours, merge, walkable};
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
                let triangles = |n: &super::NavMesh| n.polygons.iter().map(|p| p.count as usize - 2).sum::<usize>();
                roofed += triangles(&walkable(&mesh, &settings, |_, _| false)) - triangles(&fast);
            }
        }
        assert!(roofed > 0, "no polygon lost its headroom: the test meets no ceiling");
        assert!(buried * 1000 < rays, "{buried} of {rays} rays start inside the terrain");
    }

    /// Merged: triangles on the plane y = 0, seen from +y.
    fn merged(vertices: &[[f32; 3]], triangles: &[[u32; 3]]) -> Vec<super::NavPolygon> {
        let point = |i: u32| Vec3::from_array(vertices[i as usize]);
        let facings: Vec<Vec3> =
            triangles.iter().map(|t| (point(t[1]) - point(t[0])).cross(point(t[2]) - point(t[0]))).collect();
        assert!(facings.iter().all(|f| f.y > 0.0), "the triangles face up");
        let across = link_neighbours(triangles, vertices.len());
        merge(vertices, triangles, &across, &facings, DVec3::new(0.0, 4000.0, 0.0))
    }

    fn area(vertices: &[[f32; 3]], corners: &[u32]) -> f32 {
        let p = |i: u32| Vec3::from_array(vertices[i as usize]);
        (1..corners.len() - 1)
            .map(|i| (p(corners[i]) - p(corners[0])).cross(p(corners[i + 1]) - p(corners[0])).length() * 0.5)
            .sum()
    }

    #[test]
    fn quads_split_by_the_polygonizer_are_joined_where_convex_and_flat() {
        // A flat grid of 6 x 6 unit cells, each two triangles one after the
        // other, as the polygonizer makes them: each cell becomes one square.
        let n = 6u32;
        let vertices: Vec<[f32; 3]> = (0..=n).flat_map(|z| (0..=n).map(move |x| [x as f32, 0.0, z as f32])).collect();
        let at = |x: u32, z: u32| z * (n + 1) + x;
        // Counter-clockwise seen from +y.
        let triangles: Vec<[u32; 3]> = (0..n)
            .flat_map(|z| (0..n).map(move |x| (x, z)))
            .flat_map(|(x, z)| [[at(x, z), at(x, z + 1), at(x + 1, z + 1)], [at(x, z), at(x + 1, z + 1), at(x + 1, z)]])
            .collect();
        let polygons = merged(&vertices, &triangles);
        assert_eq!(polygons.len(), 36);
        assert!(polygons.iter().all(|p| p.count == 4 && (area(&vertices, p.corners()) - 1.0).abs() < 1e-5));
        // Inner edges link both ways; the grid's rim is open.
        let open = polygons.iter().flat_map(|p| p.links()).filter(|&&l| l == NO_NEIGHBOUR).count();
        assert_eq!(open, 4 * 6);
        for (i, p) in polygons.iter().enumerate() {
            for (e, &l) in p.links().iter().enumerate() {
                if l != NO_NEIGHBOUR {
                    let (a, b) = p.edge(e);
                    let other = &polygons[l as usize];
                    let k = (0..other.count as usize).find(|&k| other.edge(k) == (b, a)).unwrap();
                    assert_eq!(other.links()[k] as usize, i);
                }
            }
        }

        // A unit square folded along its diagonal: joined while the fold is
        // within `MAX_BEND_DEG`, two triangles past it.
        for (bend, count) in [(0.0f32, 1), (10.0, 1), (19.0, 1), (21.0, 2), (30.0, 2)] {
            let drop = libm::tanf(bend.to_radians()) / std::f32::consts::SQRT_2;
            let vertices = [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [1.0, -drop, 0.0]];
            let polygons = merged(&vertices, &[[0, 1, 2], [0, 2, 3]]);
            assert_eq!(polygons.len(), count, "folded by {bend}°");
            let total: f32 = polygons.iter().map(|p| area(&vertices, p.corners())).sum();
            assert!(total >= 1.0 - 1e-5, "folded by {bend}°: area {total}");
        }

        // A quad concave at a corner, or with a corner all but straight
        // (under `MIN_TURN_DEG`), stays two triangles; one turning by 3°
        // is joined. The fourth corner moves, the first three are fixed.
        for (x, z, count) in [(1.0, 0.0, 1), (2.0, 1.2, 2), (2.0, 0.99, 2), (2.0, 0.95, 1)] {
            let vertices = [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [x, 0.0, z]];
            let polygons = merged(&vertices, &[[0, 1, 2], [0, 2, 3]]);
            assert_eq!(polygons.len(), count, "fourth corner at {x}, {z}");
            assert!(polygons.iter().all(|p| p.count as usize <= MAX_CORNERS));
        }
        // Two triangles one after the other that share no edge stay apart.
        let vertices =
            [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [5.0, 0.0, 0.0], [5.0, 0.0, 1.0], [6.0, 0.0, 1.0]];
        assert_eq!(merged(&vertices, &[[0, 1, 2], [3, 4, 5]]).len(), 2);
    }
}
