//! `planet path --planet N --from LAT,LON --to LAT,LON`: a walking path over
//! a planet's navmeshes, headless. Builds every region of one LOD in a band
//! around the great circle between the two points (collider and navmesh
//! included, on all cores, with a progress bar), stitches their navmeshes
//! (`engine::nav::NavGraph`), and finds the path: A* over the polygons and
//! the funnel. Prints its length, corners and corridor; `--out FILE` writes
//! them as JSON. Exit 1 where no path exists within the band (another
//! landmass, or sea or cliffs between), 2 on bad input (a point at sea or
//! on no walkable ground included).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use engine::nav::{NavGraph, NavPath};
use engine::{BuiltRegion, ColumnKey, PlanetBuilder, RegionBuilder, lat_lon_of};
use glam::Vec3;
use indicatif::{ProgressBar, ProgressStyle};
use planet::RegionKey;
use planet::terrain::{Terrain, lat_lon_direction};
use rayon::prelude::*;
use serde::Serialize;

use crate::failure::Failure;
use crate::output::{out, outln};
use crate::pick::{PlanetArgs, lat_lon};

/// The most regions an automatic LOD may build.
const AUTO_BUDGET: usize = 400;

/// Arguments of `planet path`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    planet: PlanetArgs,
    /// Start: latitude and longitude in degrees, e.g. --from -15,0.
    #[arg(long, value_name = "LAT,LON", allow_hyphen_values = true)]
    from: String,
    /// Goal: latitude and longitude in degrees.
    #[arg(long, value_name = "LAT,LON", allow_hyphen_values = true)]
    to: String,
    /// LOD of the regions searched (default: the finest that needs at most 400 regions).
    #[arg(long, value_parser = engine::flags::lod, value_name = "L")]
    lod: Option<u8>,
    /// Half-width of the band searched either side of the great circle, metres,
    /// 0..=100000 (default: a third of the distance, at least two regions).
    #[arg(long, value_parser = engine::flags::margin, value_name = "M")]
    margin: Option<f64>,
    /// Threads building the regions, 1..=256 (default: one per core).
    #[arg(long, value_parser = engine::flags::threads, value_name = "N")]
    threads: Option<usize>,
    /// Write the path as JSON: its corners (latitude, longitude, height) and corridor.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// One corner of the path, as written by `--out`.
#[derive(Serialize)]
struct Corner {
    lat: f64,
    lon: f64,
    /// Above the planet's base radius, metres.
    height_m: f64,
    /// Planet-local position, metres.
    position: [f64; 3],
}

/// The path, as written by `--out`.
#[derive(Serialize)]
struct PathFile {
    planet: u32,
    from: [f32; 2],
    to: [f32; 2],
    lod: u8,
    regions: usize,
    length_m: f64,
    straight_m: f64,
    corners: Vec<Corner>,
    /// The polygons crossed, as `F/L/X/Y/Z#polygon`.
    corridor: Vec<String>,
}

fn invalid(message: String) -> Failure {
    Failure::Invalid(message)
}

/// Runs the search and prints the path.
pub fn run(args: &Args) -> Result<(), Failure> {
    let (system, terrain) = args.planet.load()?;
    let (from, to) = (lat_lon("--from", &args.from)?, lat_lon("--to", &args.to)?);
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from));
    if let Some(lod) = args.lod.filter(|&l| l > terrain.grid.max_lod) {
        return Err(invalid(format!("--lod {lod}: must be in 0..={}", terrain.grid.max_lod)));
    }
    let (a, b) = (lat_lon_direction(from.0, from.1), lat_lon_direction(to.0, to.1));
    for (flag, text, d) in [("--from", &args.from, a), ("--to", &args.to, b)] {
        dry_land(&terrain, flag, text, d)?;
    }
    let radius = f64::from(terrain.grid.radius_m);
    let straight = f64::from(a.dot(b).clamp(-1.0, 1.0)).acos() * radius;
    let region_m = |lod: u8| f64::from(terrain.grid.cell_m(lod)) * f64::from(planet::geometry::REGION_CELLS);
    let margin = |lod: u8| args.margin.unwrap_or((straight / 3.0).max(2.0 * region_m(lod)));
    let band = |lod: u8| columns(&terrain, a, b, margin(lod), lod);
    // About how many regions the band holds at a LOD, before sampling it:
    // far too many at the finest LODs of a long way.
    let estimate = |lod: u8| {
        let (w, m) = (region_m(lod), margin(lod));
        ((straight + 2.0 * m) / w + 1.0) * (2.0 * m / w + 1.0) * f64::from(terrain.grid.regions_up(lod).max(1))
    };
    let (lod, keys) = match args.lod {
        Some(lod) => (lod, band(lod)),
        None => (0..=terrain.grid.max_lod)
            .filter(|&lod| estimate(lod) <= 4.0 * AUTO_BUDGET as f64)
            .map(|lod| (lod, band(lod)))
            .find(|(_, keys)| keys.len() <= AUTO_BUDGET)
            .unwrap_or_else(|| (terrain.grid.max_lod, band(terrain.grid.max_lod))),
    };

    let start = Instant::now();
    let terrain = Arc::new(terrain);
    let regions = build(&terrain, &keys, threads, args.quiet)?;
    let built_s = start.elapsed().as_secs_f64();
    let graph = NavGraph::new(regions.iter().cloned());
    let mut out = String::new();
    let plan = &system.planets[args.planet.planet as usize];
    let _ = writeln!(out, "planet {} ({}): from {},{} to {},{}", plan.index, plan.name, from.0, from.1, to.0, to.1);
    let _ = writeln!(
        out,
        "searched {} regions at LOD {lod} (built in {built_s:.2} s on {threads} threads): {} polygons, {} links",
        keys.len(),
        graph.len(),
        graph.link_count()
    );
    out!("{out}");
    // A region's surface lies up to about a cell off the 2D surface.
    let reach = 3.0 + 1.5 * f64::from(terrain.grid.cell_m(lod));
    let ground = |flag: &str, text: &str, d: Vec3| {
        let p = d.as_dvec3() * (radius + f64::from(terrain.surface_height_at(d)));
        graph.locate(p, reach).map(|_| p).ok_or_else(|| {
            invalid(format!(
                "{flag} {text}: no walkable ground there at LOD {lod} (too steep, or under a roof); try a point \
                 nearby or another --lod"
            ))
        })
    };
    let (pa, pb) = (ground("--from", &args.from, a)?, ground("--to", &args.to, b)?);
    let Some(path) = graph.find_path(pa, pb) else {
        return Err(Failure::Failed(format!(
            "no path: no walkable way from {} to {} within the {} regions searched (another landmass, or sea or \
             cliffs between; --margin widens the band)",
            args.from,
            args.to,
            keys.len()
        )));
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "path: {:.1} m ({:.2}x the straight {:.1} m), {} corners, through {} polygons in {} regions",
        path.length,
        path.length / straight.max(1e-9),
        straight,
        path.points.len(),
        path.corridor.len(),
        path.corridor.iter().map(|n| n.region).collect::<BTreeSet<_>>().len()
    );
    let corners = corners(&path, radius);
    for (i, c) in corners.iter().enumerate() {
        if i < 12 || i + 3 >= corners.len() {
            let _ = writeln!(out, "  {i:>4}  {:>9.5} {:>10.5}  {:>7.1} m", c.lat, c.lon, c.height_m);
        } else if i == 12 {
            let _ = writeln!(out, "  ... {} more (--out writes them all)", corners.len() - 15);
        }
    }
    out!("{out}");
    if let Some(file) = &args.out {
        let corridor = path.corridor.iter().map(|n| format!("{}#{}", n.region, n.polygon)).collect();
        let json = PathFile {
            planet: args.planet.planet,
            from: [from.0, from.1],
            to: [to.0, to.1],
            lod,
            regions: keys.len(),
            length_m: path.length,
            straight_m: straight,
            corners,
            corridor,
        };
        let text = serde_json::to_string_pretty(&json).expect("the path serialises");
        crate::save::replace(file, &(text + "\n"))?;
        outln!("wrote {}", file.display());
    }
    Ok(())
}

/// A point at sea is refused before anything is built.
fn dry_land(terrain: &Terrain, flag: &str, text: &str, d: Vec3) -> Result<(), Failure> {
    let sea = terrain.recipe.sea;
    let height = terrain.surface_height_at(d);
    if sea.enabled && height < sea.level_m {
        return Err(invalid(format!(
            "{flag} {text}: under the sea (the ground is {:.0} m below sea level); paths run on dry land",
            sea.level_m - height
        )));
    }
    Ok(())
}

/// Every region of the LOD-`lod` columns within `margin` metres of the great
/// circle from `a` to `b`, in key order.
fn columns(terrain: &Terrain, a: Vec3, b: Vec3, margin: f64, lod: u8) -> Vec<RegionKey> {
    let (a, b) = (a.as_dvec3(), b.as_dvec3());
    let radius = f64::from(terrain.grid.radius_m);
    let step = f64::from(terrain.grid.cell_m(lod)) * f64::from(planet::geometry::REGION_CELLS) * 0.4;
    let angle = a.angle_between(b);
    // Across the way: the great circle's normal (any, for a point to itself).
    let normal = a.cross(b).try_normalize().unwrap_or_else(|| a.any_orthonormal_vector());
    let along = ((angle * radius + 2.0 * margin) / step).ceil() as i64;
    let across = (margin / step).ceil() as i64;
    let mut set = BTreeSet::new();
    for i in 0..=along {
        // From `margin` before `a` to `margin` past `b`.
        let t = (i as f64 * step - margin) / radius;
        let p = glam::DQuat::from_axis_angle(normal, t) * a;
        for j in -across..=across {
            let s = (j as f64 * step / radius).clamp(-1.5, 1.5);
            let q = glam::DQuat::from_axis_angle(p.cross(normal).normalize(), s) * p;
            set.insert(ColumnKey::of(terrain.surface_key(q.as_vec3(), lod)));
        }
    }
    set.into_iter().flat_map(|c| c.regions(&terrain.grid)).collect()
}

/// Builds `keys` on a pool of `threads` threads, in key order, a progress
/// bar on stderr.
fn build(
    terrain: &Arc<Terrain>,
    keys: &[RegionKey],
    threads: usize,
    quiet: bool,
) -> Result<Vec<Arc<BuiltRegion>>, Failure> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Failure::Failed(format!("cannot start {threads} threads: {e}")))?;
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(keys.len() as u64) };
    if let Ok(style) = ProgressStyle::with_template("building regions [{bar:30}] {pos}/{len} {elapsed}") {
        bar.set_style(style.progress_chars("=> "));
    }
    let builder = PlanetBuilder::new(Arc::clone(terrain));
    let built = pool.install(|| {
        keys.par_iter()
            .filter_map(|&key| {
                let region = builder.build(key, &jobs::CancelToken::new());
                bar.inc(1);
                region.map(Arc::new)
            })
            .collect()
    });
    bar.finish_and_clear();
    Ok(built)
}

/// The path's corners as latitude, longitude and height.
fn corners(path: &NavPath, radius: f64) -> Vec<Corner> {
    path.points
        .iter()
        .map(|p| {
            let (lat, lon) = lat_lon_of(*p);
            Corner { lat, lon, height_m: p.length() - radius, position: p.to_array() }
        })
        .collect()
}
