//! Writing outputs so that an interrupted or failed write never destroys
//! the previous one: every file goes to a temporary name beside its target
//! and is renamed over it whole (`engine::write`); a folder (a dump) is
//! written beside its target and swapped in (in one step where Linux's
//! `renameat2` exchange serves, so no moment leaves it missing). A missing parent folder is
//! created. The output format is checked from the extension before any work
//! starts ([`expect_extension`]).

use std::io::Cursor;
use std::path::Path;

use engine::write::{parent_of, temporary};

use crate::failure::Failure;

fn failed(path: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::Failed(format!("cannot write {}: {e}", path.display()))
}

/// Writes `bytes` to `file`, replacing it whole or not at all.
pub fn replace_bytes(file: &Path, bytes: &[u8]) -> Result<(), Failure> {
    engine::write::replace_bytes(file, bytes).map_err(|e| Failure::Failed(e.to_string()))
}

/// Writes `text` to `file`, replacing it whole or not at all.
pub fn replace(file: &Path, text: &str) -> Result<(), Failure> {
    replace_bytes(file, text.as_bytes())
}

/// An image as PNG at `file`, replacing it whole or not at all.
pub fn png<P, C>(file: &Path, image: &image::ImageBuffer<P, C>) -> Result<(), Failure>
where
    P: image::PixelWithColorType,
    [P::Subpixel]: image::EncodableLayout,
    C: std::ops::Deref<Target = [P::Subpixel]>,
{
    let mut bytes = Cursor::new(Vec::new());
    image.write_to(&mut bytes, image::ImageFormat::Png).map_err(|e| failed(file, e))?;
    replace_bytes(file, bytes.get_ref())
}

/// Fails early, naming `flag`, unless `path` ends in one of `allowed` (lower case, without the dot).
pub fn expect_extension(flag: &str, path: &Path, allowed: &[&str]) -> Result<(), Failure> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    if ext.as_deref().is_some_and(|e| allowed.contains(&e)) {
        return Ok(());
    }
    let list: Vec<String> = allowed.iter().map(|a| format!(".{a}")).collect();
    Err(Failure::Invalid(format!("{flag} {}: must end in {}", path.display(), list.join(" or "))))
}

/// Writes a folder with `fill` into a temporary folder beside `dir`, then
/// swaps it in: an earlier folder there is replaced only once the new one is
/// complete, and an interrupted write leaves the earlier one as it was.
pub fn replace_folder(dir: &Path, fill: impl FnOnce(&Path) -> Result<(), Failure>) -> Result<(), Failure> {
    parent_of(dir).map_err(|e| Failure::Failed(e.to_string()))?;
    let tmp = temporary(dir, "tmp");
    let old = temporary(dir, "old");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir(&tmp).map_err(|e| failed(dir, e))?;
    if let Err(e) = fill(&tmp) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    // Where the system can, swap the two folders in one step, so no moment
    // leaves `dir` missing; the earlier one is then at `tmp`.
    if dir.exists() && exchange(&tmp, dir) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Ok(());
    }
    // Else move the earlier folder aside (rename cannot replace a non-empty folder), then the new one in.
    let had_old = dir.exists();
    if had_old {
        std::fs::rename(dir, &old).map_err(|e| failed(dir, e))?;
    }
    if let Err(e) = std::fs::rename(&tmp, dir) {
        if had_old {
            let _ = std::fs::rename(&old, dir);
        }
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(failed(dir, e));
    }
    if had_old {
        let _ = std::fs::remove_dir_all(&old);
    }
    Ok(())
}

/// Swaps two paths in one step (Linux `renameat2` with `RENAME_EXCHANGE`);
/// false where the system or the file system cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> bool {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).is_ok()
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> bool {
    false
}
