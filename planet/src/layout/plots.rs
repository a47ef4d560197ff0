//! Buildable plots: flat, dry, reachable ground, near water where there is
//! some. On the plan grid, a cell is buildable when it is land above the
//! recipe's height over the sea, out of lakes, its plan slope within the
//! recipe's limit, and no river within the plot's radius and a valley. A
//! plot is a disc of the recipe's radius whose every cell is buildable, on a
//! walkable landmass of at least `MIN_REACH_CELLS` cells (one you can walk
//! into and out of, not a lone mesa). At most one plot stands in each square
//! of the recipe's spacing: the one nearest water within `water_m`, then the
//! flattest, then the first cell.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::grid::{Cell, PLAN_CELLS, PlanGrid, Walker};
use super::rivers::{Drainage, NONE};
use crate::geometry::Face;
use crate::recipe::PlanetRecipe;

/// Steepest plan slope a walker crosses between plots, degrees.
const WALKABLE_DEG: f32 = 30.0;
/// How far the real ground may fall below the plan's height (which leaves
/// out detail finer than eight plan cells), metres: kept between a plot and
/// the sea on top of the recipe's height.
const PLAN_ERROR_M: f32 = 4.0;
/// Fewest walkable cells a plot's landmass holds.
pub const MIN_REACH_CELLS: usize = 512;

/// One plot.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plot {
    /// Unit direction of its centre.
    pub centre: Vec3,
    /// Its plan cell.
    pub cell: Cell,
    /// Radius of its flat ground, metres.
    pub radius_m: f32,
    /// Plan height of the ground, metres above the base radius.
    pub height_m: f32,
    /// Steepest plan slope on it, degrees.
    pub slope_deg: f32,
    /// Distance to the nearest water (sea, lake or river), metres (capped).
    pub water_m: f32,
}

/// The plan slope of every cell: the steepest rise to an edge neighbour, degrees.
#[must_use]
pub fn slopes(grid: &PlanGrid, height: &[f32], threads: usize) -> Vec<f32> {
    super::share::map(grid.len(), threads, |c| {
        let c = c as Cell;
        let mut g = 0.0f32;
        // The four edge neighbours come first and always exist.
        for m in grid.neighbours(c).take(4) {
            let run = grid.distance_m(grid.centre(c), grid.centre(m));
            g = g.max((height[m as usize] - height[c as usize]).abs() / run);
        }
        libm::atanf(g).to_degrees()
    })
}

/// What plots are chosen from.
pub struct PlotInputs<'a> {
    /// Uncarved plan height.
    pub height: &'a [f32],
    /// Plan slope of every cell.
    pub slope: &'a [f32],
    /// The drainage (sea and lakes).
    pub drainage: &'a Drainage,
    /// Distance to any water, metres.
    pub water: &'a [f32],
    /// Distance to a river's course, metres.
    pub river: &'a [f32],
}

/// The plots of a planet.
#[must_use]
pub fn plots(grid: &PlanGrid, walker: &mut Walker, recipe: &PlanetRecipe, input: &PlotInputs<'_>) -> Vec<Plot> {
    let p = &recipe.plots;
    let sea = if recipe.sea.enabled { recipe.sea.level_m } else { f32::MIN };
    let keep_off = p.radius_m + recipe.terrain.rivers.valley_m + recipe.terrain.rivers.width_m[1];
    let d = input.drainage;
    let land = |c: Cell| !d.sea[c as usize] && d.lake[c as usize] == NONE;
    let buildable: Vec<bool> = (0..grid.len() as Cell)
        .map(|c| {
            let i = c as usize;
            land(c)
                && input.height[i] - sea >= p.min_height_m + PLAN_ERROR_M
                && input.slope[i] <= p.max_slope_deg
                && input.river[i] >= keep_off
        })
        .collect();
    let reach = landmasses(grid, walker, input.slope, &land);
    let block = ((p.spacing_m / grid.cell_m()) as i32).clamp(2, PLAN_CELLS);
    let blocks = (PLAN_CELLS + block - 1) / block;
    let mut out = Vec::new();
    let mut candidates = Vec::new();
    for face in Face::ALL {
        for by in 0..blocks {
            for bx in 0..blocks {
                candidates.clear();
                for y in by * block..((by + 1) * block).min(PLAN_CELLS) {
                    for x in bx * block..((bx + 1) * block).min(PLAN_CELLS) {
                        let c = PlanGrid::index(face, x, y);
                        // Water at least the disc's radius and three cells away (a
                        // lake's water reaches a cell past its basin): the disc stays dry.
                        let dry_disc = input.water[c as usize] >= p.radius_m + 3.0 * grid.cell_m();
                        if buildable[c as usize] && dry_disc && reach[c as usize] >= MIN_REACH_CELLS as u32 {
                            // Near water first (any distance within water_m is as good), then flat.
                            let wet = input.water[c as usize];
                            let score = if wet <= p.water_m { wet } else { p.water_m * 4.0 };
                            candidates.push((score + input.slope[c as usize], c));
                        }
                    }
                }
                candidates.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                // The first candidate (by score) whose whole disc is buildable.
                for &(_, c) in candidates.iter().take(48) {
                    if let Some(plot) = disc(grid, walker, recipe, input, &buildable, c) {
                        out.push(plot);
                        break;
                    }
                }
            }
        }
    }
    out
}

/// The plot centred on `c`, if every cell of its disc is buildable.
fn disc(
    grid: &PlanGrid,
    walker: &mut Walker,
    recipe: &PlanetRecipe,
    input: &PlotInputs<'_>,
    buildable: &[bool],
    c: Cell,
) -> Option<Plot> {
    let centre = grid.centre(c);
    let radius = recipe.plots.radius_m;
    let mut steepest = 0.0f32;
    // The first cell that is not buildable rules the disc out.
    let ok = walker.walk_while(
        grid,
        c,
        |m| grid.distance_m(grid.centre(m), centre) <= radius + grid.cell_m() * 0.5,
        |m| {
            steepest = steepest.max(input.slope[m as usize]);
            buildable[m as usize]
        },
    );
    ok.then(|| Plot {
        centre,
        cell: c,
        radius_m: radius,
        height_m: input.height[c as usize],
        slope_deg: steepest,
        water_m: input.water[c as usize],
    })
}

/// For every cell, the size of the walkable landmass it belongs to (0 off land).
fn landmasses(grid: &PlanGrid, walker: &mut Walker, slope: &[f32], land: &impl Fn(Cell) -> bool) -> Vec<u32> {
    let walkable = |c: Cell| land(c) && slope[c as usize] <= WALKABLE_DEG;
    let mut size = vec![0u32; grid.len()];
    let mut members = Vec::new();
    for c in 0..grid.len() as Cell {
        if size[c as usize] != 0 || !walkable(c) {
            continue;
        }
        members.clear();
        walker.walk(grid, c, walkable, |m| members.push(m));
        for &m in &members {
            size[m as usize] = members.len() as u32;
        }
    }
    size
}
