//! `planet dump --planet N --key F/L/X/Y/Z --out DIR`: writes every stage's
//! output for one region (the format is documented in `planet::dump`), and
//! the dump folder reading that `planet replay` and `planet inspect` share.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use planet::dump::{DumpError, FileEntry, MANIFEST_FILE, Manifest, RECIPE_FILE, ReplayedFrom, StageEntry};
use planet::pipeline::{Chain, Pipeline, RegionInput, Stage, StageOutput};
use planet::recipe::DEFAULT_SYSTEM_JSON;
use planet::{GENERATOR_VERSION, RegionKey, Signature, SystemRecipe};

use crate::failure::Failure;
use crate::load::{self, FileKind, Unread};
use crate::output::out;
use crate::pick::{self, PlanetArgs};

/// Arguments of `planet dump`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    planet: PlanetArgs,
    #[command(flatten)]
    key: pick::KeyArgs,
    /// The dump folder: written beside it and swapped in whole (an earlier folder there is replaced
    /// only once the new dump is complete).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Run each stage N times (1..=1000) and record the median time (every run's output must agree).
    #[arg(long, value_parser = engine::flags::repeat, default_value_t = 3, value_name = "N")]
    repeat: u32,
}

/// Runs every stage of the region and writes the dump.
pub fn run(args: &Args) -> Result<(), Failure> {
    let recipe_bytes = match &args.planet.system {
        Some(p) => load::text(p, FileKind::Recipe)?.into_bytes(),
        None => DEFAULT_SYSTEM_JSON.as_bytes().to_vec(),
    };
    let recipe = load::recipe(args.planet.system.as_deref())?;
    let (system, terrain) = args.planet.load()?;
    let key = args.key.key(&terrain)?;
    let input = RegionInput::new(&recipe, args.planet.planet, key);
    let mut chain = Chain::default();
    let mut outputs = Vec::new();
    let mut times = Vec::new();
    for &stage in Pipeline::standard().stages() {
        let r = super::replay::replay_stage(stage, &input, &chain, args.repeat, 1, None)?;
        if let Some(d) = r.unstable {
            return Err(Failure::Failed(format!("{stage}: runs of the stage disagree (not deterministic): {d}")));
        }
        chain.set(r.output.clone());
        outputs.push(r.output);
        times.push(super::replay::median(&r.times));
    }
    let manifest =
        write_dump(&args.out, &recipe_bytes, system.signature(), args.planet.planet, key, &outputs, &times, None)?;
    out!("{}", table(&args.out, &manifest));
    Ok(())
}

/// Runs one stage, timed.
pub fn timed(stage: Stage, input: &RegionInput<'_>, chain: &Chain) -> Result<(StageOutput, Duration), DumpError> {
    let start = Instant::now();
    let out = stage.run(input, chain)?;
    Ok((out, start.elapsed()))
}

/// A stage that refused to run.
pub fn invalid_stage(stage: Stage, e: &DumpError) -> Failure {
    let lines: Vec<String> = e.0.lines().map(|l| format!("{stage} ({}): {l}", stage.inputs_text())).collect();
    Failure::Invalid(lines.join("\n"))
}

/// The table `planet dump` prints: a line per file.
fn table(dir: &Path, m: &Manifest) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "dump {}: planet {}, region {}, GENERATOR_VERSION {}, signature {}",
        dir.display(),
        m.planet,
        m.key,
        m.generator_version,
        m.signature
    );
    let _ = writeln!(out, "  {:<12} {:<18} {:>9}  {:<16}  {:>10}", "stage", "file", "bytes", "hash", "time");
    let _ = writeln!(out, "  {:<12} {:<18} {:>9}  {:<16}", "(input)", m.recipe.file, m.recipe.size, m.recipe.hash);
    for e in &m.stages {
        let _ = writeln!(
            out,
            "  {:<12} {:<18} {:>9}  {:<16}  {:>7.3} ms",
            e.stage.name, e.file.file, e.file.size, e.file.hash, e.time_ms
        );
    }
    out
}

fn failed_write(path: &Path, e: &std::io::Error) -> Failure {
    Failure::Failed(format!("cannot write {}: {e}", path.display()))
}

/// Writes a dump folder: the recipe, every stage's file, the manifest (last,
/// so a folder with a manifest is complete).
#[allow(clippy::too_many_arguments)]
pub fn write_dump(
    dir: &Path,
    recipe_bytes: &[u8],
    signature: Signature,
    planet: u32,
    key: RegionKey,
    outputs: &[StageOutput],
    times: &[Duration],
    replayed_from: Option<ReplayedFrom>,
) -> Result<Manifest, Failure> {
    // Every file is made first; the folder then goes in whole (save::replace_folder).
    let mut files: Vec<(String, Vec<u8>)> = vec![(RECIPE_FILE.to_owned(), recipe_bytes.to_vec())];
    let mut stages = Vec::with_capacity(outputs.len());
    let mut planet_signature = Signature(0);
    for (out, time) in outputs.iter().zip(times) {
        if let Some(p) = out.get::<planet::PlanetPlan>() {
            planet_signature = p.signature();
        }
        let stage = out.stage();
        let bytes = out.encode(GENERATOR_VERSION);
        stages.push(StageEntry {
            stage,
            file: FileEntry::of(&stage.file(), &bytes),
            time_ms: (time.as_secs_f64() * 1e6).round() / 1e3,
        });
        files.push((stage.file(), bytes));
    }
    let manifest = Manifest {
        format: planet::dump::DUMP_FORMAT,
        generator_version: GENERATOR_VERSION,
        signature,
        planet,
        planet_signature,
        key: key.to_string(),
        recipe: FileEntry::of(RECIPE_FILE, recipe_bytes),
        stages,
        replayed_from,
    };
    files.push((MANIFEST_FILE.to_owned(), manifest.to_json()));
    crate::save::replace_folder(dir, |tmp| {
        for (name, bytes) in &files {
            let path = tmp.join(name);
            std::fs::write(&path, bytes).map_err(|e| failed_write(&dir.join(name), &e))?;
        }
        Ok(())
    })?;
    Ok(manifest)
}

/// One file of a dump as read: its bytes and what they decode to, or why not.
#[derive(Debug)]
pub struct DumpFile {
    /// The file's path.
    pub path: PathBuf,
    /// Its bytes, or why it was not read.
    pub bytes: Result<Vec<u8>, Unread>,
    /// Whether its size and hash are the manifest's.
    pub as_recorded: bool,
    /// What it decodes to, or why not (`None` when unreadable).
    pub output: Option<Result<StageOutput, String>>,
}

/// A dump folder as read, every problem kept for the caller to judge.
#[derive(Debug)]
pub struct RawDump {
    /// Its manifest.
    pub manifest: Manifest,
    /// The recipe's bytes (or why they were not read).
    pub recipe_bytes: Result<Vec<u8>, Unread>,
    /// The parsed recipe, or why not (`None` when unreadable).
    pub recipe: Option<Result<SystemRecipe, String>>,
    /// Whether the recipe's size and hash are the manifest's.
    pub recipe_as_recorded: bool,
    /// Every stage's file, in stage order.
    pub files: Vec<DumpFile>,
}

/// Reads a dump folder's manifest (failing when there is none or it is
/// invalid) and every file it lists (keeping each file's problem).
pub fn read_dump(dir: &Path) -> Result<RawDump, Failure> {
    if !dir.is_dir() {
        let what = if dir.exists() { "is a file, not a dump folder" } else { "does not exist" };
        return Err(Failure::Failed(format!("{}: {what}", dir.display())));
    }
    let manifest_path = dir.join(MANIFEST_FILE);
    let bytes = load::bounded(&manifest_path, FileKind::Manifest).map_err(|e| match e {
        Unread::Refused(m) => Failure::Invalid(format!("{}: {m}", manifest_path.display())),
        Unread::Io(e) => Failure::Failed(format!(
            "cannot read {}: {e} (a dump folder holds a manifest.json; `planet dump` writes one)",
            manifest_path.display()
        )),
    })?;
    let manifest = Manifest::from_json(&bytes).map_err(|e| invalid_lines(&manifest_path, &e.0))?;
    let read = |name: &str, kind: FileKind| load::bounded(&dir.join(name), kind);
    let recipe_bytes = read(RECIPE_FILE, FileKind::Recipe);
    let recipe_as_recorded = recipe_bytes.as_ref().is_ok_and(|b| manifest.recipe.matches(b));
    let recipe = recipe_bytes.as_ref().ok().map(|b| {
        let text =
            std::str::from_utf8(b).map_err(|e| format!("not UTF-8 text (bad byte at offset {})", e.valid_up_to()))?;
        SystemRecipe::from_json(text).map_err(|e| e.to_string())
    });
    let mut files = Vec::new();
    for entry in &manifest.stages {
        let stage = entry.stage;
        let kind = if stage.json { FileKind::Plan } else { FileKind::StageFile { recorded: entry.file.size } };
        let bytes = read(&stage.file(), kind);
        let as_recorded = bytes.as_ref().is_ok_and(|b| entry.file.matches(b));
        let output = bytes.as_ref().ok().map(|b| {
            let out = StageOutput::decode(stage, b).map_err(|e| e.0)?;
            if !stage.json && !as_recorded {
                return Err(format!(
                    "size {} and hash {} are not the manifest's ({} and {}): the file was replaced or changed \
                     after dumping (only the JSON plans may be edited by hand)",
                    b.len(),
                    planet::dump::hash_hex(b),
                    entry.file.size,
                    entry.file.hash
                ));
            }
            Ok(out)
        });
        files.push(DumpFile { path: dir.join(stage.file()), bytes, as_recorded, output });
    }
    Ok(RawDump { manifest, recipe_bytes, recipe, recipe_as_recorded, files })
}

fn invalid_lines(path: &Path, message: &str) -> Failure {
    Failure::Invalid(message.lines().map(|l| format!("{}: {l}", path.display())).collect::<Vec<_>>().join("\n"))
}

/// Why a file a manifest lists was not read, for the listing.
pub fn unread_text(e: &Unread) -> String {
    match e {
        Unread::Io(e) => format!("listed in manifest.json, cannot read: {e}"),
        refused @ Unread::Refused(_) => refused.to_string(),
    }
}

/// A listed file that was not read, as a failure: refused by type or size,
/// invalid input (exit 2); not there or unreadable, a failure (exit 1).
fn unread_failure(path: &Path, e: &Unread) -> Failure {
    let message = format!("{}: {}", path.display(), unread_text(e));
    match e {
        Unread::Refused(_) => Failure::Invalid(message),
        Unread::Io(_) => Failure::Failed(message),
    }
}

/// A dump checked for replay: everything readable, valid and consistent.
#[derive(Debug)]
pub struct Loaded {
    /// The folder.
    pub dir: PathBuf,
    /// Its manifest.
    pub manifest: Manifest,
    /// The recipe as written.
    pub recipe_bytes: Vec<u8>,
    /// The recipe.
    pub recipe: SystemRecipe,
    /// The region.
    pub key: RegionKey,
    /// Every stage's dumped output.
    pub chain: Chain,
    /// Files whose hash is not the manifest's (JSON edited by hand).
    pub edited: Vec<String>,
}

/// Reads a dump for replay. A missing file fails (exit 1); a damaged or
/// invalid one, or a dump of another `GENERATOR_VERSION` without
/// `allow_version_mismatch`, is invalid input (exit 2).
pub fn load(dir: &Path, allow_version_mismatch: bool) -> Result<Loaded, Failure> {
    checked(read_dump(dir)?, dir, allow_version_mismatch)
}

/// A dump already read (`read_dump`) checked for replay, as [`load`] does.
pub fn checked(raw: RawDump, dir: &Path, allow_version_mismatch: bool) -> Result<Loaded, Failure> {
    let m = &raw.manifest;
    let manifest_path = dir.join(MANIFEST_FILE);
    if m.generator_version != GENERATOR_VERSION && !allow_version_mismatch {
        return Err(Failure::Invalid(format!(
            "{}: generator_version = {}: this build's GENERATOR_VERSION is {GENERATOR_VERSION}. The dump \
             was written by other generators, so its stages are expected to differ; replay it with \
             --allow-version-mismatch to see what changed",
            manifest_path.display(),
            m.generator_version
        )));
    }
    let recipe_path = dir.join(RECIPE_FILE);
    let recipe_bytes = raw.recipe_bytes.map_err(|e| unread_failure(&recipe_path, &e))?;
    let recipe = match raw.recipe {
        Some(Ok(r)) => r,
        Some(Err(e)) => return Err(invalid_lines(&recipe_path, &e)),
        None => unreachable!("a readable recipe is parsed"),
    };
    let mut edited = Vec::new();
    if !raw.recipe_as_recorded {
        edited.push(RECIPE_FILE.to_owned());
    }
    let mut chain = Chain::default();
    let mut invalid = Vec::new();
    for f in raw.files {
        let bytes = match f.bytes {
            Ok(b) => b,
            Err(e) => return Err(unread_failure(&f.path, &e)),
        };
        match f.output.expect("a readable file is decoded") {
            Ok(out) => {
                if !f.as_recorded {
                    edited.push(out.stage().file());
                }
                if !out.stage().json {
                    let (header, _) = planet::dump::binary::header(&bytes).map_err(|e| invalid_lines(&f.path, &e.0))?;
                    if header.generator_version != m.generator_version {
                        invalid.push(format!(
                            "{}: header.generator_version = {}: must be the manifest's {}",
                            f.path.display(),
                            header.generator_version,
                            m.generator_version
                        ));
                    }
                }
                chain.set(out);
            }
            Err(e) => invalid.extend(e.lines().map(|l| format!("{}: {l}", f.path.display()))),
        }
    }
    if !invalid.is_empty() {
        return Err(Failure::Invalid(invalid.join("\n")));
    }
    let key = m.region_key();
    let problems = Pipeline::standard().check_chain(&chain, &RegionInput::new(&recipe, m.planet, key));
    if !problems.is_empty() {
        let lines: Vec<String> =
            problems.iter().map(|(stage, e)| format!("{}: {e}", dir.join(stage.file()).display())).collect();
        return Err(Failure::Invalid(lines.join("\n")));
    }
    Ok(Loaded { dir: dir.to_owned(), manifest: raw.manifest, recipe_bytes, recipe, key, chain, edited })
}
