//! Polygonizers and spherify: sharp features survive dual contouring (and are
//! rounded off by surface nets), seams between same-LOD neighbours are
//! bit-identical across face edges too, rays towards the centre across LOD
//! boundaries always hit a triangle, region meshes are manifold, and cave
//! walls are dark while open ground is lit.

use std::collections::BTreeMap;

use glam::{DVec3, Vec3};
use planet::hash::HashStream;
use planet::mesh::{
    CubePart, CubeVertex, DualContourWorkspace, MeshWorkspace, SurfaceNetsWorkspace, dual_contour, polygonize,
    spherify, surface_nets_mesh,
};
use planet::terrain::{ColumnField, Terrain, Voxel, VoxelGrid, lat_lon_direction};
use planet::{PlannedSystem, RegionKey};

fn terrain(planet: usize) -> Terrain {
    Terrain::new(&PlannedSystem::default_system().planets[planet])
}

/// A synthetic grid in an interior region: density from `sdf` (cells, positive inside).
fn synthetic(t: &Terrain, sdf: impl Fn(Vec3) -> f32) -> (ColumnField, VoxelGrid) {
    let key = RegionKey { face: 4, lod: 0, x: 100, y: 100, z: 1 };
    let columns = t.columns(key);
    let mut voxels = Vec::with_capacity(36 * 36 * 36);
    for b in 0..36 {
        for a in 0..36 {
            for c in 0..36 {
                let d = sdf(Vec3::new(a as f32, b as f32, c as f32));
                voxels.push(Voxel {
                    density: (d * 256.0).round().clamp(-32767.0, 32767.0) as i16,
                    materials: [1, 1],
                    blend: 0,
                });
            }
        }
    }
    let cover = vec![0; voxels.len()];
    (columns, VoxelGrid { key, voxels, cover })
}

/// Window coordinates of a vertex of an interior region's mesh.
fn window_position(key: RegionKey, v: &CubeVertex) -> Vec3 {
    let o = Vec3::new((key.x * 32) as f32 - 2.0, (key.y * 32) as f32 - 2.0, (key.z * 32) as f32 - 2.0);
    Vec3::new(v.cell[0] as f32, v.cell[1] as f32, v.cell[2] as f32) + v.local - o
}

fn nearest(key: RegionKey, part: &CubePart, p: Vec3) -> f32 {
    part.vertices.iter().map(|v| window_position(key, v).distance(p)).fold(f32::MAX, f32::min)
}

fn box_sdf(lo: Vec3, hi: Vec3) -> impl Fn(Vec3) -> f32 {
    move |p: Vec3| {
        let c = (lo + hi) * 0.5;
        let h = (hi - lo) * 0.5;
        let q = (p - c).abs() - h;
        let outside = q.max(Vec3::ZERO).length();
        let inside = q.max_element().min(0.0);
        -(outside + inside)
    }
}

#[test]
fn dual_contouring_keeps_box_corners_and_edges_sharp() {
    let t = terrain(1);
    for (lo, hi) in [
        (Vec3::new(6.3, 5.7, 7.4), Vec3::new(24.6, 25.2, 22.8)),
        (Vec3::new(4.52, 8.08, 3.93), Vec3::new(13.37, 29.61, 27.15)),
        (Vec3::new(10.85, 3.24, 9.5), Vec3::new(27.11, 14.76, 17.02)),
    ] {
        check_box(&t, lo, hi);
    }
}

fn check_box(t: &Terrain, lo: Vec3, hi: Vec3) {
    let (columns, voxels) = synthetic(t, box_sdf(lo, hi));
    let key = voxels.key;
    let mut dc = CubePart::default();
    dual_contour(t, &columns, &voxels, &mut DualContourWorkspace::default(), &mut dc);
    let mut sn = CubePart::default();
    surface_nets_mesh(t, &columns, &voxels, &mut SurfaceNetsWorkspace::default(), &mut sn);
    let mut worst_corner = 0.0f32;
    let mut rounded = 0;
    for i in 0..8 {
        let corner = Vec3::new(
            if i & 1 == 0 { lo.x } else { hi.x },
            if i & 2 == 0 { lo.y } else { hi.y },
            if i & 4 == 0 { lo.z } else { hi.z },
        );
        worst_corner = worst_corner.max(nearest(key, &dc, corner));
        rounded += usize::from(nearest(key, &sn, corner) > 0.1);
    }
    assert!(worst_corner <= 0.05, "a corner of box {lo}..{hi} is {worst_corner} voxels from its dual-contoured vertex");
    assert_eq!(rounded, 8, "surface nets should round every corner off");
    // Edge vertices: in the cells along each of the 12 edges, away from the corners.
    let mut worst_edge = 0.0f32;
    for v in &dc.vertices {
        let p = window_position(key, v);
        let near = |x: f32, a: f32, b: f32| (x - a).abs() < 0.5 || (x - b).abs() < 0.5;
        let inner = |x: f32, a: f32, b: f32| x > a + 1.5 && x < b - 1.5;
        for axis in 0..3 {
            let (o1, o2) = ((axis + 1) % 3, (axis + 2) % 3);
            if inner(p[axis], lo[axis], hi[axis]) && near(p[o1], lo[o1], hi[o1]) && near(p[o2], lo[o2], hi[o2]) {
                let e1 = if (p[o1] - lo[o1]).abs() < 0.5 { lo[o1] } else { hi[o1] };
                let e2 = if (p[o2] - lo[o2]).abs() < 0.5 { lo[o2] } else { hi[o2] };
                let d = glam::Vec2::new(p[o1] - e1, p[o2] - e2).length();
                worst_edge = worst_edge.max(d);
            }
        }
    }
    assert!(worst_edge <= 0.05, "an edge vertex of box {lo}..{hi} is {worst_edge} voxels from the box edge");
}

/// Boxes whose far corners lie in the region's last cells, next to its
/// boundaries, where the stencils reach one cell less across the boundary
/// (the neighbour region computes those cells from a window that ends
/// sooner): their corners stay sharp there too. (Taking those cells'
/// crossings from the secant rounds them off by up to 0.6 cells.)
#[test]
fn dual_contouring_keeps_box_corners_sharp_next_to_region_boundaries() {
    let t = terrain(1);
    for (lo, hi) in [
        (Vec3::new(20.3, 18.7, 19.2), Vec3::new(33.4, 33.3, 33.6)),
        (Vec3::new(20.3, 18.7, 19.2), Vec3::new(33.7, 33.1, 33.2)),
        (Vec3::new(20.3, 18.7, 19.2), Vec3::new(33.5, 24.1, 25.2)),
    ] {
        check_box(&t, lo, hi);
    }
}

#[test]
fn dual_contouring_keeps_a_wedge_ridge_sharp() {
    let t = terrain(1);
    // A roof: solid below z = 18.6 - 0.75 |x - 17.4|, for y in 4.5..28.5.
    let (apex_x, apex_z) = (17.4, 18.6);
    let roof = move |p: Vec3| (apex_z - 0.75 * (p.x - apex_x).abs() - p.z).min(p.y - 4.5).min(28.5 - p.y);
    let (columns, voxels) = synthetic(&t, roof);
    let key = voxels.key;
    let mut dc = CubePart::default();
    dual_contour(&t, &columns, &voxels, &mut DualContourWorkspace::default(), &mut dc);
    let mut sn = CubePart::default();
    surface_nets_mesh(&t, &columns, &voxels, &mut SurfaceNetsWorkspace::default(), &mut sn);
    let ridge_distance = |part: &CubePart, y: f32| {
        part.vertices
            .iter()
            .map(|v| window_position(key, v))
            .filter(|p| (p.y - y).abs() < 0.5)
            .map(|p| glam::Vec2::new(p.x - apex_x, p.z - apex_z).length())
            .fold(f32::MAX, f32::min)
    };
    for y in [8.5f32, 12.5, 16.5, 20.5, 24.5] {
        let d = ridge_distance(&dc, y);
        assert!(d <= 0.05, "ridge vertex at y = {y} is {d} voxels off");
        assert!(ridge_distance(&sn, y) > 0.1, "surface nets keeps the ridge at y = {y}?");
    }
}

/// A region's terrain mesh in cube space.
fn cube_terrain(t: &Terrain, key: RegionKey) -> CubePart {
    let columns = t.columns(key);
    let voxels = t.voxels(&columns);
    let mut part = CubePart::default();
    dual_contour(t, &columns, &voxels, &mut DualContourWorkspace::default(), &mut part);
    part
}

/// A vertex's bits: position in its cell, height, normals, materials, sky.
fn bits(v: &CubeVertex) -> [u32; 13] {
    [
        v.local.x.to_bits(),
        v.local.y.to_bits(),
        v.local.z.to_bits(),
        v.base_m.to_bits(),
        v.base_slope[0].to_bits(),
        v.base_slope[1].to_bits(),
        v.smooth_normal.x.to_bits(),
        v.smooth_normal.y.to_bits(),
        v.face_normal.z.to_bits(),
        u32::from(v.materials[0]),
        u32::from(v.materials[1]),
        u32::from(v.blend),
        u32::from(v.sky),
    ]
}

/// Vertices by cell: (those the region's owned triangles use, all of them).
type ByCell = BTreeMap<(u8, [i32; 3]), (Vec<[u32; 13]>, Vec<[u32; 13]>)>;

fn by_cell(part: &CubePart) -> ByCell {
    let mut out = ByCell::new();
    let mut used = vec![false; part.vertices.len()];
    for &i in &part.triangles {
        used[i as usize] = true;
    }
    for (v, &u) in part.vertices.iter().zip(&used) {
        let entry = out.entry((v.face, v.cell)).or_default();
        if u {
            entry.0.push(bits(v));
        }
        entry.1.push(bits(v));
    }
    out
}

/// Checks that in every cell both regions' owned meshes use, each region's
/// vertices are bit-identical in the other; returns how many were compared.
fn shared_vertices(t: &Terrain, a: RegionKey, b: RegionKey) -> usize {
    let (va, vb) = (by_cell(&cube_terrain(t, a)), by_cell(&cube_terrain(t, b)));
    let mut shared = 0;
    for (cell, (used_a, all_a)) in &va {
        let Some((used_b, all_b)) = vb.get(cell) else { continue };
        // The shared boundary: cells both regions' owned meshes use.
        if used_a.is_empty() || used_b.is_empty() {
            continue;
        }
        for v in used_a {
            assert!(all_b.contains(v), "a vertex of cell {cell:?} differs between {a} and {b}");
        }
        for v in used_b {
            assert!(all_a.contains(v), "a vertex of cell {cell:?} differs between {b} and {a}");
        }
        shared += used_a.len() + used_b.len();
    }
    shared
}

#[test]
fn same_lod_seams_are_bit_identical_across_face_edges_too() {
    let t = terrain(1);
    let g = &t.grid;
    // On one face, sideways and up.
    let key = t.surface_key(lat_lon_direction(43.5, -179.5), 0);
    let mut total = 0;
    for (dx, dy, dz) in [(1, 0, 0), (0, 1, 0), (-1, 0, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)] {
        if let Some(n) = g.neighbour(key, dx, dy, dz) {
            total += shared_vertices(&t, key, n);
        }
    }
    assert!(total > 50, "only {total} shared vertices on one face");
    // Across face edges: every face, both LOD 1 and 3, at the surface.
    for lod in [1u8, 3] {
        let n = g.regions_across(lod);
        let mut across = 0;
        for face in 0..6u8 {
            for (x, y, dx, dy) in [(n - 1, n / 2, 1, 0), (n / 3, 0, 0, -1)] {
                for z in 0..g.regions_up(lod) {
                    let key = RegionKey { face, lod, x, y, z };
                    let other = g.neighbour(key, dx, dy, 0).unwrap();
                    across += shared_vertices(&t, key, other);
                }
            }
        }
        assert!(across > 100, "only {across} shared vertices across face edges at LOD {lod}");
    }
}

/// A LOD-6 mountain region whose ridges are thinner than its cells: a
/// crease its samples alias, in a cell next to the region's boundary, that
/// passed every look at the samples and lay 0.6 cells from both its
/// samples' zero set and the generator's. Since generator 18 the
/// polygonizer asks the generator's density there and pulls the vertex in
/// (`mesh::field_look`); the regions sharing the cell must pull it alike.
#[test]
fn vertices_the_generator_pulls_in_are_the_same_in_both_regions() {
    let t = terrain(1);
    let key = RegionKey { face: 2, lod: 6, x: 3, y: 0, z: 0 };
    let mut total = 0;
    for (dx, dy, dz) in [(1, 0, 0), (0, 1, 0), (-1, 0, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)] {
        if let Some(n) = t.grid.neighbour(key, dx, dy, dz) {
            total += shared_vertices(&t, key, n);
        }
    }
    assert!(total > 50, "only {total} shared vertices");
}

#[test]
fn region_meshes_are_manifold() {
    // Golden-region keys: surface, cave, mountains, coast, face edge and corner.
    let rocky = terrain(1);
    let n = rocky.grid.regions_across(0);
    let cases = [
        (1usize, rocky.surface_key(lat_lon_direction(43.5, -179.5), 0)),
        (1, RegionKey { face: 4, lod: 0, x: 103, y: 101, z: 0 }),
        (1, RegionKey { face: 2, lod: 0, x: n - 1, y: n / 2, z: 1 }),
        (1, RegionKey { face: 5, lod: 0, x: 0, y: n - 1, z: 1 }),
        (1, rocky.surface_key(lat_lon_direction(43.5, -179.5), 3)),
        (1, rocky.surface_key(lat_lon_direction(2.0, -15.0), 6)),
        (3, terrain(3).surface_key(lat_lon_direction(10.0, 10.0), 3)),
        (4, terrain(4).surface_key(lat_lon_direction(-20.0, 100.0), 0)),
    ];
    for (planet, key) in cases {
        let t = terrain(planet);
        let part = cube_terrain(&t, key);
        assert!(!part.triangles.is_empty() || key.z == 0, "{key}: no triangles");
        // Directed edges of the owned triangles.
        let mut edges: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for tri in part.triangles.chunks_exact(3) {
            assert!(tri[0] != tri[1] && tri[1] != tri[2] && tri[0] != tri[2], "{key}: degenerate triangle");
            for (a, b) in [(tri[0], tri[1]), (tri[1], tri[2]), (tri[2], tri[0])] {
                *edges.entry((a, b)).or_default() += 1;
            }
        }
        // Interior vertices: on the region's face, in cells strictly inside its own range.
        let (x0, y0, l0) = (key.x as i32 * 32, key.y as i32 * 32, key.z as i32 * 32);
        let interior = |i: u32| {
            let v = &part.vertices[i as usize];
            v.face == key.face
                && (x0 + 1..x0 + 31).contains(&v.cell[0])
                && (y0 + 1..y0 + 31).contains(&v.cell[1])
                && (l0 + 1..l0 + 31).contains(&v.cell[2])
        };
        let mut checked = 0;
        for (&(a, b), &count) in &edges {
            assert_eq!(count, 1, "{key}: edge {a}->{b} used {count} times in one direction");
            if interior(a) && interior(b) {
                // Shared by exactly two triangles, wound opposite ways.
                assert_eq!(edges.get(&(b, a)), Some(&1), "{key}: interior edge {a}-{b} is not shared by two triangles");
                checked += 1;
            }
        }
        assert!(checked > 0 || part.triangles.is_empty(), "{key}: no interior edges checked");
    }
}

/// Planet-local triangles (f64) of a set of regions' terrain, owned and overlap.
fn world_triangles(t: &Terrain, keys: &[RegionKey]) -> Vec<[DVec3; 3]> {
    let mut ws = MeshWorkspace::default();
    let mut out = Vec::new();
    for &key in keys {
        let columns = t.columns(key);
        let voxels = t.voxels(&columns);
        let mesh = spherify(&t.grid, &polygonize(t, &columns, &voxels, &mut ws));
        let part = &mesh.terrain;
        let pos = |i: u32| mesh.origin + Vec3::from_array(part.vertices[i as usize].position).as_dvec3();
        for indices in [&part.indices, &part.overlap] {
            let all = indices.to_u32();
            for tri in all.chunks_exact(3) {
                out.push([pos(tri[0]), pos(tri[1]), pos(tri[2])]);
            }
        }
    }
    out
}

/// Möller–Trumbore: whether the ray from `o` along `d` hits the triangle (either side).
fn hits(o: DVec3, d: DVec3, tri: &[DVec3; 3]) -> bool {
    let (e1, e2) = (tri[1] - tri[0], tri[2] - tri[0]);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-12 {
        return false;
    }
    let inv = 1.0 / det;
    let s = o - tri[0];
    let u = s.dot(p) * inv;
    if !(-1e-9..=1.0 + 1e-9).contains(&u) {
        return false;
    }
    let q = s.cross(e1);
    let v = d.dot(q) * inv;
    v >= -1e-9 && u + v <= 1.0 + 1e-9 && e2.dot(q) * inv > 0.0
}

/// Casts `rays` rays at the planet centre across the boundary between coarse
/// region `coarse` (LOD L+1) and the LOD-L children of its neighbour at
/// (dx, dy); returns how many missed every triangle.
fn misses_across_lod_boundary(t: &Terrain, coarse: RegionKey, (dx, dy): (i32, i32), rays: usize) -> usize {
    let g = &t.grid;
    let lod = coarse.lod;
    let neighbour = g.neighbour(coarse, dx, dy, 0).unwrap();
    let mut keys: Vec<RegionKey> = (0..g.regions_up(lod)).map(|z| RegionKey { z, ..coarse }).collect();
    for z in 0..g.regions_up(lod) {
        keys.extend(g.children(RegionKey { z, ..neighbour }));
    }
    let triangles = world_triangles(t, &keys);
    // Each triangle's bounding cone of directions, for a cheap first test (with
    // slack for the ray directions' f32 precision).
    let cones: Vec<(DVec3, f64)> = triangles
        .iter()
        .map(|tri| {
            let c = (tri[0] + tri[1] + tri[2]).normalize();
            let cos = tri.iter().map(|p| p.normalize().dot(c)).fold(1.0, f64::min);
            (c, cos - 1e-6)
        })
        .collect();
    // Points along the shared boundary (in the coarse region's fine grid), up to 2 fine cells either side.
    let fine = lod - 1;
    let n = g.cells_across(fine) as f32;
    let span = 64.0;
    let (bx, by) = (coarse.x as f32 * span, coarse.y as f32 * span);
    let mut missed = 0;
    for i in 0..rays {
        let along = (i as f32 + 0.5) / rays as f32 * span;
        let across = ((i * 7919) % 1000) as f32 / 1000.0 * 4.0 - 2.0;
        let (gx, gy) = match (dx, dy) {
            (1, 0) => (bx + span + across, by + along),
            (-1, 0) => (bx + across, by + along),
            (0, 1) => (bx + along, by + span + across),
            _ => (bx + along, by + across),
        };
        let dir = planet::geometry::direction(coarse.face(), gx / n * 2.0 - 1.0, gy / n * 2.0 - 1.0).as_dvec3();
        let origin = dir * (f64::from(g.radius_m) + 5000.0);
        let hit = triangles.iter().zip(&cones).any(|(tri, (c, cos))| dir.dot(*c) >= *cos && hits(origin, -dir, tri));
        missed += usize::from(!hit);
    }
    missed
}

#[test]
fn rays_across_lod_boundaries_always_hit() {
    let t = terrain(1);
    let g = &t.grid;
    let mut total = 0;
    let mut missed = Vec::new();
    // LOD 1 against LOD 0 and LOD 3 against LOD 2, inside a face and across face edges.
    for (coarse_lod, lat, lon) in [(1u8, 43.5f32, -179.5f32), (3, 10.0, 30.0)] {
        let inside = RegionKey { z: 0, ..t.surface_key(lat_lon_direction(lat, lon), coarse_lod) };
        let n = g.regions_across(coarse_lod);
        let edge = RegionKey { face: 2, lod: coarse_lod, x: n - 1, y: n / 2, z: 0 };
        let edge_y = RegionKey { face: 4, lod: coarse_lod, x: n / 3, y: 0, z: 0 };
        for (key, step) in [(inside, (1, 0)), (inside, (0, -1)), (edge, (1, 0)), (edge_y, (0, -1))] {
            let m = misses_across_lod_boundary(&t, key, step, 1300);
            total += 1300;
            if m > 0 {
                missed.push(format!("{key} towards {step:?}: {m} of 1300 rays missed"));
            }
        }
    }
    assert!(total >= 10_000);
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// Solid layers straight above window sample column (a, b) from layer
/// `from`, counted until the first air (or the window's top).
fn rock_above(voxels: &VoxelGrid, a: usize, b: usize, from: usize) -> usize {
    (from..VoxelGrid::SIDE).take_while(|&c| voxels.at(a, b, c).is_solid()).count()
}

#[test]
fn cave_walls_are_dark_and_open_ground_lit() {
    // Random LOD-0 regions on every planet: the surface's and the one under
    // it, where the worm caves are. A vertex under 10 m of unbroken rock is
    // in a cave; one with air straight up through the window's top, 16 m or
    // more, is open ground (or a cave mouth's pit, which is dark by design).
    let (mut enclosed, mut dark) = (0usize, 0usize);
    let (mut open, mut lit) = (0usize, 0usize);
    let mut cave_seams = 0;
    for planet in 0..5 {
        let t = terrain(planet);
        let g = &t.grid;
        let mut s = HashStream::new(0xca7e + planet as u64);
        for _ in 0..40 {
            let d = Vec3::new(s.range_f32(-1.0, 1.0), s.range_f32(-1.0, 1.0), s.range_f32(-1.0, 1.0));
            let top = t.surface_key(d.normalize_or(Vec3::Z), 0);
            for key in [Some(top), g.neighbour(top, 0, 0, -1)].into_iter().flatten() {
                let columns = t.columns(key);
                let voxels = t.voxels(&columns);
                let mut part = CubePart::default();
                dual_contour(&t, &columns, &voxels, &mut DualContourWorkspace::default(), &mut part);
                let layer_m = g.layer_m(0);
                let mut darkest = u8::MAX;
                for v in part.vertices.iter().filter(|v| v.face == key.face) {
                    let w = window_position(key, v);
                    let (a, b, c) = (w.x.round(), w.y.round(), w.z.floor() + 1.0);
                    if !(0.0..36.0).contains(&a) || !(0.0..36.0).contains(&b) || !(0.0..35.0).contains(&c) {
                        continue;
                    }
                    let (a, b, c) = (a as usize, b as usize, c as usize + 1);
                    darkest = darkest.min(v.sky);
                    if rock_above(&voxels, a, b, c) as f32 * layer_m >= 10.0 {
                        enclosed += 1;
                        dark += usize::from(v.sky <= 64);
                    } else if (c..36).all(|k| !voxels.at(a, b, k).is_solid()) && (36 - c) as f32 * layer_m >= 16.0 {
                        open += 1;
                        lit += usize::from(v.sky >= 200);
                    }
                }
                // Where a region has a cave, its sky meets its neighbours' bit for bit.
                if darkest < 128 {
                    for (dx, dy, dz) in [(1, 0, 0), (0, 1, 0), (-1, 0, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)] {
                        if let Some(n) = g.neighbour(key, dx, dy, dz) {
                            cave_seams += shared_vertices(&t, key, n);
                        }
                    }
                }
            }
        }
    }
    println!("enclosed {enclosed}, dark {dark}; open {open}, lit {lit}; {cave_seams} shared vertices of cave regions");
    assert!(enclosed >= 200 && open >= 10_000, "too few vertices to judge: {enclosed} in caves, {open} open");
    assert!(dark as f64 >= 0.95 * enclosed as f64, "only {dark} of {enclosed} vertices under 10 m of rock are dark");
    assert!(lit as f64 >= 0.99 * open as f64, "only {lit} of {open} vertices open to the sky are lit");
    assert!(cave_seams > 1000, "only {cave_seams} shared vertices compared around caves");
}
