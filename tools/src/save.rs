//! Writing a report file (JSON) so that a failed or interrupted write never
//! leaves a half-written one in place of the last: written beside it under
//! a temporary name, then renamed over it.

use std::path::Path;

use crate::failure::Failure;

/// Writes `text` to `file`, replacing it whole or not at all.
pub fn replace(file: &Path, text: &str) -> Result<(), Failure> {
    let tmp = file.with_extension("json.tmp");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, file))
        .map_err(|e| Failure::Failed(format!("cannot write {}: {e}", file.display())))
}
