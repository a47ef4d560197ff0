//! A planet's species: one or two per land biome, each with a body plan
//! (gait), size, walking speed, herd size, the part of the day it is about
//! and two colours. Derived from the planet's seed and recipe (its biomes),
//! each biome from its own hash stream, so a biome added to a recipe never
//! changes another biome's animals.
//!
//! Like the planets' spin, animals live on the world without making it:
//! they are kept out of the terrain's signature, so saves and goldens name
//! the same ground.

use serde::{Deserialize, Serialize};

use crate::hash::{HashStream, hash1, salt};
use crate::recipe::PlanetRecipe;

/// A body plan and how it moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gait {
    /// Four legs, trotting in diagonal pairs.
    Quadruped,
    /// Two legs, a leaning body and a tail.
    Biped,
    /// Two big hind legs: it moves in hops.
    Hopper,
    /// Wings: flies between grazing stops, lands to feed.
    Flyer,
}

impl Gait {
    /// Every gait, in model order (the renderer makes one model each).
    pub const ALL: [Gait; 4] = [Gait::Quadruped, Gait::Biped, Gait::Hopper, Gait::Flyer];

    /// Its name in listings and dumps.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Gait::Quadruped => "quadruped",
            Gait::Biped => "biped",
            Gait::Hopper => "hopper",
            Gait::Flyer => "flyer",
        }
    }

    /// Its index in [`Gait::ALL`].
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// When a species is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Activity {
    /// From a little before sunrise to a little after sunset.
    Day,
    /// From a little after sunset to a little before sunrise.
    Night,
}

/// One species.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Species {
    /// A made-up name, for listings.
    pub name: String,
    /// The biome it lives in (index into the recipe's biomes).
    pub biome: u8,
    /// Its body plan.
    pub gait: Gait,
    /// Body length, metres (the model is scaled to it).
    pub size_m: f32,
    /// Walking speed, metres a second.
    pub speed_m_s: f32,
    /// Least and most animals in a herd.
    pub herd: [u8; 2],
    /// When it is about; the rest of the day it lies still.
    pub activity: Activity,
    /// Linear RGB of the back and of the belly and legs.
    pub colours: [[f32; 3]; 2],
}

/// The chance that a herd cell of a biome holds a herd, at a biome
/// `scatter_density` of 1 (the density scales it, up to [`MAX_HERD_CHANCE`]).
pub const HERD_CHANCE: f32 = 0.45;
/// The most a herd cell's chance can be.
pub const MAX_HERD_CHANCE: f32 = 0.8;

/// The species of a planet: for each biome with anything growing (a
/// `scatter_density` over zero), one species, and a second one in half of them.
#[must_use]
pub fn species_of(seed: u64, recipe: &PlanetRecipe) -> Vec<Species> {
    let mut out = Vec::new();
    for (b, biome) in recipe.biomes.iter().enumerate() {
        if biome.scatter_density <= 0.0 {
            continue;
        }
        let mut s = HashStream::new(hash1(seed, salt(b"species"), b as i64));
        let count = if s.unit_f32() < 0.5 { 2 } else { 1 };
        for _ in 0..count {
            out.push(one_species(&mut s, b as u8));
        }
    }
    out
}

/// One species drawn from `s`.
fn one_species(s: &mut HashStream, biome: u8) -> Species {
    let gait = match s.unit_f32() {
        x if x < 0.45 => Gait::Quadruped,
        x if x < 0.65 => Gait::Biped,
        x if x < 0.85 => Gait::Hopper,
        _ => Gait::Flyer,
    };
    let (size, herd, pace) = match gait {
        Gait::Quadruped => ([0.8, 2.6], [3, 9], 0.9),
        Gait::Biped => ([0.6, 1.8], [2, 6], 1.1),
        Gait::Hopper => ([0.35, 0.9], [4, 10], 1.6),
        Gait::Flyer => ([0.4, 1.1], [3, 7], 2.2),
    };
    let size_m = round(s.range_f32(size[0], size[1]), 0.05);
    // Walking speed grows with the square root of size (a pendulum's stride).
    let speed_m_s = round(pace * libm::sqrtf(size_m) * s.range_f32(0.8, 1.2), 0.05);
    let least = herd[0] + s.index(3) as u8;
    let most = (least + 2 + s.index((herd[1] - herd[0]) as usize) as u8).min(herd[1]).max(least);
    let activity = if s.unit_f32() < 0.7 { Activity::Day } else { Activity::Night };
    let hue = s.unit_f32();
    let back = earthy(hue, s.range_f32(0.25, 0.6), s.range_f32(0.3, 0.65));
    let belly = earthy(hue + s.range_f32(-0.08, 0.08), s.range_f32(0.1, 0.35), s.range_f32(0.5, 0.85));
    Species { name: name(s), biome, gait, size_m, speed_m_s, herd: [least, most], activity, colours: [back, belly] }
}

fn round(x: f32, step: f32) -> f32 {
    (x / step).round() * step
}

/// A muted colour: hue in turns, saturation and value 0..=1, to linear RGB.
fn earthy(hue: f32, saturation: f32, value: f32) -> [f32; 3] {
    let h = (hue - libm::floorf(hue)) * 6.0;
    let c = value * saturation;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = value - c;
    // Stored linear, as the renderer's colours are: value is perceptual.
    [(r + m) * (r + m), (g + m) * (g + m), (b + m) * (b + m)]
}

/// Two or three syllables.
fn name(s: &mut HashStream) -> String {
    const ONSETS: [&str; 12] = ["b", "d", "g", "k", "l", "m", "n", "r", "s", "t", "v", "z"];
    const NUCLEI: [&str; 6] = ["a", "e", "i", "o", "u", "oo"];
    let syllables = 2 + s.index(2);
    let mut out = String::new();
    for _ in 0..syllables {
        out.push_str(ONSETS[s.index(ONSETS.len())]);
        out.push_str(NUCLEI[s.index(NUCLEI.len())]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlannedSystem;

    #[test]
    fn every_planet_with_life_has_species_in_range() {
        for seed in 0..40u64 {
            let system = PlannedSystem::build(&crate::SystemRecipe::from_seed(seed)).unwrap();
            for plan in &system.planets {
                let species = species_of(plan.seed, &plan.recipe);
                for sp in &species {
                    assert!((usize::from(sp.biome)) < plan.recipe.biomes.len());
                    assert!(plan.recipe.biomes[usize::from(sp.biome)].scatter_density > 0.0);
                    assert!((0.3..=2.7).contains(&sp.size_m), "{sp:?}");
                    assert!(sp.speed_m_s > 0.2 && sp.speed_m_s < 5.0, "{sp:?}");
                    assert!(sp.herd[0] >= 2 && sp.herd[0] <= sp.herd[1] && sp.herd[1] <= 10, "{sp:?}");
                    assert!(sp.colours.iter().flatten().all(|c| (0.0..=1.0).contains(c)), "{sp:?}");
                }
                assert_eq!(species, species_of(plan.seed, &plan.recipe));
            }
        }
        let home = PlannedSystem::default_system();
        let gaits: std::collections::BTreeSet<Gait> =
            home.planets.iter().flat_map(|p| species_of(p.seed, &p.recipe)).map(|s| s.gait).collect();
        assert!(gaits.len() >= 3, "the default system has {gaits:?}");
    }
}
