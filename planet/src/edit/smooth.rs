//! Smoothing: a smooth edit levels the ground inside its brush towards a
//! quadratic surface fitted, when the edit is made, to the ground there (a
//! local polynomial regression, as Savitzky-Golay smoothing is): bumps and
//! steps smaller than the brush go, the broad shape of a hill or a hollow
//! stays.
//!
//! The fit is made once and kept in the edit ([`Surface`]), so applying it
//! reads nothing but the sample it changes, the same at every LOD and in
//! every region, and a save replays it exactly. The ground it fits is the
//! LOD-0 voxels' with the earlier edits applied: what a dig or a fill left
//! is what gets smoothed.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use std::collections::BTreeMap;

use super::ground::{edited, upward_crossing};
use super::{Edit, EditError, RegionEdits};
use crate::geometry::{MARGIN, REGION_CELLS, RegionKey};
use crate::terrain::Terrain;

/// A height field over a brush's tangent plane, metres above the plane
/// through the brush's centre: `h(x, z) = c0 + c1 x + c2 z + c3 x² +
/// c4 x z + c5 z²`, with x and z in metres along the brush's side and
/// forward axes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Surface(pub [f32; 6]);

impl Surface {
    /// The plane through the brush's centre: an unfitted surface (a smooth
    /// with it flattens).
    pub const FLAT: Surface = Surface([0.0; 6]);

    /// Its height at (`x`, `z`), metres.
    #[must_use]
    pub fn height(&self, x: f32, z: f32) -> f32 {
        let c = &self.0;
        c[0] + c[1] * x + c[2] * z + c[3] * x * x + c[4] * x * z + c[5] * z * z
    }

    /// Checks its coefficients: finite, and a height within `reach_m`
    /// twice over of the centre and slopes of at most 20 over the brush.
    pub fn check(&self, reach_m: f32) -> Result<(), EditError> {
        let limits = [2.0 * reach_m, 20.0, 20.0, 20.0 / reach_m, 20.0 / reach_m, 20.0 / reach_m];
        for (i, (&c, limit)) in self.0.iter().zip(limits).enumerate() {
            if !c.is_finite() || c.abs() > limit {
                return Err(EditError::Range {
                    field: ["surface[0]", "surface[1]", "surface[2]", "surface[3]", "surface[4]", "surface[5]"][i],
                    value: c.to_string(),
                    range: format!("-{limit}..={limit}"),
                });
            }
        }
        Ok(())
    }
}

/// The surface a smooth of `edit`'s brush and centre levels towards: the
/// least-squares quadratic through the ground under the brush, as the
/// LOD-0 `regions` show it (each with its edits, in log order: those of the
/// log before this one). With too few points for a quadratic it fits a
/// plane, then a level; with none, [`Surface::FLAT`].
#[must_use]
pub fn fit_surface(terrain: &Terrain, regions: &[(RegionKey, RegionEdits)], edit: &Edit) -> Surface {
    let points = ground_points(terrain, regions, edit);
    // x and z are scaled to about 1 across the brush, so the normal
    // equations stay well conditioned.
    let scale = f64::from(edit.brush.reach_m());
    let terms = |x: f64, z: f64| [1.0, x, z, x * x, x * z, z * z];
    for used in [6, 3, 1] {
        if points.len() < 2 * used {
            continue;
        }
        let mut normal = [[0.0f64; 7]; 6];
        for &(x, z, h) in &points {
            let t = terms(f64::from(x) / scale, f64::from(z) / scale);
            for (i, row) in normal.iter_mut().enumerate().take(used) {
                for j in 0..used {
                    row[j] += t[i] * t[j];
                }
                row[6] += t[i] * f64::from(h);
            }
        }
        if let Some(c) = solve(&mut normal, used) {
            let s2 = scale * scale;
            let unscaled = [c[0], c[1] / scale, c[2] / scale, c[3] / s2, c[4] / s2, c[5] / s2];
            return Surface(unscaled.map(|v| v as f32));
        }
    }
    Surface::FLAT
}

/// (x, z, height) in the brush's frame of the ground under each LOD-0
/// column inside the brush's footprint: of the column's crossings from
/// solid below to air above, the one nearest the brush's centre and within
/// its reach of it. Each column counts once (regions stacked in the shell
/// repeat it; their overlapping margins are left out).
fn ground_points(terrain: &Terrain, regions: &[(RegionKey, RegionEdits)], edit: &Edit) -> Vec<(f32, f32, f32)> {
    let brush = edit.brush.at(Vec3::from_array(edit.centre));
    let [side, up, forward] = brush.axes;
    let reach = edit.brush.reach_m();
    let owned = MARGIN as usize..(MARGIN + REGION_CELLS) as usize;
    // Per column (its region's face, x and y, and its place in the
    // window), its nearest crossing so far: (|height|, x, z, height).
    type Column = (u8, u32, u32, usize, usize);
    let mut nearest: BTreeMap<Column, (f32, f32, f32, f32)> = BTreeMap::new();
    for (key, edits) in regions {
        let columns = terrain.columns(*key);
        let grid = edited(terrain, &columns, edits);
        let layer_m = terrain.grid.layer_m(key.lod);
        let first = (key.z as i32 * REGION_CELLS - MARGIN) as f32;
        for b in owned.clone() {
            for a in owned.clone() {
                let col = columns.at(a, b);
                let floor = terrain.recipe.radius_m + col.elevation_m - terrain.grid.shell_below_m;
                let at = |c: f32| col.direction * (floor + (first + c) * layer_m) - brush.centre;
                let (x, z) = (at(0.0).dot(side), at(0.0).dot(forward));
                if brush.distance(brush.centre + side * x + forward * z) > 0.0 {
                    continue;
                }
                for c in owned.clone() {
                    let Some(t) = upward_crossing(grid.at(a, b, c - 1), grid.at(a, b, c)) else { continue };
                    let h = at((c - 1) as f32 + t).dot(up);
                    let slot = nearest.entry((key.face, key.x, key.y, a, b)).or_insert((f32::MAX, 0.0, 0.0, 0.0));
                    if h.abs() <= reach && h.abs() < slot.0 {
                        *slot = (h.abs(), x, z, h);
                    }
                }
            }
        }
    }
    nearest.into_values().filter(|n| n.0 <= reach).map(|(_, x, z, h)| (x, z, h)).collect()
}

/// Solves the first `n` rows of the augmented system `m` (column 6 holds
/// the right-hand side) by Gaussian elimination with partial pivoting;
/// `None` when it is singular.
fn solve(m: &mut [[f64; 7]; 6], n: usize) -> Option<[f64; 6]> {
    for col in 0..n {
        let pivot = (col..n).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col].abs() < 1e-9 {
            return None;
        }
        m.swap(col, pivot);
        for row in col + 1..n {
            let f = m[row][col] / m[col][col];
            for k in col..7 {
                m[row][k] -= f * m[col][k];
            }
        }
    }
    let mut x = [0.0; 6];
    for row in (0..n).rev() {
        let sum: f64 = (row + 1..n).map(|k| m[row][k] * x[k]).sum();
        x[row] = (m[row][6] - sum) / m[row][row];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solve_recovers_a_known_quadratic() {
        let truth = [0.5, -0.2, 0.1, 0.03, -0.02, 0.01];
        let surface = Surface(truth.map(|c| c as f32));
        let mut normal = [[0.0f64; 7]; 6];
        for j in -4..=4 {
            for i in -4..=4 {
                let (x, z) = (f64::from(i), f64::from(j));
                let t = [1.0, x, z, x * x, x * z, z * z];
                let h = f64::from(surface.height(x as f32, z as f32));
                for a in 0..6 {
                    for b in 0..6 {
                        normal[a][b] += t[a] * t[b];
                    }
                    normal[a][6] += t[a] * h;
                }
            }
        }
        let c = solve(&mut normal, 6).expect("a regular system");
        for (got, want) in c.iter().zip(truth) {
            assert!((got - want).abs() < 1e-5, "{c:?} against {truth:?}");
        }
        let mut singular = [[0.0f64; 7]; 6];
        assert!(solve(&mut singular, 3).is_none());
    }
}
