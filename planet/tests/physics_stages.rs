//! The collider and navmesh stages: what they hold, and the same bytes on
//! one thread or several, in any order.

use glam::{DVec3, Vec3};
use planet::mesh::{MeshWorkspace, SphereMesh, polygonize, spherify};
use planet::physics::parry3d::math::{Pose, Vector};
use planet::physics::parry3d::query::{Ray, RayCast, ShapeCastOptions, cast_shapes};
use planet::physics::parry3d::shape::Ball;
use planet::physics::{MAX_CORNERS, NO_NEIGHBOUR, NavSettings, collider, navmesh};
use planet::terrain::{Terrain, lat_lon_direction};
use planet::{PlannedSystem, RegionKey, Signature};

fn terrain() -> Terrain {
    Terrain::new(&PlannedSystem::default_system().planets[1])
}

fn mesh(t: &Terrain, key: RegionKey) -> SphereMesh {
    let columns = t.columns(key);
    let voxels = t.voxels(&columns);
    spherify(&t.grid, &polygonize(t, &columns, &voxels, &mut MeshWorkspace::default()))
}

fn keys(t: &Terrain) -> Vec<RegionKey> {
    let mut keys = Vec::new();
    for (lat, lon) in [(43.5, -179.5), (2.0, -15.0), (20.0, 30.0), (-30.0, 60.0)] {
        for lod in [0, 1, 3] {
            keys.push(t.surface_key(lat_lon_direction(lat, lon), lod));
        }
    }
    keys
}

fn stages(t: &Terrain, key: RegionKey) -> (Signature, Signature) {
    let m = mesh(t, key);
    let c = collider(&m);
    let n = navmesh(&m, &c, &NavSettings::for_recipe(&t.recipe));
    (c.signature(), n.signature())
}

#[test]
fn colliders_and_navmeshes_are_the_same_on_one_thread_or_several() {
    let t = terrain();
    let keys = keys(&t);
    let one: Vec<_> = keys.iter().map(|&k| stages(&t, k)).collect();
    // Four threads, each taking every fourth key, in reverse order.
    let several: Vec<Vec<(usize, (Signature, Signature))>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|w| {
                let (t, keys) = (&t, &keys);
                s.spawn(move || (0..keys.len()).rev().filter(|i| i % 4 == w).map(|i| (i, stages(t, keys[i]))).collect())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut several: Vec<_> = several.into_iter().flatten().collect();
    several.sort_by_key(|(i, _)| *i);
    let several: Vec<_> = several.into_iter().map(|(_, s)| s).collect();
    assert_eq!(one, several);
}

#[test]
fn the_collider_holds_the_surface_and_the_navmesh_only_walkable_dry_ground() {
    let t = terrain();
    let settings = NavSettings::for_recipe(&t.recipe);
    let sea = settings.sea_radius_m.unwrap();
    let min_cos = libm::cos(f64::from(settings.max_slope_deg).to_radians());
    let (mut polygons, mut triangles) = (0, 0);
    for key in keys(&t) {
        let m = mesh(&t, key);
        let c = collider(&m);
        let n = navmesh(&m, &c, &settings);
        assert_eq!(n.key, key);
        if m.terrain.indices.is_empty() {
            continue;
        }
        assert!(!c.is_empty(), "{key}: a region with a surface has a collider");
        // A ray straight down over the region's centre meets its surface.
        let up = m.origin.normalize().as_vec3();
        assert!(c.cast_ray(up * 300.0, -up, 600.0).is_some(), "{key}: the ray missed");
        polygons += n.polygons.len();
        for (p, polygon) in n.polygons.iter().enumerate() {
            assert!((3..=MAX_CORNERS).contains(&(polygon.count as usize)), "{key}: polygon {p}: {polygon:?}");
            triangles += polygon.count as usize - 2;
            let corners: Vec<DVec3> = polygon.corners().iter().map(|&i| n.vertex(i)).collect();
            let centre = n.centre(p as u32);
            let up = centre.normalize();
            assert!(centre.length() > f64::from(sea), "{key}: polygon {p} is under the sea");
            // Its area-weighted normal: the sum of its fan triangles'.
            let normal = n.fan(p as u32).map(|[a, b, c]| (b - a).cross(c - a)).sum::<DVec3>().normalize();
            assert!(normal.dot(up) >= min_cos - 1e-3, "{key}: polygon {p} is too steep");
            // Convex seen from above (from the up at its first corner),
            // counter-clockwise.
            let k = corners.len();
            let first_up = corners[0].normalize();
            for i in 0..k {
                let (a, b, c) = (corners[i], corners[(i + 1) % k], corners[(i + 2) % k]);
                let turn = (b - a).cross(c - b).dot(first_up);
                assert!(turn > 0.0, "{key}: polygon {p} is not convex at corner {}", (i + 1) % k);
            }
            for (e, &nb) in polygon.links().iter().enumerate() {
                if nb != NO_NEIGHBOUR {
                    // Neighbours share the edge, wound the other way, and link back.
                    let (i, j) = polygon.edge(e);
                    let other = &n.polygons[nb as usize];
                    let k = (0..other.count as usize).find(|&k| other.edge(k) == (j, i));
                    let k = k.unwrap_or_else(|| panic!("{key}: polygon {p}'s neighbour {nb} lacks the edge"));
                    assert_eq!(other.links()[k] as usize, p, "{key}: links go both ways");
                }
            }
        }
    }
    // Most walkable triangles are joined into quads again.
    assert!(polygons * 10 < triangles * 6, "{polygons} polygons of {triangles} triangles");
    assert!(triangles > 1000, "only {triangles} walkable triangles");
}

/// A few numbers in 0..1 from a seed (a small LCG: the same every run).
fn numbers(seed: &mut u64) -> f32 {
    *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    (*seed >> 40) as f32 / (1u64 << 24) as f32
}

#[test]
fn the_colliders_tree_finds_what_every_triangle_asked_in_turn_finds() {
    // Rays and ball sweeps through each region, in all directions: the
    // first hit through the tree is the first hit of all the triangles.
    let t = terrain();
    let mut seed = 7;
    let (mut rays, mut hits, mut sweeps, mut touches) = (0, 0, 0, 0);
    for key in keys(&t) {
        let c = collider(&mesh(&t, key));
        let Some((lo, hi)) = c.bounds() else { continue };
        let triangles: Vec<_> = (0..c.triangle_count() as u32).map(|i| c.triangle(i)).collect();
        for _ in 0..300 {
            let mut point = || lo + (hi - lo) * Vec3::new(numbers(&mut seed), numbers(&mut seed), numbers(&mut seed));
            let (from, to) = (point(), point());
            let dir = (to - from).normalize();
            let max = from.distance(to) * 1.5;
            rays += 1;
            let ray = Ray::new(Vector::new(from.x, from.y, from.z), Vector::new(dir.x, dir.y, dir.z));
            let every = triangles
                .iter()
                .filter_map(|tri| tri.cast_local_ray(&ray, max, false))
                .fold(None, |best: Option<f32>, d| Some(best.map_or(d, |b| b.min(d))));
            let ours = c.cast_ray(from, dir, max).map(|h| h.distance);
            assert_eq!(ours, every, "{key}: ray from {from} along {dir}");
            hits += usize::from(ours.is_some());

            let motion = (to - from) * 0.2;
            let ball = Ball::new(0.4);
            let options = ShapeCastOptions { max_time_of_impact: 1.0, ..ShapeCastOptions::default() };
            let at = Pose::from_translation(Vector::new(from.x, from.y, from.z));
            let velocity = Vector::new(motion.x, motion.y, motion.z);
            let every = triangles
                .iter()
                .filter_map(|tri| {
                    cast_shapes(&at, velocity, &ball, &Pose::IDENTITY, Vector::ZERO, tri, options).ok().flatten()
                })
                .map(|h| h.time_of_impact)
                .fold(None, |best: Option<f32>, d| Some(best.map_or(d, |b| b.min(d))));
            let ours = c.cast_shape(from, motion, &ball, 0.4, options).map(|h| h.0.time_of_impact);
            assert_eq!(ours, every, "{key}: sweep from {from} by {motion}");
            sweeps += 1;
            touches += usize::from(ours.is_some());
        }
    }
    eprintln!("{hits} of {rays} rays and {touches} of {sweeps} sweeps hit");
    assert!(hits > rays / 10 && touches > sweeps / 20, "too few hits to test anything");
}
