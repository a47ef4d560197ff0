//! Coverage: whether the shown columns cover the planet exactly once, and the
//! coverage deficit, the share of the surface near the camera shown coarser
//! than the region tree wants.

use std::collections::BTreeSet;

use glam::{DVec3, Vec3};
use planet::geometry::{PlanetGrid, REGION_CELLS, face_coords};

use crate::lod::ColumnKey;
use crate::streamer::descends_from;

/// How a set of columns fails to cover a planet exactly once.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CoverError {
    /// The same column twice.
    #[error("a column is shown twice")]
    Twice,
    /// A column inside another shown one.
    #[error("{inner:?} is shown inside {outer:?}")]
    Nested {
        /// The finer column.
        inner: ColumnKey,
        /// The coarser column holding it.
        outer: ColumnKey,
    },
    /// Gaps: the shown area, in LOD-0 columns, is not the planet's.
    #[error("shown area {shown} of {whole} LOD-0 columns")]
    Area {
        /// The shown area.
        shown: u64,
        /// The planet's.
        whole: u64,
    },
}

/// Checks that `columns` cover every face exactly once: no column inside
/// another, and areas adding up to the planet's. Returns what is wrong.
pub fn check_exact_cover(grid: &PlanetGrid, columns: &[ColumnKey]) -> Result<(), CoverError> {
    let set: BTreeSet<ColumnKey> = columns.iter().copied().collect();
    if set.len() != columns.len() {
        return Err(CoverError::Twice);
    }
    for &c in columns {
        let mut a = c;
        while a.lod < grid.max_lod {
            a = a.parent();
            if set.contains(&a) {
                return Err(CoverError::Nested { inner: c, outer: a });
            }
        }
    }
    let n = u64::from(grid.regions_across(0));
    let shown: u64 = columns.iter().map(|c| c.area()).sum();
    if shown != 6 * n * n {
        return Err(CoverError::Area { shown, whole: 6 * n * n });
    }
    Ok(())
}

/// The column of `columns` (a cover of the planet) that holds direction `d`.
#[must_use]
pub fn column_at(grid: &PlanetGrid, columns: &BTreeSet<ColumnKey>, d: Vec3) -> Option<ColumnKey> {
    let (face, u, v) = face_coords(d);
    let n0 = grid.cells_across(0) as f32;
    let to_column = |t: f32| (((t + 1.0) * 0.5 * n0) as u32 / REGION_CELLS as u32).min(grid.regions_across(0) - 1);
    let (x0, y0) = (to_column(u), to_column(v));
    (0..=grid.max_lod).map(|lod| ColumnKey::at(face.index(), lod, x0, y0)).find(|c| columns.contains(c))
}

/// The share (0..=1) of the surface within `radius_m` of the point under the
/// camera that `shown` covers coarser than `wanted` (or not at all).
#[must_use]
pub fn coverage_deficit(
    grid: &PlanetGrid,
    camera: DVec3,
    radius_m: f64,
    wanted: &[ColumnKey],
    shown: &[ColumnKey],
) -> f64 {
    let wanted: BTreeSet<ColumnKey> = wanted.iter().copied().collect();
    let shown: BTreeSet<ColumnKey> = shown.iter().copied().collect();
    let up = camera.normalize();
    let east = up.any_orthonormal_vector();
    let north = up.cross(east);
    let angle = radius_m / f64::from(grid.radius_m);
    // A sunflower spiral of sample points over the disc.
    let samples = 400;
    let mut coarse = 0;
    for i in 0..samples {
        let r = angle * libm::sqrt((f64::from(i) + 0.5) / f64::from(samples));
        let theta = f64::from(i) * 2.399_963_229_728_653;
        let d = (up + (east * libm::cos(theta) + north * libm::sin(theta)) * r).normalize().as_vec3();
        let want = column_at(grid, &wanted, d);
        let have = column_at(grid, &shown, d);
        match (want, have) {
            (Some(w), Some(h)) if h.lod <= w.lod => {}
            _ => coarse += 1,
        }
    }
    f64::from(coarse) / f64::from(samples)
}

/// Whether some shown column overlaps `c`.
#[must_use]
pub fn overlaps(shown: &BTreeSet<ColumnKey>, c: ColumnKey, max_lod: u8) -> bool {
    let mut a = c;
    loop {
        if shown.contains(&a) {
            return true;
        }
        if a.lod >= max_lod {
            break;
        }
        a = a.parent();
    }
    shown.iter().any(|&s| descends_from(s, c))
}
