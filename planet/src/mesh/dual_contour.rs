//! Dual contouring of a region's voxel grid, in cube-face space.
//!
//! Hermite data sits on the sign-changing edges of the grid (crossings
//! interpolated from the densities, normals from the gradient of the cell's
//! trilinear interpolant); each surface component of a cell gets one vertex
//! from a QEF solve with a mass-point bias, clamped to the cell (`cell.rs`);
//! each sign-changing edge gets a quad joining the vertices of its four cells,
//! split along its shorter diagonal and wound counter-clockwise seen from the
//! air side.
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

use glam::Vec3;

use super::cell::{self, CellVertex, Components, EDGES, NONE};
use super::cube_mesh::{CubePart, CubeVertex};
use crate::geometry::{CellFrame, GridPoint, PlanetGrid, REGION_CELLS, RegionKey, WINDOW};
use crate::terrain::{ColumnField, Terrain, VoxelGrid};

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
    /// The face's corner indices (i + 2j) in canonical order of their grid points, for interpolating.
    canonical_order: [usize; 4],
}

impl ColumnFrame {
    /// The frame of a cell on the region's own face, away from its edges.
    fn identity(frame: CellFrame) -> Self {
        Self {
            frame,
            to_face: [0, 1, 2, 3],
            from_face: [0, 1, 2, 3],
            edge_to_face: core::array::from_fn(|e| e),
            // Grid points sort by (face, x, y): (0,0), (0,1), (1,0), (1,1).
            canonical_order: [0, 2, 1, 3],
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
        let key = |c: usize| {
            let p = GridPoint { face: frame.face, x: frame.x + (c & 1) as i32, y: frame.y + (c >> 1) as i32 };
            grid.canonical(lod, p).unwrap_or(p)
        };
        let mut canonical_order = [0, 1, 2, 3];
        canonical_order.sort_by_key(|&c| key(c));
        Self { frame, to_face, from_face, edge_to_face, canonical_order }
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
fn stencil_reach(frame: &ColumnFrame, n: i32, layer: i32, (a, b, c): (usize, usize, usize)) -> u8 {
    let (x, y) = (frame.frame.x, frame.frame.y);
    let on_face = |lo: i32, hi: i32| x - lo >= 0 && x + hi <= n && y - lo >= 0 && y + hi <= n;
    let boundary = x.rem_euclid(32) == 31 || y.rem_euclid(32) == 31 || layer.rem_euclid(32) == 31;
    let wanted = if on_face(2, 3) && !boundary {
        2
    } else if on_face(1, 2) {
        1
    } else {
        0
    };
    // The window must hold offsets -reach..=reach + 1 on every axis.
    let fits = |reach: i32| {
        [(-reach, -reach), (reach + 1, -reach), (-reach, reach + 1), (reach + 1, reach + 1)].iter().all(|&(dx, dy)| {
            let (ox, oy) = frame.offset(dx, dy);
            let (sa, sb) = (a as i32 + ox, b as i32 + oy);
            (0..WINDOW as i32).contains(&sa) && (0..WINDOW as i32).contains(&sb)
        }) && c as i32 - reach >= 0
            && c as i32 + reach + 1 < WINDOW as i32
    };
    (0..=wanted).rev().find(|&r| fits(i32::from(r))).unwrap_or(0)
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
fn eno_value(s: [f32; 4], t: f32) -> (f32, f32) {
    let [m, a, b, c] = s;
    match bend(s) {
        None => (a * (1.0 - t) + b * t, b - a),
        Some(x) if t <= x => (a + (a - m) * t, a - m),
        Some(_) => (b - (c - b) * (1.0 - t), c - b),
    }
}

/// Where a grid line crosses zero between samples 0 and 1, and the slope there:
/// the secant's root, or beside a bend the root of the piece that reaches zero
/// on its own side of the bend.
fn eno_root(s: [f32; 4]) -> (f32, f32) {
    let [m, a, b, c] = s;
    let secant = (a / (a - b), b - a);
    let Some(x) = bend(s) else { return secant };
    let left = (a != m).then(|| -a / (a - m)).filter(|&t| (0.0..=x).contains(&t));
    let right = (c != b).then(|| 1.0 - b / (c - b)).filter(|&t| (x..=1.0).contains(&t));
    match (left, right) {
        (Some(t), None) => (t, a - m),
        (None, Some(t)) => (t, c - b),
        _ => secant,
    }
}

/// Hermite data from a stencil reaching `reach` cells beyond the cell. Along
/// each edge, crossings and values come from `eno_root` and `eno_value`, so a
/// sharp corner inside the cell does not drag them off its faces; across the
/// edge, the gradient is the central difference of the parallel lines where
/// they agree, and where they bend a one-sided difference
/// (`cell::one_sided_slope`), so normals beside a sharp edge keep to their face.
fn stencil_hermite(
    comps: &Components,
    reach: u8,
    sample: impl Fn(i32, i32, i32) -> f32,
    cache_slot: impl Fn(usize) -> Option<(usize, u32)>,
    cache: &mut [CachedEdge],
    generation: u32,
) -> [(Vec3, Vec3); 12] {
    let r = i32::from(reach);
    let mut out = [(Vec3::ZERO, Vec3::Z); 12];
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
        let base = [p0.x as i32, p0.y as i32, p0.z as i32];
        // The four samples along a line parallel to the edge, offset by `shift`.
        let line = |shift: [i32; 3]| -> [f32; 4] {
            let mut out = [0.0; 4];
            let mut at = [base[0] + shift[0], base[1] + shift[1], base[2] + shift[2]];
            at[axis] -= 1;
            for v in &mut out {
                *v = sample(at[0], at[1], at[2]);
                at[axis] += 1;
            }
            out
        };
        let (t, along) = eno_root(line([0; 3]));
        let p = p0.lerp(cell::corner_position(c1), t);
        let mut gradient = [0.0f32; 3];
        gradient[axis] = along;
        let value_at = |perp: usize, k: i32| {
            let mut shift = [0; 3];
            shift[perp] = k;
            eno_value(line(shift), t).0
        };
        for perp in (0..3).filter(|&q| q != axis) {
            // The crossing itself is at zero.
            let (back, fwd) = (-value_at(perp, -1), value_at(perp, 1));
            gradient[perp] = if (back - fwd).abs() <= 0.05 * (back.abs() + fwd.abs()) + 2.0 {
                // Smooth here: the central difference.
                0.5 * (back + fwd)
            } else if r >= 2 {
                // A bend: look one further on each side and keep to the straighter.
                let values = [value_at(perp, -2), -back, 0.0, fwd, value_at(perp, 2)];
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

    ws.frames.clear();
    for b in 0..CELLS {
        for a in 0..CELLS {
            let p = GridPoint { face, x: origin.0 + a as i32, y: origin.1 + b as i32 };
            // Cells whose corners are all strictly inside the face need no canonicalising.
            let inside = p.x > 0 && p.y > 0 && p.x + 1 < n && p.y + 1 < n;
            ws.frames.push(if inside {
                Some(ColumnFrame::identity(CellFrame {
                    face,
                    x: p.x,
                    y: p.y,
                    corners: [(0, 0), (1, 0), (0, 1), (1, 1)],
                }))
            } else {
                grid.cell_frame(lod, p).map(|f| ColumnFrame::new(grid, lod, f))
            });
        }
    }

    // Which samples are solid: one 36-bit mask per column of the window.
    ws.solid.clear();
    for column in voxels.voxels.chunks_exact(WINDOW) {
        ws.solid.push(column.iter().enumerate().fold(0u64, |m, (c, v)| m | (u64::from(v.density > 0) << c)));
    }
    let column_density: Vec<i16> = voxels.voxels.iter().map(|v| v.density).collect();
    ws.generation = ws.generation.wrapping_add(1);
    if ws.generation == 0 {
        // After 2^32 regions, forget every stamp rather than mistake an old one for new.
        ws.cells.clear();
        ws.edge_cache.clear();
        ws.generation = 1;
    }
    if ws.edge_cache.len() != 2 * WINDOW * WINDOW * 3 {
        ws.edge_cache = vec![CachedEdge::default(); 2 * WINDOW * WINDOW * 3];
    }

    // Vertices, for the cells the surface crosses.
    if ws.cells.len() != CELLS * CELLS * CELLS {
        ws.cells = vec![(0, 0, 0); CELLS * CELLS * CELLS];
    }
    ws.cell_edges.clear();
    ws.frame_positions.clear();
    let cell_bits = (1u64 << CELLS) - 1;
    for b in 0..CELLS {
        for a in 0..CELLS {
            let Some(frame) = ws.frames[b * CELLS + a] else { continue };
            // Cells with a solid and an air corner: some bit differs among the 8.
            let solid = &ws.solid;
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
            while mixed != 0 {
                let c = mixed.trailing_zeros() as usize;
                mixed &= mixed - 1;
                let base = column + c;
                let ours: [i16; 8] = core::array::from_fn(|k| column_density[base + CORNER[k]]);
                let mut theirs = [0i16; 8];
                for (k, &d) in ours.iter().enumerate() {
                    theirs[(k & 4) | frame.to_face[k & 3]] = d;
                }
                let comps: Components = cell::components(&theirs);
                let layer = first_layer + c as i32;
                let tier = stencil_reach(&frame, n, layer, (a, b, c));
                let hermite = if tier == 0 {
                    cell::trilinear_hermite(&theirs, &comps)
                } else {
                    // Samples at offsets from the cell's minimum corner, in its own face's frame.
                    let (origin, sx, sy) = frame.strides();
                    let at = base as isize + origin;
                    let sample = |dx: i32, dy: i32, dz: i32| {
                        f32::from(column_density[(at + dx as isize * sx + dy as isize * sy + dz as isize) as usize])
                    };
                    // On the region's own face an edge's data is the same from all four of
                    // its cells: compute it once.
                    let cache = frame.frame.face == face && frame.to_face == [0, 1, 2, 3];
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
                    stencil_hermite(&comps, tier, sample, slot, &mut ws.edge_cache, ws.generation)
                };
                let cell_vertices = cell::vertices(&theirs, &comps, &hermite, QEF_BIAS);
                let cell = cell_index(a, b, c);
                ws.cells[cell] = (ws.generation, out.vertices.len() as u32, ws.cell_edges.len() as u32);
                ws.cell_edges.push(core::array::from_fn(|e| comps.of_edge[frame.edge_to_face[e]]));
                for v in cell_vertices.iter().take(usize::from(comps.count)).flatten() {
                    out.vertices.push(cube_vertex(v, &frame, (a, b, c), first_layer, columns, voxels, shell_below));
                    ws.frame_positions.push(frame_position(v.position, &frame, (a, b, c)));
                }
            }
        }
    }

    // Quads, one per sign-changing edge the region owns or overlaps.
    let owned_square = 2..2 + REGION_CELLS as usize;
    let owned_layers: u64 = ((1u64 << REGION_CELLS) - 1) << 2;
    for b in 1..WINDOW - 1 {
        for a in 1..WINDOW - 1 {
            let solid = &ws.solid;
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
                    emit(ws, out, axis, (a, b, c), here >> c & 1 == 1, core);
                }
            }
        }
    }
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

/// The quad (or, beside a cube corner, triangle) of one sign-changing edge.
fn emit(
    ws: &DualContourWorkspace,
    out: &mut CubePart,
    axis: usize,
    (a, b, c): (usize, usize, usize),
    start_solid: bool,
    core: bool,
) {
    // The four cells around the edge, counter-clockwise seen from +axis, and the edge in each.
    let around: [((isize, isize, isize), usize); 4] = match axis {
        0 => [((0, -1, -1), 3), ((0, 0, -1), 2), ((0, 0, 0), 0), ((0, -1, 0), 1)],
        1 => [((-1, 0, -1), 7), ((-1, 0, 0), 5), ((0, 0, 0), 4), ((0, 0, -1), 6)],
        _ => [((-1, -1, 0), 11), ((0, -1, 0), 10), ((0, 0, 0), 8), ((-1, 0, 0), 9)],
    };
    let mut ring = [0u32; 4];
    let mut count = 0;
    for ((da, db, dc), edge) in around {
        let (ca, cb, cc) = ((a as isize + da) as usize, (b as isize + db) as usize, (c as isize + dc) as usize);
        let (generation, first, slot) = ws.cells[cell_index(ca, cb, cc)];
        if generation != ws.generation {
            continue; // beyond a cube corner: no cell there
        }
        let comp = ws.cell_edges[slot as usize][edge];
        debug_assert_ne!(comp, NONE, "a sign-changing edge belongs to a component of each of its cells");
        ring[count] = first + u32::from(comp);
        count += 1;
    }
    if count < 3 {
        return;
    }
    // Solid to air along +axis faces +axis: keep the order; otherwise reverse it.
    if !start_solid {
        ring[..count].reverse();
    }
    let target = if core { &mut out.triangles } else { &mut out.overlap };
    if count == 3 {
        target.extend_from_slice(&ring[..3]);
        return;
    }
    let pos = |i: usize| ws.frame_positions[ring[i] as usize];
    if pos(0).distance_squared(pos(2)) <= pos(1).distance_squared(pos(3)) {
        target.extend_from_slice(&[ring[0], ring[1], ring[2], ring[0], ring[2], ring[3]]);
    } else {
        target.extend_from_slice(&[ring[0], ring[1], ring[3], ring[1], ring[2], ring[3]]);
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
    let corner_base = |k: usize| {
        let ours = frame.from_face[k];
        columns.at(a + (ours & 1), b + (ours >> 1)).elevation_m - shell_below
    };
    let mut base = 0.0;
    let (wx, wy) = ([1.0 - lx, lx], [1.0 - ly, ly]);
    for &k in &frame.canonical_order {
        base += wx[k & 1] * wy[k >> 1] * corner_base(k);
    }
    let (b0, b1, b2, b3) = (corner_base(0), corner_base(1), corner_base(2), corner_base(3));
    let base_slope = [(b1 - b0) * (1.0 - ly) + (b3 - b2) * ly, (b2 - b0) * (1.0 - lx) + (b3 - b1) * lx];
    let corner = v.material_corner;
    let ours = frame.from_face[corner & 3];
    let voxel = voxels.voxels[sample_index(a + (ours & 1), b + (ours >> 1), c + (corner >> 2))];
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
    }
}

/// A vertex's position in the region's own (unfolded) frame, in cells.
fn frame_position(p: Vec3, frame: &ColumnFrame, (a, b, c): (usize, usize, usize)) -> Vec3 {
    let mut xy = glam::Vec2::ZERO;
    let (wx, wy) = ([1.0 - p.x, p.x], [1.0 - p.y, p.y]);
    for k in 0..4 {
        let w = wx[k & 1] * wy[k >> 1];
        let ours = frame.from_face[k];
        xy += w * glam::Vec2::new((ours & 1) as f32, (ours >> 1) as f32);
    }
    Vec3::new(a as f32 + xy.x, b as f32 + xy.y, c as f32 + p.z)
}
