//! A small software rasterizer for looking at meshes without a GPU: a
//! perspective camera, a z-buffer, per-triangle colours with Lambert shading
//! from the triangle's own normal (so crisp edges and cracks show plainly).
//! The wgpu renderer (the `render` crate) is the real thing; this is for the
//! `planet mesh --png` preview and tests.

use glam::DVec3;

/// A triangle to draw, in world space (metres, f64).
#[derive(Clone, Copy, Debug)]
pub struct Triangle {
    /// Corners.
    pub corners: [DVec3; 3],
    /// Base colour, linear RGB.
    pub color: [f32; 3],
}

/// Renders `triangles` seen from `eye` towards `target` (with `up`), into an
/// RGB image of `width` x `height`; the background is a sky gradient.
pub fn render(
    triangles: &[Triangle],
    eye: DVec3,
    target: DVec3,
    up: DVec3,
    fov_y_deg: f64,
    width: usize,
    height: usize,
) -> Vec<u8> {
    // Camera basis: forward, right, up; then a pinhole projection.
    let forward = (target - eye).normalize();
    let right = forward.cross(up).normalize();
    let cam_up = right.cross(forward);
    let focal = 1.0 / libm::tan(fov_y_deg.to_radians() * 0.5);
    let aspect = width as f64 / height as f64;
    let light = (DVec3::new(0.4, 0.8, 0.3) + up).normalize();
    let mut depth = vec![f64::INFINITY; width * height];
    let mut rgb = vec![0u8; width * height * 3];
    for y in 0..height {
        let t = y as f32 / height as f32;
        for x in 0..width {
            let c = [0.55 + 0.25 * t, 0.70 + 0.15 * t, 0.95];
            rgb[(y * width + x) * 3..][..3].copy_from_slice(&c.map(|v| (v * 255.0) as u8));
        }
    }
    for tri in triangles {
        let normal = (tri.corners[1] - tri.corners[0]).cross(tri.corners[2] - tri.corners[0]).normalize_or_zero();
        let shade = (0.25 + 0.75 * normal.dot(light).abs()) as f32;
        let color = crate::pick::srgb(tri.color.map(|c| c * shade));
        // To screen space.
        let mut screen = [(0.0f64, 0.0f64, 0.0f64); 3];
        let mut behind = false;
        for (s, p) in screen.iter_mut().zip(&tri.corners) {
            let rel = *p - eye;
            let depth = rel.dot(forward);
            if depth <= 0.1 {
                behind = true;
                break;
            }
            let (x, y) = (rel.dot(right) * focal / (depth * aspect), rel.dot(cam_up) * focal / depth);
            *s = ((x * 0.5 + 0.5) * width as f64, (0.5 - y * 0.5) * height as f64, depth);
        }
        if behind {
            continue;
        }
        let min_x = screen.iter().map(|s| s.0).fold(f64::MAX, f64::min).floor().max(0.0) as usize;
        let max_x = screen.iter().map(|s| s.0).fold(f64::MIN, f64::max).ceil().min(width as f64 - 1.0);
        let min_y = screen.iter().map(|s| s.1).fold(f64::MAX, f64::min).floor().max(0.0) as usize;
        let max_y = screen.iter().map(|s| s.1).fold(f64::MIN, f64::max).ceil().min(height as f64 - 1.0);
        if max_x < 0.0 || max_y < 0.0 {
            continue;
        }
        let edge =
            |a: (f64, f64, f64), b: (f64, f64, f64), x: f64, y: f64| (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0);
        let area = edge(screen[0], screen[1], screen[2].0, screen[2].1);
        if area.abs() < 1e-12 {
            continue;
        }
        for py in min_y..=max_y as usize {
            for px in min_x..=max_x as usize {
                let (x, y) = (px as f64 + 0.5, py as f64 + 0.5);
                let w0 = edge(screen[1], screen[2], x, y) / area;
                let w1 = edge(screen[2], screen[0], x, y) / area;
                let w2 = 1.0 - w0 - w1;
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let z = w0 * screen[0].2 + w1 * screen[1].2 + w2 * screen[2].2;
                let i = py * width + px;
                if z < depth[i] {
                    depth[i] = z;
                    rgb[i * 3..][..3].copy_from_slice(&color);
                }
            }
        }
    }
    rgb
}
