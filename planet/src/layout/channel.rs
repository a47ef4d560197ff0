//! What rivers and lakes do to a column: the valley and channel carves and
//! the water over them, read from the layout at any direction.
//!
//! Each river segment near the point (found through the spatial index)
//! gives a target: in its valley, ground above a gently rising floor just
//! over the water is pulled down to it, fully at the channel's edge and not
//! at all `valley_m` beyond; in its channel, a parabolic bed from the water
//! level less the depth at the centre line. The carved ground is the lowest
//! of every segment's result, so the order segments are visited in never
//! matters. Water stands at the nearest segment's level over the channel
//! (and a margin, which the banks hide), and at a lake's level over its cells.

use glam::Vec3;

use super::grid::PlanGrid;
use super::index::SpatialIndex;
use super::rivers::River;
use crate::terrain::smoothstep;

/// How far the valley floor rises per metre from the channel's edge.
const FLOOR_RISE: f32 = 0.25;
/// Height of the channel's edge above the water, metres.
const BANK_M: f32 = 0.6;

/// One segment of a river's course, in planet-local metres.
#[derive(Clone, Copy, Debug)]
pub struct Segment {
    a: Vec3,
    b: Vec3,
    /// Water level, half-width and depth at each end.
    level: [f32; 2],
    half_width: [f32; 2],
    depth: [f32; 2],
    /// Its midpoint, and the square of the distance from it beyond which no
    /// point is in its valley or its water's margin (a cheap first test).
    mid: Vec3,
    reach2: f32,
}

/// A river's effect on one column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RiverSample {
    /// The ground after the carves, metres above the base radius.
    pub ground_m: f32,
    /// How much valley, 0..=1 (1 in the channel).
    pub valley: f32,
    /// How much river bed, 0..=1.
    pub bed: f32,
    /// The water surface over the point, metres above the base radius, if any.
    pub water_m: Option<f32>,
}

/// The river segments that may reach one region's columns, found as the
/// columns meet each index bucket: the bucket's segments whose reach
/// touches the region's bound, in the bucket's order. The 2D pass reads
/// these rather than whole buckets (a bucket spans two plan cells, a LOD-0
/// region a few metres). `Default` filters nothing.
#[derive(Clone, Debug, Default)]
pub struct NearSegments {
    /// The region's bound: centre (planet-local, metres) and radius.
    bound: Option<(Vec3, f32)>,
    /// The buckets met so far, with their kept segments.
    buckets: Vec<(usize, Vec<u32>)>,
}

/// Every river segment with its index.
#[derive(Clone, Debug, Default)]
pub struct Channels {
    segments: Vec<Segment>,
    index: SpatialIndex,
    valley_m: f32,
    radius_m: f32,
}

impl Channels {
    /// The segments of `rivers`, indexed over `grid`, with valleys `valley_m`
    /// wide and water found up to `margin_m` beyond a channel.
    #[must_use]
    pub fn new(grid: &PlanGrid, walker: &mut super::grid::Walker, rivers: &[River], valley_m: f32) -> Self {
        let r = grid.radius_m();
        let mut segments = Vec::new();
        for river in rivers {
            for w in river.points.windows(2) {
                let (a, b) = (w[0].direction * r, w[1].direction * r);
                let half_width = [w[0].width_m * 0.5, w[1].width_m * 0.5];
                // Beyond half the segment's length, its widest half-width and
                // the valley (or the widest water margin) from its midpoint, a
                // point is farther than `at`'s own test lets through.
                let reach = (b - a).length() * 0.5 + half_width[0].max(half_width[1]) + valley_m.max(MARGIN_M) + 0.01;
                segments.push(Segment {
                    a,
                    b,
                    level: [w[0].level_m, w[1].level_m],
                    half_width,
                    depth: [w[0].depth_m, w[1].depth_m],
                    mid: (a + b) * 0.5,
                    reach2: reach * reach,
                });
            }
        }
        let index = SpatialIndex::build(grid, walker, segments.len(), |i| {
            let s = &segments[i];
            let mid = (s.a + s.b) * 0.5;
            let reach = (s.b - s.a).length() * 0.5 + s.half_width[0].max(s.half_width[1]) + valley_m + MARGIN_M;
            (mid.normalize(), reach)
        });
        Self { segments, index, valley_m, radius_m: r }
    }

    /// Segments held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.segments.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// The carves and water at direction `d` (in plan cell `cell`) over
    /// ground `ground_m`, with water shown up to `margin_m` beyond a channel.
    #[must_use]
    pub fn at(&self, d: Vec3, cell: u32, ground_m: f32, margin_m: f32) -> RiverSample {
        self.at_among(self.index.near(cell), d, ground_m, margin_m)
    }

    /// `at` for a column of the region `near` was made for: its cell's
    /// bucket less the segments that reach no point of the region, which
    /// gives the same sample.
    #[must_use]
    pub fn at_near(&self, near: &mut NearSegments, d: Vec3, cell: u32, ground_m: f32, margin_m: f32) -> RiverSample {
        let Some((centre, radius_m)) = near.bound else {
            return self.at(d, cell, ground_m, margin_m);
        };
        let bucket = SpatialIndex::bucket_of(cell);
        let k = match near.buckets.iter().position(|(b, _)| *b == bucket) {
            Some(k) => k,
            None => {
                let kept = self
                    .index
                    .in_bucket(bucket)
                    .iter()
                    .copied()
                    .filter(|&i| {
                        let s = &self.segments[i as usize];
                        // No point within `radius_m` of `centre` is within
                        // the segment's reach of its midpoint (1 m for rounding).
                        centre.distance(s.mid) <= libm::sqrtf(s.reach2) + radius_m + 1.0
                    })
                    .collect();
                near.buckets.push((bucket, kept));
                near.buckets.len() - 1
            }
        };
        self.at_among(&near.buckets[k].1, d, ground_m, margin_m)
    }

    /// The segments that may reach the points within `radius_m` of unit
    /// direction `centre` on the base sphere, for `at_near`.
    #[must_use]
    pub fn near(&self, centre: Vec3, radius_m: f32) -> NearSegments {
        NearSegments { bound: Some((centre * self.radius_m, radius_m)), buckets: Vec::new() }
    }

    /// The carves and water at `d` from segments `near` (ascending), over
    /// ground `ground_m`.
    fn at_among(&self, near: &[u32], d: Vec3, ground_m: f32, margin_m: f32) -> RiverSample {
        let mut out = RiverSample { ground_m, valley: 0.0, bed: 0.0, water_m: None };
        if near.is_empty() {
            return out;
        }
        let p = d * self.radius_m;
        let mut nearest = f32::MAX;
        for &i in near {
            let s = &self.segments[i as usize];
            if (p - s.mid).length_squared() > s.reach2 {
                continue;
            }
            let ab = s.b - s.a;
            let len2 = ab.length_squared();
            let t = if len2 > 0.0 { ((p - s.a).dot(ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
            let dist = libm::sqrtf((p - (s.a + ab * t)).length_squared());
            let half = s.half_width[0] + (s.half_width[1] - s.half_width[0]) * t;
            if dist >= half + self.valley_m.max(margin_m) {
                continue;
            }
            let level = s.level[0] + (s.level[1] - s.level[0]) * t;
            let bed = level - (s.depth[0] + (s.depth[1] - s.depth[0]) * t);
            let valley = 1.0 - smoothstep(half, half + self.valley_m, dist);
            let floor = level + BANK_M + FLOOR_RISE * (dist - half).max(0.0);
            let mut g = ground_m - valley * (ground_m - floor).max(0.0);
            if dist < half {
                let x = dist / half;
                g = g.min(bed + (level + BANK_M - bed) * x * x);
            }
            out.ground_m = out.ground_m.min(g);
            out.valley = out.valley.max(valley);
            out.bed = out.bed.max(1.0 - smoothstep(half * 0.9, half * 1.4, dist));
            if dist < half + margin_m && dist < nearest {
                nearest = dist;
                out.water_m = Some(level);
            }
        }
        out
    }
}

/// The most water is shown beyond a channel's edge, metres (the index's margin).
pub const MARGIN_M: f32 = 16.0;
