//! `planet creatures --planet N --at LAT,LON [--time T] [--radius M]`: the
//! herds whose cells reach within a radius of a point, and where each of
//! their animals is at clock time T on its path (the 2D ground; the client
//! sets them down on the colliders): species, gait, awake or lying down,
//! local solar time at the herd, and each animal's place.

use std::time::Instant;

use engine::clock::{clock_text, solar_hours};
use engine::lat_lon_of;
use planet::creatures::{Activity, Daylight, Fauna};
use planet::terrain::lat_lon_direction;

use crate::failure::Failure;
use crate::output::outln;
use crate::pick::{PlanetArgs, lat_lon};

/// Arguments of `planet creatures`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    planet: PlanetArgs,
    /// The point: latitude and longitude in degrees, e.g. --at -15,40.
    #[arg(long, value_name = "LAT,LON", allow_hyphen_values = true)]
    at: String,
    /// World clock time, seconds (planets turn and herds move with it).
    #[arg(long, value_parser = engine::flags::time, value_name = "S", default_value_t = 0.0)]
    time: f64,
    /// How far from the point to list herds, metres (1..=5000).
    #[arg(long, value_parser = radius, value_name = "M", default_value_t = 300.0)]
    radius: f64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

fn radius(s: &str) -> Result<f64, String> {
    let r: f64 = s.parse().map_err(|_| format!("{s:?} is not a number of metres"))?;
    if (1.0..=5000.0).contains(&r) { Ok(r) } else { Err(format!("{r}: must be in 1..=5000 metres")) }
}

/// Lists the herds near the point.
pub fn run(args: &Args) -> Result<(), Failure> {
    let (lat, lon) = lat_lon("--at", &args.at)?;
    let (system, terrain) = args.planet.load()?;
    let plan = &system.planets[args.planet.planet as usize];
    let fauna = Fauna::new(&terrain);
    let spin = system.spin(plan.index);
    let daylight = Daylight::of_planet(spin, plan.position_m);
    let sun_local = spin.orientation(args.time).inverse() * daylight.sun;
    let at = lat_lon_direction(lat, lon);
    let start = Instant::now();
    let herds: Vec<_> =
        fauna.grid.cells_near(at, args.radius as f32).into_iter().filter_map(|c| fauna.herd(&terrain, c)).collect();
    let planned_ms = start.elapsed().as_secs_f64() * 1e3;
    let mut listed = Vec::new();
    for herd in &herds {
        let species = &fauna.species[usize::from(herd.species)];
        let home = herd.home.as_dvec3();
        let distance = libm::acos(home.dot(at.as_dvec3()).clamp(-1.0, 1.0)) * f64::from(terrain.grid.radius_m);
        let awake = daylight.is_about(home, species.activity, args.time);
        let members: Vec<serde_json::Value> = (0..herd.count)
            .map(|m| {
                let pose = herd.pose(species, m, &daylight, args.time);
                let (mlat, mlon) = lat_lon_of(pose.position);
                let height = pose.position.length() - f64::from(terrain.grid.radius_m);
                serde_json::json!({ "id": format!("{:016x}", herd.member_id(m)), "lat": mlat, "lon": mlon,
                    "height_m": height, "walking": pose.stride > 0.0, "flight_m": pose.flight_m })
            })
            .collect();
        let (hlat, hlon) = lat_lon_of(home);
        listed.push(serde_json::json!({
            "cell": herd.cell.to_string(), "home_lat": hlat, "home_lon": hlon, "species": species.name, "gait": species.gait.name(),
            "activity": if species.activity == Activity::Day { "day" } else { "night" },
            "awake": awake, "count": herd.count, "distance_m": distance, "loop_m": herd.length_m(),
            "solar_time": clock_text(solar_hours(home, spin.axis(), sun_local)), "animals": members,
        }));
    }
    if args.json {
        let value = serde_json::json!({ "planet": plan.index, "lat": lat, "lon": lon, "time_s": args.time,
            "radius_m": args.radius, "planned_ms": planned_ms, "herds": listed });
        outln!("{}", serde_json::to_string_pretty(&value).expect("herds serialize"));
        return Ok(());
    }
    outln!(
        "{} herds within {:.0} m of {lat},{lon} on planet {} {} at t = {} s (planned in {planned_ms:.2} ms)",
        herds.len(),
        args.radius,
        plan.index,
        plan.name,
        args.time
    );
    for h in &listed {
        outln!(
            "  cell {}: {} {} {}s ({} animals, {} now, local {}), home {:.5},{:.5}, {:.0} m away, loop {:.0} m",
            h["cell"].as_str().unwrap_or(""),
            h["count"],
            h["species"].as_str().unwrap_or(""),
            h["gait"].as_str().unwrap_or(""),
            h["activity"].as_str().unwrap_or(""),
            if h["awake"].as_bool() == Some(true) { "about" } else { "lying down" },
            h["solar_time"].as_str().unwrap_or(""),
            h["home_lat"].as_f64().unwrap_or(0.0),
            h["home_lon"].as_f64().unwrap_or(0.0),
            h["distance_m"].as_f64().unwrap_or(0.0),
            h["loop_m"].as_f64().unwrap_or(0.0),
        );
        for a in h["animals"].as_array().into_iter().flatten() {
            outln!(
                "    {} at {:.5},{:.5}, {:.1} m up{}",
                a["id"].as_str().unwrap_or(""),
                a["lat"].as_f64().unwrap_or(0.0),
                a["lon"].as_f64().unwrap_or(0.0),
                a["height_m"].as_f64().unwrap_or(0.0),
                if a["walking"].as_bool() == Some(true) { ", walking" } else { "" }
            );
        }
    }
    Ok(())
}
