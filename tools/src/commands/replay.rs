//! `planet replay DIR [--from STAGE] [--repeat N] [--threads N]`: re-runs a
//! dump's stages and compares each with the dumped output.
//!
//! Without `--from`, every stage is re-run from the dumped outputs of the
//! stages before it, so each stage is checked on its own. With `--from
//! STAGE`, the dump up to and including STAGE is taken as it is (hand edits
//! included) and every later stage is re-run from the replayed output of the
//! one before: the way to see what an edit does. `--from recipe` re-runs
//! every stage from `recipe.json`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use planet::dump::ReplayedFrom;
use planet::pipeline::{Chain, Pipeline, RegionInput, Stage, StageOutput};
use planet::{GENERATOR_VERSION, PlannedSystem};

use super::dump::{self, Loaded, invalid_stage, timed};
use crate::failure::Failure;
use crate::output::{out, outln};

/// Arguments of `planet replay`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The dump folder (`planet dump --out DIR`).
    dir: PathBuf,
    /// Take the dump as it is up to this stage (hand edits included) and re-run every later stage from it:
    /// recipe, system_plan, planet_plan, columns, voxels, cube_mesh, sphere_mesh, collider or navmesh.
    #[arg(long, value_name = "STAGE")]
    from: Option<String>,
    /// Run each stage N times (1..=1000); times are the median, and every run must give the same output.
    #[arg(long, value_parser = engine::flags::repeat, default_value_t = 3, value_name = "N")]
    repeat: u32,
    /// Spread the runs of each stage over N threads (1..=256).
    #[arg(long, value_parser = engine::flags::threads, default_value_t = 1, value_name = "N")]
    threads: usize,
    /// Replay a dump written at another GENERATOR_VERSION, to see what changed.
    #[arg(long)]
    allow_version_mismatch: bool,
    /// Also write the replayed stages as a new dump here (to `planet inspect` them).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// Where the replay starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Start {
    /// Every stage from the dumped stages before it.
    Each,
    /// Every stage, chained, from the recipe.
    Recipe,
    /// The stages after this one, chained from the dumped one.
    After(Stage),
}

/// How one stage replayed.
#[derive(Debug)]
pub struct StageReplay {
    /// The stage.
    pub stage: Stage,
    /// The first output.
    pub output: StageOutput,
    /// Where it differs from the dump (`None`: it matches).
    pub difference: Option<String>,
    /// Where a later run differed from the first (`None`: all runs agree).
    pub unstable: Option<String>,
    /// Every run's time.
    pub times: Vec<Duration>,
}

/// Replays the dump and prints a line per stage; exit 1 on any mismatch.
pub fn run(args: &Args) -> Result<(), Failure> {
    let from = match args.from.as_deref() {
        None => Start::Each,
        Some(s) if s.eq_ignore_ascii_case("recipe") => Start::Recipe,
        Some(s) => Start::After(Pipeline::standard().find(s).map_err(|e| {
            Failure::Invalid(format!("--from {s}: {}", e.replace("must be one of ", "must be one of recipe, ")))
        })?),
    };
    let d = dump::load(&args.dir, args.allow_version_mismatch)?;
    let m = &d.manifest;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "replaying {}: planet {}, region {}, written at GENERATOR_VERSION {} (this build: {GENERATOR_VERSION})",
        d.dir.display(),
        m.planet,
        m.key,
        m.generator_version
    );
    if m.generator_version != GENERATOR_VERSION {
        let _ = writeln!(
            out,
            "note: --allow-version-mismatch: the dump is from GENERATOR_VERSION {}; differences show what changed",
            m.generator_version
        );
    }
    for file in &d.edited {
        let _ = writeln!(out, "note: {file} was edited after dumping (its hash is not the manifest's)");
    }
    match PlannedSystem::build(&d.recipe) {
        Ok(system) if system.signature() == m.signature => {
            let _ = writeln!(out, "signature {}: recipe.json still plans this world", m.signature);
        }
        Ok(system) => {
            let _ = writeln!(
                out,
                "signature {}: recipe.json now plans {} (an edited recipe or another GENERATOR_VERSION)",
                m.signature,
                system.signature()
            );
        }
        Err(e) => return Err(Failure::Invalid(format!("{}: {e}", d.dir.join("recipe.json").display()))),
    }
    let runs = if args.repeat > 1 {
        format!(
            "median of {} runs{}",
            args.repeat,
            if args.threads > 1 { format!(" on {} threads", args.threads) } else { String::new() }
        )
    } else {
        "one run".to_owned()
    };
    let _ = writeln!(out, "  {:<12} {:<9} {:>12} {:>12}  ({runs})", "stage", "result", "now", "recorded");
    out!("{out}");

    let replays = replay(&d, from, args.repeat, args.threads, |line| crate::output::stdout(format_args!("{line}")))?;
    let mismatches: Vec<&StageReplay> =
        replays.iter().filter(|r| r.difference.is_some() || r.unstable.is_some()).collect();

    if let Some(dir) = &args.out {
        let mut outputs = Vec::new();
        let mut times = Vec::new();
        for &stage in Pipeline::standard().stages() {
            match replays.iter().find(|r| r.stage == stage) {
                Some(r) => {
                    outputs.push(r.output.clone());
                    times.push(median(&r.times));
                }
                None => {
                    outputs.push(d.chain.get(stage).expect("a loaded dump has every stage").clone());
                    let recorded = m.entry(stage).map_or(0.0, |e| e.time_ms);
                    times.push(Duration::from_secs_f64(recorded / 1e3));
                }
            }
        }
        let replayed_from = ReplayedFrom {
            dump: d.dir.display().to_string(),
            from: match from {
                Start::Each => "each".to_owned(),
                Start::Recipe => "recipe".to_owned(),
                Start::After(s) => s.name.to_owned(),
            },
        };
        dump::write_dump(dir, &d.recipe_bytes, m.signature, m.planet, d.key, &outputs, &times, Some(replayed_from))?;
        outln!("wrote the replayed stages to {}", dir.display());
    }
    if replays.is_empty() {
        let last = Pipeline::standard().stages().last().map_or("", |s| s.name);
        outln!("nothing to replay: {last} is the last stage");
        Ok(())
    } else if mismatches.is_empty() {
        outln!("all {} replayed stages match the dump", replays.len());
        Ok(())
    } else {
        let names: Vec<&str> = mismatches.iter().map(|r| r.stage.name).collect();
        Err(Failure::Failed(format!(
            "{} of {} replayed stages do not match the dump: {}",
            mismatches.len(),
            replays.len(),
            names.join(", ")
        )))
    }
}

/// The median of some times.
pub fn median(times: &[Duration]) -> Duration {
    let mut t = times.to_vec();
    t.sort();
    t.get(t.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// Replays the stages `from` names, `repeat` runs each over `threads`
/// threads, calling `print` with each stage's lines as it finishes.
fn replay(
    d: &Loaded,
    from: Start,
    repeat: u32,
    threads: usize,
    mut print: impl FnMut(&str) -> Result<(), Failure>,
) -> Result<Vec<StageReplay>, Failure> {
    let input = RegionInput::new(&d.recipe, d.manifest.planet, d.key);
    let pipeline = Pipeline::standard();
    let (mut chain, chained, first) = match from {
        Start::Each => (d.chain.clone(), false, 0),
        Start::Recipe => (Chain::default(), true, 0),
        Start::After(s) => (d.chain.clone(), true, pipeline.index(s).map_or(0, |i| i + 1)),
    };
    for stage in &pipeline.stages()[..first] {
        let edited = if d.edited.contains(&stage.file()) { ", edited by hand" } else { "" };
        print(&format!("  {:<12} {:<9} (taken from the dump{edited})\n", stage.name, "-"))?;
    }
    let mut replays = Vec::new();
    for &stage in &pipeline.stages()[first..] {
        let r = replay_stage(stage, &input, &chain, repeat, threads, d.chain.get(stage))?;
        let recorded = d.manifest.entry(stage).map_or(0.0, |e| e.time_ms);
        let now = median(&r.times);
        let result = if r.difference.is_some() || r.unstable.is_some() { "MISMATCH" } else { "match" };
        let ratio =
            if recorded > 0.0 { format!("  {:.2}x", now.as_secs_f64() * 1e3 / recorded) } else { String::new() };
        let mut lines = format!(
            "  {:<12} {:<9} {:>12} {:>12}{ratio}\n",
            stage.name,
            result,
            ms(now),
            ms(Duration::from_secs_f64(recorded / 1e3))
        );
        if let Some(diff) = &r.difference {
            let _ = writeln!(lines, "      first difference: {diff}");
        }
        if let Some(diff) = &r.unstable {
            let _ = writeln!(lines, "      runs disagree (not deterministic): {diff}");
        }
        print(&lines)?;
        if chained {
            chain.set(r.output.clone());
        }
        replays.push(r);
    }
    Ok(replays)
}

/// One thread's runs of a stage: its first output, every run's time, where a later run differed.
type ThreadRuns = (Option<StageOutput>, Vec<Duration>, Option<String>);

/// One stage, `repeat` times over `threads` threads, compared with `dumped`.
pub fn replay_stage(
    stage: Stage,
    input: &RegionInput<'_>,
    chain: &Chain,
    repeat: u32,
    threads: usize,
    dumped: Option<&StageOutput>,
) -> Result<StageReplay, Failure> {
    let threads = threads.min(repeat as usize).max(1);
    // Each thread keeps its first output and checks its later runs against it.
    let work = |t: usize| -> Result<ThreadRuns, Failure> {
        let mut first: Option<StageOutput> = None;
        let mut times = Vec::new();
        let mut unstable = None;
        for run in (t..repeat as usize).step_by(threads) {
            let (out, time) = timed(stage, input, chain).map_err(|e| invalid_stage(stage, &e))?;
            times.push(time);
            match &first {
                None => first = Some(out),
                Some(f) => {
                    if unstable.is_none() {
                        unstable = f.difference(&out).map(|d| format!("run {}: {d}", run + 1));
                    }
                }
            }
        }
        Ok((first, times, unstable))
    };
    let results: Vec<_> = if threads == 1 {
        vec![work(0)]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads).map(|t| s.spawn(move || work(t))).collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| Err(Failure::Failed(format!("{stage}: a replay thread panicked"))))
                })
                .collect()
        })
    };
    let mut output = None;
    let mut times = Vec::new();
    let mut unstable = None;
    for (t, r) in results.into_iter().enumerate() {
        let (first, mut ts, u) = r?;
        times.append(&mut ts);
        unstable = unstable.or(u);
        let first = first.expect("every thread runs at least once");
        match &output {
            None => output = Some(first),
            Some(o) => {
                if unstable.is_none() {
                    unstable = o.difference(&first).map(|d| format!("thread {}: {d}", t + 1));
                }
            }
        }
    }
    let output = output.expect("at least one run");
    let difference = dumped.and_then(|d| d.difference(&output));
    Ok(StageReplay { stage, output, difference, unstable, times })
}
