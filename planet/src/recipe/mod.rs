//! Recipes: the small JSON documents a world is generated from, their
//! validation (every error names its JSON path, value and allowed range), and
//! the derivation of a full planet recipe from a planet's kind and seed.

mod check;
mod derive;
mod error;
mod kind;
mod palette;
mod planet;
mod settlement;
mod system;

pub use check::{Checker, Validate};
pub use derive::{derive_recipe, derive_recipe_with_radius};
pub use error::{RecipeError, RecipeErrors};
pub use kind::PlanetKind;
pub use palette::{AtmosphereRecipe, BiomeRecipe, MaterialRecipe, Pattern, ScatterKind, ScatterRecipe, SurfaceRules};
pub use planet::{
    BeltRecipe, CaveRecipe, ClimateRecipe, DepositRecipe, ElevationRecipe, HeightLayer, MAX_MATERIALS, MeshingRecipe,
    MountainRecipe, NoiseRecipe, OverhangRecipe, PlanetRecipe, PlotRecipe, Polygonizer, RiverRecipe, SeaRecipe,
    ShellRecipe, TerrainRecipe,
};
pub use settlement::SettlementRecipe;
pub use system::{DEFAULT_SYSTEM_JSON, MAX_PLANETS, PlanetOverride, SystemRecipe};

pub(crate) use system::merge;
