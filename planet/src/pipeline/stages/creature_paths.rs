//! `creature_paths`: `PlanetPlan`, `PlanetLayout`, `PlanetSettlements` and the
//! key -> `CreaturePaths`: the herds a region owns (those of the herd cells
//! whose homes lie in its column, for a bottom region at `HERD_LOD`; none
//! elsewhere), each with its species, count and loop path
//! (`crate::creatures`). Dumped as JSON, so a path can be read and edited.
//!
//! The engine plans the herds near its camera by cell, without waiting for
//! regions; this stage is the same function of (planet, cell) listed by
//! region, for dumps, replay, `inspect` and the golden regions.

use serde::{Deserialize, Serialize};

use super::super::{Chain, RegionInput, RegionStage, StageDef, StageValue};
use crate::RegionKey;
use crate::creatures::{Fauna, Herd};
use crate::dump::{self, DumpError};

/// The herds one region owns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreaturePaths {
    /// The region.
    pub key: RegionKey,
    /// Its herds, by cell.
    pub herds: Vec<Herd>,
}

/// The stage.
pub struct CreaturePathsStage;

/// Its row in the table.
pub static CREATURE_PATHS: StageDef = StageDef::of::<CreaturePathsStage>();

impl StageValue for CreaturePaths {}

impl RegionStage for CreaturePathsStage {
    type Output = CreaturePaths;
    const NAME: &'static str = "creature_paths";
    const TYPE_NAME: &'static str = "CreaturePaths";
    const INPUTS: &'static [&'static str] = &["planet_plan", "planet_layout", "planet_settlements", "key"];
    const JSON: bool = true;

    fn run(input: &RegionInput<'_>, chain: &Chain) -> Result<CreaturePaths, DumpError> {
        let terrain = input.terrain(chain, &CREATURE_PATHS)?;
        let key = input.key;
        terrain.grid.check(key).map_err(|e| DumpError::new(format!("key {key}: {e}")))?;
        let fauna = Fauna::new(&terrain);
        let cells = fauna.grid.owned_by(&terrain.grid, key);
        let herds = cells.into_iter().filter_map(|cell| fauna.herd(&terrain, cell)).collect();
        Ok(CreaturePaths { key, herds })
    }

    fn key(out: &CreaturePaths) -> Option<RegionKey> {
        Some(out.key)
    }

    fn summary(out: &CreaturePaths) -> String {
        let animals: u32 = out.herds.iter().map(|h| u32::from(h.count)).sum();
        let metres: f32 = out.herds.iter().map(Herd::length_m).sum();
        format!("{} herds, {animals} animals, {metres:.0} m of loop", out.herds.len())
    }

    fn encode(out: &CreaturePaths, _generator_version: u32) -> Vec<u8> {
        dump::pretty_json(out)
    }

    fn decode(bytes: &[u8]) -> Result<CreaturePaths, DumpError> {
        let out: CreaturePaths = dump::json_from(bytes)?;
        for (i, h) in out.herds.iter().enumerate() {
            if h.points.len() < 3 || h.lengths.len() != h.points.len() + 1 {
                return Err(DumpError::new(format!(
                    "herds[{i}]: {} points and {} lengths: a loop has at least 3 points and one length more",
                    h.points.len(),
                    h.lengths.len()
                )));
            }
            if h.points.iter().any(|p| !p.is_finite())
                || h.lengths.iter().any(|l| !l.is_finite())
                || h.lengths.windows(2).any(|w| w[1] < w[0])
            {
                return Err(DumpError::new(format!("herds[{i}]: points must be finite and lengths increasing")));
            }
        }
        Ok(out)
    }

    fn difference(a: &CreaturePaths, b: &CreaturePaths) -> Option<String> {
        dump::diff::json_difference(a, b)
    }

    /// Its herds are the cells' own: the species of the plan's planet.
    fn check(out: &CreaturePaths, _chain: &Chain, input: &RegionInput<'_>) -> Vec<String> {
        let mut found = Vec::new();
        if out.key != input.key {
            found.push(format!("key = {}: must be the region's, {}", out.key, input.key));
        }
        found
    }
}
