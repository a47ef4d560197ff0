//! `planet settlements --planet N [--json]`: every settlement of a planet
//! (`planet::settlements`): its cell of the offset grid, name, latitude and
//! longitude, height and its town (buildings by type, what the gates and the
//! route refused), with the time the listing and the towns took.

use std::time::Instant;

use engine::lat_lon_of;
use planet::settlements::{BuildingKind, SettlementSites, Town};

use crate::failure::Failure;
use crate::output::outln;
use crate::pick::PlanetArgs;

/// Arguments of `planet settlements`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    planet: PlanetArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Buildings of each type in a town.
fn by_kind(town: &Town) -> [usize; 3] {
    let mut n = [0; 3];
    for b in &town.buildings {
        n[b.kind as usize] += 1;
    }
    n
}

/// Lists the settlements.
pub fn run(args: &Args) -> Result<(), Failure> {
    let (system, terrain) = args.planet.load()?;
    let plan = &system.planets[args.planet.planet as usize];
    let start = Instant::now();
    let listed = SettlementSites::build(plan, &terrain.layout);
    let list_ms = start.elapsed().as_secs_f64() * 1e3;
    let s = &terrain.settlements;
    let start = Instant::now();
    let towns: Vec<&Town> = (0..s.data.sites.len()).filter_map(|i| s.town(i)).collect();
    let towns_ms = start.elapsed().as_secs_f64() * 1e3;
    debug_assert_eq!(listed, s.data);
    if args.json {
        let list: Vec<serde_json::Value> = s
            .data
            .sites
            .iter()
            .zip(&towns)
            .map(|(site, town)| {
                let (lat, lon) = lat_lon_of(site.centre.as_dvec3());
                serde_json::json!({
                    "cell": site.cell, "name": site.name, "lat": lat, "lon": lon,
                    "height_m": site.height_m, "radius_m": site.radius_m,
                    "buildings": town.buildings.len(), "by_kind": by_kind(town), "counts": town.counts,
                })
            })
            .collect();
        let value = serde_json::json!({
            "planet": plan.index, "name": plan.name, "signature": listed.signature().to_string(),
            "cells_across": listed.cells_across, "settlements": list,
            "ms": { "list": list_ms, "towns": towns_ms },
        });
        outln!("{}", serde_json::to_string_pretty(&value).expect("settlements serialize"));
        return Ok(());
    }
    outln!(
        "settlements of planet {} {} ({}): {} in {} cells ({} a face side), signature {}",
        plan.index,
        plan.name,
        plan.kind,
        listed.sites.len(),
        6 * listed.cells_across * listed.cells_across,
        listed.cells_across,
        listed.signature()
    );
    outln!("  cell  name          lat      lon   height  buildings (flat curved arched)  removed pushed");
    for (site, town) in s.data.sites.iter().zip(&towns) {
        let (lat, lon) = lat_lon_of(site.centre.as_dvec3());
        let k = by_kind(town);
        outln!(
            "  {:>4}  {:<10} {:>7.2} {:>8.2} {:>6.0} m  {:>4} ({:>2} {:>2} {:>2})  {:>7} {:>6}",
            site.cell,
            site.name,
            lat,
            lon,
            site.height_m,
            town.buildings.len(),
            k[0],
            k[1],
            k[2],
            town.counts.removed,
            town.counts.pushed
        );
    }
    let buildings: usize = towns.iter().map(|t| t.buildings.len()).sum();
    let kinds: Vec<String> = BuildingKind::ALL
        .iter()
        .map(|&kind| format!("{} {}", towns.iter().map(|t| by_kind(t)[kind as usize]).sum::<usize>(), kind.name()))
        .collect();
    outln!("  {buildings} buildings ({})", kinds.join(", "));
    outln!("  time    listed in {list_ms:.2} ms, towns laid out in {towns_ms:.0} ms");
    outln!("  nearest planet nearest --planet {} --at LAT,LON", plan.index);
    Ok(())
}
