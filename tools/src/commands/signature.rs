//! `planet signature [FILE]`: the system's signature, one hex line.

use std::path::PathBuf;

use crate::failure::Failure;
use crate::load;
use crate::output::outln;

/// Arguments of `planet signature`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// System recipe (JSON); the embedded default system when omitted.
    file: Option<PathBuf>,
}

/// Prints the signature.
pub fn run(args: &Args) -> Result<(), Failure> {
    outln!("{}", load::system(args.file.as_deref())?.signature());
    Ok(())
}
