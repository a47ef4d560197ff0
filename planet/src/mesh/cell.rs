//! One grid cell of the dual-contouring polygonizer: its corner, edge and face
//! tables, the surface components inside it, and the vertex of each.
//!
//! Corners are numbered x + 2y + 4z. A cell gets one vertex per connected
//! piece of surface inside it, not one in all: on each face the sign-changing
//! edges are paired, and edges linked through faces form one component. This
//! keeps the mesh manifold where plain one-vertex dual contouring would join
//! separate sheets.
//!
//! An ambiguous face (four sign changes, two arcs) is resolved by the sign of
//! the sum of its corners, which both cells sharing it compute alike, unless
//! that makes one component of *each* cell hold both arcs: then the two
//! vertices would be joined by one mesh edge standing for both arcs, used by
//! four triangles. The other resolution never does that in both cells (in
//! one cell, the two resolutions cannot both merge the arcs: that would take
//! a solid path and an air path across the cell's other faces between the
//! face's two diagonals, and those would cross), so the face takes it
//! (`face_centres`). Both cells still decide alike: the test reads the two
//! cells' own corners only.
//!
//! That choice cannot always hold: in a cell, exactly one resolution of a face
//! merges its arcs (whichever resolutions its other faces take), but *which*
//! one depends on those other faces, and they flip too, for their own
//! neighbours. Where every ambiguous face of both cells flips at once, the
//! flips can knock on into each other and leave the shared face merged on
//! both sides; chains of such cells reach further than a region's window, so
//! no decision it can make alike with its neighbours prevents it. The
//! polygonizer then gives each arc a vertex of its own (`dual_contour.rs`).

use glam::Vec3;

use super::qef::Qef;

/// The 12 edges as (corner, corner), lower corner first: 4 along x, 4 along y, 4 along z.
pub const EDGES: [(usize, usize); 12] =
    [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7)];

/// The 6 faces: four corners in cyclic order, and the edge between each corner and the next.
/// Face 2a + s is the one at coordinate s on axis a.
pub const FACES: [([usize; 4], [usize; 4]); 6] = [
    ([0, 2, 6, 4], [4, 10, 6, 8]),
    ([1, 3, 7, 5], [5, 11, 7, 9]),
    ([0, 1, 5, 4], [0, 9, 2, 8]),
    ([2, 3, 7, 6], [1, 11, 3, 10]),
    ([0, 1, 3, 2], [0, 5, 1, 4]),
    ([4, 5, 7, 6], [2, 7, 3, 6]),
];

/// The edge joining two corners, if they share one.
#[must_use]
pub fn edge_between(a: usize, b: usize) -> Option<usize> {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    EDGES.iter().position(|&e| e == (lo, hi))
}

/// The position of corner `c` in the unit cell.
#[inline]
#[must_use]
pub fn corner_position(c: usize) -> Vec3 {
    CORNER_POSITIONS[c]
}

const CORNER_POSITIONS: [Vec3; 8] = {
    let mut p = [Vec3::ZERO; 8];
    let mut c = 0;
    while c < 8 {
        p[c] = Vec3::new((c & 1) as f32, ((c >> 1) & 1) as f32, ((c >> 2) & 1) as f32);
        c += 1;
    }
    p
};

/// Which component each sign-changing edge belongs to (`NONE` for the others),
/// and how many components there are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Components {
    /// Component of each edge.
    pub of_edge: [u8; 12],
    /// Number of components (1..=4 for a cell the surface crosses).
    pub count: u8,
    /// The edges the surface crosses, one bit each (those whose `of_edge` is
    /// not `NONE`), kept rather than worked out again by every pass over them.
    pub crossing: u16,
}

impl Components {
    /// The edges the surface crosses, one bit each.
    #[inline]
    #[must_use]
    pub fn crossing_mask(&self) -> u16 {
        self.crossing
    }

    /// The edges component `c` crosses, in increasing order.
    #[inline]
    pub fn edges_of(&self, c: usize) -> impl Iterator<Item = usize> + '_ {
        let mut edges = self.crossing;
        core::iter::from_fn(move || {
            let e = edges.trailing_zeros() as usize;
            edges &= edges.wrapping_sub(1);
            (e < 16).then_some(e)
        })
        .filter(move |&e| usize::from(self.of_edge[e]) == c)
    }
}

/// Marks an edge the surface does not cross.
pub const NONE: u8 = u8::MAX;

/// The surface components of a cell with corner densities `d` (solid > 0),
/// its ambiguous faces resolved by their corner sums alone.
#[must_use]
pub fn components(d: &[i16; 8]) -> Components {
    components_with(d, sum_centres(d))
}

/// The surface components of a cell with corner densities `d`, where bit f
/// of `solid_centre` says whether ambiguous face f's centre is solid.
#[must_use]
pub fn components_with(d: &[i16; 8], solid_centre: u8) -> Components {
    let config = sign_config(d);
    if AMBIGUOUS[config as usize] == 0 {
        return TABLE[config as usize];
    }
    components_of(config, solid_centre)
}

/// Which corners are solid, one bit each.
#[inline]
fn sign_config(d: &[i16; 8]) -> u8 {
    let mut config = 0u8;
    for (c, &v) in d.iter().enumerate() {
        config |= u8::from(v > 0) << c;
    }
    config
}

/// Faces (bit f) whose corners alternate between solid and air.
#[inline]
#[must_use]
pub fn ambiguous_faces(d: &[i16; 8]) -> u8 {
    AMBIGUOUS[sign_config(d) as usize]
}

/// Bit f set where face f's corner sum is positive: the first guess at which
/// ambiguous faces have a solid centre.
fn sum_centres(d: &[i16; 8]) -> u8 {
    let mut solid_centre = 0u8;
    for (f, (corners, _)) in FACES.iter().enumerate() {
        let sum: i32 = corners.iter().map(|&c| i32::from(d[c])).sum();
        solid_centre |= u8::from(sum > 0) << f;
    }
    solid_centre
}

/// Whether one component of the cell holds both arcs of its ambiguous face
/// `f`, with its faces resolved by `solid_centre`.
fn arcs_merge(d: &[i16; 8], solid_centre: u8, f: usize) -> bool {
    let comps = components_of(sign_config(d), solid_centre);
    let [e0, e1, e2, e3] = FACES[f].1.map(|e| comps.of_edge[e]);
    e0 == e1 && e1 == e2 && e2 == e3
}

/// The offset of the cell across face f.
const fn across(f: usize) -> [i32; 3] {
    let mut o = [0; 3];
    o[f / 2] = if f & 1 == 0 { -1 } else { 1 };
    o
}

/// The first resolution of a cell's ambiguous faces: the corner sums, each
/// flipped where with the sums both it and the cell across would merge the
/// face's arcs. Face `except` keeps its sum (its far side is not looked at).
fn first_centres(d: &[i16; 8], cell_at: &impl Fn([i32; 3]) -> Option<[i16; 8]>, at: [i32; 3], except: usize) -> u8 {
    let sums = sum_centres(d);
    let mut out = sums;
    let mut ambiguous = ambiguous_faces(d) & !(1 << except);
    while ambiguous != 0 {
        let f = ambiguous.trailing_zeros() as usize;
        ambiguous &= ambiguous - 1;
        let o = across(f);
        // The cell across sees this face as its opposite one (faces come in pairs).
        if let Some(n) = cell_at([at[0] + o[0], at[1] + o[1], at[2] + o[2]])
            && arcs_merge(d, sums, f)
            && arcs_merge(&n, sum_centres(&n), f ^ 1)
        {
            out ^= 1 << f;
        }
    }
    out
}

/// The solid centres (bit per face) of a cell's ambiguous faces, given the
/// corner densities of the cells around it (`cell_at(offset)`, None where
/// unknown): the corner sum decides, unless with it both cells sharing the
/// face would merge its two arcs into one component (see the module doc).
///
/// That test takes the cells' other faces as resolved by their sums; a second
/// look takes them as resolved by that first test, for the cells whose other
/// ambiguous faces change the answer. Each look at face f reads the two cells
/// sharing it and the cells beside them, never beyond their far faces, so
/// every region that holds the two cells in its window decides alike.
#[must_use]
pub fn face_centres(d: &[i16; 8], cell_at: impl Fn([i32; 3]) -> Option<[i16; 8]>) -> u8 {
    let mut out = first_centres(d, &cell_at, [0; 3], 6);
    let mut ambiguous = ambiguous_faces(d);
    while ambiguous != 0 {
        let f = ambiguous.trailing_zeros() as usize;
        ambiguous &= ambiguous - 1;
        let o = across(f);
        let Some(n) = cell_at(o) else { continue };
        // Our far face from f is f ^ 1; the neighbour's is f.
        let ours = first_centres(d, &cell_at, [0; 3], f ^ 1);
        let theirs = first_centres(&n, &cell_at, o, f);
        if arcs_merge(d, ours, f) && arcs_merge(&n, theirs, f ^ 1) {
            out ^= 1 << f;
        }
    }
    out
}

/// Faces (bit f) whose corners alternate between solid and air, per sign configuration.
const AMBIGUOUS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut config = 0;
    while config < 256 {
        let mut f = 0;
        while f < 6 {
            let c = FACES[f].0;
            let (s0, s1, s2, s3) =
                ((config >> c[0]) & 1, (config >> c[1]) & 1, (config >> c[2]) & 1, (config >> c[3]) & 1);
            if s0 == s2 && s1 == s3 && s0 != s1 {
                t[config] |= 1 << f;
            }
            f += 1;
        }
        config += 1;
    }
    t
};

/// Components of every configuration without an ambiguous face.
const TABLE: [Components; 256] = {
    let mut t = [Components { of_edge: [NONE; 12], count: 0, crossing: 0 }; 256];
    let mut config = 0;
    while config < 256 {
        t[config] = components_of(config as u8, 0);
        config += 1;
    }
    t
};

/// Components of sign configuration `config` (bit c: corner c solid); on an
/// ambiguous face f, bit f of `solid_centre` says whether its centre is solid.
const fn components_of(config: u8, solid_centre: u8) -> Components {
    const fn solid(config: u8, c: usize) -> bool {
        (config >> c) & 1 == 1
    }
    const fn crosses(config: u8, e: usize) -> bool {
        solid(config, EDGES[e].0) != solid(config, EDGES[e].1)
    }
    // Union-find over the 12 edges.
    let mut parent = [0u8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
    const fn find(parent: &[u8; 12], mut i: u8) -> u8 {
        while parent[i as usize] != i {
            i = parent[i as usize];
        }
        i
    }
    const fn union(parent: &mut [u8; 12], a: usize, b: usize) {
        let ra = find(parent, a as u8);
        let rb = find(parent, b as u8);
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            parent[hi as usize] = lo;
        }
    }
    let mut f = 0;
    while f < 6 {
        let (corners, edges) = FACES[f];
        let mut crossing = [0usize; 4];
        let mut count = 0;
        let mut i = 0;
        while i < 4 {
            if crosses(config, edges[i]) {
                crossing[count] = i;
                count += 1;
            }
            i += 1;
        }
        if count == 2 {
            union(&mut parent, edges[crossing[0]], edges[crossing[1]]);
        } else if count == 4 {
            // Solid centre: each air corner is cut off by its own arc, joining its
            // two edges; otherwise each solid corner is.
            let isolated_solid = (solid_centre >> f) & 1 == 0;
            let mut i = 0;
            while i < 4 {
                if solid(config, corners[i]) == isolated_solid {
                    // Corner i lies between edge i-1 and edge i.
                    union(&mut parent, edges[(i + 3) % 4], edges[i]);
                }
                i += 1;
            }
        }
        f += 1;
    }
    let mut of_edge = [NONE; 12];
    let mut label = [NONE; 12];
    let mut count = 0u8;
    let mut crossing = 0u16;
    let mut e = 0;
    while e < 12 {
        if crosses(config, e) {
            crossing |= 1 << e;
            let root = find(&parent, e as u8) as usize;
            if label[root] == NONE {
                label[root] = count;
                count += 1;
            }
            of_edge[e] = label[root];
        }
        e += 1;
    }
    Components { of_edge, count, crossing }
}

/// Where the cell's trilinear interpolant crosses zero on sign-changing
/// edge `e` (linear along the edge, so the crossing is on its zero set).
#[inline]
fn edge_crossing(d: &[f32; 8], e: usize) -> Vec3 {
    let (a, b) = EDGES[e];
    corner_position(a).lerp(corner_position(b), d[a] / (d[a] - d[b]))
}

/// The gradient of the cell's trilinear interpolant at `p` (in the unit cell).
#[must_use]
pub fn trilinear_gradient(d: &[f32; 8], p: Vec3) -> Vec3 {
    let (x, y, z) = (p.x, p.y, p.z);
    let (ix, iy, iz) = (1.0 - x, 1.0 - y, 1.0 - z);
    let gx = (d[1] - d[0]) * iy * iz + (d[3] - d[2]) * y * iz + (d[5] - d[4]) * iy * z + (d[7] - d[6]) * y * z;
    let gy = (d[2] - d[0]) * ix * iz + (d[3] - d[1]) * x * iz + (d[6] - d[4]) * ix * z + (d[7] - d[5]) * x * z;
    let gz = (d[4] - d[0]) * ix * iy + (d[5] - d[1]) * x * iy + (d[6] - d[2]) * ix * y + (d[7] - d[3]) * x * y;
    Vec3::new(gx, gy, gz)
}

/// A vertex of one surface component, in the unit cell of its own face's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellVertex {
    /// Position in [0, 1]³.
    pub position: Vec3,
    /// Outward normal of the density field at the vertex (smooth across cells).
    pub smooth_normal: Vec3,
    /// Mean outward normal of the component's tangent planes (the facet's normal).
    pub face_normal: Vec3,
    /// The solid corner nearest the vertex, whose materials the vertex takes.
    pub material_corner: usize,
}

/// Where each sign-changing edge is crossed (position in the unit cell) and the
/// outward normal there, from the cell's trilinear interpolant alone: the
/// fallback when no wider stencil is available.
#[must_use]
pub fn trilinear_hermite(d: &[i16; 8], comps: &Components) -> [(Vec3, Vec3); 12] {
    let df: [f32; 8] = d.map(f32::from);
    // Only the crossed edges' entries are ever read.
    let mut out = [(Vec3::ZERO, Vec3::ZERO); 12];
    let mut edges = comps.crossing_mask();
    while edges != 0 {
        let e = edges.trailing_zeros() as usize;
        edges &= edges - 1;
        let (a, b) = EDGES[e];
        let p = edge_crossing(&df, e);
        // Outward (towards air) is down the density gradient.
        let n = (-trilinear_gradient(&df, p)).normalize_or(corner_position(a) - corner_position(b));
        out[e] = (p, n);
    }
    out
}

/// The vertex of each component: a QEF solve with a mass-point `bias` over the
/// component's hermite data (crossing, outward normal per edge), kept inside
/// the cell (`vertex_position`).
#[must_use]
pub fn vertices(d: &[i16; 8], comps: &Components, hermite: &[(Vec3, Vec3); 12], bias: f32) -> [Option<CellVertex>; 4] {
    let mut out = [None; 4];
    let mut c = 0;
    for_each_vertex(
        d,
        comps,
        hermite,
        bias,
        |_, _| true,
        |_, _| None,
        |v| {
            out[c] = Some(v);
            c += 1;
        },
    );
    out
}

/// `vertices`, handed to `f` one by one in component order (no array of
/// options to fill and walk again). `sharp_holds(p)` says whether a wider
/// look at the samples than the cell's own finds the surface near `p`, a
/// vertex the trilinear interpolant cannot vouch for (`near_zero_set`).
#[inline]
pub fn for_each_vertex(
    d: &[i16; 8],
    comps: &Components,
    hermite: &[(Vec3, Vec3); 12],
    bias: f32,
    sharp_holds: impl Fn(Vec3, &TangentSolid) -> bool,
    field_near: impl Fn(Vec3, &[Vec3]) -> Option<bool>,
    mut f: impl FnMut(CellVertex),
) {
    let count = usize::from(comps.count).min(4);
    let mut qefs = [Qef::default(); 4];
    let mut normal_sums = [Vec3::ZERO; 4];
    // Which corners each component touches on its solid side (bit per corner).
    let mut solid_corners = [0u8; 4];
    let mut edges = comps.crossing_mask();
    while edges != 0 {
        let e = edges.trailing_zeros() as usize;
        edges &= edges - 1;
        let c = usize::from(comps.of_edge[e]) & 3;
        let (p, n) = hermite[e];
        qefs[c].add(p, n);
        normal_sums[c] += n;
        let (a, b) = EDGES[e];
        solid_corners[c] |= 1 << [b, a][usize::from(d[a] > 0)];
    }
    let df: [f32; 8] = d.map(f32::from);
    for c in 0..count {
        let position =
            near_zero_set(&df, comps, hermite, c, vertex_position(&qefs[c], bias), &sharp_holds, &field_near);
        let face = normal_sums[c].normalize_or(Vec3::Z);
        let smooth = (-trilinear_gradient(&df, position)).normalize_or(face);
        // The component's solid corner nearest the vertex.
        let mut best = (f32::MAX, 0usize);
        let mut corners = solid_corners[c];
        while corners != 0 {
            let s = corners.trailing_zeros() as usize;
            corners &= corners - 1;
            let q = position - corner_position(s);
            let dist = q.x * q.x + q.y * q.y + q.z * q.z;
            best = if dist < best.0 { (dist, s) } else { best };
        }
        f(CellVertex { position, smooth_normal: smooth, face_normal: face, material_corner: best.1 });
    }
}

/// How far inside its cell a vertex stays, in cells: vertices of neighbouring
/// cells never meet, so no triangle between them collapses.
pub const INSET: f32 = 1.0 / 1024.0;

/// How far outside the cell a QEF solution may fall and still be kept
/// (clamped): a sharp corner or edge on the cell's boundary, not a wild guess.
const SLACK: f32 = 0.05;

/// How far (root mean square, cells) a kept QEF solution may be from its
/// tangent planes.
const FIT: f32 = 0.1;

/// A component's vertex: the QEF's minimiser where it falls in the cell (a
/// corner or edge of the surface there), else the mass point of the
/// crossings. A minimiser far outside comes of tangent planes that hardly
/// disagree (a gently curved sheet, or one whose normals are off): clamped,
/// it would land on a face, edge or corner of the cell, away from the surface,
/// the same point for cells on either side: a spike, or a triangle of no area.
#[must_use]
pub fn vertex_position(qef: &Qef, bias: f32) -> Vec3 {
    let solved = qef.solve(bias);
    let inside = solved.cmpge(Vec3::splat(-SLACK)).all() && solved.cmple(Vec3::splat(1.0 + SLACK)).all();
    let kept = inside && qef.rms_distance(solved) <= FIT;
    let position = if kept { solved } else { qef.mass_point() };
    position.clamp(Vec3::splat(INSET), Vec3::splat(1.0 - INSET))
}

/// How far (cells) a vertex may be from the zero set of its cell's trilinear
/// interpolant, the density it was made from (`near_zero_set`).
const REACH: f32 = 0.45;

/// The value of the cell's trilinear interpolant at `p` (in the unit cell).
fn trilinear_value(d: &[f32; 8], p: Vec3) -> f32 {
    let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
    let face = |o: usize| lerp(lerp(d[o], d[o + 1], p.x), lerp(d[o + 2], d[o + 3], p.x), p.y);
    lerp(face(0), face(4), p.z)
}

/// `p`, kept where it is near the surface, else pulled to `REACH` from the
/// nearest crossing of component `c` on the way to `p`.
///
/// The QEF's planes can meet far from the surface where the stencil's normals
/// see a corner the cell's samples do not (a worm tunnel thinner than a cell,
/// a carve grazing a corner): such a vertex floats in the air or sinks into
/// rock, and its triangles fold. Near means, cheapest test first: a sign
/// change of the cell's trilinear interpolant within `REACH` down its
/// gradient; a crossing within `REACH` (the interpolant is linear along an
/// edge, so its crossing is on its zero set); a sign change on the way to the
/// nearest crossing; or a sharp corner or edge, which the trilinear
/// interpolant rounds off by up to most of a cell: a point inside the box
/// the component's hermite crossings span, whose tangent planes explain the
/// cell's corners (`corner_solid`) and near which a wider look at
/// the samples finds the surface (`sharp_holds`: the tricubic interpolant
/// near it, and, since generator 15, the samples a cell or two out on the
/// sides the planes put them, `TangentSolid::fits_samples`). It stays sharp
/// where it is near the zero set of the density the samples were taken
/// from (`within_sharp_reach`).
/// (The box alone also kept vertices that bad normals had put where no
/// surface is: with the corners and the tricubic look, 100 rather than 132
/// of 214,000 vertices were over half a cell from the generator's own zero
/// set, `tests/manifold.rs`; with the samples around too, 17.)
fn near_zero_set(
    d: &[f32; 8],
    comps: &Components,
    hermite: &[(Vec3, Vec3); 12],
    c: usize,
    p: Vec3,
    sharp_holds: &impl Fn(Vec3, &TangentSolid) -> bool,
    field_near: &impl Fn(Vec3, &[Vec3]) -> Option<bool>,
) -> Vec3 {
    let f = trilinear_value(d, p);
    let g = trilinear_gradient(d, p);
    let g2 = g.length_squared();
    // A sign change at a point of the cell (the interpolant means nothing outside it).
    let changes =
        |q: Vec3| q.cmpge(Vec3::ZERO).all() && q.cmple(Vec3::ONE).all() && (trilinear_value(d, q) > 0.0) != (f > 0.0);
    if g2 > 0.0 && f * f <= REACH * REACH * g2 && changes(p - g * (f / g2 * 1.01)) {
        return p;
    }
    let (mut nearest, mut dist) = (p, f32::MAX);
    let (mut lo, mut hi) = (Vec3::ONE, Vec3::ZERO);
    for e in comps.edges_of(c) {
        let x = edge_crossing(d, e);
        if x.distance(p) < dist {
            (nearest, dist) = (x, x.distance(p));
        }
        (lo, hi) = (lo.min(hermite[e].0), hi.max(hermite[e].0));
    }
    if dist <= REACH || (1..=4).any(|k| changes(p.lerp(nearest, REACH * k as f32 * 0.25 / dist))) {
        return p;
    }
    let inside_box = p.cmpge(lo).all() && p.cmple(hi).all();
    if inside_box && corner_solid(d, comps, hermite, c).is_some_and(|solid| sharp_holds(p, &solid)) {
        return within_sharp_reach(d, comps, c, p, field_near);
    }
    nearest.lerp(p, REACH / dist).clamp(Vec3::splat(INSET), Vec3::splat(1.0 - INSET))
}

/// How far (cells) a sharp vertex may be from the zero set of the density
/// its samples were taken from: under half a cell, with room for the
/// tests' search, which finds a zero set to a 32nd of a cell.
pub const SHARP_REACH: f32 = 0.48;

/// Sharp vertex `p` of component `c`, kept where it lies within
/// `SHARP_REACH` of its cell's trilinear zero set (on the way to one of
/// the component's crossings or to a corner of the other sign) or, farther
/// off, where the density the samples were taken from has its zero set
/// that near (`field_near(p, points to look towards)`: `None` where that
/// density is not known, as for an edited cell's samples); else pulled to
/// `SHARP_REACH` from the nearest point of the trilinear zero set found
/// (generator 18).
///
/// The trilinear interpolant rounds a true corner or edge off, by up to
/// 0.8 cells at a box's corner (the sharp-feature tests) and 0.73 at an
/// edge whose faces meet at 75-105°, placed and turned at random in its
/// cell (3,000 wedges fitted), so its zero set alone cannot tell a true
/// crease from one the samples alias (a ridge thinner than a cell, whose
/// planes passed every look at the samples). The field can: a true
/// crease lies on its zero set.
#[inline(never)]
fn within_sharp_reach(
    d: &[f32; 8],
    comps: &Components,
    c: usize,
    p: Vec3,
    field_near: &impl Fn(Vec3, &[Vec3]) -> Option<bool>,
) -> Vec3 {
    let solid = trilinear_value(d, p) > 0.0;
    let mut best = (f32::MAX, p);
    let mut towards = [Vec3::ZERO; 21];
    let mut count = 1;
    let mut look = |target: Vec3, on_zero_set: bool| {
        let mut before = p;
        for k in 1..=STEPS {
            let q = p.lerp(target, k as f32 / STEPS as f32);
            if (trilinear_value(d, q) > 0.0) != solid {
                let zero = bisect_sign(d, before, q, solid);
                best = if zero.distance(p) < best.0 { (zero.distance(p), zero) } else { best };
                return;
            }
            before = q;
        }
        if on_zero_set && target.distance(p) < best.0 {
            best = (target.distance(p), target);
        }
    };
    for e in comps.edges_of(c) {
        let crossing = edge_crossing(d, e);
        look(crossing, true);
        towards[count] = crossing;
        count += 1;
    }
    for k in 0..8 {
        if (d[k] > 0.0) != solid {
            look(corner_position(k), false);
            towards[count] = corner_position(k);
            count += 1;
        }
    }
    let (dist, zero) = best;
    if dist <= SHARP_REACH {
        return p;
    }
    towards[0] = zero;
    if field_near(p, &towards[..count]) != Some(false) {
        return p;
    }
    zero.lerp(p, SHARP_REACH / dist).clamp(Vec3::splat(INSET), Vec3::splat(1.0 - INSET))
}

/// Steps along a segment in which `within_sharp_reach` looks for a sign change.
const STEPS: usize = 16;

/// The point between `a` (on side `solid`) and `b` (on the other) where the
/// cell's trilinear interpolant changes sign, to 2^-12 of the segment.
fn bisect_sign(d: &[f32; 8], mut a: Vec3, mut b: Vec3, solid: bool) -> Vec3 {
    for _ in 0..12 {
        let m = a.lerp(b, 0.5);
        if (trilinear_value(d, m) > 0.0) == solid {
            a = m;
        } else {
            b = m;
        }
    }
    a.lerp(b, 0.5)
}

/// How far a third normal must leave the plane of two others (the sine of
/// the angle, about 6°) for three planes to make a corner, and how far two
/// normals must differ for an edge.
const CORNER_SPAN: f32 = 0.1;

/// How far (cells) a sample may lie on the wrong side of a sharp vertex's
/// tangent solid and still agree with it: the planes come from crossings
/// and normals a few hundredths of a cell off, and a true corner's faces are
/// not quite flat.
const FIT_TOLERANCE: f32 = 0.3;

/// How far (cells) along an edge's crease its samples are checked: farther
/// along, the edge may end at a corner whose third face this cell's planes
/// do not hold (a box's edge 1.5 cells from its corner).
const EDGE_REACH: f32 = 1.0;

/// The shape of a component's tangent planes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Crease {
    /// Their normals all about parallel: a sheet.
    Flat,
    /// Two directions: an edge running along this unit vector.
    Edge(Vec3),
    /// Three or more: a corner.
    Corner,
}

/// The solid that a component's tangent planes bound: their intersection
/// (a corner or edge of rock) or their union (one of air).
#[derive(Clone, Copy, Debug)]
pub struct TangentSolid {
    /// (crossing, outward normal) of each of the component's edges.
    planes: [(Vec3, Vec3); 12],
    count: usize,
    union: bool,
}

impl TangentSolid {
    /// How deep `q` lies inside the solid (cells; negative outside): the
    /// least (intersection) or greatest (union) depth under the planes.
    #[must_use]
    pub fn depth(&self, q: Vec3) -> f32 {
        // Inside (solid) is against the outward normal.
        let depths = self.planes[..self.count].iter().map(|&(at, n)| n.dot(at - q));
        if self.union { depths.fold(f32::MIN, f32::max) } else { depths.fold(f32::MAX, f32::min) }
    }

    /// Whether the planes make a sheet, an edge or a corner.
    #[must_use]
    pub fn crease(&self) -> Crease {
        let n = &self.planes[..self.count];
        let mut widest = (0.0f32, Vec3::ZERO);
        for i in 0..n.len() {
            for j in i + 1..n.len() {
                let along = n[i].1.cross(n[j].1);
                if along.length_squared() > widest.0 {
                    widest = (along.length_squared(), along);
                }
                if n[j + 1..].iter().any(|&(_, third)| third.dot(along).abs() > CORNER_SPAN) {
                    return Crease::Corner;
                }
            }
        }
        if widest.0 > CORNER_SPAN * CORNER_SPAN { Crease::Edge(widest.1.normalize()) } else { Crease::Flat }
    }

    /// Whether a sharp vertex at `p` agrees with the samples at offsets -1
    /// to 2 from the cell's minimum corner (`sample([x, y, z])`, solid > 0):
    /// each is on the solid's side it lies on, those within `FIT_TOLERANCE` of
    /// its boundary aside, and an edge's only within `EDGE_REACH` along it.
    /// A sheet is not checked. Where the tangent planes meet beside a
    /// rounded or thin feature (a worm tunnel's wall, a dip in the ground
    /// thinner than a cell), they mark a corner that the samples a cell or
    /// two out contradict; a true corner's planes explain them.
    #[must_use]
    // Out of line, as `corner_solid` is: few vertices come this far, and
    // inlined into the polygonizer's loop these made the whole stage about
    // 5% slower (the region job bench, two alternating runs).
    #[inline(never)]
    pub fn fits_samples(&self, p: Vec3, sample: impl Fn([i32; 3]) -> f32) -> bool {
        let crease = self.crease();
        if crease == Crease::Flat {
            return true;
        }
        (0..64).all(|i: i32| {
            let at = [i % 4 - 1, i / 4 % 4 - 1, i / 16 - 1];
            let q = Vec3::new(at[0] as f32, at[1] as f32, at[2] as f32);
            if let Crease::Edge(along) = crease
                && (q - p).dot(along).abs() > EDGE_REACH
            {
                return true;
            }
            let depth = self.depth(q);
            depth.abs() <= FIT_TOLERANCE || (depth > 0.0) == (sample(at) > 0.0)
        })
    }
}

/// The solid component `c`'s tangent planes bound, where it explains the
/// cell's corners: it holds exactly the solid ones.
#[inline(never)]
fn corner_solid(d: &[f32; 8], comps: &Components, hermite: &[(Vec3, Vec3); 12], c: usize) -> Option<TangentSolid> {
    let mut solid = TangentSolid { planes: [(Vec3::ZERO, Vec3::ZERO); 12], count: 0, union: false };
    for e in comps.edges_of(c) {
        solid.planes[solid.count] = hermite[e];
        solid.count += 1;
    }
    let agrees = |s: &TangentSolid| (0..8).all(|k| (s.depth(corner_position(k)) > 0.0) == (d[k] > 0.0));
    if agrees(&solid) {
        return Some(solid);
    }
    solid.union = true;
    agrees(&solid).then_some(solid)
}

/// How alike (the lesser over the greater) the bends on both sides of a
/// crossing may be, and how much (against its own slope) the straighter
/// side may bend, for a one-sided slope to be taken.
const ALIKE: f32 = 0.5;

/// The gradient across an edge, from samples along a line through the crossing
/// (`v[k]` at offset k - `reach`, the crossing itself at the middle). With a
/// reach of 2 it picks the one-sided difference on the side that bends least
/// (ENO), so a crossing beside a sharp edge takes the slope of its own face,
/// not a blend of both; but where both sides bend alike, or the straighter
/// one bends by over half its slope, no face is there to keep to and it
/// takes the central difference (generator 17: at the bottom of a worm
/// tunnel's cross-section, where the density along the line has its
/// minimum, ENO's pick pointed the normal into the floor or the roof at
/// random, and the planes made a crease the tunnel does not have). With a
/// reach of 1 it takes the smaller one-sided difference, or none where they
/// disagree in sign (minmod).
#[must_use]
pub fn one_sided_slope(v: &[f32], reach: usize) -> f32 {
    let m = reach;
    let back = v[m] - v[m - 1];
    let fwd = v[m + 1] - v[m];
    if reach >= 2 {
        let bend_back = (v[m] - 2.0 * v[m - 1] + v[m - 2]).abs();
        let bend_fwd = (v[m + 2] - 2.0 * v[m + 1] + v[m]).abs();
        let (straighter, bend) = if bend_fwd < bend_back { (fwd, bend_fwd) } else { (back, bend_back) };
        let alike = bend_back.min(bend_fwd) >= ALIKE * bend_back.max(bend_fwd);
        if alike || bend > ALIKE * straighter.abs() { 0.5 * (back + fwd) } else { straighter }
    } else if back * fwd <= 0.0 {
        0.0
    } else if back.abs() < fwd.abs() {
        back
    } else {
        fwd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(solid: &[usize]) -> [i16; 8] {
        core::array::from_fn(|c| if solid.contains(&c) { 100 } else { -100 })
    }

    #[test]
    fn tables_are_consistent() {
        for (corners, edges) in FACES {
            for i in 0..4 {
                assert_eq!(edge_between(corners[i], corners[(i + 1) % 4]), Some(edges[i]));
            }
        }
        assert_eq!(edge_between(0, 7), None);
    }

    #[test]
    fn simple_cases_have_one_component() {
        for solid in [&[0usize][..], &[0, 1], &[0, 1, 2, 3], &[0, 1, 2, 3, 4], &[7]] {
            let c = components(&cell(solid));
            assert_eq!(c.count, 1, "{solid:?}");
        }
        assert_eq!(components(&cell(&[])).count, 0);
    }

    #[test]
    fn separate_corners_are_separate_components() {
        // Two opposite corners: two sheets that must not share a vertex.
        assert_eq!(components(&cell(&[0, 7])).count, 2);
        // Ambiguous face (0 and 3 solid on z = 0): with weak solid the air connects
        // across the face and the solid corners are cut off separately.
        let mut d = cell(&[0, 3]);
        assert_eq!(components(&d).count, 2);
        // With strong solid, the solid connects across the face: one component.
        d[0] = 1000;
        d[3] = 1000;
        assert_eq!(components(&d).count, 1);
    }

    #[test]
    fn one_sided_slopes_keep_to_their_face() {
        // Bent on the left, straight and flat on the right: the right's slope.
        let v = [-2.5, -1.0, 0.0, 0.0, 0.0];
        assert_eq!(one_sided_slope(&v, 2), 0.0);
        // Straight on both sides but different (a kink right at the crossing): the mean.
        assert_eq!(one_sided_slope(&[-2.0, -1.0, 0.0, 0.0, 0.0], 2), 0.5);
        let v = [0.0, 0.0, 0.0, 0.7, 1.9];
        assert_eq!(one_sided_slope(&v, 2), 0.0);
        let v = [-1.6, -0.8, 0.0, -0.3, -1.1];
        assert!((one_sided_slope(&v, 2) - 0.8).abs() < 1e-6);
        // A minimum between the samples, both sides curving alike (a tunnel's
        // cross-section): the central difference, not one side's slope.
        assert_eq!(one_sided_slope(&[353.0, 121.0, 0.0, 78.0, 289.0], 2), -21.5);
        // The straighter side still bends by more than half its slope: central.
        assert_eq!(one_sided_slope(&[150.0, 49.0, 0.0, 91.0, 557.0], 2), 21.0);
        // A face on one side, the other bending over a ridge: the face's slope.
        assert_eq!(one_sided_slope(&[-2.0, -1.0, 0.0, 0.5, 0.0], 2), 1.0);
        // Smooth: both sides agree.
        assert!((one_sided_slope(&[-0.5, 0.0, 0.5], 1) - 0.5).abs() < 1e-6);
        assert_eq!(one_sided_slope(&[0.5, 0.0, 0.5], 1), 0.0);
    }

    #[test]
    fn planes_meeting_far_outside_give_the_mass_point_inside() {
        // Two planes meeting well beyond the cell's x = 0 face.
        let mut q = Qef::default();
        q.add(Vec3::new(0.0, 0.5, 0.2), Vec3::new(0.3, 0.0, 1.0).normalize());
        q.add(Vec3::new(1.0, 0.5, 0.8), Vec3::new(-0.3, 0.0, 1.0).normalize());
        assert!(q.solve(0.02).x < -0.2, "{}", q.solve(0.02));
        assert_eq!(vertex_position(&q, 0.02), q.mass_point());
        // A corner just beyond the cell's (1, 1, 1) corner is pulled just inside.
        let mut q = Qef::default();
        for n in [Vec3::X, Vec3::Y, Vec3::Z] {
            q.add(n * 1.03, n);
        }
        assert!(q.solve(0.02).min_element() > 1.0, "{}", q.solve(0.02));
        assert_eq!(vertex_position(&q, 0.02), Vec3::splat(1.0 - INSET));
    }

    /// The tangent solid of a cell with corner densities `d`, its crossings
    /// where the corners' line crosses zero, `normal(edge)` at each; none
    /// where those planes do not explain the corners.
    fn solid_of(d: &[i16; 8], normal: &dyn Fn(usize) -> Vec3) -> Option<TangentSolid> {
        let df = d.map(f32::from);
        let comps = components(d);
        let mut hermite = [(Vec3::ZERO, Vec3::ZERO); 12];
        for (e, &(a, b)) in EDGES.iter().enumerate() {
            if (d[a] > 0) != (d[b] > 0) {
                hermite[e] = (edge_crossing(&df, e), normal(e));
            }
        }
        corner_solid(&df, &comps, &hermite, 0)
    }

    /// A vertex is kept as a sharp feature only where its tangent planes
    /// explain the cell's corners: a rock corner's three planes do; a flat
    /// sheet whose stencil turned one normal over does not.
    #[test]
    fn only_planes_that_explain_the_corners_make_a_sharp_feature() {
        // Rock where x, y and z are all past (0.3, 0.7, 0.4): its corner.
        let corner = Vec3::new(0.3, 0.7, 0.4);
        let d: [i16; 8] = core::array::from_fn(|k| ((corner_position(k) - corner).min_element() * 100.0) as i16);
        assert!(solid_of(&d, &|e| -Vec3::AXES[e / 4]).is_some());
        // Rock below z = 0.5, one of its four normals turned over.
        let d: [i16; 8] = core::array::from_fn(|k| ((0.5 - corner_position(k).z) * 100.0) as i16);
        assert!(solid_of(&d, &|_| Vec3::Z).is_some());
        assert!(solid_of(&d, &|e| if e == 8 { -Vec3::Z } else { Vec3::Z }).is_none());
    }

    /// The tangent solid of a cell whose densities are `density` at its
    /// corners (in hundredths), with the given normal at each crossing.
    fn tangent_solid(density: &dyn Fn(Vec3) -> f32, normal: &dyn Fn(usize) -> Vec3) -> TangentSolid {
        let d: [i16; 8] = core::array::from_fn(|k| (density(corner_position(k)) * 100.0) as i16);
        solid_of(&d, normal).expect("the planes explain the corners")
    }

    /// A true corner or edge fits the 4³ samples around its cell, of rock
    /// or of air, even where the edge ends 1.5 cells along; a spike of rock
    /// or air thinner than a cell, with the same corner samples, does not.
    #[test]
    fn sharp_vertices_must_fit_the_samples_around() {
        let p = Vec3::new(0.3, 0.7, 0.4);
        let at = |a: [i32; 3]| Vec3::new(a[0] as f32, a[1] as f32, a[2] as f32);
        let rock = |q: Vec3| (q - p).min_element();
        for sign in [1.0f32, -1.0] {
            let corner = tangent_solid(&|q| sign * rock(q), &|e| -sign * Vec3::AXES[e / 4]);
            assert_eq!(corner.crease(), Crease::Corner);
            assert!(corner.fits_samples(p, |a| sign * rock(at(a))));
            assert!(!corner.fits_samples(p, |a| sign * if a == [1, 1, 1] { 1.0 } else { -1.0 }));
        }
        // Rock where x and y are past the edge, ending at z = -0.5.
        let edge_rock = |q: Vec3| (q.x - p.x).min(q.y - p.y);
        let edge = tangent_solid(&edge_rock, &|e| -Vec3::AXES[e / 4]);
        assert!(matches!(edge.crease(), Crease::Edge(along) if along.z.abs() > 0.99));
        assert!(edge.fits_samples(p, |a| edge_rock(at(a)).min(at(a).z + 0.5)));
        assert!(!edge.fits_samples(p, |a| if a == [2, 2, 1] { -1.0 } else { edge_rock(at(a)) }));
        // A sheet is not checked.
        let sheet = tangent_solid(&|q| 0.5 - q.z, &|_| Vec3::Z);
        assert_eq!(sheet.crease(), Crease::Flat);
        assert!(sheet.fits_samples(p, |_| -1.0));
    }

    #[test]
    fn a_plane_gets_its_vertex_on_the_plane() {
        // Density 0.3 - z: the plane z = 0.3, solid below.
        let d: [i16; 8] = core::array::from_fn(|c| ((0.3 - corner_position(c).z) * 1000.0) as i16);
        let comps = components(&d);
        let v = vertices(&d, &comps, &trilinear_hermite(&d, &comps), 0.02)[0].unwrap();
        assert!((v.position.z - 0.3).abs() < 1e-3, "{v:?}");
        assert!(v.smooth_normal.distance(Vec3::Z) < 1e-4 && v.face_normal.distance(Vec3::Z) < 1e-4, "{v:?}");
        assert!(d[v.material_corner] > 0);
    }
}
