//! Mountain belts, as the landscape generator makes them, in three steps on
//! the plan grid:
//!
//! 1. the mask: cells whose tectonic value (the ranges' ridged noise on high
//!    ground, `Fields::tectonic`) passes the recipe's threshold;
//! 2. the skeleton: the mask thinned to a one-cell centreline (Zhang-Suen,
//!    with neighbours across face edges in the cell's own frame);
//! 3. the stamps: walked along the skeleton in cell order, a stamp wherever
//!    no earlier stamp's centre lies within `spacing` of its radius, its long
//!    axis along the skeleton, its size, shape and peak drawn from the hash
//!    of its cell.

use glam::Vec3;

use super::grid::{Cell, PlanGrid, Walker};
use super::stamp::Stamp;
use crate::hash::{HashStream, hash1, salt};
use crate::recipe::PlanetRecipe;
use crate::terrain::smoothstep;

/// The belt mask: cells whose tectonic value passes the threshold.
#[must_use]
pub fn mask(recipe: &PlanetRecipe, tectonic: &[f32]) -> Vec<bool> {
    let t = recipe.elevation.belts.threshold;
    tectonic.iter().map(|&v| v > t).collect()
}

/// Zhang-Suen's eight neighbours P2..P9, clockwise from "north" (+y): (0, 1),
/// (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1), as indices
/// into the grid's `OFFSETS`.
const RING: [usize; 8] = [2, 4, 0, 6, 3, 7, 1, 5];

/// The mask thinned to a one-cell centreline: the cells left, ascending.
///
/// Only a cell with a neighbour off can be thinned away (Zhang-Suen wants
/// two to six of the eight on), so each sub-iteration tests the mask's
/// edge, which grows by the neighbours of the cells it removes, rather than
/// every cell left: the same cells go, in the same sub-iterations.
#[must_use]
pub fn skeleton(grid: &PlanGrid, mask: &[bool]) -> Vec<Cell> {
    let mut on = mask.to_vec();
    let cells = 0..mask.len() as Cell;
    let mut in_edge: Vec<bool> = cells
        .clone()
        .map(|c| on[c as usize] && grid.neighbour_ring(c).iter().any(|n| !n.is_some_and(|n| on[n as usize])))
        .collect();
    let mut edge: Vec<Cell> = cells.clone().filter(|&c| in_edge[c as usize]).collect();
    let mut remove = Vec::new();
    loop {
        let mut changed = false;
        for pass in 0..2 {
            remove.clear();
            remove.extend(edge.iter().copied().filter(|&c| deletable(grid, &on, c, pass)));
            for &c in &remove {
                on[c as usize] = false;
            }
            for &c in &remove {
                for n in grid.neighbours(c) {
                    if on[n as usize] && !in_edge[n as usize] {
                        in_edge[n as usize] = true;
                        edge.push(n);
                    }
                }
            }
            changed |= !remove.is_empty();
            edge.retain(|&c| on[c as usize]);
        }
        if !changed {
            return cells.filter(|&c| on[c as usize]).collect();
        }
    }
}

/// Zhang-Suen's test for cell `c` in sub-iteration `pass` (0 or 1).
fn deletable(grid: &PlanGrid, on: &[bool], c: Cell, pass: usize) -> bool {
    let around = grid.neighbour_ring(c);
    let p: [bool; 8] = RING.map(|i| around[i].is_some_and(|n| on[n as usize]));
    let neighbours = p.iter().filter(|&&b| b).count();
    if !(2..=6).contains(&neighbours) {
        return false;
    }
    let transitions = (0..8).filter(|&i| !p[i] && p[(i + 1) % 8]).count();
    if transitions != 1 {
        return false;
    }
    let (p2, p4, p6, p8) = (p[0], p[2], p[4], p[6]);
    // Pass 0: not (P2 and P4 and P6), not (P4 and P6 and P8); pass 1: P2
    // and P8 swap roles with P6 and P4.
    if pass == 0 { !(p4 && p6 && (p2 || p8)) } else { !(p2 && p8 && (p4 || p6)) }
}

/// The stamps along `skeleton` (ascending cells), on ground of tectonic value `tectonic`.
#[must_use]
pub fn stamps(
    grid: &PlanGrid,
    walker: &mut Walker,
    recipe: &PlanetRecipe,
    seed: u64,
    skeleton: &[Cell],
    tectonic: &[f32],
) -> Vec<Stamp> {
    let belts = &recipe.elevation.belts;
    let mut on_skeleton = vec![false; grid.len()];
    for &c in skeleton {
        on_skeleton[c as usize] = true;
    }
    let mut blocked = vec![false; grid.len()];
    let mut out = Vec::new();
    for &c in skeleton {
        if blocked[c as usize] {
            continue;
        }
        let mut s = HashStream::new(hash1(seed, salt(b"stamp"), i64::from(c)));
        let centre = grid.centre(c);
        let radius_m = s.range_f32(belts.radius_m[0], belts.radius_m[1]);
        let strength = smoothstep(belts.threshold, belts.threshold + 0.15, tectonic[c as usize]);
        let peak_m = recipe.elevation.ranges_m * s.range_f32(belts.peak_share[0], belts.peak_share[1]) * strength;
        let aspect = s.range_f32(belts.aspect[0], belts.aspect[1]);
        let axis = along_skeleton(grid, walker, &on_skeleton, c, centre, s.range_f32(0.0, core::f32::consts::TAU));
        out.push(Stamp { centre, axis, radius_m, aspect, peak_m });
        // No later stamp's centre within `spacing` radii of this one.
        let keep_out = belts.spacing * radius_m;
        walker.walk(grid, c, |n| grid.distance_m(grid.centre(n), centre) < keep_out, |n| blocked[n as usize] = true);
    }
    out
}

/// The unit tangent at `centre` along the skeleton through `c`: towards the
/// farthest skeleton cell within four steps along it, or at angle `fallback`
/// where the skeleton is a lone cell.
fn along_skeleton(grid: &PlanGrid, walker: &mut Walker, on: &[bool], c: Cell, centre: Vec3, fallback: f32) -> Vec3 {
    let reach = grid.cell_m() * 4.5;
    let mut far = (0.0f32, centre);
    walker.walk(
        grid,
        c,
        |n| on[n as usize] && grid.distance_m(grid.centre(n), centre) < reach,
        |n| {
            let d = grid.distance_m(grid.centre(n), centre);
            if d > far.0 {
                far = (d, grid.centre(n));
            }
        },
    );
    let tangent = far.1 - centre * far.1.dot(centre);
    if far.0 > 0.0 && tangent.length_squared() > 0.0 {
        return tangent.normalize();
    }
    let e1 = centre.any_orthonormal_vector();
    let e2 = centre.cross(e1);
    (e1 * libm::cosf(fallback) + e2 * libm::sinf(fallback)).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::grid::OFFSETS;

    #[test]
    fn the_ring_runs_clockwise_from_north() {
        let clockwise = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];
        assert_eq!(RING.map(|i| OFFSETS[i]), clockwise);
    }
}
