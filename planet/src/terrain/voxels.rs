//! `VoxelGrid`, the 3D pass: 36³ samples per region, each a 6-byte voxel
//! (density, two materials, blend).
//!
//! Density, in metres (positive = solid), is the 2D surface's height over the
//! sample plus warped 3D noise that fades out above the surface (no floating
//! islands), minus worm caves (two thresholded noises), cave mouths and their
//! tunnels (cell-owned capsules), plus resource deposits (cell-owned spheres
//! of their own material). Deep rock is banded into strata that follow the
//! elevated surface.
//!
//! Beside the voxels, each sample keeps its *cover*: how deep it lies in the
//! ground as it would be without caves and cave mouths (the density before
//! they are carved). A cave's walls are deep in that ground, open ground is at
//! its surface: the mesh reads its vertices' sky light from it (`mesh/sky.rs`).
//!
//! Speed comes from doing little: the 3D noise lives on lattice nodes every 4
//! cells and is interpolated; a column evaluates it only in the band where it
//! can change the sign of the density, and caves only in their depth range;
//! the rest of the column (surely solid or surely air) is filled from the 2D
//! height alone. Coarse LODs drop octaves finer than their cells and skip
//! features smaller than a cell.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::Terrain;
use super::columns::ColumnField;
use super::features::{Capsule, Deposit, carve_margin_m};
use super::lattice::{LATTICE, Window};
use crate::geometry::{MARGIN, REGION_CELLS, RegionKey, WINDOW};
use crate::signature::{Signature, SignatureHasher};

/// Density units per metre: i16 covers ±256 m at 7.8 mm resolution.
pub const DENSITY_PER_M: f32 = 128.0;

/// Cover units per metre: i8 covers ±16 m at 12.5 cm, deeper than any
/// vertex is dark and higher than any is lit.
pub const COVER_PER_M: f32 = 8.0;

/// One voxel: 6 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[repr(C)]
pub struct Voxel {
    /// Signed density, `DENSITY_PER_M` per metre; positive is solid.
    pub density: i16,
    /// Primary and secondary material ids.
    pub materials: [u8; 2],
    /// Share of the secondary material, 0..=65535.
    pub blend: u16,
}

impl Voxel {
    /// The voxel's six bytes in `VoxelGrid::to_bytes`: density, the two
    /// materials and the blend, little-endian.
    #[inline]
    #[must_use]
    pub fn to_le_bytes(self) -> [u8; 6] {
        let [d0, d1] = self.density.to_le_bytes();
        let [b0, b1] = self.blend.to_le_bytes();
        [d0, d1, self.materials[0], self.materials[1], b0, b1]
    }

    /// Whether the voxel is inside the ground.
    #[inline]
    #[must_use]
    pub fn is_solid(&self) -> bool {
        self.density > 0
    }

    /// Density in metres.
    #[inline]
    #[must_use]
    pub fn density_m(&self) -> f32 {
        f32::from(self.density) / DENSITY_PER_M
    }
}

/// The 3D pass over a region's 36³ sample window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VoxelGrid {
    /// The region.
    pub key: RegionKey,
    /// 36³ voxels in columns: z (up) fastest, then x, then y, so that a column
    /// is contiguous. Sample (0, 0, 0) is 2 cells before the region's first
    /// cell on every axis.
    pub voxels: Vec<Voxel>,
    /// Each sample's depth in the ground without caves and cave mouths,
    /// `COVER_PER_M` a metre (negative above it), in the voxels' order.
    /// Where an edit changes a sample's density, its cover is at most the
    /// new density (`edit/apply.rs`): edited ground is lit as open ground.
    pub cover: Vec<i8>,
}

impl VoxelGrid {
    /// Samples along each side.
    pub const SIDE: usize = WINDOW;

    /// The voxel at window sample (a, b, c).
    #[inline]
    #[must_use]
    pub fn at(&self, a: usize, b: usize, c: usize) -> Voxel {
        self.voxels[(b * Self::SIDE + a) * Self::SIDE + c]
    }

    /// The cover of window sample (a, b, c), `COVER_PER_M` a metre.
    #[inline]
    #[must_use]
    pub fn cover_at(&self, a: usize, b: usize, c: usize) -> i8 {
        self.cover[(b * Self::SIDE + a) * Self::SIDE + c]
    }

    /// The voxels as little-endian bytes: the canonical encoding hashes and dumps use.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        self.voxels.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// The cover as bytes (two's complement): the `cover` section of a dump.
    #[must_use]
    pub fn cover_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.cover)
    }

    /// A signature of the voxels (the region's golden hash): that of
    /// `to_bytes` followed by `cover_bytes`, hashed a few hundred voxels at a
    /// time through a small buffer rather than a copy of the whole grid.
    #[must_use]
    pub fn signature(&self) -> Signature {
        let mut hasher = SignatureHasher::new("voxels");
        let mut buffer = [0u8; 6 * 512];
        for chunk in self.voxels.chunks(512) {
            for (v, out) in chunk.iter().zip(buffer.chunks_exact_mut(6)) {
                out.copy_from_slice(&v.to_le_bytes());
            }
            hasher.update(&buffer[..chunk.len() * 6]);
        }
        hasher.update(self.cover_bytes());
        hasher.finish()
    }
}

/// Vertical lattice levels of a window: samples -2..=33 fall between levels
/// at -4, 0, ..., 36 (in layers from the region's first layer).
const LEVELS: usize = 11;
// The level arithmetic in `voxels` assumes a margin of 2 and a lattice of 4.
const _: () = assert!(MARGIN == 2 && LATTICE == 4);

/// Lazily evaluated 3D lattice values, per (node, level).
struct Volume<'t> {
    terrain: &'t Terrain,
    window: &'t Window,
    /// Radius of each node's shell floor (`UNSET` until needed).
    floor_r: Vec<f32>,
    /// Height above the shell floor of each level, metres.
    level_z: [f32; LEVELS],
    /// Node spacing, metres: octaves finer than twice this are dropped.
    cell_m: f32,
    overhang: Vec<f32>,
    worms: Vec<[f32; 2]>,
}

const UNSET: f32 = f32::NAN;

/// Rock kept over caves under a building's footprint besides the caves' least depth, metres.
pub(super) const STRUCTURE_ROOF_M: f32 = 12.0;

impl<'t> Volume<'t> {
    fn new(terrain: &'t Terrain, window: &'t Window, first_layer: i32, layer_m: f32) -> Self {
        let key = window.key;
        let cell_m = terrain.node_cell_m(key.lod);
        // Each node's floor is worked out when first needed: a region all
        // above the surface band and the caves (most air regions) needs none.
        let floor_r = vec![UNSET; window.node_directions.len()];
        let mut level_z = [0.0; LEVELS];
        for (l, z) in level_z.iter_mut().enumerate() {
            *z = (first_layer - LATTICE + l as i32 * LATTICE) as f32 * layer_m;
        }
        let n = window.nodes.len() * LEVELS;
        Self { terrain, window, floor_r, level_z, cell_m, overhang: vec![UNSET; n], worms: vec![[UNSET; 2]; n] }
    }

    fn position(&mut self, node: usize, level: usize) -> Vec3 {
        let direction = self.window.node_directions[node];
        if self.floor_r[node].is_nan() {
            let terrain = self.terrain;
            self.floor_r[node] =
                terrain.recipe.radius_m + terrain.elevation_m(direction, self.cell_m) - terrain.grid.shell_below_m;
        }
        direction * (self.floor_r[node] + self.level_z[level])
    }

    /// Overhang noise interpolated at a site, level by level (horizontal first).
    fn overhang_at(&mut self, terms: &[(u32, f32)], level: usize) -> f32 {
        let mut v = 0.0;
        for &(node, w) in terms {
            let i = node as usize * LEVELS + level;
            if self.overhang[i].is_nan() {
                self.overhang[i] = self.terrain.fields.overhang(self.position(node as usize, level), self.cell_m);
            }
            v += w * self.overhang[i];
        }
        v
    }

    /// Worm noise `which` (0 or 1) interpolated at a site, at one level.
    fn worm_at(&mut self, terms: &[(u32, f32)], level: usize, which: usize) -> f32 {
        let mut v = 0.0;
        for &(node, w) in terms {
            let i = node as usize * LEVELS + level;
            if self.worms[i][which].is_nan() {
                let p = self.position(node as usize, level);
                self.worms[i][which] = self.terrain.fields.worm(p, self.cell_m, which);
            }
            v += w * self.worms[i][which];
        }
        v
    }
}

/// Linear interpolation in the form that returns `a` and `b` exactly at the ends.
#[inline]
fn mix(a: f32, b: f32, t: f32) -> f32 {
    a * (1.0 - t) + b * t
}

impl Terrain {
    /// The 3D pass for the region of `columns`.
    #[must_use]
    pub fn voxels(&self, columns: &ColumnField) -> VoxelGrid {
        let key = columns.key;
        let r = &self.recipe;
        let lod = key.lod;
        let layer_m = self.grid.layer_m(lod);
        let cell_m = self.grid.cell_m(lod);
        let first_layer = key.z as i32 * REGION_CELLS - MARGIN;
        let window = Window::new(&self.grid, key, MARGIN);
        let mut volume = Volume::new(self, &window, key.z as i32 * REGION_CELLS, layer_m);
        let shell_below = self.grid.shell_below_m;

        let overhangs = &r.terrain.overhangs;
        let amplitude = overhangs.amplitude_m;
        let band = amplitude + 2.0 * layer_m;
        let caves = &r.caves;
        // Worm tunnels are a few metres across: finer LODs only.
        let worms_on = caves.enabled && cell_m <= 4.0;
        let worm_floor = 8.0; // metres above the shell floor: caves never open the bottom of the shell
        let worm_cap = 2.0 * layer_m;
        let worm_scale = 3.0 / caves.worm_threshold;
        let inv_fade = 1.0 / overhangs.fade_height_m;
        let strata = r.surface.strata_m;

        let (lo, hi) = self.window_bounds(columns, first_layer, layer_m);
        let deposits: Vec<Deposit> = if cell_m <= 4.0 { self.deposits_near(lo, hi) } else { Vec::new() };
        let margin = Vec3::splat(carve_margin_m(layer_m));
        let mouths: Vec<Capsule> =
            if caves.enabled && cell_m <= 8.0 { self.cave_mouths_near(lo - margin, hi + margin) } else { Vec::new() };

        let side = WINDOW;
        let mut voxels = vec![Voxel::default(); side * side * side];
        let mut cover = vec![0i8; side * side * side];
        // Per window layer: its height above the shell floor, its lattice level
        // (levels are every 4 layers from layer -4) and its weight towards the next.
        let z_of: [f32; WINDOW] = core::array::from_fn(|c| (first_layer + c as i32) as f32 * layer_m);
        let level_of: [(usize, f32); WINDOW] = core::array::from_fn(|c| ((c + 2) / 4, ((c + 2) % 4) as f32 * 0.25));
        // Window layers (a range of c) whose height lies in [lo, hi) metres.
        let layers_in = |lo: f32, hi: f32| {
            let first = z_of.partition_point(|&z| z < lo);
            first..first.max(z_of.partition_point(|&z| z < hi))
        };
        let rock = [r.surface.bedrock as u8, r.surface.rock as u8];
        // Strata: bands of bedrock and rock parallel to the elevated surface (a
        // triangle wave over height in the shell), the same for every column.
        let strata_blend: [u16; WINDOW] = core::array::from_fn(|c| {
            if strata <= 0.0 {
                return 0;
            }
            let x = z_of[c] / strata;
            let t = x - 2.0 * floor_f32(x * 0.5);
            ((1.0 - (t - 1.0).abs()).clamp(0.0, 1.0) * 65535.0) as u16
        });
        let mut d = [0f32; WINDOW];
        for b in 0..side {
            for a in 0..side {
                let col = columns.at(a, b);
                let terms = window.site(a, b).terms();
                let s = shell_below + col.height_m;
                for (dc, z) in d.iter_mut().zip(&z_of) {
                    *dc = s - z;
                }
                // Overhangs: only inside the band where they can change the sign
                // (|depth| <= band), faded out towards fade_height above the surface.
                let band_layers = layers_in(s - band, s + band);
                // The 3D noise stills in river valleys (the channel keeps its
                // shape) and under buildings (their levelled ground stays flat).
                let calm = amplitude * (1.0 - col.river.max(col.structure));
                if amplitude > 0.0 && !band_layers.is_empty() {
                    let mut profile = [0f32; LEVELS];
                    for l in level_of[band_layers.start].0..=level_of[band_layers.end - 1].0 + 1 {
                        profile[l] = volume.overhang_at(terms, l);
                    }
                    for c in band_layers {
                        let (l, t) = level_of[c];
                        let n = mix(profile[l], profile[l + 1], t);
                        // 1 at and below the surface, 0 from fade_height above it.
                        let fade = clamp01(1.0 + (s - z_of[c]) * inv_fade);
                        d[c] += calm * fade * n;
                    }
                }
                let cover_out = &mut cover[(b * side + a) * side..][..side];
                for (out, &dc) in cover_out.iter_mut().zip(&d) {
                    *out = quantize_cover(dc);
                }
                // Worm caves: below their minimum depth, above the shell floor, fading in
                // over 4 m. A tunnel is where both worm noises are near zero; the carve
                // term min(cap, (max(|a|, |b|) - threshold) * 3 / t), with cap = min(d, 2
                // layers), also caps the density of solid ground around tunnels (only its
                // sign and the values near a crossing matter). Where |a| alone puts the
                // term at the cap, b cannot change it and is not evaluated.
                // Under a building the caves keep `STRUCTURE_ROOF_M` more rock overhead.
                let cave_top = s - caves.min_depth_m - col.structure * STRUCTURE_ROOF_M;
                let cave_layers = layers_in(worm_floor, cave_top);
                if worms_on && worm_floor < cave_top {
                    // Beyond the caves' layers nothing is carved, but the
                    // ground is capped as around the tunnels, the cap rising a
                    // metre a metre away from them. Without it the density
                    // jumps from the cap to the full depth between two layers
                    // (40 m at the worm floor), which dual contouring's stencil
                    // reads as a sharp bend and extrapolates a crossing from.
                    // (Every layer of the column, whatever the window holds: a
                    // sample's value is the same in every region that has it.)
                    for c in 0..cave_layers.start {
                        d[c] = min(d[c], worm_cap + (worm_floor - z_of[c]));
                    }
                    for c in cave_layers.end..side {
                        d[c] = min(d[c], worm_cap + (z_of[c] - cave_top));
                    }
                }
                if worms_on && !cave_layers.is_empty() {
                    let levels = level_of[cave_layers.start].0..=level_of[cave_layers.end - 1].0 + 1;
                    let mut pa = [0f32; LEVELS];
                    for l in levels.clone() {
                        pa[l] = volume.worm_at(terms, l, 0);
                    }
                    let mut need_b = [false; LEVELS];
                    let mut a = [0f32; WINDOW];
                    let mut threshold = [0f32; WINDOW];
                    let mut cap = [0f32; WINDOW];
                    for c in cave_layers.clone() {
                        let (l, t) = level_of[c];
                        let z = z_of[c];
                        a[c] = mix(pa[l], pa[l + 1], t).abs();
                        let roof = s - z - caves.min_depth_m - col.structure * STRUCTURE_ROOF_M;
                        let fade = min(min(roof * 0.25, (z - worm_floor) * 0.25), 1.0);
                        threshold[c] = caves.worm_threshold * fade;
                        cap[c] = min(d[c], worm_cap);
                        if (a[c] - threshold[c]) * worm_scale < cap[c] {
                            need_b[l] = true;
                            need_b[l + 1] = true;
                        }
                    }
                    let mut pb = [f32::NAN; LEVELS];
                    for l in levels {
                        if need_b[l] {
                            pb[l] = volume.worm_at(terms, l, 1);
                        }
                    }
                    for c in cave_layers {
                        let (l, t) = level_of[c];
                        // Where b was not needed any value gives the cap: use a.
                        let b = if need_b[l] && need_b[l + 1] { mix(pb[l], pb[l + 1], t).abs() } else { a[c] };
                        d[c] = min(cap[c], (max(a[c], b) - threshold[c]) * worm_scale);
                    }
                }
                // Materials by depth below the 2D surface: banded rock, subsurface, surface (air too).
                let out = &mut voxels[(b * side + a) * side..][..side];
                let deep = layers_in(f32::MIN, s - col.surface_depth_m - 3.0).end;
                let sub = layers_in(f32::MIN, s - col.surface_depth_m).end;
                for c in 0..deep {
                    out[c] = Voxel { density: quantize(d[c]), materials: rock, blend: strata_blend[c] };
                }
                for c in deep..sub {
                    out[c] = Voxel { density: quantize(d[c]), materials: [col.subsurface; 2], blend: 0 };
                }
                for c in sub..side {
                    out[c] = Voxel { density: quantize(d[c]), materials: col.surface, blend: col.blend };
                }
            }
        }
        if !deposits.is_empty() || !mouths.is_empty() {
            self.apply_features(&mut voxels, columns, first_layer, layer_m, &deposits, &mouths);
        }
        VoxelGrid { key, voxels, cover }
    }

    /// The planet-local box holding every sample of the window.
    pub(super) fn window_bounds(&self, columns: &ColumnField, first_layer: i32, layer_m: f32) -> (Vec3, Vec3) {
        let mut lo = Vec3::splat(f32::MAX);
        let mut hi = Vec3::splat(f32::MIN);
        let bottom = first_layer as f32 * layer_m;
        let top = (first_layer + WINDOW as i32 - 1) as f32 * layer_m;
        for col in &columns.columns {
            let floor_r = self.recipe.radius_m + col.elevation_m - self.grid.shell_below_m;
            for z in [bottom, top] {
                let p = col.direction * (floor_r + z);
                lo = lo.min(p);
                hi = hi.max(p);
            }
        }
        (lo, hi)
    }

    /// Carves cave mouths and sets deposits, sample by sample inside each feature's box.
    fn apply_features(
        &self,
        voxels: &mut [Voxel],
        columns: &ColumnField,
        first_layer: i32,
        layer_m: f32,
        deposits: &[Deposit],
        mouths: &[Capsule],
    ) {
        let side = WINDOW;
        let shell_below = self.grid.shell_below_m;
        let boxes: Vec<(Vec3, Vec3)> = mouths
            .iter()
            .map(|m| m.carve_bounds(carve_margin_m(layer_m)))
            .chain(deposits.iter().map(|d| (d.center - Vec3::splat(d.radius), d.center + Vec3::splat(d.radius))))
            .collect();
        for b in 0..side {
            for a in 0..side {
                let col = columns.at(a, b);
                let floor_r = self.recipe.radius_m + col.elevation_m - shell_below;
                // Skip columns whose radial segment misses every feature's box.
                let bottom = col.direction * (floor_r + first_layer as f32 * layer_m);
                let top = col.direction * (floor_r + (first_layer + side as i32 - 1) as f32 * layer_m);
                let (clo, chi) = (bottom.min(top), bottom.max(top));
                if !boxes.iter().any(|(lo, hi)| clo.cmple(*hi).all() && chi.cmpge(*lo).all()) {
                    continue;
                }
                for c in 0..side {
                    let p = col.direction * (floor_r + (first_layer + c as i32) as f32 * layer_m);
                    let v = &mut voxels[(b * side + a) * side + c];
                    let mut d = v.density_m();
                    let mut changed = false;
                    // The mouths' carve boxes lead `boxes`.
                    for (m, (lo, hi)) in mouths.iter().zip(&boxes) {
                        if p.cmpge(*lo).all() && p.cmple(*hi).all() {
                            d = d.min(m.distance(p));
                            changed = true;
                        }
                    }
                    // Rarest first (`deposits_near`'s order): where bodies overlap,
                    // the rarer material wins.
                    let mut placed = false;
                    for dep in deposits {
                        let inside = dep.radius - libm::sqrtf((p - dep.center).length_squared());
                        if inside > 0.0 {
                            d = d.max(inside);
                            if !placed {
                                v.materials = [dep.material; 2];
                                v.blend = 0;
                                placed = true;
                            }
                            changed = true;
                        }
                    }
                    if changed {
                        v.density = quantize(d);
                    }
                }
            }
        }
    }
}

/// Metres to stored density, rounded half away from zero, saturating. (No
/// `f32::round`: without SSE4.1 it is a library call, and this runs per sample.)
#[inline]
pub(crate) fn quantize(d: f32) -> i16 {
    let x = max(min(d * DENSITY_PER_M, 32767.0), -32767.0);
    (x + 0.5f32.copysign(x)) as i16
}

/// Metres to stored cover, rounded half away from zero, saturating.
#[inline]
pub(crate) fn quantize_cover(d: f32) -> i8 {
    let x = max(min(d * COVER_PER_M, 127.0), -127.0);
    (x + 0.5f32.copysign(x)) as i8
}

/// The smaller of two non-NaN floats: one `minss`, where `f32::min` adds NaN
/// handling these loops never need.
#[inline(always)]
fn min(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

/// The larger of two non-NaN floats (see `min`).
#[inline(always)]
fn max(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// `x` clamped to [0, 1] (non-NaN).
#[inline(always)]
fn clamp01(x: f32) -> f32 {
    min(max(x, 0.0), 1.0)
}

/// `floor(x)` for |x| < 2^31 without a library call.
#[inline]
fn floor_f32(x: f32) -> f32 {
    let i = x as i32;
    (i - i32::from(x < i as f32)) as f32
}

/// The grid key layout of `VoxelGrid`, checked at compile time: 6 bytes a voxel.
const _: () = assert!(size_of::<Voxel>() == 6);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlannedSystem;

    /// The signature hashed through a small buffer is that of the grid's bytes.
    #[test]
    fn signature_is_that_of_the_bytes() {
        let plan = &PlannedSystem::default_system().planets[1];
        let t = Terrain::new(plan);
        for (n, (lat, lon)) in [(-22.3, -16.8), (10.0, 20.0), (45.0, 45.0), (-60.0, 170.0)].into_iter().enumerate() {
            let key = t.surface_key(crate::terrain::lat_lon_direction(lat, lon), n as u8);
            let grid = t.voxels(&t.columns(key));
            let bytes = [grid.to_bytes(), grid.cover_bytes().to_vec()].concat();
            assert_eq!(grid.signature(), Signature::of_bytes("voxels", &bytes), "{key:?}");
        }
    }
}
