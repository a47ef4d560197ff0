//! `ColumnMemo`: the 2D passes of the last few columns built, for a
//! builder's jobs to share.
//!
//! A region's 2D pass (its `ColumnField`) does not depend on its layer up
//! the shell: every region stacked in a column (four at LOD 0, two at LOD 1)
//! has the same one but for its key. The streamer wants a column's regions
//! together, at one priority, so they are built one after another; a memo
//! of the last few columns spares all but the first its 2D pass (0.4-0.5 ms,
//! a quarter of a LOD-0 region's job), and a region the 2D pass leaves all
//! air or all rock costs little more than its 3D pass's fill. The field is
//! the same bits either way (tested): the memo changes no output.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::{ColumnField, Terrain};
use crate::RegionKey;

/// The last few columns' 2D passes.
#[derive(Debug)]
pub struct ColumnMemo {
    recent: Mutex<VecDeque<Arc<ColumnField>>>,
    capacity: usize,
}

impl Default for ColumnMemo {
    /// Room for 16 columns (about 1 MiB): more than the jobs in flight
    /// on any machine's worth of cores, so a column's regions meet theirs.
    fn default() -> Self {
        Self::new(16)
    }
}

impl ColumnMemo {
    /// A memo of the last `capacity` columns (at least one).
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self { recent: Mutex::new(VecDeque::new()), capacity: capacity.max(1) }
    }

    /// The memo's list (a job that panicked holding it left it whole: every
    /// change to it is one push or pop).
    fn recent(&self) -> MutexGuard<'_, VecDeque<Arc<ColumnField>>> {
        self.recent.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `terrain.columns(key)`, from the memo when another region of the
    /// column was built lately. The memo is for one terrain: a caller keeps
    /// one per terrain it builds from.
    #[must_use]
    pub fn columns(&self, terrain: &Terrain, key: RegionKey) -> ColumnField {
        let same_column = |k: RegionKey| (k.face, k.lod, k.x, k.y) == (key.face, key.lod, key.x, key.y);
        let hit = self.recent().iter().find(|f| same_column(f.key)).cloned();
        if let Some(field) = hit {
            return ColumnField { key, columns: field.columns.clone() };
        }
        let field = terrain.columns(key);
        let mut recent = self.recent();
        if recent.len() == self.capacity {
            recent.pop_front();
        }
        recent.push_back(Arc::new(field.clone()));
        field
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlannedSystem;

    #[test]
    fn memoised_fields_are_the_fields_in_any_order() {
        // Every region of 60 random columns over three planets and every
        // LOD, face edges and corners among them, asked for in a shuffled
        // order through a memo too small to hold them all: each field is
        // bit for bit the one the 2D pass makes.
        let system = PlannedSystem::default_system();
        let mut draw = crate::hash::HashStream::new(0x2545_f491_4f6c_dd1d);
        let mut next = move |n: u32| draw.index(n as usize) as u32;
        for planet in [0usize, 1, 3] {
            let terrain = Terrain::new(&system.planets[planet]);
            let memo = ColumnMemo::new(3);
            let mut keys = Vec::new();
            for _ in 0..20 {
                let lod = next(u32::from(terrain.grid.max_lod) + 1) as u8;
                let across = terrain.grid.regions_across(lod);
                // Half the columns on a face's edge or corner.
                let edge = |v: u32, roll: u32| match roll {
                    0 => 0,
                    1 => across - 1,
                    _ => v,
                };
                let (x, y) = (edge(next(across), next(4)), edge(next(across), next(4)));
                let face = next(6) as u8;
                for z in 0..terrain.grid.regions_up(lod) {
                    keys.push(RegionKey { face, lod, x, y, z });
                }
            }
            for i in (1..keys.len()).rev() {
                keys.swap(i, next(i as u32 + 1) as usize);
            }
            let mut hits = 0;
            for &key in &keys {
                let before = memo
                    .recent()
                    .iter()
                    .any(|f| (f.key.face, f.key.lod, f.key.x, f.key.y) == (key.face, key.lod, key.x, key.y));
                hits += usize::from(before);
                assert!(memo.columns(&terrain, key) == terrain.columns(key), "planet {planet} region {key}");
            }
            assert!(hits > 0, "planet {planet}: the memo was never used");
        }
    }
}
