//! Baked regions: per-cell overrides where many edits overlap, as the
//! coordinate-pure generator's overlay keeps them (reference `001`).
//!
//! When a LOD-0 region holds [`BAKE_AT`] edits, the log bakes it: every
//! sample the region owns that its edits leave unlike the generated one is
//! kept as it is (overrides equal to the generated value are dropped), with
//! the objects its edits removed (tombstones). An edit whose every LOD-0
//! region is baked after it then leaves the log, so a region's memory is
//! bounded by what was changed, not by how often.
//!
//! A bake applies in its place in the log's order. At LOD 0 a sample the
//! region owns becomes its override, or the generated value where it has
//! none: exactly what the edits gave. A coarser sample over the region's
//! columns reads the overrides of the two LOD-0 layers about its height,
//! linearly (its own generated value standing in for a layer without one),
//! so the scar shows at every LOD. Either way a sample's value depends only
//! on where it is, so overlapping regions stay bit-identical.

use std::sync::Arc;

use glam::Vec3;

use super::RegionEdits;
use crate::geometry::{GridPoint, MARGIN, REGION_CELLS, RegionKey};
use crate::pipeline::{Chain, Pipeline, RegionInput, Run, StageOutput, stages};
use crate::scatter::Scatter;
use crate::terrain::{ColumnField, Terrain, Voxel, VoxelGrid};

/// Edits a LOD-0 region holds when the log bakes it.
pub const BAKE_AT: usize = 48;

/// Columns a region's overrides span along each axis: its own 32 and, for
/// a region at a face's far edge, the edge's column (whose canonical point
/// is on this face and in no region's own range).
const SPAN: i32 = REGION_CELLS + 1;
/// Indices of a region's overrides: (y * SPAN + x) * 32 + layer.
const CELLS: usize = (SPAN * SPAN * REGION_CELLS) as usize;

/// The overrides of one LOD-0 region.
#[derive(Clone, Debug, PartialEq)]
pub struct Bake {
    /// The LOD-0 region whose owned samples it holds.
    pub key: RegionKey,
    /// Owned samples unlike the generated ones: (index, voxel), ascending;
    /// the index is `(y * 33 + x) * 32 + layer` within the region.
    pub cells: Vec<(u16, Voxel)>,
    /// Ids of the region's objects that edits removed or buried, ascending.
    pub tombstones: Vec<u64>,
    /// XXH3-64 of its bytes: what region stamps chain.
    pub hash: u64,
}

/// A bake in a region's list: before the region's edit `before` (its
/// position among them, in log order).
#[derive(Clone, Debug, PartialEq)]
pub struct BakeAt {
    /// How many of the region's edits come before it.
    pub before: u32,
    /// The bake.
    pub bake: Arc<Bake>,
}

const CELL_BYTES: usize = 8;

impl Bake {
    /// A bake of `key` with these overrides and tombstones (each sorted here).
    #[must_use]
    pub fn new(key: RegionKey, mut cells: Vec<(u16, Voxel)>, mut tombstones: Vec<u64>) -> Self {
        cells.sort_unstable_by_key(|c| c.0);
        cells.dedup_by_key(|c| c.0);
        tombstones.sort_unstable();
        tombstones.dedup();
        let mut bake = Self { key, cells, tombstones, hash: 0 };
        bake.hash = xxhash_rust::xxh3::xxh3_64(&bake.to_bytes()).max(1);
        bake
    }

    /// Its bytes, as saves hold them: the key (face u8, x, y, z u32), the
    /// tombstone and cell counts (u32), the ids (u64), then each cell's
    /// index (u16), density (i16), materials (2 u8) and blend (u16).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(21 + 8 * self.tombstones.len() + CELL_BYTES * self.cells.len());
        out.push(self.key.face);
        for v in [self.key.x, self.key.y, self.key.z, self.tombstones.len() as u32, self.cells.len() as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for id in &self.tombstones {
            out.extend_from_slice(&id.to_le_bytes());
        }
        for (i, v) in &self.cells {
            out.extend_from_slice(&i.to_le_bytes());
            out.extend_from_slice(&v.density.to_le_bytes());
            out.extend_from_slice(&v.materials);
            out.extend_from_slice(&v.blend.to_le_bytes());
        }
        out
    }

    /// The bake at the start of `bytes` and how many bytes it took, or why not.
    pub fn from_bytes(bytes: &[u8]) -> Result<(Bake, usize), String> {
        let u32_at = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")));
        let (Some(&face), Some(x), Some(y), Some(z), Some(dead), Some(count)) =
            (bytes.first(), u32_at(1), u32_at(5), u32_at(9), u32_at(13), u32_at(17))
        else {
            return Err(format!("cut short: {} bytes of a bake's 21-byte head", bytes.len()));
        };
        let cells_total = CELLS;
        if count as usize > cells_total || face > 5 {
            return Err(format!("face {face} with {count} cells: a region has 6 faces and {cells_total} cells"));
        }
        let len = 21 + 8 * dead as usize + CELL_BYTES * count as usize;
        let Some(body) = bytes.get(21..len) else {
            return Err(format!("cut short: {} bytes left of the {len} its counts need", bytes.len()));
        };
        let (ids, cells) = body.split_at(8 * dead as usize);
        let tombstones: Vec<u64> =
            ids.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
        let mut out = Vec::with_capacity(count as usize);
        for c in cells.chunks_exact(CELL_BYTES) {
            let index = u16::from_le_bytes([c[0], c[1]]);
            if usize::from(index) >= cells_total || out.last().is_some_and(|&(last, _)| last >= index) {
                return Err(format!("cell index {index}: indices must rise, below {cells_total}"));
            }
            let voxel = Voxel {
                density: i16::from_le_bytes([c[2], c[3]]),
                materials: [c[4], c[5]],
                blend: u16::from_le_bytes([c[6], c[7]]),
            };
            out.push((index, voxel));
        }
        let key = RegionKey { face, lod: 0, x, y, z };
        Ok((Bake::new(key, out, tombstones), len))
    }

    /// The override of owned sample `index`, if it has one.
    fn cell(&self, index: u16) -> Option<Voxel> {
        self.cells.binary_search_by_key(&index, |c| c.0).ok().map(|i| self.cells[i].1)
    }

    /// Memory it holds, bytes.
    #[must_use]
    pub fn bytes(&self) -> usize {
        size_of::<Self>() + self.cells.capacity() * size_of::<(u16, Voxel)>() + self.tombstones.capacity() * 8
    }

    /// Whether an object of this id is gone.
    #[must_use]
    pub fn buried(&self, id: u64) -> bool {
        self.tombstones.binary_search(&id).is_ok()
    }
}

/// The bake of LOD-0 region `key` as `region` (its current edits and
/// bakes) leaves it: every owned sample unlike the generated one, and the
/// objects of its scatter that are gone.
#[must_use]
pub fn bake_region(terrain: &Terrain, key: RegionKey, region: &RegionEdits) -> Bake {
    let columns = terrain.columns(key);
    let generated = terrain.voxels(&columns);
    let mut edited = generated.clone();
    super::apply_edits(terrain, &mut edited, &columns, &region.edits, &region.bakes);
    let mut cells = Vec::new();
    let (start, end) = (MARGIN as usize, (MARGIN + REGION_CELLS) as usize);
    for b in start..=end {
        for a in start..=end {
            // A column on a face edge is owned by the face its canonical point is on.
            let p = window_point(key, a, b);
            if terrain.grid.canonical(0, p) != Some(p) || owner(terrain, p) != (key.x, key.y) {
                continue;
            }
            for c in start..end {
                let (was, now) = (generated.at(a, b, c), edited.at(a, b, c));
                if was != now {
                    cells.push((cell_index(key, p, key.z as i32 * REGION_CELLS + (c - start) as i32), now));
                }
            }
        }
    }
    Bake::new(key, cells, tombstones(terrain, region, columns, generated))
}

/// Ids of the objects of the region of `columns` and its `generated`
/// voxels that `region`'s edits remove or bury, or its bakes hold gone.
fn tombstones(terrain: &Terrain, region: &RegionEdits, columns: ColumnField, generated: VoxelGrid) -> Vec<u64> {
    let input = RegionInput::of_terrain(terrain, columns.key);
    // The columns and voxels made above are lent to the chain; the stages
    // after them up to scatter run (the collider and navmesh are not needed).
    let pipeline = Pipeline::standard();
    let (Some(voxels), Some(last)) = (pipeline.index(&stages::VOXELS), pipeline.index(&stages::SCATTER)) else {
        return Vec::new();
    };
    let mut chain = Chain::default();
    for out in [StageOutput::new(&stages::COLUMNS, columns), StageOutput::new(&stages::VOXELS, generated)] {
        chain.set(out.expect("the stage's own type"));
    }
    let after = pipeline.region_stages().map(|(i, _)| i).filter(|&i| i > voxels && i <= last);
    if !matches!(pipeline.run(&input, &mut chain, after, &|| false, |_, _| {}), Ok(Run::Finished)) {
        return Vec::new();
    }
    let Some(scatter) = chain.take_value::<Scatter>(&stages::SCATTER) else { return Vec::new() };
    scatter
        .objects
        .iter()
        .filter(|o| {
            let base = (scatter.origin + o.position.as_dvec3()).as_vec3();
            super::buries(&region.edits, base, super::object_reach_m(o.size_m))
                || region.bakes.iter().any(|b| b.bake.buried(o.id))
        })
        .map(|o| o.id)
        .collect()
}

/// The LOD-0 region (x, y) whose overrides hold canonical column `p`: the
/// one whose range holds it, the last for the far edge's column.
fn owner(terrain: &Terrain, p: GridPoint) -> (u32, u32) {
    let last = terrain.grid.regions_across(0) as i32 - 1;
    ((p.x.div_euclid(REGION_CELLS)).min(last) as u32, (p.y.div_euclid(REGION_CELLS)).min(last) as u32)
}

/// The index of `key`'s override of canonical column `p` at LOD-0 `layer`.
fn cell_index(key: RegionKey, p: GridPoint, layer: i32) -> u16 {
    let n = REGION_CELLS;
    let (x, y, z) = (p.x - key.x as i32 * n, p.y - key.y as i32 * n, layer - key.z as i32 * n);
    ((y * SPAN + x) * n + z) as u16
}

/// Window column (a, b) of `key` as a grid point.
fn window_point(key: RegionKey, a: usize, b: usize) -> GridPoint {
    GridPoint {
        face: key.face(),
        x: key.x as i32 * REGION_CELLS - MARGIN + a as i32,
        y: key.y as i32 * REGION_CELLS - MARGIN + b as i32,
    }
}

/// Where one window column falls among LOD-0 columns: the canonical LOD-0
/// column under it and, for a coarse window, the LOD-0 shell floor there.
#[derive(Clone, Copy, Debug)]
pub(super) struct ColumnOwner {
    column: GridPoint,
    region: (u32, u32),
    floor0_m: f32,
}

impl ColumnOwner {
    /// Window column (a, b) of `grid`'s region, if it lies under one of
    /// `bakes` (`None` too beyond a cube corner). The LOD-0 floor, a noise
    /// evaluation, is worked out only then, as a voxel pass runs this for
    /// every column of a region with bakes.
    pub(super) fn of(
        terrain: &Terrain,
        grid: &VoxelGrid,
        columns: &ColumnField,
        (a, b): (usize, usize),
        bakes: &[BakeAt],
    ) -> Option<Self> {
        let key = grid.key;
        let at_lod = terrain.grid.canonical(key.lod, window_point(key, a, b))?;
        let scaled = GridPoint { face: at_lod.face, x: at_lod.x << key.lod, y: at_lod.y << key.lod };
        let column = terrain.grid.canonical(0, scaled)?;
        let mut out = Self { column, region: owner(terrain, column), floor0_m: 0.0 };
        if !bakes.iter().any(|b| out.under(&b.bake)) {
            return None;
        }
        if key.lod > 0 {
            let d = columns.at(a, b).direction;
            out.floor0_m =
                terrain.recipe.radius_m + terrain.elevation_m(d, terrain.node_cell_m(0)) - terrain.grid.shell_below_m;
        }
        Some(out)
    }

    /// Whether the column lies in `bake`'s region's columns.
    fn under(&self, bake: &Bake) -> bool {
        self.column.face.index() == bake.key.face && self.region == (bake.key.x, bake.key.y)
    }
}

/// Applies `bake` to one column of `grid` (`out`, whose generated values
/// are `generated`), its window column `owner`; `first_layer` and
/// `floor_m` place the column's samples as the voxel stage does.
pub(super) fn apply_bake(
    terrain: &Terrain,
    bake: &Bake,
    key: RegionKey,
    owner: &ColumnOwner,
    (first_layer, floor_m): (i32, f32),
    generated: &[Voxel],
    out: &mut [Voxel],
) {
    if !owner.under(bake) {
        return;
    }
    let z0 = bake.key.z as i32 * REGION_CELLS;
    // The override of LOD-0 layer `layer`, or `fallback` where it is the
    // region's and has none; `None` where the layer is another region's.
    let layer_value = |layer: i32, fallback: Voxel| {
        (layer >= z0 && layer < z0 + REGION_CELLS)
            .then(|| bake.cell(cell_index(bake.key, owner.column, layer)).unwrap_or(fallback))
    };
    if key.lod == 0 {
        for (c, v) in out.iter_mut().enumerate() {
            if let Some(value) = layer_value(first_layer + c as i32, generated[c]) {
                *v = value;
            }
        }
        return;
    }
    let (layer_m, layer0_m) = (terrain.grid.layer_m(key.lod), terrain.grid.layer_m(0));
    for (c, v) in out.iter_mut().enumerate() {
        let r = floor_m + (first_layer + c as i32) as f32 * layer_m;
        let t = (r - owner.floor0_m) / layer0_m;
        let below = libm::floorf(t);
        let w = t - below;
        let below = below as i32;
        let (lo, hi) = (layer_value(below, generated[c]), layer_value(below + 1, generated[c]));
        if lo.is_none() && hi.is_none() {
            continue;
        }
        let (lo, hi) = (lo.unwrap_or(generated[c]), hi.unwrap_or(generated[c]));
        let density = f32::from(lo.density) * (1.0 - w) + f32::from(hi.density) * w;
        let nearer = if w < 0.5 { lo } else { hi };
        *v = Voxel { density: libm::roundf(density) as i16, ..nearer };
    }
}

/// The ball holding every sample `key` owns (and a metre more): what the
/// log's index tests regions against for a bake.
#[must_use]
pub fn bake_ball(terrain: &Terrain, key: RegionKey) -> (Vec3, f32) {
    let b = super::window_box(terrain, key);
    let mid = (b.lo + b.hi) * 0.5;
    let centre = b.axes[0] * mid.x + b.axes[1] * mid.y + b.axes[2] * mid.z;
    (centre, (b.hi - b.lo).length() * 0.5 + 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_bad_ones_are_refused() {
        let key = RegionKey { face: 3, lod: 0, x: 9, y: 12, z: 1 };
        let v = |d: i16| Voxel { density: d, materials: [1, 2], blend: 7 };
        let bake = Bake::new(key, vec![(40, v(-5)), (3, v(300))], vec![99, 7]);
        assert_eq!(bake.cells[0].0, 3, "cells sorted");
        let bytes = bake.to_bytes();
        let (back, len) = Bake::from_bytes(&bytes).unwrap();
        assert_eq!((back, len), (bake.clone(), bytes.len()));
        for cut in 0..bytes.len() {
            assert!(Bake::from_bytes(&bytes[..cut]).is_err(), "cut at {cut} accepted");
        }
        let mut unsorted = bytes.clone();
        unsorted[21 + 16..21 + 18].copy_from_slice(&50u16.to_le_bytes());
        assert!(Bake::from_bytes(&unsorted).unwrap_err().contains("indices must rise"));
    }
}
