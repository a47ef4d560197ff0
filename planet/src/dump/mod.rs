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

mod binary;
mod diff;
mod physics;
mod run;

pub use binary::{Field, Header, Kind, SectionHeader, decode_binary, encode_binary};
pub use diff::first_difference;
pub use run::{Chain, RegionInput, check_chain, run_stage};

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::mesh::{CubeMesh, SphereMesh};
use crate::physics::{Collider, NavMesh};
use crate::plan::{PlanetPlan, SystemPlan};
use crate::signature::Signature;
use crate::terrain::{ColumnField, VoxelGrid};

/// The version of the dump format (file layouts and manifest), independent of
/// `GENERATOR_VERSION`; bumped when a file's layout changes or a stage is added.
/// Format 2 added the `collider` and `navmesh` stages; format 3 dropped the
/// collider's `mesh` section (parry's `TriMesh` flags) for its own tree;
/// format 4 made navmesh polygons triangles or quads (a corner count, four
/// corners, four neighbours).
pub const DUMP_FORMAT: u32 = 4;

/// The name of the manifest in a dump folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// The name of the system recipe in a dump folder.
pub const RECIPE_FILE: &str = "recipe.json";

/// A generator stage whose output a dump holds, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Recipe -> `SystemPlan`.
    SystemPlan,
    /// Recipe and `SystemPlan` -> `PlanetPlan`.
    PlanetPlan,
    /// `PlanetPlan` and key -> `ColumnField` (the 2D pass).
    Columns,
    /// `PlanetPlan` and `ColumnField` -> `VoxelGrid` (the 3D pass).
    Voxels,
    /// `PlanetPlan`, `ColumnField` and `VoxelGrid` -> `CubeMesh` (polygonize).
    CubeMesh,
    /// `PlanetPlan` and `CubeMesh` -> `SphereMesh` (spherify).
    SphereMesh,
    /// `SphereMesh` -> `Collider` (the triangles with their BVH).
    Collider,
    /// `PlanetPlan` (its `NavSettings`), `SphereMesh` and `Collider` -> `NavMesh`.
    NavMesh,
}

impl Stage {
    /// Every stage, in the order they run.
    pub const ALL: [Self; 8] = [
        Self::SystemPlan,
        Self::PlanetPlan,
        Self::Columns,
        Self::Voxels,
        Self::CubeMesh,
        Self::SphereMesh,
        Self::Collider,
        Self::NavMesh,
    ];

    /// The stage's name in manifests and on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::SystemPlan => "system_plan",
            Self::PlanetPlan => "planet_plan",
            Self::Columns => "columns",
            Self::Voxels => "voxels",
            Self::CubeMesh => "cube_mesh",
            Self::SphereMesh => "sphere_mesh",
            Self::Collider => "collider",
            Self::NavMesh => "navmesh",
        }
    }

    /// The Rust type of its output.
    #[must_use]
    pub fn type_name(self) -> &'static str {
        match self {
            Self::SystemPlan => "SystemPlan",
            Self::PlanetPlan => "PlanetPlan",
            Self::Columns => "ColumnField",
            Self::Voxels => "VoxelGrid",
            Self::CubeMesh => "CubeMesh",
            Self::SphereMesh => "SphereMesh",
            Self::Collider => "Collider",
            Self::NavMesh => "NavMesh",
        }
    }

    /// The file its output is dumped to.
    #[must_use]
    pub fn file(self) -> &'static str {
        match self {
            Self::SystemPlan => "system_plan.json",
            Self::PlanetPlan => "planet_plan.json",
            Self::Columns => "columns.bin",
            Self::Voxels => "voxels.bin",
            Self::CubeMesh => "cube_mesh.bin",
            Self::SphereMesh => "sphere_mesh.bin",
            Self::Collider => "collider.bin",
            Self::NavMesh => "navmesh.bin",
        }
    }

    /// Whether the dump is JSON (hand-editable) rather than binary.
    #[must_use]
    pub fn is_json(self) -> bool {
        matches!(self, Self::SystemPlan | Self::PlanetPlan)
    }

    /// Its position in [`Stage::ALL`].
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }

    /// What it is made from, for messages.
    #[must_use]
    pub fn inputs(self) -> &'static str {
        match self {
            Self::SystemPlan => "recipe",
            Self::PlanetPlan => "recipe, system_plan",
            Self::Columns => "planet_plan, key",
            Self::Voxels => "planet_plan, columns",
            Self::CubeMesh => "planet_plan, columns, voxels",
            Self::SphereMesh => "planet_plan, cube_mesh",
            Self::Collider => "sphere_mesh",
            Self::NavMesh => "planet_plan, sphere_mesh, collider",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Stage {
    type Err = String;

    /// A stage by name (`planet_plan`, `planet-plan`) or type (`PlanetPlan`), any case.
    fn from_str(s: &str) -> Result<Self, String> {
        let norm: String = s.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect();
        Self::ALL
            .into_iter()
            .find(|st| norm == st.name().replace('_', "") || norm == st.type_name().to_lowercase())
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|s| s.name()).collect();
                format!("{s:?} is not a stage: must be one of {}", names.join(", "))
            })
    }
}

/// One stage's output, in memory. Equal is bit for bit where
/// [`first_difference`] finds no difference (a collider's BVH included).
// A handful live at a time (one per stage), so the plan's size is not worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum StageOutput {
    /// The sun and the planets' places.
    SystemPlan(SystemPlan),
    /// One planet's full recipe.
    PlanetPlan(PlanetPlan),
    /// The 2D pass.
    Columns(ColumnField),
    /// The 3D pass.
    Voxels(VoxelGrid),
    /// Polygonized, in cube-face space.
    CubeMesh(CubeMesh),
    /// Spherified, on the planet.
    SphereMesh(SphereMesh),
    /// The collision mesh.
    Collider(Collider),
    /// The navigation polygons.
    NavMesh(NavMesh),
}

impl PartialEq for StageOutput {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::SystemPlan(a), Self::SystemPlan(b)) => a == b,
            (Self::PlanetPlan(a), Self::PlanetPlan(b)) => a == b,
            (Self::Columns(a), Self::Columns(b)) => a == b,
            (Self::Voxels(a), Self::Voxels(b)) => a == b,
            (Self::CubeMesh(a), Self::CubeMesh(b)) => a == b,
            (Self::SphereMesh(a), Self::SphereMesh(b)) => a == b,
            (Self::Collider(a), Self::Collider(b)) => a == b,
            (Self::NavMesh(a), Self::NavMesh(b)) => a == b,
            _ => false,
        }
    }
}

impl StageOutput {
    /// Which stage made it.
    #[must_use]
    pub fn stage(&self) -> Stage {
        match self {
            Self::SystemPlan(_) => Stage::SystemPlan,
            Self::PlanetPlan(_) => Stage::PlanetPlan,
            Self::Columns(_) => Stage::Columns,
            Self::Voxels(_) => Stage::Voxels,
            Self::CubeMesh(_) => Stage::CubeMesh,
            Self::SphereMesh(_) => Stage::SphereMesh,
            Self::Collider(_) => Stage::Collider,
            Self::NavMesh(_) => Stage::NavMesh,
        }
    }

    /// The file's bytes: pretty JSON for plans, the binary format for the rest.
    /// `generator_version` is recorded in binary headers.
    #[must_use]
    pub fn encode(&self, generator_version: u32) -> Vec<u8> {
        match self {
            Self::SystemPlan(p) => pretty_json(p),
            Self::PlanetPlan(p) => pretty_json(p),
            _ => encode_binary(self, generator_version),
        }
    }

    /// Reads a stage file. Errors name the field at fault (a JSON path in a
    /// plan, a header field or section in a binary file), not the file.
    pub fn decode(stage: Stage, bytes: &[u8]) -> Result<Self, DumpError> {
        match stage {
            Stage::SystemPlan => json_from(bytes).map(Self::SystemPlan),
            Stage::PlanetPlan => json_from(bytes).map(Self::PlanetPlan),
            _ => decode_binary(stage, bytes).map(|(_, out)| out),
        }
    }

    /// The region key a grid or mesh belongs to (plans have none).
    #[must_use]
    pub fn key(&self) -> Option<crate::RegionKey> {
        match self {
            Self::SystemPlan(_) | Self::PlanetPlan(_) => None,
            Self::Columns(c) => Some(c.key),
            Self::Voxels(v) => Some(v.key),
            Self::CubeMesh(m) => Some(m.key),
            Self::SphereMesh(m) => Some(m.key),
            Self::Collider(c) => Some(c.key),
            Self::NavMesh(n) => Some(n.key),
        }
    }
}

/// Pretty JSON ending in a newline.
fn pretty_json(value: &impl Serialize) -> Vec<u8> {
    let mut s = serde_json::to_string_pretty(value).expect("plans and manifests always serialize");
    s.push('\n');
    s.into_bytes()
}

/// Parses JSON into `T`, with the JSON path of the first error.
fn json_from<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, DumpError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize::<_, T>(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if inner.is_eof() {
            DumpError::new(format!("truncated: the JSON ends early ({inner})"))
        } else if inner.is_syntax() {
            DumpError::new(format!("not valid JSON: {inner}"))
        } else if path == "." {
            DumpError::new(inner.to_string())
        } else {
            DumpError::new(format!("{path}: {inner}"))
        }
    })?;
    de.end().map_err(|e| DumpError::new(format!("not valid JSON: {e}")))?;
    Ok(value)
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
        if m.stages.len() != Stage::ALL.len() {
            errors.push(format!(
                "stages: {} entries, must be {} (one per stage: {})",
                m.stages.len(),
                Stage::ALL.len(),
                Stage::ALL.map(Stage::name).join(", ")
            ));
        }
        for (i, (entry, stage)) in m.stages.iter().zip(Stage::ALL).enumerate() {
            if entry.stage != stage {
                errors
                    .push(format!("stages[{i}].stage = {}: must be {stage} (stages are listed in order)", entry.stage));
            } else if entry.file.file != stage.file() {
                errors.push(format!("stages[{i}].file = {:?}: must be {:?}", entry.file.file, stage.file()));
            }
            if !entry.time_ms.is_finite() || entry.time_ms < 0.0 {
                errors.push(format!("stages[{i}].time_ms = {}: must be a time in milliseconds, >= 0", entry.time_ms));
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

#[cfg(test)]
mod tests;
