//! Why a frame could not be drawn or read back: the one error type of the
//! render crate's drawing calls (the device's own is `GpuError`).

use engine::ViewError;

/// Why drawing, capturing or reading a frame back failed.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The view names something the world does not have.
    #[error("view: {0}")]
    View(#[from] ViewError),
    /// Waiting for the GPU to finish failed.
    #[error("waiting for the GPU: {0}")]
    Poll(String),
    /// Mapping the frame's buffer for reading failed.
    #[error("reading the frame back: {0}")]
    Readback(String),
    /// The frame read back does not have the target's size.
    #[error("the frame read back has the wrong size")]
    WrongSize,
    /// The window's surface cannot be drawn to.
    #[error("the window's surface is invalid")]
    InvalidSurface,
}
