//! `planet inspect PATH [--out DIR]`: a readable summary of a dump folder or
//! of one stage file, with voxel grids written as PNG slices (`planet
//! slice`'s renderer), meshes as OBJ (`planet mesh`'s exporter), and the
//! collider and navmesh as plain OBJ in the same frame, and the scatter
//! stage's objects as their models in OBJ.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use glam::Vec3;
use planet::dump::MANIFEST_FILE;
use planet::mesh::{CubeMesh, SphereMesh, spherify};
use planet::physics::{Collider, NO_NEIGHBOUR, NavMesh};
use planet::pipeline::{Pipeline, Stage, StageOutput, stages};
use planet::scatter::Scatter;
use planet::terrain::{ColumnField, Terrain, VoxelGrid};
use planet::{GENERATOR_VERSION, PlanetPlan, SystemPlan};

use super::dump::read_dump;
use super::mesh::Scene;
use super::slice::{self, Axis};
use crate::failure::Failure;
use crate::output::{out, outln};
use crate::pick;

/// Arguments of `planet inspect`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A dump folder, or one stage file in it (`voxels.bin`, `planet_plan.json`, ...).
    path: PathBuf,
    /// Where to write the PNG slices and OBJ meshes; `inspect/` inside the dump folder when omitted.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Sample index of the slices, 0..=35 (2..=33 are the region's own cells).
    #[arg(long, value_parser = engine::flags::index, default_value_t = 18)]
    index: usize,
    /// Pixels per sample of the slices (1..=64).
    #[arg(long, value_parser = engine::flags::scale, default_value_t = 8)]
    scale: u32,
}

/// Prints the summary and writes the exports.
pub fn run(args: &Args) -> Result<(), Failure> {
    let is_dir = args.path.is_dir();
    let folder = if is_dir { args.path.clone() } else { args.path.parent().unwrap_or(Path::new(".")).to_owned() };
    let out_dir = args.out.clone().unwrap_or_else(|| folder.join("inspect"));
    let mut text = String::new();
    let mut exports = Exports { dir: out_dir, index: args.index, scale: args.scale, written: Vec::new() };
    // A dump folder is read once: summarised, then judged as replay would.
    let raw = if is_dir { Some(read_dump(&args.path)?) } else { None };
    match &raw {
        Some(raw) => inspect_dump(raw, &args.path, &mut text, &mut exports)?,
        None => inspect_file(&args.path, &mut text, &mut exports)?,
    }
    out!("{text}");
    for path in &exports.written {
        outln!("wrote {}", path.display());
    }
    raw.map_or(Ok(()), |raw| replay_verdict(raw, &args.path))
}

/// What `planet replay` would say of the dump, after the summary: nothing
/// when it would replay it (a dump of another `GENERATOR_VERSION` included,
/// which the summary notes), else its reasons, exit 2 (or 1 for a file that
/// cannot be read), so that inspect never passes a dump replay refuses.
fn replay_verdict(raw: super::dump::RawDump, dir: &Path) -> Result<(), Failure> {
    let reason = |m: String| format!("replay would refuse this dump:\n{m}");
    match super::dump::checked(raw, dir, true) {
        Ok(_) => Ok(()),
        Err(Failure::Invalid(m)) => Err(Failure::Invalid(reason(m))),
        Err(Failure::Failed(m)) => Err(Failure::Failed(reason(m))),
        Err(other) => Err(other),
    }
}

/// Where exports go, and what was written.
struct Exports {
    dir: PathBuf,
    index: usize,
    scale: u32,
    written: Vec<PathBuf>,
}

impl Exports {
    fn write(&mut self, name: &str, bytes: &[u8]) -> Result<(), Failure> {
        let path = self.dir.join(name);
        crate::save::replace_bytes(&path, bytes)?;
        self.written.push(path);
        Ok(())
    }

    fn slices(
        &mut self,
        prefix: &str,
        terrain: &Terrain,
        columns: &ColumnField,
        grid: &VoxelGrid,
    ) -> Result<(), Failure> {
        for (axis, name) in [(Axis::X, "x"), (Axis::Y, "y"), (Axis::Z, "z")] {
            let (size, rgb) = slice::render(terrain, columns, grid, axis, self.index, self.scale);
            let path = self.dir.join(format!("{prefix}-{name}{}.png", self.index));
            pick::write_png(&path, size, size, rgb)?;
            self.written.push(path);
        }
        Ok(())
    }

    fn obj(&mut self, name: &str, terrain: &Terrain, mesh: &SphereMesh) -> Result<(), Failure> {
        let scene = Scene::collect(terrain, std::slice::from_ref(mesh), mesh.origin, false);
        self.write(name, &scene.obj(&[mesh.key]))
    }
}

/// A dump folder: the manifest, then every file's state and summary.
fn inspect_dump(
    raw: &super::dump::RawDump,
    dir: &Path,
    text: &mut String,
    exports: &mut Exports,
) -> Result<(), Failure> {
    let m = &raw.manifest;
    let _ = writeln!(text, "dump {}", dir.display());
    let version = if m.generator_version == GENERATOR_VERSION {
        "this build's".to_owned()
    } else {
        format!("this build is {GENERATOR_VERSION}: replay needs --allow-version-mismatch")
    };
    let _ = writeln!(text, "  GENERATOR_VERSION {} ({version}), dump format {}", m.generator_version, m.format);
    let _ = writeln!(
        text,
        "  signature {}, planet {} (plan signature {}), region {}",
        m.signature, m.planet, m.planet_signature, m.key
    );
    if let Some(r) = &m.replayed_from {
        let _ = writeln!(text, "  replayed from {} (from: {})", r.dump, r.from);
    }
    let state = |as_recorded: bool, json: bool| match (as_recorded, json) {
        (true, _) => "as dumped",
        (false, true) => "EDITED (hash differs from the manifest)",
        (false, false) => "CHANGED (hash differs from the manifest)",
    };
    let _ = writeln!(
        text,
        "\n{} (system recipe, {} bytes): {}",
        m.recipe.file,
        m.recipe.size,
        match &raw.recipe_bytes {
            Err(e) => super::dump::unread_text(e),
            Ok(_) => state(raw.recipe_as_recorded, true).to_owned(),
        }
    );
    if let Some(Err(e)) = &raw.recipe {
        for l in e.lines() {
            let _ = writeln!(text, "  invalid: {l}");
        }
    }
    let mut plan: Option<PlanetPlan> = None;
    let mut columns: Option<ColumnField> = None;
    let mut sphere: Option<SphereMesh> = None;
    for (f, entry) in raw.files.iter().zip(&m.stages) {
        let stage = entry.stage;
        let status = match &f.bytes {
            Err(e) => super::dump::unread_text(e),
            Ok(_) => state(f.as_recorded, stage.json).to_owned(),
        };
        let _ = writeln!(
            text,
            "\n{} ({}, {} bytes, {:.3} ms when dumped): {status}",
            stage.file(),
            stage.type_name,
            entry.file.size,
            entry.time_ms
        );
        match &f.output {
            None => {}
            Some(Err(e)) => {
                for l in e.lines() {
                    let _ = writeln!(text, "  unusable: {l}");
                }
            }
            Some(Ok(out)) => {
                let terrain = plan.as_ref().map(Terrain::new);
                summary(out, terrain.as_ref(), sphere.as_ref(), text);
                if let Some(p) = out.get::<PlanetPlan>() {
                    let errors = p.validate_at("recipe");
                    for e in &errors {
                        let _ = writeln!(text, "  invalid: {e}");
                    }
                    if errors.is_empty() {
                        plan = Some(p.clone());
                    }
                }
                export(out, terrain.as_ref(), columns.as_ref(), exports, text)?;
                match known(out) {
                    Known::Columns(c) => columns = Some(c.clone()),
                    Known::SphereMesh(m) => sphere = Some(m.clone()),
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

/// One stage file: found by its name, else by its contents.
fn inspect_file(path: &Path, text: &mut String, exports: &mut Exports) -> Result<(), Failure> {
    let bytes = crate::load::bytes(path, crate::load::FileKind::AnyStageFile)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    if name == MANIFEST_FILE {
        let dir = path.parent().unwrap_or(Path::new("."));
        return inspect_dump(&read_dump(dir)?, dir, text, exports);
    }
    let stage = match Pipeline::standard().stages().iter().copied().find(|s| s.file() == name) {
        Some(s) => s,
        None => guess_stage(&bytes).ok_or_else(|| {
            Failure::Invalid(format!(
                "{}: not a stage file: neither a binary stage file (magic \"PLANETSD\") nor a plan's JSON",
                path.display()
            ))
        })?,
    };
    let out = StageOutput::decode(stage, &bytes).map_err(|e| {
        Failure::Invalid(e.0.lines().map(|l| format!("{}: {l}", path.display())).collect::<Vec<_>>().join("\n"))
    })?;
    let _ = writeln!(text, "{} ({}, {} bytes)", path.display(), stage.type_name, bytes.len());
    // Colours, sea level and the spherify grid come from the plan beside the file, when there is one.
    let folder = path.parent().unwrap_or(Path::new("."));
    let beside = |s: Stage| {
        let bytes = crate::load::bounded(&folder.join(s.file()), crate::load::FileKind::AnyStageFile).ok()?;
        StageOutput::decode(s, &bytes).ok()
    };
    let plan = beside(&stages::PLANET_PLAN)
        .and_then(|o| o.into_value::<PlanetPlan>().ok())
        .filter(|p| p.validate_at("recipe").is_empty());
    let columns = beside(&stages::COLUMNS).and_then(|o| o.into_value::<ColumnField>().ok());
    // The walkable share and the collider's source counts are of the mesh beside it.
    let physics = matches!(known(&out), Known::Collider(_) | Known::NavMesh(_));
    let sphere = beside(&stages::SPHERE_MESH)
        .and_then(|o| o.into_value::<SphereMesh>().ok())
        .filter(|m| physics && out.key() == Some(m.key));
    let terrain = plan.as_ref().map(Terrain::new);
    summary(&out, terrain.as_ref(), sphere.as_ref(), text);
    if physics {
        // Drawn without the plan: they carry no materials.
    } else if stage.json {
        if let Some(p) = out.get::<PlanetPlan>() {
            for e in p.validate_at("recipe") {
                let _ = writeln!(text, "  invalid: {e}");
            }
        }
    } else if terrain.is_none() {
        let _ = writeln!(
            text,
            "  (no valid planet_plan.json beside it: slices and meshes need the plan's palette and grid)"
        );
    }
    export(&out, terrain.as_ref(), columns.as_ref(), exports, text)
}

/// Which stage a file's bytes hold: a binary header's stage, or the plan whose JSON it parses as.
fn guess_stage(bytes: &[u8]) -> Option<Stage> {
    if bytes.starts_with(b"PLANETSD") {
        return Pipeline::standard()
            .stages()
            .iter()
            .copied()
            .filter(|s| !s.json)
            .find(|&s| StageOutput::decode(s, bytes).is_ok());
    }
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    if value.get("recipe").is_some() {
        Some(&stages::PLANET_PLAN)
    } else if value.get("sun").is_some() {
        Some(&stages::SYSTEM_PLAN)
    } else {
        None
    }
}

/// PNG slices of a grid, OBJ of a mesh (both need the plan), plain OBJ of
/// the collider and the navmesh (in the sphere mesh's frame: they line up).
fn export(
    out: &StageOutput,
    terrain: Option<&Terrain>,
    columns: Option<&ColumnField>,
    exports: &mut Exports,
    text: &mut String,
) -> Result<(), Failure> {
    match known(out) {
        Known::Collider(c) => {
            if c.is_empty() {
                return Ok(());
            }
            let obj = plain_obj(
                &format!("planet collider export: region {}", c.key),
                c.vertices.iter().copied(),
                c.triangles(),
            );
            return exports.write("collider.obj", &obj);
        }
        Known::Scatter(s) => {
            if s.objects.is_empty() {
                return Ok(());
            }
            let mut scene = Scene::default();
            scene.add_scatter(0, s, s.origin, planet::scatter::models::ModelSet::shared());
            return exports.write("scatter.obj", &scene.obj(&[s.key]));
        }
        Known::NavMesh(n) => {
            let obj = plain_obj(
                &format!("planet navmesh export: region {}", n.key),
                n.vertices.iter().copied(),
                n.polygons.iter().map(|p| p.corners()),
            );
            return exports.write("navmesh.obj", &obj);
        }
        _ => {}
    }
    let Some(terrain) = terrain else { return Ok(()) };
    match known(out) {
        Known::Voxels(grid) => {
            // Without the dumped columns, the slices' sea level comes from a fresh 2D pass.
            let fresh;
            let columns = match columns {
                Some(c) if c.key == grid.key => c,
                _ => {
                    fresh = terrain.columns(grid.key);
                    let _ = writeln!(text, "  (slices use a fresh 2D pass: no columns.bin of this key beside it)");
                    &fresh
                }
            };
            exports.slices("voxels", terrain, columns, grid)?;
        }
        Known::CubeMesh(cube) => {
            // Shown where spherify puts it, so it lines up with the sphere mesh.
            exports.obj("cube_mesh.obj", terrain, &spherify(&terrain.grid, cube))?;
        }
        Known::SphereMesh(mesh) => exports.obj("sphere_mesh.obj", terrain, mesh)?,
        _ => {}
    }
    Ok(())
}

/// Wavefront OBJ of bare triangles, positions in metres from the region's origin.
fn plain_obj<F: AsRef<[u32]>>(
    title: &str,
    vertices: impl Iterator<Item = [f32; 3]>,
    faces: impl Iterator<Item = F>,
) -> Vec<u8> {
    let mut out = format!("# {title}, positions in metres from the region's origin\n");
    for [x, y, z] in vertices {
        let _ = writeln!(out, "v {x} {y} {z}");
    }
    for face in faces {
        out.push('f');
        for i in face.as_ref() {
            let _ = write!(out, " {}", i + 1);
        }
        out.push('\n');
    }
    out.into_bytes()
}

/// The region and origin line of the sphere mesh's, collider's and navmesh's summaries.
fn region_line(text: &mut String, key: planet::RegionKey, origin: glam::DVec3) {
    let _ = writeln!(text, "  region {key}, origin ({:.2}, {:.2}, {:.2}) m", origin.x, origin.y, origin.z);
}

/// The bounds of some points, as text: `(x, y, z)..(x, y, z) m from the origin, W x H x D m`.
fn bounds(points: impl Iterator<Item = Vec3>) -> String {
    let (lo, hi) = points.fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(l, h), p| (l.min(p), h.max(p)));
    let size = hi - lo;
    format!(
        "({:.2}, {:.2}, {:.2})..({:.2}, {:.2}, {:.2}) m from the origin, {:.1} x {:.1} x {:.1} m",
        lo.x, lo.y, lo.z, hi.x, hi.y, hi.z, size.x, size.y, size.z
    )
}

fn triangle_area([a, b, c]: [Vec3; 3]) -> f64 {
    f64::from((b - a).cross(c - a).length()) * 0.5
}

/// The navmesh's islands: sets of polygons joined through their neighbours.
fn islands(n: &NavMesh) -> usize {
    let mut seen = vec![false; n.polygons.len()];
    let mut count = 0;
    let mut stack = Vec::new();
    for start in 0..n.polygons.len() {
        if seen[start] {
            continue;
        }
        count += 1;
        seen[start] = true;
        stack.push(start);
        while let Some(p) = stack.pop() {
            for &q in n.polygons[p].links() {
                // Neighbours are checked in range when the file is read.
                if q != NO_NEIGHBOUR && !seen[q as usize] {
                    seen[q as usize] = true;
                    stack.push(q as usize);
                }
            }
        }
    }
    count
}

fn range(values: impl Iterator<Item = f32>) -> (f32, f32) {
    values.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

/// A few lines about one stage's output (`sphere`: the region's sphere mesh,
/// for what the collider and navmesh are made from).
fn summary(out: &StageOutput, terrain: Option<&Terrain>, sphere: Option<&SphereMesh>, text: &mut String) {
    let material = |m: u8| {
        terrain
            .and_then(|t| t.recipe.materials.get(usize::from(m)))
            .map_or_else(|| format!("material {m}"), |p| p.name.clone())
    };
    match known(out) {
        Known::SystemPlan(s) => {
            let _ = writeln!(
                text,
                "  system {} (seed {}), sun {:.0} m, {} planets:",
                s.name,
                s.seed,
                s.sun.radius_m,
                s.planets.len()
            );
            for p in &s.planets {
                let _ = writeln!(
                    text,
                    "    {} {} ({}, seed {}), orbit {:.0} km",
                    p.index,
                    p.name,
                    p.kind,
                    p.seed,
                    p.orbit_m / 1e3
                );
            }
        }
        Known::PlanetPlan(p) => {
            let r = &p.recipe;
            let _ = writeln!(
                text,
                "  planet {} {} ({}, seed {}), radius {} m, signature {}",
                p.index,
                p.name,
                p.kind,
                p.seed,
                r.radius_m,
                p.signature()
            );
            let _ = writeln!(
                text,
                "  sea: {} at {} m; {} materials, {} biomes",
                if r.sea.enabled { "on" } else { "off" },
                r.sea.level_m,
                r.materials.len(),
                r.biomes.len()
            );
            let c = &r.caves;
            let _ = writeln!(
                text,
                "  caves: {}, worm_threshold {}, min_depth_m {}, mouth_probability {}",
                if c.enabled { "on" } else { "off" },
                c.worm_threshold,
                c.min_depth_m,
                c.mouth_probability
            );
        }
        Known::Columns(f) => {
            let (lo, hi) = range(f.columns.iter().map(|c| c.surface_m()));
            let (elo, ehi) = range(f.columns.iter().map(|c| c.elevation_m));
            let (_, slope) = range(f.columns.iter().map(|c| c.slope_deg));
            let _ = writeln!(text, "  region {}: {} columns", f.key, f.columns.len());
            let _ = writeln!(
                text,
                "  surface {lo:+.2}..{hi:+.2} m, elevation {elo:+.2}..{ehi:+.2} m, steepest {slope:.1} deg"
            );
            let mut biomes = std::collections::BTreeMap::<u8, usize>::new();
            for c in &f.columns {
                *biomes.entry(c.biome).or_default() += 1;
            }
            let names: Vec<String> = biomes
                .iter()
                .map(|(&b, n)| {
                    let name = terrain
                        .and_then(|t| t.recipe.biomes.get(usize::from(b)))
                        .map_or_else(|| format!("biome {b}"), |x| x.name.clone());
                    format!("{name} {n}")
                })
                .collect();
            let _ = writeln!(text, "  biomes: {}", names.join(", "));
        }
        Known::Voxels(g) => {
            let side = VoxelGrid::SIDE;
            let solid = g.voxels.iter().filter(|v| v.is_solid()).count();
            // Air with ground somewhere above it in its column: caves and overhangs.
            let mut cave = 0;
            for b in 0..side {
                for a in 0..side {
                    let mut ground_above = false;
                    for c in (0..side).rev() {
                        let v = g.at(a, b, c);
                        if v.is_solid() {
                            ground_above = true;
                        } else if ground_above {
                            cave += 1;
                        }
                    }
                }
            }
            let _ = writeln!(
                text,
                "  region {}: {} samples: solid {solid}, air {} (with ground above it: {cave})",
                g.key,
                g.voxels.len(),
                g.voxels.len() - solid
            );
            let mut by = std::collections::BTreeMap::<u8, usize>::new();
            for v in g.voxels.iter().filter(|v| v.is_solid()) {
                *by.entry(v.materials[0]).or_default() += 1;
            }
            let mut by: Vec<(u8, usize)> = by.into_iter().collect();
            by.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let list: Vec<String> = by.iter().take(6).map(|&(m, n)| format!("{} {n}", material(m))).collect();
            let _ = writeln!(text, "  solid by material: {}", list.join(", "));
            let _ = writeln!(text, "  hash {}", g.signature());
        }
        Known::CubeMesh(m) => {
            let _ = writeln!(text, "  region {}, cube-face space", m.key);
            for (name, p) in [("terrain", &m.terrain), ("blocks", &m.blocks), ("water", &m.water)] {
                let _ = writeln!(
                    text,
                    "  {name:<8} {:>6} vertices {:>6} triangles {:>6} overlap",
                    p.vertices.len(),
                    p.triangles.len() / 3,
                    p.overlap.len() / 3
                );
            }
        }
        Known::SphereMesh(m) => {
            region_line(text, m.key, m.origin);
            for (name, p) in [("terrain", &m.terrain), ("blocks", &m.blocks), ("water", &m.water)] {
                let width = match p.indices {
                    planet::mesh::Indices::U16(_) => "u16",
                    planet::mesh::Indices::U32(_) => "u32",
                };
                let _ = writeln!(
                    text,
                    "  {name:<8} {:>6} vertices {:>6} triangles {:>6} overlap ({width} indices)",
                    p.vertices.len(),
                    p.indices.len() / 3,
                    p.overlap.len() / 3
                );
            }
            let _ = writeln!(text, "  signature {}", m.signature());
        }
        Known::Collider(c) => {
            region_line(text, c.key, c.origin);
            let Some((lo, hi)) = c.bounds() else {
                let _ = writeln!(text, "  no triangles: the region has no surface to collide with");
                return;
            };
            let leaves = c.bvh.nodes.iter().filter(|n| n.leaf_first().is_some()).count();
            let _ = writeln!(
                text,
                "  {} triangles, {} vertices; BVH of {} nodes, {leaves} leaves",
                c.triangle_count(),
                c.vertices.len(),
                c.bvh.nodes.len()
            );
            let _ = writeln!(text, "  BVH bounds {}", bounds([lo, hi].into_iter()));
            if let Some(m) = sphere {
                let solid = [&m.terrain, &m.blocks].map(|p| (p.indices.len() + p.overlap.len()) / 3);
                let _ = writeln!(
                    text,
                    "  from the sphere mesh's {} terrain and {} block triangles (owned and overlap; {} degenerate left \
                     out)",
                    solid[0],
                    solid[1],
                    (solid[0] + solid[1]).saturating_sub(c.triangle_count())
                );
            }
            let _ = writeln!(text, "  signature {} (the BVH included)", c.signature());
        }
        Known::NavMesh(n) => {
            region_line(text, n.key, n.origin);
            let area: f64 = (0..n.polygons.len() as u32)
                .flat_map(|p| n.fan(p))
                .map(|[a, b, c]| (b - a).cross(c - a).length() * 0.5)
                .sum();
            let triangles: usize = n.polygons.iter().map(|p| p.count as usize - 2).sum();
            let quads = n.polygons.iter().filter(|p| p.count == 4).count();
            let _ = writeln!(
                text,
                "  {} polygons ({quads} quads; {triangles} walkable triangles), {} vertices, {area:.1} m² walkable in \
                 {} islands",
                n.polygons.len(),
                n.vertices.len(),
                islands(n)
            );
            let open = n.polygons.iter().flat_map(|p| p.links()).filter(|&&q| q == NO_NEIGHBOUR).count();
            let linked = n.polygons.iter().map(|p| p.count as usize).sum::<usize>() - open;
            let _ = writeln!(
                text,
                "  edges: {} shared, {open} open (linked to the neighbouring regions, or the walkable ground's edge)",
                linked / 2
            );
            if let Some(m) = sphere {
                let t = &m.terrain;
                let position = |i: u32| Vec3::from_array(t.vertices[i as usize].position);
                let owned = t.indices.to_u32();
                let total: f64 = owned
                    .chunks_exact(3)
                    .map(|c| triangle_area([position(c[0]), position(c[1]), position(c[2])]))
                    .sum();
                let share = if total > 0.0 { 100.0 * area / total } else { 0.0 };
                let _ = writeln!(
                    text,
                    "  walkable share: {share:.1}% of the terrain's area ({triangles} of its {} owned triangles)",
                    owned.len() / 3
                );
            }
            if !n.vertices.is_empty() {
                let _ = writeln!(text, "  bounds {}", bounds(n.vertices.iter().map(|&v| Vec3::from_array(v))));
            }
            let _ = writeln!(text, "  signature {}", n.signature());
        }
        Known::Scatter(s) => {
            region_line(text, s.key, s.origin);
            let _ = writeln!(text, "  {}", out.summary());
            let children = s.objects.iter().filter(|o| o.child).count();
            let (lo, hi) = range(s.objects.iter().map(|o| o.size_m));
            if !s.objects.is_empty() {
                let _ = writeln!(
                    text,
                    "  {children} brought by a parent; sizes {lo:.2}..{hi:.2} m; bases {}",
                    bounds(s.objects.iter().map(|o| o.position))
                );
            }
            let _ = writeln!(text, "  signature {}", s.signature());
        }
        // A stage this summary does not know yet: what its row says.
        Known::Other => {
            let _ = writeln!(text, "  {}", out.summary());
        }
    }
}

/// A stage's output as the types this command draws and summarises.
enum Known<'a> {
    SystemPlan(&'a SystemPlan),
    PlanetPlan(&'a PlanetPlan),
    Columns(&'a ColumnField),
    Voxels(&'a VoxelGrid),
    CubeMesh(&'a CubeMesh),
    SphereMesh(&'a SphereMesh),
    Collider(&'a Collider),
    NavMesh(&'a NavMesh),
    Scatter(&'a Scatter),
    Other,
}

fn known(out: &StageOutput) -> Known<'_> {
    if let Some(v) = out.get() {
        Known::SystemPlan(v)
    } else if let Some(v) = out.get() {
        Known::PlanetPlan(v)
    } else if let Some(v) = out.get() {
        Known::Columns(v)
    } else if let Some(v) = out.get() {
        Known::Voxels(v)
    } else if let Some(v) = out.get() {
        Known::CubeMesh(v)
    } else if let Some(v) = out.get() {
        Known::SphereMesh(v)
    } else if let Some(v) = out.get() {
        Known::Collider(v)
    } else if let Some(v) = out.get() {
        Known::NavMesh(v)
    } else if let Some(v) = out.get() {
        Known::Scatter(v)
    } else {
        Known::Other
    }
}
