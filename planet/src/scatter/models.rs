//! Scatter models, generated at load time (there are no art assets): for
//! each kind three variants of a unit-sized low-poly mesh, standing on its
//! origin with +Y up. Trees are a trunk and a crown (cones, a ball, a tall
//! ellipsoid), bushes are squashed balls, grass a fan of blades, rocks
//! displaced icospheres, crystals clusters of pointed prisms. A vertex's
//! `tint` says how much of the instance's colour it takes (trunks and
//! pebbles less). All models share one vertex and one index buffer.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use super::{KINDS, ScatterObject, VARIANTS, kind_index};
use crate::hash::{hash2, salt, unit_f32};
use crate::recipe::ScatterKind;

/// A model vertex: 28 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ModelVertex {
    /// Position, in units of the object's size.
    pub position: [f32; 3],
    /// Unit normal.
    pub normal: [f32; 3],
    /// 1: the instance's colour; 0: trunk brown.
    pub tint: f32,
}

/// Where one model lies in the shared buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelRange {
    /// First index.
    pub first: u32,
    /// Index count.
    pub count: u32,
}

/// Every model's triangles, on the CPU.
#[derive(Debug, Default)]
pub struct ModelSet {
    /// Vertices.
    pub vertices: Vec<ModelVertex>,
    /// Indices (u32).
    pub indices: Vec<u32>,
    /// Per type and level (`type * LEVELS + level`), that level's range:
    /// the full model, a low one (half the sides, an unsubdivided
    /// icosahedron), and the impostor (see [`IMPOSTOR`]).
    pub levels: Vec<ModelRange>,
    /// Per type, the part of its range that is solid to a walker: a tree's
    /// trunk (its first triangles), a whole boulder; empty for the rest.
    pub solid: Vec<ModelRange>,
}

/// Model types: kinds times variants.
pub const TYPES: usize = KINDS.len() * VARIANTS as usize;

/// Detail levels of every model: full, low, impostor.
pub const LEVELS: usize = 3;

/// The impostor level: a flat silhouette in the model's x-y plane (z = 0)
/// that the objects shader turns to face the camera about the local up (a
/// cylindrical billboard), drawn beyond a distance per kind.
pub const IMPOSTOR: usize = 2;

/// The colour of a vertex with `tint` 0 (trunks, stems), linear RGB; the
/// renderer's objects shader mixes it with the instance's colour by the tint.
pub const TRUNK_COLOR: [f32; 3] = [0.18, 0.12, 0.07];

/// The model type of an object: `kind_index * VARIANTS + variant`.
#[must_use]
pub fn type_of(object: &ScatterObject) -> usize {
    kind_index(object.kind) * VARIANTS as usize + usize::from(object.variant)
}

struct Builder<'a> {
    set: &'a mut ModelSet,
    /// 0: full; 1: low (half the sides, an unsubdivided icosahedron).
    detail: u8,
}

impl Builder<'_> {
    /// Adds a flat-shaded triangle.
    fn triangle(&mut self, a: Vec3, b: Vec3, c: Vec3, tint: f32) {
        let n = (b - a).cross(c - a).normalize_or(Vec3::Y);
        let base = self.set.vertices.len() as u32;
        for p in [a, b, c] {
            self.set.vertices.push(ModelVertex { position: p.to_array(), normal: n.to_array(), tint });
        }
        self.set.indices.extend([base, base + 1, base + 2]);
    }

    /// A cone or prism side: a ring of `sides` at `y0` (radius `r0`) to a ring at `y1` (radius `r1`).
    fn frustum(&mut self, centre: Vec3, sides: u32, (y0, r0): (f32, f32), (y1, r1): (f32, f32), tint: f32) {
        let sides = if self.detail == 0 { sides } else { (sides / 2).max(3) };
        let at = |k: u32, y: f32, r: f32| {
            let a = k as f32 / sides as f32 * core::f32::consts::TAU;
            centre + Vec3::new(libm::cosf(a) * r, y, libm::sinf(a) * r)
        };
        for k in 0..sides {
            let (a0, a1, b0, b1) = (at(k, y0, r0), at(k + 1, y0, r0), at(k, y1, r1), at(k + 1, y1, r1));
            self.triangle(a0, b0, a1, tint);
            if r1 > 0.0 {
                self.triangle(a1, b0, b1, tint);
            }
        }
    }

    /// An icosphere (one subdivision) scaled by `scale`, each vertex pushed out by `bump(dir)`.
    fn ball(&mut self, centre: Vec3, scale: Vec3, tint: f32, bump: &dyn Fn(Vec3) -> f32) {
        let faces = if self.detail == 0 { icosphere() } else { icosahedron() };
        for [a, b, c] in faces {
            let p = |d: Vec3| centre + d * scale * bump(d);
            self.triangle(p(a), p(b), p(c), tint);
        }
    }
}

/// The 80 faces of a once-subdivided icosahedron, as unit vectors.
fn icosphere() -> Vec<[Vec3; 3]> {
    let mut out = Vec::with_capacity(80);
    for [a, b, c] in icosahedron() {
        let (ab, bc, ca) = ((a + b).normalize(), (b + c).normalize(), (c + a).normalize());
        out.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
    }
    out
}

/// The 20 faces of an icosahedron, as unit vectors.
fn icosahedron() -> Vec<[Vec3; 3]> {
    let t = (1.0 + libm::sqrtf(5.0)) / 2.0;
    let v: Vec<Vec3> = [
        (-1.0, t, 0.0),
        (1.0, t, 0.0),
        (-1.0, -t, 0.0),
        (1.0, -t, 0.0),
        (0.0, -1.0, t),
        (0.0, 1.0, t),
        (0.0, -1.0, -t),
        (0.0, 1.0, -t),
        (t, 0.0, -1.0),
        (t, 0.0, 1.0),
        (-t, 0.0, -1.0),
        (-t, 0.0, 1.0),
    ]
    .iter()
    .map(|&(x, y, z)| Vec3::new(x, y, z).normalize())
    .collect();
    let faces = [
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    faces.iter().map(|&[a, b, c]| [v[a], v[b], v[c]]).collect()
}

/// A bump in [1 - amount, 1 + amount] from a hash of a direction (rocks, bushes).
fn lumpy(seed: u64, amount: f32) -> impl Fn(Vec3) -> f32 {
    move |d: Vec3| {
        let q = (d * 8.0).round();
        let h = hash2(seed, salt(b"rock"), q.x as i64 * 31 + q.y as i64, q.z as i64);
        1.0 + (unit_f32(h) * 2.0 - 1.0) * amount
    }
}

const TRUNK: f32 = 0.0;
const LEAVES: f32 = 1.0;

fn tree(b: &mut Builder<'_>, variant: u8) {
    b.frustum(Vec3::ZERO, 6, (0.0, 0.045), (0.45, 0.03), TRUNK);
    match variant {
        0 => {
            // A conifer: three stacked cones.
            for (y, r) in [(0.25, 0.28), (0.5, 0.22), (0.72, 0.15)] {
                b.frustum(Vec3::ZERO, 8, (y, r), (y + 0.35, 0.0), LEAVES);
                b.frustum(Vec3::ZERO, 8, (y, 0.0), (y, r), LEAVES);
            }
        }
        1 => b.ball(Vec3::new(0.0, 0.62, 0.0), Vec3::new(0.33, 0.34, 0.33), LEAVES, &lumpy(u64::from(variant), 0.12)),
        _ => b.ball(Vec3::new(0.0, 0.66, 0.0), Vec3::new(0.2, 0.36, 0.2), LEAVES, &lumpy(7, 0.08)),
    }
}

fn model(b: &mut Builder<'_>, kind: usize, variant: u8) {
    let seed = u64::from(variant) * 97 + kind as u64;
    match KINDS[kind] {
        ScatterKind::Tree => tree(b, variant),
        ScatterKind::Bush => {
            let h = [0.55, 0.7, 0.45][variant as usize % 3];
            b.ball(Vec3::new(0.0, h * 0.45, 0.0), Vec3::new(0.5, h * 0.55, 0.5), LEAVES, &lumpy(seed, 0.18));
        }
        ScatterKind::Grass => {
            // A fan of blades, each a thin triangle leaning out.
            let blades = if b.detail == 0 { 5 + u32::from(variant) } else { 3 };
            for k in 0..blades {
                let a = k as f32 / blades as f32 * core::f32::consts::TAU + f32::from(variant);
                let (c, s) = (libm::cosf(a), libm::sinf(a));
                let side = Vec3::new(-s, 0.0, c) * 0.05;
                let tip = Vec3::new(c * 0.3, 1.0 - 0.1 * (k % 3) as f32, s * 0.3);
                b.triangle(-side, side, tip, LEAVES);
            }
        }
        ScatterKind::Rock => {
            let flat = [0.6, 0.8, 0.45][variant as usize % 3];
            b.ball(Vec3::new(0.0, flat * 0.3, 0.0), Vec3::new(0.5, flat * 0.5, 0.45), LEAVES, &lumpy(seed, 0.25));
        }
        ScatterKind::Crystal => {
            let spires = 2 + u32::from(variant);
            for k in 0..spires {
                let a = k as f32 * 2.4;
                let lean = if k == 0 { Vec3::ZERO } else { Vec3::new(libm::cosf(a), 0.0, libm::sinf(a)) * 0.18 };
                let h = if k == 0 { 1.0 } else { 0.55 + 0.1 * k as f32 };
                let r = 0.09 * h;
                b.frustum(lean, 6, (0.0, r), (h * 0.75, r), LEAVES);
                b.frustum(lean, 6, (h * 0.75, r), (h, 0.0), LEAVES);
            }
        }
    }
}

/// A type's impostor: its silhouette seen from the side, in the x-y plane,
/// facing +z (the shader turns it to the camera). Trees are a trunk and a
/// crown (a triangle for the conifer, an octagon for the others), the rest
/// an octagon or a spike the size of their model.
fn impostor(b: &mut Builder<'_>, kind: usize, variant: u8) {
    let quad = |b: &mut Builder<'_>, (x0, y0): (f32, f32), (x1, y1): (f32, f32), tint: f32| {
        b.triangle(Vec3::new(x0, y0, 0.0), Vec3::new(x1, y0, 0.0), Vec3::new(x1, y1, 0.0), tint);
        b.triangle(Vec3::new(x0, y0, 0.0), Vec3::new(x1, y1, 0.0), Vec3::new(x0, y1, 0.0), tint);
    };
    // An octagon centred at (0, y) with half-width w and half-height h.
    let blob = |b: &mut Builder<'_>, y: f32, w: f32, h: f32, tint: f32| {
        let at = |k: u32| {
            let a = k as f32 / 8.0 * core::f32::consts::TAU;
            Vec3::new(libm::cosf(a) * w, y + libm::sinf(a) * h, 0.0)
        };
        for k in 0..8 {
            b.triangle(Vec3::new(0.0, y, 0.0), at(k), at(k + 1), tint);
        }
    };
    match KINDS[kind] {
        ScatterKind::Tree => {
            quad(b, (-0.04, 0.0), (0.04, 0.45), TRUNK);
            match variant {
                0 => b.triangle(
                    Vec3::new(-0.28, 0.25, 0.0),
                    Vec3::new(0.28, 0.25, 0.0),
                    Vec3::new(0.0, 1.07, 0.0),
                    LEAVES,
                ),
                1 => blob(b, 0.62, 0.33, 0.34, LEAVES),
                _ => blob(b, 0.66, 0.2, 0.36, LEAVES),
            }
        }
        ScatterKind::Bush => {
            let h = [0.55, 0.7, 0.45][variant as usize % 3];
            blob(b, h * 0.45, 0.5, h * 0.5, LEAVES);
        }
        ScatterKind::Grass => {
            b.triangle(Vec3::new(-0.2, 0.0, 0.0), Vec3::new(0.2, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0), LEAVES);
        }
        ScatterKind::Rock => {
            let flat = [0.6, 0.8, 0.45][variant as usize % 3];
            blob(b, flat * 0.3, 0.5, flat * 0.55, LEAVES);
        }
        ScatterKind::Crystal => {
            b.triangle(Vec3::new(-0.12, 0.0, 0.0), Vec3::new(0.12, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0), LEAVES);
        }
    }
}

impl ModelSet {
    /// Every kind's variants, at every level.
    #[must_use]
    pub fn generate() -> Self {
        let mut set = Self::default();
        for kind in 0..KINDS.len() {
            for variant in 0..VARIANTS {
                for level in 0..LEVELS {
                    let first = set.indices.len() as u32;
                    let mut b = Builder { set: &mut set, detail: level as u8 };
                    if level == IMPOSTOR {
                        impostor(&mut b, kind, variant);
                    } else {
                        model(&mut b, kind, variant);
                    }
                    let count = set.indices.len() as u32 - first;
                    set.levels.push(ModelRange { first, count });
                }
                let full = set.levels[set.levels.len() - LEVELS];
                let solid = match KINDS[kind] {
                    // Trunks are built first and are the only untinted triangles of a tree.
                    ScatterKind::Tree => {
                        set.indices[full.first as usize..]
                            .chunks_exact(3)
                            .take_while(|t| set.vertices[t[0] as usize].tint == TRUNK)
                            .count() as u32
                            * 3
                    }
                    ScatterKind::Rock => full.count,
                    _ => 0,
                };
                set.solid.push(ModelRange { first: full.first, count: solid });
            }
        }
        set
    }

    /// Type `t`'s full model (`kind_index * VARIANTS + variant`; level 0).
    #[must_use]
    pub fn full(&self, t: usize) -> ModelRange {
        self.levels[t * LEVELS]
    }

    /// The corner indices of `range`, three a triangle.
    #[must_use]
    pub fn corners(&self, range: ModelRange) -> &[u32] {
        &self.indices[range.first as usize..(range.first + range.count) as usize]
    }

    /// The models, generated once per process.
    #[must_use]
    pub fn shared() -> &'static Self {
        static SET: std::sync::OnceLock<ModelSet> = std::sync::OnceLock::new();
        SET.get_or_init(Self::generate)
    }

    /// The triangles of `object` (of a region whose origin is `origin`) that
    /// a walker cannot pass: a tree's trunk, a boulder (a rock no parent
    /// brought; pebbles are stepped over), none for the rest; positions
    /// relative to `origin`, as the objects shader places them.
    pub fn solid_triangles(&self, object: &ScatterObject, origin: glam::DVec3) -> impl Iterator<Item = [Vec3; 3]> {
        let range = if object.kind == ScatterKind::Rock && object.child {
            ModelRange { first: 0, count: 0 }
        } else {
            self.solid[type_of(object)]
        };
        let axes = object.axes(origin);
        let place = move |i: u32| object.place(&axes, self.vertices[i as usize].position);
        self.corners(range).chunks_exact(3).map(move |t| [place(t[0]), place(t[1]), place(t[2])])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_has_a_closed_enough_unit_model() {
        let set = ModelSet::generate();
        for (t, r) in (0..TYPES).map(|t| (t, set.full(t))) {
            assert!(r.count >= 9 && r.count % 3 == 0, "type {t}: {} indices", r.count);
            let points = set.indices[r.first as usize..(r.first + r.count) as usize]
                .iter()
                .map(|&i| Vec3::from(set.vertices[i as usize].position));
            let (lo, hi) = points.fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| (lo.min(p), hi.max(p)));
            // Standing on the origin, about a unit tall or wide, never far off it.
            assert!(lo.y >= -0.2 && hi.y <= 1.3 && hi.y >= 0.2, "type {t}: y from {} to {}", lo.y, hi.y);
            assert!(lo.x >= -0.8 && hi.x <= 0.8, "type {t}: x from {} to {}", lo.x, hi.x);
        }
    }

    /// Every type has its three levels, each cheaper than the one before;
    /// the low model spans about the full one's box, and the impostor is
    /// flat, facing +z, as tall as the model and no wider.
    #[test]
    fn every_type_has_cheaper_levels_and_a_flat_impostor() {
        let set = ModelSet::generate();
        assert_eq!(set.levels.len(), TYPES * LEVELS);
        let bounds = |r: &ModelRange| {
            set.indices[r.first as usize..(r.first + r.count) as usize]
                .iter()
                .map(|&i| Vec3::from(set.vertices[i as usize].position))
                .fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| (lo.min(p), hi.max(p)))
        };
        for t in 0..TYPES {
            let [full, low, far] = [0, 1, 2].map(|l| set.levels[t * LEVELS + l]);
            assert!(
                full.count > low.count && low.count > far.count && far.count >= 3,
                "type {t}: {full:?} {low:?} {far:?}"
            );
            let (flo, fhi) = bounds(&full);
            let (llo, lhi) = bounds(&low);
            let off = (fhi - lhi).abs().max_element().max((flo - llo).abs().max_element());
            assert!(off < 0.25, "type {t}: the low model's box is {off} off the full one's");
            let (ilo, ihi) = bounds(&far);
            assert!(ilo.z == 0.0 && ihi.z == 0.0, "type {t}: the impostor is not flat");
            assert!(
                (ihi.y - fhi.y).abs() < 0.15 * fhi.y.max(0.3),
                "type {t}: impostor {} tall, model {}",
                ihi.y,
                fhi.y
            );
            assert!(ihi.x <= fhi.x + 0.05 && ilo.x >= flo.x - 0.05, "type {t}: the impostor is wider than the model");
        }
    }

    #[test]
    fn trunks_and_rocks_are_solid_and_nothing_else() {
        let set = ModelSet::generate();
        assert_eq!(set.solid.len(), TYPES);
        for (t, (solid, all)) in set.solid.iter().zip((0..TYPES).map(|t| set.full(t))).enumerate() {
            let kind = KINDS[t / VARIANTS as usize];
            let corners = &set.indices[solid.first as usize..(solid.first + solid.count) as usize];
            match kind {
                ScatterKind::Tree => {
                    // The six-sided trunk, and no leaf.
                    assert_eq!(solid.count, 36, "type {t}");
                    assert!(corners.iter().all(|&i| set.vertices[i as usize].tint == TRUNK), "type {t}");
                    let top = corners.iter().map(|&i| set.vertices[i as usize].position[1]).fold(0.0, f32::max);
                    assert!((top - 0.45).abs() < 1e-6, "type {t}: trunk top {top}");
                }
                ScatterKind::Rock => assert_eq!(*solid, all, "type {t}"),
                _ => assert_eq!(solid.count, 0, "type {t}"),
            }
        }
    }
}
