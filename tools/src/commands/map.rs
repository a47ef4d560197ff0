//! `planet map --planet N --out map.png`: an equirectangular PNG of a whole
//! planet: ground by biome and material, water by depth, hill shading. It
//! samples the exact surface (`Terrain::surface_at`), on every core.

use std::path::PathBuf;
use std::time::Instant;

use planet::terrain::lat_lon_direction;

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
    pick::write_png(&args.out, w as u32, h as u32, rgb)?;
    let plan = &system.planets[args.planet.planet as usize];
    errln!("map of {} ({}): {w}x{h} samples in {:.2} s", plan.name, plan.kind, start.elapsed().as_secs_f64());
    outln!("{}", args.out.display());
    Ok(())
}
