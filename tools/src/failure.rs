//! How a command fails: a message for stderr and an exit code.

use std::fmt;
use std::process::ExitCode;

/// A command's failure.
#[derive(Debug)]
pub enum Failure {
    /// Invalid input (a recipe, an argument): exit code 2. Each line is one problem.
    Invalid(String),
    /// Anything else (a file that cannot be read or written): exit code 1.
    Failed(String),
}

impl Failure {
    /// Prints the failure to stderr and returns its exit code.
    pub fn report(self) -> ExitCode {
        eprintln!("{self}");
        match self {
            Self::Invalid(_) => ExitCode::from(2),
            Self::Failed(_) => ExitCode::from(1),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(m) | Self::Failed(m) => f.write_str(m),
        }
    }
}
