//! The world's planets, made in the background. Entering a system makes
//! only the terrain (layout, settlements, their indexes) of the planet the
//! camera starts on, on the thread that enters it, before anything else
//! starts: what streaming needs. Every other planet's terrain and every
//! proxy are then made by background
//! threads below normal priority (a region job's, so streaming the camera's
//! planet and making the others share the cores), each taking the next
//! planet no one has begun. A thread that needs a planet before then makes
//! it itself, or waits for the thread making it.
//! Making is pure: which thread makes a planet, and when, changes no bit of
//! it, so captures and tests see the same world as when every planet was
//! made before the first frame.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use planet::PlannedSystem;
use planet::proxy::{ProxyMesh, proxy_mesh};
use planet::terrain::Terrain;

/// A planet's terrain and its stand-in, once made.
#[derive(Debug)]
pub struct MadePlanet {
    /// The generator.
    pub terrain: Arc<Terrain>,
    /// The stand-in drawn while the planet is not streamed.
    pub proxy: Arc<ProxyMesh>,
    /// When it was made (for start-up reports).
    pub made_at: Instant,
}

/// One planet's place in the making.
#[derive(Debug, Default)]
struct Slot {
    /// Someone (a background maker or a thread that needed it) has begun it.
    claimed: AtomicBool,
    /// The terrain, made first: what streaming needs.
    terrain: OnceLock<Arc<Terrain>>,
    /// The terrain and the proxy made from it: what drawing needs.
    made: OnceLock<MadePlanet>,
}

/// Every planet of a system, made once each, by whoever gets there first.
#[derive(Debug)]
pub struct PlanetMaking {
    system: Arc<PlannedSystem>,
    proxy_quads: u32,
    slots: Vec<Slot>,
    /// Set when the world is dropped: makers take no further planet.
    stop: AtomicBool,
}

impl PlanetMaking {
    /// Nothing made yet.
    #[must_use]
    pub fn new(system: Arc<PlannedSystem>, proxy_quads: u32) -> Arc<Self> {
        let slots = system.planets.iter().map(|_| Slot::default()).collect();
        Arc::new(Self { system, proxy_quads, slots, stop: AtomicBool::new(false) })
    }

    /// The system.
    #[must_use]
    pub fn system(&self) -> &Arc<PlannedSystem> {
        &self.system
    }

    /// Planet `index`'s terrain and proxy, made on this thread where no
    /// one has begun them, or waited for while another thread makes them.
    ///
    /// # Panics
    /// If `index` is not a planet of the system.
    #[must_use]
    pub fn get(&self, index: usize) -> &MadePlanet {
        self.slots[index].made.get_or_init(|| {
            let terrain = Arc::clone(self.terrain(index));
            let proxy = Arc::new(proxy_mesh(&terrain, self.proxy_quads));
            MadePlanet { terrain, proxy, made_at: Instant::now() }
        })
    }

    /// Planet `index`'s terrain alone (its proxy may be made later, by a
    /// background maker): made here, or waited for, as `get`.
    ///
    /// # Panics
    /// If `index` is not a planet of the system.
    #[must_use]
    pub fn terrain(&self, index: usize) -> &Arc<Terrain> {
        let slot = &self.slots[index];
        slot.claimed.store(true, Ordering::Relaxed);
        slot.terrain.get_or_init(|| Arc::new(Terrain::new(&self.system.planets[index])))
    }

    /// Planet `index` if it is made, without waiting.
    #[must_use]
    pub fn ready(&self, index: usize) -> Option<&MadePlanet> {
        self.slots.get(index)?.made.get()
    }

    /// How many planets are made.
    #[must_use]
    pub fn made_count(&self) -> usize {
        self.slots.iter().filter(|s| s.made.get().is_some()).count()
    }

    /// Starts `threads` background makers, which take the unclaimed planets
    /// in system order, then make the proxies that planets made elsewhere
    /// lack, until none is left or `stop` is called.
    pub fn start(self: &Arc<Self>, threads: usize) {
        for n in 0..threads {
            let making = Arc::clone(self);
            let spawned = std::thread::Builder::new().name(format!("planet maker {n}")).spawn(move || {
                jobs::set_worker_priority(jobs::WorkerPriority::Low);
                making.make_unclaimed();
            });
            // Without a thread, every planet is made where it is first needed.
            drop(spawned);
        }
    }

    /// Makers take no further planet (those they are making are finished).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    fn make_unclaimed(&self) {
        for (index, slot) in self.slots.iter().enumerate() {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            if !slot.claimed.swap(true, Ordering::Relaxed) {
                let _ = self.get(index);
            }
        }
        // The claimed planets' proxies (a caller that needed only the
        // terrain left them; one being made elsewhere is waited for).
        for index in 0..self.slots.len() {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            let _ = self.get(index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn system() -> Arc<PlannedSystem> {
        Arc::new(PlannedSystem::default_system())
    }

    /// Made by background makers, by the caller, or both racing: the same
    /// terrains and proxies, bit for bit.
    #[test]
    fn who_makes_a_planet_changes_nothing() {
        let here = PlanetMaking::new(system(), 8);
        let signatures = |m: &PlanetMaking| -> Vec<_> {
            (0..m.slots.len())
                .map(|i| {
                    let p = m.get(i);
                    (p.terrain.layout.data.signature(), p.proxy.part.clone(), p.proxy.radius_range_m)
                })
                .collect()
        };
        let made_here = signatures(&here);
        let background = PlanetMaking::new(system(), 8);
        background.start(3);
        // Wait for the makers (bounded: they are done long before).
        let mut polls = 0;
        while background.made_count() < background.slots.len() {
            polls += 1;
            assert!(polls < 60_000, "the background makers never finished");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(signatures(&background), made_here);
        let racing = PlanetMaking::new(system(), 8);
        racing.start(2);
        assert_eq!(signatures(&racing), made_here, "made while the makers raced the caller");
    }

    /// A stopped making begins nothing; a terrain asked for is made without
    /// its proxy.
    #[test]
    fn a_stopped_making_begins_nothing_and_a_terrain_comes_without_its_proxy() {
        let making = PlanetMaking::new(system(), 8);
        making.stop();
        making.start(2);
        assert!(making.ready(0).is_none());
        assert_eq!(making.terrain(3).seed, making.system().planets[3].seed);
        assert!(making.ready(3).is_none(), "asked for its terrain, not its proxy");
        assert_eq!(making.get(3).terrain.seed, making.system().planets[3].seed);
        assert_eq!(making.made_count(), 1, "only the planet asked for is made");
    }
}
