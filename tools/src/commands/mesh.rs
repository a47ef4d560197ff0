//! `planet mesh --planet N --key F/L/X/Y/Z [--neighbours] --out region.obj`:
//! a region's meshes (terrain, resource blocks, water) for any mesh viewer, as
//! OBJ or PLY (with vertex colours from the palette), optionally with the
//! ring of regions around it, and optionally a preview PNG from the software
//! rasterizer. `--scatter` adds the scatter stage's objects as their models.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use glam::{DVec3, Vec3};
use planet::RegionKey;
use planet::mesh::{MeshPart, MeshWorkspace, SphereMesh, octahedral_decode, polygonize, spherify};
use planet::scatter::{KINDS, Scatter, kind_name};
use planet::terrain::Terrain;

use planet::scatter::models::{ModelSet, TRUNK_COLOR, type_of};

use crate::failure::Failure;
use crate::output::{errln, outln};
use crate::pick::{self, PlanetArgs};
use crate::raster::{self, Triangle};

/// Arguments of `planet mesh`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    planet: PlanetArgs,
    #[command(flatten)]
    key: pick::KeyArgs,
    /// Also export the regions around it: its column and the eight around, every layer.
    #[arg(long)]
    neighbours: bool,
    /// Include the overlap strips (drawn where a neighbour is at another LOD).
    #[arg(long)]
    overlap: bool,
    /// Output mesh: `.obj` or `.ply`.
    #[arg(long)]
    out: PathBuf,
    /// Also render a preview PNG from above and to the side.
    #[arg(long, value_name = "FILE")]
    png: Option<PathBuf>,
    /// Add the scatter stage's objects (trees, bushes, grass, rocks, crystals) as their models.
    #[arg(long)]
    scatter: bool,
}

/// Builds the meshes and writes them.
pub fn run(args: &Args) -> Result<(), Failure> {
    if let Some(png) = &args.png {
        crate::save::expect_extension("--png", png, &["png"])?;
    }
    let format = match args.out.extension().and_then(|e| e.to_str()) {
        Some("obj") => Format::Obj,
        Some("ply") => Format::Ply,
        _ => return Err(Failure::Invalid(format!("--out {}: must end in .obj or .ply", args.out.display()))),
    };
    let (_, terrain) = args.planet.load()?;
    let key = args.key.key(&terrain)?;
    let keys = if args.neighbours { neighbourhood(&terrain, key) } else { vec![key] };
    let start = Instant::now();
    let mut ws = MeshWorkspace::default();
    let mut objects = Vec::new();
    let meshes: Vec<SphereMesh> = keys
        .iter()
        .map(|&k| {
            let columns = terrain.columns(k);
            let voxels = terrain.voxels(&columns);
            let cube = polygonize(&terrain, &columns, &voxels, &mut ws);
            let sphere = spherify(&terrain.grid, &cube);
            if args.scatter {
                objects.push(planet::scatter::scatter(&terrain, &columns, &cube, sphere.origin));
            }
            sphere
        })
        .collect();
    let elapsed = start.elapsed().as_secs_f64();
    // Everything relative to the chosen region's origin.
    let origin = meshes[keys.iter().position(|&k| k == key).unwrap_or(0)].origin;
    let mut scene = Scene::collect(&terrain, &meshes, origin, args.overlap);
    if args.scatter {
        let models = ModelSet::shared();
        for (r, s) in objects.iter().enumerate() {
            scene.add_scatter(r, s, origin, models);
        }
    }
    let bytes = match format {
        Format::Obj => scene.obj(&keys),
        Format::Ply => scene.ply(),
    };
    write(&args.out, &bytes)?;
    errln!(
        "{} region{} meshed{} in {:.1} ms: {} vertices, {} triangles{}",
        keys.len(),
        if keys.len() == 1 { "" } else { "s" },
        if args.scatter { " and scattered" } else { "" },
        elapsed * 1e3,
        scene.positions.len(),
        scene.triangles.len(),
        if args.scatter {
            format!(", {} objects", objects.iter().map(|s| s.objects.len()).sum::<usize>())
        } else {
            String::new()
        }
    );
    outln!("{}", args.out.display());
    if let Some(png) = &args.png {
        preview(&terrain, key, &scene, origin, png)?;
        outln!("{}", png.display());
    }
    Ok(())
}

enum Format {
    Obj,
    Ply,
}

/// The region's column and the eight around it, every layer of the shell.
fn neighbourhood(terrain: &Terrain, key: RegionKey) -> Vec<RegionKey> {
    let g = &terrain.grid;
    let mut columns = vec![RegionKey { z: 0, ..key }];
    for (dx, dy, _) in planet::geometry::NEIGHBOUR_OFFSETS.iter().filter(|o| o.2 == 0) {
        columns.extend(g.neighbour(RegionKey { z: 0, ..key }, *dx, *dy, 0));
    }
    let mut out: Vec<RegionKey> =
        columns.iter().flat_map(|&c| (0..g.regions_up(key.lod)).map(move |z| RegionKey { z, ..c })).collect();
    out.sort();
    out.dedup();
    out
}

/// Every triangle of the export, positions relative to one origin.
#[derive(Default)]
pub struct Scene {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    colors: Vec<[f32; 3]>,
    /// (region index, part name, corners).
    triangles: Vec<(usize, &'static str, [u32; 3])>,
}

impl Scene {
    /// The meshes' triangles, positions relative to `origin`.
    pub fn collect(terrain: &Terrain, meshes: &[SphereMesh], origin: DVec3, overlap: bool) -> Self {
        let mut s = Self { positions: Vec::new(), normals: Vec::new(), colors: Vec::new(), triangles: Vec::new() };
        for (r, mesh) in meshes.iter().enumerate() {
            let shift = (mesh.origin - origin).as_vec3();
            for (name, part) in [("terrain", &mesh.terrain), ("blocks", &mesh.blocks), ("water", &mesh.water)] {
                s.add(terrain, r, name, part, shift, overlap);
            }
        }
        s
    }

    fn add(
        &mut self,
        terrain: &Terrain,
        region: usize,
        name: &'static str,
        part: &MeshPart,
        shift: Vec3,
        overlap: bool,
    ) {
        let first = self.positions.len() as u32;
        for v in &part.vertices {
            self.positions.push(Vec3::from_array(v.position) + shift);
            self.normals.push(octahedral_decode(v.smooth_normal));
            self.colors.push(pick::material_color(terrain, v.materials, u16::from(v.blend) * 257));
        }
        let mut lists = vec![part.indices.to_u32()];
        if overlap {
            lists.push(part.overlap.to_u32());
        }
        for list in lists {
            for t in list.chunks_exact(3) {
                self.triangles.push((region, name, [first + t[0], first + t[1], first + t[2]]));
            }
        }
    }

    /// Adds the objects of `scatter` (region `region` of the export) as their
    /// models, a group per kind, coloured as the objects shader colours them.
    pub fn add_scatter(&mut self, region: usize, scatter: &Scatter, origin: DVec3, models: &ModelSet) {
        let shift = (scatter.origin - origin).as_vec3();
        let by_kind = KINDS.iter().flat_map(|&k| scatter.objects.iter().filter(move |o| o.kind == k));
        for o in by_kind {
            let axes = o.axes(scatter.origin);
            let [x, up, z] = axes;
            let color = o.color.map(|c| f32::from(c) / 255.0);
            let range = models.full(type_of(o));
            let first = self.positions.len() as u32;
            for &i in models.corners(range) {
                let v = &models.vertices[i as usize];
                let [nx, ny, nz] = v.normal;
                self.positions.push(o.place(&axes, v.position) + shift);
                self.normals.push(x * nx + up * ny + z * nz);
                self.colors.push(std::array::from_fn(|c| TRUNK_COLOR[c] + (color[c] - TRUNK_COLOR[c]) * v.tint));
            }
            for t in 0..range.count / 3 {
                let corners = [first + 3 * t, first + 3 * t + 1, first + 3 * t + 2];
                self.triangles.push((region, kind_name(o.kind), corners));
            }
        }
    }

    /// Wavefront OBJ, a group per region (`keys`, in the order of the meshes) and part.
    pub fn obj(&self, keys: &[RegionKey]) -> Vec<u8> {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# planet mesh export: {} regions, positions in metres from the first region's origin",
            keys.len()
        );
        for p in &self.positions {
            let _ = writeln!(out, "v {} {} {}", p.x, p.y, p.z);
        }
        for n in &self.normals {
            let _ = writeln!(out, "vn {} {} {}", n.x, n.y, n.z);
        }
        let mut group = None;
        for &(region, name, t) in &self.triangles {
            if group != Some((region, name)) {
                let _ = writeln!(out, "g {}_{}", keys[region].to_string().replace('/', "_"), name);
                group = Some((region, name));
            }
            let _ = writeln!(out, "f {0}//{0} {1}//{1} {2}//{2}", t[0] + 1, t[1] + 1, t[2] + 1);
        }
        out.into_bytes()
    }

    fn ply(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let header = format!(
            "ply\nformat binary_little_endian 1.0\ncomment planet mesh export, metres\nelement vertex {}\n\
             property float x\nproperty float y\nproperty float z\nproperty float nx\nproperty float ny\nproperty float nz\n\
             property uchar red\nproperty uchar green\nproperty uchar blue\nelement face {}\n\
             property list uchar uint vertex_indices\nend_header\n",
            self.positions.len(),
            self.triangles.len()
        );
        out.extend_from_slice(header.as_bytes());
        for ((p, n), c) in self.positions.iter().zip(&self.normals).zip(&self.colors) {
            for v in [p.x, p.y, p.z, n.x, n.y, n.z] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&pick::srgb(*c));
        }
        for (_, _, t) in &self.triangles {
            out.push(3);
            for i in t {
                out.extend_from_slice(&i.to_le_bytes());
            }
        }
        out
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    crate::save::replace_bytes(path, bytes)
}

/// A preview from above and to the side of the region, looking at its centre.
fn preview(terrain: &Terrain, key: RegionKey, scene: &Scene, origin: DVec3, path: &Path) -> Result<(), Failure> {
    let up = origin.normalize();
    // The region's centre on the surface: the mean of its terrain vertices.
    let centre = if scene.positions.is_empty() {
        DVec3::ZERO
    } else {
        scene.positions.iter().map(|p| p.as_dvec3()).sum::<DVec3>() / scene.positions.len() as f64
    };
    let size = f64::from(terrain.grid.cell_m(key.lod)) * 32.0;
    let side = up.any_orthonormal_vector();
    let eye = centre + up * size * 0.9 + side * size * 1.3;
    let triangles: Vec<Triangle> = scene
        .triangles
        .iter()
        .map(|&(_, name, t)| Triangle {
            corners: t.map(|i| scene.positions[i as usize].as_dvec3()),
            color: if name == "water" { [0.05, 0.2, 0.35] } else { scene.colors[t[0] as usize] },
        })
        .collect();
    let (w, h) = (1024, 768);
    let rgb = raster::render(&triangles, eye, centre, up, 50.0, w, h);
    pick::write_png(path, w as u32, h as u32, rgb)
}
