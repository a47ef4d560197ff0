//! Arguments shared by the commands that work on one planet or one region:
//! `--system FILE`, `--planet N` and `--key F/L/X/Y/Z`, checked with clear errors.

use std::path::PathBuf;

use planet::terrain::{Terrain, lat_lon_direction};
use planet::{PlannedSystem, RegionKey};

use crate::failure::Failure;
use crate::load;

/// `--system FILE --planet N`.
#[derive(Debug, Clone, clap::Args)]
pub struct PlanetArgs {
    /// System recipe (JSON); the embedded default system when omitted.
    #[arg(long, value_name = "FILE")]
    pub system: Option<PathBuf>,
    /// Planet index (0 = nearest the sun); `planet system` lists them.
    #[arg(long, value_parser = engine::flags::planet, value_name = "N")]
    pub planet: u32,
}

impl PlanetArgs {
    /// The planned system and the terrain generator of the chosen planet.
    pub fn load(&self) -> Result<(PlannedSystem, Terrain), Failure> {
        let system = self.system()?;
        let terrain = Terrain::new(&system.planets[self.planet as usize]);
        Ok((system, terrain))
    }

    /// The planned system, after checking that it has the chosen planet
    /// (`system.planets[planet]` then exists).
    pub fn system(&self) -> Result<PlannedSystem, Failure> {
        let system = load::system(self.system.as_deref())?;
        let count = system.planets.len();
        if system.planet(self.planet).is_none() {
            return Err(Failure::Invalid(format!(
                "--planet {}: must be in 0..={} (the system has {count} planets)",
                self.planet,
                count - 1
            )));
        }
        Ok(system)
    }
}

/// `--key F/L/X/Y/Z`, or `--at LAT,LON[,LOD]` for the region holding the surface there.
#[derive(Debug, Clone, clap::Args)]
#[group(required = true, multiple = false)]
pub struct KeyArgs {
    /// Region key F/L/X/Y/Z: face 0..=5, LOD, then x, y (across the face) and z (up the shell).
    #[arg(long)]
    pub key: Option<String>,
    /// The region holding the surface at latitude and longitude in degrees, at LOD (default 0),
    /// e.g. --at 12.5,-40 (the `planet map` image spans longitude -180..180, latitude 90..-90).
    #[arg(long, value_name = "LAT,LON[,LOD]", allow_hyphen_values = true)]
    pub at: Option<String>,
}

impl KeyArgs {
    /// The region the arguments name, checked against the planet's grid.
    pub fn key(&self, terrain: &Terrain) -> Result<RegionKey, Failure> {
        match (&self.key, &self.at) {
            (Some(k), _) => key(terrain, k),
            (None, Some(at)) => {
                let bad = || {
                    Failure::Invalid(format!(
                        "--at {at}: must be LAT,LON or LAT,LON,LOD with LAT in -90..=90, LON in -180..=180"
                    ))
                };
                let (lat, lon, lod) = match lat_lon_and(at).ok_or_else(bad)? {
                    (lat, lon, None) => (lat, lon, 0.0),
                    (lat, lon, Some(lod)) => (lat, lon, lod),
                };
                if lod.fract() != 0.0 {
                    return Err(bad());
                }
                if !(0.0..=f32::from(terrain.grid.max_lod)).contains(&lod) {
                    return Err(Failure::Invalid(format!("--at {at}: LOD must be in 0..={}", terrain.grid.max_lod)));
                }
                Ok(terrain.surface_key(lat_lon_direction(lat, lon), lod as u8))
            }
            (None, None) => unreachable!("clap requires --key or --at"),
        }
    }
}

/// `LAT,LON` in degrees for flag `flag`, checked.
pub fn lat_lon(flag: &str, text: &str) -> Result<(f32, f32), Failure> {
    match lat_lon_and(text) {
        Some((lat, lon, None)) => Ok((lat, lon)),
        _ => {
            Err(Failure::Invalid(format!("{flag} {text}: must be LAT,LON with LAT in -90..=90 and LON in -180..=180")))
        }
    }
}

/// `LAT,LON` or `LAT,LON,X` in degrees (and any number X), with LAT in
/// -90..=90 and LON in -180..=180; `None` for anything else.
pub fn lat_lon_and(text: &str) -> Option<(f32, f32, Option<f32>)> {
    let parts: Vec<f32> = text.split(',').map(|p| p.trim().parse::<f32>()).collect::<Result<_, _>>().ok()?;
    let (lat, lon, more) = match parts[..] {
        [lat, lon] => (lat, lon, None),
        [lat, lon, more] => (lat, lon, Some(more)),
        _ => return None,
    };
    ((-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon)).then_some((lat, lon, more))
}

/// Parses and checks `--key F/L/X/Y/Z` against a planet's grid.
pub fn key(terrain: &Terrain, text: &str) -> Result<RegionKey, Failure> {
    let key: RegionKey = text.parse().map_err(|e| Failure::Invalid(format!("--key: {e}")))?;
    terrain.grid.check(key).map_err(|e| Failure::Invalid(format!("--key {text}: {e}")))?;
    Ok(key)
}

/// A linear RGB colour in 0..=1 as 8-bit sRGB.
pub fn srgb(c: [f32; 3]) -> [u8; 3] {
    c.map(|v| {
        let v = v.clamp(0.0, 1.0);
        let s = if v <= 0.003_130_8 { v * 12.92 } else { 1.055 * libm::powf(v, 1.0 / 2.4) - 0.055 };
        (s * 255.0 + 0.5) as u8
    })
}

/// The colour of a voxel's or column's material pair, linear RGB.
pub fn material_color(terrain: &Terrain, materials: [u8; 2], blend: u16) -> [f32; 3] {
    let palette = &terrain.recipe.materials;
    let get = |m: u8| palette.get(usize::from(m)).map_or([1.0, 0.0, 1.0], |p| p.color);
    let (a, b) = (get(materials[0]), get(materials[1]));
    let t = f32::from(blend) / 65535.0;
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

/// Writes an RGB image as PNG, replacing `path` whole or not at all.
pub fn write_png(path: &std::path::Path, width: u32, height: u32, rgb: Vec<u8>) -> Result<(), Failure> {
    let image = image::RgbImage::from_raw(width, height, rgb).expect("buffer matches the size");
    crate::save::png(path, &image)
}
