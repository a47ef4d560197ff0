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
        // (bucket, item) pairs, each once (an item's last bucket marks it),
        // in ascending item order.
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut last_item = vec![u32::MAX; buckets];
        // A point within `reach` of the centre lies in a cell whose centre is
        // within reach plus a cell's half-diagonal (1.41x larger at face corners).
        let margin = grid.cell_m() * 1.5;
        for i in 0..count {
            let (centre, reach) = footprint(i);
            let limit = reach + margin;
            let start = grid.cell_of(centre);
            walker.walk(
                grid,
                start,
                |c| grid.distance_m(grid.centre(c), centre) <= limit,
                |c| {
                    let b = bucket(c);
                    if last_item[b] != i as u32 {
                        last_item[b] = i as u32;
                        pairs.push((b as u32, i as u32));
                    }
                },
            );
        }
        // A counting sort by bucket: stable, so each bucket's items stay ascending.
        let mut offsets = vec![0u32; buckets + 1];
        for &(b, _) in &pairs {
            offsets[b as usize + 1] += 1;
        }
        for b in 0..buckets {
            offsets[b + 1] += offsets[b];
        }
        let mut cursor = offsets.clone();
        let mut items = vec![0u32; pairs.len()];
        for &(b, i) in &pairs {
            items[cursor[b as usize] as usize] = i;
            cursor[b as usize] += 1;
        }
        Self { offsets, items }
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
