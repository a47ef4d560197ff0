//! Derives a full planet recipe from a planet's kind and seed: the generator
//! between `SystemPlan` and `PlanetPlan`. Each kind starts from a template
//! (palette, biomes, climate, sea) and the seed varies sizes, noise scales
//! and colours within ranges that always validate (a test checks thousands
//! of seeds). Numbers are rounded so a derived recipe reads well as JSON.

use super::kind::PlanetKind;
use super::palette::{
    AtmosphereRecipe, BiomeRecipe, MaterialRecipe, Pattern, ScatterKind, ScatterRecipe, SurfaceRules,
};
use super::planet::{
    BeltRecipe, CaveRecipe, ClimateRecipe, DepositRecipe, ElevationRecipe, HeightLayer, MeshingRecipe, MountainRecipe,
    NoiseRecipe, OverhangRecipe, PlanetRecipe, PlotRecipe, Polygonizer, RiverRecipe, SeaRecipe, ShellRecipe,
    TerrainRecipe,
};
use super::settlement::SettlementRecipe;
use crate::hash::{HashStream, hash0, salt, salt_str};

/// Material slots of every derived palette (custom recipes may lay theirs out freely).
mod slot {
    pub const BEDROCK: u32 = 0;
    pub const ROCK: u32 = 1;
    pub const SOIL: u32 = 2;
    pub const GROUND: u32 = 3;
    pub const SAND: u32 = 4;
    pub const SNOW: u32 = 5;
    pub const GROUND_DRY: u32 = 6;
    pub const SEA: u32 = 7;
    pub const ORE: u32 = 8;
    pub const CRYSTAL: u32 = 9;
    pub const GRAVEL: u32 = 10;
}

/// `x` rounded to a multiple of `step`.
fn nice(x: f32, step: f32) -> f32 {
    (x / step).round() * step
}

/// Draws a planet's derived values with rounding. Every field draws from its
/// own stream, keyed by (planet seed, field path): a field added, removed or
/// drawn in another order never moves another field's value.
struct Dice {
    seed: u64,
}

impl Dice {
    /// The stream of the field at `path` (`terrain.hills.height_m`).
    fn stream(&self, path: &str) -> HashStream {
        HashStream::new(hash0(self.seed, salt_str(path)))
    }

    fn range(&self, path: &str, lo: f32, hi: f32, step: f32) -> f32 {
        draw(&mut self.stream(path), lo, hi, step)
    }

    fn octaves(&self, path: &str, lo: u32, hi: u32) -> u32 {
        lo + self.stream(path).index((hi - lo + 1) as usize) as u32
    }

    fn noise(&self, path: &str, wavelength: [f32; 2], octaves: [u32; 2]) -> NoiseRecipe {
        let step = if wavelength[0] >= 100.0 { 10.0 } else { 0.5 };
        NoiseRecipe {
            wavelength_m: self.range(&format!("{path}.wavelength_m"), wavelength[0], wavelength[1], step),
            octaves: self.octaves(&format!("{path}.octaves"), octaves[0], octaves[1]),
            lacunarity: self.range(&format!("{path}.lacunarity"), 1.9, 2.2, 0.01),
            gain: self.range(&format!("{path}.gain"), 0.42, 0.55, 0.01),
        }
    }

    /// A colour varied by up to +-`spread` per channel, kept in 0..=1 (one
    /// stream for the colour: a shift, then one draw per channel).
    fn tint(&self, path: &str, rgb: [f32; 3], spread: f32) -> [f32; 3] {
        let mut s = self.stream(path);
        let shift = draw(&mut s, -spread, spread, 0.001);
        rgb.map(|c| nice((c * (1.0 + shift + draw(&mut s, -spread, spread, 0.001) * 0.5)).clamp(0.0, 1.0), 0.001))
    }
}

/// The next value of `stream` in `lo..=hi`, rounded to `step`.
fn draw(stream: &mut HashStream, lo: f32, hi: f32, step: f32) -> f32 {
    nice(stream.range_f32(lo, hi), step).clamp(lo, hi)
}

/// A palette entry of a template before tinting.
struct Swatch(&'static str, [f32; 3], [f32; 3], Pattern, f32, f32, f32);

fn palette(kind: PlanetKind) -> [Swatch; 11] {
    use Pattern::{Cells, Facets, Flow, Noise, Strata};
    match kind {
        PlanetKind::Rocky | PlanetKind::Ocean => [
            Swatch("bedrock", [0.18, 0.17, 0.16], [0.28, 0.26, 0.24], Strata, 3.0, 0.9, 0.0),
            Swatch("rock", [0.34, 0.32, 0.30], [0.46, 0.44, 0.41], Cells, 2.0, 0.85, 0.0),
            Swatch("soil", [0.25, 0.17, 0.10], [0.33, 0.24, 0.15], Noise, 1.0, 0.95, 0.0),
            Swatch("grass", [0.13, 0.30, 0.07], [0.22, 0.40, 0.10], Noise, 0.8, 0.9, 0.0),
            Swatch("sand", [0.62, 0.55, 0.38], [0.72, 0.66, 0.48], Noise, 0.5, 0.95, 0.0),
            Swatch("snow", [0.86, 0.88, 0.92], [0.95, 0.96, 0.98], Noise, 2.0, 0.6, 0.0),
            Swatch("dry grass", [0.38, 0.36, 0.14], [0.48, 0.43, 0.20], Noise, 0.8, 0.9, 0.0),
            Swatch("water", [0.03, 0.14, 0.24], [0.06, 0.26, 0.36], Flow, 4.0, 0.05, 0.0),
            Swatch("iron ore", [0.45, 0.22, 0.12], [0.62, 0.36, 0.18], Facets, 0.6, 0.6, 0.0),
            Swatch("crystal", [0.30, 0.70, 0.80], [0.60, 0.90, 0.95], Facets, 0.4, 0.2, 0.6),
            Swatch("gravel", [0.30, 0.28, 0.25], [0.40, 0.37, 0.33], Cells, 0.3, 0.9, 0.0),
        ],
        PlanetKind::Desert => [
            Swatch("bedrock", [0.30, 0.16, 0.10], [0.42, 0.24, 0.14], Strata, 2.0, 0.9, 0.0),
            Swatch("red rock", [0.52, 0.26, 0.14], [0.66, 0.38, 0.22], Strata, 1.5, 0.85, 0.0),
            Swatch("hardpan", [0.55, 0.40, 0.26], [0.64, 0.50, 0.34], Cells, 1.0, 0.95, 0.0),
            Swatch("dune sand", [0.76, 0.58, 0.34], [0.84, 0.68, 0.44], Noise, 0.6, 0.95, 0.0),
            Swatch("pale sand", [0.82, 0.74, 0.56], [0.90, 0.84, 0.66], Noise, 0.5, 0.95, 0.0),
            Swatch("salt", [0.88, 0.86, 0.82], [0.95, 0.94, 0.90], Cells, 1.5, 0.7, 0.0),
            Swatch("scrub", [0.42, 0.38, 0.20], [0.52, 0.46, 0.26], Noise, 0.8, 0.9, 0.0),
            Swatch("brine", [0.20, 0.30, 0.28], [0.30, 0.42, 0.38], Flow, 4.0, 0.1, 0.0),
            Swatch("copper ore", [0.20, 0.45, 0.38], [0.32, 0.60, 0.50], Facets, 0.6, 0.6, 0.0),
            Swatch("amber", [0.85, 0.55, 0.10], [0.95, 0.75, 0.30], Facets, 0.4, 0.2, 0.5),
            Swatch("gravel", [0.45, 0.32, 0.22], [0.56, 0.42, 0.30], Cells, 0.3, 0.9, 0.0),
        ],
        PlanetKind::Ice => [
            Swatch("bedrock", [0.16, 0.18, 0.22], [0.24, 0.27, 0.32], Strata, 3.0, 0.9, 0.0),
            Swatch("blue rock", [0.28, 0.32, 0.38], [0.38, 0.43, 0.50], Cells, 2.0, 0.8, 0.0),
            Swatch("frozen soil", [0.30, 0.30, 0.32], [0.40, 0.40, 0.42], Noise, 1.0, 0.9, 0.0),
            Swatch("snow", [0.88, 0.91, 0.96], [0.96, 0.97, 1.00], Noise, 2.0, 0.6, 0.0),
            Swatch("grey sand", [0.52, 0.52, 0.52], [0.62, 0.62, 0.60], Noise, 0.5, 0.95, 0.0),
            Swatch("glacier ice", [0.62, 0.80, 0.92], [0.78, 0.90, 0.98], Flow, 3.0, 0.2, 0.0),
            Swatch("lichen", [0.36, 0.42, 0.30], [0.46, 0.52, 0.36], Noise, 0.8, 0.9, 0.0),
            Swatch("sea ice", [0.70, 0.82, 0.90], [0.84, 0.92, 0.97], Cells, 6.0, 0.3, 0.0),
            Swatch("cobalt ore", [0.16, 0.22, 0.55], [0.26, 0.34, 0.70], Facets, 0.6, 0.5, 0.0),
            Swatch("frost crystal", [0.70, 0.90, 1.00], [0.90, 0.97, 1.00], Facets, 0.4, 0.1, 0.8),
            Swatch("gravel", [0.34, 0.35, 0.38], [0.44, 0.45, 0.48], Cells, 0.3, 0.9, 0.0),
        ],
        PlanetKind::Lava => [
            Swatch("bedrock", [0.07, 0.06, 0.06], [0.14, 0.11, 0.10], Strata, 2.0, 0.9, 0.0),
            Swatch("basalt", [0.11, 0.10, 0.10], [0.20, 0.18, 0.17], Cells, 1.5, 0.8, 0.0),
            Swatch("ash", [0.24, 0.22, 0.21], [0.32, 0.30, 0.28], Noise, 1.0, 0.95, 0.0),
            Swatch("cinder", [0.20, 0.12, 0.10], [0.30, 0.18, 0.14], Noise, 0.8, 0.95, 0.0),
            Swatch("obsidian sand", [0.10, 0.09, 0.11], [0.18, 0.16, 0.20], Noise, 0.5, 0.5, 0.0),
            Swatch("sulfur", [0.72, 0.66, 0.18], [0.84, 0.78, 0.30], Cells, 1.5, 0.8, 0.0),
            Swatch("scorched", [0.28, 0.16, 0.10], [0.38, 0.22, 0.14], Noise, 0.8, 0.9, 0.0),
            Swatch("lava", [0.90, 0.30, 0.04], [1.00, 0.62, 0.12], Flow, 4.0, 0.6, 3.0),
            Swatch("gold ore", [0.70, 0.55, 0.15], [0.85, 0.70, 0.25], Facets, 0.6, 0.4, 0.0),
            Swatch("fire crystal", [0.95, 0.35, 0.20], [1.00, 0.60, 0.35], Facets, 0.4, 0.2, 1.5),
            Swatch("gravel", [0.16, 0.14, 0.13], [0.24, 0.21, 0.19], Cells, 0.3, 0.9, 0.0),
        ],
    }
}

/// A biome of a template: name, temperature window, moisture window, surface and subsurface slots, scatter density.
struct BiomeRow(&'static str, [f32; 2], [f32; 2], u32, u32, f32);

fn biomes(kind: PlanetKind) -> Vec<BiomeRow> {
    use slot::{GRAVEL, GROUND, GROUND_DRY, ROCK, SAND, SNOW, SOIL};
    match kind {
        PlanetKind::Rocky | PlanetKind::Ocean => vec![
            BiomeRow("ice cap", [-200.0, -8.0], [0.0, 1.0], SNOW, ROCK, 0.0),
            BiomeRow("tundra", [-8.0, 2.0], [0.0, 1.0], GROUND_DRY, SOIL, 0.3),
            BiomeRow("steppe", [2.0, 22.0], [0.0, 0.35], GROUND_DRY, SOIL, 0.5),
            BiomeRow("forest", [2.0, 22.0], [0.35, 1.0], GROUND, SOIL, 1.5),
            BiomeRow("desert", [22.0, 2000.0], [0.0, 0.25], SAND, SAND, 0.1),
            BiomeRow("savanna", [22.0, 2000.0], [0.25, 0.55], GROUND_DRY, SOIL, 0.7),
            BiomeRow("jungle", [22.0, 2000.0], [0.55, 1.0], GROUND, SOIL, 2.0),
        ],
        PlanetKind::Desert => vec![
            BiomeRow("salt flats", [-200.0, 2000.0], [0.75, 1.0], SNOW, GROUND_DRY, 0.05),
            BiomeRow("dunes", [30.0, 2000.0], [0.0, 0.75], GROUND, SAND, 0.05),
            BiomeRow("badlands", [-200.0, 30.0], [0.0, 0.45], SOIL, ROCK, 0.2),
            BiomeRow("scrubland", [-200.0, 30.0], [0.45, 0.75], GROUND_DRY, SOIL, 0.6),
        ],
        PlanetKind::Ice => vec![
            BiomeRow("glacier", [-200.0, -25.0], [0.0, 1.0], SNOW, SNOW, 0.0),
            BiomeRow("snowfield", [-25.0, 2000.0], [0.3, 1.0], GROUND, SOIL, 0.2),
            BiomeRow("frost desert", [-25.0, 2000.0], [0.0, 0.3], SAND, GRAVEL, 0.2),
        ],
        PlanetKind::Lava => vec![
            BiomeRow("ash plains", [-200.0, 2000.0], [0.0, 0.4], SOIL, ROCK, 0.2),
            BiomeRow("cinder fields", [-200.0, 2000.0], [0.4, 0.7], GROUND, SOIL, 0.3),
            BiomeRow("sulfur vents", [-200.0, 2000.0], [0.7, 1.0], SNOW, GROUND_DRY, 0.1),
        ],
    }
}

/// Derives the full recipe of a planet of `kind` from its seed.
#[must_use]
pub fn derive_recipe(kind: PlanetKind, seed: u64) -> PlanetRecipe {
    derive_recipe_with_radius(kind, seed, None)
}

/// Derives the recipe for a given radius (a recipe's override), so that the
/// values that scale with the radius (elevation, noise sizes, gravity, sky)
/// follow it. Every other value is the same as `derive_recipe` gives.
#[must_use]
pub fn derive_recipe_with_radius(kind: PlanetKind, seed: u64, radius_m: Option<f32>) -> PlanetRecipe {
    let d = Dice { seed: hash0(seed, salt(b"recipe")) };
    let derived_radius = d.range("radius_m", 1500.0, 8000.0, 10.0);
    let radius_m = radius_m.unwrap_or(derived_radius);
    // Several hundred metres of elevation plus mountain ranges, but never more
    // than a fifth of the radius in all (small planets stay round).
    let ranges_share = d.range("elevation.ranges_share", 0.3, 0.6, 0.01);
    let amplitude_m = ((radius_m * 0.09).clamp(250.0, 700.0) * d.range("elevation.amplitude_m", 0.8, 1.2, 0.01))
        .min(radius_m * 0.2 / (1.0 + ranges_share));
    let amplitude_m = nice(amplitude_m, 10.0);
    let ranges_m = nice(amplitude_m * ranges_share, 10.0);
    let elevation = ElevationRecipe {
        amplitude_m,
        continents: d.noise("elevation.continents", [radius_m * 0.6, radius_m * 1.2], [4, 6]),
        bias: match kind {
            PlanetKind::Ocean => d.range("elevation.bias", -0.3, -0.18, 0.01),
            PlanetKind::Rocky => d.range("elevation.bias", -0.1, 0.1, 0.01),
            PlanetKind::Lava => d.range("elevation.bias", -0.2, 0.0, 0.01),
            PlanetKind::Desert | PlanetKind::Ice => d.range("elevation.bias", -0.05, 0.15, 0.01),
        },
        highland_exponent: d.range("elevation.highland_exponent", 1.0, 1.6, 0.05),
        ranges: d.noise("elevation.ranges", [radius_m * 0.15, radius_m * 0.3], [5, 7]),
        ranges_m,
        belts: BeltRecipe {
            threshold: d.range("elevation.belts.threshold", 0.42, 0.55, 0.01),
            spacing: d.range("elevation.belts.spacing", 0.8, 1.2, 0.05),
            radius_m: [
                nice(radius_m * d.range("elevation.belts.radius_m[0]", 0.04, 0.05, 0.005), 10.0),
                nice(radius_m * d.range("elevation.belts.radius_m[1]", 0.07, 0.09, 0.005), 10.0),
            ],
            peak_share: [d.range("elevation.belts.peak_share[0]", 0.4, 0.55, 0.01), 1.0],
            aspect: [d.range("elevation.belts.aspect[0]", 0.4, 0.55, 0.01), 0.9],
        },
    };
    let sea = SeaRecipe {
        enabled: kind != PlanetKind::Desert,
        level_m: match kind {
            PlanetKind::Ocean => nice(amplitude_m * d.range("sea.level_m", 0.05, 0.15, 0.01), 1.0),
            PlanetKind::Lava => nice(-amplitude_m * d.range("sea.level_m", 0.2, 0.35, 0.01), 1.0),
            _ => nice(-amplitude_m * d.range("sea.level_m", 0.0, 0.1, 0.01), 1.0),
        },
        material: slot::SEA,
    };
    let shell = ShellRecipe { thickness_m: 128, depth_below_surface_m: 48.0 };
    let rugged = match kind {
        PlanetKind::Desert | PlanetKind::Lava => 1.25,
        _ => 1.0,
    };
    let terrain = TerrainRecipe {
        hills: HeightLayer {
            noise: d.noise("terrain.hills.noise", [250.0, 500.0], [4, 5]),
            height_m: d.range("terrain.hills.height_m", 8.0, 14.0, 0.5),
        },
        detail: HeightLayer {
            noise: d.noise("terrain.detail.noise", [12.0, 24.0], [3, 4]),
            height_m: d.range("terrain.detail.height_m", 1.5, 3.0, 0.5),
        },
        mountains: MountainRecipe {
            ridges: d.noise("terrain.mountains.ridges", [120.0, 260.0], [5, 6]),
            height_m: nice(d.range("terrain.mountains.height_m", 30.0, 40.0, 1.0) * rugged, 1.0).min(44.0),
        },
        rivers: RiverRecipe {
            // Water on most planets; lava runs down to a lava sea, brine to a
            // desert's salt lakes, meltwater under an ice world's sky.
            enabled: true,
            spring_spacing_m: nice(
                radius_m
                    * match kind {
                        PlanetKind::Rocky | PlanetKind::Ocean => {
                            d.range("terrain.rivers.spring_spacing_m", 0.1, 0.14, 0.005)
                        }
                        _ => d.range("terrain.rivers.spring_spacing_m", 0.18, 0.25, 0.005),
                    },
                10.0,
            )
            .max(100.0),
            spring_min_m: nice(
                amplitude_m
                    * match kind {
                        PlanetKind::Ocean => d.range("terrain.rivers.spring_min_m", 0.04, 0.08, 0.01),
                        _ => d.range("terrain.rivers.spring_min_m", 0.15, 0.3, 0.01),
                    },
                1.0,
            ),
            width_m: [
                d.range("terrain.rivers.width_m[0]", 3.0, 4.0, 0.5),
                d.range("terrain.rivers.width_m[1]", 12.0, 18.0, 0.5),
            ],
            depth_m: [
                d.range("terrain.rivers.depth_m[0]", 1.0, 1.5, 0.1),
                d.range("terrain.rivers.depth_m[1]", 3.0, 5.0, 0.5),
            ],
            valley_m: d.range("terrain.rivers.valley_m", 24.0, 48.0, 1.0),
            min_length_m: nice(radius_m * d.range("terrain.rivers.min_length_m", 0.06, 0.1, 0.005), 10.0),
            bed_material: slot::GRAVEL,
        },
        overhangs: OverhangRecipe {
            noise: d.noise("terrain.overhangs.noise", [40.0, 80.0], [3, 4]),
            amplitude_m: nice(d.range("terrain.overhangs.amplitude_m", 9.0, 12.0, 0.5) * rugged, 0.5).min(14.0),
            warp: d.noise("terrain.overhangs.warp", [60.0, 120.0], [1, 2]),
            warp_m: d.range("terrain.overhangs.warp_m", 6.0, 14.0, 0.5),
            fade_height_m: d.range("terrain.overhangs.fade_height_m", 24.0, 40.0, 1.0),
        },
    };
    let caves = CaveRecipe {
        enabled: true,
        worms: d.noise("caves.worms", [50.0, 90.0], [2, 3]),
        worm_threshold: d.range("caves.worm_threshold", 0.03, 0.06, 0.005),
        min_depth_m: d.range("caves.min_depth_m", 4.0, 10.0, 1.0),
        mouth_cell_m: d.range("caves.mouth_cell_m", 200.0, 400.0, 10.0),
        mouth_probability: d.range("caves.mouth_probability", 0.25, 0.5, 0.01),
        mouth_radius_m: [
            d.range("caves.mouth_radius_m[0]", 4.0, 6.0, 0.5),
            d.range("caves.mouth_radius_m[1]", 8.0, 12.0, 0.5),
        ],
    };
    let materials: Vec<MaterialRecipe> = palette(kind)
        .into_iter()
        .enumerate()
        .map(|(i, Swatch(name, color, accent, pattern, pattern_m, roughness, emission))| MaterialRecipe {
            name: name.to_owned(),
            color: d.tint(&format!("materials[{i}].color"), color, 0.12),
            accent: d.tint(&format!("materials[{i}].accent"), accent, 0.12),
            pattern,
            pattern_m,
            roughness,
            emission,
        })
        .collect();
    let resources = vec![
        DepositRecipe {
            name: materials[slot::ORE as usize].name.clone(),
            material: slot::ORE,
            cell_m: d.range("resources[0].cell_m", 40.0, 64.0, 1.0),
            probability: d.range("resources[0].probability", 0.2, 0.4, 0.01),
            radius_m: [1.5, d.range("resources[0].radius_m[1]", 3.0, 5.0, 0.5)],
            depth_m: [0.0, d.range("resources[0].depth_m[1]", 20.0, 40.0, 1.0)],
        },
        DepositRecipe {
            name: materials[slot::CRYSTAL as usize].name.clone(),
            material: slot::CRYSTAL,
            cell_m: d.range("resources[1].cell_m", 80.0, 128.0, 1.0),
            probability: d.range("resources[1].probability", 0.15, 0.3, 0.01),
            radius_m: [1.0, d.range("resources[1].radius_m[1]", 2.0, 3.5, 0.5)],
            depth_m: [4.0, d.range("resources[1].depth_m[1]", 30.0, 45.0, 1.0)],
        },
    ];
    let (equator_c, pole_c, moisture_bias) = match kind {
        PlanetKind::Rocky => (
            d.range("climate.equator_c", 24.0, 32.0, 0.5),
            d.range("climate.pole_c", -35.0, -15.0, 0.5),
            d.range("climate.moisture_bias", -0.1, 0.1, 0.01),
        ),
        PlanetKind::Ocean => (
            d.range("climate.equator_c", 28.0, 36.0, 0.5),
            d.range("climate.pole_c", -10.0, 5.0, 0.5),
            d.range("climate.moisture_bias", 0.2, 0.4, 0.01),
        ),
        PlanetKind::Desert => (
            d.range("climate.equator_c", 40.0, 55.0, 0.5),
            d.range("climate.pole_c", 5.0, 20.0, 0.5),
            d.range("climate.moisture_bias", -0.6, -0.4, 0.01),
        ),
        PlanetKind::Ice => (
            d.range("climate.equator_c", -15.0, -5.0, 0.5),
            d.range("climate.pole_c", -70.0, -45.0, 0.5),
            d.range("climate.moisture_bias", 0.0, 0.2, 0.01),
        ),
        PlanetKind::Lava => (
            d.range("climate.equator_c", 300.0, 500.0, 5.0),
            d.range("climate.pole_c", 150.0, 250.0, 5.0),
            d.range("climate.moisture_bias", -0.2, 0.2, 0.01),
        ),
    };
    let climate = ClimateRecipe {
        equator_c,
        pole_c,
        lapse_c_per_km: d.range("climate.lapse_c_per_km", 5.0, 8.0, 0.5),
        temperature_noise: d.noise("climate.temperature_noise", [radius_m * 0.3, radius_m * 0.6], [3, 4]),
        temperature_noise_c: d.range("climate.temperature_noise_c", 3.0, 8.0, 0.5),
        moisture: d.noise("climate.moisture", [radius_m * 0.2, radius_m * 0.5], [3, 5]),
        moisture_bias,
    };
    let biome_list: Vec<BiomeRecipe> = biomes(kind)
        .into_iter()
        .enumerate()
        .map(|(i, BiomeRow(name, temperature_c, moisture, surface, subsurface, scatter))| BiomeRecipe {
            name: name.to_owned(),
            temperature_c,
            moisture,
            surface,
            subsurface,
            surface_depth_m: d.range(&format!("biomes[{i}].surface_depth_m"), 1.0, 3.0, 0.5),
            scatter_density: scatter,
        })
        .collect();
    let surface = SurfaceRules {
        rock: slot::ROCK,
        rock_slope_deg: d.range("surface.rock_slope_deg", 38.0, 48.0, 1.0),
        bedrock: slot::BEDROCK,
        beach: slot::SAND,
        beach_height_m: d.range("surface.beach_height_m", 2.0, 6.0, 0.5),
        beach_length_m: d.range("surface.beach_length_m", 40.0, 90.0, 1.0),
        snow: slot::SNOW,
        snow_line_m: match kind {
            PlanetKind::Ice => d.range("surface.snow_line_m", -200.0, 0.0, 10.0),
            PlanetKind::Lava | PlanetKind::Desert => 8000.0,
            _ => nice(amplitude_m * d.range("surface.snow_line_m", 0.7, 0.95, 0.01), 10.0),
        },
        strata_m: d.range("surface.strata_m", 1.5, 4.0, 0.5),
    };
    let scatter = scatter_rules(kind, &d, &biome_list, &materials);
    let atmosphere = AtmosphereRecipe {
        color: d.tint(
            "atmosphere.color",
            match kind {
                PlanetKind::Rocky => [0.35, 0.55, 1.0],
                PlanetKind::Ocean => [0.45, 0.70, 1.0],
                PlanetKind::Desert => [0.95, 0.70, 0.45],
                PlanetKind::Ice => [0.70, 0.85, 1.0],
                PlanetKind::Lava => [0.90, 0.35, 0.20],
            },
            0.06,
        ),
        density: d.range("atmosphere.density", 0.3, 0.7, 0.05),
        height_m: nice((radius_m * d.range("atmosphere.height_m", 0.12, 0.2, 0.01)).max(150.0), 10.0),
    };
    PlanetRecipe {
        radius_m,
        gravity_mps2: nice((radius_m / 4000.0 * 9.81).clamp(3.0, 14.0), 0.01),
        shell,
        elevation,
        sea,
        terrain,
        caves,
        resources,
        climate,
        materials,
        biomes: biome_list,
        surface,
        scatter,
        atmosphere,
        meshing: MeshingRecipe {
            polygonizer_by_lod: vec![
                Polygonizer::DualContouring,
                Polygonizer::DualContouring,
                Polygonizer::DualContouring,
                Polygonizer::SurfaceNets,
            ],
            cube_resources_max_lod: 1,
        },
        plots: PlotRecipe {
            max_slope_deg: d.range("plots.max_slope_deg", 10.0, 13.0, 0.5),
            radius_m: d.range("plots.radius_m", 40.0, 60.0, 1.0),
            spacing_m: nice(radius_m * d.range("plots.spacing_m", 0.2, 0.3, 0.01), 10.0).max(100.0),
            min_height_m: d.range("plots.min_height_m", 2.0, 4.0, 0.5),
            water_m: d.range("plots.water_m", 150.0, 300.0, 10.0),
        },
        settlements: settlements(&d),
    }
}

/// Settlements: the reference's rules, each planet's towns a little
/// different in size, density, skyline and route.
fn settlements(d: &Dice) -> SettlementRecipe {
    let flat = d.range("settlements.type_shares.flat", 0.35, 0.6, 0.05);
    let curved = d.range("settlements.type_shares.curved", 0.2, 0.4, 0.05);
    SettlementRecipe {
        cell_m: d.range("settlements.cell_m", 800.0, 1000.0, 50.0),
        chance: d.range("settlements.chance", 0.9, 1.0, 0.05),
        radius_m: d.range("settlements.radius_m", 100.0, 140.0, 5.0),
        density: d.range("settlements.density", 0.4, 0.5, 0.01),
        height_gain: d.range("settlements.height_gain", 0.3, 0.7, 0.05),
        zone_wavelength_m: d.range("settlements.zone_wavelength_m", 120.0, 220.0, 10.0),
        type_shares: [flat, curved, (1.0 - flat - curved).max(0.1)],
        route_amplitude_m: d.range("settlements.route_amplitude_m", 12.0, 24.0, 1.0),
        route_waves: d.range("settlements.route_waves", 1.0, 2.0, 0.25),
        street_material: slot::GRAVEL,
        ..SettlementRecipe::default()
    }
}

/// The biomes (by index) whose names are listed.
fn biomes_named(list: &[BiomeRecipe], names: &[&str]) -> Vec<u32> {
    (0..list.len() as u32).filter(|&i| names.contains(&list[i as usize].name.as_str())).collect()
}

fn scatter_rules(
    kind: PlanetKind,
    d: &Dice,
    biomes: &[BiomeRecipe],
    materials: &[MaterialRecipe],
) -> Vec<ScatterRecipe> {
    let rule = |name: &str,
                kind: ScatterKind,
                biomes: Vec<u32>,
                per_100m2: f32,
                spacing: f32,
                size: [f32; 2],
                color: [f32; 3]| {
        ScatterRecipe {
            name: name.to_owned(),
            kind,
            biomes,
            per_100m2: d.range(&format!("scatter.{name}.per_100m2"), per_100m2 * 0.7, per_100m2 * 1.3, 0.01),
            min_spacing_m: spacing,
            size_m: [
                size[0],
                d.range(&format!("scatter.{name}.size_m[1]"), size[1] * 0.8, size[1] * 1.2, 0.1).max(size[0]),
            ],
            max_slope_deg: match kind {
                ScatterKind::Rock => 60.0,
                ScatterKind::Crystal => 70.0,
                _ => 32.0,
            },
            color: d.tint(&format!("scatter.{name}.color"), color, 0.1),
        }
    };
    let rock = materials[slot::ROCK as usize].color;
    let crystal = materials[slot::CRYSTAL as usize].color;
    match kind {
        PlanetKind::Rocky | PlanetKind::Ocean => vec![
            rule(
                "conifer",
                ScatterKind::Tree,
                biomes_named(biomes, &["tundra", "forest"]),
                1.0,
                3.0,
                [4.0, 14.0],
                [0.08, 0.22, 0.08],
            ),
            rule(
                "broadleaf",
                ScatterKind::Tree,
                biomes_named(biomes, &["forest", "jungle", "savanna"]),
                0.8,
                4.0,
                [5.0, 16.0],
                [0.15, 0.35, 0.08],
            ),
            rule(
                "shrub",
                ScatterKind::Bush,
                biomes_named(biomes, &["steppe", "forest", "savanna", "jungle"]),
                3.0,
                1.0,
                [0.5, 2.0],
                [0.18, 0.32, 0.10],
            ),
            rule(
                "grass",
                ScatterKind::Grass,
                biomes_named(biomes, &["steppe", "forest", "savanna", "jungle", "tundra"]),
                40.0,
                0.3,
                [0.2, 0.8],
                [0.22, 0.42, 0.12],
            ),
            rule("boulder", ScatterKind::Rock, Vec::new(), 0.6, 2.0, [0.3, 3.0], rock),
            rule("crystal", ScatterKind::Crystal, Vec::new(), 0.05, 8.0, [0.5, 2.5], crystal),
        ],
        PlanetKind::Desert => vec![
            rule(
                "cactus",
                ScatterKind::Tree,
                biomes_named(biomes, &["scrubland", "dunes"]),
                0.3,
                4.0,
                [1.5, 5.0],
                [0.25, 0.40, 0.18],
            ),
            rule(
                "dry bush",
                ScatterKind::Bush,
                biomes_named(biomes, &["scrubland", "badlands"]),
                1.5,
                1.5,
                [0.4, 1.5],
                [0.45, 0.40, 0.22],
            ),
            rule("boulder", ScatterKind::Rock, Vec::new(), 1.0, 2.0, [0.3, 4.0], rock),
            rule("amber spire", ScatterKind::Crystal, Vec::new(), 0.08, 8.0, [0.5, 3.0], crystal),
        ],
        PlanetKind::Ice => vec![
            rule(
                "frost pine",
                ScatterKind::Tree,
                biomes_named(biomes, &["snowfield"]),
                0.3,
                4.0,
                [3.0, 10.0],
                [0.20, 0.30, 0.28],
            ),
            rule(
                "lichen clump",
                ScatterKind::Bush,
                biomes_named(biomes, &["snowfield", "frost desert"]),
                1.0,
                1.0,
                [0.3, 1.0],
                [0.40, 0.46, 0.32],
            ),
            rule("ice boulder", ScatterKind::Rock, Vec::new(), 0.8, 2.0, [0.3, 3.5], rock),
            rule("frost crystal", ScatterKind::Crystal, Vec::new(), 0.1, 6.0, [0.5, 3.0], crystal),
        ],
        PlanetKind::Lava => vec![
            rule(
                "ash tree",
                ScatterKind::Tree,
                biomes_named(biomes, &["cinder fields"]),
                0.15,
                5.0,
                [2.0, 7.0],
                [0.12, 0.10, 0.09],
            ),
            rule("basalt column", ScatterKind::Rock, Vec::new(), 1.2, 2.0, [0.4, 5.0], rock),
            rule("fire crystal", ScatterKind::Crystal, Vec::new(), 0.12, 6.0, [0.5, 3.0], crystal),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipe::check::{Checker, Validate};

    #[test]
    fn derived_recipes_always_validate() {
        for kind in PlanetKind::ALL {
            for seed in 0..400u64 {
                let seed = crate::hash::mix64(seed);
                let recipe = derive_recipe(kind, seed);
                let mut c = Checker::new("");
                recipe.validate(&mut c);
                let errors = c.into_errors();
                assert!(errors.is_empty(), "{kind} seed {seed}: {errors:?}");
            }
        }
    }

    #[test]
    fn an_overridden_radius_scales_what_depends_on_it() {
        for kind in PlanetKind::ALL {
            for seed in 0..100u64 {
                for radius in [500.0, 900.0, 2000.0, 12_000.0, 50_000.0] {
                    let recipe = derive_recipe_with_radius(kind, seed, Some(radius));
                    assert_eq!(recipe.radius_m, radius);
                    let mut c = Checker::new("");
                    recipe.validate(&mut c);
                    let errors = c.into_errors();
                    assert!(errors.is_empty(), "{kind} seed {seed} radius {radius}: {errors:?}");
                }
            }
        }
        let a = derive_recipe(PlanetKind::Rocky, 5);
        let b = derive_recipe_with_radius(PlanetKind::Rocky, 5, Some(a.radius_m));
        assert_eq!(a, b);
    }

    #[test]
    fn seeds_and_kinds_vary_the_recipe() {
        let a = derive_recipe(PlanetKind::Rocky, 1);
        assert_eq!(a, derive_recipe(PlanetKind::Rocky, 1));
        assert_ne!(a.radius_m, derive_recipe(PlanetKind::Rocky, 2).radius_m);
        let desert = derive_recipe(PlanetKind::Desert, 1);
        assert!(!desert.sea.enabled);
        assert_ne!(a.materials[3].name, desert.materials[3].name);
    }

    /// Each field comes from its own stream, keyed by (seed, its path): what
    /// it is does not depend on the draws made before it, so adding a field
    /// moves no other.
    #[test]
    fn every_field_draws_from_its_own_stream() {
        for seed in [0u64, 7, 20_261_130, u64::MAX] {
            let recipe = derive_recipe(PlanetKind::Rocky, seed);
            let d = Dice { seed: hash0(seed, salt(b"recipe")) };
            // Drawn in any order, even after other fields, each is the recipe's.
            assert_eq!(d.range("caves.worm_threshold", 0.03, 0.06, 0.005), recipe.caves.worm_threshold);
            assert_eq!(d.range("radius_m", 1500.0, 8000.0, 10.0), recipe.radius_m);
            assert_eq!(d.range("terrain.hills.height_m", 8.0, 14.0, 0.5), recipe.terrain.hills.height_m);
            assert_eq!(d.noise("terrain.hills.noise", [250.0, 500.0], [4, 5]), recipe.terrain.hills.noise);
            let material = &recipe.materials[3];
            let swatch = &palette(PlanetKind::Rocky)[3];
            assert_eq!(d.tint("materials[3].color", swatch.1, 0.12), material.color);
            let forest = recipe.biomes.iter().position(|b| b.name == "forest").unwrap();
            assert_eq!(
                d.range(&format!("biomes[{forest}].surface_depth_m"), 1.0, 3.0, 0.5),
                recipe.biomes[forest].surface_depth_m
            );
        }
        // Distinct paths, distinct streams: no two fields share their draws.
        let d = Dice { seed: 1 };
        let a: Vec<f32> = (0..64).map(|i| d.range(&format!("f{i}"), 0.0, 1.0, 1e-6)).collect();
        let mut b = a.clone();
        b.sort_by(f32::total_cmp);
        b.dedup();
        assert_eq!(a.len(), b.len(), "two field paths drew the same value");
    }
}
