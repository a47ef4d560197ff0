//! `HabitatMemo`: the habitat's nodes, each made once and shared by every
//! region that reads it.
//!
//! A habitat node (`habitat.rs`) is a pure function of its face and its
//! place on the face's lattice: its 2D surface height (and the climate
//! noises read with it), the slope and ground there, and each rule's density
//! factor. A region reads every node around its footprint, so without this
//! memo each node is made again by every region of every LOD over it (five
//! LODs scatter) and by its neighbours: a LOD-4 region reads 35² of them, a
//! third of its job. The memo keeps each of the three parts of a node as it
//! is made, in tiles of `TILE`² nodes, the last `capacity` tiles; a region
//! makes only the parts it reads that no region made before, so the first
//! region over new ground pays what it would alone. The values are the same
//! bits whichever region makes them, from any thread (tested): the memo
//! changes no output.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::Face;

/// Nodes along each side of a tile.
const TILE: i32 = 8;

/// What the 2D pass gives at a node: its surface height above the base
/// radius and the two climate noises (`CoarseFields`) read with it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Sample {
    pub surface_m: f32,
    pub temperature_noise: f32,
    pub moisture_noise: f32,
}

/// What a node's rules are filtered by: its slope (from its neighbours'
/// heights) and its ground.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Site {
    pub slope_deg: f32,
    pub biome: u8,
    /// Bare rock, snow or glowing ground: no plant grows there.
    pub bare: bool,
    /// Above the sea and any lake.
    pub dry: bool,
}

/// What is not made yet: no made value is NaN (a NaN height or slope would
/// fail every comparison the placement makes).
const UNMADE: f32 = f32::NAN;

/// `TILE`² nodes' parts, each `UNMADE` until made (44 bytes a node with the
/// default recipe's six rules, where `Option`s took 76).
#[derive(Debug)]
struct Tile {
    samples: Vec<Sample>,
    sites: Vec<Site>,
    /// Per recipe rule (made on first use), its factor at each node.
    factors: Vec<Vec<f32>>,
}

impl Tile {
    fn new() -> Self {
        let n = (TILE * TILE) as usize;
        let sample = Sample { surface_m: UNMADE, temperature_noise: UNMADE, moisture_noise: UNMADE };
        let site = Site { slope_deg: UNMADE, biome: 0, bare: false, dry: false };
        Self { samples: vec![sample; n], sites: vec![site; n], factors: Vec::new() }
    }
}

/// A tile's place: its face and its first node.
type TileKey = (Face, i32, i32);

/// The tile holding node (`i`, `j`) of `face`, and the node's index in it.
fn locate(face: Face, i: i32, j: i32) -> (TileKey, usize) {
    let key = (face, i.div_euclid(TILE) * TILE, j.div_euclid(TILE) * TILE);
    (key, (j.rem_euclid(TILE) * TILE + i.rem_euclid(TILE)) as usize)
}

/// The tiles made lately, oldest first in `order`.
#[derive(Debug, Default)]
struct Tiles {
    map: BTreeMap<TileKey, Tile>,
    order: VecDeque<TileKey>,
}

impl Tiles {
    /// The tile `key`, made empty if missing (the oldest evicted beyond `capacity`).
    fn tile(&mut self, key: TileKey, capacity: usize) -> &mut Tile {
        if !self.map.contains_key(&key) {
            if self.map.len() >= capacity
                && let Some(oldest) = self.order.pop_front()
            {
                self.map.remove(&oldest);
            }
            self.order.push_back(key);
        }
        self.map.entry(key).or_insert_with(Tile::new)
    }
}

/// The last 4,096 tiles of one planet's habitat nodes, for its regions'
/// scatter to share.
#[derive(Debug)]
pub struct HabitatMemo {
    tiles: Mutex<Tiles>,
    capacity: usize,
}

impl Default for HabitatMemo {
    /// Room for 4,096 tiles (64 nodes each, about 100 m square on the
    /// default home planet, so 6 by 6 km of ground; at most 12 MiB): the
    /// nodes under every region that scatters around a camera, LODs 0 to
    /// 4 (its LOD-4 regions cover about 3 by 3 km), with room to spare.
    fn default() -> Self {
        Self::new(4096)
    }
}

impl HabitatMemo {
    /// A memo of the last `capacity` tiles (at least one). It is for one
    /// terrain: a caller keeps one per terrain it builds from.
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self { tiles: Mutex::new(Tiles::default()), capacity: capacity.max(1) }
    }

    /// The tiles (a job that panicked holding them left them whole: each
    /// change is one node's part, or one tile in with another out).
    fn tiles(&self) -> MutexGuard<'_, Tiles> {
        self.tiles.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many tiles it holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.tiles().map.len()
    }

    /// Whether it holds none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What it holds of part `part` of each of `nodes` (positions on
    /// `face`), in their order; `None` where not made.
    fn read<T: Copy>(
        &self,
        face: Face,
        nodes: impl Iterator<Item = (i32, i32)>,
        part: impl Fn(&Tile, usize) -> Option<T>,
    ) -> Vec<Option<T>> {
        let tiles = self.tiles();
        // Nodes come in rows: look a tile up only when the row leaves it.
        let mut current: Option<(TileKey, Option<&Tile>)> = None;
        nodes
            .map(|(i, j)| {
                let (key, n) = locate(face, i, j);
                if current.is_none_or(|(k, _)| k != key) {
                    current = Some((key, tiles.map.get(&key)));
                }
                current.and_then(|(_, tile)| part(tile?, n))
            })
            .collect()
    }

    /// The samples it holds of `nodes` (positions on `face`), in their order.
    pub(super) fn samples(&self, face: Face, nodes: impl Iterator<Item = (i32, i32)>) -> Vec<Option<Sample>> {
        self.read(face, nodes, |t, n| Some(t.samples[n]).filter(|s| !s.surface_m.is_nan()))
    }

    /// The sites it holds of `nodes`, in their order.
    pub(super) fn sites(&self, face: Face, nodes: impl Iterator<Item = (i32, i32)>) -> Vec<Option<Site>> {
        self.read(face, nodes, |t, n| Some(t.sites[n]).filter(|s| !s.slope_deg.is_nan()))
    }

    /// The factors of recipe rule `rule` it holds at `nodes`, in their order.
    pub(super) fn factors(&self, face: Face, rule: usize, nodes: impl Iterator<Item = (i32, i32)>) -> Vec<Option<f32>> {
        self.read(face, nodes, |t, n| t.factors.get(rule).map(|f| f[n]).filter(|f| !f.is_nan()))
    }

    /// Keeps what a region made: samples, sites and rules' factors at nodes of `face`.
    pub(super) fn keep(
        &self,
        face: Face,
        samples: &[((i32, i32), Sample)],
        sites: &[((i32, i32), Site)],
        factors: &[(usize, (i32, i32), f32)],
    ) {
        if samples.is_empty() && sites.is_empty() && factors.is_empty() {
            return;
        }
        let mut tiles = self.tiles();
        let capacity = self.capacity;
        let made = samples.iter().map(|&(node, s)| (node, Made::Sample(s)));
        let made = made.chain(sites.iter().map(|&(node, s)| (node, Made::Site(s))));
        let made = made.chain(factors.iter().map(|&(rule, node, f)| (node, Made::Factor(rule, f))));
        // In rows, as they were read: a tile is looked up only when a row leaves it.
        let mut current: Option<(TileKey, &mut Tile)> = None;
        for ((i, j), part) in made {
            let (key, n) = locate(face, i, j);
            let tile = match current {
                Some((k, ref mut tile)) if k == key => tile,
                _ => {
                    current = None;
                    &mut current.insert((key, tiles.tile(key, capacity))).1
                }
            };
            match part {
                Made::Sample(s) => tile.samples[n] = s,
                Made::Site(s) => tile.sites[n] = s,
                Made::Factor(rule, f) => {
                    if tile.factors.len() <= rule {
                        tile.factors.resize_with(rule + 1, || vec![UNMADE; (TILE * TILE) as usize]);
                    }
                    tile.factors[rule][n] = f;
                }
            }
        }
    }
}

/// One part of a node, made.
enum Made {
    Sample(Sample),
    Site(Site),
    Factor(usize, f32),
}
