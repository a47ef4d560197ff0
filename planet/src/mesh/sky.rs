//! Sky light at a vertex: how much of the open sky reaches it, 0 (none) to
//! 255 (all). It comes from the vertex's cover, its depth in the ground as it
//! would be without caves and cave mouths (`VoxelGrid::cover`), interpolated
//! from the eight samples of its cell: open ground lies at that ground's
//! surface and is lit; a cave's walls lie metres inside it and are dark, and
//! so does the floor of a cave mouth's pit (edited ground is lit as open:
//! `edit/apply.rs`). Cover is a pure function of each sample, so a vertex
//! two regions share gets one sky.

use crate::terrain::{COVER_PER_M, VoxelGrid, smoothstep};

/// Cover, metres, above which a vertex has all the sky: the shallow hollows
/// of open ground and the interpolation between a cell's samples stay lit.
pub const OPEN_COVER_M: f32 = 1.0;
/// Cover, metres, from which a vertex has none: a cave's first metres past
/// its roof's least depth (the recipes' `caves.min_depth_m` is 4 to 10 m).
pub const DARK_COVER_M: f32 = 6.0;

/// Sky light of a vertex at `cover_m` metres inside the cave-less ground:
/// a smoothstep from all at `OPEN_COVER_M` to none at `DARK_COVER_M`.
#[must_use]
pub fn sky_of_cover(cover_m: f32) -> u8 {
    let dark = smoothstep(OPEN_COVER_M, DARK_COVER_M, cover_m);
    ((1.0 - dark) * 255.0 + 0.5) as u8
}

/// Sky light at `local` (each coordinate in [0, 1]) in the cell whose
/// minimum sample is window sample (a, b, c): cover interpolated trilinearly,
/// x first, then y, then z, in the region's own frame.
#[must_use]
pub fn sky_in_cell(voxels: &VoxelGrid, (a, b, c): (usize, usize, usize), local: glam::Vec3) -> u8 {
    let cover = |i: usize, j: usize, k: usize| f32::from(voxels.cover_at(a + i, b + j, c + k));
    let layer = |k: usize| {
        let lower = cover(0, 0, k) * (1.0 - local.x) + cover(1, 0, k) * local.x;
        let upper = cover(0, 1, k) * (1.0 - local.x) + cover(1, 1, k) * local.x;
        lower * (1.0 - local.y) + upper * local.y
    };
    sky_of_cover((layer(0) * (1.0 - local.z) + layer(1) * local.z) / COVER_PER_M)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sky_falls_from_open_ground_to_cave_depth() {
        assert_eq!(sky_of_cover(-20.0), 255);
        assert_eq!(sky_of_cover(OPEN_COVER_M), 255);
        assert_eq!(sky_of_cover(DARK_COVER_M), 0);
        assert_eq!(sky_of_cover(30.0), 0);
        let mut last = 255;
        for i in 0..=80 {
            let s = sky_of_cover(i as f32 * 0.1);
            assert!(s <= last, "sky rises at {} m", i as f32 * 0.1);
            last = s;
        }
        let middle = sky_of_cover(0.5 * (OPEN_COVER_M + DARK_COVER_M));
        assert!((120..=135).contains(&middle), "{middle}");
    }
}
