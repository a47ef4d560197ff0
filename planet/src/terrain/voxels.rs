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
//! height alone. A window the 2D pass proves all air (`proves_all_air`, about
//! a third of the LOD-0 regions streamed over land) lays out no lattice at
//! all. Coarse LODs drop octaves finer than their cells and skip features
//! smaller than a cell.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::Terrain;
use super::columns::{Column, ColumnField};
use super::features::{Capsule, Deposit, carve_margin_m};
use super::lattice::{LATTICE, Window};
use crate::geometry::{MARGIN, REGION_CELLS, RegionKey, WINDOW};
use crate::signature::{Signature, SignatureHasher};

/// Density units per metre: i16 covers ±256 m at 7.8 mm resolution.
pub const DENSITY_PER_M: f32 = 128.0;

/// How many layers beyond the overhang noise's amplitude its band reaches,
/// the noise tapering to nothing across them (`Terrain::overhang_weight`).
const OVERHANG_TAPER_LAYERS: f32 = 2.0;

/// Cover units per metre: i8 covers ±16 m at 12.5 cm, deeper than any
/// vertex is dark and higher than any is lit.
pub const COVER_PER_M: f32 = 8.0;

/// One voxel: 6 bytes, in memory (on a little-endian machine) the bytes
/// `to_le_bytes` gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, bytemuck::Pod, bytemuck::Zeroable)]
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
    /// `to_bytes` followed by `cover_bytes`. On a little-endian machine the
    /// voxels in memory are those bytes and are hashed where they lie;
    /// elsewhere a few hundred at a time go through a small buffer.
    #[must_use]
    pub fn signature(&self) -> Signature {
        let mut hasher = SignatureHasher::new("voxels");
        if cfg!(target_endian = "little") {
            hasher.update(bytemuck::cast_slice(&self.voxels));
            hasher.update(self.cover_bytes());
            return hasher.finish();
        }
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
        self.voxels_skipping_air(columns, true)
    }

    /// `voxels`, or with `skip_air` off the whole pass even in a window
    /// above the surface band: the same grid (tested), the long way.
    fn voxels_skipping_air(&self, columns: &ColumnField, skip_air: bool) -> VoxelGrid {
        let key = columns.key;
        let r = &self.recipe;
        let lod = key.lod;
        let layer_m = self.grid.layer_m(lod);
        let cell_m = self.grid.cell_m(lod);
        let first_layer = key.z as i32 * REGION_CELLS - MARGIN;
        let shell_below = self.grid.shell_below_m;

        let overhangs = &r.terrain.overhangs;
        let amplitude = overhangs.amplitude_m;
        let band = self.overhang_band_m(layer_m);
        let caves = &r.caves;
        // Worm tunnels are a few metres across: finer LODs only.
        let worms_on = caves.enabled && cell_m <= 4.0;
        let worm_floor = 8.0; // metres above the shell floor: caves never open the bottom of the shell
        let worm_cap = 2.0 * layer_m;
        let worm_scale = 3.0 / caves.worm_threshold;
        let inv_fade = 1.0 / overhangs.fade_height_m;

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
        let materials = Strata::new(r, z_of);
        let above = skip_air && self.proves_all_air(columns);
        let window = (!above).then(|| Window::new(&self.grid, key, MARGIN));
        let mut lattice = window.as_ref().map(|w| (w, Volume::new(self, w, key.z as i32 * REGION_CELLS, layer_m)));
        let mut d = [0f32; WINDOW];
        for b in 0..side {
            for a in 0..side {
                let col = columns.at(a, b);
                let s = shell_below + col.height_m;
                for (dc, z) in d.iter_mut().zip(&z_of) {
                    *dc = s - z;
                }
                let cover_out = &mut cover[(b * side + a) * side..][..side];
                let Some((window, volume)) = lattice.as_mut() else {
                    // All air: every sample of the column takes its surface materials.
                    let out = &mut voxels[(b * side + a) * side..][..side];
                    let template = Voxel { density: 0, materials: col.surface, blend: col.blend };
                    out.fill(template);
                    for ((v, cover), &dc) in out.iter_mut().zip(cover_out.iter_mut()).zip(&d) {
                        v.density = quantize(dc);
                        *cover = quantize_cover(dc);
                    }
                    continue;
                };
                let terms = window.site(a, b).terms();
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
                        d[c] += calm * self.overhang_weight(s - z_of[c], layer_m, inv_fade) * n;
                    }
                }
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
                materials.write(&mut voxels[(b * side + a) * side..][..side], col, s, &d);
            }
        }
        if !deposits.is_empty() || !mouths.is_empty() {
            self.apply_features(&mut voxels, columns, first_layer, layer_m, &deposits, &mouths);
        }
        VoxelGrid { key, voxels, cover }
    }

    /// Whether the 2D pass proves the region of `columns` all air: its
    /// window lies wholly above every column's overhang band, reached by
    /// nothing but the 2D height. No overhang (it lives in the band), no
    /// cave (they lie below the surface, and their cap only lowers densities
    /// already negative there). `voxels` then fills the grid from the 2D
    /// height alone, with neither the lattice nor any 3D value.
    #[must_use]
    pub fn proves_all_air(&self, columns: &ColumnField) -> bool {
        let key = columns.key;
        let layer_m = self.grid.layer_m(key.lod);
        let band = self.overhang_band_m(layer_m);
        // The window's lowest layer, as `voxels` works it out.
        let bottom = (key.z as i32 * REGION_CELLS - MARGIN) as f32 * layer_m;
        let shell_below = self.grid.shell_below_m;
        // (A column read from a dump may hold what the 2D pass never makes:
        // a negative depth or structure would lift materials or caves.)
        columns.columns.iter().all(|col| {
            shell_below + col.height_m + band <= bottom && col.surface_depth_m >= 0.0 && col.structure >= 0.0
        })
    }

    /// How far (metres) from a column's 2D surface the overhang noise is
    /// worked out, with layers `layer_m` tall: its amplitude and two layers.
    /// Beyond it the density is the 2D height's alone.
    pub(super) fn overhang_band_m(&self, layer_m: f32) -> f32 {
        self.recipe.terrain.overhangs.amplitude_m + OVERHANG_TAPER_LAYERS * layer_m
    }

    /// The weight of the overhang noise `depth` metres below a column's 2D
    /// surface, with layers `layer_m` tall: 1 at and below the surface and 0
    /// from the fade height above it (`inv_fade` is its inverse), tapered
    /// to 0 across the band's outer `OVERHANG_TAPER_LAYERS`, where the
    /// noise cannot change the sign, so that the density does not jump
    /// where the band ends. (It jumped by as much as the amplitude, and dual
    /// contouring's stencils read the jump as a sharp bend.)
    #[inline]
    pub(super) fn overhang_weight(&self, depth: f32, layer_m: f32, inv_fade: f32) -> f32 {
        let fade = clamp01(1.0 + depth * inv_fade);
        let taper = clamp01((self.overhang_band_m(layer_m) - depth.abs()) * (1.0 / (OVERHANG_TAPER_LAYERS * layer_m)));
        fade * taper
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

/// The materials of a window's layers: banded rock deep down, then the
/// column's subsurface, then its surface (air too).
struct Strata {
    /// Each window layer's height above the shell floor, metres.
    z_of: [f32; WINDOW],
    rock: [u8; 2],
    /// Strata: bands of bedrock and rock parallel to the elevated surface (a
    /// triangle wave over height in the shell), the same for every column.
    blend: [u16; WINDOW],
}

impl Strata {
    fn new(r: &crate::recipe::PlanetRecipe, z_of: [f32; WINDOW]) -> Self {
        let strata = r.surface.strata_m;
        let blend = core::array::from_fn(|c| {
            if strata <= 0.0 {
                return 0;
            }
            let x = z_of[c] / strata;
            let t = x - 2.0 * floor_f32(x * 0.5);
            ((1.0 - (t - 1.0).abs()).clamp(0.0, 1.0) * 65535.0) as u16
        });
        Self { z_of, rock: [r.surface.bedrock as u8, r.surface.rock as u8], blend }
    }

    /// The layers of a column below `m` metres over the shell floor.
    fn below(&self, m: f32) -> usize {
        self.z_of.partition_point(|&z| z < m)
    }

    /// A column's voxels from its densities `d` (metres), its 2D surface
    /// `s` metres over the shell floor.
    fn write(&self, out: &mut [Voxel], col: &Column, s: f32, d: &[f32; WINDOW]) {
        let deep = self.below(s - col.surface_depth_m - 3.0);
        let sub = self.below(s - col.surface_depth_m);
        for c in 0..deep {
            out[c] = Voxel { density: quantize(d[c]), materials: self.rock, blend: self.blend[c] };
        }
        for c in deep..sub {
            out[c] = Voxel { density: quantize(d[c]), materials: [col.subsurface; 2], blend: 0 };
        }
        for c in sub..WINDOW {
            out[c] = Voxel { density: quantize(d[c]), materials: col.surface, blend: col.blend };
        }
    }
}

/// Metres to stored density, rounded half away from zero, saturating. (No
/// `f32::round`: without SSE4.1 it is a library call, and this runs per sample.)
#[inline]
pub(crate) fn quantize(d: f32) -> i16 {
    round_away(max(min(d * DENSITY_PER_M, 32767.0), -32767.0)) as i16
}

/// Metres to stored cover, rounded half away from zero, saturating.
#[inline]
pub(crate) fn quantize_cover(d: f32) -> i8 {
    round_away(max(min(d * COVER_PER_M, 127.0), -127.0)) as i8
}

/// `x` (at most 2^22 from zero) rounded half away from zero: what
/// `(x + 0.5f32.copysign(x)) as i32` gives, with no float-to-integer
/// conversion, whose saturating form keeps the compiler from vectorising a
/// column's loop. Adding 1.5 * 2^23 leaves the nearest integer (ties to
/// even) in the low bits of the sum; one compare turns that into
/// truncation. The same value for every `f32` (all 2^32 checked once;
/// a stride of them in the tests).
#[inline(always)]
fn round_away(x: f32) -> i32 {
    const MAGIC: f32 = 12_582_912.0;
    let y = x + 0.5f32.copysign(x);
    let a = y.abs();
    let sum = a + MAGIC;
    let nearest = sum.to_bits() as i32 - MAGIC.to_bits() as i32;
    let truncated = nearest - i32::from(sum - MAGIC > a);
    if y < 0.0 { -truncated } else { truncated }
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

    /// A window above the surface band, filled from the 2D height alone, is
    /// the grid the whole 3D pass makes, to the bit: every region up the
    /// shell at random places of every planet of the default system and
    /// two seeded ones, at LODs 0 and 1 (from LOD 2 on, one region spans
    /// the shell and holds the surface).
    #[test]
    fn windows_above_the_band_skip_the_3d_pass_unchanged() {
        let systems = [
            PlannedSystem::default_system(),
            PlannedSystem::build(&crate::SystemRecipe::from_seed(17)).unwrap(),
            PlannedSystem::build(&crate::SystemRecipe::from_seed(99)).unwrap(),
        ];
        let mut draw = crate::hash::HashStream::new(0x00a1_4000);
        let (mut skipped, mut regions, mut differ) = (0, 0, Vec::new());
        for system in &systems {
            for plan in &system.planets {
                let t = Terrain::new(plan);
                for _ in 0..16 {
                    let d = Vec3::new(draw.range_f32(-1.0, 1.0), draw.range_f32(-1.0, 1.0), draw.range_f32(-1.0, 1.0));
                    // From LOD 2 on, one region spans the whole shell.
                    let lod = draw.index(2) as u8;
                    let column = t.surface_key(d.normalize_or(Vec3::X), lod);
                    for z in 0..t.grid.regions_up(lod) {
                        let columns = t.columns(RegionKey { z, ..column });
                        regions += 1;
                        skipped += usize::from(t.proves_all_air(&columns));
                        let (fast, whole) =
                            (t.voxels_skipping_air(&columns, true), t.voxels_skipping_air(&columns, false));
                        if fast != whole {
                            differ.push(format!("planet {} {}", plan.index, columns.key));
                        }
                    }
                }
            }
        }
        eprintln!("{skipped} of {regions} windows skipped the 3D pass");
        assert!(regions >= 480 && skipped >= regions / 5, "{skipped} of {regions} windows skipped the 3D pass");
        assert!(differ.is_empty(), "{} of {regions} differ: {}", differ.len(), differ.join(", "));
    }

    /// The quantizers give what the float-to-integer casts they replace
    /// gave, over a stride of every `f32` bit pattern (infinities, NaNs and
    /// both zeros among them) and every half step near zero.
    #[test]
    fn quantizers_round_half_away_from_zero_as_the_casts_did() {
        let density = |d: f32| {
            let x = max(min(d * DENSITY_PER_M, 32767.0), -32767.0);
            (x + 0.5f32.copysign(x)) as i16
        };
        let cover = |d: f32| {
            let x = max(min(d * COVER_PER_M, 127.0), -127.0);
            (x + 0.5f32.copysign(x)) as i8
        };
        let halves = (-70_000..=70_000).map(|k| k as f32 / (2.0 * DENSITY_PER_M));
        let strided = (0..=u32::MAX / 251).map(|k| f32::from_bits(k * 251));
        let special = [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MIN, f32::MAX];
        let mut checked = 0;
        for d in halves.chain(strided).chain(special) {
            assert_eq!(quantize(d), density(d), "density of {d:e} m");
            assert_eq!(quantize_cover(d), cover(d), "cover of {d:e} m");
            checked += 1;
        }
        assert!(checked > 17_000_000);
    }

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
