//! Which planets a survey covers: the systems of a range of seeds, each a
//! template recipe with its seed replaced (or the template itself), every
//! planet of each, in system then planet order; and a shard's contiguous
//! slice of that list.

use std::ops::Range;
use std::str::FromStr;

use planet::{PlannedSystem, RecipeErrors, SystemRecipe};
use serde::{Deserialize, Serialize};

/// The most systems one survey may name.
pub const MAX_SYSTEMS: u64 = 1_000_000;

/// The most shards a survey may be cut into.
pub const MAX_SHARDS: u32 = 100_000;

/// One planet of a survey: its system's seed and its index there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SurveyPlanet {
    /// The seed of the planet's system.
    pub system: u64,
    /// The planet's index in its system.
    pub planet: u32,
}

impl std::fmt::Display for SurveyPlanet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "s{}-p{}", self.system, self.planet)
    }
}

/// Why a survey's systems cannot be listed.
#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    /// A system of the range is not a valid recipe (the template's overrides
    /// do not fit it).
    #[error("system {seed}: {errors}")]
    Recipe {
        /// The seed of the system at fault.
        seed: u64,
        /// What is wrong with it.
        errors: RecipeErrors,
    },
}

/// The systems a survey covers.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// The recipe every system is made from (its seed replaced by each of `seeds`).
    pub template: SystemRecipe,
    /// The systems' seeds; `None`: the template itself, with its own seed.
    pub seeds: Option<Range<u64>>,
}

impl Selection {
    /// The seeds of the systems, in order.
    #[must_use]
    pub fn seeds(&self) -> Range<u64> {
        self.seeds.clone().unwrap_or(self.template.seed..self.template.seed + 1)
    }

    /// The recipe of the system of `seed`.
    #[must_use]
    pub fn recipe(&self, seed: u64) -> SystemRecipe {
        SystemRecipe { seed, ..self.template.clone() }
    }

    /// The planned system of `seed`.
    pub fn system(&self, seed: u64) -> Result<PlannedSystem, SelectionError> {
        PlannedSystem::build(&self.recipe(seed)).map_err(|errors| SelectionError::Recipe { seed, errors })
    }

    /// Every planet of every system, in system then planet order.
    pub fn planets(&self) -> Result<Vec<SurveyPlanet>, SelectionError> {
        let mut out = Vec::new();
        for seed in self.seeds() {
            let system = self.system(seed)?;
            out.extend(system.planets.iter().map(|p| SurveyPlanet { system: seed, planet: p.index }));
        }
        Ok(out)
    }
}

/// Parses `A..B` (B excluded) or `A..=B` into a range of at least one and
/// at most [`MAX_SYSTEMS`] seeds.
pub fn parse_seed_range(s: &str) -> Result<Range<u64>, String> {
    let shape = || format!("{s:?}: write A..B (B excluded) or A..=B, with 0 <= A < B, as 0..50");
    let (a, b, inclusive) = match s.split_once("..=") {
        Some((a, b)) => (a, b, true),
        None => {
            let (a, b) = s.split_once("..").ok_or_else(shape)?;
            (a, b, false)
        }
    };
    let a: u64 = a.trim().parse().map_err(|_| shape())?;
    let b: u64 = b.trim().parse().map_err(|_| shape())?;
    let end = if inclusive { b.checked_add(1).ok_or_else(shape)? } else { b };
    if end <= a {
        return Err(format!("{s}: the range is empty; the end must be past the start"));
    }
    if end - a > MAX_SYSTEMS {
        return Err(format!("{s}: {} systems; at most {MAX_SYSTEMS} a survey", end - a));
    }
    Ok(a..end)
}

/// One slice of a survey: shard `index` of `count`, counted from 0 as
/// Kubernetes' `JOB_COMPLETION_INDEX` and a Slurm array of `0-(count-1)` do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which slice, 0..count.
    pub index: u32,
    /// How many slices.
    pub count: u32,
}

impl Shard {
    /// The whole survey as one shard.
    pub const WHOLE: Self = Self { index: 0, count: 1 };

    /// This shard's contiguous part of `planets`: slice `index` of `count`
    /// near-equal ones (the first ones one shorter where they cannot be equal).
    #[must_use]
    pub fn slice<T>(self, planets: &[T]) -> &[T] {
        let n = planets.len() as u64;
        let at = |i: u32| (n * u64::from(i) / u64::from(self.count)) as usize;
        &planets[at(self.index)..at(self.index + 1)]
    }

    /// The shard's folder name: `shard-I-of-N`.
    #[must_use]
    pub fn folder(self) -> String {
        format!("shard-{}-of-{}", self.index, self.count)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let shape = || format!("{s:?}: write I/N, shard I of N counted from 0 (as JOB_COMPLETION_INDEX gives), as 0/4");
        let (i, n) = s.split_once('/').ok_or_else(shape)?;
        let index: u32 = i.trim().parse().map_err(|_| shape())?;
        let count: u32 = n.trim().parse().map_err(|_| shape())?;
        if count == 0 || count > MAX_SHARDS {
            return Err(format!("{s}: the shard count must be 1..={MAX_SHARDS}"));
        }
        if index >= count {
            return Err(format!("{s}: the shard index must be 0..={} (counted from 0)", count - 1));
        }
        Ok(Self { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_ranges_parse_and_refuse_what_is_empty_or_malformed() {
        assert_eq!(parse_seed_range("0..50"), Ok(0..50));
        assert_eq!(parse_seed_range("3..=3"), Ok(3..4));
        for bad in ["5..5", "6..2", "a..b", "5", "..4", "1..=18446744073709551615", "0..2000000", "-1..3"] {
            assert!(parse_seed_range(bad).is_err(), "{bad} parsed");
        }
    }

    #[test]
    fn shards_parse_and_cover_every_planet_once_in_order() {
        assert_eq!("2/8".parse(), Ok(Shard { index: 2, count: 8 }));
        for bad in ["8/8", "0/0", "1", "a/2", "-1/2", "1/200000", "1/2/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad} parsed");
        }
        let items: Vec<u32> = (0..41).collect();
        for count in 1..=45 {
            let mut all = Vec::new();
            for index in 0..count {
                let part = Shard { index, count }.slice(&items);
                assert!(part.len() + 1 >= 41 / count as usize, "shard {index}/{count} too short");
                all.extend_from_slice(part);
            }
            assert_eq!(all, items, "{count} shards");
        }
    }

    #[test]
    fn a_selection_lists_each_system_s_planets_in_order() {
        let selection = Selection { template: SystemRecipe::from_seed(0), seeds: Some(10..14) };
        let planets = selection.planets().unwrap();
        assert!(planets.windows(2).all(|w| w[0] < w[1]));
        for seed in 10..14 {
            let count = planets.iter().filter(|p| p.system == seed).count();
            assert!((3..=8).contains(&count), "system {seed} has {count} planets");
        }
        let whole = Selection { template: SystemRecipe::default_system(), seeds: None };
        assert_eq!(whole.planets().unwrap().len(), 5);
    }
}
