//! The exposure a frame is tone-mapped with: 1 by day and in space, raised
//! on a planet's night side so that the starlight and airglow the shaders
//! add (`NIGHT_LIGHT` in `common.wgsl`) read as a dim blue landscape rather
//! than black. It follows the sun's height over the eye's ground, from
//! sunset to deep dusk, so it adapts smoothly as a flight crosses the
//! terminator while sunlit ground keeps the day's exposure, and it
//! fades back to 1 above the atmosphere, where a planet is seen whole and
//! its sunlit side sets the level.
//!
//! Under the ground (in a cave, or a deep dig) it rises the same way with
//! the eye's depth, as the terrain's sky light falls (`planet::mesh::sky`),
//! so that a cave's dim walls read while its mouth glares.

use glam::DVec3;
use planet::mesh::{DARK_COVER_M, OPEN_COVER_M};
use planet::terrain::smoothstep;

/// The exposure at night on the ground: the shaders' night light times this
/// is about a fifth of a sunlit ground's brightness.
pub const NIGHT_EXPOSURE: f32 = 5.0;

/// The exposure deep in a cave: with the shaders' `CAVE_AMBIENT` (4% of the
/// sky's light) a cave wall reads at about a fifth of open ground's level.
pub const CAVE_EXPOSURE: f32 = 5.0;

/// The exposure for an eye at unit direction `up` from a planet's centre,
/// `altitude_m` over its ground (negative under it), whose atmosphere is
/// `atmosphere_m` thick, with the sun towards unit `to_sun`.
#[must_use]
pub fn exposure(up: DVec3, to_sun: DVec3, altitude_m: f64, atmosphere_m: f64) -> f32 {
    // Adapting begins at sunset (the sunlit ground of a low sun keeps 1)
    // and is whole with the sun 17 degrees down.
    let daylight = smoothstep(-0.3, 0.0, up.dot(to_sun) as f32);
    let top = atmosphere_m.max(1.0) as f32;
    let inside = 1.0 - smoothstep(top, top * 6.0, altitude_m as f32);
    let night = 1.0 + (NIGHT_EXPOSURE - 1.0) * (1.0 - daylight) * inside;
    let underground = smoothstep(OPEN_COVER_M, DARK_COVER_M, -altitude_m as f32);
    night.max(1.0 + (CAVE_EXPOSURE - 1.0) * underground)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_and_space_keep_one_and_the_night_ground_is_lifted() {
        let sun = DVec3::X;
        let atmosphere = 60_000.0;
        // Noon, dusk, midnight, on the ground.
        assert!((exposure(DVec3::X, sun, 2.0, atmosphere) - 1.0).abs() < 1e-6);
        assert!((exposure(-DVec3::X, sun, 2.0, atmosphere) - NIGHT_EXPOSURE).abs() < 1e-6);
        // The sun 10 degrees down: adapting; 5 degrees up: still the day's.
        let below = 100f64.to_radians();
        let dusk = exposure(DVec3::new(below.cos(), below.sin(), 0.0), sun, 2.0, atmosphere);
        assert!(dusk > 1.0 && dusk < NIGHT_EXPOSURE, "{dusk}");
        let low_sun = 85f64.to_radians();
        assert!((exposure(DVec3::new(low_sun.cos(), low_sun.sin(), 0.0), sun, 2.0, atmosphere) - 1.0).abs() < 1e-6);
        // Over the night side: lifted inside the atmosphere, 1 far out in space.
        assert!(exposure(-DVec3::X, sun, atmosphere * 0.5, atmosphere) > NIGHT_EXPOSURE - 1e-3);
        assert!((exposure(-DVec3::X, sun, atmosphere * 10.0, atmosphere) - 1.0).abs() < 1e-6);
        // Under the ground: 1 at the surface, the cave's deep in, never above
        // the larger of night and cave.
        assert!((exposure(DVec3::X, sun, 0.0, atmosphere) - 1.0).abs() < 1e-6);
        assert!((exposure(DVec3::X, sun, -20.0, atmosphere) - CAVE_EXPOSURE).abs() < 1e-6);
        let part = exposure(DVec3::X, sun, -3.0, atmosphere);
        assert!(part > 1.0 && part < CAVE_EXPOSURE, "{part}");
        assert!(exposure(-DVec3::X, sun, -20.0, atmosphere) <= NIGHT_EXPOSURE.max(CAVE_EXPOSURE) + 1e-6);
        // Monotonic as the eye walks from noon to midnight.
        let mut last = 0.0;
        for i in 0..=180 {
            let a = f64::from(i).to_radians();
            let e = exposure(DVec3::new(a.cos(), a.sin(), 0.0), sun, 2.0, atmosphere);
            assert!(e >= last, "at {i} deg: {e} after {last}");
            last = e;
        }
    }
}
