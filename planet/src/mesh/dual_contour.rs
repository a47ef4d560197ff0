//! Dual contouring of a region's voxel grid, in cube-face space.
//!
//! Hermite data sits on the sign-changing edges of the grid (crossings
//! interpolated from the densities, normals from the gradient of the cell's
//! trilinear interpolant); each surface component of a cell gets one vertex
//! from a QEF solve with a mass-point bias, or the mass point where the solve
//! leaves the cell or misses its planes, a hair inside the cell (`cell.rs`);
//! each sign-changing edge gets a quad joining the vertices of its four cells,
//! split along its shorter diagonal and wound counter-clockwise seen from the
//! air side.
//!
//! Where both cells sharing an ambiguous face still merge its two arcs (its
//! resolution knocked on by their other faces' flips, `cell.rs`), each arc
//! gets a vertex of its own on the face, and the quads of the face's edges run
//! through it between the two cells' vertices (`arc_vertices_of`): one mesh
//! edge per arc rather than one edge for both, used by four triangles.
//!
//! **Invariant:** a cell's vertex is computed in the frame of the face the cell
//! lies on, from its 8 samples put in that frame's order. A cell beyond the
//! region's face edge is the neighbour face's cell, and both regions compute
//! its vertex bit for bit alike; that is what makes seams across face edges
//! exact.
//!
//! A region owns the edges whose canonical lower end is one of its grid
//! points; it also emits, as an overlap strip, the edges one cell beyond its
//! own, to hide cracks where a neighbour is drawn at another LOD.

use glam::{Vec3, Vec4};

use super::cell::{self, CellVertex, Components, EDGES, NONE};
use super::cube_mesh::{CubePart, CubeVertex};
use super::field_look::FieldLook;
use super::sky::sky_of_cover;
use crate::geometry::{CellFrame, GridPoint, PlanetGrid, REGION_CELLS, RegionKey, WINDOW};
use crate::terrain::{COVER_PER_M, ColumnField, Terrain, Voxel, VoxelGrid};

/// Mass-point bias of the QEF: small, so sharp corners and edges survive.
pub const QEF_BIAS: f32 = 0.02;

/// Cells along each side of the window.
const CELLS: usize = WINDOW - 1;

/// How one column of window cells maps onto the face it lies on.
#[derive(Clone, Copy, Debug)]
struct ColumnFrame {
    frame: CellFrame,
    /// Our corner index (i + 2j) -> the face's corner index.
    to_face: [usize; 4],
    /// The face's corner index -> ours.
    from_face: [usize; 4],
    /// Our edge -> the face's edge.
    edge_to_face: [usize; 12],
    /// Our cell face -> the face's cell face (`cell::FACES`).
    face_to_face: [usize; 6],
    /// The face's corner indices (i + 2j) in canonical order of their grid points, for interpolating.
    canonical_order: [usize; 4],
    /// Whether `to_face` is the identity: the cell's samples need no reordering.
    identity: bool,
    /// The voxel-array offset of the face's minimum corner from ours, and the
    /// strides of one step along the face's x, y and z (`strides`, worked out once).
    origin: isize,
    steps: [isize; 3],
    /// `stencil_reach` of the column's cells, by whether the layer is next to a
    /// region boundary (index 1) or not (0), before the window's depth limits it.
    reach: [u8; 2],
}

impl ColumnFrame {
    /// The frame of a cell on the region's own face, away from its edges.
    fn identity(frame: CellFrame) -> Self {
        Self {
            frame,
            to_face: [0, 1, 2, 3],
            from_face: [0, 1, 2, 3],
            edge_to_face: core::array::from_fn(|e| e),
            face_to_face: [0, 1, 2, 3, 4, 5],
            // Grid points sort by (face, x, y): (0,0), (0,1), (1,0), (1,1).
            canonical_order: [0, 2, 1, 3],
            identity: true,
            origin: 0,
            steps: [WINDOW as isize, (WINDOW * WINDOW) as isize, 1],
            reach: [0; 2],
        }
    }

    fn new(grid: &PlanetGrid, lod: u8, frame: CellFrame) -> Self {
        let to_face: [usize; 4] = core::array::from_fn(|k| {
            let (i, j) = frame.corners[k];
            usize::from(i) + 2 * usize::from(j)
        });
        let mut from_face = [0; 4];
        for (k, &f) in to_face.iter().enumerate() {
            from_face[f] = k;
        }
        let corner3 = |c: usize| (c & 4) | to_face[c & 3];
        let edge_to_face = core::array::from_fn(|e| {
            let (a, b) = EDGES[e];
            cell::edge_between(corner3(a), corner3(b)).expect("a frame maps edges to edges")
        });
        // A cell face is its set of corners.
        let corner_set =
            |corners: [usize; 4], map: &dyn Fn(usize) -> usize| corners.iter().fold(0u8, |set, &c| set | 1 << map(c));
        let face_to_face = core::array::from_fn(|f| {
            let theirs = corner_set(cell::FACES[f].0, &corner3);
            (0..6).find(|&g| corner_set(cell::FACES[g].0, &|c| c) == theirs).expect("a frame maps faces to faces")
        });
        let key = |c: usize| {
            let p = GridPoint { face: frame.face, x: frame.x + (c & 1) as i32, y: frame.y + (c >> 1) as i32 };
            grid.canonical(lod, p).unwrap_or(p)
        };
        let mut canonical_order = [0, 1, 2, 3];
        canonical_order.sort_by_key(|&c| key(c));
        let mut column = Self {
            frame,
            to_face,
            from_face,
            edge_to_face,
            face_to_face,
            canonical_order,
            identity: to_face == [0, 1, 2, 3],
            origin: 0,
            steps: [0; 3],
            reach: [0; 2],
        };
        let (origin, sx, sy) = column.strides();
        (column.origin, column.steps) = (origin, [sx, sy, 1]);
        column
    }

    /// Fills in `reach` for the column at window position (a, b) on a face `n` cells across.
    fn with_reach(mut self, n: i32, (a, b): (usize, usize)) -> Self {
        self.reach = stencil_reach(&self, n, (a, b));
        self
    }
}

impl ColumnFrame {
    /// Our window offset of the face-frame offset (dx, dy) from the cell's minimum corner.
    #[inline]
    fn offset(&self, dx: i32, dy: i32) -> (i32, i32) {
        let corner = |k: usize| {
            let ours = self.from_face[k];
            ((ours & 1) as i32, (ours >> 1) as i32)
        };
        let (o, ex, ey) = (corner(0), corner(1), corner(2));
        (o.0 + dx * (ex.0 - o.0) + dy * (ey.0 - o.0), o.1 + dx * (ex.1 - o.1) + dy * (ey.1 - o.1))
    }

    /// The voxel-array strides of one step along the face's x and y, and the
    /// offset of the face's minimum corner from ours.
    fn strides(&self) -> (isize, isize, isize) {
        let stride = |(x, y): (i32, i32)| x as isize * WINDOW as isize + y as isize * (WINDOW * WINDOW) as isize;
        let o = self.offset(0, 0);
        let ex = self.offset(1, 0);
        let ey = self.offset(0, 1);
        (stride(o), stride((ex.0 - o.0, ex.1 - o.1)), stride((ey.0 - o.0, ey.1 - o.1)))
    }
}

/// How far beyond its cell a vertex's normals may look: 2 (ENO), 1 (minmod)
/// or 0 (the cell alone). It depends only on where the cell is on its own face
/// (every region that computes the cell decides alike): its stencil must stay
/// on that face, and cells next to a region boundary (coordinate 31 mod 32),
/// which the neighbour region computes too from a window that ends sooner,
/// reach 1. Then the window must hold the samples.
///
/// This is the part that depends on the cell's column, worked out once per
/// column: the reach of its cells off a layer next to a region boundary
/// (index 0) and on one (1). `layer_reach` then limits it by the window's
/// depth. (Which reaches fit is monotonic: a smaller stencil fits wherever a
/// larger one does, so the largest that fits both ways is the lesser of the two.)
fn stencil_reach(frame: &ColumnFrame, n: i32, (a, b): (usize, usize)) -> [u8; 2] {
    let (x, y) = (frame.frame.x, frame.frame.y);
    let on_face = |lo: i32, hi: i32| x - lo >= 0 && x + hi <= n && y - lo >= 0 && y + hi <= n;
    let boundary = x.rem_euclid(32) == 31 || y.rem_euclid(32) == 31;
    let wanted = |layer_boundary: bool| {
        if on_face(2, 3) && !boundary && !layer_boundary {
            2
        } else if on_face(1, 2) {
            1
        } else {
            0
        }
    };
    // The window must hold offsets -reach..=reach + 1 on both horizontal axes.
    let fits = |reach: i32| {
        [(-reach, -reach), (reach + 1, -reach), (-reach, reach + 1), (reach + 1, reach + 1)].iter().all(|&(dx, dy)| {
            let (ox, oy) = frame.offset(dx, dy);
            let (sa, sb) = (a as i32 + ox, b as i32 + oy);
            (0..WINDOW as i32).contains(&sa) && (0..WINDOW as i32).contains(&sb)
        })
    };
    let fit = (0..=2u8).rev().find(|&r| fits(i32::from(r))).unwrap_or(0);
    [wanted(false).min(fit), wanted(true).min(fit)]
}

/// The stencil reach that window layer `c` allows (offsets -reach..=reach + 1
/// inside the window), and whether the layer is next to a region boundary.
fn layer_reach(first_layer: i32, c: usize) -> (u8, bool) {
    let fit = (0..=2u8).rev().find(|&r| c >= usize::from(r) && c + usize::from(r) + 1 < WINDOW).unwrap_or(0);
    (fit, (first_layer + c as i32).rem_euclid(32) == 31)
}

/// Where a grid line bends inside the edge between its samples 0 and 1, given
/// samples at -1, 0, 1 and 2: `None` where it is straight on either side (the
/// secant holds), else the parameter at which the straight piece through
/// samples -1 and 0 meets the one through 1 and 2. A sharp corner or edge
/// inside a cell is exactly such a bend.
fn bend(s: [f32; 4]) -> Option<f32> {
    let [m, a, b, c] = s;
    let flat = 1e-3 * (a.abs() + b.abs()) + 1.0;
    // `|` rather than `||`: both sides are cheap, and a branch here mispredicts.
    if ((b - 2.0 * a + m).abs() <= flat) | ((c - 2.0 * b + a).abs() <= flat) {
        return None;
    }
    let (left, right) = (a - m, c - b);
    if left == right {
        return None;
    }
    let x = (b - right - a) / (left - right);
    (x > 0.0 && x < 1.0).then_some(x)
}

/// A value along a grid line between samples 0 and 1 at parameter `t`, and the
/// slope there: the secant, or beside a bend the straight piece on `t`'s side.
/// The reference `eno_values` is tested against.
#[cfg(test)]
fn eno_value(s: [f32; 4], t: f32) -> (f32, f32) {
    let [m, a, b, c] = s;
    match bend(s) {
        None => (a * (1.0 - t) + b * t, b - a),
        Some(x) if t <= x => (a + (a - m) * t, a - m),
        Some(_) => (b - (c - b) * (1.0 - t), c - b),
    }
}

/// `eno_value(..).0` of four lines at once, lane by lane, without branches:
/// whether a line bends is data (terrain is a mix of both), so a branch on it
/// mispredicts often. Every lane does the scalar version's operations in the
/// same order, and SSE lanes round like scalars, so the values are the same bits.
#[inline]
fn eno_values([m, a, b, c]: [Vec4; 4], t: f32) -> Vec4 {
    // `bend`, lane by lane.
    let flat = 1e-3 * (a.abs() + b.abs()) + Vec4::ONE;
    let straight = (b - 2.0 * a + m).abs().cmple(flat) | (c - 2.0 * b + a).abs().cmple(flat);
    let (left, right) = (a - m, c - b);
    // Lanes where left == right divide by zero here; they are masked out below.
    let x = (b - right - a) / (left - right);
    let bent = !straight & left.cmpne(right) & x.cmpgt(Vec4::ZERO) & x.cmplt(Vec4::ONE);
    let secant = a * (1.0 - t) + b * t;
    let before = a + (a - m) * t;
    let after = b - (c - b) * (1.0 - t);
    Vec4::select(bent, Vec4::select(Vec4::splat(t).cmple(x), before, after), secant)
}

/// Which straight piece of a grid line a crossing is taken from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Piece {
    /// The secant between samples 0 and 1.
    Secant,
    /// The piece through samples -1 and 0, before a bend.
    Before,
    /// The piece through samples 1 and 2, after a bend.
    After,
}

/// Where a grid line crosses zero between samples 0 and 1, and the slope there:
/// the secant's root, or beside a bend the root of the piece that reaches zero
/// on its own side of the bend.
fn eno_root(s: [f32; 4]) -> (f32, f32) {
    let (t, slope, _) = eno_root_piece(s);
    (t, slope)
}

/// `eno_root`, and the piece it took the root from.
fn eno_root_piece(s: [f32; 4]) -> (f32, f32, Piece) {
    let [m, a, b, c] = s;
    let secant = (a / (a - b), b - a, Piece::Secant);
    let Some(x) = bend(s) else { return secant };
    let before = (a != m).then(|| -a / (a - m)).filter(|&t| (0.0..=x).contains(&t));
    let after = (c != b).then(|| 1.0 - b / (c - b)).filter(|&t| (x..=1.0).contains(&t));
    match (before, after) {
        (Some(t), None) => (t, a - m, Piece::Before),
        (None, Some(t)) => (t, c - b, Piece::After),
        _ => secant,
    }
}

/// `eno_root` of the middle four of six samples (offsets -2 to 3), which
/// trusts a bend as far as the piece holding its root stays straight out
/// to the next sample. Four samples cannot tell a crease from a curve or a
/// jump beyond the edge (a parabola's second differences read as a bend at
/// the edge's middle); a crease's pieces are straight beyond it, a curve's
/// keep bending. A curve read as a crease puts the crossing far up the
/// edge, where the surface may come nowhere near (samples 0, -1, 93, 303:
/// at 0.557 of the edge, where the secant and the generator's own density
/// put it at 0.011).
///
/// The crossing moves from the bend's to the secant's as the piece's bend
/// beyond grows from `STRAIGHT` to `CURVED` of the bend itself, smoothly:
/// a cave mouth's wall is a crease whose one piece curves a little, and a
/// hard switch there picked one crossing or the other from cell to cell,
/// a row of teeth down the wall.
fn eno_root_checked(s: [f32; 6]) -> (f32, f32) {
    let [p, m, a, b, c, q] = s;
    let (t, slope, piece) = eno_root_piece([m, a, b, c]);
    let beyond = match piece {
        Piece::Secant => return (t, slope),
        Piece::Before => a - 2.0 * m + p,
        Piece::After => q - 2.0 * c + b,
    };
    let bent = (b - 2.0 * a + m).abs() + (c - 2.0 * b + a).abs();
    // A density unit of bend beyond is rounding, not shape.
    let curved = (beyond.abs() - 1.0).max(0.0) / bent;
    let w = ((curved - STRAIGHT) * (1.0 / (CURVED - STRAIGHT))).clamp(0.0, 1.0);
    let (secant_t, secant_slope) = (a / (a - b), b - a);
    (t + (secant_t - t) * w, slope + (secant_slope - slope) * w)
}

/// How much a bend's piece may bend beyond it, against the bend itself, and
/// still count as straight (`eno_root_checked`).
const STRAIGHT: f32 = 0.1;

/// How much a bend's piece bends beyond it, against the bend itself, when
/// the crossing is the secant's (`eno_root_checked`): as much as a
/// parabola's does (the bend sums two second differences, and a
/// parabola's are all alike).
const CURVED: f32 = 0.5;

/// Catmull-Rom weights of the samples at -1, 0, 1 and 2 at parameter `t`.
#[inline]
fn catmull_rom(t: f32) -> [f32; 4] {
    let (t2, t3) = (t * t, t * t * t);
    [0.5 * (2.0 * t2 - t3 - t), 0.5 * (3.0 * t3 - 5.0 * t2 + 2.0), 0.5 * (4.0 * t2 - 3.0 * t3 + t), 0.5 * (t3 - t2)]
}

/// How far (cells) from a sharp vertex the tricubic interpolant must change
/// sign. It rounds a box's corner off by up to 0.615 cells (over 1,331
/// placements of the corner in its cell, a tenth of a cell apart), less
/// than the trilinear interpolant does, and an edge by less.
const SHARP_REACH: f32 = 2.0 / 3.0;

/// Whether the tricubic (Catmull-Rom) interpolant of the 4³ samples around
/// a cell changes sign within `SHARP_REACH` of `p` (cells, in the cell's
/// frame): down its own gradient or along an axis. A true corner passes; a
/// vertex the normals put deep in rock or air fails.
fn tricubic_near(stencil: &Stencil<'_>, p: Vec3) -> bool {
    let f = stencil.tricubic(p);
    if f == 0.0 {
        return true;
    }
    let h = 0.05;
    let slope = |axis: Vec3| stencil.tricubic(p + axis * h) - stencil.tricubic(p - axis * h);
    let down = -Vec3::new(slope(Vec3::X), slope(Vec3::Y), slope(Vec3::Z)).normalize_or_zero() * f.signum();
    let directions = [down, Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y, Vec3::Z, Vec3::NEG_Z];
    (1..=3).any(|k| {
        let r = SHARP_REACH * k as f32 / 3.0;
        directions.iter().any(|&d| d != Vec3::ZERO && (stencil.tricubic(p + d * r) > 0.0) != (f > 0.0))
    })
}

/// The two axes across each axis, in increasing order.
const ACROSS: [(usize, usize); 3] = [(1, 2), (0, 2), (0, 1)];

/// The voxel samples a cell's stencil reads, in the frame of the cell's face.
#[derive(Clone, Copy)]
struct Stencil<'a> {
    voxels: &'a [Voxel],
    /// Index of the cell's minimum corner (in its face's frame).
    at: isize,
    /// Index steps of one sample along the face's x, y and z.
    steps: [isize; 3],
}

impl Stencil<'_> {
    #[inline]
    fn sample(&self, i: isize) -> f32 {
        f32::from(self.voxels[i as usize].density)
    }

    /// The sample at offset `at` (cells) from the cell's minimum corner.
    #[inline]
    fn at_offset(&self, [x, y, z]: [i32; 3]) -> f32 {
        let [sx, sy, sz] = self.steps;
        self.sample(self.at + x as isize * sx + y as isize * sy + z as isize * sz)
    }

    /// The four samples along `axis` at offsets -1, 0, 1 and 2 from index `i`.
    #[inline]
    fn line(&self, i: isize, axis: usize) -> [f32; 4] {
        let s = self.steps[axis];
        [self.sample(i - s), self.sample(i), self.sample(i + s), self.sample(i + 2 * s)]
    }

    /// The tricubic (Catmull-Rom) interpolant of the 4³ samples from offset
    /// -1 to 2 on each axis at `p` (cells from the cell's minimum corner).
    fn tricubic(&self, p: Vec3) -> f32 {
        let w = [catmull_rom(p.x), catmull_rom(p.y), catmull_rom(p.z)];
        let [sx, sy, sz] = self.steps;
        let mut sum = 0.0;
        for (k, wz) in w[2].iter().enumerate() {
            for (j, wy) in w[1].iter().enumerate() {
                let row = self.at + (k as isize - 1) * sz + (j as isize - 1) * sy;
                let line: f32 =
                    w[0].iter().enumerate().map(|(i, wx)| wx * self.sample(row + (i as isize - 1) * sx)).sum();
                sum += wz * wy * line;
            }
        }
        sum
    }

    /// The six samples along `axis` at offsets -2 to 3 from index `i`.
    #[inline]
    fn line6(&self, i: isize, axis: usize) -> [f32; 6] {
        let s = self.steps[axis];
        core::array::from_fn(|k| self.sample(i + (k as isize - 2) * s))
    }

    /// Four lines along `axis`, as four vectors of their k-th samples (lane = line).
    #[inline]
    fn lines(&self, starts: [isize; 4], axis: usize) -> [Vec4; 4] {
        // (Not `starts.map(..)`: that one is not inlined.)
        let l = [
            self.line(starts[0], axis),
            self.line(starts[1], axis),
            self.line(starts[2], axis),
            self.line(starts[3], axis),
        ];
        core::array::from_fn(|k| Vec4::new(l[0][k], l[1][k], l[2][k], l[3][k]))
    }
}

/// Hermite data from a stencil reaching `reach` cells beyond the cell. Along
/// each edge, crossings and values come from `eno_root` and `eno_value` (four
/// lines at a time: `eno_values`), so a sharp corner inside the cell does not
/// drag them off its faces; across the edge, the gradient is the central
/// difference of the parallel lines where they agree, and where they bend a
/// one-sided difference (`cell::one_sided_slope`), so normals beside a sharp
/// edge keep to their face.
fn stencil_hermite(
    comps: &Components,
    reach: u8,
    layer_six: bool,
    stencil: Stencil<'_>,
    cache_slot: impl Fn(usize) -> Option<(usize, u32)>,
    cache: &mut [CachedEdge],
    generation: u32,
) -> [(Vec3, Vec3); 12] {
    // Only the crossed edges' entries are ever read.
    let mut out = [(Vec3::ZERO, Vec3::ZERO); 12];
    let mut edges = comps.crossing_mask();
    while edges != 0 {
        let e = edges.trailing_zeros() as usize;
        edges &= edges - 1;
        let (c0, c1) = EDGES[e];
        let slot = cache_slot(e);
        if let Some(entry) = slot
            .map(|(i, key)| (cache[i], key))
            .filter(|(c, key)| (c.generation == generation) & (c.reach == reach) & (c.key == *key))
            .map(|(c, _)| c)
        {
            // The cached point is relative to the edge's lower corner.
            out[e] = (cell::corner_position(c0) + entry.point, entry.normal);
            continue;
        }
        let axis = e / 4;
        let p0 = cell::corner_position(c0);
        let steps = stencil.steps;
        let i0 = stencil.at + (c0 & 1) as isize * steps[0] + ((c0 >> 1) & 1) as isize * steps[1] + (c0 >> 2) as isize;
        // A crossing reads six samples where every region holding the edge
        // can: anywhere at reach 2, and up a column in any layer whose own
        // stencil fits (the regions beside it hold the same layers).
        let six = reach >= 2 || (axis == 2 && layer_six);
        let (t, along) = if six { eno_root_checked(stencil.line6(i0, axis)) } else { eno_root(stencil.line(i0, axis)) };
        let p = p0.lerp(cell::corner_position(c1), t);
        let mut gradient = [0.0f32; 3];
        gradient[axis] = along;
        // The lines one step to either side across the edge, on both axes
        // across it: lanes (u -1, u +1, v -1, v +1).
        let (u, v) = ACROSS[axis];
        let (su, sv) = (steps[u], steps[v]);
        let near = eno_values(stencil.lines([i0 - su, i0 + su, i0 - sv, i0 + sv], axis), t);
        // The lines two steps out (on both axes at once), read only where a bend asks for them.
        let mut far = None;
        for (k, perp) in [u, v].into_iter().enumerate() {
            // The crossing itself is at zero.
            let (back, fwd) = (-near[2 * k], near[2 * k + 1]);
            gradient[perp] = if (back - fwd).abs() <= 0.05 * (back.abs() + fwd.abs()) + 2.0 {
                // Smooth here: the central difference.
                0.5 * (back + fwd)
            } else if reach >= 2 {
                // A bend: look one further on each side and keep to the straighter.
                let far = *far.get_or_insert_with(|| {
                    eno_values(stencil.lines([i0 - 2 * su, i0 + 2 * su, i0 - 2 * sv, i0 + 2 * sv], axis), t)
                });
                let values = [far[2 * k], -back, 0.0, fwd, far[2 * k + 1]];
                cell::one_sided_slope(&values, 2)
            } else {
                cell::one_sided_slope(&[-back, 0.0, fwd], 1)
            };
        }
        let n = -Vec3::from_array(gradient);
        out[e] = (p, n.normalize_or(p0 - cell::corner_position(c1)));
        if let Some((i, key)) = slot {
            cache[i] = CachedEdge { generation, key, reach, point: p - p0, normal: out[e].1 };
        }
    }
    out
}

/// Scratch memory of the dual-contouring polygonizer, reused between regions.
#[derive(Debug, Default)]
pub struct DualContourWorkspace {
    frames: Vec<Option<ColumnFrame>>,
    /// Per cell: the generation it was written in, its first vertex and its slot in `cell_edges`.
    cells: Vec<(u32, u32, u32)>,
    /// Component of each of our edges, per cell with vertices.
    cell_edges: Vec<[u8; 12]>,
    /// Each vertex's position in our frame (cells), for choosing quad diagonals.
    frame_positions: Vec<Vec3>,
    /// Solid samples, a 36-bit mask per window column.
    solid: Vec<u64>,
    /// Hermite data of recent grid edges, valid where generation and key match.
    edge_cache: Vec<CachedEdge>,
    generation: u32,
    /// Ambiguous cell faces whose two arcs one component of the cell holds.
    merged: Vec<MergedFace>,
    /// Arc vertices: (lower cell, axis, that cell's edge) -> vertex, sorted.
    arc_vertices: Vec<(u32, u8, u8, u32)>,
}

#[inline]
fn cell_index(a: usize, b: usize, c: usize) -> usize {
    (b * CELLS + a) * CELLS + c
}

#[inline]
fn sample_index(a: usize, b: usize, c: usize) -> usize {
    (b * WINDOW + a) * WINDOW + c
}

/// Dual-contours `voxels` (with `columns` from the same region) into `out`.
pub fn dual_contour(
    terrain: &Terrain,
    columns: &ColumnField,
    voxels: &VoxelGrid,
    ws: &mut DualContourWorkspace,
    out: &mut CubePart,
) {
    out.clear();
    let key = voxels.key;
    let grid = &terrain.grid;
    let lod = key.lod;
    let face = key.face();
    let n = grid.cells_across(lod);
    let origin = (key.x as i32 * REGION_CELLS - 2, key.y as i32 * REGION_CELLS - 2);
    let first_layer = key.z as i32 * REGION_CELLS - 2;
    let shell_below = grid.shell_below_m;
    // Every window cell on the region's own face: no frames to work out.
    let interior = origin.0 >= 0 && origin.1 >= 0 && origin.0 + CELLS as i32 <= n && origin.1 + CELLS as i32 <= n;

    let DualContourWorkspace {
        frames,
        cells,
        cell_edges,
        frame_positions,
        solid,
        edge_cache,
        generation,
        merged,
        arc_vertices,
    } = ws;
    frames.clear();
    for b in 0..CELLS {
        for a in 0..CELLS {
            let p = GridPoint { face, x: origin.0 + a as i32, y: origin.1 + b as i32 };
            // Cells whose corners are all strictly inside the face need no canonicalising.
            let inside = p.x > 0 && p.y > 0 && p.x + 1 < n && p.y + 1 < n;
            let frame = if inside {
                Some(ColumnFrame::identity(CellFrame {
                    face,
                    x: p.x,
                    y: p.y,
                    corners: [(0, 0), (1, 0), (0, 1), (1, 1)],
                }))
            } else {
                grid.cell_frame(lod, p).map(|f| ColumnFrame::new(grid, lod, f))
            };
            frames.push(frame.map(|f| f.with_reach(n, (a, b))));
        }
    }
    // What each layer of the window allows the stencils.
    let layers: [(u8, bool); CELLS] = core::array::from_fn(|c| layer_reach(first_layer, c));

    // Which samples are solid: one 36-bit mask per column of the window.
    solid.clear();
    for column in voxels.voxels.chunks_exact(WINDOW) {
        // A fixed-length column unrolls into compares and shifts, with no branches.
        let column: &[Voxel; WINDOW] = column.try_into().expect("columns are WINDOW long");
        let mut m = 0u64;
        for (c, v) in column.iter().enumerate() {
            m |= u64::from(v.density > 0) << c;
        }
        solid.push(m);
    }
    let samples = &voxels.voxels[..];
    *generation = generation.wrapping_add(1);
    if *generation == 0 {
        // After 2^32 regions, forget every stamp rather than mistake an old one for new.
        cells.clear();
        edge_cache.clear();
        *generation = 1;
    }
    let generation = *generation;
    if edge_cache.len() != 2 * WINDOW * WINDOW * 3 {
        *edge_cache = vec![CachedEdge::default(); 2 * WINDOW * WINDOW * 3];
    }

    // Vertices, for the cells the surface crosses.
    if cells.len() != CELLS * CELLS * CELLS {
        *cells = vec![(0, 0, 0); CELLS * CELLS * CELLS];
    }
    cell_edges.clear();
    frame_positions.clear();
    merged.clear();
    arc_vertices.clear();
    let cell_bits = (1u64 << CELLS) - 1;
    let look = FieldLook::new(terrain, columns);
    for b in 0..CELLS {
        for a in 0..CELLS {
            let Some(frame) = &frames[b * CELLS + a] else { continue };
            // Cells with a solid and an air corner: some bit differs among the 8.
            let m = [
                solid[b * WINDOW + a],
                solid[b * WINDOW + a + 1],
                solid[(b + 1) * WINDOW + a],
                solid[(b + 1) * WINDOW + a + 1],
            ];
            let all = m.iter().fold(cell_bits, |acc, &x| acc & x & (x >> 1));
            let any = m.iter().fold(0, |acc, &x| acc | x | (x >> 1));
            let mut mixed = any & !all & cell_bits;
            let column = sample_index(a, b, 0);
            // On the region's own face an edge's data is the same from all four of
            // its cells: compute it once.
            let cache = frame.frame.face == face && frame.identity;
            while mixed != 0 {
                let c = mixed.trailing_zeros() as usize;
                mixed &= mixed - 1;
                let base = column + c;
                let ours: [i16; 8] = core::array::from_fn(|k| samples[base + CORNER[k]].density);
                let theirs = if frame.identity {
                    ours
                } else {
                    let mut theirs = [0i16; 8];
                    for (k, &d) in ours.iter().enumerate() {
                        theirs[(k & 4) | frame.to_face[k & 3]] = d;
                    }
                    theirs
                };
                let (comps, centres) = components(&ours, &theirs, frame, |o| corners_at(samples, frames, (a, b, c), o));
                let (layer_fit, layer_boundary) = layers[c];
                let tier = frame.reach[usize::from(layer_boundary)].min(layer_fit);
                // Samples at offsets from the cell's minimum corner, in its own face's frame.
                let stencil = Stencil { voxels: samples, at: base as isize + frame.origin, steps: frame.steps };
                let hermite = if tier == 0 {
                    cell::trilinear_hermite(&theirs, &comps)
                } else {
                    let slot = |e: usize| {
                        cache.then(|| {
                            let (c0, _) = EDGES[e];
                            let (ea, eb, ec) = (a + (c0 & 1), b + ((c0 >> 1) & 1), c + (c0 >> 2));
                            // The edge's key, and its slot in a cache two window rows deep
                            // (the cells sharing an edge are at most one row apart).
                            let key = ((e / 4) * WINDOW * WINDOW * WINDOW + sample_index(ea, eb, ec)) as u32;
                            ((((eb & 1) * WINDOW + ea) * WINDOW + ec) * 3 + e / 4, key)
                        })
                    };
                    stencil_hermite(
                        &comps,
                        tier,
                        layer_fit == 2 && !layer_boundary,
                        stencil,
                        slot,
                        edge_cache,
                        generation,
                    )
                };
                cells[cell_index(a, b, c)] = (generation, out.vertices.len() as u32, cell_edges.len() as u32);
                let of_edge: [u8; 12] = if frame.identity {
                    comps.of_edge
                } else {
                    core::array::from_fn(|e| comps.of_edge[frame.edge_to_face[e]])
                };
                cell_edges.push(of_edge);
                note_merged_faces(merged, &ours, centres, &of_edge, &hermite, frame, (a, b, c), first_layer);
                // A sharp vertex the cell's own corners cannot vouch for is
                // checked against the 4³ samples around, where the stencil reaches them.
                let sharp_holds = |p: Vec3, solid: &cell::TangentSolid| {
                    tier == 0 || (tricubic_near(&stencil, p) && solid.fits_samples(p, |at| stencil.at_offset(at)))
                };
                // Only a cell inside the face (in the region's own frame) may ask the generator.
                let field_near = |p: Vec3, towards: &[Vec3]| {
                    let cell = [origin.0 + a as i32, origin.1 + b as i32, first_layer + c as i32];
                    frame.identity.then(|| look.near(cell, &theirs, p, towards))?
                };
                cell::for_each_vertex(&theirs, &comps, &hermite, QEF_BIAS, sharp_holds, field_near, |v| {
                    out.vertices.push(cube_vertex(&v, frame, (a, b, c), first_layer, columns, voxels, shell_below));
                    frame_positions.push(frame_position(v.position, frame, (a, b, c)));
                });
            }
        }
    }

    // A vertex for each arc of a face both its cells merge.
    let arcs = ArcContext { frames, first_layer, columns, voxels, shell_below };
    arc_vertices_of(merged, &arcs, out, frame_positions, arc_vertices);

    // Quads, one per sign-changing edge the region owns or overlaps.
    let owned_square = 2..2 + REGION_CELLS as usize;
    let owned_layers: u64 = ((1u64 << REGION_CELLS) - 1) << 2;
    let cells = Cells { generation, cells, cell_edges, frame_positions, arc_vertices };
    for b in 1..WINDOW - 1 {
        for a in 1..WINDOW - 1 {
            let here = solid[b * WINDOW + a];
            let neighbours = [solid[b * WINDOW + a + 1], solid[(b + 1) * WINDOW + a], here >> 1];
            for (axis, there) in neighbours.into_iter().enumerate() {
                let mut flips = (here ^ there) & owned_layers;
                let step = [(1, 0), (0, 1), (0, 0)][axis];
                while flips != 0 {
                    let c = flips.trailing_zeros() as usize;
                    flips &= flips - 1;
                    let core = if interior {
                        owned_square.contains(&a) && owned_square.contains(&b)
                    } else {
                        owns_edge(grid, key, origin, (a, b), step)
                    };
                    emit(&cells, out, axis, (a, b, c), here >> c & 1 == 1, core);
                }
            }
        }
    }
}

/// The surface components of a cell, from its corners in our order (`ours`)
/// and in its face's (`theirs`), and which of its ambiguous faces (bit per
/// face, our order) have a solid centre. Ambiguous faces are resolved against
/// the cells around (`cell_at(offset)`), in our frame: the decision is the
/// same in any frame, and the face's frame then names the face.
#[inline]
fn components(
    ours: &[i16; 8],
    theirs: &[i16; 8],
    frame: &ColumnFrame,
    cell_at: impl Fn([i32; 3]) -> Option<[i16; 8]>,
) -> (Components, u8) {
    if cell::ambiguous_faces(ours) == 0 {
        return (cell::components(theirs), 0);
    }
    let centres = cell::face_centres(ours, cell_at);
    let theirs_centres = (0..6).fold(0u8, |bits, f| bits | ((centres >> f) & 1) << frame.face_to_face[f]);
    (cell::components_with(theirs, theirs_centres), centres)
}

/// An ambiguous face of a cell (our order) whose two arcs one component of
/// the cell holds: where the cell across holds them in one component too, the
/// two cells' vertices would be joined by one mesh edge standing for both
/// arcs, used by four triangles. Its crossings are kept to place the arcs'
/// own vertices (`arc_vertices_of`).
#[derive(Clone, Copy, Debug)]
struct MergedFace {
    /// `cell_index` of the cell.
    cell: u32,
    /// The face, in our order.
    face: u8,
    /// Solid corners of the cell, one bit each, in our order.
    solid: u8,
    /// Whether the face's centre is solid.
    solid_centre: bool,
    /// The cell in the planet's terms (face, x, y, layer): the lesser of the
    /// two cells sharing the face places the arcs' vertices, in every region.
    key: (u8, i32, i32, i32),
    /// Crossing and normal on each of the face's edges (`cell::FACES` order),
    /// in the cell's own face frame.
    hermite: [(Vec3, Vec3); 4],
}

/// Notes the ambiguous faces of window cell (a, b, c) whose two arcs one of
/// its components holds.
#[allow(clippy::too_many_arguments)]
#[inline]
fn note_merged_faces(
    merged: &mut Vec<MergedFace>,
    ours: &[i16; 8],
    centres: u8,
    of_edge: &[u8; 12],
    hermite: &[(Vec3, Vec3); 12],
    frame: &ColumnFrame,
    (a, b, c): (usize, usize, usize),
    first_layer: i32,
) {
    let mut ambiguous = cell::ambiguous_faces(ours);
    while ambiguous != 0 {
        let f = ambiguous.trailing_zeros() as usize;
        ambiguous &= ambiguous - 1;
        let edges = cell::FACES[f].1;
        let [e0, e1, e2, e3] = edges.map(|e| of_edge[e]);
        if !(e0 == e1 && e1 == e2 && e2 == e3) {
            continue;
        }
        let solid = ours.iter().enumerate().fold(0u8, |bits, (k, &d)| bits | u8::from(d > 0) << k);
        merged.push(MergedFace {
            cell: cell_index(a, b, c) as u32,
            face: f as u8,
            solid,
            solid_centre: (centres >> f) & 1 == 1,
            key: (frame.frame.face.index(), frame.frame.x, frame.frame.y, first_layer + c as i32),
            hermite: edges.map(|e| hermite[frame.edge_to_face[e]]),
        });
    }
}

/// What placing an arc vertex reads besides the merged faces.
struct ArcContext<'a> {
    frames: &'a [Option<ColumnFrame>],
    first_layer: i32,
    columns: &'a ColumnField,
    voxels: &'a VoxelGrid,
    shell_below: f32,
}

/// The window cell (a, b, c) of a `cell_index`.
#[inline]
fn cell_at_index(i: usize) -> (usize, usize, usize) {
    (i / CELLS % CELLS, i / (CELLS * CELLS), i % CELLS)
}

/// For every ambiguous face that both cells sharing it merge (see
/// `MergedFace`), a vertex per arc, on the face midway between the arc's two
/// crossings; the quads of the face's edges then run through the arc's
/// vertex between the two cells' (`emit`), so each arc gets its own pair of
/// mesh edges. Face resolutions cannot always prevent this: in a cell,
/// exactly one resolution of a face merges its arcs, and which one depends on
/// the cell's other faces, so flips knock on along chains of cells, further
/// than any region's window reaches. The vertices are placed from the lesser
/// cell's data, in its frame, so every region places them alike; they leave
/// the cells' own vertices as they were.
fn arc_vertices_of(
    merged: &mut [MergedFace],
    ctx: &ArcContext<'_>,
    out: &mut CubePart,
    frame_positions: &mut Vec<Vec3>,
    arc_vertices: &mut Vec<(u32, u8, u8, u32)>,
) {
    if merged.is_empty() {
        return;
    }
    merged.sort_unstable_by_key(|m| (m.cell, m.face));
    for m in merged.iter() {
        // Each face once, from the cell on its lower side.
        if m.face & 1 == 0 {
            continue;
        }
        let axis = usize::from(m.face / 2);
        let (a, b, c) = cell_at_index(m.cell as usize);
        if [a, b, c][axis] + 1 >= CELLS {
            continue;
        }
        let step = [CELLS, CELLS * CELLS, 1][axis] as u32;
        let Ok(k) = merged.binary_search_by_key(&(m.cell + step, m.face ^ 1), |n| (n.cell, n.face)) else { continue };
        let n = merged[k];
        // Position i on one side's face is position i on the other's.
        let placer = if m.key <= n.key { m } else { &n };
        let edges = cell::FACES[usize::from(m.face)].1;
        let corners = cell::FACES[usize::from(placer.face)].0;
        let (pa, pb, pc) = cell_at_index(placer.cell as usize);
        let Some(frame) = &ctx.frames[pb * CELLS + pa] else { continue };
        let solid = |k: usize| (placer.solid >> corners[k]) & 1 == 1;
        for i in 0..4 {
            // The arc around corner i (between edges i - 1 and i): the air
            // corners where the centre is solid, else the solid ones.
            if solid(i) == placer.solid_centre {
                continue;
            }
            let j = (i + 3) % 4;
            let (p0, n0) = placer.hermite[j];
            let (p1, n1) = placer.hermite[i];
            let position = (p0 + p1) * 0.5;
            let normal = (n0 + n1).normalize_or(n0);
            // The arc's solid corner: its own, or the nearer of its edges' far ends.
            let corner = if solid(i) {
                corners[i]
            } else {
                let (back, on) = (corners[j], corners[(i + 1) % 4]);
                let d = |c: usize| position.distance_squared(cell::corner_position(c));
                if d(back) <= d(on) { back } else { on }
            };
            let v = CellVertex {
                position,
                smooth_normal: normal,
                face_normal: normal,
                material_corner: (corner & 4) | frame.to_face[corner & 3],
            };
            let index = out.vertices.len() as u32;
            out.vertices.push(cube_vertex(
                &v,
                frame,
                (pa, pb, pc),
                ctx.first_layer,
                ctx.columns,
                ctx.voxels,
                ctx.shell_below,
            ));
            frame_positions.push(frame_position(position, frame, (pa, pb, pc)));
            for e in [edges[j], edges[i]] {
                arc_vertices.push((m.cell, axis as u8, e as u8, index));
            }
        }
    }
    arc_vertices.sort_unstable();
}

/// The corners (in our order) of the window cell at `offset` from cell
/// (a, b, c), if the window holds that cell.
fn corners_at(
    samples: &[Voxel],
    frames: &[Option<ColumnFrame>],
    (a, b, c): (usize, usize, usize),
    offset: [i32; 3],
) -> Option<[i16; 8]> {
    let inside = |i: usize, o: i32| usize::try_from(i as i32 + o).ok().filter(|&j| j < CELLS);
    let (a, b, c) = (inside(a, offset[0])?, inside(b, offset[1])?, inside(c, offset[2])?);
    frames[b * CELLS + a].as_ref()?;
    let base = sample_index(a, b, c);
    Some(core::array::from_fn(|k| samples[base + CORNER[k]].density))
}

/// The cells' vertices as the quads look them up.
struct Cells<'a> {
    generation: u32,
    cells: &'a [(u32, u32, u32)],
    cell_edges: &'a [[u8; 12]],
    frame_positions: &'a [Vec3],
    /// (lower cell, axis, edge) -> the vertex of the arc through that edge on
    /// the cell's face towards +axis, where both cells merge the face's arcs.
    arc_vertices: &'a [(u32, u8, u8, u32)],
}

/// Offsets of the 8 corners from a cell's minimum sample (z fastest, then x, then y).
const CORNER: [usize; 8] = {
    let mut o = [0; 8];
    let mut k = 0;
    while k < 8 {
        o[k] = (k & 1) * WINDOW + ((k >> 1) & 1) * WINDOW * WINDOW + (k >> 2);
        k += 1;
    }
    o
};

/// Hermite data of one grid edge, kept for the other cells that share it.
#[derive(Clone, Copy, Debug, Default)]
struct CachedEdge {
    generation: u32,
    /// Which edge the slot holds.
    key: u32,
    reach: u8,
    point: Vec3,
    normal: Vec3,
}

/// Whether the region owns the edge from window column (a, b) one step along
/// (dx, dy) (or vertical when both are 0): the canonical lesser end must be one
/// of its own grid points.
pub(super) fn owns_edge(
    grid: &PlanetGrid,
    key: RegionKey,
    origin: (i32, i32),
    (a, b): (usize, usize),
    (dx, dy): (usize, usize),
) -> bool {
    let lod = key.lod;
    let face = key.face();
    let p = GridPoint { face, x: origin.0 + a as i32, y: origin.1 + b as i32 };
    let q = GridPoint { x: p.x + dx as i32, y: p.y + dy as i32, ..p };
    let (Some(cp), Some(cq)) = (grid.canonical(lod, p), grid.canonical(lod, q)) else { return false };
    let low = cp.min(cq);
    if low.face != face {
        return false;
    }
    let last = grid.regions_across(lod) - 1;
    let region = |g: i32| (g / REGION_CELLS).min(last as i32) as u32;
    region(low.x) == key.x && region(low.y) == key.y
}

/// The four cells around an edge of each axis, counter-clockwise seen from
/// +axis, as cell-index offsets from the cell at the edge's lower end, and the
/// edge in each.
const AROUND: [[(isize, usize); 4]; 3] = {
    const fn at(da: isize, db: isize, dc: isize) -> isize {
        (db * CELLS as isize + da) * CELLS as isize + dc
    }
    [
        [(at(0, -1, -1), 3), (at(0, 0, -1), 2), (at(0, 0, 0), 0), (at(0, -1, 0), 1)],
        [(at(-1, 0, -1), 7), (at(-1, 0, 0), 5), (at(0, 0, 0), 4), (at(0, 0, -1), 6)],
        [(at(-1, -1, 0), 11), (at(0, -1, 0), 10), (at(0, 0, 0), 8), (at(-1, 0, 0), 9)],
    ]
};

/// The quad (or, beside a cube corner, triangle) of one sign-changing edge.
#[inline]
fn emit(
    cells: &Cells<'_>,
    out: &mut CubePart,
    axis: usize,
    (a, b, c): (usize, usize, usize),
    start_solid: bool,
    core: bool,
) {
    let here = cell_index(a, b, c) as isize;
    if !cells.arc_vertices.is_empty() {
        emit_with_arcs(cells, out, axis, here, start_solid, core);
        return;
    }
    let mut ring = [0u32; 4];
    let mut count = 0;
    for (offset, edge) in AROUND[axis] {
        let (generation, first, slot) = cells.cells[(here + offset) as usize];
        if generation != cells.generation {
            continue; // beyond a cube corner: no cell there
        }
        let comp = cells.cell_edges[slot as usize][edge];
        debug_assert_ne!(comp, NONE, "a sign-changing edge belongs to a component of each of its cells");
        ring[count] = first + u32::from(comp);
        count += 1;
    }
    if let Some(target) = wound(out, &mut ring[..count], start_solid, core) {
        triangle_or_quad(cells, &ring[..count], target);
    }
}

/// The index list a ring of an edge's vertices goes to (the owned triangles,
/// or the overlap strip), with the ring put in winding order: solid to air
/// along +axis faces +axis, so the order is kept; otherwise reversed. None
/// for a ring of fewer than three vertices (beside a cube corner).
fn wound<'a>(out: &'a mut CubePart, ring: &mut [u32], start_solid: bool, core: bool) -> Option<&'a mut Vec<u32>> {
    if ring.len() < 3 {
        return None;
    }
    if !start_solid {
        ring.reverse();
    }
    Some(if core { &mut out.triangles } else { &mut out.overlap })
}

/// A ring of three vertices as its triangle, of four as a quad split along
/// its shorter diagonal.
fn triangle_or_quad(cells: &Cells<'_>, ring: &[u32], target: &mut Vec<u32>) {
    if let &[a, b, c] = ring {
        target.extend_from_slice(&[a, b, c]);
        return;
    }
    let pos = |i: usize| cells.frame_positions[ring[i] as usize];
    if pos(0).distance_squared(pos(2)) <= pos(1).distance_squared(pos(3)) {
        target.extend_from_slice(&[ring[0], ring[1], ring[2], ring[0], ring[2], ring[3]]);
    } else {
        target.extend_from_slice(&[ring[0], ring[1], ring[3], ring[1], ring[2], ring[3]]);
    }
}

/// `emit` in a region with arc vertices: the ring of the edge's cells, with
/// the arc's vertex between two cells wherever their face has one, is fanned
/// from its first arc vertex (or split as a plain quad where it has none).
#[cold]
fn emit_with_arcs(cells: &Cells<'_>, out: &mut CubePart, axis: usize, here: isize, start_solid: bool, core: bool) {
    // (vertex, cell index, edge) around the edge, None beyond a cube corner.
    let around: [Option<(u32, u32, usize)>; 4] = AROUND[axis].map(|(offset, edge)| {
        let i = (here + offset) as usize;
        let (generation, first, slot) = cells.cells[i];
        (generation == cells.generation)
            .then(|| (first + u32::from(cells.cell_edges[slot as usize][edge]), i as u32, edge))
    });
    let mut ring = [0u32; 8];
    let mut count = 0;
    let mut first_arc = None;
    for k in 0..4 {
        let Some((v, cell, edge)) = around[k] else { continue };
        ring[count] = v;
        count += 1;
        let Some((_, next, next_edge)) = around[(k + 1) % 4] else { continue };
        // The face between this cell and the next: its axis, and its lower cell's edge.
        let gap = cell.abs_diff(next) as usize;
        let face_axis = if gap == CELLS {
            0
        } else if gap == CELLS * CELLS {
            1
        } else {
            2
        };
        let (lower, lower_edge) = if cell < next { (cell, edge) } else { (next, next_edge) };
        let key = (lower, face_axis as u8, lower_edge as u8);
        if let Ok(i) = cells.arc_vertices.binary_search_by_key(&key, |&(c, a, e, _)| (c, a, e)) {
            first_arc.get_or_insert(count);
            ring[count] = cells.arc_vertices[i].3;
            count += 1;
        }
    }
    let Some(target) = wound(out, &mut ring[..count], start_solid, core) else { return };
    let Some(arc) = first_arc else {
        triangle_or_quad(cells, &ring[..count], target);
        return;
    };
    // Where the ring was reversed, the arc vertex moved.
    let arc = if start_solid { arc } else { count - 1 - arc };
    for k in 1..count - 1 {
        target.extend_from_slice(&[ring[arc], ring[(arc + k) % count], ring[(arc + k + 1) % count]]);
    }
}

/// A cell vertex as a cube-space vertex of its own face.
fn cube_vertex(
    v: &CellVertex,
    frame: &ColumnFrame,
    (a, b, c): (usize, usize, usize),
    first_layer: i32,
    columns: &ColumnField,
    voxels: &VoxelGrid,
    shell_below: f32,
) -> CubeVertex {
    let f = frame.frame;
    // Height of layer 0 here: bilinear over the cell's four columns, summed in canonical order.
    let (lx, ly) = (v.position.x, v.position.y);
    let bases: [f32; 4] = core::array::from_fn(|k| {
        let ours = frame.from_face[k];
        columns.at(a + (ours & 1), b + (ours >> 1)).elevation_m - shell_below
    });
    let (wx, wy) = ([1.0 - lx, lx], [1.0 - ly, ly]);
    let term = |k: usize| wx[k & 1] * wy[k >> 1] * bases[k];
    let base = if frame.canonical_order == [0, 2, 1, 3] {
        // The usual order, spelt out so that it unrolls: the same sum as below.
        0.0 + term(0) + term(2) + term(1) + term(3)
    } else {
        frame.canonical_order.iter().fold(0.0, |sum, &k| sum + term(k))
    };
    let [b0, b1, b2, b3] = bases;
    let base_slope = [(b1 - b0) * (1.0 - ly) + (b3 - b2) * ly, (b2 - b0) * (1.0 - lx) + (b3 - b1) * lx];
    let corner = v.material_corner;
    let ours = frame.from_face[corner & 3];
    let voxel = voxels.voxels[sample_index(a + (ours & 1), b + (ours >> 1), c + (corner >> 2))];
    // Cover: each layer's bilinear sum in the canonical order, as `base`, so
    // that every region holding the vertex finds the same sky.
    let cover_layer = |dz: usize| {
        frame.canonical_order.iter().fold(0.0, |sum, &k| {
            let ours = frame.from_face[k];
            sum + wx[k & 1]
                * wy[k >> 1]
                * f32::from(voxels.cover[sample_index(a + (ours & 1), b + (ours >> 1), c + dz)])
        })
    };
    let lz = v.position.z;
    let cover_m = (cover_layer(0) * (1.0 - lz) + cover_layer(1) * lz) / COVER_PER_M;
    CubeVertex {
        face: f.face.index(),
        cell: [f.x, f.y, first_layer + c as i32],
        local: v.position,
        base_m: base,
        base_slope,
        smooth_normal: v.smooth_normal,
        face_normal: v.face_normal,
        materials: voxel.materials,
        blend: voxel.blend,
        sky: sky_of_cover(cover_m),
    }
}

/// A vertex's position in the region's own (unfolded) frame, in cells.
fn frame_position(p: Vec3, frame: &ColumnFrame, (a, b, c): (usize, usize, usize)) -> Vec3 {
    let (wx, wy) = ([1.0 - p.x, p.x], [1.0 - p.y, p.y]);
    if frame.identity {
        // The sum below without its zero terms: the weights are never
        // negative, so those add nothing (at most the sign of a zero, which
        // adding the cell's coordinate erases).
        let (w1, w2, w3) = (wx[1] * wy[0], wx[0] * wy[1], wx[1] * wy[1]);
        return Vec3::new(a as f32 + (w1 + w3), b as f32 + (w2 + w3), c as f32 + p.z);
    }
    let mut xy = glam::Vec2::ZERO;
    for k in 0..4 {
        let w = wx[k & 1] * wy[k >> 1];
        let ours = frame.from_face[k];
        xy += w * glam::Vec2::new((ours & 1) as f32, (ours >> 1) as f32);
    }
    Vec3::new(a as f32 + xy.x, b as f32 + xy.y, c as f32 + p.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tricubic look finds a flat sheet within `SHARP_REACH` of a point
    /// and not beyond it, on either side.
    #[test]
    fn tricubic_look_finds_the_surface_within_its_reach() {
        // 4³ samples, x major: rock below sample layer 1.5 (the cell's z = 0.5).
        let voxels: Vec<Voxel> =
            (0..64).map(|i| Voxel { density: ((1.5 - (i % 4) as f32) * 100.0) as i16, ..Voxel::default() }).collect();
        let stencil = Stencil { voxels: &voxels, at: 16 + 4 + 1, steps: [16, 4, 1] };
        for (z, near) in [(0.5, true), (0.0, true), (1.1, true), (-0.2, false), (1.2, false)] {
            assert_eq!(tricubic_near(&stencil, Vec3::new(0.4, 0.6, z)), near, "z = {z}");
        }
    }

    /// A crease whose pieces stay straight keeps its crossing; a curve read
    /// as a crease (a parabola, the case the check was made for) and a
    /// jump one sample past the edge take the secant's; in between the
    /// crossing moves from one to the other without a step.
    #[test]
    fn six_sample_crossings_trust_only_straight_pieces() {
        // A crease at 0.55 of the edge: slope -1 before it, 210 after.
        let crease = |x: f32| if x <= 0.55 { -1.0 - x } else { -1.55 + (x - 0.55) * 210.0 };
        let line: [f32; 6] = core::array::from_fn(|k| crease(k as f32 - 2.0));
        let (t, _) = eno_root_checked(line);
        assert!((t - (0.55 + 1.55 / 210.0)).abs() < 1e-4, "crease: {t}");
        // The cubic through 0, -1, 93, 303: its second differences 74, 95,
        // 116, 137 at samples -1 to 2.
        let (t, _) = eno_root_checked([75.0, 0.0, -1.0, 93.0, 303.0, 650.0]);
        assert!((t - 1.0 / 94.0).abs() < 1e-6, "parabola: {t}");
        // Straight pieces, then a jump of 300 one sample past the edge.
        let (t, _) = eno_root_checked([-54.0, -35.0, -16.0, 73.0, 360.0, 447.0]);
        assert!((t - 16.0 / 89.0).abs() < 1e-6, "jump: {t}");
        // Bending the after piece more and more beyond the edge moves the
        // crossing steadily from the bend's to the secant's.
        let mut last = f32::NAN;
        for k in 0..=300 {
            let beyond = k as f32;
            let (t, _) = eno_root_checked([-3.0, -2.0, -1.0, 93.0, 303.0, 513.0 + beyond]);
            if !last.is_nan() {
                assert!(t <= last && last - t < 0.01, "a step at {beyond}: {last} to {t}");
            }
            last = t;
        }
        assert!((last - 1.0 / 94.0).abs() < 1e-6, "fully curved: {last}");
    }

    /// The branch-free four-line `eno_values` gives the scalar `eno_value`'s
    /// bits in every lane: straight lines, bends on either side of `t`, bends
    /// outside the edge, equal slopes, and densities at the i16 extremes.
    #[test]
    fn eno_values_match_the_scalar_version_bit_for_bit() {
        let mut lines: Vec<[f32; 4]> = vec![
            [-3.0, -1.0, 1.0, 3.0],
            [-300.0, -100.0, 0.0, 0.0],
            [0.0, 0.0, 100.0, 300.0],
            [-100.0, 0.0, 0.0, -100.0],
            [5.0, 7.0, 9.0, 11.0],
            [-32768.0, 32767.0, -32768.0, 32767.0],
            [250.0, -50.0, 40.0, 900.0],
        ];
        // A deterministic spread of small and large integer densities.
        let mut state = 0x9e37_79b9_u32;
        for _ in 0..4000 {
            let mut line = [0.0; 4];
            for v in &mut line {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let scale = [8, 300, 65_536][(state >> 8) as usize % 3];
                *v = ((state >> 12) % scale) as f32 - (scale / 2) as f32;
            }
            lines.push(line);
        }
        // Both branches of `bend` are well covered.
        let bent = lines.iter().filter(|&&l| bend(l).is_some()).count();
        assert!(bent > lines.len() / 8 && bent < 7 * lines.len() / 8, "{bent} of {} lines bend", lines.len());
        for (i, chunk) in lines.chunks_exact(4).enumerate() {
            for t in [0.0, 0.25, 0.5, 0.999, 1.0, (i % 97) as f32 / 97.0] {
                let lanes: [Vec4; 4] =
                    core::array::from_fn(|k| Vec4::new(chunk[0][k], chunk[1][k], chunk[2][k], chunk[3][k]));
                let v = eno_values(lanes, t).to_array();
                for lane in 0..4 {
                    let want = eno_value(chunk[lane], t).0;
                    assert_eq!(v[lane].to_bits(), want.to_bits(), "{:?} at t = {t}", chunk[lane]);
                }
            }
        }
    }
}
