//! `planet tour`: captures of every planet of a system, headless: from orbit,
//! from a kilometre up, from 300 m and from the ground, each on the planet's day side over
//! dry land where it has any, plus one from a planet's surface toward its
//! neighbour. What `cargo run --release` does when there is no display.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use engine::{ViewSpec, sunlit_land};
use render::capture_view;

use super::capture::{headless, still_world_of};
use crate::failure::Failure;
use crate::load;
use crate::output::{errln, outln};

/// The views a tour takes of each planet, in order.
pub const PLANET_VIEWS: [&str; 4] = ["orbit", "1km", "300m", "ground"];

/// Planet `planet`'s views named in `names` (of [`PLANET_VIEWS`]; others are
/// skipped), each on its day side over dry land where it has any: what a
/// tour and a survey's thumbnails show.
pub fn planet_views<'a>(
    world: &engine::World,
    planet: u32,
    names: impl IntoIterator<Item = &'a str>,
) -> Vec<(&'a str, ViewSpec)> {
    let radius = world.planets[planet as usize].radius;
    let (lat, lon) = sunlit_land(world, planet);
    let at = |alt: f64, heading: f64, pitch: f64| ViewSpec {
        planet,
        lat,
        lon,
        alt,
        heading,
        pitch,
        look: None,
        fov: 60.0,
        spot: None,
    };
    let view = |name: &str| match name {
        "orbit" => Some(at(radius * 2.2, 0.0, -90.0)),
        "1km" => Some(at(1000.0, 30.0, -25.0)),
        // Low enough that the scatter's trees and rocks show (a tree is drawn to 3 km).
        "300m" => Some(at(300.0, 120.0, -30.0)),
        "ground" => Some(at(2.0, 120.0, -4.0)),
        _ => None,
    };
    names.into_iter().filter_map(|n| Some((n, view(n)?))).collect()
}

/// Arguments of `planet tour`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// System recipe (JSON); the embedded default system when omitted.
    #[arg(long, value_name = "FILE")]
    pub system: Option<PathBuf>,
    /// Folder for the PNGs.
    #[arg(long, value_name = "DIR", default_value = "planet-tour")]
    pub out: PathBuf,
    /// Image size, WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "1280x720")]
    pub size: engine::flags::Size,
    /// Seconds each view may take to settle, 0..=600.
    #[arg(long, value_parser = engine::flags::timeout, value_name = "S", default_value_t = 60.0)]
    pub timeout: f64,
    /// The world clock, seconds, 0..=1e11 (each planet's view is on its day
    /// side at that time).
    #[arg(long, value_parser = engine::flags::time, value_name = "S", default_value_t = 0.0)]
    time: f64,
}

impl Default for Args {
    fn default() -> Self {
        Self {
            system: None,
            out: PathBuf::from("planet-tour"),
            size: engine::flags::Size(1280, 720),
            timeout: 60.0,
            time: 0.0,
        }
    }
}

/// Runs the tour, printing each PNG's path once the folder is in place.
pub fn run(args: &Args) -> Result<(), Failure> {
    let size = args.size.pair();
    let mut world = still_world_of(Arc::new(load::system(args.system.as_deref())?), None, true);
    world.set_time(args.time);
    let count = world.planets.len() as u32;
    // The views first (they need the world), then the device takes it.
    let mut views = Vec::new();
    for p in &world.planets {
        let name = world.system.planets[p.index as usize].name.to_lowercase();
        for (view, spec) in planet_views(&world, p.index, PLANET_VIEWS) {
            views.push((format!("{}-{name}-{view}.png", p.index), spec));
        }
    }
    if count > 1 {
        let (lat, lon) = sunlit_land(&world, 1 % count);
        // Above the air, where the neighbour stands out against black sky,
        // through a long lens (it is hundreds of kilometres away).
        let alt = world.planets[(1 % count) as usize].radius * 0.5;
        let across = Some((1 + 1) % count);
        let look = ViewSpec { planet: 1 % count, lat, lon, alt, look: across, fov: 5.0, ..ViewSpec::default() };
        views.push((format!("{}-toward-{}.png", 1 % count, (1 + 1) % count), look));
    }
    let mut capture = headless(world, size)?;
    errln!("device: {}", capture.renderer.gpu().describe());
    // The pictures go into a folder beside `--out`, swapped in whole once all are taken.
    let mut lines = Vec::new();
    crate::save::replace_folder(&args.out, |tmp| {
        for (file, view) in views {
            let shot = capture_view(&mut capture, &view, Duration::from_secs_f64(args.timeout))
                .map_err(|e| Failure::Failed(format!("{file}: {e}")))?;
            crate::save::png(&tmp.join(&file), &shot.image)?;
            let note =
                if shot.settled { String::new() } else { format!("  (not settled after {:.0} s)", shot.stream_s) };
            errln!("captured {file}{note}");
            lines.push(format!("{}{note}", args.out.join(&file).display()));
        }
        Ok(())
    })?;
    for line in lines {
        outln!("{line}");
    }
    Ok(())
}
