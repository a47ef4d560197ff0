//! Cell-owned features: resource deposits and cave mouths. Each lives in one
//! cell of a grid over planet space, chosen and shaped by a hash of that cell
//! alone, and placed against the exact 2D surface (`Terrain::surface_at`), so a
//! region finds exactly the features whose cells can reach into it, the same
//! ones its neighbours find (DESIGN.md, invariant 4).

use glam::Vec3;

use super::Terrain;
use crate::hash::{HashStream, hash3, salt};

/// A blob of resource material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Deposit {
    /// Centre, planet-local metres.
    pub center: Vec3,
    /// Radius, metres.
    pub radius: f32,
    /// Material id.
    pub material: u8,
}

/// A capsule of open space (a cave mouth's sphere has `a == b`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capsule {
    /// One end.
    pub a: Vec3,
    /// The other end.
    pub b: Vec3,
    /// Radius, metres.
    pub radius: f32,
}

impl Capsule {
    /// Signed distance from `p` to the capsule's surface (negative inside).
    #[inline]
    #[must_use]
    pub fn distance(&self, p: Vec3) -> f32 {
        let ab = self.b - self.a;
        let len2 = ab.length_squared();
        let t = if len2 > 0.0 { ((p - self.a).dot(ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
        libm::sqrtf((p - (self.a + ab * t)).length_squared()) - self.radius
    }

    /// Lower and upper corners of its bounding box.
    #[must_use]
    pub fn bounds(&self) -> (Vec3, Vec3) {
        (self.a.min(self.b) - Vec3::splat(self.radius), self.a.max(self.b) + Vec3::splat(self.radius))
    }
}

/// Every cell of size `cell` whose cube, grown by `reach`, meets the box [lo, hi].
fn cells_near(lo: Vec3, hi: Vec3, cell: f32, reach: f32) -> impl Iterator<Item = (i64, i64, i64)> {
    let a = ((lo - Vec3::splat(reach)) / cell).floor();
    let b = ((hi + Vec3::splat(reach)) / cell).floor();
    let (ax, ay, az) = (a.x as i64, a.y as i64, a.z as i64);
    let (bx, by, bz) = (b.x as i64, b.y as i64, b.z as i64);
    (az..=bz).flat_map(move |z| (ay..=by).flat_map(move |y| (ax..=bx).map(move |x| (x, y, z))))
}

/// The point of cell (x, y, z) at fractions `f` of its size.
fn cell_point(c: (i64, i64, i64), cell: f32, f: Vec3) -> Vec3 {
    (Vec3::new(c.0 as f32, c.1 as f32, c.2 as f32) + f) * cell
}

impl Terrain {
    /// Radius of the exact 2D surface at direction `d`, metres from the centre.
    fn surface_radius(&self, d: Vec3) -> f32 {
        self.recipe.radius_m + self.surface_at(d).surface_m
    }

    /// The deposits whose spheres may reach into the box [lo, hi].
    #[must_use]
    pub fn deposits_near(&self, lo: Vec3, hi: Vec3) -> Vec<Deposit> {
        let mut out = Vec::new();
        for (rule_index, rule) in self.recipe.resources.iter().enumerate() {
            let tag = salt(b"deposit") ^ ((rule_index as u64) << 56);
            for c in cells_near(lo, hi, rule.cell_m, rule.radius_m[1]) {
                let mut s = HashStream::new(hash3(self.seed, tag, c.0, c.1, c.2));
                if s.unit_f32() >= rule.probability {
                    continue;
                }
                let center = cell_point(c, rule.cell_m, Vec3::new(s.unit_f32(), s.unit_f32(), s.unit_f32()));
                let radius = s.range_f32(rule.radius_m[0], rule.radius_m[1]);
                let r = center.length();
                if r <= 0.0 {
                    continue;
                }
                let depth = self.surface_radius(center / r) - r;
                if (rule.depth_m[0]..=rule.depth_m[1]).contains(&depth) {
                    out.push(Deposit { center, radius, material: rule.material as u8 });
                }
            }
        }
        out
    }

    /// The open capsules of the cave mouths that may reach into [lo, hi], six
    /// each: a sphere just under the surface, a tunnel of four curving down
    /// from its centre, and a shaft rising from its centre to above any ground
    /// around it.
    #[must_use]
    pub fn cave_mouths_near(&self, lo: Vec3, hi: Vec3) -> Vec<Capsule> {
        let caves = &self.recipe.caves;
        let mut out = Vec::new();
        if !caves.enabled || caves.mouth_probability <= 0.0 {
            return out;
        }
        let shaft = caves.mouth_radius_m[1] + self.recipe.terrain.overhangs.amplitude_m + 1.0;
        let reach = caves.mouth_radius_m[1] + TUNNEL_LENGTH_M.max(shaft);
        for c in cells_near(lo, hi, caves.mouth_cell_m, reach) {
            let mut s = HashStream::new(hash3(self.seed, salt(b"mouth"), c.0, c.1, c.2));
            if s.unit_f32() >= caves.mouth_probability {
                continue;
            }
            let pick = cell_point(c, caves.mouth_cell_m, Vec3::new(s.unit_f32(), s.unit_f32(), s.unit_f32()));
            if pick.length_squared() <= 0.0 {
                continue;
            }
            let up = pick.normalize();
            let surface = up * self.surface_radius(up);
            // The cell owns the mouth only if the surface point is inside it: one mouth per place.
            let owner = (surface / caves.mouth_cell_m).floor();
            if (owner.x as i64, owner.y as i64, owner.z as i64) != c {
                continue;
            }
            let radius = s.range_f32(caves.mouth_radius_m[0], caves.mouth_radius_m[1]);
            let center = surface - up * (radius * 0.35);
            out.push(Capsule { a: center, b: center, radius });
            // A tunnel leaving the mouth at 35-65 degrees below the horizon, wandering as it goes.
            let side = up.any_orthonormal_vector();
            let side = (side * libm::cosf(s.range_f32(0.0, core::f32::consts::TAU))
                + up.cross(side) * libm::sinf(s.range_f32(0.0, core::f32::consts::TAU)))
            .normalize();
            let mut dir = (side - up * s.range_f32(0.7, 2.0)).normalize();
            let mut at = center;
            let mut r = radius * 0.6;
            for _ in 0..TUNNEL_SEGMENTS {
                let next = at + dir * (TUNNEL_LENGTH_M / TUNNEL_SEGMENTS as f32);
                out.push(Capsule { a: at, b: next, radius: r });
                at = next;
                r = (r * 0.85).max(1.5);
                let wander = up.cross(dir).normalize_or_zero() * s.range_f32(-0.5, 0.5);
                dir = (dir + wander).normalize();
            }
            // The mouth rises as a shaft to above any ground the overhang noise
            // can raise around it: a sphere alone would meet raised ground at a
            // grazing angle and leave a lip thinner than a cell (a sawtooth rim).
            // It comes last, so that callers still find the sphere first and
            // then the tunnel.
            let shaft = radius + self.recipe.terrain.overhangs.amplitude_m + 1.0;
            out.push(Capsule { a: center, b: center + up * shaft, radius });
        }
        out
    }
}

/// Length of the tunnel behind a cave mouth, metres.
const TUNNEL_LENGTH_M: f32 = 36.0;
/// Capsules along it.
const TUNNEL_SEGMENTS: usize = 4;
/// Capsules of each mouth `cave_mouths_near` lists, in order: its sphere, its
/// tunnel's segments from the mouth inwards, its shaft.
pub const CAPSULES_PER_MOUTH: usize = TUNNEL_SEGMENTS + 2;
