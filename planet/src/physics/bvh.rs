//! The collider's bounding volume hierarchy: a binary tree of boxes over a
//! region's triangles, a linear BVH (the triangles along a Morton curve,
//! split at the codes' highest differing bit, moved to the nearest whole
//! leaf), every leaf but the last holding [`LEAF_TRIANGLES`] triangles, the
//! triangles reordered so each leaf's are contiguous. Full leaves make the
//! node count known before building, `2 * ceil(n / LEAF_TRIANGLES) - 1`,
//! half what splitting at the bit alone made (its leaves held about two).
//!
//! Why not `parry3d`'s own (`TriMesh`'s): its build is about 270 ns a
//! triangle on a 6,000-triangle region (one triangle a leaf, a tree twice as
//! deep as this one, and no way to pass it a tree built another way), more
//! than generating the region; this one is several times cheaper. `parry3d`
//! still answers every triangle's ray and shape cast (see `collider.rs`).
//!
//! Building again from the reordered triangles gives the same tree and
//! order (the codes depend only on the set of triangles; equal codes keep
//! their order): what reading a dumped collider relies on.
//!
//! A node is 16 bytes, half what `f32` boxes take: its box is quantized to
//! 16 bits an axis across the root's box, rounded outward (a node's box
//! still holds its triangles; the traversal enters a few boxes it would
//! have missed by a fraction of a millimetre on a LOD-0 region), and a
//! leaf's triangle count follows from full leaves.

use glam::Vec3;
use serde::{Deserialize, Serialize};

/// Triangles in a leaf (the last may hold fewer).
pub const LEAF_TRIANGLES: usize = 4;

/// Nodes of the tree over `triangles` triangles: full leaves and the inner
/// nodes joining them.
#[must_use]
pub fn node_count(triangles: usize) -> usize {
    if triangles == 0 { 0 } else { 2 * triangles.div_ceil(LEAF_TRIANGLES) - 1 }
}
/// Deepest a tree may be (the traversal's stack): 30 code bits and then
/// halves of equal codes; a split in halves is forced before it.
const MAX_DEPTH: usize = 48;

/// The bit of `BvhNode::index` that marks a leaf.
const LEAF: u32 = 1 << 31;

/// A node: a quantized box, and either two children (`index` and
/// `index + 1`) or, in a leaf (`index`'s top bit set), the triangles from
/// the rest of `index` on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BvhNode {
    /// The box's lower corner, in steps of the tree's grid (rounded down).
    pub min: [u16; 3],
    /// The box's upper corner (rounded up).
    pub max: [u16; 3],
    /// First child, or (with the top bit set) first triangle.
    pub index: u32,
}

impl BvhNode {
    /// The first triangle of a leaf; `None` for an inner node.
    #[must_use]
    pub fn leaf_first(&self) -> Option<u32> {
        (self.index & LEAF != 0).then_some(self.index & !LEAF)
    }
}

/// A bounding volume hierarchy; node 0 is the root (none when empty).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Bvh {
    /// The nodes, depth first.
    pub nodes: Vec<BvhNode>,
    /// The box of every triangle, exact, relative to the collider's origin.
    pub lo: [f32; 3],
    /// Its upper corner.
    pub hi: [f32; 3],
    /// The grid's step on each axis: a quantized coordinate `q` is `lo + q * step`.
    pub step: [f32; 3],
    /// The triangles under the tree (the last leaf's count follows from it).
    pub triangles: u32,
}

/// The grid steps from `lo` whose 65,535th reaches `hi` on every axis: 0
/// on an axis of no extent, and never much finer than the coordinates'
/// own precision (so neighbouring grid points differ, and rounding to the
/// grid takes a step or two).
fn grid_step(lo: Vec3, hi: Vec3) -> Vec3 {
    let finest = lo.abs().max(hi.abs()) * f32::EPSILON;
    let extent = hi - lo;
    let mut step = Vec3::select(extent.cmpgt(Vec3::ZERO), (extent / 65535.0).max(finest), Vec3::ZERO);
    for a in 0..3 {
        while lo[a] + 65535.0 * step[a] < hi[a] {
            step[a] = step[a].next_up();
        }
    }
    step
}

impl Bvh {
    /// Builds the tree over `triangles` (indices into `vertices`, which
    /// must be in range), reordering them leaf by leaf.
    ///
    /// A linear BVH: the triangles sorted along a Morton curve through their
    /// centres (10 bits an axis across the centres' box), each node split
    /// where its first and last codes first differ, the boxes filled in on
    /// the way back up. One sort and passes linear in the triangles, where
    /// a binned surface-area build (tried: as slow as `parry3d`'s) passes
    /// over every triangle at every level.
    #[must_use]
    pub fn build(vertices: &[[f32; 3]], triangles: &mut [[u32; 3]]) -> Self {
        let mut bvh = Self::default();
        if triangles.is_empty() {
            return bvh;
        }
        let corner = |i: u32| Vec3::from_array(vertices[i as usize]);
        let boxes: Vec<(Vec3, Vec3)> = triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(corner);
                (a.min(b).min(c), a.max(b).max(c))
            })
            .collect();
        let centre = |b: &(Vec3, Vec3)| (b.0 + b.1) * 0.5;
        let (lo, hi) = boxes.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), b| {
            let c = centre(b);
            (lo.min(c), hi.max(c))
        });
        let scale = Vec3::splat(1023.0) / (hi - lo).max(Vec3::splat(1e-20));
        // (Morton code, triangle): sorted, equal codes keep their order.
        let mut order: Vec<(u32, u32)> = boxes
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let q = ((centre(b) - lo) * scale).clamp(Vec3::ZERO, Vec3::splat(1023.0));
                (morton(q.x as u32, q.y as u32, q.z as u32), i as u32)
            })
            .collect();
        order.sort_unstable();
        let codes: Vec<u32> = order.iter().map(|o| o.0).collect();
        let sorted_boxes: Vec<(Vec3, Vec3)> = order.iter().map(|o| boxes[o.1 as usize]).collect();
        let original = triangles.to_vec();
        for (t, o) in triangles.iter_mut().zip(&order) {
            *t = original[o.1 as usize];
        }
        let (lo, hi) =
            boxes.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), b| (lo.min(b.0), hi.max(b.1)));
        let step = grid_step(lo, hi);
        let inv = Vec3::select(step.cmpgt(Vec3::ZERO), step.recip(), Vec3::ZERO);
        let mut build = Build { bvh: &mut bvh, codes: &codes, boxes: &sorted_boxes, lo, step, inv };
        build.bvh.nodes = Vec::with_capacity(node_count(triangles.len()));
        build.bvh.nodes.push(BvhNode::default());
        build.split(0, triangles.len(), 0, 0);
        bvh.lo = lo.to_array();
        bvh.hi = hi.to_array();
        bvh.step = step.to_array();
        bvh.triangles = triangles.len() as u32;
        debug_assert_eq!(bvh.nodes.len(), node_count(triangles.len()));
        bvh
    }

    /// The box of every triangle, exact, if there is a tree.
    #[must_use]
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        (!self.nodes.is_empty()).then(|| (Vec3::from_array(self.lo), Vec3::from_array(self.hi)))
    }

    /// Node `i`'s box (holding everything under it), relative to the
    /// collider's origin.
    #[must_use]
    pub fn node_box(&self, i: usize) -> (Vec3, Vec3) {
        let n = &self.nodes[i];
        let (lo, step) = (Vec3::from_array(self.lo), Vec3::from_array(self.step));
        (dequantize(lo, step, n.min), dequantize(lo, step, n.max))
    }

    /// Node `i`'s triangles, `(first, count)`, if it is a leaf.
    #[must_use]
    pub fn leaf(&self, i: usize) -> Option<(u32, u32)> {
        let first = self.nodes[i].leaf_first()?;
        Some((first, (self.triangles - first).min(LEAF_TRIANGLES as u32)))
    }

    /// Visits the leaves whose boxes `enter(min, max)` lets through, nearer
    /// first where `enter` returns a distance (smaller first); `leaf(first,
    /// count)` returns false to stop.
    pub fn visit(&self, mut enter: impl FnMut(Vec3, Vec3) -> Option<f32>, mut leaf: impl FnMut(u32, u32) -> bool) {
        if self.nodes.is_empty() {
            return;
        }
        let (rmin, rmax) = self.node_box(0);
        if enter(rmin, rmax).is_none() {
            return;
        }
        let mut stack = [0u32; MAX_DEPTH + 2];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let node = stack[top] as usize;
            if let Some((first, count)) = self.leaf(node) {
                if !leaf(first, count) {
                    return;
                }
                continue;
            }
            let a = self.nodes[node].index;
            let b = a + 1;
            let (amin, amax) = self.node_box(a as usize);
            let (bmin, bmax) = self.node_box(b as usize);
            let (ta, tb) = (enter(amin, amax), enter(bmin, bmax));
            // Push the farther first, so the nearer is visited first.
            match (ta, tb) {
                (Some(x), Some(y)) => {
                    let (near, far) = if y < x { (b, a) } else { (a, b) };
                    stack[top] = far;
                    stack[top + 1] = near;
                    top += 2;
                }
                (Some(_), None) => {
                    stack[top] = a;
                    top += 1;
                }
                (None, Some(_)) => {
                    stack[top] = b;
                    top += 1;
                }
                (None, None) => {}
            }
        }
    }
}

/// The quantized coordinate `q` on the grid from `lo` in `step`s.
fn dequantize(lo: Vec3, step: Vec3, q: [u16; 3]) -> Vec3 {
    lo + Vec3::new(f32::from(q[0]), f32::from(q[1]), f32::from(q[2])) * step
}

/// A tree being built: the sorted triangles' codes and boxes, and the grid
/// its boxes are quantized to.
struct Build<'a> {
    bvh: &'a mut Bvh,
    codes: &'a [u32],
    boxes: &'a [(Vec3, Vec3)],
    lo: Vec3,
    step: Vec3,
    /// `1 / step`, 0 on an axis of no extent (every point there is `lo`).
    inv: Vec3,
}

impl Build<'_> {
    /// The box on the grid, rounded outward: its lower corner the highest
    /// grid point at or below `min`, its upper the lowest at or above
    /// `max`, so the box holds the exact one.
    fn quantize(&self, min: Vec3, max: Vec3) -> ([u16; 3], [u16; 3]) {
        let (mut qmin, mut qmax) = ([0u16; 3], [0u16; 3]);
        for a in 0..3 {
            // On an axis of no extent every point is `lo`: 0, 0.
            if self.step[a] > 0.0 {
                let axis = Axis { lo: self.lo[a], step: self.step[a], inv: self.inv[a] };
                (qmin[a], qmax[a]) = (axis.down(min[a]), axis.up(max[a]));
            }
        }
        (qmin, qmax)
    }

    /// Fills node `node` with the sorted triangles `first..end`; returns
    /// their exact box.
    fn split(&mut self, first: usize, end: usize, node: usize, depth: usize) -> (Vec3, Vec3) {
        if end - first <= LEAF_TRIANGLES {
            let (min, max) = self.boxes[first..end]
                .iter()
                .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), b| (lo.min(b.0), hi.max(b.1)));
            let (qmin, qmax) = self.quantize(min, max);
            self.bvh.nodes[node] = BvhNode { min: qmin, max: qmax, index: first as u32 | LEAF };
            return (min, max);
        }
        // Split where the highest bit that differs across the run turns on
        // (codes sorted: a binary search); equal codes, or too deep: halves.
        // Then to the nearest whole leaf strictly inside the run (`first` is
        // on one, and the run is longer than a leaf), so leaves fill.
        let (a, b) = (self.codes[first], self.codes[end - 1]);
        let mid = if a == b || depth >= MAX_DEPTH {
            first + (end - first) / 2
        } else {
            let bit = 31 - (a ^ b).leading_zeros();
            first + self.codes[first..end].partition_point(|&c| c & (1 << bit) == 0)
        };
        let last_inside = (end - 1) / LEAF_TRIANGLES * LEAF_TRIANGLES;
        let mid =
            ((mid + LEAF_TRIANGLES / 2) / LEAF_TRIANGLES * LEAF_TRIANGLES).clamp(first + LEAF_TRIANGLES, last_inside);
        let children = self.bvh.nodes.len();
        self.bvh.nodes.push(BvhNode::default());
        self.bvh.nodes.push(BvhNode::default());
        let (lmin, lmax) = self.split(first, mid, children, depth + 1);
        let (rmin, rmax) = self.split(mid, end, children + 1, depth + 1);
        let (min, max) = (lmin.min(rmin), lmax.max(rmax));
        let (qmin, qmax) = self.quantize(min, max);
        self.bvh.nodes[node] = BvhNode { min: qmin, max: qmax, index: children as u32 };
        (min, max)
    }
}

/// One axis of the grid a tree's boxes are quantized to.
struct Axis {
    lo: f32,
    step: f32,
    inv: f32,
}

impl Axis {
    /// Grid point `q`.
    fn at(&self, q: u16) -> f32 {
        self.lo + f32::from(q) * self.step
    }

    /// The highest grid point at or below `x`: a guess by multiplying
    /// (`as` saturates: negative and NaN guesses are 0), which is nearly
    /// always it, checked against the grid's own points.
    fn down(&self, x: f32) -> u16 {
        let q = ((x - self.lo) * self.inv) as u16;
        if self.at(q) <= x && (q == u16::MAX || self.at(q + 1) > x) { q } else { self.walk_down(x, q) }
    }

    /// The lowest grid point at or above `x`.
    fn up(&self, x: f32) -> u16 {
        let q = ((x - self.lo) * self.inv) as u16;
        if self.at(q) >= x && (q == 0 || self.at(q - 1) < x) {
            q
        } else if q < u16::MAX && self.at(q + 1) >= x && self.at(q) < x {
            q + 1
        } else {
            self.walk_up(x, q)
        }
    }

    /// `down` from a guess off by more than the first check allows.
    #[cold]
    fn walk_down(&self, x: f32, mut q: u16) -> u16 {
        while q > 0 && self.at(q) > x {
            q -= 1;
        }
        while q < u16::MAX && self.at(q + 1) <= x {
            q += 1;
        }
        q
    }

    /// `up` from a guess off by more than the first checks allow.
    #[cold]
    fn walk_up(&self, x: f32, mut q: u16) -> u16 {
        while q < u16::MAX && self.at(q) < x {
            q += 1;
        }
        while q > 0 && self.at(q - 1) >= x {
            q -= 1;
        }
        q
    }
}

/// The Morton code of a point on a 1024³ lattice: its coordinates' bits
/// interleaved.
fn morton(x: u32, y: u32, z: u32) -> u32 {
    fn spread(v: u32) -> u32 {
        let mut v = v & 0x3ff;
        v = (v | (v << 16)) & 0x0300_00ff;
        v = (v | (v << 8)) & 0x0300_f00f;
        v = (v | (v << 4)) & 0x030c_30c3;
        (v | (v << 2)) & 0x0924_9249
    }
    (spread(x) << 2) | (spread(y) << 1) | spread(z)
}

/// Where a ray from `origin` with inverse direction `inv` enters the box,
/// if it does before `max`.
#[must_use]
pub fn ray_enters(origin: Vec3, inv: Vec3, max: f32, min_corner: Vec3, max_corner: Vec3) -> Option<f32> {
    let t0 = (min_corner - origin) * inv;
    let t1 = (max_corner - origin) * inv;
    let near = t0.min(t1);
    let far = t0.max(t1);
    // NaN (a zero direction component on a box face) counts as inside.
    let enter = near.x.max(near.y).max(near.z).max(0.0);
    let exit = far.x.min(far.y).min(far.z).min(max);
    (enter <= exit).then_some(enter)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(n: u32) -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
        let mut vertices = Vec::new();
        for y in 0..=n {
            for x in 0..=n {
                let h = ((x * 7 + y * 13) % 5) as f32 * 0.3;
                vertices.push([x as f32, h, y as f32]);
            }
        }
        let mut triangles = Vec::new();
        for y in 0..n {
            for x in 0..n {
                let i = y * (n + 1) + x;
                triangles.push([i, i + n + 1, i + 1]);
                triangles.push([i + 1, i + n + 1, i + n + 2]);
            }
        }
        (vertices, triangles)
    }

    #[test]
    fn every_triangle_is_in_one_leaf_inside_its_boxes_and_rebuilding_changes_nothing() {
        let (vertices, mut triangles) = grid(40);
        let original = triangles.clone();
        let bvh = Bvh::build(&vertices, &mut triangles);
        let mut sorted = triangles.clone();
        sorted.sort_unstable();
        let mut expected = original;
        expected.sort_unstable();
        assert_eq!(sorted, expected, "the same triangles, reordered");
        let mut seen = vec![0; triangles.len()];
        let mut depth = 0;
        // Every node's box holds its children's, every leaf's its triangles'.
        let mut stack = vec![(0usize, 1)];
        while let Some((i, d)) = stack.pop() {
            depth = depth.max(d);
            let (min, max) = bvh.node_box(i);
            let inside = |p: Vec3| p.cmpge(min).all() && p.cmple(max).all();
            if let Some((first, count)) = bvh.leaf(i) {
                // Full, but the leaf holding the last triangles.
                let last = (first + count) as usize == triangles.len();
                assert!(count as usize == LEAF_TRIANGLES || (last && (count as usize) < LEAF_TRIANGLES));
                let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
                for t in first..first + count {
                    seen[t as usize] += 1;
                    for c in triangles[t as usize] {
                        let p = Vec3::from_array(vertices[c as usize]);
                        assert!(inside(p));
                        (lo, hi) = (lo.min(p), hi.max(p));
                    }
                }
                // Rounded outward by less than a step and a hair.
                let slack = Vec3::from_array(bvh.step) * 1.001 + 1e-6;
                assert!((lo - min).cmple(slack).all() && (max - hi).cmple(slack).all(), "leaf {i}: box too loose");
            } else {
                let a = bvh.nodes[i].index as usize;
                for c in [a, a + 1] {
                    let (cmin, cmax) = bvh.node_box(c);
                    assert!(inside(cmin) && inside(cmax));
                    stack.push((c, d + 1));
                }
            }
        }
        assert!(seen.iter().all(|&s| s == 1), "each triangle in exactly one leaf");
        assert_eq!(bvh.nodes.len(), node_count(triangles.len()));
        assert_eq!(bvh.nodes.capacity(), bvh.nodes.len(), "the count is known before building");
        assert!(depth <= 2 * 12, "depth {depth} for {} triangles", triangles.len());
        let mut again = triangles.clone();
        assert_eq!(Bvh::build(&vertices, &mut again), bvh);
        assert_eq!(again, triangles);
    }

    #[test]
    fn flat_and_thin_trees_far_from_the_origin_hold_their_triangles_snugly() {
        // A flat axis (no extent: step 0), and one a tenth of a millimetre
        // thick 4 km out (finer than f32 there: the step's floor).
        for (offset, thickness) in [(0.0, 0.0), (4000.0, 0.0), (4000.0, 1e-4), (-250.0, 1e-3)] {
            let (mut vertices, mut triangles) = grid(12);
            for v in &mut vertices {
                *v = [v[0] + offset, v[1] * thickness + offset, v[2] - offset];
            }
            let bvh = Bvh::build(&vertices, &mut triangles);
            let step = Vec3::from_array(bvh.step);
            for i in 0..bvh.nodes.len() {
                let Some((first, count)) = bvh.leaf(i) else { continue };
                let (min, max) = bvh.node_box(i);
                let corners = (first..first + count).flat_map(|t| triangles[t as usize]);
                let (lo, hi) = corners.fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), c| {
                    let p = Vec3::from_array(vertices[c as usize]);
                    (lo.min(p), hi.max(p))
                });
                assert!(min.cmple(lo).all() && max.cmpge(hi).all(), "offset {offset}, leaf {i}: box misses a corner");
                let slack = step * 2.0 + 1e-6;
                assert!((lo - min).cmple(slack).all() && (max - hi).cmple(slack).all(), "offset {offset}: too loose");
            }
        }
    }

    #[test]
    fn every_size_gets_full_leaves_and_the_known_node_count() {
        // Every triangle count from 1 to 400, cut from grids: the leaves are
        // contiguous, full but the last, and the nodes as many as counted.
        let (vertices, all) = grid(15);
        for n in 1..=all.len().min(400) {
            let mut triangles = all[..n].to_vec();
            let bvh = Bvh::build(&vertices, &mut triangles);
            assert_eq!(bvh.nodes.len(), node_count(n), "{n} triangles");
            let mut leaves: Vec<(u32, u32)> = (0..bvh.nodes.len()).filter_map(|i| bvh.leaf(i)).collect();
            leaves.sort_unstable();
            let mut next = 0;
            for &(index, count) in &leaves {
                assert_eq!(index, next, "{n} triangles: leaves not contiguous");
                assert!(count as usize == LEAF_TRIANGLES || index + count == n as u32, "{n}: a leaf of {count}");
                next = index + count;
            }
            assert_eq!(next, n as u32);
        }
    }

    #[test]
    fn a_ray_visits_exactly_the_leaves_it_crosses_and_stops_when_told() {
        let (vertices, mut triangles) = grid(16);
        let bvh = Bvh::build(&vertices, &mut triangles);
        let leaves: Vec<(u32, (Vec3, Vec3))> =
            (0..bvh.nodes.len()).filter_map(|i| Some((bvh.leaf(i)?.0, bvh.node_box(i)))).collect();
        for (origin, dir) in [
            (Vec3::new(-1.0, 0.5, 8.2), Vec3::X),
            (Vec3::new(3.0, 5.0, 3.0), Vec3::new(0.3, -1.0, 0.5).normalize()),
            (Vec3::new(0.0, 50.0, 0.0), Vec3::Y),
        ] {
            let inv = dir.recip();
            let crossed = |(lo, hi): (Vec3, Vec3)| ray_enters(origin, inv, 100.0, lo, hi);
            let mut expected: Vec<u32> =
                leaves.iter().filter(|(_, b)| crossed(*b).is_some()).map(|&(first, _)| first).collect();
            let mut visited = Vec::new();
            bvh.visit(
                |lo, hi| ray_enters(origin, inv, 100.0, lo, hi),
                |first, _| {
                    visited.push(first);
                    true
                },
            );
            expected.sort_unstable();
            visited.sort_unstable();
            assert_eq!(visited, expected, "ray from {origin} along {dir}");
        }
        let mut count = 0;
        bvh.visit(
            |_, _| Some(0.0),
            |_, _| {
                count += 1;
                false
            },
        );
        assert_eq!(count, 1, "a leaf that says stop stops the visit");
    }
}
