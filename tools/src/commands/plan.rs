//! `planet plan --planet N [--json]`: makes the planet's layout (the plan
//! stage, `planet::layout`) and prints its figures: stamps, rivers and their
//! total length, how they end, lakes, plots; the time of each part; and
//! views of its notable places (`--view river`, `peak`, `plot` reach them
//! from `capture` and `fly`).

use std::time::Instant;

use planet::layout::{PARTS, PlanetLayout, RiverEnd};

use crate::failure::Failure;
use crate::output::outln;
use crate::pick::PlanetArgs;

/// Arguments of `planet plan`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    planet: PlanetArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Makes the layout and prints it.
pub fn run(args: &Args) -> Result<(), Failure> {
    let system = args.planet.system()?;
    let plan = &system.planets[args.planet.planet as usize];
    let start = Instant::now();
    let mut last = start;
    let mut parts: Vec<(&'static str, f64)> = Vec::with_capacity(PARTS.len());
    let layout = PlanetLayout::build_observed(plan, &mut |part| {
        let now = Instant::now();
        parts.push((part, (now - last).as_secs_f64() * 1e3));
        last = now;
    });
    let total_ms = start.elapsed().as_secs_f64() * 1e3;
    let f = layout.figures();
    let longest = layout.rivers.iter().filter(|r| r.end == RiverEnd::Sea).map(|r| r.length_m).fold(0.0, f32::max);
    if args.json {
        let value = serde_json::json!({
            "planet": plan.index,
            "name": plan.name,
            "signature": layout.signature().to_string(),
            "figures": f,
            "longest_to_sea_m": longest,
            "ms": { "total": total_ms, "parts": parts.iter().map(|(n, t)| serde_json::json!({ "part": n, "ms": t })).collect::<Vec<_>>() },
        });
        outln!("{}", serde_json::to_string_pretty(&value).expect("figures serialize"));
        return Ok(());
    }
    outln!("plan of planet {} {} ({}), signature {}", plan.index, plan.name, plan.kind, layout.signature());
    outln!("  belts   {} mask cells, skeleton {} cells, {} stamps", f.mask_cells, f.skeleton_cells, f.stamps);
    outln!(
        "  rivers  {} ({:.1} km in all, longest {:.2} km, longest to the sea {:.2} km): {} reach the sea, {} a lake, {} join another",
        f.rivers,
        f.river_length_m / 1000.0,
        f.longest_river_m / 1000.0,
        longest / 1000.0,
        f.river_ends[0],
        f.river_ends[1],
        f.river_ends[2]
    );
    outln!("  lakes   {} ({} plan cells)", f.lakes, f.lake_cells);
    outln!("  plots   {}", f.plots);
    let times: Vec<String> = parts.iter().map(|(n, t)| format!("{n} {t:.0}")).collect();
    outln!("  time    {total_ms:.0} ms ({} ms)", times.join(", "));
    outln!("  views   planet={0},river  planet={0},peak  planet={0},plot", plan.index);
    Ok(())
}
