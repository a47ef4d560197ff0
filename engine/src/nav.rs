//! Navigation over the ready regions of a planet: each region's navmesh
//! (`planet::physics::NavMesh`, built off the main thread with the region)
//! stitched into one polygon graph, and path queries on it.
//!
//! Polygons link to their neighbours inside their region (the navmesh stage
//! found those), and open edges link across regions: edges whose corners are
//! the same f32 planet-local points join (neighbouring regions at one LOD
//! share their boundary vertices bit for bit), and edges left over that lie
//! along one another join between regions of different LODs or faces (the
//! meshes of two faces need not share corners along their edge). A path is
//! A* over the polygons, each reached at the middle of the edge it was
//! entered through, then pulled tight through the portals of its corridor
//! with the funnel algorithm, each turn measured against the local up.
//! Everything is ordered (regions by key, polygons by index, ties by id), so
//! a query gives the same path whatever order the regions were built in.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::sync::Arc;

use glam::DVec3;
use planet::RegionKey;
use planet::physics::{NO_NEIGHBOUR, NavMesh};

use crate::builder::{BuiltRegion, RegionBuilder};
use crate::streamer::Streamer;

/// How far outside a polygon's edge a point still finds it (`NavGraph::locate`), metres.
pub const LOCATE_SLACK_M: f64 = 0.5;

/// One polygon of the graph: its region and its index in that region's navmesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NavNode {
    /// The region.
    pub region: RegionKey,
    /// The polygon in its navmesh.
    pub polygon: u32,
}

/// A path between two points.
#[derive(Clone, Debug, PartialEq)]
pub struct NavPath {
    /// Its corners, planet-local, from the start to the goal.
    pub points: Vec<DVec3>,
    /// The polygons it crosses, in order.
    pub corridor: Vec<NavNode>,
    /// Its length, metres.
    pub length: f64,
}

#[derive(Clone, Copy, Debug)]
struct Link {
    to: u32,
    left: DVec3,
    right: DVec3,
}

struct OpenEdge {
    a: DVec3,
    b: DVec3,
    key: ([u32; 3], [u32; 3]),
    node: u32,
    mesh: u32,
}

/// The navigation polygons of a set of regions of one planet, linked.
pub struct NavGraph {
    regions: Vec<Arc<BuiltRegion>>,
    /// First node of each region.
    base: Vec<u32>,
    /// Each region's bounding sphere (centre, radius).
    bounds: Vec<(DVec3, f64)>,
    /// Polygons in all.
    nodes: usize,
    /// Links of node n: `links[start[n]..start[n + 1]]`.
    start: Vec<u32>,
    links: Vec<Link>,
}

impl std::fmt::Debug for NavGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NavGraph")
            .field("regions", &self.regions.len())
            .field("polygons", &self.nodes)
            .field("links", &self.links.len())
            .finish()
    }
}

fn exact(p: DVec3) -> [u32; 3] {
    p.as_vec3().to_array().map(f32::to_bits)
}

/// Distance from `p` to the segment `a`-`b`.
fn to_segment(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
    p.distance(a + ab * t)
}

impl NavGraph {
    /// The graph of `regions`' navmeshes (those without one are left out).
    #[must_use]
    pub fn new(regions: impl IntoIterator<Item = Arc<BuiltRegion>>) -> Self {
        let mut regions: Vec<Arc<BuiltRegion>> =
            regions.into_iter().filter(|r| r.navmesh.as_ref().is_some_and(|n| !n.polygons.is_empty())).collect();
        regions.sort_by_key(|r| r.key);
        regions.dedup_by_key(|r| r.key);
        let mut base = Vec::with_capacity(regions.len());
        let mut bounds = Vec::with_capacity(regions.len());
        let mut nodes = 0usize;
        let mut pending: Vec<(u32, Link)> = Vec::new();
        let mut open: Vec<OpenEdge> = Vec::new();
        for (m, region) in regions.iter().enumerate() {
            let n: &NavMesh = region.navmesh.as_ref().expect("filtered above");
            let first = nodes as u32;
            base.push(first);
            let corners: Vec<DVec3> = (0..n.vertices.len() as u32).map(|i| n.vertex(i)).collect();
            let mid = corners.iter().copied().sum::<DVec3>() / corners.len().max(1) as f64;
            let radius = corners.iter().map(|c| c.distance(mid)).fold(0.0, f64::max);
            bounds.push((mid, radius));
            nodes += n.polygons.len();
            for (p, polygon) in n.polygons.iter().enumerate() {
                let node = first + p as u32;
                for (e, &neighbour) in polygon.links().iter().enumerate() {
                    let (from, to) = polygon.edge(e);
                    let (from, to) = (corners[from as usize], corners[to as usize]);
                    if neighbour == NO_NEIGHBOUR {
                        let (ka, kb) = (exact(from), exact(to));
                        let key = if ka <= kb { (ka, kb) } else { (kb, ka) };
                        open.push(OpenEdge { a: from, b: to, key, node, mesh: m as u32 });
                    } else {
                        pending.push((node, Link { to: first + neighbour, left: to, right: from }));
                    }
                }
            }
        }
        // Across regions: the same corners.
        let mut order: Vec<usize> = (0..open.len()).collect();
        order.sort_by_key(|&i| (open[i].key, open[i].node));
        let mut matched = vec![false; open.len()];
        let mut k = 0;
        while k < order.len() {
            let mut end = k + 1;
            while end < order.len() && open[order[end]].key == open[order[k]].key {
                end += 1;
            }
            if end - k == 2 {
                let (i, j) = (order[k], order[k + 1]);
                if open[i].mesh != open[j].mesh {
                    for (x, y) in [(i, j), (j, i)] {
                        let e = &open[x];
                        pending.push((e.node, Link { to: open[y].node, left: e.b, right: e.a }));
                    }
                    matched[i] = true;
                    matched[j] = true;
                }
            }
            k = end;
        }
        // Across LODs: edges left open that lie along one another.
        let rest: Vec<usize> = (0..open.len()).filter(|&i| !matched[i]).collect();
        let cell = rest.iter().map(|&i| open[i].a.distance(open[i].b)).fold(1.0, f64::max).min(128.0);
        let bucket = |p: DVec3| {
            let q = (p / cell).floor();
            (q.x as i64, q.y as i64, q.z as i64)
        };
        let mut grid: BTreeMap<(i64, i64, i64), Vec<usize>> = BTreeMap::new();
        for &i in &rest {
            grid.entry(bucket((open[i].a + open[i].b) * 0.5)).or_default().push(i);
        }
        for &i in &rest {
            let (bx, by, bz) = bucket((open[i].a + open[i].b) * 0.5);
            let key_i = regions[open[i].mesh as usize].key;
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        let Some(cands) = grid.get(&(bx + dx, by + dy, bz + dz)) else { continue };
                        for &j in cands {
                            let (ei, ej) = (&open[i], &open[j]);
                            let key_j = regions[ej.mesh as usize].key;
                            let (li, lj) = (ei.a.distance(ei.b), ej.a.distance(ej.b));
                            let (long, short) = if li >= lj { (ei, ej) } else { (ej, ei) };
                            // Same LOD and face: exact corners or nothing. Across
                            // LODs, and across a cube-face edge (where the two
                            // faces' meshes need not share corners), along one another.
                            if key_j.lod == key_i.lod && key_j.face == key_i.face {
                                continue;
                            }
                            let tol = 0.25 * li.max(lj) + 0.1;
                            if to_segment(short.a, long.a, long.b) > tol || to_segment(short.b, long.a, long.b) > tol {
                                continue;
                            }
                            // The portal is the shorter edge, seen from i.
                            let (left, right) = if li <= lj { (ei.b, ei.a) } else { (ej.a, ej.b) };
                            pending.push((ei.node, Link { to: ej.node, left, right }));
                        }
                    }
                }
            }
        }
        pending.sort_by_key(|(from, link)| (*from, link.to));
        pending.dedup_by_key(|(from, link)| (*from, link.to));
        let mut start = vec![0u32; nodes + 1];
        for (from, _) in &pending {
            start[*from as usize + 1] += 1;
        }
        for i in 0..nodes {
            start[i + 1] += start[i];
        }
        let links = pending.into_iter().map(|(_, l)| l).collect();
        Self { regions, base, bounds, nodes, start, links }
    }

    /// The graph of the regions `streamer` shows.
    #[must_use]
    pub fn shown<B: RegionBuilder>(streamer: &Streamer<B>) -> Self {
        Self::new(streamer.shown_regions())
    }

    /// Polygons in the graph.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes
    }

    /// Whether it has no polygon.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes == 0
    }

    /// Links between polygons (each direction counted).
    #[must_use]
    pub fn link_count(&self) -> usize {
        self.links.len()
    }

    fn mesh_of(&self, node: u32) -> usize {
        self.base.partition_point(|&b| b <= node) - 1
    }

    /// The polygon `node` of the graph.
    #[must_use]
    pub fn node(&self, node: u32) -> NavNode {
        let m = self.mesh_of(node);
        NavNode { region: self.regions[m].key, polygon: node - self.base[m] }
    }

    fn navmesh(&self, node: u32) -> (&NavMesh, u32) {
        let m = self.mesh_of(node);
        (self.regions[m].navmesh.as_ref().expect("graph regions have navmeshes"), node - self.base[m])
    }

    /// The polygon under (or over) `point`, within `max_vertical` metres of
    /// it along the local up, nearest first. As Detour's nearest-polygon
    /// query does, a polygon whose edge passes within `LOCATE_SLACK_M` of
    /// the point's foot counts too (its distance outside added to the
    /// vertical one): the navmesh leaves out sliver triangles a few
    /// centimetres wide, and a point over one is still on the ground.
    #[must_use]
    pub fn locate(&self, point: DVec3, max_vertical: f64) -> Option<u32> {
        let up = point.normalize_or_zero();
        let mut best: Option<(f64, u32)> = None;
        for (m, &(centre, radius)) in self.bounds.iter().enumerate() {
            if point.distance(centre) > radius + max_vertical + LOCATE_SLACK_M {
                continue;
            }
            let count = self.regions[m].navmesh.as_ref().map_or(0, |n| n.polygons.len()) as u32;
            for node in self.base[m]..self.base[m] + count {
                let (mesh, polygon) = self.navmesh(node);
                for [a, b, c] in mesh.fan(polygon) {
                    let n = (b - a).cross(c - a);
                    let along = up.dot(n);
                    if along.abs() < 1e-12 {
                        continue;
                    }
                    let t = (a - point).dot(n) / along;
                    if t.abs() > max_vertical || best.is_some_and(|(d, _)| t.abs() >= d) {
                        continue;
                    }
                    let q = point + up * t;
                    let n_length = n.length();
                    // How far outside the triangle the foot is, in its plane (0 inside).
                    let outside = [(a, b), (b, c), (c, a)]
                        .iter()
                        .map(|&(p, r)| -(r - p).cross(q - p).dot(n) / ((r - p).length() * n_length).max(1e-12))
                        .fold(0.0f64, f64::max);
                    let score = t.abs() + outside;
                    if outside <= LOCATE_SLACK_M && best.is_none_or(|(d, _)| score < d) {
                        best = Some((score, node));
                    }
                }
            }
        }
        best.map(|(_, n)| n)
    }

    /// A path from `from` to `to` (points on or just above the ground, within
    /// 3 m of a walkable polygon), or `None` where none exists.
    #[must_use]
    pub fn find_path(&self, from: DVec3, to: DVec3) -> Option<NavPath> {
        let start = self.locate(from, 3.0)?;
        let goal = self.locate(to, 3.0)?;
        let corridor = self.astar((from, start), (to, goal))?;
        let mut portals = vec![(from, from)];
        for w in corridor.windows(2) {
            let (a, b) = (w[0], w[1]);
            let links = &self.links[self.start[a as usize] as usize..self.start[a as usize + 1] as usize];
            let link = links.iter().find(|l| l.to == b).expect("the corridor follows links");
            portals.push((link.left, link.right));
        }
        portals.push((to, to));
        let points = funnel(&portals);
        let length = points.windows(2).map(|w| w[0].distance(w[1])).sum();
        Some(NavPath { points, corridor: corridor.iter().map(|&n| self.node(n)).collect(), length })
    }

    /// A* from the point `from` in polygon `start` to `to` in `goal`; the
    /// polygons between. As Detour does it, a polygon is reached at the
    /// middle of the edge it was entered through, and a step costs the
    /// distance between those points (from centre to centre, a large
    /// polygon's centre can lie far off the way through it).
    fn astar(&self, (from, start): (DVec3, u32), (to, goal): (DVec3, u32)) -> Option<Vec<u32>> {
        let n = self.nodes;
        let mut g = vec![f64::INFINITY; n];
        let mut at = vec![DVec3::ZERO; n];
        let mut came = vec![u32::MAX; n];
        let mut closed = vec![false; n];
        let mut open = BinaryHeap::new();
        g[start as usize] = 0.0;
        at[start as usize] = from;
        open.push(Reverse((from.distance(to).to_bits(), start)));
        while let Some(Reverse((_, node))) = open.pop() {
            if node == goal {
                let mut path = vec![goal];
                let mut back = goal;
                while back != start {
                    back = came[back as usize];
                    path.push(back);
                }
                path.reverse();
                return Some(path);
            }
            if std::mem::replace(&mut closed[node as usize], true) {
                continue;
            }
            let here = at[node as usize];
            for link in &self.links[self.start[node as usize] as usize..self.start[node as usize + 1] as usize] {
                let next = link.to as usize;
                if closed[next] {
                    continue;
                }
                let entry = (link.left + link.right) * 0.5;
                let mut cost = g[node as usize] + here.distance(entry);
                if link.to == goal {
                    cost += entry.distance(to);
                }
                if cost < g[next] {
                    g[next] = cost;
                    at[next] = entry;
                    came[next] = node;
                    let f = cost + if link.to == goal { 0.0 } else { entry.distance(to) };
                    open.push(Reverse((f.to_bits(), link.to)));
                }
            }
        }
        None
    }
}

/// Which side of `a`->`b` the point `c` is, seen from above (`up`): positive to the left.
fn side(a: DVec3, b: DVec3, c: DVec3, up: DVec3) -> f64 {
    (b - a).cross(c - a).dot(up)
}

/// Pulls a path tight through `portals` (left, right as seen walking
/// through; the first and last are the start and the goal): the funnel
/// algorithm, each turn judged in the tangent plane of the funnel's apex.
fn funnel(portals: &[(DVec3, DVec3)]) -> Vec<DVec3> {
    let mut points = vec![portals[0].0];
    let (mut apex, mut left, mut right) = (portals[0].0, portals[0].0, portals[0].1);
    let (mut left_i, mut right_i) = (0usize, 0usize);
    let same = |a: DVec3, b: DVec3| a.distance_squared(b) < 1e-12;
    let mut i = 1;
    while i < portals.len() {
        let (l, r) = portals[i];
        let up = apex.normalize_or(DVec3::Y);
        // The right side.
        if side(apex, right, r, up) >= 0.0 {
            if same(apex, right) || side(apex, left, r, up) < 0.0 {
                right = r;
                right_i = i;
            } else {
                apex = left;
                let apex_i = left_i;
                points.push(apex);
                (left, right) = (apex, apex);
                (left_i, right_i) = (apex_i, apex_i);
                i = apex_i + 1;
                continue;
            }
        }
        // The left side.
        if side(apex, left, l, up) <= 0.0 {
            if same(apex, left) || side(apex, right, l, up) > 0.0 {
                left = l;
                left_i = i;
            } else {
                apex = right;
                let apex_i = right_i;
                points.push(apex);
                (left, right) = (apex, apex);
                (left_i, right_i) = (apex_i, apex_i);
                i = apex_i + 1;
                continue;
            }
        }
        i += 1;
    }
    let goal = portals[portals.len() - 1].0;
    if points.last().is_none_or(|p| !same(*p, goal)) {
        points.push(goal);
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_funnel_goes_straight_through_a_wide_corridor_and_round_a_corner() {
        let up = DVec3::new(0.0, 0.0, 1000.0);
        let p = |x: f64, y: f64| up + DVec3::new(x, y, 0.0);
        // Walking +x: left is +y.
        let straight = [(p(0.0, 0.0), p(0.0, 0.0)), (p(1.0, 1.0), p(1.0, -1.0)), (p(2.0, 0.0), p(2.0, 0.0))];
        assert_eq!(funnel(&straight).len(), 2);
        // A corner: the second portal is far to the left.
        let corner = [
            (p(0.0, 0.0), p(0.0, 0.0)),
            (p(1.0, 1.0), p(1.0, -1.0)),
            (p(1.5, 5.0), p(1.0, 1.0)),
            (p(-3.0, 6.0), p(-3.0, 6.0)),
        ];
        let path = funnel(&corner);
        assert_eq!(path.len(), 3, "{path:?}");
        assert!(path[1].distance(p(1.0, 1.0)) < 1e-9);
    }
}
