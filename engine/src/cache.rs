//! The region cache: finished regions under their [`RegionId`] (planet
//! signature, region key, edit stamp), within a memory budget, least recently used out first. Coming back to a
//! place does not regenerate it; regions a caller pins (visible or wanted)
//! are never evicted.

use std::collections::BTreeMap;
use std::sync::Arc;

use planet::{RegionKey, Signature};

use crate::builder::BuiltRegion;

/// A region as built: of which world, where, and after which edits. Two
/// builds with the same id are the same bytes (DESIGN.md invariant 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RegionId {
    /// The planet's signature.
    pub signature: Signature,
    /// The region.
    pub key: RegionKey,
    /// Its edits' stamp (`planet::edit::RegionEdits`): 0 for none.
    pub stamp: u64,
}

impl RegionId {
    /// The unedited region `key` of the planet named `signature`.
    #[must_use]
    pub fn new(signature: Signature, key: RegionKey) -> Self {
        Self { signature, key, stamp: 0 }
    }
}

/// The cache.
#[derive(Debug)]
pub struct RegionCache {
    budget: usize,
    bytes: usize,
    tick: u64,
    entries: BTreeMap<RegionId, (Arc<BuiltRegion>, u64, usize)>,
    by_use: BTreeMap<u64, RegionId>,
}

impl RegionCache {
    /// An empty cache holding up to `budget_bytes`.
    #[must_use]
    pub fn new(budget_bytes: usize) -> Self {
        Self { budget: budget_bytes, bytes: 0, tick: 0, entries: BTreeMap::new(), by_use: BTreeMap::new() }
    }

    /// Bytes held.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Regions held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `id` is held (does not count as a use).
    #[must_use]
    pub fn contains(&self, id: &RegionId) -> bool {
        self.entries.contains_key(id)
    }

    /// The region, marking it used.
    pub fn get(&mut self, id: &RegionId) -> Option<Arc<BuiltRegion>> {
        self.touch(id);
        self.entries.get(id).map(|(region, _, _)| Arc::clone(region))
    }

    /// Marks a region used now (if held).
    pub fn touch(&mut self, id: &RegionId) {
        if let Some((_, last, _)) = self.entries.get_mut(id) {
            self.tick += 1;
            self.by_use.remove(last);
            *last = self.tick;
            self.by_use.insert(self.tick, *id);
        }
    }

    /// Stores a region (replacing any older one).
    pub fn insert(&mut self, id: RegionId, region: Arc<BuiltRegion>) {
        self.remove(&id);
        self.tick += 1;
        let size = region.bytes();
        self.bytes += size;
        self.entries.insert(id, (region, self.tick, size));
        self.by_use.insert(self.tick, id);
    }

    /// Drops a region.
    pub fn remove(&mut self, id: &RegionId) -> Option<Arc<BuiltRegion>> {
        let (region, last, size) = self.entries.remove(id)?;
        self.by_use.remove(&last);
        self.bytes -= size;
        Some(region)
    }

    /// Evicts least recently used regions that are not `pinned` until the
    /// cache fits its budget; returns what was evicted.
    pub fn evict(&mut self, pinned: impl Fn(&RegionId) -> bool) -> Vec<RegionId> {
        let mut evicted = Vec::new();
        if self.bytes <= self.budget {
            return evicted;
        }
        let candidates: Vec<RegionId> = self.by_use.values().copied().collect();
        for id in candidates {
            if self.bytes <= self.budget {
                break;
            }
            if !pinned(&id) {
                self.remove(&id);
                evicted.push(id);
            }
        }
        evicted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planet::mesh::SphereMesh;

    fn region(z: u32) -> Arc<BuiltRegion> {
        let key = RegionKey { face: 0, lod: 0, x: 0, y: 0, z };
        Arc::new(BuiltRegion {
            key,
            mesh: SphereMesh::default(),
            voxels: Signature(0),
            stamp: 0,
            collider: None,
            navmesh: None,
            scatter: None,
            times: Default::default(),
        })
    }

    #[test]
    fn evicts_least_recently_used_unpinned() {
        let one = region(0).bytes();
        let mut cache = RegionCache::new(one * 2);
        let id = |z| RegionId::new(Signature(1), RegionKey { face: 0, lod: 0, x: 0, y: 0, z });
        cache.insert(id(0), region(0));
        cache.insert(id(1), region(1));
        cache.insert(id(2), region(2));
        cache.get(&id(0)); // 0 is now the most recent
        let evicted = cache.evict(|i| *i == id(1)); // 1 is pinned
        assert_eq!(evicted, vec![id(2)]);
        assert!(cache.contains(&id(0)) && cache.contains(&id(1)));
        assert_eq!(cache.bytes(), 2 * one);
        // Other planets' regions are separate entries.
        cache.insert(RegionId::new(Signature(2), id(0).key), region(0));
        assert!(!cache.contains(&RegionId { stamp: 1, ..id(0) }), "an edited region is another entry");
        assert_eq!(cache.len(), 3);
    }
}
