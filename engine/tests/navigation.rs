//! Paths over the navmeshes of a patch of the home planet: one exists
//! between two points of a landmass (across a cube-face edge too), none to
//! an island across the sea; paths stay on dry, walkable ground; the same
//! path whatever order the regions were built in, on one thread or two.

use std::collections::BTreeSet;
use std::sync::Arc;

use engine::nav::{NavGraph, NavNode, NavPath};
use engine::{BuiltRegion, ColumnKey, PlanetBuilder, RegionBuilder};
use glam::DVec3;
use jobs::CancelToken;
use planet::PlannedSystem;
use planet::physics::NavSettings;
use planet::terrain::{Terrain, lat_lon_direction};

const LOD: u8 = 4;

fn terrain() -> Arc<Terrain> {
    Arc::new(Terrain::new(&PlannedSystem::default_system().planets[1]))
}

/// Every region of the LOD-4 columns over latitudes and longitudes in the box.
fn regions(t: &Arc<Terrain>, threads: usize) -> Vec<Arc<BuiltRegion>> {
    let mut columns = BTreeSet::new();
    for i in 0..=60 {
        for j in 0..=244 {
            let (lat, lon) = (-24.0 + f32::from(i as u8) * 0.5, -72.0 + f32::from(j as u8) * 0.5);
            columns.insert(ColumnKey::of(t.surface_key(lat_lon_direction(lat, lon), LOD)));
        }
    }
    let keys: Vec<_> = columns.iter().flat_map(|c| c.regions(&t.grid)).collect();
    let builder = PlanetBuilder::new(Arc::clone(t));
    std::thread::scope(|s| {
        let parts: Vec<_> = (0..threads)
            .map(|w| {
                let (keys, builder) = (&keys, &builder);
                s.spawn(move || {
                    keys.iter()
                        .skip(w)
                        .step_by(threads)
                        .map(|&k| Arc::new(builder.build(k, &CancelToken::new()).unwrap()))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        parts.into_iter().flat_map(|p| p.join().unwrap()).collect()
    })
}

/// Walkable ground at a latitude and longitude, or the nearest within half
/// a degree (a steep spot has no polygon), on dry land.
fn on_ground(t: &Terrain, graph: &NavGraph, lat: f32, lon: f32) -> DVec3 {
    let sea = t.recipe.sea.level_m;
    for ring in 0..=5i8 {
        for (i, j) in (-ring..=ring).flat_map(|i| (-ring..=ring).map(move |j| (i, j))) {
            if i.abs().max(j.abs()) != ring {
                continue;
            }
            let d = lat_lon_direction(lat + f32::from(i) * 0.1, lon + f32::from(j) * 0.1);
            let h = t.surface_height_at(d);
            let p = d.as_dvec3() * f64::from(t.grid.radius_m + h);
            if h > sea + 2.0 && graph.locate(p, 3.0).is_some() {
                return p;
            }
        }
    }
    panic!("no walkable dry ground near {lat}, {lon}");
}

/// Whether `p`, projected along its up, falls inside polygon `node` (within
/// `max_vertical` metres of it).
fn over(regions: &[Arc<BuiltRegion>], node: NavNode, p: DVec3, max_vertical: f64) -> bool {
    let region = regions.iter().find(|r| r.key == node.region).expect("the corridor's regions were built");
    let up = p.normalize();
    region.navmesh.as_ref().unwrap().fan(node.polygon).any(|[a, b, c]| {
        let n = (b - a).cross(c - a);
        let along = up.dot(n);
        let t = (a - p).dot(n) / along;
        let q = p + up * t;
        along.abs() > 1e-12
            && t.abs() <= max_vertical
            && [(a, b), (b, c), (c, a)].iter().all(|&(x, y)| (y - x).cross(q - x).dot(n) >= -1e-6)
    })
}

fn check_path(t: &Terrain, regions: &[Arc<BuiltRegion>], graph: &NavGraph, path: &NavPath) {
    let nav = NavSettings::for_recipe(&t.recipe);
    let sea = f64::from(nav.sea_radius_m.unwrap());
    let max_rise = libm::tan(f64::from(nav.max_slope_deg).to_radians());
    assert!(path.points.len() >= 2);
    for w in path.points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let steps = (a.distance(b) / 4.0).ceil().max(1.0) as u32;
        for k in 0..=steps {
            let p = a.lerp(b, f64::from(k) / f64::from(steps));
            // Dry: above the sea, over or under the ground's walkable
            // polygons. A straight leg between two corners is a chord: over
            // a few hundred metres of LOD-4 ground it passes up to some 13 m
            // through a bump (measured) or over a dip.
            assert!(p.length() > sea, "the path runs under the sea at {p:?}");
            assert!(graph.locate(p, 30.0).is_some(), "the path leaves the walkable ground at {p:?}");
            // And it stays inside its corridor, seen from above.
            assert!(
                path.corridor.iter().any(|&node| over(regions, node, p, 30.0)),
                "the path leaves its corridor at {p:?}"
            );
        }
        // No cliff: no segment climbs more steeply than a walkable slope.
        let up = a.normalize();
        let rise = (b.length() - a.length()).abs();
        let across = (b - a - up * (b - a).dot(up)).length();
        assert!(rise <= max_rise * across + 0.5, "a {rise:.1} m step over {across:.1} m");
    }
}

#[test]
fn paths_cross_land_and_face_edges_but_never_the_sea() {
    let t = terrain();
    let built = regions(&t, 2);
    let graph = NavGraph::new(built.iter().cloned());
    eprintln!("{graph:?}");
    // Two points of the southern continent, on one face; and a pair across
    // the edge of faces 0 and 4 (45° east).
    let a = on_ground(&t, &graph, -15.0, 0.0);
    let b = on_ground(&t, &graph, -20.0, 10.0);
    let path = graph.find_path(a, b).expect("a path across the continent");
    eprintln!("a-b: {:.0} m, {} corners, {} polygons", path.length, path.points.len(), path.corridor.len());
    assert!(path.length >= a.distance(b) - 1.0 && path.length < a.distance(b) * 1.6);
    check_path(&t, &built, &graph, &path);

    let c = on_ground(&t, &graph, -18.0, 40.0);
    let d = on_ground(&t, &graph, -18.0, 50.0);
    let across = graph.find_path(c, d).expect("a path across the face edge");
    let faces: BTreeSet<u8> = across.corridor.iter().map(|n| n.region.face).collect();
    assert!(faces.len() == 2, "the corridor stays on faces {faces:?}");
    check_path(&t, &built, &graph, &across);

    // The island west of the continent, across the sea.
    let island = on_ground(&t, &graph, 5.6, -67.5);
    assert!(graph.find_path(a, island).is_none(), "a path over the sea to the island");
    assert!(graph.find_path(island, a).is_none());
}

#[test]
fn paths_are_the_same_whatever_the_build_order_and_threads() {
    let t = terrain();
    let one = regions(&t, 1);
    let mut two = regions(&t, 3);
    two.reverse();
    let mut sorted = two.clone();
    sorted.sort_by_key(|r| r.key);
    let mut first = one.clone();
    first.sort_by_key(|r| r.key);
    for (x, y) in first.iter().zip(&sorted) {
        assert_eq!(x.navmesh, y.navmesh);
        assert_eq!(x.collider.as_ref().map(|c| c.signature()), y.collider.as_ref().map(|c| c.signature()));
    }
    let (g1, g2) = (NavGraph::new(one.iter().cloned()), NavGraph::new(two.iter().cloned()));
    assert_eq!((g1.len(), g1.link_count()), (g2.len(), g2.link_count()));
    let a = on_ground(&t, &g1, -15.0, 0.0);
    let b = on_ground(&t, &g1, -20.0, 10.0);
    let (p1, p2) = (g1.find_path(a, b).unwrap(), g2.find_path(a, b).unwrap());
    assert_eq!(p1, p2);
    assert_eq!(p1, g1.find_path(a, b).unwrap());
}
