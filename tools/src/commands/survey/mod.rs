//! `planet survey`: many planets looked at at once. Each planet gets its
//! figures and flags (`engine::survey`) and thumbnails from orbit, a
//! kilometre up and the ground; a run writes them as one shard folder
//! (`shard.rs`), and `planet survey merge` joins shards into one table, a
//! contact sheet and plots (`merge.rs`). Without `--shard`, a run is its own
//! single shard, merged into `--out` at once.
//!
//! A shard is a deterministic artifact: its figures and pictures are pure
//! functions of the recipes (times measured beside them are kept in files
//! of their own), and its manifest names every file with its content hash.

mod manifest;
mod merge;
mod parquet;
mod plots;
mod shard;
mod sheet;
mod table;

use std::path::PathBuf;

use engine::survey::{Selection, Shard, SurveySample, parse_seed_range};
use planet::SystemRecipe;

use crate::failure::Failure;

pub use manifest::Settings;

/// Arguments of `planet survey`.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    merge: Option<Sub>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Join shard folders into one table, contact sheet and plots.
    Merge(merge::Args),
}

/// Arguments of a survey run.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The systems' seeds, A..B (B excluded) or A..=B: each system is
    /// `--system`'s recipe (a bare seed without it) with its seed replaced.
    #[arg(long, value_parser = parse_seed_range, value_name = "A..B", required_unless_present = "system")]
    systems: Option<std::ops::Range<u64>>,
    /// A system recipe (JSON): the template of every system of `--systems`,
    /// or, alone, the one system surveyed.
    #[arg(long, value_name = "FILE")]
    system: Option<PathBuf>,
    /// Folder of the results: the merged report, or with `--shard` the
    /// folder the shard's `shard-I-of-N` goes into.
    #[arg(long, value_name = "DIR", required = true)]
    out: Option<PathBuf>,
    /// Pictures of each planet: any of orbit, 1km, ground, comma separated, or none.
    #[arg(long, value_name = "LIST", default_value = "orbit,1km,ground", value_parser = parse_views)]
    views: ViewList,
    /// Thumbnail size, WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "320x180")]
    size: engine::flags::Size,
    /// Run shard I of N only (I counted from 0, as JOB_COMPLETION_INDEX and
    /// SLURM_ARRAY_TASK_ID give): the planets are cut into N contiguous slices.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// Threads for figures and streaming, 1..=256; all cores when omitted.
    #[arg(long, value_parser = engine::flags::threads, value_name = "N")]
    threads: Option<usize>,
    /// Seconds each picture may take to settle, 0..=600.
    #[arg(long, value_parser = engine::flags::timeout, value_name = "S", default_value_t = 60.0)]
    timeout: f64,
    /// A planet whose generate stage's median takes longer is flagged, milliseconds, 0.01..=1000.
    #[arg(long, value_parser = engine::flags::budget_ms, value_name = "MS", default_value_t = 3.0)]
    generate_budget_ms: f64,
    /// No progress output.
    #[arg(long)]
    quiet: bool,
}

/// The pictures a survey takes of each planet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewList(pub Vec<String>);

/// The views a survey knows, in the order they are taken.
pub const VIEWS: [&str; 3] = ["orbit", "1km", "ground"];

fn parse_views(s: &str) -> Result<ViewList, String> {
    if s.trim() == "none" {
        return Ok(ViewList(Vec::new()));
    }
    let mut views = Vec::new();
    for v in s.split(',').map(str::trim) {
        if !VIEWS.contains(&v) {
            return Err(format!("{v:?} is not a view: use any of {} (comma separated), or none", VIEWS.join(", ")));
        }
        if views.iter().any(|w| w == v) {
            return Err(format!("{v} is named twice"));
        }
        views.push(v.to_owned());
    }
    // Always in the one order, whatever order they were named in.
    views.sort_by_key(|v| VIEWS.iter().position(|w| w == v));
    Ok(ViewList(views))
}

/// Runs `planet survey` or `planet survey merge`.
pub fn run(args: &Args) -> Result<(), Failure> {
    if let Some(Sub::Merge(m)) = &args.merge {
        return merge::run(m);
    }
    let a = &args.run;
    let template = match &a.system {
        Some(path) => crate::load::recipe(Some(path))?,
        None => SystemRecipe::from_seed(0),
    };
    let selection = Selection { template, seeds: a.systems.clone() };
    let settings = Settings::new(&selection, &a.views.0, a.size.pair(), SurveySample::default(), a.generate_budget_ms);
    let out = a.out.clone().ok_or_else(|| Failure::Invalid("--out DIR is required".into()))?;
    let run = shard::Run {
        selection,
        settings,
        threads: a.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from)),
        timeout: std::time::Duration::from_secs_f64(a.timeout),
        size: a.size.pair(),
        quiet: a.quiet,
    };
    match a.shard {
        Some(s) => shard::run_shard(&run, s, &out),
        None => shard::run_whole(&run, &out),
    }
}
