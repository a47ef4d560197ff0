//! `planet nearest --planet N --at LAT,LON`: the settlement nearest a point
//! (`Settlements::nearest`, a search of the offset grid's cells around it),
//! its distance along the ground and its bearing from the point (degrees
//! from north, clockwise).

use std::time::Instant;

use engine::lat_lon_of;
use glam::Vec3;
use planet::terrain::lat_lon_direction;

use crate::failure::Failure;
use crate::output::outln;
use crate::pick::{PlanetArgs, lat_lon};

/// Arguments of `planet nearest`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    planet: PlanetArgs,
    /// The point: latitude and longitude in degrees, e.g. --at -15,40.
    #[arg(long, value_name = "LAT,LON", allow_hyphen_values = true)]
    at: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// The compass bearing from `from` to `to` (unit directions), degrees in 0..360.
#[must_use]
pub fn bearing_deg(from: Vec3, to: Vec3) -> f32 {
    let east = from.cross(Vec3::Y).normalize_or(Vec3::X);
    let north = (Vec3::Y - from * from.y).normalize_or(Vec3::Z);
    let t = to - from;
    libm::atan2f(t.dot(east), t.dot(north)).to_degrees().rem_euclid(360.0)
}

/// Finds and prints the nearest settlement.
pub fn run(args: &Args) -> Result<(), Failure> {
    let (lat, lon) = lat_lon("--at", &args.at)?;
    let (system, terrain) = args.planet.load()?;
    let plan = &system.planets[args.planet.planet as usize];
    let d = lat_lon_direction(lat, lon);
    let start = Instant::now();
    let found = terrain.settlements.nearest(d);
    let us = start.elapsed().as_secs_f64() * 1e6;
    let Some((site, distance)) = found else {
        return Err(Failure::Failed(format!("planet {} {} has no settlements", plan.index, plan.name)));
    };
    let (slat, slon) = lat_lon_of(site.centre.as_dvec3());
    let bearing = bearing_deg(d, site.centre);
    if args.json {
        let value = serde_json::json!({
            "planet": plan.index, "cell": site.cell, "name": site.name, "lat": slat, "lon": slon,
            "distance_m": distance, "bearing_deg": bearing, "us": us,
        });
        outln!("{}", serde_json::to_string_pretty(&value).expect("a settlement serializes"));
        return Ok(());
    }
    outln!(
        "nearest settlement to {lat},{lon} on planet {} {}: {} (cell {}) at {slat:.4},{slon:.4}",
        plan.index,
        plan.name,
        site.name,
        site.cell,
    );
    outln!("  {:.0} m away, bearing {bearing:.0} deg; found in {us:.1} us", distance);
    Ok(())
}
