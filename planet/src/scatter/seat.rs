//! Seating: the ground under an object, read from its region's own mesh in
//! cube-face space, where "straight down" is a line of constant grid (x, y).
//! Triangles (owned and the overlap strip) are bucketed by grid cell; an
//! object stands on the topmost up-facing triangle over its (x, y), at the
//! height the mesh has there, so it sits on exactly the ground that region
//! draws. It is refused when any surface hangs over it (a cave ceiling, an
//! overhang). Which region of a column seats an object is `place.rs`'s choice.

use crate::geometry::{PlanetGrid, REGION_CELLS, RegionKey};
use crate::mesh::{CubeMesh, CubeVertex};

/// Bucket cells around the region's own (a margin for the overlap strip).
const MARGIN: i32 = 1;
const SIDE: i32 = REGION_CELLS + 2 * MARGIN;

/// Where an object stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Seat {
    /// Height of the ground above the base radius, metres.
    pub height_m: f32,
    /// The ground's sky light there, 0 to 1 (`mesh/sky.rs`).
    pub sky: f32,
}

/// Why an object has no seat in a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoSeat {
    /// No ground of this region's mesh under it.
    NoGround,
    /// The topmost ground is in another region of the column.
    OtherLayer,
    /// Something hangs over it.
    Roofed,
}

/// A triangle in the grid frame: (x, y) in cells of the face, h in metres above the base radius.
#[derive(Clone, Copy, Debug)]
struct Flat {
    corners: [[f32; 3]; 3],
    /// Layer of each corner (cells above the shell floor).
    layers: [f32; 3],
    /// Sky light of each corner, 0 to 1.
    sky: [f32; 3],

    up: bool,
}

/// The triangles of a region's terrain, bucketed by grid cell.
#[derive(Debug)]
pub struct Seater {
    key: RegionKey,
    origin_cell: [i32; 2],
    triangles: Vec<Flat>,
    /// Per bucket, the range of `members` holding its triangles.
    starts: Vec<u32>,
    members: Vec<u32>,
}

fn grid_corner(v: &CubeVertex, layer_m: f32) -> ([f32; 3], f32) {
    let layer = v.cell[2] as f32 + v.local.z;
    ([v.cell[0] as f32 + v.local.x, v.cell[1] as f32 + v.local.y, v.base_m + layer * layer_m], layer)
}

impl Seater {
    /// The seater of a region's cube mesh.
    #[must_use]
    pub fn new(grid: &PlanetGrid, mesh: &CubeMesh) -> Self {
        let key = mesh.key;
        let layer_m = grid.layer_m(key.lod);
        let origin_cell = [key.x as i32 * REGION_CELLS - MARGIN, key.y as i32 * REGION_CELLS - MARGIN];
        let origin = [origin_cell[0] as f32, origin_cell[1] as f32];
        let part = &mesh.terrain;
        // Each vertex in the grid frame once (a vertex is in about six
        // triangles); None for one in a neighbour face's frame, not in this grid.
        let corners: Vec<Option<([f32; 3], f32)>> =
            part.vertices.iter().map(|v| (v.face == key.face).then(|| grid_corner(v, layer_m))).collect();
        let mut triangles = Vec::with_capacity((part.triangles.len() + part.overlap.len()) / 3);
        // Per triangle, the buckets its (x, y) bounds span: low x, low y, high x, high y.
        let mut spans: Vec<[u8; 4]> = Vec::with_capacity(triangles.capacity());
        // Relative to the first bucket's corner (exact: both are on the same
        // grid of f32s) a coordinate truncates to its bucket, as `floor` would
        // (one below it clamps to the first bucket either way).
        let bucket = |t: f32, o: f32| ((t - o) as i32).clamp(0, SIDE - 1) as u8;
        for tri in part.triangles.chunks_exact(3).chain(part.overlap.chunks_exact(3)) {
            let (Some(a), Some(b), Some(c)) =
                (corners[tri[0] as usize], corners[tri[1] as usize], corners[tri[2] as usize])
            else {
                continue;
            };
            let c = [a, b, c];
            let normal_z: f32 = tri.iter().map(|&i| part.vertices[i as usize].face_normal.z).sum();
            let (xs, ys) = (c.map(|c| c.0[0]), c.map(|c| c.0[1]));
            spans.push([
                bucket(xs[0].min(xs[1]).min(xs[2]), origin[0]),
                bucket(ys[0].min(ys[1]).min(ys[2]), origin[1]),
                bucket(xs[0].max(xs[1]).max(xs[2]), origin[0]),
                bucket(ys[0].max(ys[1]).max(ys[2]), origin[1]),
            ]);
            let sky = [0, 1, 2].map(|k| f32::from(part.vertices[tri[k] as usize].sky) / 255.0);
            triangles.push(Flat { corners: c.map(|c| c.0), layers: c.map(|c| c.1), sky, up: normal_z > 0.0 });
        }
        let mut counts = vec![0u32; (SIDE * SIDE) as usize + 1];
        for &[x0, y0, x1, y1] in &spans {
            for y in usize::from(y0)..=usize::from(y1) {
                for x in usize::from(x0)..=usize::from(x1) {
                    counts[y * SIDE as usize + x + 1] += 1;
                }
            }
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let mut fill = counts.clone();
        let mut members = vec![0u32; counts[counts.len() - 1] as usize];
        for (t, &[x0, y0, x1, y1]) in spans.iter().enumerate() {
            for y in usize::from(y0)..=usize::from(y1) {
                for x in usize::from(x0)..=usize::from(x1) {
                    let b = y * SIDE as usize + x;
                    members[fill[b] as usize] = t as u32;
                    fill[b] += 1;
                }
            }
        }
        Self { key, origin_cell, triangles, starts: counts, members }
    }

    /// The ground under grid point (x, y) (cells of the region's face at its LOD).
    pub fn seat(&self, x: f32, y: f32) -> Result<Seat, NoSeat> {
        // Relative to the first bucket's corner, as in `new`.
        let (rx, ry) = (x - self.origin_cell[0] as f32, y - self.origin_cell[1] as f32);
        if !(0.0..SIDE as f32).contains(&rx) || !(0.0..SIDE as f32).contains(&ry) {
            return Err(NoSeat::NoGround);
        }
        let (bx, by) = (rx as i32, ry as i32);
        let b = (by * SIDE + bx) as usize;
        let mut top: Option<(f32, f32, f32)> = None; // height, layer, sky
        let mut hits = [0f32; 16];
        let mut count = 0;
        for &t in &self.members[self.starts[b] as usize..self.starts[b + 1] as usize] {
            let tri = &self.triangles[t as usize];
            let Some(w) = barycentric(&tri.corners, x, y) else { continue };
            let h = w[0] * tri.corners[0][2] + w[1] * tri.corners[1][2] + w[2] * tri.corners[2][2];
            if count < hits.len() {
                hits[count] = h;
                count += 1;
            }
            if tri.up && top.is_none_or(|(th, _, _)| h > th) {
                let layer = w[0] * tri.layers[0] + w[1] * tri.layers[1] + w[2] * tri.layers[2];
                let sky = w[0] * tri.sky[0] + w[1] * tri.sky[1] + w[2] * tri.sky[2];
                top = Some((h, layer, sky));
            }
        }
        let (h, layer, sky) = top.ok_or(NoSeat::NoGround)?;
        // Ground beyond the region's window (it reaches two layers past its own).
        let z0 = (self.key.z as i32 * REGION_CELLS) as f32;
        if !(z0 - 2.0..z0 + REGION_CELLS as f32 + 2.0).contains(&layer) {
            return Err(NoSeat::OtherLayer);
        }
        // Any surface above the topmost up-facing ground faces down: a cave's
        // ceiling or an overhang, however high (no tree grows in a cave).
        if hits[..count].iter().any(|&o| o > h + 0.05) {
            return Err(NoSeat::Roofed);
        }
        Ok(Seat { height_m: h, sky })
    }
}

/// Barycentric weights of (x, y) in the triangle's (x, y) projection, if inside.
fn barycentric(c: &[[f32; 3]; 3], x: f32, y: f32) -> Option<[f32; 3]> {
    let (ax, ay, bx, by, cx, cy) = (c[0][0], c[0][1], c[1][0], c[1][1], c[2][0], c[2][1]);
    let det = (by - cy) * (ax - cx) + (cx - bx) * (ay - cy);
    if det.abs() < 1e-12 {
        return None;
    }
    let w0 = ((by - cy) * (x - cx) + (cx - bx) * (y - cy)) / det;
    let w1 = ((cy - ay) * (x - cx) + (ax - cx) * (y - cy)) / det;
    let w2 = 1.0 - w0 - w1;
    const E: f32 = -1e-6;
    (w0 >= E && w1 >= E && w2 >= E).then_some([w0, w1, w2])
}
