//! The plan's spatial index: buckets of 4 x 4 plan cells, each listing the
//! items (stamps, river segments) whose footprint reaches one of its cells,
//! in ascending item order. A query reads the bucket of the cell holding a
//! point: never a scan of every item. Built once with the layout, from the
//! cells each item's footprint covers (walked across face edges).

use glam::Vec3;

use super::grid::{Cell, PLAN_CELLS, PlanGrid, Walker};

/// Plan cells along a bucket's side.
const BUCKET: i32 = 2;
/// Buckets along a face's side.
const BUCKETS: i32 = PLAN_CELLS / BUCKET;

/// Items by bucket, as offsets into one list.
#[derive(Clone, Debug, Default)]
pub struct SpatialIndex {
    offsets: Vec<u32>,
    items: Vec<u32>,
}

/// The bucket of a cell.
fn bucket(c: Cell) -> usize {
    let (face, x, y) = PlanGrid::coords(c);
    ((i32::from(face.index()) * BUCKETS + y / BUCKET) * BUCKETS + x / BUCKET) as usize
}

impl SpatialIndex {
    /// Indexes `count` items: `footprint(i)` gives item i's centre and the
    /// distance from it (metres) within which a point may be in its footprint.
    pub fn build(grid: &PlanGrid, walker: &mut Walker, count: usize, footprint: impl Fn(usize) -> (Vec3, f32)) -> Self {
        let buckets = 6 * (BUCKETS * BUCKETS) as usize;
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        // A point within `reach` of the centre lies in a cell whose centre is
        // within reach plus a cell's half-diagonal (1.41x larger at face corners).
        let margin = grid.cell_m() * 1.5;
        for i in 0..count {
            let (centre, reach) = footprint(i);
            let limit = reach + margin;
            let start = grid.cell_of(centre);
            let mut last = usize::MAX;
            walker.walk(
                grid,
                start,
                |c| grid.distance_m(grid.centre(c), centre) <= limit,
                |c| {
                    let b = bucket(c);
                    if b != last {
                        pairs.push((b as u32, i as u32));
                        last = b;
                    }
                },
            );
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut offsets = vec![0u32; buckets + 1];
        for &(b, _) in &pairs {
            offsets[b as usize + 1] += 1;
        }
        for b in 0..buckets {
            offsets[b + 1] += offsets[b];
        }
        Self { offsets, items: pairs.into_iter().map(|(_, i)| i).collect() }
    }

    /// The items whose footprint may hold a point of cell `c`, ascending.
    #[inline]
    #[must_use]
    pub fn near(&self, c: Cell) -> &[u32] {
        self.in_bucket(bucket(c))
    }

    /// The items whose footprint may hold a point of any of `cells`, ascending.
    #[must_use]
    pub fn near_any(&self, cells: &[Cell]) -> Vec<u32> {
        let mut items: Vec<u32> = cells.iter().flat_map(|&c| self.near(c).iter().copied()).collect();
        items.sort_unstable();
        items.dedup();
        items
    }

    /// The items of bucket `b`, ascending (none for an empty index).
    #[inline]
    #[must_use]
    pub fn in_bucket(&self, b: usize) -> &[u32] {
        if b + 1 >= self.offsets.len() {
            return &[];
        }
        &self.items[self.offsets[b] as usize..self.offsets[b + 1] as usize]
    }
}
