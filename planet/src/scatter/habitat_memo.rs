//! `HabitatMemo`: the habitat's nodes, made once a tile and shared by every
//! region that reads them.
//!
//! A habitat node (`habitat.rs`) is a pure function of its face and its
//! place on the face's lattice: its 2D surface height, the slope and ground
//! there, and each rule's density factor. A region reads every node around
//! its footprint, so before this memo each node was made again by every
//! region of every LOD over it (five LODs scatter), and by its neighbours:
//! a LOD-4 region reads 35² of them, a third of its job. The memo makes the
//! nodes a tile of `TILE`² at a time and keeps the last `capacity` tiles; a
//! rule's factors are made for a whole tile the first time a region asks for
//! that rule there. The values are the same bits whichever region asks
//! first, from any thread (tested): the memo changes no output.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use glam::Vec3;

use super::rules::Placement;
use crate::Face;
use crate::geometry::direction;
use crate::hash::{hash0, hash1, salt};
use crate::noise::{Fractal, FractalParams, Gradient};
use crate::terrain::{Terrain, ground, moisture, smoothstep, temperature_c};

/// Nodes along each side of a tile.
pub const TILE: i32 = 8;

/// The octave limit of the fields a node reads: as for cells of this many
/// metres (detail finer than twice the node spacing cannot be held anyway).
const NODE_FIELD_CELL_M: f32 = 8.0;

/// What a node holds besides its rules' factors.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// Unit direction of the node.
    direction: Vec3,
    /// The 2D surface's height above the base radius, metres.
    surface_m: f32,
    slope_deg: f32,
    biome: u8,
    /// Bare rock, snow or glowing ground: no plant grows there.
    bare: bool,
    /// Above the sea and any lake.
    dry: bool,
}

/// A rectangle of nodes of one face (`TILE`² in a memo), and each rule's
/// factors there once asked for.
#[derive(Debug)]
pub struct Tile {
    /// Its first node, and how many it holds along u and v.
    first: [i32; 2],
    size: [i32; 2],
    /// Rows along u, v growing.
    nodes: Vec<Node>,
    /// Per recipe rule, the factor at each node (in `nodes`' order).
    factors: Vec<OnceLock<Box<[f32]>>>,
}

/// The noises of one rule.
#[derive(Clone, Debug)]
struct RuleNoise {
    clump: Fractal,
    clump_frequency: f32,
    thin: Fractal,
    thin_frequency: f32,
}

impl RuleNoise {
    fn new(seed: u64, rule: &Placement, spacing_m: f32) -> Self {
        let h = hash1(seed, salt(b"scatnois"), i64::from(rule.rule));
        let clump_m = (spacing_m * 16.0).max(48.0);
        let params = |octaves| FractalParams { octaves, lacunarity: 2.0, gain: 0.5 };
        Self {
            clump: Fractal::new((h >> 32) as u32, params(3)),
            clump_frequency: 1.0 / clump_m,
            thin: Fractal::new(h as u32, params(2)),
            thin_frequency: 1.0 / (clump_m * 0.3),
        }
    }

    /// The density factor of the noise at `p` metres, in [0, 1].
    fn factor(&self, p: Vec3) -> f32 {
        let clump = self.clump.fbm3_octaves::<Gradient>(p * self.clump_frequency, 3);
        let thin = self.thin.fbm3_octaves::<Gradient>(p * self.thin_frequency, 2);
        smoothstep(-0.3, 0.1, clump) * (0.5 + 0.5 * smoothstep(-0.5, 0.3, thin))
    }
}

/// Nodes across a face of `terrain`'s planet (the last on the far edge).
pub(super) fn nodes_across(terrain: &Terrain) -> i32 {
    terrain.grid.cells_across(0) / super::habitat::HABITAT_CELLS
}

impl Tile {
    /// The tile of `face` whose first node is `first`, `size` nodes along u and v.
    pub(super) fn new(terrain: &Terrain, face: Face, first: [i32; 2], size: [i32; 2]) -> Self {
        let ([i0, j0], [w, h]) = (first, size);
        let across = nodes_across(terrain);
        let step = 2.0 / across as f32;
        let node_uv = |i: i32, j: i32| (-1.0 + i as f32 * step, -1.0 + j as f32 * step);
        let r = &terrain.recipe;
        // Heights over one more node all round, for slopes by central differences.
        let ring = (w + 2) as usize;
        let mut heights = Vec::with_capacity(ring * (h + 2) as usize);
        let mut coarse = Vec::with_capacity(heights.capacity());
        for j in j0 - 1..=j0 + h {
            for i in i0 - 1..=i0 + w {
                let (u, v) = node_uv(i, j);
                let (h, c) = terrain.surface_with(direction(face, u, v), NODE_FIELD_CELL_M);
                heights.push(h);
                coarse.push(c);
            }
        }
        let node_m = step * terrain.grid.radius_m * core::f32::consts::FRAC_PI_4;
        let sea = if r.sea.enabled { r.sea.level_m } else { f32::MIN };
        let sea_zero = if r.sea.enabled { r.sea.level_m } else { 0.0 };
        let mut nodes = Vec::with_capacity((w * h) as usize);
        for b in 0..h as usize {
            for a in 0..w as usize {
                let at = (b + 1) * ring + a + 1;
                let (u, v) = node_uv(i0 + a as i32, j0 + b as i32);
                let d = direction(face, u, v);
                let (h, c) = (heights[at], &coarse[at]);
                let gu = (heights[at + 1] - heights[at - 1]) / (2.0 * node_m);
                let gv = (heights[at + ring] - heights[at - ring]) / (2.0 * node_m);
                let slope_deg = libm::atanf(libm::sqrtf(gu * gu + gv * gv)).to_degrees();
                let altitude = h - sea_zero;
                let t = temperature_c(r, d, altitude, c.temperature_noise);
                let g = ground(r, t, moisture(r, c.moisture_noise), altitude, slope_deg, terrain.layout.coast_m(d));
                let bare = u32::from(g.surface[0]) == r.surface.rock
                    || u32::from(g.surface[0]) == r.surface.snow
                    || r.materials[g.surface[0] as usize].emission > 0.5;
                let dry = h > sea + 0.5 && terrain.layout.lake_at(d).is_none_or(|level| h > level + 0.5);
                nodes.push(Node { direction: d, surface_m: h, slope_deg, biome: g.biome, bare, dry });
            }
        }
        let factors = (0..r.scatter.len()).map(|_| OnceLock::new()).collect();
        Self { first, size, nodes, factors }
    }

    /// Whether it holds node (`i`, `j`).
    pub(super) fn holds(&self, i: i32, j: i32) -> bool {
        (0..self.size[0]).contains(&(i - self.first[0])) && (0..self.size[1]).contains(&(j - self.first[1]))
    }

    /// The index of node (`i`, `j`), which it holds, in its nodes and factors.
    pub(super) fn index(&self, i: i32, j: i32) -> usize {
        ((j - self.first[1]) * self.size[0] + i - self.first[0]) as usize
    }

    /// The 2D surface's height at node index `n` of the tile.
    pub(super) fn surface_m(&self, n: usize) -> f32 {
        self.nodes[n].surface_m
    }

    /// Rule `p`'s density factor at every node of the tile, made on first use.
    pub(super) fn factors(&self, terrain: &Terrain, p: &Placement) -> &[f32] {
        self.factors[p.rule as usize].get_or_init(|| {
            let r = &terrain.recipe;
            let rule = &r.scatter[p.rule as usize];
            let noise = RuleNoise::new(hash0(terrain.seed, salt(b"scatter")), p, rule.min_spacing_m);
            let radius = terrain.grid.radius_m;
            self.nodes
                .iter()
                .map(|n| {
                    let biome = &r.biomes[n.biome as usize];
                    let allowed = n.dry
                        && n.slope_deg <= rule.max_slope_deg
                        && (rule.biomes.is_empty() || rule.biomes.contains(&u32::from(n.biome)))
                        && !(p.is_plant() && n.bare);
                    if !allowed {
                        0.0
                    } else if p.offset_rows {
                        // Gameplay objects: the grid alone spaces them, no clumps.
                        biome.scatter_density.min(1.0)
                    } else {
                        biome.scatter_density * noise.factor(n.direction * radius)
                    }
                })
                .collect()
        })
    }
}

/// A tile's place: its face and its first node.
type TileKey = (Face, i32, i32);

/// The tiles made lately, oldest first in `order`.
#[derive(Debug, Default)]
struct Tiles {
    map: BTreeMap<TileKey, Arc<Tile>>,
    order: VecDeque<TileKey>,
}

/// The last few hundred tiles of one planet's habitat, for its regions'
/// scatter to share.
#[derive(Debug)]
pub struct HabitatMemo {
    tiles: Mutex<Tiles>,
    capacity: usize,
}

impl Default for HabitatMemo {
    /// Room for 1,024 tiles (64 nodes each, about 200 m square on the
    /// default home planet; at most 4 MiB): the nodes under every region
    /// that scatters around a camera, LODs 0 to 4.
    fn default() -> Self {
        Self::new(1024)
    }
}

impl HabitatMemo {
    /// A memo of the last `capacity` tiles (at least one).
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self { tiles: Mutex::new(Tiles::default()), capacity: capacity.max(1) }
    }

    /// The tiles (a job that panicked holding them left them whole: every
    /// change is one insert with its push, or one pop with its remove).
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

    /// The tile of `face` holding node (`i`, `j`) of `terrain`'s habitat,
    /// made now if the memo does not hold it. The memo is for one terrain: a
    /// caller keeps one per terrain it builds from.
    pub(super) fn tile(&self, terrain: &Terrain, face: Face, i: i32, j: i32) -> Arc<Tile> {
        let key = (face, i.div_euclid(TILE) * TILE, j.div_euclid(TILE) * TILE);
        if let Some(tile) = self.tiles().map.get(&key) {
            return Arc::clone(tile);
        }
        // Made outside the lock: another job may make the same tile meanwhile
        // (the same values); the first one in is kept.
        let made = Arc::new(Tile::new(terrain, face, [key.1, key.2], [TILE; 2]));
        let mut tiles = self.tiles();
        if let Some(tile) = tiles.map.get(&key) {
            return Arc::clone(tile);
        }
        if tiles.map.len() >= self.capacity
            && let Some(oldest) = tiles.order.pop_front()
        {
            tiles.map.remove(&oldest);
        }
        tiles.map.insert(key, Arc::clone(&made));
        tiles.order.push_back(key);
        made
    }
}
