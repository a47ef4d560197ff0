//! Why a smoke run could not be made: the crate's one error type. Each says
//! what is wrong and with which file, field or flag; the binary adds `error:`.

use std::fmt::Display;
use std::path::{Path, PathBuf};

use engine::ViewError;
use render::{GpuError, RenderError};

/// Why a smoke run, or one of its files, failed.
#[derive(Debug, thiserror::Error)]
pub enum SmokeError {
    /// A file or folder that cannot be read, written or created.
    #[error("cannot {action} {}: {message}", path.display())]
    Io {
        /// `read`, `write`, `create`, `copy`.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The system's reason.
        message: String,
    },
    /// A scenario, baseline or recipe file whose contents are not valid.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the field.
        message: String,
    },
    /// A scenario field outside what is allowed (the caller adds the file).
    #[error("{0}")]
    Field(String),
    /// `--scenario` names none of the scenarios.
    #[error("--scenario {name}: no such scenario (known: {known})")]
    UnknownScenario {
        /// The name given.
        name: String,
        /// The scenarios there are, comma separated.
        known: String,
    },
    /// The scenarios folder holds none.
    #[error("no scenarios in {}", .0.display())]
    NoScenarios(PathBuf),
    /// A view a scenario names cannot be posed.
    #[error("view: {0}")]
    View(#[from] ViewError),
    /// Drawing or reading a frame back failed.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// No device to draw with.
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

impl SmokeError {
    /// An I/O failure to `action` `path`.
    pub fn io(action: &'static str, path: &Path, e: impl Display) -> Self {
        Self::Io { action, path: path.to_owned(), message: e.to_string() }
    }

    /// A file whose contents are not valid.
    pub fn invalid(path: &Path, e: impl Display) -> Self {
        Self::Invalid { path: path.to_owned(), message: e.to_string() }
    }
}
