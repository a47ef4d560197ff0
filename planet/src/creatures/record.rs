//! The sparse record of changes to animals: the only creature state a save
//! keeps (beside the edits). An animal scared off its path runs from what
//! scared it, then walks back to where its path has got to; one removed is
//! gone for good. Every other animal is where its path puts it.
//!
//! Saved as one optional record per planet (`edit::save`): a planet index
//! (u32), a count (u32) and that many changes of [`CHANGE_BYTES`] each: the
//! animal's id (u64), a tag (u8: 1 scared, 2 removed), the clock time it
//! was scared (f64), where it was (3 × f64, planet-local metres) and the
//! way it ran (3 × f32, unit); ids strictly increasing.

use glam::{DVec3, Vec3};

use super::motion::Pose;
use super::species::Species;

/// Seconds a scared animal runs.
pub const FLEE_S: f64 = 5.0;
/// Seconds it then takes to walk back to its path.
pub const RETURN_S: f64 = 12.0;
/// How much faster than its walk it runs.
pub const FLEE_PACE: f64 = 3.0;
/// Bytes of one change in a save.
pub const CHANGE_BYTES: usize = 53;

/// What happened to one animal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Change {
    /// Scared at clock time `at_s`, standing at `from`, and ran along `away`.
    Scared {
        /// The clock time, seconds.
        at_s: f64,
        /// Where it stood, planet-local metres.
        from: DVec3,
        /// The way it ran (unit, along the ground).
        away: Vec3,
    },
    /// Gone (buried or dug away with the ground under it).
    Removed,
}

/// A change and the animal it is of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CreatureChange {
    /// The animal (`Herd::member_id`).
    pub id: u64,
    /// What happened.
    pub change: Change,
}

impl Change {
    /// Whether, at `time_s`, the change no longer shows: a scare run and
    /// walked back from (a removal never ends).
    #[must_use]
    pub fn is_over(&self, time_s: f64) -> bool {
        match *self {
            Change::Scared { at_s, .. } => time_s >= at_s + FLEE_S + RETURN_S || time_s < at_s,
            Change::Removed => false,
        }
    }

    /// The pose of an animal under this change at `time_s`, given the pose
    /// its path gives then (`None`: removed). A pure function of the change,
    /// the path's pose and the clock, like the path's.
    #[must_use]
    pub fn pose(&self, on_path: Pose, species: &Species, time_s: f64) -> Option<Pose> {
        let Change::Scared { at_s, from, away } = *self else {
            return None;
        };
        if self.is_over(time_s) {
            return Some(on_path);
        }
        let run = f64::from(species.speed_m_s) * FLEE_PACE;
        let ran_s = (time_s - at_s).min(FLEE_S);
        let fled = from + away.as_dvec3() * run * ran_s;
        let walked_m = on_path.walked_m + run * ran_s;
        if time_s < at_s + FLEE_S {
            return Some(Pose { position: fled, forward: away, walked_m, stride: 1.0, rest: 0.0, flight_m: 0.0 });
        }
        // Walking back: from where the run ended to where the path is now.
        let t = ((time_s - at_s - FLEE_S) / RETURN_S).clamp(0.0, 1.0);
        let eased = t * t * (3.0 - 2.0 * t);
        let position = fled.lerp(on_path.position, eased);
        let to_path = (on_path.position - fled).as_vec3();
        let up = position.normalize_or_zero().as_vec3();
        let flat = (to_path - up * to_path.dot(up)).normalize_or(on_path.forward);
        let forward =
            if t < 0.9 { flat } else { flat.lerp(on_path.forward, (t - 0.9) as f32 * 10.0).normalize_or(flat) };
        let back_m = f64::from(to_path.length()) * t;
        Some(Pose { position, forward, walked_m: walked_m + back_m, stride: 1.0, rest: 0.0, flight_m: 0.0 })
    }
}

/// A planet's changes as a save record's payload (ids sorted, as given).
#[must_use]
pub fn encode_changes(planet: u32, changes: &[CreatureChange]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + changes.len() * CHANGE_BYTES);
    out.extend_from_slice(&planet.to_le_bytes());
    out.extend_from_slice(&(changes.len() as u32).to_le_bytes());
    for c in changes {
        out.extend_from_slice(&c.id.to_le_bytes());
        let (tag, at_s, from, away) = match c.change {
            Change::Scared { at_s, from, away } => (1u8, at_s, from, away),
            Change::Removed => (2u8, 0.0, DVec3::ZERO, Vec3::ZERO),
        };
        out.push(tag);
        out.extend_from_slice(&at_s.to_le_bytes());
        for x in from.to_array() {
            out.extend_from_slice(&x.to_le_bytes());
        }
        for x in away.to_array() {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out
}

/// A creature record's planet and changes; every fault named.
pub fn decode_changes(payload: &[u8]) -> Result<(u32, Vec<CreatureChange>), String> {
    if payload.len() < 8 {
        return Err(format!("{} bytes: a creatures record has at least 8", payload.len()));
    }
    let planet = u32::from_le_bytes(payload[..4].try_into().expect("4 bytes"));
    let count = u32::from_le_bytes(payload[4..8].try_into().expect("4 bytes")) as usize;
    if payload.len() - 8 != count.saturating_mul(CHANGE_BYTES) {
        return Err(format!(
            "{count} changes take {} bytes, the record has {}",
            8 + count.saturating_mul(CHANGE_BYTES),
            payload.len()
        ));
    }
    let mut out: Vec<CreatureChange> = Vec::with_capacity(count);
    for (i, b) in payload[8..].chunks_exact(CHANGE_BYTES).enumerate() {
        let f64_at = |at: usize| f64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
        let f32_at = |at: usize| f32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"));
        let id = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
        if out.last().is_some_and(|last| last.id >= id) {
            return Err(format!("change {i}: id {id:#x} is not after the one before it (ids must increase)"));
        }
        let change = match b[8] {
            1 => {
                let (at_s, from) = (f64_at(9), DVec3::new(f64_at(17), f64_at(25), f64_at(33)));
                let away = Vec3::new(f32_at(41), f32_at(45), f32_at(49));
                if !at_s.is_finite() || !from.is_finite() || !away.is_finite() || (away.length() - 1.0).abs() > 1e-3 {
                    return Err(format!("change {i}: a scare's time, place and unit direction must be finite"));
                }
                Change::Scared { at_s, from, away }
            }
            2 => Change::Removed,
            tag => return Err(format!("change {i}: tag {tag}: must be 1 (scared) or 2 (removed)")),
        };
        out.push(CreatureChange { id, change });
    }
    Ok((planet, out))
}
