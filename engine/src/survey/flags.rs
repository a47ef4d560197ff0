//! The checks a surveyed planet can fail, each a short name a table and a
//! contact sheet show: a planet with no land, a sea that never shows, one
//! biome everywhere, no relief, regions with nothing in them, a hole in a
//! picture, a generate stage over its time budget, or a panic.

use planet::PlanetPlan;
use serde::{Deserialize, Serialize};

use super::figures::{PlanetFigures, PlanetTimings};

/// Land below this share of the surface is no land.
pub const NO_LAND_BELOW: f64 = 0.01;
/// A sea under this share of the surface never shows.
pub const NO_SEA_BELOW: f64 = 0.01;
/// One biome over this share of the land is all one biome.
pub const ONE_BIOME_FROM: f64 = 0.95;
/// A planet whose 5th to 95th percentile of elevation spans less is flat, metres.
pub const FLAT_BELOW_M: f64 = 2.0;

/// A check a planet fails.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Flag {
    /// Under [`NO_LAND_BELOW`] of the surface stands above the sea.
    NoLand,
    /// The planet has a sea, but under [`NO_SEA_BELOW`] of the surface lies below it.
    NoSea,
    /// One biome covers [`ONE_BIOME_FROM`] of the land, on a planet with several.
    OneBiome,
    /// The elevation's 5th to 95th percentile spans under [`FLAT_BELOW_M`].
    Flat,
    /// No sampled surface region has a single triangle.
    EmptyRegions,
    /// A picture shows the clear colour where the planet's lowest ground must be.
    Hole(String),
    /// The generate stage's median is over the survey's budget.
    SlowGenerate,
    /// A picture's streaming did not settle in its time.
    Unsettled(String),
    /// Measuring or picturing the planet panicked (a generator bug): the
    /// first line of the panic's message. Its figures are zero.
    Crashed(String),
}

impl Flag {
    /// The checks `figures` (of `plan`) fail, in order.
    #[must_use]
    pub fn of_figures(figures: &PlanetFigures, plan: &PlanetPlan) -> Vec<Self> {
        let r = &plan.recipe;
        let mut flags = Vec::new();
        if figures.land_share < NO_LAND_BELOW {
            flags.push(Self::NoLand);
        }
        if r.sea.enabled && figures.sea_share < NO_SEA_BELOW {
            flags.push(Self::NoSea);
        }
        if r.biomes.len() > 1 && figures.top_biome_share() >= ONE_BIOME_FROM {
            flags.push(Self::OneBiome);
        }
        if figures.elevation_p5_p95_m[1] - figures.elevation_p5_p95_m[0] < FLAT_BELOW_M {
            flags.push(Self::Flat);
        }
        if figures.empty_region_share >= 1.0 {
            flags.push(Self::EmptyRegions);
        }
        flags
    }

    /// A [`Flag::Crashed`] of a panic's `message`: its first line, at most 160 characters.
    #[must_use]
    pub fn crashed(message: &str) -> Self {
        Self::Crashed(message.lines().next().unwrap_or("").chars().take(160).collect())
    }

    /// The flag's name in a table: `no-land`, `hole:ground`.
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            Self::NoLand => "no-land".into(),
            Self::NoSea => "no-sea".into(),
            Self::OneBiome => "one-biome".into(),
            Self::Flat => "flat".into(),
            Self::EmptyRegions => "empty-regions".into(),
            Self::Hole(view) => format!("hole:{view}"),
            Self::SlowGenerate => "slow-generate".into(),
            Self::Unsettled(view) => format!("unsettled:{view}"),
            Self::Crashed(what) => format!("crashed:{what}"),
        }
    }
}

/// The timing checks `t` fails: the generate stage's median over
/// `generate_budget_ms`, and views that did not settle.
#[must_use]
pub fn timing_flags(t: &PlanetTimings, generate_budget_ms: f64) -> Vec<Flag> {
    let mut flags = Vec::new();
    if t.generate_ms > generate_budget_ms {
        flags.push(Flag::SlowGenerate);
    }
    flags.extend(t.unsettled.iter().cloned().map(Flag::Unsettled));
    flags
}
