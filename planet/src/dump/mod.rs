//! Debug replay's data: every stage's output as a file, the manifest that
//! lists them, the stages as functions of the stages before, and the first
//! difference between two outputs of a stage.
//!
//! A dump of one region is a folder:
//!
//! | file | stage | made from | format |
//! |---|---|---|---|
//! | `recipe.json` | (input) | | the system recipe, JSON |
//! | `system_plan.json` | `SystemPlan` | the recipe | JSON |
//! | `planet_plan.json` | `PlanetPlan` | the recipe, the system plan | JSON |
//! | `columns.bin` | `ColumnField` | the planet plan, the key | binary |
//! | `voxels.bin` | `VoxelGrid` | the planet plan, the columns | binary |
//! | `cube_mesh.bin` | `CubeMesh` | the planet plan, the columns, the voxels | binary |
//! | `sphere_mesh.bin` | `SphereMesh` | the planet plan, the cube mesh | binary |
//! | `collider.bin` | `Collider` | the sphere mesh | binary (triangles; the BVH is rebuilt) |
//! | `navmesh.bin` | `NavMesh` | the planet plan (its `NavSettings`), the sphere mesh, the collider | binary |
//! | `manifest.json` | | | [`Manifest`] |
//!
//! Plans are the JSON their serde types write (the same as `planet system
//! --json`), and can be edited by hand. Grids, meshes, the collider and the
//! navmesh are binary (`binary.rs`, `physics.rs`): the 8 bytes `PLANETSD`, a
//! little-endian `u32` length, a JSON [`Header`] of that length (stage, key,
//! versions, the sections of the payload with their element layouts, the
//! payload's length and XXH3-64 hash), then the payload: the sections back to
//! back, every number little-endian, with no padding.
//!
//! Nothing here reads a clock or a file: the `planet dump`, `replay` and
//! `inspect` commands do the I/O and the timing.

pub mod binary;
pub(crate) mod diff;
pub(crate) mod physics;
pub(crate) mod scatter;

pub use binary::{Field, Header, Kind, Layout, Section, SectionHeader};

use serde::{Deserialize, Serialize};

use crate::pipeline::{Pipeline, Stage};
use crate::signature::Signature;

/// The version of the dump format (file layouts and manifest), independent of
/// `GENERATOR_VERSION`; bumped when a file's layout changes or a stage is added.
/// Format 2 added the `collider` and `navmesh` stages; format 3 dropped the
/// collider's `mesh` section (parry's `TriMesh` flags) for its own tree;
/// format 4 made navmesh polygons triangles or quads (a corner count, four
/// corners, four neighbours); format 5 added the `scatter` stage before the
/// collider and the collider's `objects` section; format 6 added the
/// `planet_layout` and `planet_settlements` stages and a column's `structure`;
/// format 7 added the scatter's `buildings` section; format 8 the
/// `creature_paths` stage, the voxels' `cover` section and a vertex's `sky`
/// (a sphere-mesh vertex's `blend` now 8 bits).
pub const DUMP_FORMAT: u32 = 8;

/// The longest stage time a manifest may record, milliseconds (a day).
pub const MAX_TIME_MS: f64 = 86_400_000.0;

/// The name of the manifest in a dump folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// The name of the system recipe in a dump folder.
pub const RECIPE_FILE: &str = "recipe.json";

/// Pretty JSON ending in a newline.
pub(crate) fn pretty_json(value: &impl Serialize) -> Vec<u8> {
    let mut s = serde_json::to_string_pretty(value).expect("plans and manifests always serialize");
    s.push('\n');
    s.into_bytes()
}

/// Parses JSON into `T`, with the JSON path of the first error; a key given
/// twice is an error (`crate::json`).
pub(crate) fn json_from<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, DumpError> {
    let text = std::str::from_utf8(bytes).map_err(|e| DumpError::new(format!("not valid JSON: not UTF-8 ({e})")))?;
    crate::json::parse(text).map_err(|e| DumpError::new(e.to_string()))
}

/// Why a dump, or one of its files, cannot be used. Each line is one problem,
/// naming the field at fault and what is allowed; the caller adds the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DumpError(pub String);

impl DumpError {
    /// An error with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

/// XXH3-64 of `bytes` as 16 hex digits: the hash manifests and headers record.
#[must_use]
pub fn hash_hex(bytes: &[u8]) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}

/// One file of a dump as the manifest records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    /// The file's name, inside the dump folder.
    pub file: String,
    /// Its size, bytes.
    pub size: u64,
    /// XXH3-64 of the whole file, 16 hex digits.
    pub hash: String,
}

impl FileEntry {
    /// The entry of `bytes` written as `file`.
    #[must_use]
    pub fn of(file: &str, bytes: &[u8]) -> Self {
        Self { file: file.to_owned(), size: bytes.len() as u64, hash: hash_hex(bytes) }
    }

    /// Whether `bytes` are the file as recorded.
    #[must_use]
    pub fn matches(&self, bytes: &[u8]) -> bool {
        self.size == bytes.len() as u64 && self.hash == hash_hex(bytes)
    }
}

/// One stage of a dump as the manifest records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageEntry {
    /// The stage.
    #[serde(with = "stage_name")]
    pub stage: Stage,
    /// Its file, size and hash.
    #[serde(flatten)]
    pub file: FileEntry,
    /// How long the stage took when it was dumped (or replayed, in a replay's output), milliseconds.
    pub time_ms: f64,
}

/// Where a replay's output came from (`planet replay --out`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayedFrom {
    /// The dump that was replayed.
    pub dump: String,
    /// The stage replayed from (`recipe`, or a stage taken as it was), or `each` when every
    /// stage was re-run from the dumped stages before it.
    pub from: String,
}

/// `manifest.json`: what a dump holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// [`DUMP_FORMAT`] of the files.
    pub format: u32,
    /// `GENERATOR_VERSION` of the generators that wrote them.
    pub generator_version: u32,
    /// The system's signature (`planet signature` of the recipe).
    pub signature: Signature,
    /// The planet's index in the system.
    pub planet: u32,
    /// The signature of the planet plan in the dump.
    pub planet_signature: Signature,
    /// The region, `F/L/X/Y/Z`.
    pub key: String,
    /// The system recipe, the first stage's input.
    pub recipe: FileEntry,
    /// Every stage, in order.
    pub stages: Vec<StageEntry>,
    /// Set on a replay's output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed_from: Option<ReplayedFrom>,
}

impl Manifest {
    /// Parses a manifest and checks its shape: the format version, the key,
    /// every stage listed once in order with its usual file name. (The
    /// generator version is the caller's to judge.)
    pub fn from_json(bytes: &[u8]) -> Result<Self, DumpError> {
        let m: Self = json_from(bytes)?;
        let mut errors = Vec::new();
        if m.format != DUMP_FORMAT {
            errors.push(format!("format = {}: this build reads dump format {DUMP_FORMAT}", m.format));
        }
        if let Err(e) = m.key.parse::<crate::RegionKey>() {
            errors.push(format!("key = {:?}: {e}", m.key));
        }
        if m.recipe.file != RECIPE_FILE {
            errors.push(format!("recipe.file = {:?}: must be {RECIPE_FILE:?}", m.recipe.file));
        }
        let pipeline = Pipeline::standard();
        if m.stages.len() != pipeline.stages().len() {
            errors.push(format!(
                "stages: {} entries, must be {} (one per stage: {})",
                m.stages.len(),
                pipeline.stages().len(),
                pipeline.names().join(", ")
            ));
        }
        for (i, (entry, &stage)) in m.stages.iter().zip(pipeline.stages()).enumerate() {
            if entry.stage != stage {
                errors
                    .push(format!("stages[{i}].stage = {}: must be {stage} (stages are listed in order)", entry.stage));
            } else if entry.file.file != stage.file() {
                errors.push(format!("stages[{i}].file = {:?}: must be {:?}", entry.file.file, stage.file()));
            }
            // Past a day a time is no stage's; it must also fit a `Duration`.
            if !(entry.time_ms.is_finite() && (0.0..=MAX_TIME_MS).contains(&entry.time_ms)) {
                errors.push(format!(
                    "stages[{i}].time_ms = {}: must be a time in milliseconds, in 0..={MAX_TIME_MS}",
                    entry.time_ms
                ));
            }
        }
        if errors.is_empty() { Ok(m) } else { Err(DumpError::new(errors.join("\n"))) }
    }

    /// The region key (checked by `from_json`).
    #[must_use]
    pub fn region_key(&self) -> crate::RegionKey {
        self.key.parse().unwrap_or_default()
    }

    /// The entry of `stage`.
    #[must_use]
    pub fn entry(&self, stage: Stage) -> Option<&StageEntry> {
        self.stages.iter().find(|e| e.stage == stage)
    }

    /// Pretty JSON, ending in a newline.
    #[must_use]
    pub fn to_json(&self) -> Vec<u8> {
        pretty_json(self)
    }
}

/// A stage in a manifest: its name, read against the standard pipeline.
mod stage_name {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::pipeline::{Pipeline, Stage};

    pub fn serialize<S: Serializer>(stage: &Stage, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(stage.name)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Stage, D::Error> {
        let name = String::deserialize(d)?;
        let pipeline = Pipeline::standard();
        pipeline.stages().iter().copied().find(|s| s.name == name).ok_or_else(|| {
            D::Error::custom(format!("unknown stage {name:?}: must be one of {}", pipeline.names().join(", ")))
        })
    }
}

#[cfg(test)]
mod tests;
