//! `planet validate FILE`: `ok`, or every error found, one a line, and exit 2.

use std::path::PathBuf;

use planet::PlannedSystem;

use crate::failure::Failure;
use crate::load;
use crate::output::outln;

/// Arguments of `planet validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// System recipe (JSON) to check.
    file: PathBuf,
}

/// Validates the file: parsing, overrides and every planet's recipe.
pub fn run(args: &Args) -> Result<(), Failure> {
    let text = load::text(&args.file, load::FileKind::Recipe)?;
    match PlannedSystem::from_json(&text) {
        Ok(_) => {
            outln!("ok");
            Ok(())
        }
        Err(errors) => Err(Failure::Listed(load::capped_lines(&errors.to_string()))),
    }
}
