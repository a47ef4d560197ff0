//! `planet region --planet N --key F/L/X/Y/Z`: generates one region and
//! summarises it: solid and air counts, materials, its hash and the time taken.

use std::fmt::Write as _;
use std::time::Instant;

use crate::failure::Failure;
use crate::output::out;
use crate::pick::{self, PlanetArgs};

/// Arguments of `planet region`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    planet: PlanetArgs,
    #[command(flatten)]
    key: pick::KeyArgs,
}

/// Generates the region and prints the summary.
pub fn run(args: &Args) -> Result<(), Failure> {
    let (system, terrain) = args.planet.load()?;
    let key = args.key.key(&terrain)?;
    let start = Instant::now();
    let columns = terrain.columns(key);
    let mid = Instant::now();
    let grid = terrain.voxels(&columns);
    let end = Instant::now();

    let plan = &system.planets[args.planet.planet as usize];
    let solid = grid.voxels.iter().filter(|v| v.is_solid()).count();
    let mut counts = vec![0usize; terrain.recipe.materials.len()];
    for v in grid.voxels.iter().filter(|v| v.is_solid()) {
        if let Some(c) = counts.get_mut(usize::from(v.materials[0])) {
            *c += 1;
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "region {key} of planet {} ({}, {})", plan.index, plan.name, plan.kind);
    let g = &terrain.grid;
    let _ = writeln!(
        out,
        "cells {:.2} m across, layers {} m tall; {} x {} regions per face at LOD {}, {} up the shell",
        g.cell_m(key.lod),
        g.layer_m(key.lod),
        g.regions_across(key.lod),
        g.regions_across(key.lod),
        key.lod,
        g.regions_up(key.lod)
    );
    let total = grid.voxels.len();
    let _ = writeln!(out, "samples {total} (36^3): solid {solid}, air {}", total - solid);
    let centre = columns.at(18, 18);
    let _ = writeln!(
        out,
        "centre column: surface {:+.1} m, elevation {:+.1} m, slope {:.0} deg, {:.1} C, moisture {:.2}, biome {}",
        centre.surface_m(),
        centre.elevation_m,
        centre.slope_deg,
        centre.temperature_c,
        centre.moisture,
        terrain.recipe.biomes[usize::from(centre.biome)].name
    );
    let _ = writeln!(out, "solid voxels by primary material:");
    let mut by: Vec<(usize, usize)> = counts.iter().copied().enumerate().filter(|&(_, c)| c > 0).collect();
    by.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (m, c) in by {
        let _ = writeln!(
            out,
            "  {:>6}  {:>5.1}%  {}",
            c,
            100.0 * c as f64 / solid.max(1) as f64,
            terrain.recipe.materials[m].name
        );
    }
    let _ = writeln!(out, "hash {}", grid.signature());
    let _ = writeln!(
        out,
        "time: 2D pass {:.3} ms, 3D pass {:.3} ms (one run; `cargo bench -p planet --bench terrain` for medians)",
        (mid - start).as_secs_f64() * 1e3,
        (end - mid).as_secs_f64() * 1e3
    );
    out!("{out}");
    Ok(())
}
