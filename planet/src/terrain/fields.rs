//! The noise fields of one planet, built once from its recipe: every layer's
//! fractal with its own seed, and the exact value of each field at a direction
//! or a point. The column and voxel passes sample these at lattice nodes
//! (smooth, large fields) and at every column (sharp, small ones); the planet
//! map samples them directly.
//!
//! Noise coordinates are metres on the base sphere (or in planet space, for 3D
//! fields) times the layer's frequency, so a layer looks the same size on every
//! planet. Coarser LODs drop the octaves finer than twice their cells.

use glam::Vec3;

use crate::hash::{noise_seed, salt};
use crate::noise::{Fractal, Gradient, Warp3};
use crate::recipe::{NoiseRecipe, PlanetRecipe};

/// One layer: its fractal and frequency.
#[derive(Clone, Debug)]
pub struct Layer {
    fractal: Fractal,
    frequency: f32,
    wavelength: f32,
}

impl Layer {
    fn new(seed: u64, tag: &[u8], noise: &NoiseRecipe) -> Self {
        Self {
            fractal: noise.fractal(noise_seed(seed, salt(tag))),
            frequency: noise.frequency(),
            wavelength: noise.wavelength_m,
        }
    }

    /// Octaves whose wavelength is at least twice `cell_m` (at least one).
    #[inline]
    #[must_use]
    pub fn octaves_for(&self, cell_m: f32) -> usize {
        self.fractal.octaves_for_wavelength(2.0 * cell_m / self.wavelength)
    }

    /// fbm at `p` metres, in [-1, 1].
    #[inline]
    #[must_use]
    pub fn fbm(&self, p: Vec3, octaves: usize) -> f32 {
        self.fractal.fbm3_octaves::<Gradient>(p * self.frequency, octaves)
    }

    /// Ridged multifractal at `p` metres, in [0, 1].
    #[inline]
    #[must_use]
    pub fn ridged(&self, p: Vec3, octaves: usize) -> f32 {
        self.fractal.ridged3_octaves::<Gradient>(p * self.frequency, octaves)
    }

    /// Leading octaves at least `NODE_WAVELENGTHS` lattice spacings of
    /// `node_cell_m` long (at most `LATTICE_OCTAVES`): their basis is smooth
    /// enough there to interpolate between nodes.
    #[must_use]
    pub fn lattice_octaves(&self, node_cell_m: f32) -> usize {
        let long = self.fractal.octaves_for_wavelength(NODE_WAVELENGTHS * node_cell_m / self.wavelength);
        // `octaves_for_wavelength` keeps one octave even when none is that long.
        let first_long = self.wavelength >= NODE_WAVELENGTHS * node_cell_m;
        if first_long { long.min(LATTICE_OCTAVES) } else { 0 }
    }
}

/// How many lattice spacings an octave's wavelength must span for its
/// basis to be interpolated from the nodes. The basis is smooth gradient
/// noise, and the 2D pass still takes the ridges' sharp crease, `1 - |n|`,
/// at every column: at 8 the ridges move by under a fifth of a cell at a
/// full mountain (tested), and the 2D pass samples two or three octaves
/// fewer at every LOD-0 column on a stamp.
pub const NODE_WAVELENGTHS: f32 = 8.0;

/// The most octaves of the ridges taken from lattice nodes.
pub const LATTICE_OCTAVES: usize = 4;

/// The smooth fields, interpolated between lattice nodes: they change little
/// over a few cells.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CoarseFields {
    /// Offset of the elevated surface from the base radius, metres.
    pub elevation_m: f32,
    /// Rolling hills, metres above (or below) the elevated surface.
    pub hills_m: f32,
    /// How much mountain, 0..=1: the strongest weight of the belts' stamps.
    pub mountain: f32,
    /// Regional temperature noise, [-1, 1].
    pub temperature_noise: f32,
    /// Moisture noise, [-1, 1].
    pub moisture_noise: f32,
    /// The basis of the mountain ridges' long octaves (`Fields::lattice_octaves`),
    /// where stamps may stand: the 2D pass shapes the crests at each column.
    pub ridge_basis: [f32; LATTICE_OCTAVES],
}

impl CoarseFields {
    /// Number of fields.
    pub const COUNT: usize = 5 + LATTICE_OCTAVES;

    /// The fields as an array, for interpolation.
    #[must_use]
    pub fn to_array(self) -> [f32; Self::COUNT] {
        let mut a = [0.0; Self::COUNT];
        a[..5].copy_from_slice(&[
            self.elevation_m,
            self.hills_m,
            self.mountain,
            self.temperature_noise,
            self.moisture_noise,
        ]);
        a[5..].copy_from_slice(&self.ridge_basis);
        a
    }

    /// The fields from an array.
    #[must_use]
    pub fn from_array(a: [f32; Self::COUNT]) -> Self {
        let mut ridge_basis = [0.0; LATTICE_OCTAVES];
        ridge_basis.copy_from_slice(&a[5..]);
        Self {
            elevation_m: a[0],
            hills_m: a[1],
            mountain: a[2],
            temperature_noise: a[3],
            moisture_noise: a[4],
            ridge_basis,
        }
    }
}

/// All noise layers of one planet.
#[derive(Clone, Debug)]
pub struct Fields {
    radius_m: f32,
    elevation_amplitude_m: f32,
    elevation_bias: f32,
    highland_exponent: f32,
    hills_m: f32,
    continents: Layer,
    ranges: Layer,
    hills: Layer,
    detail: Layer,
    detail_m: f32,
    ridges: Layer,
    temperature: Layer,
    moisture: Layer,
    overhang: Layer,
    warp: Warp3,
    worm_a: Layer,
    worm_b: Layer,
}

impl Fields {
    /// The fields of a planet from its seed and recipe.
    #[must_use]
    pub fn new(seed: u64, r: &PlanetRecipe) -> Self {
        let t = &r.terrain;
        Self {
            radius_m: r.radius_m,
            elevation_amplitude_m: r.elevation.amplitude_m,
            elevation_bias: r.elevation.bias,
            highland_exponent: r.elevation.highland_exponent,
            hills_m: t.hills.height_m,
            continents: Layer::new(seed, b"contnent", &r.elevation.continents),
            ranges: Layer::new(seed, b"ranges", &r.elevation.ranges),
            hills: Layer::new(seed, b"hills", &t.hills.noise),
            detail: Layer::new(seed, b"detail", &t.detail.noise),
            detail_m: t.detail.height_m,
            ridges: Layer::new(seed, b"ridges", &t.mountains.ridges),
            temperature: Layer::new(seed, b"temp", &r.climate.temperature_noise),
            moisture: Layer::new(seed, b"moisture", &r.climate.moisture),
            overhang: Layer::new(seed, b"overhang", &t.overhangs.noise),
            warp: Warp3::new(
                noise_seed(seed, salt(b"warp")),
                t.overhangs.warp.params(),
                t.overhangs.warp.frequency(),
                t.overhangs.warp_m,
            ),
            worm_a: Layer::new(seed, b"worm_a", &r.caves.worms),
            worm_b: Layer::new(seed, b"worm_b", &r.caves.worms),
        }
    }

    /// Base radius, metres.
    #[must_use]
    pub fn radius_m(&self) -> f32 {
        self.radius_m
    }

    /// The continents' raw value at `d`, in [-1, 1] (above 0 is high ground).
    #[inline]
    fn continent(&self, p: Vec3, cell_m: f32) -> f32 {
        (self.continents.fbm(p, self.continents.octaves_for(cell_m)) * 1.6 + self.elevation_bias).clamp(-1.0, 1.0)
    }

    /// The elevated surface's offset from the base radius at direction `d`
    /// before the belts' stamps, for cells of `cell_m` metres: continents
    /// shaped into basins and highlands (`Terrain::elevation_m` adds the stamps).
    #[inline]
    #[must_use]
    pub fn base_elevation_m(&self, d: Vec3, cell_m: f32) -> f32 {
        let c = self.continent(d * self.radius_m, cell_m);
        let shaped = if c > 0.0 { libm::powf(c, self.highland_exponent) } else { c };
        shaped * self.elevation_amplitude_m
    }

    /// The base elevation at `d` for cells of `cell_m` metres, and the
    /// tectonic value there for cells of `ridge_cell_m`: the ranges' ridged
    /// noise times the highland share, in [0, 1], whose ridges are the belt mask.
    #[must_use]
    pub fn tectonic(&self, d: Vec3, cell_m: f32, ridge_cell_m: f32) -> (f32, f32) {
        let p = d * self.radius_m;
        let c = self.continent(p, cell_m);
        let shaped = if c > 0.0 { libm::powf(c, self.highland_exponent) } else { c };
        let highland = smoothstep(0.0, 0.45, c);
        let ridge =
            if highland > 0.0 { self.ranges.ridged(p, self.ranges.octaves_for(ridge_cell_m)) * highland } else { 0.0 };
        (shaped * self.elevation_amplitude_m, ridge)
    }

    /// The smooth fields at direction `d` before the stamps (no mountain).
    #[must_use]
    pub fn coarse(&self, d: Vec3, cell_m: f32) -> CoarseFields {
        let p = d * self.radius_m;
        CoarseFields {
            elevation_m: self.base_elevation_m(d, cell_m),
            hills_m: self.hills(d, cell_m),
            mountain: 0.0,
            temperature_noise: self.temperature.fbm(p, self.temperature.octaves_for(cell_m)),
            moisture_noise: self.moisture.fbm(p, self.moisture.octaves_for(cell_m)),
            ridge_basis: [0.0; LATTICE_OCTAVES],
        }
    }

    /// Rolling hills at `d`, metres.
    #[inline]
    #[must_use]
    pub fn hills(&self, d: Vec3, cell_m: f32) -> f32 {
        self.hills.fbm(d * self.radius_m, self.hills.octaves_for(cell_m)) * self.hills_m
    }

    /// Small-scale roughness at direction `d`, metres.
    #[inline]
    #[must_use]
    pub fn detail_m(&self, d: Vec3, cell_m: f32) -> f32 {
        self.detail.fbm(d * self.radius_m, self.detail.octaves_for(cell_m)) * self.detail_m
    }

    /// Mountain ridges at direction `d`, [0, 1].
    #[inline]
    #[must_use]
    pub fn ridges(&self, d: Vec3, cell_m: f32) -> f32 {
        self.ridges.ridged(d * self.radius_m, self.ridges.octaves_for(cell_m))
    }

    /// How many of the ridges' octaves the 2D pass takes from lattice
    /// nodes `node_cell_m` apart.
    #[inline]
    #[must_use]
    pub fn ridge_lattice_octaves(&self, node_cell_m: f32) -> usize {
        self.ridges.lattice_octaves(node_cell_m)
    }

    /// The basis of the ridges' first `octaves` octaves at `d` (the rest 0).
    #[inline]
    #[must_use]
    pub fn ridge_basis(&self, d: Vec3, octaves: usize) -> [f32; LATTICE_OCTAVES] {
        let mut out = [0.0; LATTICE_OCTAVES];
        let l = &self.ridges;
        l.fractal.basis3::<Gradient>(d * self.radius_m * l.frequency, &mut out[..octaves]);
        out
    }

    /// `ridges` with the first `basis.len()` octaves' basis given.
    #[inline]
    #[must_use]
    pub fn ridges_from(&self, d: Vec3, cell_m: f32, basis: &[f32]) -> f32 {
        let l = &self.ridges;
        l.fractal.ridged3_given::<Gradient>(d * self.radius_m * l.frequency, l.octaves_for(cell_m), basis)
    }

    /// Overhang noise at planet-local point `p` (metres), after domain warp.
    #[inline]
    #[must_use]
    pub fn overhang(&self, p: Vec3, cell_m: f32) -> f32 {
        let warped = p + self.warp.offset_octaves(p, self.warp.octaves_for(2.0 * cell_m));
        self.overhang.fbm(warped, self.overhang.octaves_for(cell_m))
    }

    /// Worm-cave noise `which` (0 or 1) at `p`; tunnels run where both are near zero.
    #[inline]
    #[must_use]
    pub fn worm(&self, p: Vec3, cell_m: f32, which: usize) -> f32 {
        let layer = if which == 0 { &self.worm_a } else { &self.worm_b };
        layer.fbm(p, layer.octaves_for(cell_m))
    }
}

/// Hermite smoothstep of `x` between `a` and `b`, in [0, 1].
#[inline]
#[must_use]
pub fn smoothstep(a: f32, b: f32, x: f32) -> f32 {
    let t = ((x - a) / (b - a)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipe::{PlanetKind, derive_recipe};

    #[test]
    fn elevation_stays_within_the_recipe() {
        let r = derive_recipe(PlanetKind::Rocky, 9);
        let f = Fields::new(9, &r);
        let (mut lo, mut hi) = (f32::MAX, f32::MIN);
        for i in 0..4000 {
            let t = i as f32 * 0.618;
            let d = Vec3::new(libm::sinf(t), libm::cosf(t * 1.3), libm::sinf(t * 0.7 + 1.0)).normalize();
            let e = f.base_elevation_m(d, 1.0);
            lo = lo.min(e);
            hi = hi.max(e);
        }
        assert!(lo >= -r.elevation.amplitude_m && hi <= r.elevation.amplitude_m, "{lo}..{hi}");
        // Both basins and high ground occur.
        assert!(lo < -0.2 * r.elevation.amplitude_m && hi > 0.2 * r.elevation.amplitude_m, "{lo}..{hi}");
    }

    /// The ridges with their long octaves' basis interpolated from four
    /// lattice nodes around the column stay within a fifth of a cell of the
    /// ridges sampled at the column (in metres of a full mountain; 0.165 is
    /// the worst found), over 6,000 random columns of every kind of planet
    /// at LODs 0 to 6, anywhere between the nodes; and with the basis taken
    /// at the column itself they are the same bits. At least two octaves
    /// are taken from the nodes at LOD 0 (else the test would measure nothing).
    #[test]
    fn ridges_from_lattice_nodes_stay_within_a_fifth_of_a_cell() {
        use crate::geometry::PlanetGrid;
        use crate::hash::{HashStream, hash0};
        let mut rng = HashStream::new(hash0(21, 14));
        let (mut worst, mut interpolated) = (0.0f32, 0);
        for (i, kind) in PlanetKind::ALL.into_iter().enumerate() {
            let r = derive_recipe(kind, 40 + i as u64);
            let (f, grid) = (Fields::new(40 + i as u64, &r), PlanetGrid::new(&r));
            assert!(f.ridge_lattice_octaves(4.0 * grid.cell_m(0)) >= 2, "{kind:?}");
            for _ in 0..1200 {
                let lod = rng.index(7) as u8;
                let cell_m = grid.cell_m(lod);
                let node_m = 4.0 * cell_m;
                let k = f.ridge_lattice_octaves(node_m);
                let d = Vec3::new(rng.range_f32(-1.0, 1.0), rng.range_f32(-1.0, 1.0), rng.range_f32(-1.0, 1.0))
                    .normalize_or(Vec3::Z);
                let exact = f.ridges(d, cell_m);
                assert_eq!(f.ridges_from(d, cell_m, &f.ridge_basis(d, k)[..k]).to_bits(), exact.to_bits());
                // Four nodes a lattice spacing apart along two tangents, the column between.
                let random = Vec3::new(rng.range_f32(-1.0, 1.0), rng.range_f32(-1.0, 1.0), rng.range_f32(-1.0, 1.0));
                let u = random.reject_from_normalized(d).normalize_or(d.any_orthonormal_vector());
                let (u, v) = (u * (node_m / r.radius_m), d.cross(u) * (node_m / r.radius_m));
                let (s, t) = (rng.range_f32(0.0, 1.0), rng.range_f32(0.0, 1.0));
                let mut basis = vec![0.0; k];
                for (i, j, w) in [
                    (0.0, 0.0, (1.0 - s) * (1.0 - t)),
                    (1.0, 0.0, s * (1.0 - t)),
                    (0.0, 1.0, (1.0 - s) * t),
                    (1.0, 1.0, s * t),
                ] {
                    let node = f.ridge_basis((d + u * (i - s) + v * (j - t)).normalize(), k);
                    for o in 0..k {
                        basis[o] += w * node[o];
                    }
                }
                let miss = (f.ridges_from(d, cell_m, &basis) - exact).abs() * r.terrain.mountains.height_m;
                worst = worst.max(miss / cell_m);
                interpolated += usize::from(k > 0);
            }
        }
        assert!(worst <= 0.2, "worst miss {worst} cells");
        assert!(interpolated > 1000, "{interpolated}");
    }
}
