//! Holes in a picture: the view drawn again without the sky over a clear
//! colour no surface has, and every pixel whose ray meets a planet's lowest
//! ground (its proxy's lowest radius, less the sag of the coarsest regions'
//! chords) counted where it still shows that colour. A streamed planet that
//! covers itself shows none.

use glam::{DVec3, Vec4};
use image::RgbaImage;

use crate::capture::Capture;
use crate::error::RenderError;
use crate::renderer::{RenderOptions, ViewCamera};

/// The clear colour holes show: magenta, which no material or sky has.
pub const HOLE_COLOUR: [u8; 4] = [255, 0, 255, 255];

/// How far below the proxy's lowest radius a root region's chords may sag, metres.
const CHORD_SAG_M: f64 = 30.0;

/// Pixels of a picture over a planet's lowest ground, and how many of them are holes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Holes {
    /// Pixels whose ray meets the planet's lowest ground.
    pub inside: u32,
    /// Those that show the clear colour.
    pub holes: u32,
}

/// Draws `camera`'s view of `capture` without the sky and lights, and counts
/// the holes over `planet`'s lowest ground.
pub fn holes_in_view(capture: &mut Capture, camera: &ViewCamera, planet: u32) -> Result<Holes, RenderError> {
    let clear = HOLE_COLOUR.map(|c| f64::from(c) / 255.0);
    let options = RenderOptions { sky: false, clear, time: 0.0, lights: false };
    let (image, _) = capture.draw(camera, &options)?;
    let Some(p) = capture.world.planets.get(planet as usize) else {
        return Ok(Holes::default());
    };
    let low = f64::from(p.proxy().radius_range_m[0]) - CHORD_SAG_M;
    Ok(count(&image, camera, p.position, low))
}

/// The pixels of `image` (drawn from `camera`) whose ray meets the sphere of
/// radius `low` at `centre`, and those of them that show [`HOLE_COLOUR`].
fn count(image: &RgbaImage, camera: &ViewCamera, centre: DVec3, low: f64) -> Holes {
    let (w, h) = image.dimensions();
    let inverse = camera.view_proj(w as f32 / h.max(1) as f32).inverse();
    let mut out = Holes::default();
    for (x, y, pixel) in image.enumerate_pixels() {
        let ndc = [(x as f32 + 0.5) / w as f32 * 2.0 - 1.0, 1.0 - (y as f32 + 0.5) / h as f32 * 2.0];
        let q = inverse * Vec4::new(ndc[0], ndc[1], 0.5, 1.0);
        let dir = (q.truncate() / q.w).as_dvec3().normalize();
        if meets(camera.pose.position, dir, centre, low) {
            out.inside += 1;
            out.holes += u32::from(pixel.0 == HOLE_COLOUR);
        }
    }
    out
}

/// Whether a ray from `origin` along unit `dir` meets the sphere of `radius` at `centre`.
fn meets(origin: DVec3, dir: DVec3, centre: DVec3, radius: f64) -> bool {
    let o = origin - centre;
    let b = o.dot(dir);
    let c = o.length_squared() - radius * radius;
    let disc = b * b - c;
    disc >= 0.0 && -b + disc.sqrt() > 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pixel_over_the_disc_is_counted_and_only_the_clear_colour_is_a_hole() {
        // A sphere of 1 km seen from 3 km spans asin(1/3) each way; on the
        // screen of a 60-degree view, a circle of tan(asin(1/3)) / tan(30°) =
        // sqrt(3/8) of the half-height.
        let camera = ViewCamera::new(engine::Pose::looking(DVec3::new(0.0, 0.0, 3000.0), -DVec3::Z, DVec3::Y));
        let (w, h) = (200, 200);
        let radius_px = (3.0f64 / 8.0).sqrt() * 100.0;
        let disc = std::f64::consts::PI * radius_px * radius_px;
        let all_clear = RgbaImage::from_pixel(w, h, image::Rgba(HOLE_COLOUR));
        let holes = count(&all_clear, &camera, DVec3::ZERO, 1000.0);
        assert!((f64::from(holes.inside) - disc).abs() < disc * 0.01, "{holes:?} against {disc:.0}");
        assert_eq!(holes.holes, holes.inside);
        let mut drawn = RgbaImage::from_pixel(w, h, image::Rgba([20, 90, 40, 255]));
        drawn.put_pixel(100, 100, image::Rgba(HOLE_COLOUR));
        drawn.put_pixel(0, 0, image::Rgba(HOLE_COLOUR));
        let holes = count(&drawn, &camera, DVec3::ZERO, 1000.0);
        assert_eq!(holes.holes, 1, "only the hole over the disc counts: {holes:?}");
        // A sphere behind the camera is in no pixel.
        assert_eq!(count(&all_clear, &camera, DVec3::new(0.0, 0.0, 9000.0), 1000.0).inside, 0);
    }
}
