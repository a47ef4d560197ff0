//! The region cache: finished regions under their [`RegionId`] (planet
//! signature, region key, edit stamp), within a memory budget, least recently used out first. Coming back to a
//! place does not regenerate it; regions a caller pins (visible or wanted)
//! are never evicted.

use std::collections::BTreeMap;
use std::sync::Arc;

use planet::{RegionKey, Signature};

use crate::FastMap;
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

/// The default budget, bytes. Measured on the low pass (`planet stream
/// --path lowpass`, one run each): 128 MiB builds 1.8% more regions than
/// 1 GiB (31,584 against 31,017), with a coverage deficit of 2.6% against
/// 5-6%, at a peak resident 306 MiB against 1.45 GiB; 256 MiB builds 0.5%
/// more at 484 MiB.
pub const DEFAULT_CACHE_BYTES: usize = 128 << 20;

/// The cache.
#[derive(Debug)]
pub struct RegionCache {
    budget: usize,
    bytes: usize,
    tick: u64,
    /// Hashed, not ordered: the streamer looks up every shown region a few
    /// times a frame. Nothing iterates it where order matters.
    entries: FastMap<RegionId, (Arc<BuiltRegion>, u64, usize)>,
    by_use: BTreeMap<u64, RegionId>,
}

impl RegionCache {
    /// An empty cache holding up to `budget_bytes`.
    #[must_use]
    pub fn new(budget_bytes: usize) -> Self {
        Self { budget: budget_bytes, bytes: 0, tick: 0, entries: FastMap::default(), by_use: BTreeMap::new() }
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

    /// Regions held with their physics.
    #[must_use]
    pub fn physical(&self) -> usize {
        self.entries.values().filter(|(region, _, _)| region.physics).count()
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

    /// The region, not marking it used.
    #[must_use]
    pub fn peek(&self, id: &RegionId) -> Option<&Arc<BuiltRegion>> {
        self.entries.get(id).map(|(region, _, _)| region)
    }

    /// Lets a held region's physics go (its collider and navmesh), keeping
    /// its last use: in place when nothing else holds it, else through a
    /// copy. True if it had them.
    pub fn drop_physics(&mut self, id: &RegionId) -> bool {
        let Some((held, _, size)) = self.entries.get_mut(id) else { return false };
        if !held.physics {
            return false;
        }
        match Arc::get_mut(held) {
            Some(region) => (region.physics, region.collider, region.navmesh) = (false, None, None),
            None => *held = Arc::new(held.without_physics()),
        }
        let new = held.bytes();
        self.bytes = self.bytes - *size + new;
        *size = new;
        true
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
        // The oldest unpinned regions, until what they hold covers the excess.
        let mut excess = self.bytes - self.budget;
        for id in self.by_use.values() {
            if excess == 0 {
                break;
            }
            if !pinned(id) {
                excess = excess.saturating_sub(self.entries[id].2);
                evicted.push(*id);
            }
        }
        for id in &evicted {
            self.remove(id);
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
            physics: false,
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
