//! The habitat: where each rule may grow and how densely, sampled on a
//! world-fixed lattice of every face (a node every `HABITAT_CELLS` LOD-0
//! cells) and interpolated bilinearly between nodes. Because the lattice
//! belongs to the face, not to the region, a cell reads the same density
//! from a region of any LOD: an object's existence never depends on the LOD
//! of the ground under it.
//!
//! A node holds, per rule, a density factor: the biome's `scatter_density`,
//! times 0 or 1 for the rule's filters (its biomes, dry ground above the sea,
//! slope, and for plants, no bare rock, snow or glowing ground), times the
//! rule's clump noise (cut off at its highest values, so patches are at full
//! density) and a second noise that thins it. Filters read per node blend
//! into soft edges between nodes. The nodes are made a tile at a time and
//! shared among regions (`habitat_memo.rs`).

use std::sync::Arc;

use super::habitat_memo::{HabitatMemo, Tile, nodes_across};
use super::rules::Placement;
use crate::Face;
use crate::terrain::Terrain;

/// LOD-0 cells between habitat nodes.
pub const HABITAT_CELLS: i32 = 16;

/// The habitat of one face over a rectangle of nodes.
#[derive(Clone, Debug)]
pub struct Habitat {
    face: Face,
    /// Nodes across the face (the last is on the far edge).
    nodes_across: i32,
    /// First node along u and v.
    first: [i32; 2],
    /// Nodes held along u.
    width: usize,
    rules: usize,
    /// Per node, the 2D surface's height above the base radius.
    surface_m: Vec<f32>,
    /// Per node and rule (rule fastest), the density factor.
    factors: Vec<f32>,
}

impl Habitat {
    /// The node step in face coordinates.
    fn step(&self) -> f32 {
        2.0 / self.nodes_across as f32
    }

    /// The habitat of `face` where each rule is read: `needs[k]`, the face
    /// coordinates `lo..=hi` (u, v) where `placements[k]`'s factor is asked.
    /// Every node holds its surface; a rule's factor is held only at the
    /// nodes around its own rectangle (the rest hold NaN, never read).
    /// Its nodes are made for it alone, as one tile.
    #[must_use]
    pub fn new(terrain: &Terrain, placements: &[Placement], face: Face, needs: &[([f32; 2], [f32; 2])]) -> Self {
        Self::from_tiles(terrain, placements, face, needs, |first, last| {
            let size = [last[0] - first[0] + 1, last[1] - first[1] + 1];
            let tile = Arc::new(Tile::new(terrain, face, first, size));
            move |_, _| Arc::clone(&tile)
        })
    }

    /// [`Habitat::new`], its nodes from `memo`'s tiles (made there when
    /// missing): the same habitat.
    #[must_use]
    pub fn with_memo(
        memo: &HabitatMemo,
        terrain: &Terrain,
        placements: &[Placement],
        face: Face,
        needs: &[([f32; 2], [f32; 2])],
    ) -> Self {
        Self::from_tiles(terrain, placements, face, needs, |_, _| |i, j| memo.tile(terrain, face, i, j))
    }

    /// The habitat, its nodes read from the tiles that `tiles(first, last)`
    /// (the nodes it holds) gives for each node.
    fn from_tiles<F: FnMut(i32, i32) -> Arc<Tile>>(
        terrain: &Terrain,
        placements: &[Placement],
        face: Face,
        needs: &[([f32; 2], [f32; 2])],
        tiles: impl FnOnce([i32; 2], [i32; 2]) -> F,
    ) -> Self {
        let nodes_across = nodes_across(terrain);
        let step = 2.0 / nodes_across as f32;
        let index = |t: f32| ((t + 1.0) / step).floor() as i32;
        // The nodes around a rectangle: those its bilinear lookups read.
        let nodes = |(lo, hi): ([f32; 2], [f32; 2])| {
            let first = [index(lo[0]).clamp(0, nodes_across), index(lo[1]).clamp(0, nodes_across)];
            let last = [(index(hi[0]) + 1).clamp(0, nodes_across), (index(hi[1]) + 1).clamp(0, nodes_across)];
            (first, last)
        };
        let ranges: Vec<([i32; 2], [i32; 2])> = needs.iter().copied().map(nodes).collect();
        let first = ranges.iter().fold([nodes_across; 2], |f, r| [f[0].min(r.0[0]), f[1].min(r.0[1])]);
        let last = ranges.iter().fold([0; 2], |l, r| [l[0].max(r.1[0]), l[1].max(r.1[1])]);
        let (width, height) = ((last[0] - first[0] + 1) as usize, (last[1] - first[1] + 1) as usize);
        let mut surface_m = Vec::with_capacity(width * height);
        let mut factors = Vec::with_capacity(width * height * placements.len());
        let mut tile_of = tiles(first, last);
        let mut tile: Option<Arc<Tile>> = None;
        for j in first[1]..=last[1] {
            for i in first[0]..=last[0] {
                let here = match tile {
                    Some(ref t) if t.holds(i, j) => t,
                    _ => tile.insert(tile_of(i, j)),
                };
                let n = here.index(i, j);
                surface_m.push(here.surface_m(n));
                for (p, (lo, hi)) in placements.iter().zip(&ranges) {
                    let read = (lo[0]..=hi[0]).contains(&i) && (lo[1]..=hi[1]).contains(&j);
                    factors.push(if read { here.factors(terrain, p)[n] } else { f32::NAN });
                }
            }
        }
        Self { face, nodes_across, first, width, rules: placements.len(), surface_m, factors }
    }

    /// The face it covers.
    #[must_use]
    pub fn face(&self) -> Face {
        self.face
    }

    /// The four nodes around (u, v) and their bilinear weights.
    fn corners(&self, u: f32, v: f32) -> [(usize, f32); 4] {
        let step = self.step();
        let fu = ((u + 1.0) / step - self.first[0] as f32).clamp(0.0, (self.width - 1) as f32);
        let height = self.surface_m.len() / self.width;
        let fv = ((v + 1.0) / step - self.first[1] as f32).clamp(0.0, (height - 1) as f32);
        let (a, b) = ((fu as usize).min(self.width.saturating_sub(2)), (fv as usize).min(height.saturating_sub(2)));
        let (tu, tv) = (fu - a as f32, fv - b as f32);
        let a1 = (a + 1).min(self.width - 1);
        let b1 = (b + 1).min(height - 1);
        [
            (b * self.width + a, (1.0 - tu) * (1.0 - tv)),
            (b * self.width + a1, tu * (1.0 - tv)),
            (b1 * self.width + a, (1.0 - tu) * tv),
            (b1 * self.width + a1, tu * tv),
        ]
    }

    /// The largest density factor of rule `rule` over the nodes held (no
    /// interpolated factor is larger): a bound that lets most candidates be
    /// refused on their roll alone.
    #[must_use]
    pub fn max_factor(&self, rule: usize) -> f32 {
        // f32::max skips the NaNs of the nodes the rule is not read at.
        self.factors.iter().skip(rule).step_by(self.rules).fold(0.0, |a, &f| a.max(f))
    }

    /// Rule `rule`'s density factor at (u, v) (a position in `placements`),
    /// within the rectangle it was made for.
    #[must_use]
    pub fn factor(&self, rule: usize, u: f32, v: f32) -> f32 {
        let f = self.corners(u, v).iter().map(|&(n, w)| self.factors[n * self.rules + rule] * w).sum();
        debug_assert!(!f32::is_nan(f), "rule {rule} read at ({u}, {v}), outside the rectangle it was made for");
        f
    }

    /// The 2D surface's height above the base radius at (u, v), interpolated.
    #[must_use]
    pub fn surface_m(&self, u: f32, v: f32) -> f32 {
        self.corners(u, v).iter().map(|&(n, w)| self.surface_m[n] * w).sum()
    }
}
