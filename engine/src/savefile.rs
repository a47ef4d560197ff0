//! Saves on disk: written so that nothing is ever lost, read so that a
//! damaged one never loads silently.
//!
//! Writing `world.save`: the bytes go to a temporary file beside it, which
//! is flushed to disk (fsync) and read back and decoded; the current save,
//! if any, becomes the backup `world.save.bak` (hard-linked to a temporary
//! name, then renamed over the old backup); the temporary file is renamed
//! over the save; the folder is flushed. At every moment the save is the
//! old one or the new one, whole, and the backup the one before. Reading
//! checks every record (`planet::edit::save`); when the save is damaged, the
//! error names the record and offers the backup if it reads.
//!
//! For the kill test (`tools/tests/saves.rs`), the environment variable
//! `PLANET_SAVE_HOLD=STEP` holds a writer at one of its steps (see
//! [`HoldStep`]) until the process is killed, so a kill lands at a known
//! point of the write rather than wherever a timer happens to fall.

use std::io::Write;
use std::path::{Path, PathBuf};

use planet::edit::save::{Save, SaveError};

use crate::read::{FileKind, Unread, bounded};
use crate::write::{parent_of, temporary};

/// Why a save was not written or read.
#[derive(Debug, thiserror::Error)]
pub enum SaveFileError {
    /// The system refused.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// Not a file a save can be read from (a folder, a device, too large).
    #[error("{}: {reason}", path.display())]
    Refused {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A damaged save, or one of another format.
    #[error("{} is damaged and was not loaded: {error}{}", path.display(), backup_note(backup.as_deref()))]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        error: SaveError,
        /// The backup, where it reads.
        backup: Option<PathBuf>,
    },
    /// Written, but what was read back is not what was written.
    #[error("{} did not read back as written ({why}); the previous save is untouched", path.display())]
    Unverified {
        /// What was read back.
        why: String,
        /// The file.
        path: PathBuf,
    },
}

fn backup_note(backup: Option<&Path>) -> String {
    backup.map_or_else(String::new, |b| {
        format!("; the backup {} reads: load it with --save {}", b.display(), b.display())
    })
}

/// The backup of `save`: `NAME.bak` beside it.
#[must_use]
pub fn backup_of(save: &Path) -> PathBuf {
    let mut name = save.file_name().map_or_else(|| "save".into(), std::ffi::OsStr::to_os_string);
    name.push(".bak");
    save.with_file_name(name)
}

/// Writes `save` to `path` (see the module's order of steps).
pub fn write_save(path: &Path, save: &Save) -> Result<(), SaveFileError> {
    fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> SaveFileError + 'a {
        move |source| SaveFileError::Io { action, path: path.to_owned(), source }
    }
    parent_of(path).map_err(|e| SaveFileError::Io { action: "create", path: e.path, source: e.source })?;
    let bytes = save.encode();
    let tmp = temporary(path, "tmp");
    let hold = HoldStep::from_env();
    let result = (|| {
        let mut file = std::fs::File::create(&tmp).map_err(io("write", &tmp))?;
        let (first, rest) = bytes.split_at(bytes.len() / 2);
        file.write_all(first).map_err(io("write", &tmp))?;
        file.flush().map_err(io("write", &tmp))?;
        HoldStep::Partial.hold_if(hold);
        file.write_all(rest).map_err(io("write", &tmp))?;
        file.sync_all().map_err(io("flush", &tmp))?;
        drop(file);
        HoldStep::Flushed.hold_if(hold);
        let back = std::fs::read(&tmp).map_err(io("read back", &tmp))?;
        match Save::decode(&back) {
            Ok(read) if read == *save => {}
            Ok(_) => {
                return Err(SaveFileError::Unverified {
                    why: "it decodes to other edits".into(),
                    path: path.to_owned(),
                });
            }
            Err(e) => return Err(SaveFileError::Unverified { why: e.to_string(), path: path.to_owned() }),
        }
        HoldStep::Verified.hold_if(hold);
        if path.is_file() {
            let backup = backup_of(path);
            let staged = temporary(&backup, "tmp");
            let _ = std::fs::remove_file(&staged);
            std::fs::hard_link(path, &staged)
                .or_else(|_| std::fs::copy(path, &staged).map(|_| ()))
                .map_err(io("back up", path))?;
            std::fs::rename(&staged, &backup).map_err(io("back up", &backup))?;
            // Where the backup already was the save (a write killed after
            // this step), the rename leaves both links (POSIX renames
            // nothing between links of one file): the staged one goes.
            let _ = std::fs::remove_file(&staged);
        }
        HoldStep::BackedUp.hold_if(hold);
        std::fs::rename(&tmp, path).map_err(io("write", path))?;
        HoldStep::Replaced.hold_if(hold);
        sync_folder(path).map_err(io("flush the folder of", path))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A step of [`write_save`] at which `PLANET_SAVE_HOLD` can hold the writer
/// until it is killed: the kill test's way of landing a kill at a known
/// point of a write, whatever the machine's speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldStep {
    /// Half the bytes are in the temporary file.
    Partial,
    /// The temporary file is whole and flushed to disk.
    Flushed,
    /// The temporary file was read back and decoded.
    Verified,
    /// The old save is now the backup; the save is still the old one.
    BackedUp,
    /// The temporary file was renamed over the save; the folder is not yet flushed.
    Replaced,
}

impl HoldStep {
    /// Every step, in the order a write passes them.
    pub const ALL: [Self; 5] = [Self::Partial, Self::Flushed, Self::Verified, Self::BackedUp, Self::Replaced];

    /// The step's name in `PLANET_SAVE_HOLD`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Partial => "partial",
            Self::Flushed => "flushed",
            Self::Verified => "verified",
            Self::BackedUp => "backed-up",
            Self::Replaced => "replaced",
        }
    }

    /// The step `PLANET_SAVE_HOLD` names, if any (an unknown name holds nowhere).
    fn from_env() -> Option<Self> {
        let wanted = std::env::var("PLANET_SAVE_HOLD").ok()?;
        Self::ALL.into_iter().find(|s| s.name() == wanted)
    }

    /// Holds the writer here for good when `wanted` is this step, after
    /// saying so on stderr (the line the kill test waits for).
    fn hold_if(self, wanted: Option<Self>) {
        if wanted == Some(self) {
            eprintln!("save held at {}: waiting to be killed", self.name());
            loop {
                std::thread::park();
            }
        }
    }
}

/// Flushes the folder holding `path`, so the renames in it are on disk.
fn sync_folder(path: &Path) -> std::io::Result<()> {
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::File::open(folder)?.sync_all()
}

/// Reads and checks the save at `path`.
pub fn read_save(path: &Path) -> Result<Save, SaveFileError> {
    let bytes = bounded(path, FileKind::Save).map_err(|e| match e {
        Unread::Refused(reason) => SaveFileError::Refused { path: path.to_owned(), reason },
        Unread::Io(source) => SaveFileError::Io { action: "read", path: path.to_owned(), source },
    })?;
    Save::decode(&bytes).map_err(|error| {
        let backup = backup_of(path);
        let reads = bounded(&backup, FileKind::Save).ok().is_some_and(|b| Save::decode(&b).is_ok());
        SaveFileError::Damaged { path: path.to_owned(), error, backup: reads.then_some(backup) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use planet::Signature;
    use planet::edit::{Brush, Edit, Operation};

    fn save(n: usize) -> Save {
        let mut s = Save::new(Signature(42), 2);
        let edit =
            Edit { op: Operation::Dig, brush: Brush::Sphere { radius_m: 2.0 }, centre: [0.0, 4e3, 0.0], material: 0 };
        s.planets[1] = vec![edit; n];
        s
    }

    #[test]
    fn a_save_is_replaced_whole_with_the_last_one_as_backup() {
        let dir = std::env::temp_dir().join(format!("engine-savefile-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("w").join("world.save");
        write_save(&path, &save(1)).unwrap();
        assert_eq!(read_save(&path).unwrap(), save(1));
        assert!(!backup_of(&path).exists(), "a first save has nothing to back up");
        write_save(&path, &save(2)).unwrap();
        assert_eq!(read_save(&path).unwrap(), save(2));
        assert_eq!(read_save(&backup_of(&path)).unwrap(), save(1));
        let names: Vec<String> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "temporary files left: {names:?}");
        // Damage the save: refused, naming the record, offering the backup.
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.len() - 12;
        bytes[at] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        let e = read_save(&path).unwrap_err().to_string();
        assert!(e.contains("record 1 (edits)") && e.contains("checksum") && e.contains("world.save.bak reads"), "{e}");
        // A folder where the save should be.
        let e = read_save(&dir).unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
