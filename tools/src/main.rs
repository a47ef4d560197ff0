//! `planet`: the command-line face of the engine. Every command works with no
//! files (the default system is embedded); `--help` lists them.
//!
//! Exit codes: 0 success, 1 a failure such as an unreadable file, 2 invalid
//! input (a bad recipe or bad arguments). Errors go to stderr; no panic
//! reaches a user (a panic is reported as an internal error, exit 101).

mod commands;
mod failure;
mod load;
mod output;
mod pick;
mod raster;
mod save;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc keeps freed memory in per-thread pages instead of handing large
/// blocks back to the OS: job threads allocate and free voxel grids and
/// meshes all the time, and with the system allocator their unmapping stalls
/// the main thread's page faults (measured: 3 to 6 ms frame spikes, 4% of
/// frames, during `planet stream --path lowpass` on 2 cores).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Planet streaming engine: generate, inspect and fly whole solar systems of voxel planets.
#[derive(Debug, Parser)]
#[command(name = "planet", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print a table of the system: planets, kinds, radii, positions, signatures.
    System(commands::system::Args),
    /// Print the system's signature: one line of 32 hex digits.
    Signature(commands::signature::Args),
    /// Check a system recipe: prints `ok`, or every error (one a line) and exits with 2.
    Validate(commands::validate::Args),
    /// Generate one region and summarise it: solid and air, materials, hash, time.
    Region(commands::region::Args),
    /// Write a PNG slice through a region's voxels: density and materials, caves and strata.
    Slice(commands::slice::Args),
    /// Write an equirectangular PNG map of a planet: elevation, water and biomes.
    Map(commands::map::Args),
    /// Make a planet's layout (belts, rivers, lakes, plots) and print its figures and the time of each part.
    Plan(commands::plan::Args),
    /// List a planet's settlements (where towns stand, their buildings) and the time the listing takes.
    Settlements(commands::settlements::Args),
    /// The settlement nearest a point of a planet: its distance and bearing.
    Nearest(commands::nearest::Args),
    /// The herds near a point of a planet and where their animals are at a time.
    Creatures(commands::creatures::Args),
    /// Export a region's meshes (and optionally its neighbours') as OBJ or PLY, with an optional PNG preview.
    Mesh(commands::mesh::Args),
    /// Build one region up to its scatter stage; print its objects per rule and kind, refusals and time.
    Scatter(commands::scatter::Args),
    /// Add a terrain edit (dig, fill, smooth, flatten, paint) to a save; `capture --save` and `fly --save` show it.
    Edit(commands::edit::Args),
    /// Stream a planet around a camera on a scripted path, headless; print a summary against the targets.
    Stream(commands::stream::Args),
    /// Dump every generator stage's output for one region into a folder, with a manifest.
    Dump(commands::dump::Args),
    /// Re-run a dump's stages and compare each with the dumped output; exit 1 on any mismatch.
    Replay(commands::replay::Args),
    /// Summarise a dump folder or stage file; voxel grids as PNG slices, meshes as OBJ.
    Inspect(commands::inspect::Args),
    /// Render a view headless (streamed until settled) to a PNG; with --path, fly a path and report frame times.
    Capture(commands::capture::Args),
    /// Find a walking path between two points of a planet over its navmeshes (headless); exit 1 if none.
    Path(commands::path::Args),
    /// Fly through the system in a window: mouse look, WASD, Space/Q up and down, Shift faster, Esc to quit.
    Fly(commands::fly::Args),
    /// Capture every planet from orbit, from 1 km and from the ground into a folder (headless).
    Tour(commands::tour::Args),
    /// Survey many planets: figures, flags and thumbnails of each, sharded for a batch scheduler, merged into a table, plots and a contact sheet.
    Survey(commands::survey::Args),
}

/// The command line, with every flag that takes a value taking negative
/// numbers as values (`--margin -3` reaches the flag's own range check
/// instead of clap's "unexpected argument '-3'").
fn parse() -> Result<Cli, clap::Error> {
    use clap::{ArgAction, CommandFactory, FromArgMatches};
    let takes_negatives = |a: clap::Arg| {
        let value = matches!(a.get_action(), ArgAction::Set | ArgAction::Append);
        if value { a.allow_negative_numbers(true) } else { a }
    };
    let command = Cli::command().mut_subcommands(|c| c.mut_args(takes_negatives));
    Cli::from_arg_matches(&command.try_get_matches()?)
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        output::errln!("internal error: {info}");
        output::errln!("This is a bug in planet; please report it with the command you ran.");
    }));
    let cli = match parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help and version to stdout (exit 0) and usage errors to stderr (exit 2).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Some(Command::System(args)) => commands::system::run(&args),
        Some(Command::Signature(args)) => commands::signature::run(&args),
        Some(Command::Validate(args)) => commands::validate::run(&args),
        Some(Command::Region(args)) => commands::region::run(&args),
        Some(Command::Slice(args)) => commands::slice::run(&args),
        Some(Command::Map(args)) => commands::map::run(&args),
        Some(Command::Plan(args)) => commands::plan::run(&args),
        Some(Command::Settlements(args)) => commands::settlements::run(&args),
        Some(Command::Nearest(args)) => commands::nearest::run(&args),
        Some(Command::Creatures(args)) => commands::creatures::run(&args),
        Some(Command::Mesh(args)) => commands::mesh::run(&args),
        Some(Command::Scatter(args)) => commands::scatter::run(&args),
        Some(Command::Edit(args)) => commands::edit::run(&args),
        Some(Command::Stream(args)) => commands::stream::run(&args),
        Some(Command::Dump(args)) => commands::dump::run(&args),
        Some(Command::Replay(args)) => commands::replay::run(&args),
        Some(Command::Inspect(args)) => commands::inspect::run(&args),
        Some(Command::Capture(args)) => commands::capture::run(&args),
        Some(Command::Path(args)) => commands::path::run(&args),
        Some(Command::Fly(args)) => commands::fly::run(&args),
        Some(Command::Tour(args)) => commands::tour::run(&args),
        Some(Command::Survey(args)) => commands::survey::run(&args),
        None => commands::fly::run_default(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}
