//! Climate, biomes and surface materials of a column: temperature from
//! latitude, altitude and regional noise; moisture from noise; the biome whose
//! climate window holds them; and the two materials (and their blend) that
//! cover the ground there: the biome's, rock on steep ground, sand near the
//! sea, snow up high and in the cold.

use glam::Vec3;

use super::fields::smoothstep;
use crate::recipe::PlanetRecipe;

/// What covers the ground of a column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ground {
    /// Index of the biome.
    pub biome: u8,
    /// Primary and secondary material of the top layer.
    pub surface: [u8; 2],
    /// Share of the secondary material, 0..=65535.
    pub blend: u16,
    /// Material under the top layer.
    pub subsurface: u8,
    /// Thickness of the top layer, metres.
    pub surface_depth_m: f32,
}

/// Temperature in °C at direction `d` (y is the planet's axis), `altitude_m`
/// above sea level, with regional noise `noise` in [-1, 1].
#[must_use]
pub fn temperature_c(r: &PlanetRecipe, d: Vec3, altitude_m: f32, noise: f32) -> f32 {
    let lat = d.y * d.y;
    let c = &r.climate;
    c.equator_c + (c.pole_c - c.equator_c) * lat - c.lapse_c_per_km * altitude_m.max(0.0) * 0.001
        + noise * c.temperature_noise_c
}

/// Moisture in [0, 1] from noise in [-1, 1].
#[must_use]
pub fn moisture(r: &PlanetRecipe, noise: f32) -> f32 {
    (0.5 + 0.7 * noise + r.climate.moisture_bias).clamp(0.0, 1.0)
}

/// The biome whose window holds (temperature, moisture), or else the one whose
/// window is nearest (temperature scaled so 50 °C weighs like the full moisture range).
#[must_use]
pub fn biome(r: &PlanetRecipe, temperature: f32, moisture: f32) -> usize {
    let mut best = (0usize, f32::MAX);
    for (i, b) in r.biomes.iter().enumerate() {
        let dt = (b.temperature_c[0] - temperature).max(temperature - b.temperature_c[1]).max(0.0) / 50.0;
        let dm = (b.moisture[0] - moisture).max(moisture - b.moisture[1]).max(0.0);
        let d = dt * dt + dm * dm;
        if d < best.1 {
            best = (i, d);
            if d == 0.0 {
                break;
            }
        }
    }
    best.0
}

/// Mixes material `m` in with weight `w` in [0, 1], keeping the two strongest.
pub(crate) fn mix(ground: &mut ([u8; 2], f32), m: u8, w: f32) {
    if w <= 0.0 {
        return;
    }
    let (mats, t) = ground;
    if w >= 0.5 {
        // `m` becomes primary; the old primary is what it blends towards.
        *ground = ([m, mats[0]], 1.0 - w);
    } else if w > *t || mats[0] == mats[1] {
        *ground = ([mats[0], m], w);
    }
}

/// The ground of a column.
#[must_use]
pub fn ground(
    r: &PlanetRecipe,
    temperature: f32,
    moisture: f32,
    altitude_m: f32,
    slope_deg: f32,
    coast_m: f32,
) -> Ground {
    let bi = biome(r, temperature, moisture);
    let b = &r.biomes[bi];
    let s = &r.surface;
    let own = b.surface as u8;
    let mut g = ([own, own], 0.0f32);
    // Snow above the snow line and in the cold.
    let snow =
        smoothstep(s.snow_line_m - 40.0, s.snow_line_m + 40.0, altitude_m).max(smoothstep(-1.0, -6.0, temperature));
    mix(&mut g, s.snow as u8, snow);
    // Beach near and under the sea: within the beach's height above it and
    // its length from it (the plan's coast distance).
    if r.sea.enabled {
        let low = 1.0 - smoothstep(s.beach_height_m * 0.5, s.beach_height_m * 1.5, altitude_m);
        let near = 1.0 - smoothstep(s.beach_length_m * 0.6, s.beach_length_m, coast_m);
        mix(&mut g, s.beach as u8, low * near);
    }
    // Bare rock on steep ground, over everything else.
    mix(&mut g, s.rock as u8, smoothstep(s.rock_slope_deg - 6.0, s.rock_slope_deg + 6.0, slope_deg));
    Ground {
        biome: bi as u8,
        surface: g.0,
        blend: (g.1.clamp(0.0, 1.0) * 65535.0) as u16,
        subsurface: b.subsurface as u8,
        surface_depth_m: b.surface_depth_m,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipe::{PlanetKind, derive_recipe};

    #[test]
    fn rules_pick_the_expected_materials() {
        let r = derive_recipe(PlanetKind::Rocky, 4);
        let s = r.surface;
        // Temperate, moist, flat, inland: the forest's grass.
        let g = ground(&r, 15.0, 0.8, 50.0, 5.0, 500.0);
        assert_eq!(r.biomes[usize::from(g.biome)].name, "forest");
        assert_eq!(g.surface[0], r.biomes[usize::from(g.biome)].surface as u8);
        // A cliff is rock.
        assert_eq!(ground(&r, 15.0, 0.8, 50.0, 70.0, 500.0).surface[0], s.rock as u8);
        // A beach is sand.
        assert_eq!(ground(&r, 15.0, 0.8, 0.5, 2.0, 0.0).surface[0], s.beach as u8);
        // Low ground far from the sea (a lake shore inland) is no beach.
        assert_ne!(ground(&r, 15.0, 0.8, 0.5, 2.0, s.beach_length_m + 10.0).surface[0], s.beach as u8);
        // A frozen summit is snow.
        assert_eq!(ground(&r, -20.0, 0.5, 900.0, 10.0, 500.0).surface[0], s.snow as u8);
        // Outside every window: the nearest biome.
        assert_eq!(r.biomes[biome(&r, 25.0, 0.1)].name, "desert");
    }
}
