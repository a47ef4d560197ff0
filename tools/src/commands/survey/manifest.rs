//! A survey folder's manifest (`manifest.json`): the settings it was made
//! with, which shard it is, and every file it holds with its content hash
//! (XXH3-128). Files of figures and pictures are hashed; files of measured
//! times are listed apart, unhashed, for they differ from run to run. It is
//! written last: a folder without one is not finished.

use std::path::Path;

use engine::survey::{Selection, Shard, SurveySample};
use serde::{Deserialize, Serialize};

use crate::failure::Failure;

/// The manifest's file name.
pub const MANIFEST: &str = "manifest.json";

/// What the manifest's `format` says.
const FORMAT: &str = "planet-survey";

/// What makes two survey folders parts of one survey: equal settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The systems' seeds, `A..B`, or the template's own seed.
    pub systems: String,
    /// The template recipe's name, if any.
    pub template_name: Option<String>,
    /// XXH3-128 of the template recipe's JSON.
    pub template: String,
    /// The pictures of each planet.
    pub views: Vec<String>,
    /// Thumbnail size (none without pictures).
    pub size: Option<(u32, u32)>,
    /// What each planet's figures sample.
    pub sample: SurveySample,
    /// The generate budget, milliseconds.
    pub generate_budget_ms: f64,
    /// The generator's version.
    pub generator_version: u32,
}

impl Settings {
    /// The settings of a survey.
    #[must_use]
    pub fn new(
        selection: &Selection,
        views: &[String],
        size: (u32, u32),
        sample: SurveySample,
        generate_budget_ms: f64,
    ) -> Self {
        let seeds = selection.seeds();
        Self {
            systems: format!("{}..{}", seeds.start, seeds.end),
            template_name: selection.template.name.clone(),
            template: hash(selection.template.to_json().as_bytes()),
            views: views.to_vec(),
            size: (!views.is_empty()).then_some(size),
            sample,
            generate_budget_ms,
            generator_version: planet::GENERATOR_VERSION,
        }
    }
}

/// One file of a folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Path inside the folder, `/`-separated.
    pub path: String,
    /// XXH3-128 of its bytes, 32 hex digits.
    pub xxh3: String,
}

/// A survey folder's manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `planet-survey`.
    pub format: String,
    /// The survey's settings.
    pub settings: Settings,
    /// Which shard (none for a merged report).
    pub shard: Option<Shard>,
    /// Planets in the folder.
    pub planets: usize,
    /// Figures and pictures: files that are the same in every run.
    pub files: Vec<Entry>,
    /// Measured times: files that differ from run to run.
    pub measured: Vec<String>,
}

impl Entry {
    /// File `path` of `dir`, hashed.
    pub fn of(dir: &Path, path: &str) -> Result<Self, Failure> {
        Ok(Self { path: path.to_owned(), xxh3: hash(&read(&dir.join(path))?) })
    }
}

impl Manifest {
    /// A manifest of `files` (in the order given) and `measured`.
    #[must_use]
    pub fn new(
        settings: &Settings,
        shard: Option<Shard>,
        planets: usize,
        files: Vec<Entry>,
        measured: Vec<String>,
    ) -> Self {
        Self { format: FORMAT.into(), settings: settings.clone(), shard, planets, files, measured }
    }

    /// Writes the manifest into `dir`.
    pub fn write(&self, dir: &Path) -> Result<(), Failure> {
        let text = serde_json::to_string_pretty(self).map_err(|e| Failure::Failed(e.to_string()))?;
        crate::save::replace(&dir.join(MANIFEST), &(text + "\n"))
    }

    /// The manifest of `dir`; `None` when it has none (an unfinished folder).
    pub fn read(dir: &Path) -> Result<Option<Self>, Failure> {
        let path = dir.join(MANIFEST);
        if !path.exists() {
            return Ok(None);
        }
        let text = crate::load::text(&path, crate::load::FileKind::Survey)?;
        let manifest: Self = serde_json::from_str(&text)
            .map_err(|e| Failure::Invalid(format!("{} is not a survey manifest: {e}", path.display())))?;
        if manifest.format != FORMAT {
            return Err(Failure::Invalid(format!("{}: format {:?}, not {FORMAT:?}", path.display(), manifest.format)));
        }
        Ok(Some(manifest))
    }

    /// Checks every hashed file of `dir` against the manifest.
    pub fn verify(&self, dir: &Path) -> Result<(), Failure> {
        for e in &self.files {
            if e.path.contains("..") || e.path.starts_with('/') {
                return Err(Failure::Invalid(format!(
                    "{}: the manifest names {:?}, outside it",
                    dir.display(),
                    e.path
                )));
            }
            let got = hash(&read(&dir.join(&e.path))?);
            if got != e.xxh3 {
                return Err(Failure::Invalid(format!(
                    "{}: {} does not match its manifest (damaged or changed since it was written)",
                    dir.display(),
                    e.path
                )));
            }
        }
        Ok(())
    }
}

/// XXH3-128 of `bytes`, 32 hex digits.
#[must_use]
pub fn hash(bytes: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::Failed(format!("cannot read {}: {e}", path.display())))
}
