//! Physics queries over the ready regions of a planet: a ray cast, the ground
//! under a point along the local gravity, and sphere and capsule sweeps, each
//! against every region's collider (`planet::physics::Collider`: triangles
//! with a bounding volume hierarchy) that a bounding sphere test lets through. Space is
//! planet-local (metres from the planet's centre, f64); each region is asked
//! in its own f32 frame, relative to its origin, so precision never depends on
//! where on the planet the query is.
//!
//! [`Colliders::shown`] takes the regions a streamer shows: an exact cover of
//! the planet, so every point of the ground is answered by one LOD. Those
//! within the streamer's physics range (`StreamSettings::physics_range_m`)
//! hold their colliders; farther ones have none, and answer nothing. [`Walker`] walks on them,
//! and only on the fine ones ([`Colliders::walkable`]): ground coarser than
//! [`WALK_MAX_LOD`] lies metres to tens of metres off the true surface (it
//! has no small caves at all), so a walker waits in the air over it, as it
//! waits where no collider is ready, until the finer regions stream in.

mod walker;

use std::sync::Arc;

use glam::{DVec3, Vec3};
use planet::RegionKey;
use planet::physics::Collider;
use planet::physics::parry3d::math::Vector;
use planet::physics::parry3d::query::ShapeCastOptions;
use planet::physics::parry3d::shape::{Ball, Capsule, Shape};

pub use walker::{WalkInput, WalkSettings, Walker};

use crate::builder::{BuiltRegion, RegionBuilder};
use crate::streamer::Streamer;

/// Where a ray or a sweep met a collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Distance along the ray, or the fraction of the sweep's motion done.
    pub distance: f64,
    /// The point hit, planet-local.
    pub point: DVec3,
    /// The surface's unit normal there, facing the ray or the swept shape.
    pub normal: DVec3,
    /// The region hit.
    pub region: RegionKey,
    /// Whether it met the surface's outer side, from the air (a ray that
    /// meets the back of a surface started inside the ground).
    pub front: bool,
    /// Whether it met a scatter object (a trunk, a boulder), not the ground.
    pub object: bool,
}

/// The coarsest LOD a walker stands on. Around a settled camera the ground
/// is LOD 0; LOD 1 lets a walker cross the LOD-0 cover's edge, where the two
/// meshes of one ground differ by at most half a LOD-1 cell.
pub const WALK_MAX_LOD: u8 = 1;

struct Entry {
    region: Arc<BuiltRegion>,
    centre: DVec3,
    radius: f64,
}

/// The colliders of a set of regions of one planet.
#[derive(Default)]
pub struct Colliders {
    entries: Vec<Entry>,
    /// Shown regions too coarse to stand on ([`Colliders::walkable`]): only
    /// asked whether ground lies below, and how far.
    coarse: Vec<Entry>,
    /// A LOD-0 cell's width, metres (a LOD-n cell is 2^n of them).
    cell0_m: f64,
}

impl std::fmt::Debug for Colliders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Colliders").field("regions", &self.entries.len()).field("coarse", &self.coarse.len()).finish()
    }
}

fn v(p: Vec3) -> Vector {
    Vector::new(p.x, p.y, p.z)
}

fn d(p: Vector) -> DVec3 {
    DVec3::new(f64::from(p.x), f64::from(p.y), f64::from(p.z))
}

/// The regions of `regions` with a collider, in key order.
fn entries(regions: impl IntoIterator<Item = Arc<BuiltRegion>>) -> Vec<Entry> {
    let mut entries: Vec<Entry> = regions
        .into_iter()
        .filter_map(|region| {
            let collider = region.collider.as_ref()?;
            let (lo, hi) = collider.bounds()?;
            let (lo, hi) = (lo.as_dvec3(), hi.as_dvec3());
            let centre = collider.origin + (lo + hi) * 0.5;
            let radius = (hi - lo).length() * 0.5 + 1e-3;
            Some(Entry { region, centre, radius })
        })
        .collect();
    entries.sort_by_key(|e| e.region.key);
    entries
}

/// The regions of `entries` whose bounds the segment from `from` along
/// `dir` (unit) for `length`, fattened by `fat`, may touch.
fn along(
    entries: &[Entry],
    from: DVec3,
    dir: DVec3,
    length: f64,
    fat: f64,
) -> impl Iterator<Item = (&Entry, &Collider)> {
    entries.iter().filter_map(move |e| {
        let t = (e.centre - from).dot(dir).clamp(0.0, length);
        let near = from + dir * t;
        let r = e.radius + fat;
        if near.distance_squared(e.centre) > r * r {
            return None;
        }
        Some((e, e.region.collider.as_ref()?))
    })
}

/// The first surface of `entries` along a ray (see [`Colliders::ray_cast`]).
fn ray_cast(entries: &[Entry], origin: DVec3, dir: DVec3, max: f64) -> Option<Hit> {
    let dir = dir.normalize_or_zero();
    if dir == DVec3::ZERO || max.is_nan() || max <= 0.0 || !origin.is_finite() {
        return None;
    }
    let mut best: Option<Hit> = None;
    for (e, collider) in along(entries, origin, dir, max, 0.0) {
        let local = (origin - collider.origin).as_vec3();
        let limit = best.map_or(max, |b| b.distance) as f32;
        if let Some(hit) = collider.cast_ray(local, dir.as_vec3(), limit) {
            let distance = f64::from(hit.distance);
            if best.is_none_or(|b| distance < b.distance) {
                let normal = hit.normal.as_dvec3().normalize_or(-dir);
                let (point, region, front) = (origin + dir * distance, e.region.key, hit.front);
                best = Some(Hit { distance, point, normal, region, front, object: hit.object });
            }
        }
    }
    best
}

impl Colliders {
    /// The colliders of `regions` (those without one are left out).
    #[must_use]
    pub fn new(regions: impl IntoIterator<Item = Arc<BuiltRegion>>) -> Self {
        Self { entries: entries(regions), ..Self::default() }
    }

    /// The colliders of the regions `streamer` shows.
    #[must_use]
    pub fn shown<B: RegionBuilder>(streamer: &Streamer<B>) -> Self {
        Self::new(streamer.shown_regions())
    }

    /// The colliders of the regions `streamer` shows at [`WALK_MAX_LOD`]
    /// or finer: the ground a walker stands on. The coarser ones are kept
    /// aside for [`Colliders::coarse_ground_below`].
    #[must_use]
    pub fn walkable<B: RegionBuilder>(streamer: &Streamer<B>) -> Self {
        Self::walkable_of(streamer, streamer.shown_regions())
    }

    /// [`Colliders::walkable`] of the regions whose columns may reach within
    /// `reach_m` of planet-local `point`: what a few queries near one
    /// place need, without gathering the whole planet's shown regions.
    #[must_use]
    pub fn walkable_near<B: RegionBuilder>(streamer: &Streamer<B>, point: DVec3, reach_m: f64) -> Self {
        Self::walkable_of(streamer, streamer.shown_regions_near(point, reach_m))
    }

    /// `regions` of `streamer`'s planet split into those fine enough to
    /// stand on and the coarser ones.
    fn walkable_of<B: RegionBuilder>(streamer: &Streamer<B>, regions: impl Iterator<Item = Arc<BuiltRegion>>) -> Self {
        let (fine, coarse): (Vec<_>, Vec<_>) = regions.partition(|r| r.key.lod <= WALK_MAX_LOD);
        let cell0_m = f64::from(streamer.terrain().grid.cell_m(0));
        Self { entries: entries(fine), coarse: entries(coarse), cell0_m }
    }

    /// Regions with a collider (not counting those too coarse to stand on).
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The first surface along the ray from `origin` in direction `dir`
    /// within `max` metres (either side of a triangle counts).
    #[must_use]
    pub fn ray_cast(&self, origin: DVec3, dir: DVec3, max: f64) -> Option<Hit> {
        ray_cast(&self.entries, origin, dir, max)
    }

    /// The ground under `point` (along the local gravity, within `max`
    /// metres) among the shown regions too coarse to stand on, and how far
    /// off the true surface it may lie: two of its cells.
    #[must_use]
    pub fn coarse_ground_below(&self, point: DVec3, max: f64) -> Option<(Hit, f64)> {
        let hit = ray_cast(&self.coarse, point, -point.normalize_or_zero(), max)?;
        Some((hit, 2.0 * self.cell0_m * f64::from(1u32 << hit.region.lod.min(30))))
    }

    /// The ground under `point` along the local gravity (towards the
    /// planet's centre), within `max` metres below it: the first surface a
    /// ray from `point` straight down meets.
    #[must_use]
    pub fn ground_below(&self, point: DVec3, max: f64) -> Option<Hit> {
        self.ray_cast(point, -point.normalize_or_zero(), max)
    }

    /// Height of `point` above the ground under it (negative below it),
    /// looking for the ground from `above` metres over the point down to
    /// `below` metres under it.
    #[must_use]
    pub fn height_above_ground(&self, point: DVec3, above: f64, below: f64) -> Option<f64> {
        let up = point.normalize_or_zero();
        self.ground_below(point + up * above, above + below).map(|h| h.distance - above)
    }

    /// Sweeps a sphere of `radius` centred at `centre` through `motion`: the
    /// first contact, as a fraction of the motion, with the normal pointing
    /// from the surface to the sphere.
    #[must_use]
    pub fn sweep_sphere(&self, centre: DVec3, radius: f64, motion: DVec3) -> Option<Hit> {
        self.sweep(centre, &Ball::new(radius as f32), radius, motion)
    }

    /// Sweeps a capsule whose axis runs from `a` to `b`, of `radius`, through
    /// `motion` (see [`Colliders::sweep_sphere`]).
    #[must_use]
    pub fn sweep_capsule(&self, a: DVec3, b: DVec3, radius: f64, motion: DVec3) -> Option<Hit> {
        let centre = (a + b) * 0.5;
        let half = ((b - a) * 0.5).as_vec3();
        let capsule = Capsule::new(v(-half), v(half), radius as f32);
        self.sweep(centre, &capsule, radius + f64::from(half.length()), motion)
    }

    fn sweep(&self, centre: DVec3, shape: &dyn Shape, bound: f64, motion: DVec3) -> Option<Hit> {
        let length = motion.length();
        if !centre.is_finite() || !motion.is_finite() {
            return None;
        }
        let dir = if length > 0.0 { motion / length } else { DVec3::X };
        let options = ShapeCastOptions {
            max_time_of_impact: 1.0,
            target_distance: 0.0,
            stop_at_penetration: false,
            compute_impact_geometry_on_penetration: true,
        };
        let mut best: Option<Hit> = None;
        for (e, collider) in along(&self.entries, centre, dir, length, bound) {
            let local = (centre - collider.origin).as_vec3();
            let hit = collider.cast_shape(local, motion.as_vec3(), shape, bound as f32, options);
            if let Some((hit, triangle)) = hit {
                let t = f64::from(hit.time_of_impact);
                if best.is_none_or(|b| t < b.distance) {
                    let normal = -d(hit.normal1).normalize_or(-dir);
                    let point = collider.origin + d(hit.witness2);
                    let object = collider.is_object(triangle);
                    best = Some(Hit { distance: t, point, normal, region: e.region.key, front: true, object });
                }
            }
        }
        best
    }
}
