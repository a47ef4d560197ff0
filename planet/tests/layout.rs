//! The planet layout (the plan): bit-identical on 1 and several threads and
//! when made again; every river's water never rising from spring to mouth
//! and every river ending in the sea, a lake or a river it joins; no river
//! over a peak and none crossing another without joining; stamps inside
//! their belt's mask and spaced as the recipe says; plots flat, dry, above
//! the sea and out of rivers; the carves and stamps pure across regions and
//! face edges; the layout stage's dump read back equal, damaged ones refused;
//! a layout indexed from its data reading as the one indexed as it was made.
//! Over the five default planets and three planets of seeded systems.

use std::collections::BTreeMap;
use std::sync::Arc;

use glam::Vec3;
use planet::geometry::GridPoint;
use planet::layout::{FREEBOARD_M, LEVEL_TOLERANCE_M, Layout, PlanGrid, PlanetLayout, RiverEnd};
use planet::terrain::{Column, Fields, Terrain};
use planet::{PlanetPlan, PlannedSystem, RegionKey, SystemRecipe};

/// The planets tested: the default five and one of each of three seeded systems.
fn planets() -> Vec<PlanetPlan> {
    let mut out = PlannedSystem::default_system().planets;
    for seed in [3u64, 11, 2024] {
        let system = PlannedSystem::build(&SystemRecipe::from_seed(seed)).unwrap();
        out.push(system.planets[seed as usize % system.planets.len()].clone());
    }
    out
}

/// Terrains of the tested planets, layouts made on four threads at once.
fn terrains() -> Vec<Terrain> {
    let plans = planets();
    std::thread::scope(|s| {
        let handles: Vec<_> =
            plans.chunks(2).map(|c| s.spawn(move || c.iter().map(Terrain::new).collect::<Vec<_>>())).collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn the_layout_is_the_same_on_any_thread_and_made_again() {
    let plan = &PlannedSystem::default_system().planets[1];
    let alone = PlanetLayout::build(plan);
    let threaded: Vec<PlanetLayout> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..3).map(|_| s.spawn(|| PlanetLayout::build(plan))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for other in &threaded {
        assert!(*other == alone, "a layout made on another thread differs");
        assert_eq!(other.signature(), alone.signature());
    }
    assert_eq!(PlanetLayout::build(plan).signature(), alone.signature());
}

/// `Layout::build` indexes the layout with the plan grid and stamp index it
/// was made on; `Layout::new` makes them again from the layout's data (a
/// plan read from a file). Both read the same at every point: at random
/// points, beside every stamp's peak and along every river.
#[test]
fn a_layout_indexed_from_its_data_reads_as_the_one_made_with_it() {
    let plans = planets();
    for plan in [&plans[1], &plans[3], &plans[6]] {
        let made = Layout::build(plan);
        let again = Layout::new(PlanetLayout::build(plan));
        let mut points: Vec<Vec3> = (0..2_000u32)
            .map(|i| {
                let h = |k: u32| (i.wrapping_mul(2_654_435_761).wrapping_add(k.wrapping_mul(40_503)) % 10_007) as f32;
                Vec3::new(h(1) / 5_003.5 - 1.0, h(2) / 5_003.5 - 1.0, h(3) / 5_003.5 - 1.0).normalize_or(Vec3::X)
            })
            .collect();
        let nudge = 0.3 / made.grid().radius_m();
        points.extend(made.data.stamps.iter().flat_map(|s| [s.centre, (s.centre + s.axis * nudge).normalize()]));
        points.extend(made.data.rivers.iter().flat_map(|r| r.points.iter().map(|p| p.direction)));
        let (mut in_stamps, mut in_rivers) = (0, 0);
        for d in points {
            let ground_m = made.stamps_at(d).height_m;
            assert_eq!(made.stamps_at(d), again.stamps_at(d), "planet {}: stamps at {d}", plan.index);
            let column = made.column_at(d, ground_m, 1.0);
            assert_eq!(column, again.column_at(d, ground_m, 1.0), "planet {}: column at {d}", plan.index);
            assert_eq!(made.lake_at(d), again.lake_at(d), "planet {}: lake at {d}", plan.index);
            in_stamps += usize::from(ground_m != 0.0);
            in_rivers += usize::from(column.river.valley > 0.0);
        }
        assert!(
            in_stamps > 0 && in_rivers > 0,
            "planet {}: {in_stamps} points in stamps, {in_rivers} by rivers",
            plan.index
        );
    }
}

#[test]
fn rivers_fall_to_the_sea_a_lake_or_a_river_they_join() {
    let mut checked = 0;
    for t in terrains() {
        let l = &t.layout.data;
        let sea = t.recipe.sea;
        for (i, r) in l.rivers.iter().enumerate() {
            assert!(r.points.len() >= 3, "planet seed {} river {i}: {} points", t.seed, r.points.len());
            for w in r.points.windows(2) {
                assert!(
                    w[1].level_m <= w[0].level_m,
                    "seed {} river {i}: water rises {} -> {}",
                    t.seed,
                    w[0].level_m,
                    w[1].level_m
                );
                assert!(w[1].flow >= w[0].flow - 1e-3, "seed {} river {i}: flow falls downstream", t.seed);
            }
            let last = r.points.last().unwrap();
            match r.end {
                RiverEnd::Sea => {
                    assert!(sea.enabled, "seed {} river {i} ends in the sea of a planet without one", t.seed);
                    assert_eq!(last.level_m, sea.level_m, "seed {} river {i}: the mouth meets the sea level", t.seed);
                }
                RiverEnd::Lake(k) => {
                    let lake = &l.lakes[k as usize];
                    assert!(last.level_m <= lake.level_m + 1e-3, "seed {} river {i} ends above lake {k}", t.seed);
                }
                RiverEnd::Joins { river, point } => {
                    assert!((river as usize) < i, "seed {} river {i} joins a later river {river}", t.seed);
                    let joined = l.rivers[river as usize].points[point as usize];
                    assert_eq!(last.direction, joined.direction, "seed {} river {i} ends off river {river}", t.seed);
                    assert!(last.level_m <= joined.level_m + 1e-3);
                }
            }
            checked += 1;
        }
        // The water stands in the channel: below the banks of the uncarved
        // ground, at the course's level (the carve's merged segments may
        // pass under it by their level tolerance).
        for r in l.rivers.iter().step_by(7) {
            let p = r.points[r.points.len() / 2];
            let s = t.surface_at(p.direction);
            assert!(
                s.water_m >= p.level_m - LEVEL_TOLERANCE_M,
                "seed {}: no water over a river's course ({} under {})",
                t.seed,
                s.water_m,
                p.level_m
            );
            assert!(
                s.surface_m < p.level_m,
                "seed {}: a river's bed at {} is over its water at {}",
                t.seed,
                s.surface_m,
                p.level_m
            );
        }
    }
    assert!(checked > 500, "only {checked} rivers over eight planets");
}

#[test]
fn no_river_runs_over_a_peak_or_crosses_another_without_joining() {
    for t in terrains() {
        let l = &t.layout.data;
        let grid = t.layout.grid();
        let radius = t.recipe.radius_m;
        // Peaks: a river passes within a fifth of a tall stamp's radius of its
        // centre only coming down from higher ground (it rose on that crown or
        // on a taller one beside it): its spring stands over the crest, less
        // the hills and detail the plan's height leaves out.
        for s in l.stamps.iter().filter(|s| s.peak_m > 30.0) {
            let crest = t.surface_height_at(s.centre);
            let slack = t.recipe.terrain.hills.height_m
                + t.recipe.terrain.detail.height_m
                + t.recipe.terrain.mountains.height_m;
            for (i, r) in l.rivers.iter().enumerate() {
                let spring = r.points[0].level_m + FREEBOARD_M;
                for p in &r.points {
                    let at = s.radius_at(p.direction, radius);
                    assert!(
                        at > 0.2 || spring + slack >= crest,
                        "seed {} river {i} climbs over a {} m peak ({at}): spring {spring} m, crest {crest} m",
                        t.seed,
                        s.peak_m
                    );
                }
            }
        }
        // Crossings: segments of different rivers, bucketed by plan cell.
        let mut by_cell: BTreeMap<u32, Vec<(usize, Vec3, Vec3)>> = BTreeMap::new();
        for (i, r) in l.rivers.iter().enumerate() {
            for w in r.points.windows(2) {
                let c = grid.cell_of((w[0].direction + w[1].direction).normalize());
                by_cell.entry(c).or_default().push((i, w[0].direction, w[1].direction));
            }
        }
        let ends: Vec<Vec3> = l.rivers.iter().map(|r| r.points.last().unwrap().direction).collect();
        for (&c, here) in &by_cell {
            let mut near: Vec<&(usize, Vec3, Vec3)> = here.iter().collect();
            for o in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)] {
                if let Some(m) = grid.neighbour(c, o) {
                    near.extend(by_cell.get(&m).into_iter().flatten());
                }
            }
            for a in here {
                for b in &near {
                    if a.0 == b.0 || !crosses(a.1, a.2, b.1, b.2) {
                        continue;
                    }
                    // Allowed only beside where one of them ends (a join, or two mouths).
                    let by_end = [a.0, b.0].iter().any(|&k| {
                        let e = ends[k];
                        grid.distance_m(e, a.1).min(grid.distance_m(e, a.2)) < grid.cell_m() * 3.0
                    });
                    assert!(by_end, "seed {}: rivers {} and {} cross away from any join", t.seed, a.0, b.0);
                }
            }
        }
    }
}

/// Whether segments ab and cd of directions cross, in the tangent plane at a.
fn crosses(a: Vec3, b: Vec3, c: Vec3, d: Vec3) -> bool {
    let e1 = a.any_orthonormal_vector();
    let e2 = a.cross(e1);
    let flat = |p: Vec3| (p.dot(e1), p.dot(e2));
    let (a, b, c, d) = (flat(a), flat(b), flat(c), flat(d));
    let side = |p: (f32, f32), q: (f32, f32), r: (f32, f32)| (q.0 - p.0) * (r.1 - p.1) - (q.1 - p.1) * (r.0 - p.0);
    let (d1, d2) = (side(a, b, c), side(a, b, d));
    let (d3, d4) = (side(c, d, a), side(c, d, b));
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

#[test]
fn stamps_lie_in_their_belts_and_keep_their_spacing() {
    for plan in planets() {
        let t = Terrain::new(&plan);
        let l = &t.layout.data;
        let belts = plan.recipe.elevation.belts;
        let fields = Fields::new(plan.seed, &plan.recipe);
        let (fine_m, ridge_m) = (t.node_cell_m(0), t.layout.grid().cell_m() * 4.0);
        assert!(!l.stamps.is_empty(), "seed {}: no stamps", plan.seed);
        for (i, s) in l.stamps.iter().enumerate() {
            let (_, tectonic) = fields.tectonic(s.centre, fine_m, ridge_m);
            assert!(tectonic > belts.threshold, "seed {} stamp {i} outside its belt ({tectonic})", plan.seed);
            assert!((belts.radius_m[0]..=belts.radius_m[1]).contains(&s.radius_m));
            assert!((belts.aspect[0]..=belts.aspect[1]).contains(&s.aspect));
            assert!(s.peak_m <= plan.recipe.elevation.ranges_m * belts.peak_share[1] + 1e-3);
            for earlier in &l.stamps[..i] {
                let d = t.layout.grid().distance_m(earlier.centre, s.centre);
                assert!(
                    d >= belts.spacing * earlier.radius_m - 1e-2,
                    "seed {} stamp {i}: {d} m from an earlier one",
                    plan.seed
                );
            }
        }
        // The stamps raise the ground: the highest stamp's peak stands over its foot.
        let top = l.stamps.iter().max_by(|a, b| a.peak_m.total_cmp(&b.peak_m)).unwrap();
        let rise = t.elevation_m(top.centre, 1.0) - t.fields.base_elevation_m(top.centre, 1.0);
        assert!(rise >= top.peak_m - 1e-2, "seed {}: the highest peak adds {rise} of {}", plan.seed, top.peak_m);
        // Beyond every footprint the stamps add nothing; within one, what its profile says at least.
        let mut stream = planet::hash::HashStream::new(plan.seed);
        let (mut outside, mut inside) = (0, 0);
        for _ in 0..4000 {
            let d = Vec3::new(stream.range_f32(-1.0, 1.0), stream.range_f32(-1.0, 1.0), stream.range_f32(-1.0, 1.0))
                .normalize();
            let rise = t.elevation_m(d, 1.0) - t.fields.base_elevation_m(d, 1.0);
            let own =
                l.stamps.iter().filter_map(|s| s.at(d, plan.recipe.radius_m)).map(|x| x.height_m).fold(0.0, f32::max);
            assert!(
                (rise - own).abs() < 1e-3,
                "seed {}: the index gives {rise} where the stamps give {own}",
                plan.seed
            );
            if own == 0.0 { outside += 1 } else { inside += 1 }
        }
        assert!(outside > 0 && inside > 0, "seed {}: {inside} samples on stamps, {outside} off", plan.seed);
    }
}

#[test]
fn plots_are_flat_dry_above_the_sea_and_out_of_rivers() {
    let mut total = 0;
    for t in terrains() {
        let l = &t.layout.data;
        let p = t.recipe.plots;
        let sea = if t.recipe.sea.enabled { t.recipe.sea.level_m } else { f32::MIN };
        for (i, plot) in l.plots.iter().enumerate() {
            assert!(plot.slope_deg <= p.max_slope_deg, "seed {} plot {i} slope {}", t.seed, plot.slope_deg);
            assert!(plot.height_m >= sea + p.min_height_m, "seed {} plot {i} at {} m", t.seed, plot.height_m);
            // On the real surface: nine points over the disc, none wet, none in a valley,
            // the spread no more than the slope allows plus the small-scale detail.
            let e1 = plot.centre.any_orthonormal_vector();
            let e2 = plot.centre.cross(e1);
            let mut heights = Vec::new();
            for (a, b) in [
                (0.0, 0.0),
                (1.0, 0.0),
                (-1.0, 0.0),
                (0.0, 1.0),
                (0.0, -1.0),
                (0.7, 0.7),
                (-0.7, 0.7),
                (0.7, -0.7),
                (-0.7, -0.7),
            ] {
                let d = (plot.centre + (e1 * a + e2 * b) * (plot.radius_m / t.recipe.radius_m)).normalize();
                let s = t.surface_at(d);
                assert!(s.surface_m > sea, "seed {} plot {i}: under the sea", t.seed);
                assert!(s.water_m < s.surface_m, "seed {} plot {i}: under water", t.seed);
                assert_eq!(s.river, 0.0, "seed {} plot {i}: in a river's valley", t.seed);
                heights.push(s.surface_m);
            }
            let spread =
                heights.iter().copied().fold(f32::MIN, f32::max) - heights.iter().copied().fold(f32::MAX, f32::min);
            let allowed = 2.0 * plot.radius_m * libm::tanf((p.max_slope_deg + 4.0).to_radians())
                + 2.0 * (t.recipe.terrain.detail.height_m + t.recipe.terrain.mountains.height_m);
            assert!(spread <= allowed, "seed {} plot {i}: {spread} m of relief (at most {allowed})", t.seed);
        }
        total += l.plots.len();
    }
    assert!(total > 300, "only {total} plots over eight planets");
}

/// Every canonical column of a region's window.
fn columns(t: &Terrain, key: RegionKey) -> BTreeMap<GridPoint, Column> {
    let field = t.columns(key);
    let mut out = BTreeMap::new();
    for b in 0..36 {
        for a in 0..36 {
            let p = GridPoint {
                face: key.face(),
                x: key.x as i32 * 32 - 2 + a as i32,
                y: key.y as i32 * 32 - 2 + b as i32,
            };
            if let Some(c) = t.grid.canonical(key.lod, p) {
                out.insert(c, *field.at(a, b));
            }
        }
    }
    out
}

#[test]
fn carves_and_stamps_are_pure_across_regions_and_face_edges() {
    let t = Terrain::new(&PlannedSystem::default_system().planets[1]);
    let l = &t.layout.data;
    // River points, those nearest a face edge first, and stamps' flanks.
    let mut spots: Vec<(f32, Vec3)> = l
        .rivers
        .iter()
        .flat_map(|r| r.points.iter().step_by(40))
        .map(|p| {
            let (_, x, y) = PlanGrid::coords(t.layout.grid().cell_of(p.direction));
            let edge = x.min(y).min(255 - x).min(255 - y);
            (edge as f32, p.direction)
        })
        .collect();
    spots.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut chosen: Vec<Vec3> = spots.iter().take(24).map(|s| s.1).collect();
    chosen.extend(
        l.stamps.iter().step_by(37).map(|s| (s.centre + s.axis * (s.radius_m * 0.5 / t.recipe.radius_m)).normalize()),
    );
    let mut carved = 0;
    let mut compared = 0;
    for (n, d) in chosen.iter().enumerate() {
        let lod = [0u8, 1, 2][n % 3];
        let key = t.surface_key(*d, lod);
        let here = columns(&t, key);
        carved += here.values().filter(|c| c.river > 0.0 || c.mountain > 0.0).count();
        for other in t.grid.neighbours(key).into_iter().filter(|k| k.z == key.z) {
            let there = columns(&t, other);
            for (p, c) in &here {
                if let Some(o) = there.get(p) {
                    assert_eq!(c, o, "column {p:?} differs between {key} and {other}");
                    compared += 1;
                }
            }
        }
    }
    assert!(carved > 2000, "only {carved} carved or stamped columns looked at");
    assert!(compared > 20_000, "only {compared} shared columns");
}

#[test]
fn the_layout_stage_reads_back_equal_and_refuses_damage() {
    use planet::pipeline::{Pipeline, RegionInput};
    let recipe = SystemRecipe::default_system();
    let input = RegionInput::new(&recipe, 1, "0/6/2/2/0".parse().unwrap());
    let pipeline = Pipeline::standard();
    let mut chain = planet::pipeline::Chain::default();
    let stage = pipeline.find("planet_layout").unwrap();
    let upto = pipeline.index(stage).unwrap();
    pipeline.run(&input, &mut chain, 0..=upto, &|| false, |_, _| {}).unwrap();
    let out = chain.get(stage).unwrap();
    let bytes = out.encode(planet::GENERATOR_VERSION);
    let back = planet::pipeline::StageOutput::decode(stage, &bytes).unwrap();
    assert!(back == *out, "the dumped layout reads back different");
    assert!(pipeline.check_chain(&chain, &input).is_empty());
    let layout: &Arc<Layout> = chain.value(stage).unwrap();
    let mut bad = layout.data.clone();
    bad.coast.pop();
    bad.rivers[0].end = RiverEnd::Lake(u32::MAX);
    let text = serde_json::to_vec(&bad).unwrap();
    let e = planet::pipeline::StageOutput::decode(stage, &text).unwrap_err().0;
    assert!(e.contains("coast has") && e.contains("rivers[0].end"), "{e}");
    let mut moved = layout.data.clone();
    moved.radius_m += 1.0;
    chain.set(planet::pipeline::StageOutput::new(stage, Arc::new(Layout::new(moved))).unwrap());
    let found = pipeline.check_chain(&chain, &input);
    assert!(found.iter().any(|(_, e)| e.contains("radius_m")), "{found:?}");
}

#[test]
fn a_planet_whose_sea_stands_over_every_peak_is_all_sea_with_no_river_or_plot() {
    // The drainage once indexed past its queue here (found by `planet survey`).
    let recipe = SystemRecipe::from_json(include_str!("../../data/systems/drowned.json")).unwrap();
    let plan = &PlannedSystem::build(&recipe).unwrap().planets[1];
    let layout = PlanetLayout::build(plan);
    let figures = layout.figures();
    assert_eq!((figures.rivers, figures.lakes, figures.plots), (0, 0, 0), "{figures:?}");
}
