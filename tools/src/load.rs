//! Loading a system (from a recipe file, or the embedded default) and
//! reading every file the program reads: one bounded reader, which refuses
//! directories, devices and FIFOs by type and anything larger than its
//! kind's cap before reading it, and never reads past the cap.

use std::io::Read;
use std::path::Path;

use planet::{PlannedSystem, RecipeErrors, SystemRecipe};

use crate::failure::Failure;

/// Reads and parses a recipe file, or the embedded default when `path` is `None`.
pub fn recipe(path: Option<&Path>) -> Result<SystemRecipe, Failure> {
    match path {
        None => Ok(SystemRecipe::default_system()),
        Some(p) => SystemRecipe::from_json(&text(p, FileKind::Recipe)?).map_err(|e| invalid(p, &e)),
    }
}

/// Loads and plans a system.
pub fn system(path: Option<&Path>) -> Result<PlannedSystem, Failure> {
    let r = recipe(path)?;
    PlannedSystem::build(&r).map_err(|e| invalid(path.unwrap_or(Path::new("(default system)")), &e))
}

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
}

/// Recipes, paths, scripts and manifests are a few KiB; a few MiB is generous.
const TEXT_CAP: u64 = 4 << 20;
/// The largest stage file a region makes is under 2 MiB (a LOD-1 sphere mesh).
const STAGE_CAP: u64 = 64 << 20;

impl FileKind {
    /// The most a file of this kind may hold, bytes.
    #[must_use]
    pub fn cap(self) -> u64 {
        match self {
            Self::Recipe | Self::CameraPath | Self::Script | Self::Manifest | Self::Plan => TEXT_CAP,
            Self::StageFile { recorded } => recorded.min(STAGE_CAP),
            Self::AnyStageFile => STAGE_CAP,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Recipe => "a recipe",
            Self::CameraPath => "a camera path",
            Self::Script => "an input script",
            Self::Manifest => "a dump manifest",
            Self::Plan => "a dumped plan",
            Self::StageFile { .. } | Self::AnyStageFile => "a stage file",
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

/// The bytes of `path` (see [`bounded`]), or a failure naming the file:
/// exit 2 for the wrong type or size, 1 when it cannot be read.
pub fn bytes(path: &Path, kind: FileKind) -> Result<Vec<u8>, Failure> {
    bounded(path, kind).map_err(|e| match e {
        Unread::Refused(m) => Failure::Invalid(format!("{}: {m}", path.display())),
        Unread::Io(e) => Failure::Failed(format!("cannot read {}: {e}", path.display())),
    })
}

/// The UTF-8 text of `path` (see [`bytes`]).
pub fn text(path: &Path, kind: FileKind) -> Result<String, Failure> {
    String::from_utf8(bytes(path, kind)?).map_err(|e| {
        Failure::Invalid(format!(
            "{} is not UTF-8 text (bad byte at offset {}); {} is a JSON file",
            path.display(),
            e.utf8_error().valid_up_to(),
            kind.name()
        ))
    })
}

/// The most problems a list of them shows before it says how many more there are.
pub const MAX_LISTED: usize = 50;

/// `lines`, at most [`MAX_LISTED`] of them, then `... and N more`.
#[must_use]
pub fn capped_lines(lines: &str) -> String {
    let total = lines.lines().count();
    let mut out: Vec<&str> = lines.lines().take(MAX_LISTED).collect();
    let more;
    if total > MAX_LISTED {
        more = format!("... and {} more", total - MAX_LISTED);
        out.push(&more);
    }
    out.join("\n")
}

fn invalid(path: &Path, errors: &RecipeErrors) -> Failure {
    let n = errors.errors().len();
    let plural = if n == 1 { "" } else { "s" };
    let listed = capped_lines(&errors.to_string());
    Failure::Invalid(format!("{} is not a valid system recipe ({n} error{plural}):\n{listed}", path.display()))
}
