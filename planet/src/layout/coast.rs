//! Distances over the plan grid: from every cell to the nearest cell of a
//! set (the sea, for beaches; any water, for plots), along the grid's eight
//! neighbours across face edges, measured between cell centres and capped.
//! A beach is ground within the recipe's length of the sea and its height
//! above it (`terrain::climate::ground` reads the coast distance).

use super::grid::{Cell, PlanGrid};

/// Metres per step of a stored coast distance (a byte per cell).
pub const COAST_STEP_M: f32 = 4.0;

/// Distance from every cell to the nearest cell for which `source` holds,
/// metres, at most `cap` (cells farther read `cap`). Dijkstra's search with
/// steps rounded to decimetres, so that a ring of buckets replaces the heap
/// (Dial's algorithm): the order is fixed, and it is fast.
#[must_use]
pub fn distance_to(grid: &PlanGrid, source: impl Fn(Cell) -> bool, cap: f32) -> Vec<f32> {
    const UNIT: f32 = 10.0; // steps per metre
    let n = grid.len();
    let cap_u = (cap * UNIT) as u32;
    let mut dist = vec![cap_u; n];
    // The longest step: a diagonal at a face corner, where cells are 1.41x wider.
    let ring = (grid.cell_m() * 2.1 * UNIT) as usize + 2;
    let mut buckets: Vec<Vec<Cell>> = vec![Vec::new(); ring];
    for c in 0..n as Cell {
        if source(c) {
            dist[c as usize] = 0;
            // Only sources with a neighbour outside the set start a front.
            if grid.neighbours(c).any(|m| !source(m)) {
                buckets[0].push(c);
            }
        }
    }
    let mut current = Vec::new();
    for d in 0..cap_u {
        std::mem::swap(&mut current, &mut buckets[d as usize % ring]);
        for &c in &current {
            if dist[c as usize] != d {
                continue;
            }
            let at = grid.centre(c);
            for m in grid.neighbours(c) {
                // A step is at least one unit: a neighbour already this near
                // needs no square root.
                if dist[m as usize] <= d + 1 {
                    continue;
                }
                let step = ((grid.distance_m(at, grid.centre(m)) * UNIT) as u32).clamp(1, ring as u32 - 1);
                let next = d + step;
                if next < dist[m as usize] {
                    dist[m as usize] = next;
                    buckets[next as usize % ring].push(m);
                }
            }
        }
        current.clear();
    }
    dist.into_iter().map(|d| d as f32 / UNIT).collect()
}

/// A distance stored in a byte, in `COAST_STEP_M` steps.
#[must_use]
pub fn to_byte(d: f32) -> u8 {
    (d / COAST_STEP_M).round().clamp(0.0, 255.0) as u8
}
