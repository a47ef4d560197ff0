//! `planet edit --save FILE --planet N --at LAT,LON --op dig --radius R`:
//! scripts an edit. Loads the save (a new one when FILE does not exist),
//! checks it is of this system and generator, adds the edit (checked against
//! the planet: brush size, material), and writes the save back safely
//! (`engine::savefile`: temporary file, fsync, backup, rename). `planet
//! capture --save FILE` and `planet fly --save FILE` show the edited world.

use std::path::PathBuf;

use glam::Vec3;
use planet::edit::save::Save;
use planet::edit::{Bake, Brush, Edit, EditLog, Operation, bake_ball, ground_radius};
use planet::terrain::lat_lon_direction;

use crate::failure::Failure;
use crate::output::outln;
use crate::pick::{PlanetArgs, lat_lon_and};

/// Arguments of `planet edit`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The save to add the edit to (created when missing).
    #[arg(long, value_name = "FILE")]
    save: PathBuf,
    #[command(flatten)]
    planet: PlanetArgs,
    /// Where: latitude and longitude in degrees, on the planet's surface there.
    #[arg(long, value_name = "LAT,LON", allow_hyphen_values = true)]
    at: String,
    /// What: dig, fill, smooth (towards the ground's fitted shape), flatten or paint.
    #[arg(long, value_name = "OP")]
    op: String,
    /// A sphere brush of this radius, metres (0.25..=64); the default brush, 4 m.
    #[arg(long, value_name = "M", conflicts_with = "box_m")]
    radius: Option<f32>,
    /// A box brush of these half extents, metres (each 0.25..=64): side, up, forward.
    #[arg(long = "box", value_name = "X,Y,Z")]
    box_m: Option<String>,
    /// The box's turn about the local up, degrees (-360..=360).
    #[arg(long, value_name = "DEG", default_value_t = 0.0)]
    yaw: f32,
    /// How far below the ground (as the saved edits left it) the brush's centre is, metres (negative: above), -64..=64.
    #[arg(long, value_name = "M", default_value_t = 0.0)]
    depth: f32,
    /// The material a fill adds or a paint lays: a palette name or index (default: the planet's rock).
    #[arg(long, value_name = "NAME|N")]
    material: Option<String>,
}

/// How near the spot a saved edit must be to change the ground there or
/// the regions the new edit touches, metres: two brushes' reach (64 m
/// boxes reach 111 m) and a LOD-0 region's span, with room to spare.
const NEAR_M: f32 = 400.0;

/// Adds the edit and writes the save.
pub fn run(args: &Args) -> Result<(), Failure> {
    let (system, terrain) = args.planet.load()?;
    let op = Operation::from_name(&args.op).ok_or_else(|| {
        let names: Vec<&str> = Operation::ALL.iter().map(|o| o.name()).collect();
        Failure::Invalid(format!("--op {}: must be one of {}", args.op, names.join(", ")))
    })?;
    let Some((lat, lon, None)) = lat_lon_and(&args.at) else {
        return Err(Failure::Invalid(format!(
            "--at {}: must be LAT,LON with LAT in -90..=90, LON in -180..=180",
            args.at
        )));
    };
    if !(-64.0..=64.0).contains(&args.depth) {
        return Err(Failure::Invalid(format!("--depth {}: must be in -64..=64 m", args.depth)));
    }
    let brush = match (&args.box_m, args.radius) {
        (Some(text), _) => {
            let parts: Option<Vec<f32>> = text.split(',').map(|p| p.trim().parse().ok()).collect();
            let Some([x, y, z]) = parts.as_deref().and_then(|p| <[f32; 3]>::try_from(p).ok()) else {
                return Err(Failure::Invalid(format!(
                    "--box {text}: must be three numbers X,Y,Z, half extents in metres"
                )));
            };
            Brush::Box { half_m: [x, y, z], yaw_deg: args.yaw }
        }
        (None, radius) => Brush::Sphere { radius_m: radius.unwrap_or(4.0) },
    };
    let palette = &terrain.recipe.materials;
    let material = match &args.material {
        None => terrain.recipe.surface.rock as u8,
        Some(m) => match palette.iter().position(|p| p.name == *m).or_else(|| m.parse::<usize>().ok()) {
            Some(i) if i < palette.len() => i as u8,
            _ => {
                let names: Vec<String> = palette.iter().enumerate().map(|(i, p)| format!("{i} {}", p.name)).collect();
                return Err(Failure::Invalid(format!("--material {m}: must be one of {}", names.join(", "))));
            }
        },
    };

    let planets = system.planets.len();
    let mut save = if args.save.exists() {
        engine::savefile::read_save(&args.save).map_err(|e| Failure::Invalid(e.to_string()))?
    } else {
        Save::new(system.signature(), planets)
    };
    save.check_world(system.signature(), planets)
        .map_err(|e| Failure::Invalid(format!("{}: {e}", args.save.display())))?;
    let index = args.planet.planet as usize;
    // Every saved edit is checked (cheap); only those near the spot are indexed, below.
    let (radius, materials) = (terrain.recipe.radius_m, terrain.recipe.materials.len());
    if let Some((i, e)) =
        save.planets[index].iter().enumerate().find_map(|(i, e)| e.check(radius, materials).err().map(|e| (i, e)))
    {
        return Err(Failure::Invalid(format!("{}: planet {index}, edit {i}: {e}", args.save.display())));
    }
    // The edit aims at the ground as the saved edits and bakes left it, and
    // a smooth fits its surface to that ground: those that can reach the
    // regions there are indexed (not all of them: a save may hold
    // millions), as a loaded world holds them, each bake in its place
    // among the edits kept. This log never bakes: the save gets no bake.
    let d = lat_lon_direction(lat, lon);
    let spot = d * (terrain.recipe.radius_m + terrain.surface_at(d).surface_m);
    let saved = &save.planets[index];
    let near_at: Vec<u32> = (0..saved.len() as u32)
        .filter(|&i| Vec3::from_array(saved[i as usize].centre).distance(spot) < NEAR_M)
        .collect();
    let near: Vec<Edit> = near_at.iter().map(|&i| saved[i as usize]).collect();
    let near_bakes: Vec<(u32, Bake)> = save.bakes[index]
        .iter()
        .filter(|(_, bake)| {
            let (centre, radius) = bake_ball(&terrain, bake.key);
            centre.distance(spot) < NEAR_M + radius
        })
        .map(|(before, bake)| (near_at.partition_point(|&i| i < *before) as u32, bake.clone()))
        .collect();
    let mut log = EditLog::with_bakes(&terrain, &near, &near_bakes)
        .map_err(|(_, e)| Failure::Invalid(format!("{}: planet {index}: {e}", args.save.display())))?;
    log.set_bake_at(usize::MAX);
    let ground = ground_radius(&terrain, &log, d).unwrap_or(spot.length());
    let centre: Vec3 = d * (ground - args.depth);
    let edit = log.fit(&terrain, Edit { op, brush, centre: centre.to_array(), material });
    let touched = log.push(&terrain, edit).map_err(|e| Failure::Invalid(format!("the edit: {e}")))?;
    save.planets[index].push(edit);
    engine::savefile::write_save(&args.save, &save).map_err(|e| Failure::Failed(e.to_string()))?;
    let lods = touched.iter().map(|k| k.lod).max().unwrap_or(0);
    let shape = match brush {
        Brush::Sphere { radius_m } => format!("sphere of {radius_m} m"),
        Brush::Box { half_m: [x, y, z], yaw_deg } => format!("box of {x} x {y} x {z} m (half), turned {yaw_deg} deg"),
    };
    outln!(
        "{} with a {shape} at {lat},{lon}, {} m below the ground: touches {} regions at LODs 0..={lods}",
        op.name(),
        args.depth,
        touched.len()
    );
    outln!(
        "planet {index} has {} edits; {} holds {} edits in all ({} bytes)",
        save.planets[index].len(),
        args.save.display(),
        save.planets.iter().map(Vec::len).sum::<usize>(),
        save.encode().len()
    );
    Ok(())
}
