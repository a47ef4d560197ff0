//! The first generator: system seed -> `SystemPlan`, the sun and the planets'
//! seeds, kinds, names and positions. Planets are static, spaced 140-260 km
//! apart along their orbits so a flight between neighbours takes a minute or
//! two at the flight client's space speeds.

use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::hash::{HashStream, hash0, hash1, index, salt};
use crate::recipe::{PlanetKind, RecipeError, SystemRecipe};

/// The sun, at the origin of system space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SunPlan {
    /// Radius, metres.
    pub radius_m: f64,
    /// Light colour, linear RGB.
    pub color: [f32; 3],
}

/// One planet's place in the system, before its recipe is derived.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanetSlot {
    /// 0 = nearest the sun.
    pub index: u32,
    /// Display name.
    pub name: String,
    /// The seed its recipe and terrain derive from.
    pub seed: u64,
    /// Its kind.
    pub kind: PlanetKind,
    /// Distance from the sun, metres.
    pub orbit_m: f64,
    /// Centre in system space, metres.
    pub position_m: DVec3,
}

/// The sun and planets of a system.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemPlan {
    /// The system seed.
    pub seed: u64,
    /// Display name.
    pub name: String,
    /// The sun.
    pub sun: SunPlan,
    /// The planets, nearest the sun first.
    pub planets: Vec<PlanetSlot>,
}

const SYLLABLES_START: [&str; 16] =
    ["Ka", "Ve", "Tor", "Xi", "Mo", "Ul", "Ze", "Ra", "Sy", "Bel", "Oth", "Nu", "Qua", "Ith", "Dra", "Vo"];
const SYLLABLES_MID: [&str; 12] = ["ra", "lo", "the", "ni", "va", "ru", "so", "ke", "ma", "li", "", ""];
const SYLLABLES_END: [&str; 12] = ["n", "s", "x", "ra", "on", "us", "is", "a", "or", "e", "th", "ia"];

/// A pronounceable name from a hash.
pub(crate) fn name_from(h: u64) -> String {
    let mut s = HashStream::new(h);
    let mut name = String::new();
    name.push_str(SYLLABLES_START[s.index(SYLLABLES_START.len())]);
    name.push_str(SYLLABLES_MID[s.index(SYLLABLES_MID.len())]);
    name.push_str(SYLLABLES_END[s.index(SYLLABLES_END.len())]);
    name
}

/// A kind for the planet at `t` (0 = innermost, 1 = outermost): lava is likelier
/// near the sun, ice far from it.
fn kind_at(h: u64, t: f32) -> PlanetKind {
    let weights = [3.0, 2.0, 2.0 + (1.0 - t), 0.5 + 2.5 * t, 0.5 + 2.5 * (1.0 - t)];
    crate::hash::weighted_index(h, &weights).map_or(PlanetKind::Rocky, |i| PlanetKind::ALL[i])
}

impl SystemPlan {
    /// Plans the system of `recipe`: its planet count and each planet's seed,
    /// kind, name and position, with the recipe's overrides applied. Errors name
    /// the override at fault (an index out of range or given twice).
    pub fn generate(recipe: &SystemRecipe) -> Result<Self, Vec<RecipeError>> {
        let seed = recipe.seed;
        let count = recipe.planet_count.unwrap_or_else(|| 3 + index(hash0(seed, salt(b"count")), 6) as u32);
        let mut errors = Vec::new();
        let mut seen: Vec<Option<usize>> = vec![None; count as usize];
        for (i, o) in recipe.planets.iter().enumerate() {
            let path = format!("planets[{i}].index");
            match seen.get_mut(o.index as usize) {
                None => errors.push(RecipeError::value(
                    path,
                    o.index,
                    format!("must be in 0..={} (the system has {count} planets)", count - 1),
                )),
                Some(Some(first)) => {
                    errors.push(RecipeError::value(path, o.index, format!("duplicates planets[{first}]")));
                }
                Some(slot @ None) => *slot = Some(i),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }

        let mut layout = HashStream::new(hash0(seed, salt(b"layout")));
        let sun = SunPlan {
            radius_m: (layout.range_f64(12_000.0, 20_000.0) / 100.0).round() * 100.0,
            color: [1.0, layout.range_f32(0.88, 0.97), layout.range_f32(0.72, 0.9)],
        };
        let mut orbit_m = layout.range_f64(150_000.0, 220_000.0);
        let mut planets = Vec::with_capacity(count as usize);
        for i in 0..count {
            let over = seen[i as usize].map(|j| &recipe.planets[j]);
            let planet_seed = over.and_then(|o| o.seed).unwrap_or_else(|| hash1(seed, salt(b"planet"), i64::from(i)));
            let t = if count > 1 { i as f32 / (count - 1) as f32 } else { 0.5 };
            let kind =
                over.and_then(|o| o.kind).unwrap_or_else(|| kind_at(hash1(seed, salt(b"kind"), i64::from(i)), t));
            let name =
                over.and_then(|o| o.name.clone()).unwrap_or_else(|| name_from(hash0(planet_seed, salt(b"name"))));
            // Golden-angle spacing around the sun with a little jitter, slightly inclined.
            let angle = f64::from(i) * 2.399_963 + layout.range_f64(-0.4, 0.4);
            let incline = layout.range_f64(-0.05, 0.05);
            let r = (orbit_m / 10.0).round() * 10.0;
            let position_m = DVec3::new(
                r * libm::cos(angle) * libm::cos(incline),
                r * libm::sin(incline),
                r * libm::sin(angle) * libm::cos(incline),
            );
            planets.push(PlanetSlot { index: i, name, seed: planet_seed, kind, orbit_m: r, position_m });
            orbit_m += layout.range_f64(140_000.0, 260_000.0);
        }
        let name = recipe.name.clone().unwrap_or_else(|| name_from(hash0(seed, salt(b"sysname"))));
        Ok(Self { seed, name, sun, planets })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_kinds_and_spacing() {
        let mut kinds = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let plan = SystemPlan::generate(&SystemRecipe::from_seed(seed)).unwrap();
            assert!((3..=8).contains(&plan.planets.len()));
            for pair in plan.planets.windows(2) {
                let gap = pair[0].position_m.distance(pair[1].position_m);
                assert!(gap > 100_000.0, "seed {seed}: planets {gap} m apart");
                assert!(pair[1].orbit_m > pair[0].orbit_m);
            }
            kinds.extend(plan.planets.iter().map(|p| p.kind));
            assert!(plan.planets.iter().all(|p| !p.name.is_empty()));
        }
        assert_eq!(kinds.len(), PlanetKind::ALL.len());
    }
}
