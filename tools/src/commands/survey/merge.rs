//! `planet survey merge DIR... --out OUT`: joins finished shards of one
//! survey into one report: `survey.csv` and `survey.parquet` (the
//! figures), `timings.csv`,
//! `thumbs/`, `plots/` and the contact sheet `index.html`, with a manifest.
//! Every shard is checked against its manifest, all must share their
//! settings, and together they must be every shard of the survey exactly
//! once. The report's figures, pictures and their plots are the same bytes
//! however the survey was sharded.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use engine::survey::{PlanetFigures, PlanetTimings};

use super::manifest::{Entry, MANIFEST, Manifest};
use super::shard::{FIGURES, THUMBS, TIMINGS};
use super::{parquet, plots, sheet, table};
use crate::failure::Failure;
use crate::output::{errln, outln};

/// Arguments of `planet survey merge`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Shard folders, or folders holding `shard-I-of-N` folders.
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Folder of the report (replaced whole once complete).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// The merged table's file name.
pub const TABLE: &str = "survey.csv";
/// The merged times' file name.
pub const TIMES: &str = "timings.csv";

/// Runs the merge.
pub fn run(args: &Args) -> Result<(), Failure> {
    let shards = find_shards(&args.dirs)?;
    crate::save::replace_folder(&args.out, |tmp| merge_into(&shards, tmp))?;
    outln!("{}", args.out.join(sheet::SHEET).display());
    Ok(())
}

/// The finished shard folders among `dirs` and the folders they hold.
fn find_shards(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut out = Vec::new();
    for d in dirs {
        if !d.is_dir() {
            return Err(Failure::Invalid(format!("{}: no such folder", d.display())));
        }
        if d.join(MANIFEST).exists() {
            out.push(d.clone());
            continue;
        }
        let entries = std::fs::read_dir(d).map_err(|e| Failure::Failed(format!("cannot read {}: {e}", d.display())))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("shard-")))
            .collect();
        found.sort();
        if found.is_empty() {
            return Err(Failure::Invalid(format!("{} holds no survey shard (shard-I-of-N folders)", d.display())));
        }
        out.extend(found);
    }
    Ok(out)
}

/// Checks `shards` and writes their report into `out`.
pub fn merge_into(shards: &[PathBuf], out: &Path) -> Result<(), Failure> {
    let mut read = Vec::new();
    for dir in shards {
        let manifest = Manifest::read(dir)?.ok_or_else(|| {
            Failure::Invalid(format!("{} is not a finished shard: it has no {MANIFEST}", dir.display()))
        })?;
        manifest.verify(dir)?;
        read.push((dir.clone(), manifest));
    }
    check_complete(&read)?;
    read.sort_by_key(|(_, m)| m.shard.map_or(0, |s| s.index));
    let settings = read[0].1.settings.clone();
    let (mut figures, mut timings) = (Vec::new(), Vec::new());
    // The shards' pictures, checked against their manifests already: their
    // entries serve the report's manifest as they are, in planet order.
    let mut pictures: Vec<Entry> = Vec::new();
    std::fs::create_dir_all(out.join(THUMBS)).map_err(|e| cannot(out, &e))?;
    for (dir, manifest) in &read {
        let f: Vec<PlanetFigures> = load(&dir.join(FIGURES))?;
        let t: Vec<PlanetTimings> = load(&dir.join(TIMINGS))?;
        if f.len() != manifest.planets || t.len() != manifest.planets {
            return Err(Failure::Invalid(format!("{}: the manifest says {} planets", dir.display(), manifest.planets)));
        }
        for e in manifest.files.iter().filter(|e| e.path.starts_with(THUMBS)) {
            link_or_copy(&dir.join(&e.path), &out.join(&e.path))?;
            pictures.push(e.clone());
        }
        figures.extend(f);
        timings.extend(t);
    }
    let columns = table::figure_columns(&figures);
    crate::save::replace(&out.join(TABLE), &table::csv(&columns))?;
    crate::save::replace_bytes(&out.join(parquet::PARQUET), &parquet::bytes(&columns)?)?;
    crate::save::replace(&out.join(TIMES), &table::csv(&table::timing_columns(&timings)))?;
    let plotted = plots::write(&out.join(plots::PLOTS), &figures, &timings)?;
    let thumbs: BTreeSet<String> = pictures.iter().map(|e| e.path.clone()).collect();
    sheet::write(out, &settings, &figures, &timings, &plotted, &thumbs)?;
    let mut files = vec![Entry::of(out, TABLE)?, Entry::of(out, parquet::PARQUET)?];
    files.extend(pictures);
    for p in plotted.iter().filter(|p| !p.measured) {
        files.push(Entry::of(out, &p.file)?);
    }
    let mut measured = vec![TIMES.to_owned(), sheet::SHEET.to_owned()];
    measured.extend(plotted.iter().filter(|p| p.measured).map(|p| p.file.clone()));
    Manifest::new(&settings, None, figures.len(), files, measured).write(out)?;
    let flagged = figures.iter().filter(|f| !f.flags.is_empty()).count();
    errln!("merged {} shard(s): {} planets, {flagged} flagged", read.len(), figures.len());
    Ok(())
}

/// One survey's every shard, each once.
fn check_complete(read: &[(PathBuf, Manifest)]) -> Result<(), Failure> {
    let Some((first_dir, first)) = read.first() else {
        return Err(Failure::Invalid("no shard to merge".into()));
    };
    let Some(count) = first.shard.map(|s| s.count) else {
        return Err(Failure::Invalid(format!("{} is a merged report, not a shard", first_dir.display())));
    };
    let mut seen = vec![None::<&Path>; count as usize];
    for (dir, m) in read {
        if m.settings != first.settings {
            return Err(Failure::Invalid(format!(
                "{} and {} are shards of different surveys (their settings differ)",
                first_dir.display(),
                dir.display()
            )));
        }
        let shard = m.shard.filter(|s| s.count == count).ok_or_else(|| {
            Failure::Invalid(format!("{} is not one of {count} shards, as {} is", dir.display(), first_dir.display()))
        })?;
        if let Some(other) = seen[shard.index as usize].replace(dir) {
            return Err(Failure::Invalid(format!(
                "shard {shard} is given twice: {} and {}",
                other.display(),
                dir.display()
            )));
        }
    }
    let missing: Vec<String> = (0..count).filter(|&i| seen[i as usize].is_none()).map(|i| i.to_string()).collect();
    if !missing.is_empty() {
        return Err(Failure::Invalid(format!(
            "the survey has {count} shards; missing (not finished or not given): {}",
            missing.join(", ")
        )));
    }
    Ok(())
}

fn load<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, Failure> {
    let text = crate::load::text(path, crate::load::FileKind::Survey)?;
    serde_json::from_str(&text).map_err(|e| Failure::Invalid(format!("{}: not a survey file: {e}", path.display())))
}

/// A hard link where the file system allows one, else a copy.
fn link_or_copy(from: &Path, to: &Path) -> Result<(), Failure> {
    if std::fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    std::fs::copy(from, to).map(|_| ()).map_err(|e| cannot(to, &e))
}

fn cannot(path: &Path, e: &std::io::Error) -> Failure {
    Failure::Failed(format!("cannot write {}: {e}", path.display()))
}
