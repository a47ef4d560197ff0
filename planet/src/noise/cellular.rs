//! Cellular (Worley) noise in 2D and 3D: one jittered feature point per lattice
//! cell; a sample reports the distances to the nearest (F1) and second nearest
//! (F2) points and an id of the nearest cell. F1 gives craters and pebbles,
//! F2 - F1 gives cracks and cell walls, the id gives per-cell choices.

use glam::{Vec2, Vec3};

use super::lattice::{PRIME_X, PRIME_Y, PRIME_Z, corner_hash, fast_floor};

/// The result of a cellular sample, distances in lattice units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cellular {
    /// Distance to the nearest feature point.
    pub f1: f32,
    /// Distance to the second nearest feature point.
    pub f2: f32,
    /// Hash of the cell owning the nearest point (stable per cell and seed).
    pub id: u32,
}

/// A coordinate in [0, 1) from 10 bits of a hash.
#[inline(always)]
fn bits_unit(h: u32, shift: u32) -> f32 {
    ((h >> shift) & 1023) as f32 * (1.0 / 1024.0)
}

/// 3D cellular noise. `jitter` in [0, 1] is how far feature points stray from
/// their cell centres (0 gives a regular grid). Only the 3x3x3 block of cells
/// around the sample is searched: F1 is exact for jitter <= 0.4, and beyond
/// that F1 and F2 are very rarely a little too long (the usual Worley trade-off).
#[must_use]
pub fn cellular3(seed: u32, p: Vec3, jitter: f32) -> Cellular {
    let (ix, iy, iz) = (fast_floor(p.x), fast_floor(p.y), fast_floor(p.z));
    let mut d1 = f32::MAX;
    let mut d2 = f32::MAX;
    let mut id = 0u32;
    for dz in -1..=1 {
        let cz = iz + dz;
        let zp = (cz as u32).wrapping_mul(PRIME_Z);
        for dy in -1..=1 {
            let cy = iy + dy;
            let yp = (cy as u32).wrapping_mul(PRIME_Y);
            for dx in -1..=1 {
                let cx = ix + dx;
                let h = corner_hash(seed, (cx as u32).wrapping_mul(PRIME_X), yp, zp);
                let fx = cx as f32 + 0.5 + jitter * (bits_unit(h, 22) - 0.5);
                let fy = cy as f32 + 0.5 + jitter * (bits_unit(h, 12) - 0.5);
                let fz = cz as f32 + 0.5 + jitter * (bits_unit(h, 2) - 0.5);
                let (ex, ey, ez) = (fx - p.x, fy - p.y, fz - p.z);
                let d = ex * ex + ey * ey + ez * ez;
                let nearer = d < d1;
                d2 = if nearer { d1 } else { d2.min(d) };
                id = if nearer { h } else { id };
                d1 = d1.min(d);
            }
        }
    }
    Cellular { f1: libm::sqrtf(d1), f2: libm::sqrtf(d2), id }
}

/// 2D cellular noise; see [`cellular3`].
#[must_use]
pub fn cellular2(seed: u32, p: Vec2, jitter: f32) -> Cellular {
    let (ix, iy) = (fast_floor(p.x), fast_floor(p.y));
    let mut d1 = f32::MAX;
    let mut d2 = f32::MAX;
    let mut id = 0u32;
    for dy in -1..=1 {
        let cy = iy + dy;
        let yp = (cy as u32).wrapping_mul(PRIME_Y);
        for dx in -1..=1 {
            let cx = ix + dx;
            let h = corner_hash(seed, (cx as u32).wrapping_mul(PRIME_X), yp, 0);
            let fx = cx as f32 + 0.5 + jitter * (bits_unit(h, 22) - 0.5);
            let fy = cy as f32 + 0.5 + jitter * (bits_unit(h, 12) - 0.5);
            let (ex, ey) = (fx - p.x, fy - p.y);
            let d = ex * ex + ey * ey;
            let nearer = d < d1;
            d2 = if nearer { d1 } else { d2.min(d) };
            id = if nearer { h } else { id };
            d1 = d1.min(d);
        }
    }
    Cellular { f1: libm::sqrtf(d1), f2: libm::sqrtf(d2), id }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force over a 5x5 block of cells: the 3x3 search must agree.
    fn brute2(seed: u32, p: Vec2, jitter: f32) -> (f32, f32) {
        let (ix, iy) = (fast_floor(p.x), fast_floor(p.y));
        let mut d: Vec<f32> = Vec::new();
        for cy in iy - 2..=iy + 2 {
            for cx in ix - 2..=ix + 2 {
                let h = corner_hash(seed, (cx as u32).wrapping_mul(PRIME_X), (cy as u32).wrapping_mul(PRIME_Y), 0);
                let f = Vec2::new(
                    cx as f32 + 0.5 + jitter * (bits_unit(h, 22) - 0.5),
                    cy as f32 + 0.5 + jitter * (bits_unit(h, 12) - 0.5),
                );
                d.push((f - p).length_squared());
            }
        }
        d.sort_by(f32::total_cmp);
        (libm::sqrtf(d[0]), libm::sqrtf(d[1]))
    }

    #[test]
    fn matches_brute_force_and_orders_distances() {
        let mut differ = 0;
        for i in 0..4000 {
            let p = Vec2::new(i as f32 * 0.173 - 150.0, i as f32 * 0.311 - 40.0);
            // Exact F1 at moderate jitter.
            assert_eq!(cellular2(4, p, 0.4).f1, brute2(4, p, 0.4).0, "at {p}");
            // At full jitter the 3x3 search is almost always exact.
            let c = cellular2(4, p, 1.0);
            differ += i32::from((c.f1, c.f2) != brute2(4, p, 1.0));
            let c3 = cellular3(4, p.extend(i as f32 * 0.07), 1.0);
            assert!(c3.f1 <= c3.f2 && c3.f1 <= 1.5 && c3.f1 >= 0.0);
        }
        assert!(differ < 40, "{differ} of 4000 samples differ from brute force");
    }

    #[test]
    fn id_is_stable_within_a_cell_region() {
        // With no jitter a point near a cell centre belongs to that cell.
        let a = cellular3(8, Vec3::new(10.5, 3.5, -2.5), 0.0);
        let b = cellular3(8, Vec3::new(10.45, 3.55, -2.52), 0.0);
        assert_eq!(a.id, b.id);
        assert!(a.f1 < 1e-6);
    }
}
