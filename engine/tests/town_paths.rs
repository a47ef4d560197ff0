//! Every town of the default planets can be walked from landmark to
//! landmark: over the LOD-1 regions along its road (the walker's LOD, built
//! by the engine's builder, so the navmesh goes around the buildings), the
//! navigation graph finds a path from the front of one landmark to the front
//! of the other, no longer than the route itself and a little more.

use std::collections::BTreeSet;
use std::sync::Arc;

use engine::nav::NavGraph;
use engine::{ColumnKey, PlanetBuilder, RegionBuilder};
use glam::{DVec3, Vec2, Vec3};
use jobs::CancelToken;
use planet::PlannedSystem;
use planet::terrain::Terrain;

/// The walker's LOD.
const LOD: u8 = 1;

/// A path may be this much longer than the route, as a share (its wave is
/// pulled tight by the funnel, so a path is usually shorter).
const DETOUR: f64 = 0.15;

/// The ground at town-local point `p` of settlement `i`, planet-local.
fn ground(t: &Terrain, i: usize, p: Vec2) -> (Vec3, DVec3) {
    let d = t.settlements.frame(i).direction(p);
    (d, d.as_dvec3() * f64::from(t.recipe.radius_m + t.surface_height_at(d)))
}

/// Whether a path leads from the front of one landmark of town `i` to the
/// other's, and a line saying why not (or how long it is).
fn walk(t: &Arc<Terrain>, builder: &PlanetBuilder, i: usize) -> Result<(f64, f64), String> {
    let town = t.settlements.town(i).expect("a laid-out town");
    let route: Vec<Vec2> = town.route.iter().map(|&p| Vec2::from(p)).collect();
    let length: f64 = route.windows(2).map(|w| f64::from(w[0].distance(w[1]))).sum();
    // The columns under the road and a street's width either side of it.
    let mut columns = BTreeSet::new();
    for w in route.windows(2) {
        let across = (w[1] - w[0]).normalize_or_zero().perp();
        for side in [-8.0f32, 0.0, 8.0] {
            let (d, _) = ground(t, i, w[0] + across * side);
            columns.insert(ColumnKey::of(t.surface_key(d, LOD)));
        }
    }
    let regions = columns
        .iter()
        .flat_map(|c| c.regions(&t.grid))
        .filter_map(|k| builder.build(k, &CancelToken::new()).map(Arc::new));
    let graph = NavGraph::new(regions);
    let (_, from) = ground(t, i, route[0]);
    let (_, to) = ground(t, i, route[route.len() - 1]);
    let cell = t.settlements.data.sites[i].cell;
    let path = graph.find_path(from, to).ok_or_else(|| {
        let ends = [from, to].map(|p| if graph.locate(p, 3.0).is_some() { "on" } else { "off" });
        format!("town {cell}: no path along its {length:.0} m route (its ends {} and {} the navmesh)", ends[0], ends[1])
    })?;
    if path.length > length * (1.0 + DETOUR) + 10.0 {
        return Err(format!("town {cell}: a {:.0} m path for a {length:.0} m route", path.length));
    }
    Ok((path.length, length))
}

#[test]
fn every_town_is_walked_from_landmark_to_landmark() {
    let plans = PlannedSystem::default_system().planets;
    let results: Vec<(usize, Vec<String>, f64, f64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = plans
            .iter()
            .map(|plan| {
                scope.spawn(move || {
                    let t = Arc::new(Terrain::new(plan));
                    let builder = PlanetBuilder::new(Arc::clone(&t));
                    let (mut problems, mut walked, mut routes) = (Vec::new(), 0.0, 0.0);
                    for i in 0..t.settlements.data.sites.len() {
                        match walk(&t, &builder, i) {
                            Ok((path, route)) => {
                                walked += path;
                                routes += route;
                            }
                            Err(e) => problems.push(format!("seed {}: {e}", t.seed)),
                        }
                    }
                    (t.settlements.data.sites.len(), problems, walked, routes)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let towns: usize = results.iter().map(|r| r.0).sum();
    let problems: Vec<&String> = results.iter().flat_map(|r| &r.1).collect();
    let (walked, routes): (f64, f64) = results.iter().fold((0.0, 0.0), |a, r| (a.0 + r.2, a.1 + r.3));
    eprintln!(
        "{towns} towns, {} walked landmark to landmark: {walked:.0} m of paths for {routes:.0} m of routes",
        towns - problems.len()
    );
    assert!(towns >= 200, "only {towns} towns");
    assert!(
        problems.is_empty(),
        "{} of {towns} towns not walked:\n{}",
        problems.len(),
        problems.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}
