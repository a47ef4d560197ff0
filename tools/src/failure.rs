//! How a command fails: a message for stderr and an exit code. Messages are
//! written without a prefix; only [`Failure::report`] adds `error: `, to
//! every line, so each problem reads as its own error.

use std::fmt;
use std::process::ExitCode;

use crate::output::errln;

/// A command's failure.
#[derive(Debug)]
pub enum Failure {
    /// Invalid input (a recipe, an argument): exit code 2. Each line is one problem.
    Invalid(String),
    /// Anything else (a file that cannot be read or written): exit code 1.
    Failed(String),
    /// Invalid input whose lines are already the report (`planet validate`'s
    /// list, one problem a line): printed as they are, exit code 2.
    Listed(String),
    /// Stdout was closed (a pipe whose reader left): no message, exit code
    /// 141, as a shell reports a program ended by SIGPIPE.
    Closed,
}

impl Failure {
    /// Prints the failure to stderr, `error: ` before each line, and returns its exit code.
    pub fn report(self) -> ExitCode {
        match &self {
            Self::Listed(m) => errln!("{m}"),
            Self::Invalid(m) | Self::Failed(m) => {
                for line in m.lines() {
                    errln!("error: {line}");
                }
            }
            Self::Closed => {}
        }
        match self {
            Self::Invalid(_) | Self::Listed(_) => ExitCode::from(2),
            Self::Failed(_) => ExitCode::from(1),
            Self::Closed => ExitCode::from(141),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(m) | Self::Failed(m) | Self::Listed(m) => f.write_str(m),
            Self::Closed => f.write_str("stdout was closed"),
        }
    }
}
