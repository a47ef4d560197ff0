//! The planet recipe: every number a planet's terrain needs, from its radius
//! to its cave worms, and the allowed range of each. A `PlanetPlan` carries one,
//! derived from the planet's seed (`derive.rs`) with a system recipe's overrides
//! merged on top. The palette half (materials, biomes, scatter, sky) is in
//! `palette.rs`.

use serde::{Deserialize, Serialize};

use super::check::{Checker, Validate};
use super::palette::{AtmosphereRecipe, BiomeRecipe, MaterialRecipe, ScatterRecipe, SurfaceRules};
use crate::noise::{Fractal, FractalParams};

/// A fractal noise layer sized in metres.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoiseRecipe {
    /// Length of the largest features (the first octave's wavelength), metres.
    pub wavelength_m: f32,
    /// Number of octaves, 1..=16.
    pub octaves: u32,
    /// Frequency ratio between octaves.
    pub lacunarity: f32,
    /// Amplitude ratio between octaves.
    pub gain: f32,
}

impl NoiseRecipe {
    /// The fractal shape of this layer.
    #[must_use]
    pub fn params(&self) -> FractalParams {
        FractalParams { octaves: self.octaves, lacunarity: self.lacunarity, gain: self.gain }
    }

    /// A sampler for this layer; sample it at `position_m * self.frequency()`.
    #[must_use]
    pub fn fractal(&self, seed: u32) -> Fractal {
        Fractal::new(seed, self.params())
    }

    /// Cycles per metre of the first octave.
    #[must_use]
    pub fn frequency(&self) -> f32 {
        1.0 / self.wavelength_m
    }
}

impl Validate for NoiseRecipe {
    fn validate(&self, c: &mut Checker) {
        c.f32_in("wavelength_m", self.wavelength_m, 0.25..=1_000_000.0);
        c.u32_in("octaves", self.octaves, 1..=16);
        c.f32_in("lacunarity", self.lacunarity, 1.1..=4.0);
        c.f32_in("gain", self.gain, 0.05..=0.95);
    }
}

/// The voxel shell: the band of voxels that rides on the elevated surface
/// (DESIGN.md, Geometry). 3D detail, caves and overhangs live inside it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShellRecipe {
    /// Height of the shell in metres; a multiple of 32 (one LOD-0 region), 64..=512.
    pub thickness_m: u32,
    /// How far below the elevated surface the shell starts, metres.
    pub depth_below_surface_m: f32,
}

impl Validate for ShellRecipe {
    fn validate(&self, c: &mut Checker) {
        c.u32_in("thickness_m", self.thickness_m, 64..=512);
        if !self.thickness_m.is_multiple_of(32) {
            c.fail("thickness_m", self.thickness_m, "must be a multiple of 32 (the height of one LOD-0 region)");
        }
        c.f32_in("depth_below_surface_m", self.depth_below_surface_m, 8.0..=self.thickness_m as f32 - 8.0);
    }
}

/// Elevation: the smooth, cheap offset of the sphere's radius that makes ocean
/// basins and high ground, far larger than the voxel shell.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElevationRecipe {
    /// The largest offset from the base radius, metres.
    pub amplitude_m: f32,
    /// The continents: low-frequency noise over the sphere.
    pub continents: NoiseRecipe,
    /// Shifts the continent noise: below 0 more basin, above 0 more high ground.
    pub bias: f32,
    /// Exponent applied to high ground (1 = as is, above 1 = flatter lowlands, peakier highlands).
    pub highland_exponent: f32,
    /// The tectonic noise: its ridges, on high ground, mark where mountain
    /// belts run (the plan's belt mask).
    pub ranges: NoiseRecipe,
    /// Highest peak a belt's stamp raises, metres.
    pub ranges_m: f32,
    /// The mountain belts: mask, skeleton and stamps (`layout::belts`).
    pub belts: BeltRecipe,
}

/// Mountain belts, as the landscape generator makes them: where the ridged
/// tectonic noise on high ground passes `threshold`, the mask is thinned to a
/// centreline and stamps are placed along it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeltRecipe {
    /// Tectonic value (ridged noise times the highland share) above which
    /// the ground belongs to a belt, 0..=1.
    pub threshold: f32,
    /// Least distance between stamps along a belt, in radii of the earlier stamp.
    pub spacing: f32,
    /// A stamp's radius along its long axis, metres.
    pub radius_m: [f32; 2],
    /// A stamp's peak, as a share of `ranges_m` (times the mask's strength).
    pub peak_share: [f32; 2],
    /// A stamp's width over its length.
    pub aspect: [f32; 2],
}

impl Validate for BeltRecipe {
    fn validate(&self, c: &mut Checker) {
        c.f32_in("threshold", self.threshold, 0.0..=1.0);
        c.f32_in("spacing", self.spacing, 0.25..=4.0);
        c.span("radius_m", self.radius_m, 20.0..=5000.0);
        c.span("peak_share", self.peak_share, 0.0..=1.0);
        c.span("aspect", self.aspect, 0.2..=1.0);
    }
}

impl ElevationRecipe {
    /// The most the elevated surface can rise above the base radius.
    #[must_use]
    pub fn max_rise_m(&self) -> f32 {
        self.amplitude_m + self.ranges_m
    }
}

impl Validate for ElevationRecipe {
    fn validate(&self, c: &mut Checker) {
        c.f32_in("amplitude_m", self.amplitude_m, 0.0..=4000.0);
        c.nested("continents", &self.continents);
        c.f32_in("bias", self.bias, -1.0..=1.0);
        c.f32_in("highland_exponent", self.highland_exponent, 0.25..=4.0);
        c.nested("ranges", &self.ranges);
        c.f32_in("ranges_m", self.ranges_m, 0.0..=3000.0);
        c.nested("belts", &self.belts);
    }
}

/// The sea: a liquid surface at a fixed radius, drawn by its own polygonizer.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeaRecipe {
    /// Whether the planet has a sea at all.
    pub enabled: bool,
    /// Sea level relative to the base radius, metres.
    pub level_m: f32,
    /// Material of the sea surface (water, lava, ice): an index into `materials`.
    pub material: u32,
}

impl SeaRecipe {
    fn validate_with(&self, c: &mut Checker, materials: usize, amplitude_m: f32) {
        c.f32_in("level_m", self.level_m, -amplitude_m..=amplitude_m);
        c.index("material", self.material, materials, "materials");
    }
}

/// A 2D height layer of the terrain pass, added on top of the elevated surface.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeightLayer {
    /// The layer's noise.
    pub noise: NoiseRecipe,
    /// Largest height the layer adds, metres.
    pub height_m: f32,
}

impl Validate for HeightLayer {
    fn validate(&self, c: &mut Checker) {
        c.nested("noise", &self.noise);
        c.f32_in("height_m", self.height_m, 0.0..=512.0);
    }
}

/// Mountain detail: ridged noise over the belts' stamps (their footprint is its mask).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MountainRecipe {
    /// Ridged noise that shapes the peaks.
    pub ridges: NoiseRecipe,
    /// Largest height the peaks add, metres.
    pub height_m: f32,
}

impl Validate for MountainRecipe {
    fn validate(&self, c: &mut Checker) {
        c.nested("ridges", &self.ridges);
        c.f32_in("height_m", self.height_m, 0.0..=512.0);
    }
}

/// Rivers, as the plan routes them (`layout::rivers`): springs on high
/// ground, routed downhill to the sea or a lake, each with a channel, a
/// valley and a water surface of its own.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiverRecipe {
    /// Whether the plan routes rivers.
    pub enabled: bool,
    /// One spring may rise in each square of this side, metres.
    pub spring_spacing_m: f32,
    /// Springs rise only where the uncarved ground stands this far above the sea, metres.
    pub spring_min_m: f32,
    /// Channel width at a spring and at the largest flow, metres.
    pub width_m: [f32; 2],
    /// Channel depth under the water surface at a spring and at the largest flow, metres.
    pub depth_m: [f32; 2],
    /// How far the valley reaches beyond the channel on each side, metres.
    pub valley_m: f32,
    /// Rivers shorter than this are not kept, metres.
    pub min_length_m: f32,
    /// The material of river beds: an index into `materials`.
    pub bed_material: u32,
}

impl Validate for RiverRecipe {
    fn validate(&self, c: &mut Checker) {
        c.f32_in("spring_spacing_m", self.spring_spacing_m, 100.0..=20_000.0);
        c.f32_in("spring_min_m", self.spring_min_m, 0.0..=2000.0);
        c.span("width_m", self.width_m, 1.0..=64.0);
        c.span("depth_m", self.depth_m, 0.5..=24.0);
        c.f32_in("valley_m", self.valley_m, 0.0..=256.0);
        c.f32_in("min_length_m", self.min_length_m, 0.0..=20_000.0);
    }
}

/// Buildable plots (`layout::plots`): flat, dry, reachable ground, near water
/// where there is some. The settlements stand on them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlotRecipe {
    /// Steepest plan slope anywhere on a plot, degrees.
    pub max_slope_deg: f32,
    /// Radius of a plot's flat ground, metres.
    pub radius_m: f32,
    /// At most one plot in each square of this side, metres.
    pub spacing_m: f32,
    /// Least height of a plot above the sea, metres.
    pub min_height_m: f32,
    /// Plots this near water (sea, lake or river) are preferred, metres.
    pub water_m: f32,
}

impl Validate for PlotRecipe {
    fn validate(&self, c: &mut Checker) {
        c.f32_in("max_slope_deg", self.max_slope_deg, 0.5..=30.0);
        c.f32_in("radius_m", self.radius_m, 10.0..=500.0);
        c.f32_in("spacing_m", self.spacing_m, 100.0..=20_000.0);
        c.f32_in("min_height_m", self.min_height_m, 0.0..=200.0);
        c.f32_in("water_m", self.water_m, 0.0..=5000.0);
    }
}

/// 3D shapes on top of the 2D height: overhangs, arches, pinched rock.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OverhangRecipe {
    /// The 3D density noise.
    pub noise: NoiseRecipe,
    /// How far (metres) the 3D noise may move the surface up or down.
    pub amplitude_m: f32,
    /// Domain warp ("turbulence") applied before sampling the noise.
    pub warp: NoiseRecipe,
    /// Largest displacement of the warp, metres.
    pub warp_m: f32,
    /// Height above the 2D surface over which the 3D noise fades out, metres:
    /// no floating islands above it.
    pub fade_height_m: f32,
}

impl Validate for OverhangRecipe {
    fn validate(&self, c: &mut Checker) {
        c.nested("noise", &self.noise);
        c.f32_in("amplitude_m", self.amplitude_m, 0.0..=128.0);
        c.nested("warp", &self.warp);
        c.f32_in("warp_m", self.warp_m, 0.0..=64.0);
        c.f32_in("fade_height_m", self.fade_height_m, 1.0..=256.0);
    }
}

/// The terrain pass: 2D layers over the elevated surface, then 3D shapes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainRecipe {
    /// Rolling hills everywhere.
    pub hills: HeightLayer,
    /// Small-scale roughness everywhere (rubble, bumps).
    pub detail: HeightLayer,
    /// Mountain ranges.
    pub mountains: MountainRecipe,
    /// River valleys.
    pub rivers: RiverRecipe,
    /// 3D overhangs.
    pub overhangs: OverhangRecipe,
}

impl TerrainRecipe {
    /// The most the 2D and 3D layers can raise the ground above the elevated surface.
    #[must_use]
    pub fn max_rise_m(&self) -> f32 {
        self.hills.height_m + self.detail.height_m + self.mountains.height_m + self.overhangs.amplitude_m
    }

    /// The most they can lower it.
    #[must_use]
    pub fn max_fall_m(&self) -> f32 {
        self.hills.height_m + self.detail.height_m + self.overhangs.amplitude_m + self.rivers.depth_m[1]
    }
}

impl Validate for TerrainRecipe {
    fn validate(&self, c: &mut Checker) {
        c.nested("hills", &self.hills);
        c.nested("detail", &self.detail);
        c.nested("mountains", &self.mountains);
        c.nested("rivers", &self.rivers);
        c.nested("overhangs", &self.overhangs);
    }
}

/// Worm caves from thresholded noise, and cave mouths as open spheres.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaveRecipe {
    /// Whether caves are carved.
    pub enabled: bool,
    /// Tunnels run where two noise fields are both near zero.
    pub worms: NoiseRecipe,
    /// How near zero (a fraction of the noise range): the tunnels' thickness, 0.005..=0.3.
    pub worm_threshold: f32,
    /// Tunnels start this far below the surface, metres.
    pub min_depth_m: f32,
    /// Cave mouths: one chance per cell of this size on the surface, metres.
    pub mouth_cell_m: f32,
    /// Probability that a cell holds a mouth.
    pub mouth_probability: f32,
    /// Radius range of a mouth's open sphere, metres.
    pub mouth_radius_m: [f32; 2],
}

impl Validate for CaveRecipe {
    fn validate(&self, c: &mut Checker) {
        c.nested("worms", &self.worms);
        c.f32_in("worm_threshold", self.worm_threshold, 0.005..=0.3);
        c.f32_in("min_depth_m", self.min_depth_m, 0.0..=256.0);
        c.f32_in("mouth_cell_m", self.mouth_cell_m, 16.0..=4096.0);
        c.f32_in("mouth_probability", self.mouth_probability, 0.0..=1.0);
        c.span("mouth_radius_m", self.mouth_radius_m, 1.0..=64.0);
    }
}

/// Resource deposits: blobs of their own material on a cell grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DepositRecipe {
    /// Display name.
    pub name: String,
    /// The deposit's material: an index into `materials`.
    pub material: u32,
    /// One chance per cube cell of this size, metres.
    pub cell_m: f32,
    /// Probability that a cell holds a deposit.
    pub probability: f32,
    /// Radius range, metres.
    pub radius_m: [f32; 2],
    /// Depth range below the surface, metres (0 = at the surface).
    pub depth_m: [f32; 2],
}

impl DepositRecipe {
    fn validate_with(&self, c: &mut Checker, materials: usize) {
        c.name("name", &self.name);
        c.index("material", self.material, materials, "materials");
        c.f32_in("cell_m", self.cell_m, 8.0..=1024.0);
        c.f32_in("probability", self.probability, 0.0..=1.0);
        c.span("radius_m", self.radius_m, 0.5..=32.0);
        c.span("depth_m", self.depth_m, 0.0..=512.0);
        if self.radius_m[1] * 2.0 > self.cell_m {
            c.fail("radius_m[1]", self.radius_m[1], format!("must be at most half of cell_m ({})", self.cell_m));
        }
    }
}

/// Climate: temperature from latitude and altitude, moisture from noise.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClimateRecipe {
    /// Temperature at the equator at sea level, °C.
    pub equator_c: f32,
    /// Temperature at the poles at sea level, °C.
    pub pole_c: f32,
    /// Cooling with height, °C per km.
    pub lapse_c_per_km: f32,
    /// Regional temperature variation.
    pub temperature_noise: NoiseRecipe,
    /// Largest regional variation, °C.
    pub temperature_noise_c: f32,
    /// Moisture field (0 = arid, 1 = wet).
    pub moisture: NoiseRecipe,
    /// Shifts moisture everywhere, -1..=1.
    pub moisture_bias: f32,
}

impl Validate for ClimateRecipe {
    fn validate(&self, c: &mut Checker) {
        c.f32_in("equator_c", self.equator_c, -150.0..=1500.0);
        c.f32_in("pole_c", self.pole_c, -150.0..=1500.0);
        c.f32_in("lapse_c_per_km", self.lapse_c_per_km, 0.0..=50.0);
        c.nested("temperature_noise", &self.temperature_noise);
        c.f32_in("temperature_noise_c", self.temperature_noise_c, 0.0..=100.0);
        c.nested("moisture", &self.moisture);
        c.f32_in("moisture_bias", self.moisture_bias, -1.0..=1.0);
    }
}

/// Which polygonizer meshes the terrain at each LOD (issue 4 builds them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Polygonizer {
    /// Dual contouring: sharp rock edges.
    DualContouring,
    /// Surface nets: smooth and fast.
    SurfaceNets,
}

/// Meshing choices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshingRecipe {
    /// The polygonizer for LOD 0, 1, ...; the last entry serves every coarser LOD.
    pub polygonizer_by_lod: Vec<Polygonizer>,
    /// Resource voxels get block faces (the cube polygonizer) up to this LOD.
    pub cube_resources_max_lod: u32,
}

impl Validate for MeshingRecipe {
    fn validate(&self, c: &mut Checker) {
        c.len("polygonizer_by_lod", self.polygonizer_by_lod.len(), 1..=16);
        c.u32_in("cube_resources_max_lod", self.cube_resources_max_lod, 0..=4);
    }
}

/// Everything one planet's terrain, look and life need.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanetRecipe {
    /// Base radius of the sphere, metres.
    pub radius_m: f32,
    /// Surface gravity, m/s².
    pub gravity_mps2: f32,
    /// The voxel shell.
    pub shell: ShellRecipe,
    /// Large-scale elevation of the sphere.
    pub elevation: ElevationRecipe,
    /// The sea.
    pub sea: SeaRecipe,
    /// The 2D and 3D terrain layers.
    pub terrain: TerrainRecipe,
    /// Caves and cave mouths.
    pub caves: CaveRecipe,
    /// Resource deposits.
    pub resources: Vec<DepositRecipe>,
    /// Temperature and moisture.
    pub climate: ClimateRecipe,
    /// The material palette; voxels refer to materials by index.
    pub materials: Vec<MaterialRecipe>,
    /// Biomes, chosen by climate.
    pub biomes: Vec<BiomeRecipe>,
    /// Which material covers which ground.
    pub surface: SurfaceRules,
    /// Scattered objects.
    pub scatter: Vec<ScatterRecipe>,
    /// The sky.
    pub atmosphere: AtmosphereRecipe,
    /// Polygonizer choices.
    pub meshing: MeshingRecipe,
    /// Buildable plots.
    pub plots: PlotRecipe,
    /// Settlements on the plots.
    pub settlements: super::settlement::SettlementRecipe,
}

/// Most materials a palette may hold (a voxel stores material ids as `u8`).
pub const MAX_MATERIALS: usize = 64;

impl Validate for PlanetRecipe {
    fn validate(&self, c: &mut Checker) {
        let materials = self.materials.len();
        c.f32_in("radius_m", self.radius_m, 500.0..=50_000.0);
        c.f32_in("gravity_mps2", self.gravity_mps2, 0.5..=30.0);
        c.nested("shell", &self.shell);
        c.nested("elevation", &self.elevation);
        // Sea level and elevation are limited by the radius: the sphere never turns inside out.
        // (Only against a valid radius: a bad radius is reported once, above.)
        let radius_ok = (500.0..=50_000.0).contains(&self.radius_m);
        if radius_ok && self.elevation.max_rise_m() > self.radius_m * 0.25 {
            c.fail(
                "elevation",
                format!("amplitude_m + ranges_m = {}", self.elevation.max_rise_m()),
                format!("must be at most a quarter of radius_m ({})", self.radius_m * 0.25),
            );
        }
        c.scope("sea", |c| self.sea.validate_with(c, materials, self.elevation.amplitude_m));
        c.nested("terrain", &self.terrain);
        c.scope("terrain", |c| {
            c.scope("rivers", |c| c.index("bed_material", self.terrain.rivers.bed_material, materials, "materials"));
        });
        // The 2D and 3D layers must fit in the voxel shell around the elevated surface.
        let above = self.shell.thickness_m as f32 - self.shell.depth_below_surface_m;
        if self.terrain.max_rise_m() > above - 4.0 {
            c.fail(
                "terrain",
                format!("a rise of up to {} m", self.terrain.max_rise_m()),
                format!(
                    "hills + detail + mountains + overhangs must stay at least 4 m inside the {above} m of shell above the surface"
                ),
            );
        }
        if self.terrain.max_fall_m() > self.shell.depth_below_surface_m - 4.0 {
            c.fail(
                "terrain",
                format!("a fall of up to {} m", self.terrain.max_fall_m()),
                format!(
                    "hills + detail + overhangs + river depth must stay at least 4 m inside the {} m of shell below the surface",
                    self.shell.depth_below_surface_m
                ),
            );
        }
        c.nested("caves", &self.caves);
        c.len("resources", self.resources.len(), 0..=16);
        for (i, d) in self.resources.iter().enumerate() {
            c.scope(&format!("resources[{i}]"), |c| d.validate_with(c, materials));
        }
        c.nested("climate", &self.climate);
        c.list("materials", &self.materials, 1..=MAX_MATERIALS);
        c.len("biomes", self.biomes.len(), 1..=32);
        for (i, b) in self.biomes.iter().enumerate() {
            c.scope(&format!("biomes[{i}]"), |c| b.validate_with(c, materials));
        }
        c.scope("surface", |c| self.surface.validate_with(c, materials));
        c.len("scatter", self.scatter.len(), 0..=32);
        for (i, s) in self.scatter.iter().enumerate() {
            c.scope(&format!("scatter[{i}]"), |c| s.validate_with(c, self.biomes.len()));
        }
        c.nested("atmosphere", &self.atmosphere);
        c.nested("meshing", &self.meshing);
        c.nested("plots", &self.plots);
        c.nested("settlements", &self.settlements);
        c.scope("settlements", |c| {
            c.index("street_material", self.settlements.street_material, materials, "materials");
        });
    }
}
