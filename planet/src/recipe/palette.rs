//! The look and life half of a planet recipe: the material palette (from which
//! textures are generated at load time; there are no art assets), the biome
//! table chosen by climate, the rules that put rock on cliffs and sand on
//! beaches, the scatter rules and the atmosphere.

use serde::{Deserialize, Serialize};

use super::check::{Checker, Validate};

/// How a material's procedural texture is patterned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// Soft fbm blotches (soil, grass, sand).
    Noise,
    /// Cellular cracks and pebbles (rock, dry mud).
    Cells,
    /// Horizontal bands (sedimentary rock).
    Strata,
    /// Sharp-edged facets (crystal, ore).
    Facets,
    /// Flowing, warped streaks (water, lava).
    Flow,
}

/// One entry of the palette.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialRecipe {
    /// Display name.
    pub name: String,
    /// Base colour, linear RGB in 0..=1.
    pub color: [f32; 3],
    /// Second colour the pattern blends towards.
    pub accent: [f32; 3],
    /// Texture pattern.
    pub pattern: Pattern,
    /// Size of the pattern's features, metres.
    pub pattern_m: f32,
    /// Roughness for lighting, 0 (glossy) ..= 1 (matte).
    pub roughness: f32,
    /// Light the material gives off (lava, crystals), 0..=4.
    pub emission: f32,
}

impl Validate for MaterialRecipe {
    fn validate(&self, c: &mut Checker) {
        c.name("name", &self.name);
        c.color("color", self.color);
        c.color("accent", self.accent);
        c.f32_in("pattern_m", self.pattern_m, 0.05..=64.0);
        c.f32_in("roughness", self.roughness, 0.0..=1.0);
        c.f32_in("emission", self.emission, 0.0..=4.0);
    }
}

/// A biome: a window of the climate with its ground materials and plant density.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BiomeRecipe {
    /// Display name.
    pub name: String,
    /// Temperature window, °C.
    pub temperature_c: [f32; 2],
    /// Moisture window, 0..=1.
    pub moisture: [f32; 2],
    /// Material of the top layer.
    pub surface: u32,
    /// Material under the top layer.
    pub subsurface: u32,
    /// Thickness of the top layer, metres.
    pub surface_depth_m: f32,
    /// Multiplier on every scatter rule's density here, 0..=4.
    pub scatter_density: f32,
}

impl BiomeRecipe {
    pub(crate) fn validate_with(&self, c: &mut Checker, materials: usize) {
        c.name("name", &self.name);
        c.span("temperature_c", self.temperature_c, -200.0..=2000.0);
        c.span("moisture", self.moisture, 0.0..=1.0);
        c.index("surface", self.surface, materials, "materials");
        c.index("subsurface", self.subsurface, materials, "materials");
        c.f32_in("surface_depth_m", self.surface_depth_m, 0.0..=32.0);
        c.f32_in("scatter_density", self.scatter_density, 0.0..=4.0);
    }
}

/// Materials chosen by the shape of the ground rather than the biome.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurfaceRules {
    /// Exposed rock on steep ground.
    pub rock: u32,
    /// Slope above which the ground is bare rock, degrees.
    pub rock_slope_deg: f32,
    /// Deep rock, below every biome's layers.
    pub bedrock: u32,
    /// Beach material near sea level.
    pub beach: u32,
    /// Height above sea level below which there is beach, metres.
    pub beach_height_m: f32,
    /// Farthest a beach reaches inland from the sea, metres (the plan's coast distance).
    pub beach_length_m: f32,
    /// Snow on high ground.
    pub snow: u32,
    /// Height above sea level at which snow starts, metres (it also follows cold).
    pub snow_line_m: f32,
    /// Horizontal bands of the bedrock, metres (0 = none).
    pub strata_m: f32,
}

impl SurfaceRules {
    pub(crate) fn validate_with(&self, c: &mut Checker, materials: usize) {
        c.index("rock", self.rock, materials, "materials");
        c.f32_in("rock_slope_deg", self.rock_slope_deg, 0.0..=90.0);
        c.index("bedrock", self.bedrock, materials, "materials");
        c.index("beach", self.beach, materials, "materials");
        c.f32_in("beach_height_m", self.beach_height_m, 0.0..=64.0);
        c.f32_in("beach_length_m", self.beach_length_m, 0.0..=1000.0);
        c.index("snow", self.snow, materials, "materials");
        c.f32_in("snow_line_m", self.snow_line_m, -4000.0..=8000.0);
        c.f32_in("strata_m", self.strata_m, 0.0..=64.0);
    }
}

/// Kinds of scattered object (their models are generated at load time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScatterKind {
    /// Trunk and crown.
    Tree,
    /// Low round shrub.
    Bush,
    /// Grass tufts, near the camera only.
    Grass,
    /// Boulders and pebbles.
    Rock,
    /// Crystal spires.
    Crystal,
}

/// A scatter rule: which objects grow where, how dense and how large.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScatterRecipe {
    /// Display name.
    pub name: String,
    /// What it places.
    pub kind: ScatterKind,
    /// The biomes it grows in (indices into `biomes`); empty = all.
    pub biomes: Vec<u32>,
    /// Objects per 100 m² at full density.
    pub per_100m2: f32,
    /// Least distance between two objects of this rule, metres.
    pub min_spacing_m: f32,
    /// Size range, metres.
    pub size_m: [f32; 2],
    /// Steepest ground it grows on, degrees.
    pub max_slope_deg: f32,
    /// Colour, linear RGB.
    pub color: [f32; 3],
}

impl ScatterRecipe {
    pub(crate) fn validate_with(&self, c: &mut Checker, biomes: usize) {
        c.name("name", &self.name);
        c.len("biomes", self.biomes.len(), 0..=32);
        for (i, &b) in self.biomes.iter().enumerate() {
            c.index(&format!("biomes[{i}]"), b, biomes, "biomes");
        }
        c.f32_in("per_100m2", self.per_100m2, 0.0..=100.0);
        c.f32_in("min_spacing_m", self.min_spacing_m, 0.2..=500.0);
        c.span("size_m", self.size_m, 0.05..=60.0);
        c.f32_in("max_slope_deg", self.max_slope_deg, 0.0..=90.0);
        c.color("color", self.color);
    }
}

/// The sky seen from the ground and from space.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AtmosphereRecipe {
    /// Scattering colour, linear RGB.
    pub color: [f32; 3],
    /// Thickness of the haze, 0 (none) ..= 1 (thick).
    pub density: f32,
    /// Height of the atmosphere above the base radius, metres.
    pub height_m: f32,
}

impl Validate for AtmosphereRecipe {
    fn validate(&self, c: &mut Checker) {
        c.color("color", self.color);
        c.f32_in("density", self.density, 0.0..=1.0);
        c.f32_in("height_m", self.height_m, 100.0..=50_000.0);
    }
}
