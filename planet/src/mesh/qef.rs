//! The quadratic error function of dual contouring: the point that best fits
//! a set of tangent planes (hermite data), pulled gently towards their mass
//! point so that flat or edge-only configurations stay well defined.
//!
//! Minimises Σ (nᵢ · (x − pᵢ))² + bias · |x − m|², solved as the 3x3 system
//! (AᵀA + bias·I)(x − m) = Aᵀb − AᵀA·m by LDLᵀ (no square roots, no branches on
//! rank): with a small bias, sharp corners (three independent normals) and
//! edges (two) land where the planes meet, and directions without hermite
//! information fall back to the mass point.

use glam::Vec3;

/// Accumulated hermite data of one vertex.
#[derive(Clone, Copy, Debug, Default)]
pub struct Qef {
    /// Upper triangle of AᵀA: xx, xy, xz, yy, yz, zz.
    ata: [f32; 6],
    /// Aᵀb.
    atb: Vec3,
    /// bᵀb: the sum of the squared plane offsets, for the residual.
    btb: f32,
    /// Sum of the points.
    mass: Vec3,
    /// Number of planes.
    count: u32,
}

impl Qef {
    /// Adds the tangent plane through `p` with unit normal `n`.
    #[inline]
    pub fn add(&mut self, p: Vec3, n: Vec3) {
        self.ata[0] += n.x * n.x;
        self.ata[1] += n.x * n.y;
        self.ata[2] += n.x * n.z;
        self.ata[3] += n.y * n.y;
        self.ata[4] += n.y * n.z;
        self.ata[5] += n.z * n.z;
        let offset = n.dot(p);
        self.atb += n * offset;
        self.btb += offset * offset;
        self.mass += p;
        self.count += 1;
    }

    /// The mass point (mean of the points added).
    #[must_use]
    pub fn mass_point(&self) -> Vec3 {
        self.mass / self.count.max(1) as f32
    }

    /// The root-mean-square distance from `x` to the planes.
    #[must_use]
    pub fn rms_distance(&self, x: Vec3) -> f32 {
        let [xx, xy, xz, yy, yz, zz] = self.ata;
        let ax =
            Vec3::new(xx * x.x + xy * x.y + xz * x.z, xy * x.x + yy * x.y + yz * x.z, xz * x.x + yz * x.y + zz * x.z);
        let error = x.dot(ax) - 2.0 * x.dot(self.atb) + self.btb;
        libm::sqrtf(error.max(0.0) / self.count.max(1) as f32)
    }

    /// The minimiser with mass-point `bias` (> 0).
    #[must_use]
    pub fn solve(&self, bias: f32) -> Vec3 {
        let m = self.mass_point();
        let [xx, xy, xz, yy, yz, zz] = self.ata;
        // Right-hand side relative to the mass point.
        let r = self.atb
            - Vec3::new(xx * m.x + xy * m.y + xz * m.z, xy * m.x + yy * m.y + yz * m.z, xz * m.x + yz * m.y + zz * m.z);
        // LDLᵀ of the biased, symmetric positive definite matrix.
        let (a00, a01, a02, a11, a12, a22) = (xx + bias, xy, xz, yy + bias, yz, zz + bias);
        let d0 = a00;
        let l10 = a01 / d0;
        let l20 = a02 / d0;
        let d1 = a11 - l10 * l10 * d0;
        let l21 = (a12 - l20 * l10 * d0) / d1;
        let d2 = a22 - l20 * l20 * d0 - l21 * l21 * d1;
        // L z = r, D w = z, Lᵀ y = w.
        let z0 = r.x;
        let z1 = r.y - l10 * z0;
        let z2 = r.z - l20 * z0 - l21 * z1;
        let (w0, w1, w2) = (z0 / d0, z1 / d1, z2 / d2);
        let y2 = w2;
        let y1 = w1 - l21 * y2;
        let y0 = w0 - l10 * y1 - l20 * y2;
        m + Vec3::new(y0, y1, y2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_planes_meet_at_the_corner() {
        let corner = Vec3::new(0.3, 0.7, 0.55);
        let mut q = Qef::default();
        for (n, offset) in [
            (Vec3::X, Vec3::new(0.0, 0.1, 0.2)),
            (Vec3::Y, Vec3::new(0.3, 0.0, -0.2)),
            (Vec3::Z, Vec3::new(-0.2, 0.1, 0.0)),
        ] {
            q.add(corner + offset, n);
        }
        assert!(q.solve(0.02).distance(corner) < 0.01, "{}", q.solve(0.02));
        // A slanted corner too.
        let normals = [
            Vec3::new(1.0, 0.2, 0.0).normalize(),
            Vec3::new(-0.3, 1.0, 0.1).normalize(),
            Vec3::new(0.1, -0.2, 1.0).normalize(),
        ];
        let mut q = Qef::default();
        for (i, n) in normals.iter().enumerate() {
            let t = n.any_orthonormal_vector() * (0.1 * i as f32);
            q.add(corner + t, *n);
        }
        assert!(q.solve(0.02).distance(corner) < 0.01, "{}", q.solve(0.02));
    }

    #[test]
    fn two_planes_give_the_edge_point_nearest_the_mass_point() {
        // Planes x = 0.5 and y = 0.25 meet on the line (0.5, 0.25, z).
        let mut q = Qef::default();
        q.add(Vec3::new(0.5, 0.9, 0.2), Vec3::X);
        q.add(Vec3::new(0.5, 0.1, 0.8), Vec3::X);
        q.add(Vec3::new(0.1, 0.25, 0.6), Vec3::Y);
        let x = q.solve(0.02);
        assert!((x.x - 0.5).abs() < 0.01 && (x.y - 0.25).abs() < 0.01, "{x}");
        assert!((x.z - q.mass_point().z).abs() < 1e-5, "{x}");
    }

    #[test]
    fn the_residual_is_the_distance_to_the_planes() {
        let mut q = Qef::default();
        q.add(Vec3::new(0.2, 0.5, 0.3), Vec3::Z);
        q.add(Vec3::new(0.5, 0.3, 0.2), Vec3::X);
        assert!(q.rms_distance(Vec3::new(0.5, 0.9, 0.3)) < 1e-6);
        // 0.4 off one plane and on the other: sqrt(0.16 / 2).
        assert!((q.rms_distance(Vec3::new(0.5, 0.9, 0.7)) - libm::sqrtf(0.08)).abs() < 1e-5);
    }

    #[test]
    fn one_plane_projects_the_mass_point() {
        let mut q = Qef::default();
        q.add(Vec3::new(0.2, 0.5, 0.3), Vec3::Z);
        q.add(Vec3::new(0.8, 0.1, 0.3), Vec3::Z);
        let x = q.solve(0.02);
        assert!(x.distance(Vec3::new(0.5, 0.3, 0.3)) < 1e-5, "{x}");
    }
}
