//! Writing a file so that an interrupted or failed write never destroys the
//! previous one: the bytes go to a temporary name beside the target, which
//! is then renamed over it whole. A missing parent folder is created. The
//! `planet` binary (`tools/src/save.rs`, which adds PNGs and whole folders)
//! and the smoke tests write every file through here.

use std::path::{Path, PathBuf};

/// Why a file was not written: what could not be done, to which path.
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} {}: {source}", path.display())]
pub struct WriteError {
    /// `write`, or `create` for the parent folder.
    pub action: &'static str,
    /// The file or folder.
    pub path: PathBuf,
    /// The system's reason.
    pub source: std::io::Error,
}

/// A name beside `target` for this process's partial output (a dot file,
/// so that listings skip it).
#[must_use]
pub fn temporary(target: &Path, what: &str) -> PathBuf {
    let name = target.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    target.with_file_name(format!(".{name}.{what}-{}", std::process::id()))
}

/// Creates `path`'s parent folder if it is missing.
pub fn parent_of(path: &Path) -> Result<(), WriteError> {
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => std::fs::create_dir_all(parent).map_err(|source| WriteError {
            action: "create",
            path: parent.to_owned(),
            source,
        }),
        None => Ok(()),
    }
}

/// Writes `bytes` to `file`, replacing it whole or not at all.
pub fn replace_bytes(file: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    parent_of(file)?;
    let tmp = temporary(file, "tmp");
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, file));
    if let Err(source) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(WriteError { action: "write", path: file.to_owned(), source });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_replaced_whole_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("engine-write-{}", std::process::id()));
        let file = dir.join("deeper").join("out.json");
        replace_bytes(&file, b"first").unwrap();
        replace_bytes(&file, b"second").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"second");
        let names: Vec<String> = std::fs::read_dir(file.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["out.json"]);
        // A folder where the file should go: an error naming it, nothing left behind.
        let blocked = dir.join("blocked");
        std::fs::create_dir_all(blocked.join("x")).unwrap();
        let e = replace_bytes(&blocked, b"x").unwrap_err();
        assert!(e.to_string().starts_with(&format!("cannot write {}", blocked.display())), "{e}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
