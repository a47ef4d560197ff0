//! `planet slice --planet N --key K --axis z --index 10 --out slice.png`: a PNG
//! slice through a region's voxel grid, to look at caves and strata. Solid
//! voxels show their materials (darker where the density is deeper), air is
//! sky or, under the sea, water; the region's own 32 cells are framed.

use std::path::PathBuf;

use clap::ValueEnum;
use planet::terrain::{ColumnField, Terrain, VoxelGrid};

use crate::failure::Failure;
use crate::output::outln;
use crate::pick::{self, PlanetArgs};

/// Which axis the slice is across.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Axis {
    /// A vertical slice at fixed x (y across, z up).
    X,
    /// A vertical slice at fixed y (x across, z up).
    Y,
    /// A horizontal slice at fixed z (x across, y down).
    Z,
}

/// Arguments of `planet slice`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    planet: PlanetArgs,
    #[command(flatten)]
    key: pick::KeyArgs,
    /// The axis the slice is across.
    #[arg(long, value_enum, default_value = "y")]
    axis: Axis,
    /// Sample index along that axis, 0..=35 (2..=33 are the region's own cells).
    #[arg(long, value_parser = engine::flags::index, default_value_t = 18)]
    index: usize,
    /// Pixels per sample.
    #[arg(long, value_parser = engine::flags::scale, default_value_t = 12)]
    scale: u32,
    /// Output PNG.
    #[arg(long)]
    out: PathBuf,
}

/// Generates the region and writes the slice.
pub fn run(args: &Args) -> Result<(), Failure> {
    crate::save::expect_extension("--out", &args.out, &["png"])?;
    let (_, terrain) = args.planet.load()?;
    let key = args.key.key(&terrain)?;
    let columns = terrain.columns(key);
    let grid = terrain.voxels(&columns);
    let (size, rgb) = render(&terrain, &columns, &grid, args.axis, args.index, args.scale);
    pick::write_png(&args.out, size, size, rgb)?;
    outln!("{}", args.out.display());
    Ok(())
}

/// A slice of `grid` across `axis` at sample `index` (0..=35), `scale` pixels
/// a sample: the side of the square image and its RGB bytes.
pub fn render(
    terrain: &Terrain,
    columns: &ColumnField,
    grid: &VoxelGrid,
    axis: Axis,
    index: usize,
    scale: u32,
) -> (u32, Vec<u8>) {
    let key = grid.key;
    let r = &terrain.recipe;
    let layer_m = terrain.grid.layer_m(key.lod);
    let first_layer = key.z as i32 * 32 - 2;
    let sea = r.sea.enabled.then_some(r.sea.level_m);

    let side = 36usize;
    let s = scale as usize;
    let size = side * s;
    let mut rgb = vec![0u8; size * size * 3];
    for py in 0..side {
        for px in 0..side {
            // (a, b, c) of the sample at image cell (px, py); vertical slices put z up.
            let (a, b, c) = match axis {
                Axis::X => (index, px, side - 1 - py),
                Axis::Y => (px, index, side - 1 - py),
                Axis::Z => (px, py, index),
            };
            let v = grid.at(a, b, c);
            let col = columns.at(a, b);
            let height = col.elevation_m - terrain.grid.shell_below_m + (first_layer + c as i32) as f32 * layer_m;
            let color = if v.is_solid() {
                let base = pick::material_color(terrain, v.materials, v.blend);
                let shade = 1.0 - (v.density_m() / 24.0).clamp(0.0, 0.55);
                base.map(|x| x * shade)
            } else if (c + 1..side).any(|above| grid.at(a, b, above).is_solid()) {
                [0.03, 0.03, 0.04] // cave air: there is ground above it
            } else {
                match sea {
                    Some(level) if height < level => [0.02, 0.10, 0.25],
                    _ => [0.55, 0.70, 0.90],
                }
            };
            let rgb8 = pick::srgb(color);
            for dy in 0..s {
                for dx in 0..s {
                    let i = ((py * s + dy) * size + px * s + dx) * 3;
                    rgb[i..i + 3].copy_from_slice(&rgb8);
                }
            }
        }
    }
    // Frame the region's own 32 cells (samples 2..=34) with thin light lines.
    for line in [2 * s, 34 * s] {
        for t in 2 * s..=34 * s {
            for (x, y) in [(line, t), (t, line)] {
                let i = (y.min(size - 1) * size + x.min(size - 1)) * 3;
                for ch in &mut rgb[i..i + 3] {
                    *ch = ch.saturating_add(96);
                }
            }
        }
    }
    (size as u32, rgb)
}
