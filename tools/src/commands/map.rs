//! `planet map --planet N --out map.png`: an equirectangular PNG of a whole
//! planet: ground by biome and material, water by depth, hill shading, and
//! the layout over it: lakes, rivers (wider with flow), plots (orange
//! squares), settlements (magenta rings of their towns' radius) and, with `--belts`, the mountain belts' skeleton (dark red) and
//! each stamp's footprint (white outline). It samples the exact surface
//! (`Terrain::surface_at`), on every core.

use std::path::PathBuf;
use std::time::Instant;

use glam::Vec3;
use planet::terrain::{Terrain, lat_lon_direction};

use crate::failure::Failure;
use crate::output::{errln, outln};
use crate::pick::{self, PlanetArgs};

/// Arguments of `planet map`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    planet: PlanetArgs,
    /// Image width in pixels (the height is half of it).
    #[arg(long, value_parser = engine::flags::map_width, default_value_t = 1024)]
    width: u32,
    /// Output PNG.
    #[arg(long)]
    out: PathBuf,
    /// Also draw the mountain belts: their skeleton and every stamp's footprint.
    #[arg(long)]
    belts: bool,
    /// Leave the layout out: the terrain alone.
    #[arg(long)]
    bare: bool,
}

/// Samples the planet and writes the map.
pub fn run(args: &Args) -> Result<(), Failure> {
    crate::save::expect_extension("--out", &args.out, &["png"])?;
    let (system, terrain) = args.planet.load()?;
    let start = Instant::now();
    let (w, h) = (args.width as usize, args.width as usize / 2);
    // Longitude -180..180 left to right, latitude 90..-90 top to bottom (as `--at` takes them).
    let direction = |i: usize, j: usize| {
        let lon = (i as f32 + 0.5) / w as f32 * 360.0 - 180.0;
        let lat = 90.0 - (j as f32 + 0.5) / h as f32 * 180.0;
        lat_lon_direction(lat, lon)
    };
    // Sample every pixel, rows split across the cores.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(h);
    let rows_per = h.div_ceil(threads);
    let samples: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let terrain = &terrain;
                scope.spawn(move || {
                    let rows = t * rows_per..((t + 1) * rows_per).min(h);
                    rows.flat_map(|j| (0..w).map(move |i| terrain.surface_at(direction(i, j)))).collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("map workers do not panic")).collect()
    });
    let r = &terrain.recipe;
    let sea = r.sea.enabled.then_some(r.sea.level_m);
    let sea_color = r.materials.get(r.sea.material as usize).map_or([0.03, 0.14, 0.24], |m| m.color);
    // Metres per pixel along a parallel at the equator, for shading slopes.
    let pixel_m = r.radius_m * std::f32::consts::TAU / w as f32;
    let mut rgb = vec![0u8; w * h * 3];
    for j in 0..h {
        for i in 0..w {
            let s = &samples[j * w + i];
            let color = match sea {
                Some(level) if s.surface_m < level => {
                    let depth = ((level - s.surface_m) / 400.0).clamp(0.0, 1.0);
                    sea_color.map(|c| c * (1.2 - 0.7 * depth))
                }
                _ if s.water_m > s.surface_m => contrast(sea_color, 0.6),
                _ => {
                    let g = s.ground;
                    let base = pick::material_color(&terrain, g.surface, g.blend);
                    // Light from the north-west: compare with the pixel to the upper left.
                    let other = &samples[j.saturating_sub(1) * w + i.saturating_sub(1)];
                    let slope = (s.surface_m - other.surface_m) / pixel_m;
                    let shade = (1.0 + slope * 2.5).clamp(0.45, 1.5);
                    base.map(|c| c * shade)
                }
            };
            rgb[(j * w + i) * 3..][..3].copy_from_slice(&pick::srgb(color));
        }
    }
    if !args.bare {
        overlay(&terrain, &mut rgb, w, h, args.belts, sea_color);
    }
    pick::write_png(&args.out, w as u32, h as u32, rgb)?;
    let plan = &system.planets[args.planet.planet as usize];
    errln!("map of {} ({}): {w}x{h} samples in {:.2} s", plan.name, plan.kind, start.elapsed().as_secs_f64());
    outln!("{}", args.out.display());
    Ok(())
}

/// A colour of the planet's liquid that stands out from its sea and its
/// pale ground: darker where the liquid is light (ice, pale brine), lighter
/// where it is dark, by `strength` (0..=1).
fn contrast(c: [f32; 3], strength: f32) -> [f32; 3] {
    let luminance = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    if luminance > 0.3 {
        c.map(|x| x * (1.0 - 0.6 * strength))
    } else {
        c.map(|x| (x * (1.0 + 1.2 * strength) + 0.1 * strength).min(1.0))
    }
}

/// Pixel of a direction on the map, (column, row).
fn pixel(d: Vec3, w: usize, h: usize) -> (i64, i64) {
    let lat = libm::asinf(d.y.clamp(-1.0, 1.0)).to_degrees();
    let lon = libm::atan2f(d.z, d.x).to_degrees();
    let i = ((lon + 180.0) / 360.0 * w as f32).floor() as i64;
    let j = ((90.0 - lat) / 180.0 * h as f32).floor() as i64;
    (i.clamp(0, w as i64 - 1), j.clamp(0, h as i64 - 1))
}

/// Draws the layout over the map.
fn overlay(terrain: &Terrain, rgb: &mut [u8], w: usize, h: usize, belts: bool, water: [f32; 3]) {
    let layout = &terrain.layout.data;
    let mut put = |(i, j): (i64, i64), c: [u8; 3]| {
        if (0..w as i64).contains(&i) && (0..h as i64).contains(&j) {
            rgb[(j as usize * w + i as usize) * 3..][..3].copy_from_slice(&c);
        }
    };
    let line = |a: (i64, i64), b: (i64, i64), c: [u8; 3], put: &mut dyn FnMut((i64, i64), [u8; 3])| {
        // Not across the map's seam at longitude 180.
        if (a.0 - b.0).abs() > w as i64 / 2 {
            return;
        }
        let steps = (a.0 - b.0).abs().max((a.1 - b.1).abs()).max(1);
        for k in 0..=steps {
            put((a.0 + (b.0 - a.0) * k / steps, a.1 + (b.1 - a.1) * k / steps), c);
        }
    };
    if belts {
        let grid = terrain.layout.grid();
        for &c in &layout.skeleton {
            put(pixel(grid.centre(c), w, h), [110, 20, 20]);
        }
        for s in &layout.stamps {
            let side = s.centre.cross(s.axis);
            let rim: Vec<(i64, i64)> = (0..=24)
                .map(|k| {
                    let t = k as f32 / 24.0 * std::f32::consts::TAU;
                    let off = s.axis * (libm::cosf(t) * s.radius_m) + side * (libm::sinf(t) * s.radius_m * s.aspect);
                    pixel((s.centre + off / terrain.recipe.radius_m).normalize(), w, h)
                })
                .collect();
            for pair in rim.windows(2) {
                line(pair[0], pair[1], [235, 235, 235], &mut put);
            }
        }
    }
    let river = pick::srgb(contrast(water, 1.0));
    for r in &layout.rivers {
        for pair in r.points.windows(2) {
            let (a, b) = (pixel(pair[0].direction, w, h), pixel(pair[1].direction, w, h));
            line(a, b, river, &mut put);
            if pair[0].width_m > 10.0 {
                line((a.0 + 1, a.1), (b.0 + 1, b.1), river, &mut put);
            }
        }
    }
    for p in &layout.plots {
        let (i, j) = pixel(p.centre, w, h);
        for dj in -1..=1 {
            for di in -1..=1 {
                put((i + di, j + dj), [255, 150, 20]);
            }
        }
    }
    // Settlements: a magenta ring of the town's radius (at least 4 pixels)
    // with a dark dot in the middle, over the plot it stands on.
    let s = &terrain.settlements;
    let metres_per_pixel = std::f32::consts::TAU * terrain.recipe.radius_m / w as f32;
    for site in &s.data.sites {
        let radius = (site.radius_m / metres_per_pixel).max(4.0);
        let (i, j) = pixel(site.centre, w, h);
        let steps = (radius * 8.0) as i64;
        for k in 0..steps {
            let t = k as f32 / steps as f32 * std::f32::consts::TAU;
            let (di, dj) = ((libm::cosf(t) * radius) as i64, (libm::sinf(t) * radius) as i64);
            put((i + di, j + dj), [230, 40, 200]);
        }
        put((i, j), [40, 10, 40]);
    }
}
