//! The generator's density at any point of a region's window, not only at its
//! samples: the voxel pass (`voxels.rs`) worked out for one point, with the
//! 2D pass's fields, the lattice noise and the features taken there.
//!
//! At a sample it gives the sample's density (tested, to the stored unit).
//! Between samples it is the field the samples were taken from, which the
//! mesh tests measure vertices against: a sharp edge where a carve meets the
//! slope is sharp here, where any interpolation of the samples rounds it
//! off. Points are in window coordinates: sample (a, b, c) of the voxel grid
//! is at (a, b, c), and x and y run along the region's face grid, so the
//! field is defined only where that grid is the planet's own: at points
//! whose columns lie on the region's face (`PointDensity::defined_near`).
//!
//! Lattice values (the smooth 2D fields, the overhang and worm noise at each
//! node and level) are kept once worked out, so the many points a test asks
//! for near one another cost little more than their columns' relief.
//!
//! The polygonizer asks it too, about the rare sharp vertex its samples
//! cannot vouch for (`mesh::field_look`), at whole grid coordinates
//! (`PointDensity::at_grid`), so that every region holding a cell reads
//! the same bits there (tested over the cells neighbours share).
//!
//! The formulas are written beside the voxel pass's rather than shared with
//! it: the pass works a column of layers at a time and skips the layers a
//! term cannot change. A test (`tests/manifold.rs`) holds the two equal at
//! 58,529 samples of random regions, so neither can change alone.

use std::collections::BTreeMap;

use glam::Vec3;

use super::Terrain;
use super::columns::{ColumnField, RegionNear, Relief};
use super::features::{Capsule, Deposit, carve_margin_m};
use super::fields::CoarseFields;
use super::lattice::LATTICE;
use super::voxels::STRUCTURE_ROOF_M;
use crate::geometry::{MARGIN, REGION_CELLS, RegionKey, direction_warped, warp};

/// How far beyond the sample window (cells) points may be asked for.
pub const REACH_CELLS: i32 = 2;

/// The generator's density anywhere in one region's window (see the module doc).
#[derive(Debug)]
pub struct PointDensity<'t> {
    terrain: &'t Terrain,
    key: RegionKey,
    /// Grid cells across the region's face at its LOD.
    cells_across: i32,
    /// Grid coordinates of window sample (0, 0).
    origin: (i32, i32),
    /// Layer of window sample c = 0.
    first_layer: i32,
    /// Face-coordinate step per grid cell.
    scale: f32,
    layer_m: f32,
    cell_m: f32,
    node_cell_m: f32,
    /// The cave mouths' capsules that may reach the window, each with its carve box.
    mouths: Vec<(Capsule, (Vec3, Vec3))>,
    deposits: Vec<Deposit>,
    /// Per lattice node (grid x, y): its direction, smooth fields and shell floor radius.
    nodes: BTreeMap<(i32, i32), Node>,
    /// Per lattice node and level: overhang and the two worm noises.
    levels: BTreeMap<(i32, i32, i32), [f32; 3]>,
}

/// Where a point reads the lattice: its four nodes with their weights, the
/// region's lattice level below it and its height above that level (0 to 1).
struct LatticePoint {
    terms: [((i32, i32), f32); 4],
    level: i32,
    t: f32,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    direction: Vec3,
    coarse: [f32; CoarseFields::COUNT],
    floor_r: f32,
}

impl Terrain {
    /// The density in the window of `columns`' region (`columns` from
    /// `Terrain::columns`), wherever it is defined
    /// (`PointDensity::defined_near`).
    #[must_use]
    pub fn point_density(&self, columns: &ColumnField) -> PointDensity<'_> {
        let key = columns.key;
        let n = self.grid.cells_across(key.lod);
        let origin = (key.x as i32 * REGION_CELLS - MARGIN, key.y as i32 * REGION_CELLS - MARGIN);
        let layer_m = self.grid.layer_m(key.lod);
        let cell_m = self.grid.cell_m(key.lod);
        let first_layer = key.z as i32 * REGION_CELLS - MARGIN;
        let (lo, hi) = self.window_bounds(columns, first_layer, layer_m);
        let pad = Vec3::splat(2.0 * REACH_CELLS as f32 * cell_m.max(layer_m) + carve_margin_m(layer_m));
        let (lo, hi) = (lo - pad, hi + pad);
        let caves = &self.recipe.caves;
        PointDensity {
            terrain: self,
            key,
            cells_across: n,
            origin,
            first_layer,
            scale: 2.0 / n as f32,
            layer_m,
            cell_m,
            node_cell_m: self.node_cell_m(key.lod),
            mouths: if caves.enabled && cell_m <= 8.0 {
                let margin = carve_margin_m(layer_m);
                self.cave_mouths_near(lo, hi).into_iter().map(|m| (m, m.carve_bounds(margin))).collect()
            } else {
                Vec::new()
            },
            deposits: if cell_m <= 4.0 { self.deposits_near(lo, hi) } else { Vec::new() },
            nodes: BTreeMap::new(),
            levels: BTreeMap::new(),
        }
    }
}

impl PointDensity<'_> {
    /// The column direction at grid coordinates (x, y) of the region's face.
    fn direction(&self, x: f32, y: f32) -> Vec3 {
        direction_warped(self.key.face(), warp(x * self.scale - 1.0), warp(y * self.scale - 1.0))
    }

    fn node(&mut self, x: i32, y: i32) -> Node {
        if let Some(n) = self.nodes.get(&(x, y)) {
            return *n;
        }
        let t = self.terrain;
        let direction = self.direction(x as f32, y as f32);
        let node = Node {
            direction,
            coarse: t.node_coarse(direction, self.node_cell_m).to_array(),
            floor_r: t.recipe.radius_m + t.elevation_m(direction, self.node_cell_m) - t.grid.shell_below_m,
        };
        self.nodes.insert((x, y), node);
        node
    }

    /// Overhang and worm noises of node (x, y) at lattice level `level`
    /// (levels every `LATTICE` layers from the region's layer -`LATTICE`).
    fn level(&mut self, x: i32, y: i32, level: i32) -> [f32; 3] {
        if let Some(v) = self.levels.get(&(x, y, level)) {
            return *v;
        }
        let node = self.node(x, y);
        let z = (self.key.z as i32 * REGION_CELLS - LATTICE + level * LATTICE) as f32 * self.layer_m;
        let p = node.direction * (node.floor_r + z);
        let f = &self.terrain.fields;
        let v = [f.overhang(p, self.node_cell_m), f.worm(p, self.node_cell_m, 0), f.worm(p, self.node_cell_m, 1)];
        self.levels.insert((x, y, level), v);
        v
    }

    /// The four lattice nodes around grid point (x, y) with their weights, in
    /// the order `Window` sums them.
    fn terms(x: f32, y: f32) -> [((i32, i32), f32); 4] {
        let cell = |c: f32| {
            let c0 = (libm::floorf(c / LATTICE as f32) as i32) * LATTICE;
            let f = (c - c0 as f32) * (1.0 / LATTICE as f32);
            (c0, 1.0 - f, f)
        };
        let (x0, wx0, wx1) = cell(x);
        let (y0, wy0, wy1) = cell(y);
        [
            ((x0, y0), wx0 * wy0),
            ((x0, y0 + LATTICE), wx0 * wy1),
            ((x0 + LATTICE, y0), wx1 * wy0),
            ((x0 + LATTICE, y0 + LATTICE), wx1 * wy1),
        ]
    }

    /// The column at grid point (x, y): its direction, and its relief from
    /// the smooth fields interpolated from the lattice (the 2D pass).
    fn column(&mut self, x: f32, y: f32, terms: &[((i32, i32), f32); 4]) -> (Vec3, Relief) {
        let mut coarse = [0.0; CoarseFields::COUNT];
        for &((nx, ny), wt) in terms {
            if wt > 0.0 {
                let v = self.node(nx, ny).coarse;
                for k in 0..CoarseFields::COUNT {
                    coarse[k] += wt * v[k];
                }
            }
        }
        let direction = self.direction(x, y);
        let coarse = CoarseFields::from_array(coarse);
        let near = &RegionNear::everything();
        (direction, self.terrain.relief(near, direction, coarse, self.cell_m, 2.0 * self.cell_m))
    }

    /// Whether the density is defined within `REACH_CELLS` of window point
    /// `w`: there the columns lie on the region's face, its edges included,
    /// so the face's own grid is the planet's (beyond an edge the voxel pass
    /// reads the neighbour face's grid, which this does not model).
    #[must_use]
    pub fn defined_near(&self, w: Vec3) -> bool {
        self.defined_near_grid(self.origin.0 as f32 + w.x, self.origin.1 as f32 + w.y)
    }

    /// `defined_near` at grid coordinates (x, y) of the region's face.
    #[must_use]
    pub fn defined_near_grid(&self, x: f32, y: f32) -> bool {
        self.defined_within_grid(x, y, REACH_CELLS as f32)
    }

    /// Whether the density is defined within `reach` cells of window point
    /// `w` (`defined_near` with another reach).
    #[must_use]
    pub fn defined_within(&self, w: Vec3, reach: f32) -> bool {
        self.defined_within_grid(self.origin.0 as f32 + w.x, self.origin.1 as f32 + w.y, reach)
    }

    fn defined_within_grid(&self, x: f32, y: f32, reach: f32) -> bool {
        let (lo, hi) = (reach, self.cells_across as f32 - reach);
        (lo..=hi).contains(&x) && (lo..=hi).contains(&y)
    }

    /// The density at window point `w`, metres (positive is solid); the
    /// generator's where `defined_near` says so.
    pub fn at(&mut self, w: Vec3) -> f32 {
        self.at_grid([self.origin.0, self.origin.1, self.first_layer], w)
    }

    /// The density at `local` (in the unit cell) of the cell whose minimum
    /// corner is grid point (x, y) of the region's face at layer z
    /// (`cell`), metres. Worked out from those whole coordinates, so every
    /// region whose window holds the cell gets the same bits there (the
    /// polygonizer asks it, `mesh::dual_contour`).
    pub fn at_grid(&mut self, cell: [i32; 3], local: Vec3) -> f32 {
        let whole = local.floor();
        let cell = [cell[0] + whole.x as i32, cell[1] + whole.y as i32, cell[2] + whole.z as i32];
        let local = local - whole;
        let (x, y) = (cell[0] as f32 + local.x, cell[1] as f32 + local.y);
        let terms = Self::terms(x, y);
        let (direction, relief) = self.column(x, y, &terms);
        let s = self.terrain.grid.shell_below_m + relief.height_m;
        let z = (cell[2] as f32 + local.z) * self.layer_m;
        // Layers above the region's lattice level 0, `MARGIN` below its first sample.
        let above = cell[2] - self.first_layer + MARGIN;
        let t = ((above.rem_euclid(LATTICE)) as f32 + local.z) * (1.0 / LATTICE as f32);
        let point = LatticePoint { terms, level: above.div_euclid(LATTICE), t };
        let mut d = s - z;
        let overhangs = &self.terrain.recipe.terrain.overhangs;
        let amplitude = overhangs.amplitude_m;
        let band = self.terrain.overhang_band_m(self.layer_m);
        if amplitude > 0.0 && z >= s - band && z < s + band {
            let calm = amplitude * (1.0 - relief.river.max(relief.structure));
            let weight = self.terrain.overhang_weight(s - z, self.layer_m, 1.0 / overhangs.fade_height_m);
            d += calm * weight * self.noise(&point, 0);
        }
        let d = self.worm_caves(&point, s, z, relief.structure, d);
        self.features(direction, relief.coarse.elevation_m, z, d)
    }

    /// Lattice noise `k` (0 overhang, 1 and 2 the worms) at a point: level by
    /// level from the nodes, then between the levels.
    fn noise(&mut self, point: &LatticePoint, k: usize) -> f32 {
        let (level, t) = (point.level, point.t);
        let mut at = |l: i32| {
            let mut v = 0.0;
            for &((nx, ny), wt) in &point.terms {
                if wt > 0.0 {
                    v += wt * self.level(nx, ny, l)[k];
                }
            }
            v
        };
        let below = at(level);
        mix(below, at(level + 1), t)
    }

    /// `d` with the worm caves carved at height `z` over the shell floor of
    /// a column whose surface is at `s` (its structure weight `structure`),
    /// and the ground around them capped: rung 8 of the ladder.
    fn worm_caves(&mut self, point: &LatticePoint, s: f32, z: f32, structure: f32, d: f32) -> f32 {
        let caves = &self.terrain.recipe.caves;
        let worm_floor = 8.0;
        // As `voxels.rs` works them out, to the bit.
        let cave_top = s - caves.min_depth_m - structure * STRUCTURE_ROOF_M;
        let roof = s - z - caves.min_depth_m - structure * STRUCTURE_ROOF_M;
        let worm_cap = 2.0 * self.layer_m;
        if !caves.enabled || self.cell_m > 4.0 || worm_floor >= cave_top {
            return d;
        }
        if z < worm_floor {
            return d.min(worm_cap + (worm_floor - z));
        }
        if z >= cave_top {
            return d.min(worm_cap + (z - cave_top));
        }
        let (threshold, scale) = (caves.worm_threshold, 3.0 / caves.worm_threshold);
        let a = self.noise(point, 1).abs();
        let b = self.noise(point, 2).abs();
        let fade = (roof * 0.25).min((z - worm_floor) * 0.25).min(1.0);
        d.min(worm_cap).min((a.max(b) - threshold * fade) * scale)
    }

    /// `d` with the cave mouths carved and the deposits set at the point of
    /// column `direction` (elevation `elevation_m`) `z` metres above its floor.
    fn features(&self, direction: Vec3, elevation_m: f32, z: f32, mut d: f32) -> f32 {
        let t = self.terrain;
        let p = direction * (t.recipe.radius_m + elevation_m - t.grid.shell_below_m + z);
        for (m, (lo, hi)) in &self.mouths {
            if p.cmpge(*lo).all() && p.cmple(*hi).all() {
                d = d.min(m.distance(p));
            }
        }
        for dep in &self.deposits {
            let inside = dep.radius - libm::sqrtf((p - dep.center).length_squared());
            if inside > 0.0 {
                d = d.max(inside);
            }
        }
        d
    }
}

/// Linear interpolation in the form `voxels.rs` uses (exact at the ends).
#[inline]
fn mix(a: f32, b: f32, t: f32) -> f32 {
    a * (1.0 - t) + b * t
}
