//! The save format: the world's signature and generator version, the edit
//! log of every planet, and any further records later parts add; never
//! generated terrain (DESIGN.md invariant 6). Encoding and decoding are
//! pure (fuzzed by `planet/fuzz`); writing the file safely is the engine's.
//!
//! ```text
//! b"PLANETSV"                     8 bytes, the magic
//! format: u32                     SAVE_FORMAT
//! records: u32                    how many follow
//! record, records times:
//!   kind: u32                     1 world, 2 edits, 3 a bake; bit 31 set: optional
//!   length: u32                   payload bytes, at most MAX_RECORD_BYTES
//!   payload
//!   checksum: u64                 XXH3-64 of kind, length and payload
//! ```
//!
//! All little-endian. The world record comes first: the system signature
//! (u128), `GENERATOR_VERSION` (u32) and the planet count (u32). An edits
//! record is a planet index (u32), a count (u32) and that many edits
//! (`Edit::to_bytes`: 32 bytes, a smooth's 56, its first byte saying which).
//! A bake record is a planet index (u32), its place (u32: how many of the
//! planet's edits come before it) and the bake (`Bake::to_bytes`: a LOD-0
//! region's overrides and tombstones). An optional creatures record
//! (kind 4, bit 31 set) is a planet's changes to animals
//! (`creatures::encode_changes`). A reader skips an optional record of a kind it does
//! not know (and keeps it, so a save passes through unchanged); a required
//! one it does not know is refused as made by a newer program.

use super::{Bake, EDIT_BYTES, Edit, Operation};
use crate::Signature;

/// The first 8 bytes of a save.
pub const MAGIC: &[u8; 8] = b"PLANETSV";
/// The format this build writes and reads.
pub const SAVE_FORMAT: u32 = 1;
/// The largest record, bytes (two million edits).
pub const MAX_RECORD_BYTES: u32 = 64 << 20;
/// Record kinds.
const WORLD: u32 = 1;
const EDITS: u32 = 2;
const BAKE: u32 = 3;
const CREATURES: u32 = 4 | OPTIONAL;
/// The bit that marks a record a reader may skip.
pub const OPTIONAL: u32 = 1 << 31;

/// A decoded save.
#[derive(Clone, Debug, PartialEq)]
pub struct Save {
    /// The system's signature.
    pub system: Signature,
    /// The generator version that made it.
    pub generator_version: u32,
    /// Per planet, its edits in order.
    pub planets: Vec<Vec<Edit>>,
    /// Per planet, its bakes in order, each with its place: how many of
    /// the planet's edits come before it (`EditLog::bakes`).
    pub bakes: Vec<Vec<(u32, Bake)>>,
    /// Per planet, the changes to its animals, ids increasing.
    pub creatures: Vec<Vec<crate::creatures::CreatureChange>>,
    /// Optional records of kinds this build does not know: (kind, payload).
    pub extra: Vec<(u32, Vec<u8>)>,
}

/// Why bytes are not a save this build can load.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SaveError {
    /// Not a save at all.
    #[error("not a save (it does not start with {MAGIC:?}): {0}")]
    NotASave(String),
    /// A format this build does not read.
    #[error("save format {found}: this build reads format {SAVE_FORMAT} only")]
    Format {
        /// The save's format.
        found: u32,
    },
    /// A record that is cut short, fails its checksum, or says something impossible.
    #[error("record {index} ({kind}): {reason}")]
    Record {
        /// Its position, from 0.
        index: u32,
        /// What it is (`world`, `edits`, `kind 7`, or `header`).
        kind: String,
        /// What is wrong.
        reason: String,
    },
    /// A save of another world or generator.
    #[error("{0}")]
    OtherWorld(String),
}

impl Save {
    /// An empty save of the world named `system` with `planets` planets.
    #[must_use]
    pub fn new(system: Signature, planets: usize) -> Self {
        Self {
            system,
            generator_version: crate::GENERATOR_VERSION,
            planets: vec![Vec::new(); planets],
            bakes: vec![Vec::new(); planets],
            creatures: vec![Vec::new(); planets],
            extra: Vec::new(),
        }
    }

    /// Refuses a save of another world or another generator version, naming both.
    pub fn check_world(&self, system: Signature, planets: usize) -> Result<(), SaveError> {
        if self.generator_version != crate::GENERATOR_VERSION {
            return Err(SaveError::OtherWorld(format!(
                "the save was made by generator version {}, this program is version {}: its edits would land on other terrain",
                self.generator_version,
                crate::GENERATOR_VERSION
            )));
        }
        if self.system != system || self.planets.len() != planets {
            return Err(SaveError::OtherWorld(format!(
                "the save is of system {} ({} planets), not of this one, {system} ({planets} planets)",
                self.system,
                self.planets.len()
            )));
        }
        Ok(())
    }

    /// The save's bytes.
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let mut records: Vec<(u32, Vec<u8>)> = Vec::new();
        let mut world = Vec::with_capacity(24);
        world.extend_from_slice(&self.system.0.to_le_bytes());
        world.extend_from_slice(&self.generator_version.to_le_bytes());
        world.extend_from_slice(&(self.planets.len() as u32).to_le_bytes());
        records.push((WORLD, world));
        for (planet, edits) in self.planets.iter().enumerate() {
            if edits.is_empty() {
                continue;
            }
            let mut payload = Vec::with_capacity(8 + edits.len() * EDIT_BYTES);
            payload.extend_from_slice(&(planet as u32).to_le_bytes());
            payload.extend_from_slice(&(edits.len() as u32).to_le_bytes());
            for e in edits {
                payload.extend_from_slice(&e.to_bytes());
            }
            records.push((EDITS, payload));
        }
        // A record a bake: each is checked, and refused, on its own.
        for (planet, bakes) in self.bakes.iter().enumerate() {
            for (before, bake) in bakes {
                let mut payload = Vec::new();
                payload.extend_from_slice(&(planet as u32).to_le_bytes());
                payload.extend_from_slice(&before.to_le_bytes());
                payload.extend_from_slice(&bake.to_bytes());
                records.push((BAKE, payload));
            }
        }
        for (planet, changes) in self.creatures.iter().enumerate() {
            if !changes.is_empty() {
                records.push((CREATURES, crate::creatures::encode_changes(planet as u32, changes)));
            }
        }
        records.extend(self.extra.iter().cloned());
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&SAVE_FORMAT.to_le_bytes());
        out.extend_from_slice(&(records.len() as u32).to_le_bytes());
        for (kind, payload) in &records {
            let start = out.len();
            out.extend_from_slice(&kind.to_le_bytes());
            out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            out.extend_from_slice(payload);
            let checksum = xxhash_rust::xxh3::xxh3_64(&out[start..]);
            out.extend_from_slice(&checksum.to_le_bytes());
        }
        out
    }

    /// Decodes a save, checking every record; the first fault is named.
    pub fn decode(bytes: &[u8]) -> Result<Save, SaveError> {
        if bytes.len() < 16 || &bytes[..8] != MAGIC {
            let why = if bytes.is_empty() { "the file is empty".to_owned() } else { format!("{} bytes", bytes.len()) };
            return Err(SaveError::NotASave(why));
        }
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let format = u32_at(8);
        if format != SAVE_FORMAT {
            return Err(SaveError::Format { found: format });
        }
        let count = u32_at(12);
        let mut at = 16;
        let mut save = Save::new(Signature(0), 0);
        let mut has_world = false;
        for index in 0..count {
            let fail = |kind: &str, reason: String| SaveError::Record { index, kind: kind.to_owned(), reason };
            if bytes.len() - at < 8 {
                return Err(fail(
                    "header",
                    format!("cut short: {} bytes left of the 8 a record header needs", bytes.len() - at),
                ));
            }
            let kind = u32_at(at);
            let length = u32_at(at + 4);
            let name = kind_name(kind);
            if length > MAX_RECORD_BYTES {
                return Err(fail(&name, format!("length {length} bytes: must be at most {MAX_RECORD_BYTES}")));
            }
            let end = at + 8 + length as usize;
            if bytes.len() < end + 8 {
                return Err(fail(
                    &name,
                    format!("cut short: it needs {} bytes, {} are left", end + 8 - at, bytes.len() - at),
                ));
            }
            let checksum = u64::from_le_bytes(bytes[end..end + 8].try_into().expect("8 bytes"));
            if xxhash_rust::xxh3::xxh3_64(&bytes[at..end]) != checksum {
                return Err(fail(&name, "its checksum does not match: the bytes were damaged".into()));
            }
            let payload = &bytes[at + 8..end];
            at = end + 8;
            match kind {
                WORLD if index == 0 => {
                    if payload.len() != 24 {
                        return Err(fail(&name, format!("{} bytes: a world record is 24", payload.len())));
                    }
                    save.system = Signature(u128::from_le_bytes(payload[..16].try_into().expect("16 bytes")));
                    save.generator_version = u32::from_le_bytes(payload[16..20].try_into().expect("4 bytes"));
                    let planets = u32::from_le_bytes(payload[20..24].try_into().expect("4 bytes"));
                    if planets > 1024 {
                        return Err(fail(&name, format!("{planets} planets: a system has at most 1024")));
                    }
                    save.planets = vec![Vec::new(); planets as usize];
                    save.bakes = vec![Vec::new(); planets as usize];
                    save.creatures = vec![Vec::new(); planets as usize];
                    has_world = true;
                }
                _ if index == 0 => return Err(fail(&name, "the first record must be the world record".into())),
                WORLD => return Err(fail(&name, "a second world record".into())),
                EDITS => {
                    let (planet, edits) = decode_edits(payload).map_err(|reason| fail(&name, reason))?;
                    let planets = save.planets.len();
                    let slot = save
                        .planets
                        .get_mut(planet as usize)
                        .ok_or_else(|| fail(&name, format!("planet {planet}: the world has {planets} planets")))?;
                    if !slot.is_empty() {
                        return Err(fail(&name, format!("a second edits record for planet {planet}")));
                    }
                    *slot = edits;
                }
                BAKE => {
                    let (planet, before, bake) = decode_bake(payload).map_err(|reason| fail(&name, reason))?;
                    let planets = save.bakes.len();
                    let slot = save
                        .bakes
                        .get_mut(planet as usize)
                        .ok_or_else(|| fail(&name, format!("planet {planet}: the world has {planets} planets")))?;
                    if slot.last().is_some_and(|(b, _)| *b > before) {
                        return Err(fail(&name, format!("placed before edit {before}, ahead of the bake before it")));
                    }
                    slot.push((before, bake));
                }
                CREATURES => {
                    let (planet, changes) =
                        crate::creatures::decode_changes(payload).map_err(|reason| fail(&name, reason))?;
                    let planets = save.creatures.len();
                    let slot = save
                        .creatures
                        .get_mut(planet as usize)
                        .ok_or_else(|| fail(&name, format!("planet {planet}: the world has {planets} planets")))?;
                    if !slot.is_empty() {
                        return Err(fail(&name, format!("a second creatures record for planet {planet}")));
                    }
                    *slot = changes;
                }
                k if k & OPTIONAL != 0 => save.extra.push((k, payload.to_vec())),
                _ => {
                    return Err(fail(
                        &name,
                        "a kind this build does not know, and not optional: made by a newer program".into(),
                    ));
                }
            }
        }
        if !has_world {
            return Err(SaveError::Record {
                index: 0,
                kind: "world".into(),
                reason: "missing: the save holds no records".into(),
            });
        }
        if at != bytes.len() {
            return Err(SaveError::Record {
                index: count,
                kind: "header".into(),
                reason: format!("{} bytes after the last of the {count} records", bytes.len() - at),
            });
        }
        Ok(save)
    }
}

/// A record kind's name in errors.
fn kind_name(kind: u32) -> String {
    match kind {
        WORLD => "world".into(),
        EDITS => "edits".into(),
        BAKE => "bake".into(),
        CREATURES => "creatures".into(),
        k => format!("kind {k:#x}"),
    }
}

/// A bake record's planet, place and bake.
fn decode_bake(payload: &[u8]) -> Result<(u32, u32, Bake), String> {
    if payload.len() < 8 {
        return Err(format!("{} bytes: a bake record has at least 8", payload.len()));
    }
    let planet = u32::from_le_bytes(payload[..4].try_into().expect("4 bytes"));
    let before = u32::from_le_bytes(payload[4..8].try_into().expect("4 bytes"));
    let (bake, len) = Bake::from_bytes(&payload[8..])?;
    if 8 + len != payload.len() {
        return Err(format!("{} bytes after the bake", payload.len() - 8 - len));
    }
    Ok((planet, before, bake))
}

/// An edits record's planet and edits.
fn decode_edits(payload: &[u8]) -> Result<(u32, Vec<Edit>), String> {
    if payload.len() < 8 {
        return Err(format!("{} bytes: an edits record has at least 8", payload.len()));
    }
    let planet = u32::from_le_bytes(payload[..4].try_into().expect("4 bytes"));
    let count = u32::from_le_bytes(payload[4..8].try_into().expect("4 bytes")) as usize;
    // Each edit takes at least EDIT_BYTES: a count beyond that is a lie,
    // refused before anything is allocated for it.
    if payload.len() - 8 < count.saturating_mul(EDIT_BYTES) {
        return Err(format!(
            "{count} edits need at least {} bytes, the record has {}",
            8 + count.saturating_mul(EDIT_BYTES),
            payload.len()
        ));
    }
    let mut edits = Vec::with_capacity(count);
    let mut rest = &payload[8..];
    for i in 0..count {
        let (edit, len) = Edit::from_bytes(rest).ok_or_else(|| {
            let op = rest.first().and_then(|&code| Operation::ALL.get(usize::from(code)));
            let needs = op.map_or(EDIT_BYTES, |o| o.encoded_len());
            if rest.len() < needs {
                format!("edit {i}: cut short ({} bytes left of the {needs} it takes)", rest.len())
            } else {
                format!("edit {i}: an unknown operation or brush shape ({}, {})", rest[0], rest[1])
            }
        })?;
        edits.push(edit);
        rest = &rest[len..];
    }
    if !rest.is_empty() {
        return Err(format!("{} bytes after the last of the {count} edits", rest.len()));
    }
    Ok((planet, edits))
}
