//! `planet scatter --planet N --key F/L/X/Y/Z | --at LAT,LON[,LOD]`: builds
//! one region up to its scatter stage and summarises the objects: counts per
//! rule and per kind (parents and the children they brought), why
//! candidates that exist were refused, and the time each step took.

use std::fmt::Write as _;
use std::time::Instant;

use planet::mesh::{MeshWorkspace, polygonize, spherify};
use planet::scatter::{KINDS, Placement, kind_name, place};

use crate::failure::Failure;
use crate::output::out;
use crate::pick::{self, PlanetArgs};

/// Arguments of `planet scatter`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    planet: PlanetArgs,
    #[command(flatten)]
    key: pick::KeyArgs,
}

/// Builds the region, scatters it and prints the summary.
pub fn run(args: &Args) -> Result<(), Failure> {
    let (system, terrain) = args.planet.load()?;
    let key = args.key.key(&terrain)?;
    let t0 = Instant::now();
    let columns = terrain.columns(key);
    let voxels = terrain.voxels(&columns);
    let t1 = Instant::now();
    let cube = polygonize(&terrain, &columns, &voxels, &mut MeshWorkspace::default());
    let sphere = spherify(&terrain.grid, &cube);
    let t2 = Instant::now();
    let (scatter, refusals) = place(&terrain, &columns, &cube, sphere.origin);
    let t3 = Instant::now();

    let plan = &system.planets[args.planet.planet as usize];
    let rules = Placement::all(&terrain.recipe);
    let mut out = String::new();
    let _ = writeln!(out, "scatter of region {key} of planet {} ({}, {})", plan.index, plan.name, plan.kind);
    let children = scatter.objects.iter().filter(|o| o.child).count();
    let _ = writeln!(
        out,
        "objects {}: {} placed by their cells, {} brought by a parent",
        scatter.objects.len(),
        scatter.objects.len() - children,
        children
    );
    let _ = writeln!(out, "by kind:");
    for kind in KINDS {
        let of = |child: bool| scatter.objects.iter().filter(|o| o.kind == kind && o.child == child).count();
        let (parents, brought) = (of(false), of(true));
        if parents + brought > 0 {
            let _ =
                writeln!(out, "  {:>6}  {:<8} ({parents} own, {brought} children)", parents + brought, kind_name(kind));
        }
    }
    let _ = writeln!(out, "by rule:  placed  children  refused  coarsest LOD  cell m  name (kind)");
    // A cell's width at the face's centre (0.67 of it at the corners).
    let cell_m = |p: &Placement| p.cell_units() * terrain.grid.radius_m * core::f32::consts::FRAC_PI_4;
    for (r, p) in rules.iter().enumerate() {
        let of = |child: bool| scatter.objects.iter().filter(|o| usize::from(o.rule) == r && o.child == child).count();
        let (placed, brought) = (of(false), of(true));
        let refused = refusals.parents_by_rule.get(r).copied().unwrap_or(0);
        let shown = if key.lod > p.max_lod { "  (not at this LOD)" } else { "" };
        let _ = writeln!(
            out,
            "  {r:>5}  {placed:>6}  {brought:>8}  {refused:>7}  {:>12}  {:>6.2}  {} ({}){shown}",
            p.max_lod,
            cell_m(p),
            terrain.recipe.scatter[r].name,
            kind_name(p.kind)
        );
    }
    let _ = writeln!(
        out,
        "refused {}: no ground {}, ground in another layer {}, roofed {}, under the sea {}, cave floor {}, \
         built on {} ({} of them children)",
        refusals.total(),
        refusals.no_ground,
        refusals.other_layer,
        refusals.roofed,
        refusals.under_sea,
        refusals.cave,
        refusals.built_on,
        refusals.children
    );
    let _ = writeln!(out, "signature {}", scatter.signature());
    let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
    let _ = writeln!(
        out,
        "time: generate {:.3} ms, mesh {:.3} ms, scatter {:.3} ms (one run; `cargo bench -p planet --bench stages` \
         for medians)",
        ms(t0, t1),
        ms(t1, t2),
        ms(t2, t3)
    );
    out!("{out}");
    Ok(())
}
