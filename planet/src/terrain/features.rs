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
        self.carve_bounds(0.0)
    }

    /// Lower and upper corners of the box the voxel pass carves it in: its
    /// bounding box grown by `margin` (`carve_margin_m`).
    #[must_use]
    pub fn carve_bounds(&self, margin: f32) -> (Vec3, Vec3) {
        let grow = Vec3::splat(self.radius + margin);
        (self.a.min(self.b) - grow, self.a.max(self.b) + grow)
    }
}

/// How far beyond its capsules a cave mouth still carves, for layers
/// `layer_m` thick: four layers. A carve stops where its box does, and the
/// density jumps there by as much as the ground is deeper than the capsule
/// is far; four layers out, that is only in ground at least four layers
/// deep, beyond the reach of any stencil that reads the surface. (With the
/// tight box the jump met the mouth's rim and the stencils read it as a bend.)
#[must_use]
pub fn carve_margin_m(layer_m: f32) -> f32 {
    4.0 * layer_m
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

    /// The recipe's deposit rules, rarest first (fewest bodies per cubic
    /// metre, then by index): the order deposits are listed and set in.
    #[must_use]
    pub fn deposits_by_rarity(&self) -> Vec<usize> {
        let r = &self.recipe.resources;
        let density = |i: usize| {
            let cell = f64::from(r[i].cell_m);
            f64::from(r[i].probability) / (cell * cell * cell)
        };
        let mut order: Vec<usize> = (0..r.len()).collect();
        order.sort_by(|&a, &b| density(a).total_cmp(&density(b)).then(a.cmp(&b)));
        order
    }

    /// The deposits whose spheres may reach into the box [lo, hi], rarest rule first.
    #[must_use]
    pub fn deposits_near(&self, lo: Vec3, hi: Vec3) -> Vec<Deposit> {
        let mut out = Vec::new();
        for rule_index in self.deposits_by_rarity() {
            let rule = &self.recipe.resources[rule_index];
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
            if self.levelled_near(up, radius + MOUTH_CLEAR_M) {
                continue;
            }
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

impl Terrain {
    /// Whether a town levels any ground within `reach_m` of unit direction
    /// `d` (its centre and eight points on the circle around it): a cave
    /// mouth there would open a hole in a street or under a building.
    fn levelled_near(&self, d: Vec3, reach_m: f32) -> bool {
        let side = d.any_orthonormal_vector();
        let other = d.cross(side);
        let angle = reach_m / self.recipe.radius_m;
        core::iter::once(d)
            .chain((0..8).map(|k| {
                let a = k as f32 * core::f32::consts::FRAC_PI_4;
                (d + (side * libm::cosf(a) + other * libm::sinf(a)) * angle).normalize()
            }))
            .any(|q| self.settlements.levelling_at(q).is_some())
    }

    /// The ore grade at planet-local point `p`, worked out on demand (never
    /// stored in voxels): the material of the rarest deposit holding `p` and
    /// its grade, 0 outside every body, a lean halo (0.1 to 0.25) over its
    /// outer 45% of radius and a richer core (up to 1 at the centre).
    #[must_use]
    pub fn grade_at(&self, p: Vec3) -> Option<(u8, f32)> {
        self.deposits_near(p, p).into_iter().find_map(|d| {
            let t = libm::sqrtf((p - d.center).length_squared()) / d.radius;
            (t < 1.0).then(|| (d.material, grade(t)))
        })
    }
}

/// The grade a fraction `t` of a deposit's radius from its centre.
#[must_use]
pub fn grade(t: f32) -> f32 {
    if t >= 1.0 {
        0.0
    } else if t > CORE {
        0.1 + 0.15 * (1.0 - t) / (1.0 - CORE)
    } else {
        0.25 + 0.75 * (1.0 - super::smoothstep(0.0, CORE, t))
    }
}

/// The share of a deposit's radius that is its rich core.
const CORE: f32 = 0.55;

/// Length of the tunnel behind a cave mouth, metres.
const TUNNEL_LENGTH_M: f32 = 36.0;
/// Capsules along it.
const TUNNEL_SEGMENTS: usize = 4;
/// Capsules of each mouth `cave_mouths_near` lists, in order: its sphere, its
/// tunnel's segments from the mouth inwards, its shaft.
pub const CAPSULES_PER_MOUTH: usize = TUNNEL_SEGMENTS + 2;

/// Ground kept between a cave mouth's sphere and a town's levelled ground, metres.
const MOUTH_CLEAR_M: f32 = 2.0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlannedSystem;

    #[test]
    fn grade_is_a_rich_core_in_a_lean_halo() {
        assert_eq!(grade(1.0), 0.0);
        assert_eq!(grade(2.0), 0.0);
        assert!((grade(0.0) - 1.0).abs() < 1e-6);
        let mut last = f32::MAX;
        for i in 0..100 {
            let g = grade(i as f32 / 100.0);
            assert!(g <= last + 1e-6 && g > 0.0, "grade rises outward at {i}%");
            last = g;
        }
        assert!((0.1..=0.25).contains(&grade(0.8)) && grade(0.3) > 0.5);
    }

    #[test]
    fn deposits_are_listed_rarest_first_and_graded_where_they_are() {
        let system = PlannedSystem::default_system();
        let t = Terrain::new(&system.planets[1]);
        let order = t.deposits_by_rarity();
        let r = &t.recipe.resources;
        let density = |i: usize| r[i].probability / (r[i].cell_m * r[i].cell_m * r[i].cell_m);
        assert!(order.windows(2).all(|w| density(w[0]) <= density(w[1])), "{order:?}");
        let centre = crate::terrain::lat_lon_direction(-22.3, -16.8) * (t.recipe.radius_m + 60.0);
        let near = t.deposits_near(centre - Vec3::splat(400.0), centre + Vec3::splat(400.0));
        assert!(near.len() > 20, "only {} deposits", near.len());
        // The list runs rule by rule, rarest first.
        let rank = |m: u8| order.iter().position(|&i| r[i].material as u8 == m).unwrap();
        assert!(near.windows(2).all(|w| rank(w[0].material) <= rank(w[1].material)));
        for d in &near {
            let (m, g) = t.grade_at(d.center).expect("a deposit's centre is in it");
            let first = near.iter().find(|e| (d.center - e.center).length() < e.radius).unwrap();
            assert_eq!(m, first.material, "the rarer body wins where two overlap");
            if m == d.material && first.center == d.center {
                assert!(g > 0.95, "grade {g} at a body's centre");
            }
            let outside = d.center + Vec3::X * (d.radius * 1.01);
            if near.iter().all(|e| (outside - e.center).length() >= e.radius) {
                assert_eq!(t.grade_at(outside), None);
            }
        }
    }
}
