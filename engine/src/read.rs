//! Bounded reading of every file a user hands the program (recipes, camera
//! paths, scripts, dumps, smoke scenarios): one reader, which refuses
//! directories, devices and FIFOs by type and anything larger than its
//! kind's cap before reading it, and never reads past the cap, so that a
//! recipe argument of `/dev/zero` is an error, not a process that grows
//! until the kernel kills it.

use std::io::Read;
use std::path::Path;

/// What a file the program reads holds, which sets the most it may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A system recipe (JSON).
    Recipe,
    /// A camera path (JSON keyframes).
    CameraPath,
    /// The flight client's input script (JSON steps).
    Script,
    /// A dump's `manifest.json`.
    Manifest,
    /// A dump's plan (`system_plan.json`, `planet_plan.json`): JSON, may be edited by hand.
    Plan,
    /// A dump's stage file, whose size the manifest records.
    StageFile {
        /// The size the manifest records, bytes.
        recorded: u64,
    },
    /// A stage file on its own (`planet inspect FILE`), size not known.
    AnyStageFile,
    /// A smoke-test scenario (JSON keyframes).
    Scenario,
    /// A smoke-test baseline (JSON timings and hashes).
    Baseline,
    /// A saved world (`planet::edit::save`).
    Save,
    /// A survey's manifest or table of figures or times (JSON).
    Survey,
}

/// Recipes, paths, scripts and manifests are a few KiB; a few MiB is generous.
const TEXT_CAP: u64 = 4 << 20;
/// The most a dumped plan may hold: a planet's layout holds a byte per plan
/// cell and every river's course (5.3 MiB for the home planet).
pub const PLAN_CAP: u64 = 32 * 1024 * 1024;
/// The largest stage file a region makes is under 2 MiB (a LOD-1 sphere mesh).
const STAGE_CAP: u64 = 64 << 20;
/// A save is 32 bytes an edit: 256 MiB is eight million edits.
const SAVE_CAP: u64 = 256 << 20;

impl FileKind {
    /// The most a file of this kind may hold, bytes.
    #[must_use]
    pub fn cap(self) -> u64 {
        match self {
            Self::Recipe | Self::CameraPath | Self::Script | Self::Manifest | Self::Scenario | Self::Baseline => {
                TEXT_CAP
            }
            Self::Plan => PLAN_CAP,
            Self::StageFile { recorded } => recorded.min(STAGE_CAP),
            Self::AnyStageFile => STAGE_CAP,
            Self::Save | Self::Survey => SAVE_CAP,
        }
    }

    /// What the file is, for messages (`a recipe`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Recipe => "a recipe",
            Self::CameraPath => "a camera path",
            Self::Script => "an input script",
            Self::Manifest => "a dump manifest",
            Self::Plan => "a dumped plan",
            Self::StageFile { .. } | Self::AnyStageFile => "a stage file",
            Self::Scenario => "a smoke scenario",
            Self::Baseline => "a smoke baseline",
            Self::Save => "a save",
            Self::Survey => "a survey file",
        }
    }
}

/// Why a file was not read: the wrong type or size (invalid input), or the
/// system's error. Says nothing of the path; the caller names the file.
#[derive(Debug)]
pub enum Unread {
    /// A directory, device, FIFO or socket, or larger than its kind's cap.
    Refused(String),
    /// The system could not read it.
    Io(std::io::Error),
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Refused(m) => f.write_str(m),
            Self::Io(e) => write!(f, "cannot read: {e}"),
        }
    }
}

/// The bytes of `path`, a regular file of at most `kind`'s cap.
pub fn bounded(path: &Path, kind: FileKind) -> Result<Vec<u8>, Unread> {
    let meta = std::fs::metadata(path).map_err(Unread::Io)?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a directory" } else { "not a regular file (a device, FIFO or socket)" };
        return Err(Unread::Refused(format!("is {what}; {} is a file", kind.name())));
    }
    let cap = kind.cap();
    let too_big = |size: u64| match kind {
        FileKind::StageFile { recorded } => {
            Unread::Refused(format!("{size} bytes, more than the {recorded} the manifest records"))
        }
        _ => Unread::Refused(format!("{size} bytes, more than the {cap} allowed for {}", kind.name())),
    };
    if meta.len() > cap {
        return Err(too_big(meta.len()));
    }
    // Never read past the cap, even from a file that grows while it is read.
    let mut out = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path).and_then(|f| f.take(cap + 1).read_to_end(&mut out)).map_err(Unread::Io)?;
    if out.len() as u64 > cap {
        return Err(too_big(out.len() as u64));
    }
    Ok(out)
}
