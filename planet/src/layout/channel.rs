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

use super::grid::{Cell, PlanGrid};
use super::index::SpatialIndex;
use super::rivers::{River, RiverPoint};
use crate::terrain::smoothstep;

/// How far the valley floor rises per metre from the channel's edge.
const FLOOR_RISE: f32 = 0.25;
/// Height of the channel's edge above the water, metres.
const BANK_M: f32 = 0.6;
/// Where the river bed's material ends, in half-widths from the centre line
/// (it fades out from 0.9).
const BED_EDGE: f32 = 1.4;
/// How far a merged segment may pass from a point of the course it stands
/// for, metres (sideways, less for a channel under 1.7 m wide; half of it
/// in water level, half-width and depth). The smoothed course has a point
/// every few metres, and on a straight or gently curving stretch most of
/// them add nothing a carve can show: merging them halves the segments
/// every column reads.
const MERGE_TOLERANCE_M: f32 = 0.25;
/// How far a merged segment's water level (and half-width, and depth) may
/// differ from a point of the course it stands for, metres.
pub const LEVEL_TOLERANCE_M: f32 = 0.5 * MERGE_TOLERANCE_M;

/// One segment of a river's course, in planet-local metres, with what the
/// carve reads of it worked out once: each value at the start and its
/// change along the segment.
#[derive(Clone, Copy, Debug)]
pub struct Segment {
    a: Vec3,
    ab: Vec3,
    /// 1 / |ab|², 0 for a segment of no length.
    inv_length2: f32,
    level: [f32; 2],
    half_width: [f32; 2],
    depth: [f32; 2],
    /// The wider of its ends' half-widths.
    widest: f32,
}

impl Segment {
    fn new(p: &RiverPoint, q: &RiverPoint, radius_m: f32) -> Self {
        let (a, b) = (p.direction * radius_m, q.direction * radius_m);
        let ab = b - a;
        let length2 = ab.length_squared();
        let along = |x: f32, y: f32| [x, y - x];
        Self {
            a,
            ab,
            inv_length2: if length2 > 0.0 { 1.0 / length2 } else { 0.0 },
            level: along(p.level_m, q.level_m),
            half_width: along(p.width_m * 0.5, q.width_m * 0.5),
            depth: along(p.depth_m, q.depth_m),
            widest: p.width_m.max(q.width_m) * 0.5,
        }
    }

    /// The fraction along the segment nearest `p`, and the squared distance to it.
    #[inline]
    fn nearest(&self, p: Vec3) -> (f32, f32) {
        let ap = p - self.a;
        let t = (ap.dot(self.ab) * self.inv_length2).clamp(0.0, 1.0);
        (t, (ap - self.ab * t).length_squared())
    }
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

/// The river segments that may reach one region's columns (ascending), or
/// `None` where each column reads its own cell's bucket. `Default` is `None`.
#[derive(Clone, Debug, Default)]
pub struct NearSegments(pub(super) Option<Vec<u32>>);

/// Every river segment with its index.
#[derive(Clone, Debug, Default)]
pub struct Channels {
    segments: Vec<Segment>,
    index: SpatialIndex,
    valley_m: f32,
    /// 1 / `valley_m` (the largest float for a valley of no width: a step).
    per_valley_m: f32,
    radius_m: f32,
}

/// How far a merged segment may pass sideways from a point of the course
/// `width_m` wide: a narrow channel moves less.
fn sideways_tolerance_m(width_m: f32) -> f32 {
    MERGE_TOLERANCE_M.min(0.15 * width_m)
}

/// The points of `points` a carve needs: both ends, and every point where
/// the straight course between its neighbours kept would pass farther than
/// the tolerance from one dropped between them (Douglas-Peucker over the
/// position, the water level, the width and the depth).
fn kept_points(points: &[RiverPoint], radius_m: f32) -> Vec<usize> {
    let Some(last) = points.len().checked_sub(1) else { return Vec::new() };
    let mut keep = vec![false; points.len()];
    keep[0] = true;
    keep[last] = true;
    let mut spans = vec![(0, last)];
    while let Some((i, k)) = spans.pop() {
        if k <= i + 1 {
            continue;
        }
        let s = Segment::new(&points[i], &points[k], radius_m);
        // The point that strays farthest past the tolerance, if any does.
        let (mut worst, mut at) = (1.0f32, None);
        for (m, r) in points.iter().enumerate().take(k).skip(i + 1) {
            let (t, dist2) = s.nearest(r.direction * radius_m);
            let lerp = |v: [f32; 2]| v[0] + v[1] * t;
            let excess = (libm::sqrtf(dist2) / sideways_tolerance_m(r.width_m))
                .max((lerp(s.level) - r.level_m).abs() / LEVEL_TOLERANCE_M)
                .max((lerp(s.half_width) - 0.5 * r.width_m).abs() / LEVEL_TOLERANCE_M)
                .max((lerp(s.depth) - r.depth_m).abs() / LEVEL_TOLERANCE_M);
            if excess > worst {
                (worst, at) = (excess, Some(m));
            }
        }
        if let Some(m) = at {
            keep[m] = true;
            spans.extend([(i, m), (m, k)]);
        }
    }
    keep.iter().enumerate().filter_map(|(i, &k)| k.then_some(i)).collect()
}

impl Channels {
    /// The segments of `rivers` (their courses merged where a carve cannot
    /// tell), indexed over `grid`, with valleys `valley_m` wide.
    #[must_use]
    pub fn new(grid: &PlanGrid, walker: &mut super::grid::Walker, rivers: &[River], valley_m: f32) -> Self {
        let r = grid.radius_m();
        let mut segments = Vec::new();
        for river in rivers {
            let kept = kept_points(&river.points, r);
            segments.extend(kept.windows(2).map(|w| Segment::new(&river.points[w[0]], &river.points[w[1]], r)));
        }
        let index = SpatialIndex::build(grid, walker, segments.len(), |i| {
            let s = &segments[i];
            let mid = s.a + s.ab * 0.5;
            let reach = s.ab.length() * 0.5 + s.widest + valley_m + MARGIN_M;
            (mid.normalize(), reach)
        });
        let per_valley_m = if valley_m > 0.0 { 1.0 / valley_m } else { f32::MAX };
        Self { segments, index, valley_m, per_valley_m, radius_m: r }
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
    pub fn at(&self, d: Vec3, cell: Cell, ground_m: f32, margin_m: f32) -> RiverSample {
        self.at_among(self.in_cell(cell), d, ground_m, margin_m)
    }

    /// The segments that may reach a point of cell `cell`, ascending.
    #[inline]
    #[must_use]
    pub fn in_cell(&self, cell: Cell) -> &[u32] {
        self.index.near(cell)
    }

    /// The segments that may reach a point within `radius_m` of unit
    /// direction `centre` on the base sphere, given every cell such a point
    /// may lie in: their buckets' segments, less those farther from the
    /// centre than their reach and the radius (1 m for rounding).
    #[must_use]
    pub fn near(&self, centre: Vec3, radius_m: f32, cells: &[Cell]) -> NearSegments {
        let mut kept = self.index.near_any(cells);
        kept.retain(|&i| self.may_reach(i, centre, radius_m));
        NearSegments(Some(kept))
    }

    /// `near` for the points within `radius_m` of unit direction `centre`,
    /// a part of the bound `region` was made for: those of its segments
    /// that may reach the part (or `None`, each column reading its cell, as before).
    #[must_use]
    pub fn narrow(&self, region: &NearSegments, centre: Vec3, radius_m: f32) -> NearSegments {
        NearSegments(
            region
                .0
                .as_ref()
                .map(|list| list.iter().copied().filter(|&i| self.may_reach(i, centre, radius_m)).collect()),
        )
    }

    /// Whether segment `i` may carve, or show water at, a point within
    /// `radius_m` of unit direction `centre` on the base sphere: whether it
    /// passes within its reach and the radius (1 m for rounding).
    fn may_reach(&self, i: u32, centre: Vec3, radius_m: f32) -> bool {
        let s = &self.segments[i as usize];
        let reach = radius_m + s.widest + self.valley_m.max(MARGIN_M) + 1.0;
        s.nearest(centre * self.radius_m).1 <= reach * reach
    }

    /// The carves and water at `d` from segments `near` (ascending), over
    /// ground `ground_m`.
    #[must_use]
    pub fn at_among(&self, near: &[u32], d: Vec3, ground_m: f32, margin_m: f32) -> RiverSample {
        let mut out = RiverSample { ground_m, valley: 0.0, bed: 0.0, water_m: None };
        let p = d * self.radius_m;
        let wide = self.valley_m.max(margin_m);
        let mut nearest = f32::MAX;
        for &i in near {
            let s = &self.segments[i as usize];
            let (t, dist2) = s.nearest(p);
            let half = s.half_width[0] + s.half_width[1] * t;
            if dist2 >= (half + wide) * (half + wide) {
                continue;
            }
            let dist = libm::sqrtf(dist2);
            let level = s.level[0] + s.level[1] * t;
            let beyond = dist - half;
            let valley = 1.0 - smoothstep(0.0, 1.0, beyond * self.per_valley_m);
            let floor = level + BANK_M + FLOOR_RISE * beyond.max(0.0);
            let mut g = ground_m - valley * (ground_m - floor).max(0.0);
            // In the channel, or over its bed's edge: distance in half-widths.
            if dist < half * BED_EDGE {
                let x = dist / half;
                if x < 1.0 {
                    let bed = level - (s.depth[0] + s.depth[1] * t);
                    g = g.min(bed + (level + BANK_M - bed) * x * x);
                }
                out.bed = out.bed.max(1.0 - smoothstep(0.0, 1.0, (x - 0.9) * (1.0 / (BED_EDGE - 0.9))));
            }
            out.ground_m = out.ground_m.min(g);
            out.valley = out.valley.max(valley);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlannedSystem;
    use crate::layout::PlanetLayout;

    /// Over every river of the five default planets, every point the merge
    /// drops lies within the tolerance of the segment that stands for it:
    /// sideways, in water level, half-width and depth; and the merge at
    /// least halves the segments (what it is for).
    #[test]
    fn merged_segments_stay_within_the_tolerance_of_every_point() {
        let (mut before, mut after, mut dropped) = (0, 0, 0);
        for plan in PlannedSystem::default_system().planets {
            let layout = PlanetLayout::build(&plan);
            let r = plan.recipe.radius_m;
            for river in &layout.rivers {
                let kept = kept_points(&river.points, r);
                assert_eq!((kept[0], kept[kept.len() - 1]), (0, river.points.len() - 1), "both ends kept");
                for w in kept.windows(2) {
                    let s = Segment::new(&river.points[w[0]], &river.points[w[1]], r);
                    for p in &river.points[w[0] + 1..w[1]] {
                        let (t, dist2) = s.nearest(p.direction * r);
                        let lerp = |v: [f32; 2]| v[0] + v[1] * t;
                        let slack = 1.0 + 1e-4;
                        assert!(libm::sqrtf(dist2) <= sideways_tolerance_m(p.width_m) * slack + 1e-4);
                        for (merged, own) in [
                            (lerp(s.level), p.level_m),
                            (lerp(s.half_width), p.width_m * 0.5),
                            (lerp(s.depth), p.depth_m),
                        ] {
                            assert!((merged - own).abs() <= LEVEL_TOLERANCE_M * slack + 1e-4, "{merged} {own}");
                        }
                        dropped += 1;
                    }
                }
                before += river.points.len() - 1;
                after += kept.len() - 1;
            }
        }
        eprintln!("{before} segments merged into {after} ({dropped} points dropped)");
        assert!(after * 2 <= before, "{before} -> {after}");
    }
}
