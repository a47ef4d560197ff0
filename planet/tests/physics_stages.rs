//! The collider and navmesh stages: what they hold, and the same bytes on
//! one thread or several, in any order.

use planet::mesh::{MeshWorkspace, SphereMesh, polygonize, spherify};
use planet::physics::parry3d::math::Vector;
use planet::physics::parry3d::query::{Ray, RayCast};
use planet::physics::{NO_NEIGHBOUR, NavSettings, collider, navmesh};
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
    let mut walkable = 0;
    for key in keys(&t) {
        let m = mesh(&t, key);
        let c = collider(&m);
        let n = navmesh(&m, &c, &settings);
        assert_eq!(n.key, key);
        if m.terrain.indices.is_empty() {
            continue;
        }
        let trimesh = c.mesh.as_ref().expect("a region with a surface has a collider");
        // A ray straight down over the region's centre meets its surface.
        let up = m.origin.normalize().as_vec3();
        let top = up * 300.0;
        let ray = Ray::new(Vector::new(top.x, top.y, top.z), Vector::new(-up.x, -up.y, -up.z));
        assert!(trimesh.cast_local_ray(&ray, 600.0, false).is_some(), "{key}: the ray missed");
        walkable += n.polygons.len();
        for (p, polygon) in n.polygons.iter().enumerate() {
            let [a, b, cc] = polygon.vertices.map(|i| n.vertex(i));
            let centre = (a + b + cc) / 3.0;
            assert!(centre.length() > f64::from(sea), "{key}: polygon {p} is under the sea");
            let normal = (b - a).cross(cc - a).normalize();
            assert!(normal.dot(centre.normalize()) >= min_cos - 1e-3, "{key}: polygon {p} is too steep");
            for (e, &nb) in polygon.neighbours.iter().enumerate() {
                if nb != NO_NEIGHBOUR {
                    // Neighbours share the edge, wound the other way.
                    let (i, j) = (polygon.vertices[e], polygon.vertices[(e + 1) % 3]);
                    let other = &n.polygons[nb as usize];
                    let k = other.neighbours.iter().position(|&x| x as usize == p).expect("links go both ways");
                    assert_eq!((other.vertices[k], other.vertices[(k + 1) % 3]), (j, i));
                }
            }
        }
    }
    assert!(walkable > 1000, "only {walkable} walkable polygons");
}
