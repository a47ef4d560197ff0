//! Loading a system: from a recipe file, or the embedded default.

use std::path::Path;

use planet::{PlannedSystem, RecipeErrors, SystemRecipe};

use crate::failure::Failure;

/// Reads and parses a recipe file, or the embedded default when `path` is `None`.
pub fn recipe(path: Option<&Path>) -> Result<SystemRecipe, Failure> {
    match path {
        None => Ok(SystemRecipe::default_system()),
        Some(p) => SystemRecipe::from_json(&read(p)?).map_err(|e| invalid(p, &e)),
    }
}

/// Loads and plans a system.
pub fn system(path: Option<&Path>) -> Result<PlannedSystem, Failure> {
    let r = recipe(path)?;
    PlannedSystem::build(&r).map_err(|e| invalid(path.unwrap_or(Path::new("(default system)")), &e))
}

/// The text of a file, or a failure naming it.
pub fn read(path: &Path) -> Result<String, Failure> {
    let bytes = std::fs::read(path).map_err(|e| Failure::Failed(format!("cannot read {}: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|e| {
        Failure::Invalid(format!(
            "{} is not UTF-8 text (bad byte at offset {}); a recipe is a JSON file",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

fn invalid(path: &Path, errors: &RecipeErrors) -> Failure {
    let n = errors.errors().len();
    let plural = if n == 1 { "" } else { "s" };
    Failure::Invalid(format!("{} is not a valid system recipe ({n} error{plural}):\n{errors}", path.display()))
}
