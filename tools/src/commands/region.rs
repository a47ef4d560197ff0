//! `planet region --planet N --key F/L/X/Y/Z`: generates one region and
//! summarises it: solid and air counts, materials, its hash and the time
//! taken; with `--grade`, the ore grade over its deposits' voxels.

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
    /// Also print the ore grade of the region's deposit voxels (worked out on
    /// demand: a lean halo and a richer core per body).
    #[arg(long)]
    grade: bool,
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
    if args.grade {
        grade_summary(&terrain, key, &grid, &mut out);
    }
    out!("{out}");
    Ok(())
}

/// The grade over the region's own deposit voxels: per material, voxels in
/// the lean halo and in the rich core, and the mean grade.
fn grade_summary(
    terrain: &planet::terrain::Terrain,
    key: planet::RegionKey,
    grid: &planet::terrain::VoxelGrid,
    out: &mut String,
) {
    let g = &terrain.grid;
    let layer = g.layer_m(key.lod);
    let mut by_material: std::collections::BTreeMap<u8, (usize, usize, f64)> = std::collections::BTreeMap::new();
    for b in 2..34usize {
        for a in 2..34usize {
            let (x, y) = (key.x as i32 * 32 + a as i32 - 2, key.y as i32 * 32 + b as i32 - 2);
            let (u, v) = g.face_uv(key.lod, x, y);
            let d = planet::geometry::direction(key.face(), u, v);
            let floor =
                terrain.recipe.radius_m + terrain.elevation_m(d, terrain.node_cell_m(key.lod)) - g.shell_below_m;
            for c in 2..34usize {
                let voxel = grid.at(a, b, c);
                if !voxel.is_solid() {
                    continue;
                }
                let z = (key.z as i32 * 32 + c as i32 - 2) as f32 * layer;
                if let Some((m, grade)) = terrain.grade_at(d * (floor + z))
                    && voxel.materials[0] == m
                {
                    let e = by_material.entry(m).or_default();
                    if grade > 0.25 {
                        e.1 += 1;
                    } else {
                        e.0 += 1;
                    }
                    e.2 += f64::from(grade);
                }
            }
        }
    }
    if by_material.is_empty() {
        let _ = writeln!(out, "grade: no deposit voxels in this region");
    }
    for (m, (lean, rich, sum)) in by_material {
        let name = terrain.recipe.materials.get(usize::from(m)).map_or("?", |x| x.name.as_str());
        let _ = writeln!(
            out,
            "grade: {name}: {} voxels, {lean} in the lean halo, {rich} in the rich core, mean grade {:.2}",
            lean + rich,
            sum / (lean + rich) as f64
        );
    }
}
