//! Creatures (issue 20): a planet's species, the herd cells that own them,
//! each herd's loop path on walkable ground, and where each animal is at any
//! moment of the world clock. Everything here is a pure function of (planet
//! seed and recipe, herd cell, clock), so a herd left behind is found where
//! its path puts it on return, with nothing simulated while away (DESIGN.md
//! invariants 4 and 9).

mod cells;
mod motion;
mod path;
mod record;
mod species;

pub use cells::{HERD_CELL_M, HERD_LOD, HerdCell, HerdGrid};
pub use motion::{CYCLE_S, DAWN_SINE, DUSK_SINE, Daylight, Pose, WALK_SHARE, place_in_herd, walking_seconds};
pub use path::{Fauna, Herd};
pub use record::{CHANGE_BYTES, Change, CreatureChange, FLEE_PACE, FLEE_S, RETURN_S, decode_changes, encode_changes};
pub use species::{Activity, Gait, HERD_CHANCE, MAX_HERD_CHANCE, Species, species_of};
