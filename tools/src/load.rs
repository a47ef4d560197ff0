//! Loading a system (from a recipe file, or the embedded default) and
//! reading every file the program reads, through the engine's one bounded
//! reader (`engine::read`), with failures that name the file.

use std::path::Path;

pub use engine::read::{FileKind, Unread, bounded};
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
