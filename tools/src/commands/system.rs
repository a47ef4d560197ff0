//! `planet system [FILE]`: a table of the system (planets, kinds, radii,
//! positions, signatures), or with `--json` the whole plan.

use std::fmt::Write as _;
use std::path::PathBuf;

use planet::PlannedSystem;

use crate::failure::Failure;
use crate::load;
use crate::output::{out, outln};

/// Arguments of `planet system`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// System recipe (JSON); the embedded default system when omitted.
    file: Option<PathBuf>,
    /// Print the full plan (every planet's complete recipe) as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Prints the system.
pub fn run(args: &Args) -> Result<(), Failure> {
    let system = load::system(args.file.as_deref())?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&system).expect("plans always serialize"));
    } else {
        out!("{}", table(&system));
    }
    Ok(())
}

/// The system as a table a person reads.
pub fn table(system: &PlannedSystem) -> String {
    let plan = &system.system;
    let mut out = String::new();
    let _ = writeln!(out, "System {} (seed {}), {} planets", plan.name, plan.seed, system.planets.len());
    let _ = writeln!(out, "signature {}", system.signature());
    let _ = writeln!(out, "sun: radius {:.1} km at the origin\n", plan.sun.radius_m / 1000.0);
    let _ = writeln!(
        out,
        "{:>2}  {:<10} {:<7} {:>9} {:>10} {:>9} {:>9} {:>8} {:>6}  {:<28} signature",
        "#", "name", "kind", "radius", "elevation", "sea", "orbit", "day", "tilt", "position (km)"
    );
    for p in &system.planets {
        let r = &p.recipe;
        let sea = if r.sea.enabled { format!("{:+.0} m", r.sea.level_m) } else { "none".to_owned() };
        let pos = p.position_m / 1000.0;
        let _ = writeln!(
            out,
            "{:>2}  {:<10} {:<7} {:>6.2} km {:>8.0} m {:>9} {:>6.0} km {:>5.1} min {:>5.1}°  {:<28} {}",
            p.index,
            p.name,
            p.kind.name(),
            r.radius_m / 1000.0,
            r.elevation.max_rise_m(),
            sea,
            plan.planets[p.index as usize].orbit_m / 1000.0,
            system.spin(p.index).day_s / 60.0,
            system.spin(p.index).tilt_deg,
            format!("({:.1}, {:.1}, {:.1})", pos.x, pos.y, pos.z),
            p.signature()
        );
    }
    out
}
