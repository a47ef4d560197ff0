//! Planet kinds: the families a planet's derived recipe starts from.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What kind of world a planet is; its derived recipe starts from this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanetKind {
    /// Earth-like: seas, forests, snowy peaks.
    Rocky,
    /// Mostly sea with scattered islands.
    Ocean,
    /// Dry dunes and red badlands, no sea.
    Desert,
    /// Frozen seas, glaciers and snowfields.
    Ice,
    /// Black basalt and seas of lava.
    Lava,
}

impl PlanetKind {
    /// Every kind, in a fixed order.
    pub const ALL: [PlanetKind; 5] = [Self::Rocky, Self::Ocean, Self::Desert, Self::Ice, Self::Lava];

    /// The kind's name as written in recipes.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Rocky => "rocky",
            Self::Ocean => "ocean",
            Self::Desert => "desert",
            Self::Ice => "ice",
            Self::Lava => "lava",
        }
    }
}

impl fmt::Display for PlanetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PlanetKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let names: Vec<_> = Self::ALL.iter().map(|k| k.name()).collect();
            format!("must be one of {}", names.join(", "))
        })
    }
}
