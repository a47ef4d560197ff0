//! `smoke-tests`: runs the scenarios, compares them with the baselines, writes
//! `report.html`. Exit codes: 0 all match, 1 a regression (one line each on
//! stderr), 2 bad input. Output never panics: a closed stdout or stderr is
//! ignored (the report is on disk).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use smoke_tests::{SmokeOptions, run_smoke};

/// The same allocator as the `planet` binary, so the figures are the ones a
/// user's build would show. It also steadies the calibration: with the system
/// allocator each calibration round's region buffers were handed back to the
/// OS and faulted in again, and the rounds before a run took 22 to 29 ms
/// where the same rounds after it, with a warm heap, took 17.6 to 17.8.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Screenshots and performance for every build, compared with baselines.
#[derive(Debug, Parser)]
#[command(name = "smoke-tests", version, about)]
struct Cli {
    /// Output folder: screenshots, diffs, report.json, report.html.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run only this scenario (repeatable).
    #[arg(long, value_name = "NAME")]
    scenario: Vec<String>,
    /// Only the short set (what CI runs).
    #[arg(long)]
    short: bool,
    /// Rewrite the baselines with this run's screenshots and figures.
    #[arg(long)]
    bless: bool,
    /// With --bless: bless even when the calibration is over 12% slower than
    /// the other baselines' (blessing every scenario on a slower machine).
    #[arg(long, requires = "bless")]
    new_machine: bool,
    /// Scenario folder.
    #[arg(long, value_name = "DIR")]
    scenarios: Option<PathBuf>,
    /// Baseline folder.
    #[arg(long, value_name = "DIR")]
    baselines: Option<PathBuf>,
    /// Job threads, 1..=256.
    #[arg(long, value_parser = engine::flags::threads, value_name = "N", default_value_t = 2, allow_negative_numbers = true)]
    threads: usize,
    /// Seconds a keyframe may take to settle, 0..=600.
    #[arg(long, value_parser = engine::flags::timeout, value_name = "S", default_value_t = 120.0, allow_negative_numbers = true)]
    settle_timeout: f64,
}

/// A line on stderr; dropped if stderr is gone (there is nowhere to say so).
fn say(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| say(&format!("internal error: {info}"))));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let mut options = SmokeOptions::repository();
    options.out = cli.out.unwrap_or(options.out);
    options.scenarios = cli.scenarios.unwrap_or(options.scenarios);
    options.baselines = cli.baselines.unwrap_or(options.baselines);
    options.names = cli.scenario;
    options.short = cli.short;
    options.bless = cli.bless;
    options.new_machine = cli.new_machine;
    options.run.threads = cli.threads;
    options.run.settle_timeout = Duration::from_secs_f64(cli.settle_timeout);
    match run_smoke(&options, &mut |line| say(line)) {
        Ok(report) => {
            // A closed stdout loses only this line: the report is on disk.
            let _ = writeln!(std::io::stdout().lock(), "{}", options.out.join("report.html").display());
            if report.passed {
                ExitCode::SUCCESS
            } else {
                for failure in &report.failures {
                    say(&format!("REGRESSION {failure}"));
                }
                ExitCode::from(1)
            }
        }
        Err(e) => {
            say(&format!("error: {e}"));
            ExitCode::from(2)
        }
    }
}
