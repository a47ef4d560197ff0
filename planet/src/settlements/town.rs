//! Inside a town: the building-placement reference's rules, in its order.
//!
//! 1. Two landmarks stand at the ends of the town's growth axis (the far
//!    end first, each moved in along the axis until its ground is good).
//! 2. A grid of `grid_m` squares covers the town's disc. Each square passes
//!    five gates or holds nothing: a density roll (the recipe's density times
//!    the density zones' mask), a jitter, the slope under the footprint, the
//!    height band around the plot's height (dry, above the sea), and the
//!    spacing to every building placed before it.
//! 3. A survivor's size comes from the size bands (footprint, aspect,
//!    floors, floor height), its floors scaled by the height field (taller
//!    along the growth axis), its type from the recipe's shares. Its box is
//!    grown from points along its bend before the spacing gate.
//! 4. The route (`route.rs`) runs from landmark to landmark and clears its
//!    corridor: buildings too near its centre line go, near ones are pushed out.
//!
//! Every roll is a hash of (seed, the town's cell, the square), so a town is
//! a pure function of the plan; the ground is read through a closure (the
//! terrain before any levelling).

use glam::{Vec2, Vec3};
use serde::{Deserialize, Serialize};

use super::building::{Building, BuildingCurve, BuildingKind, box_gap};
use super::route::{self, Route};
use super::sites::Settlement;
use crate::hash::{hash3, salt, signed_f32, unit_f32};
use crate::recipe::SettlementRecipe;

/// The ground a town reads at a direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundSample {
    /// Height of the terrain's surface, metres above the base radius.
    pub height_m: f32,
    /// Whether water (sea, river or lake) stands over it.
    pub wet: bool,
    /// The river or lake water drawn at this point, if any (over the ground
    /// or hidden under it): a building's levelled ground stays above it.
    pub water_m: Option<f32>,
}

/// The plane tangent to a town's centre, in metres: where its buildings are laid out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TownFrame {
    /// Unit direction of the town's centre.
    pub centre: Vec3,
    /// The plane's x axis (unit, tangent).
    pub x: Vec3,
    /// The plane's y axis (unit, tangent).
    pub y: Vec3,
    /// The planet's base radius, metres.
    pub radius_m: f32,
}

impl TownFrame {
    /// The frame at `centre`: x towards the planet's +z axis turned east (+x where the centre is a pole).
    #[must_use]
    pub fn new(centre: Vec3, radius_m: f32) -> Self {
        let pole = if centre.z.abs() > 0.99 { Vec3::X } else { Vec3::Z };
        let x = pole.cross(centre).normalize();
        Self { centre, x, y: centre.cross(x), radius_m }
    }

    /// The direction of town-local point `p` (metres).
    #[must_use]
    pub fn direction(&self, p: Vec2) -> Vec3 {
        (self.centre + (self.x * p.x + self.y * p.y) / self.radius_m).normalize()
    }

    /// The town-local point of direction `d` (the inverse of `direction`;
    /// meaningful on the town's side of the planet).
    #[must_use]
    pub fn local(&self, d: Vec3) -> Vec2 {
        let k = d.dot(self.centre).max(1e-6);
        Vec2::new(d.dot(self.x), d.dot(self.y)) * (self.radius_m / k)
    }
}

/// Why grid squares hold no building, by gate, and what the route did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TownCounts {
    /// Grid squares inside the town's disc.
    pub squares: u32,
    /// Refused by each gate: density, (jitter: never), slope, height band, spacing.
    pub refused: [u32; 5],
    /// Buildings the route removed.
    pub removed: u32,
    /// Buildings the route pushed out of its way.
    pub pushed: u32,
}

/// A town: its buildings (the two landmarks first) and its route.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Town {
    /// The settlement's cell.
    pub cell: u32,
    /// The growth axis on the town plane (unit): the height field's vector,
    /// the landmarks' line.
    pub growth: [f32; 2],
    /// Buildings; the landmarks are the first two.
    pub buildings: Vec<Building>,
    /// The route's centre line, town-local metres, from the front of one
    /// landmark to the front of the other.
    pub route: Vec<[f32; 2]>,
    /// The heights its road is levelled to, metres above the base radius:
    /// at the first landmark's centre, at each point of `route`, at the
    /// second landmark's centre.
    pub road_heights_m: Vec<f32>,
    /// Gates and route, counted.
    pub counts: TownCounts,
}

/// Everything a town is laid out from.
pub(crate) struct TownInput<'a> {
    /// The planet's seed.
    pub seed: u64,
    /// The rules.
    pub recipe: &'a SettlementRecipe,
    /// The settlement.
    pub site: &'a Settlement,
    /// Its plane.
    pub frame: TownFrame,
    /// The plot's flat radius, metres (the ground the town is sure of).
    pub plot_radius_m: f32,
    /// Lowest ground a building stands on (sea level plus the plots' height), metres.
    pub lowest_m: f32,
    /// The ground.
    pub ground: &'a dyn Fn(Vec3) -> GroundSample,
}

/// The steepest mean grade of a skirt, from a footprint's base to the terrain (about 22°).
const SKIRT_GRADE: f32 = 0.4;

/// How far a building's base stands above any water drawn under it, metres.
pub(crate) const DRY_M: f32 = 0.5;

/// Growth axes tried for one whose route is dry and needs little earthwork.
const AXIS_TRIES: i64 = 8;

impl Town {
    /// The road's line: the first landmark's centre, the route, the
    /// second's centre (the points `road_heights_m` are heights of).
    #[must_use]
    pub fn road(&self) -> Vec<Vec2> {
        (0..self.route.len() + 2).map(|k| self.road_point(k)).collect()
    }

    /// Point `k` of the road's line (0 and `route.len() + 1` are the
    /// landmarks' centres; a town always has its two landmarks).
    #[must_use]
    pub fn road_point(&self, k: usize) -> Vec2 {
        match k {
            0 => Vec2::from(self.buildings[0].centre),
            k if k <= self.route.len() => Vec2::from(self.route[k - 1]),
            _ => Vec2::from(self.buildings[1].centre),
        }
    }

    /// Lays out the town of `input.site`.
    #[must_use]
    pub(crate) fn lay_out(input: &TownInput<'_>) -> Self {
        let mut fallback = None;
        for attempt in 0..AXIS_TRIES {
            let growth = angle_vector(core::f32::consts::TAU * unit_f32(input.roll(b"t_axis", attempt, 0)));
            let landmarks = [1.0f32, -1.0].map(|end| landmark(input, growth, end, attempt));
            let spaced = box_gap(&landmarks[0].bounds, &landmarks[1].bounds) >= input.recipe.spacing_m;
            let line = Route::between(input, growth, &landmarks);
            if spaced && line.is_clear(input) {
                return Self::with_landmarks(input, growth, landmarks, &line);
            }
            fallback.get_or_insert(growth);
        }
        // No axis gave spaced landmarks and a dry route of modest earthwork:
        // landmarks on the plot itself (flat and dry by the plan), as far
        // out as their spacing needs, the route between them across it.
        let growth = fallback.expect("at least one attempt");
        let mut reach = input.plot_radius_m;
        let landmarks = loop {
            let pair = [1.0f32, -1.0].map(|end| landmark_at(input, growth, end, reach, AXIS_TRIES));
            if box_gap(&pair[0].bounds, &pair[1].bounds) >= input.recipe.spacing_m || reach >= input.site.radius_m {
                break pair;
            }
            reach += 2.0;
        };
        let line = Route::between(input, growth, &landmarks);
        Self::with_landmarks(input, growth, landmarks, &line)
    }

    fn with_landmarks(input: &TownInput<'_>, growth: Vec2, landmarks: [Building; 2], line: &Route) -> Self {
        let mut town = Self {
            cell: input.site.cell,
            growth: growth.to_array(),
            buildings: landmarks.to_vec(),
            route: line.points.iter().map(|p| p.to_array()).collect(),
            road_heights_m: line.heights_m.clone(),
            counts: TownCounts::default(),
        };
        town.fill_grid(input, growth);
        route::clear(input, line, &mut town);
        town
    }

    /// Gates 1 to 5 over every grid square, in row order.
    fn fill_grid(&mut self, input: &TownInput<'_>, growth: Vec2) {
        let r = input.recipe;
        let g = r.grid_m;
        let radius = input.site.radius_m;
        let k = (radius / g).ceil() as i64;
        for j in -k..k {
            for i in -k..k {
                let square = Vec2::new((i as f32 + 0.5) * g, (j as f32 + 0.5) * g);
                if square.length() > radius - g * 0.5 {
                    continue;
                }
                self.counts.squares += 1;
                // Gate 1: the density roll, thinned by the zones' mask.
                if unit_f32(input.roll(b"t_roll", i, j)) >= r.density * zone(input, square) {
                    self.counts.refused[0] += 1;
                    continue;
                }
                // Gate 2: the jitter.
                let jitter =
                    Vec2::new(signed_f32(input.roll(b"t_jitter", i, j)), signed_f32(input.roll(b"t_jitter", j, i)));
                let at = square + jitter * r.jitter_m;
                let mut b = building(input, growth, at, i, j);
                // Gates 3 and 4: the slope, then the height band.
                match ground_under(input, &b) {
                    Err(gate) => {
                        self.counts.refused[gate] += 1;
                        continue;
                    }
                    Ok(base) => b.base_m = base,
                }
                // Gate 5: the spacing to every building before it.
                if self.buildings.iter().any(|o| box_gap(&o.bounds, &b.bounds) < r.spacing_m) {
                    self.counts.refused[4] += 1;
                    continue;
                }
                self.buildings.push(b);
            }
        }
    }
}

impl TownInput<'_> {
    /// The hash of roll `tag` for (i, j) of this town.
    fn roll(&self, tag: &[u8], i: i64, j: i64) -> u64 {
        hash3(self.seed, salt(tag), i64::from(self.site.cell), i, j)
    }
}

fn angle_vector(a: f32) -> Vec2 {
    Vec2::new(libm::cosf(a), libm::sinf(a))
}

/// The density zones' mask at town-local `p`, in [sparse_share, 1]: a
/// two-octave noise, leaning dense towards the centre.
fn zone(input: &TownInput<'_>, p: Vec2) -> f32 {
    let r = input.recipe;
    let seed = (input.roll(b"t_zone", 0, 0) >> 32) as u32;
    let q = p / r.zone_wavelength_m;
    let n = crate::noise::gradient2(seed, q.x, q.y) * 0.7
        + crate::noise::gradient2(seed ^ 0x9e37, q.x * 2.0, q.y * 2.0) * 0.3;
    let centre = 1.0 - (p.length() / input.site.radius_m).min(1.0);
    let dense = (crate::terrain::smoothstep(-0.4, 0.4, n) * 0.6 + centre * 0.4).clamp(0.0, 1.0);
    r.sparse_share + (1.0 - r.sparse_share) * dense
}

/// The height field: buildings grow taller along the growth axis.
fn height_scale(input: &TownInput<'_>, growth: Vec2, p: Vec2) -> f32 {
    let along = (p.dot(growth) / input.site.radius_m).clamp(-1.0, 1.0);
    1.0 + input.recipe.height_gain * along
}

fn band(h: u64, span: [f32; 2]) -> f32 {
    span[0] + (span[1] - span[0]) * unit_f32(h)
}

fn band_u32(h: u64, span: [u32; 2]) -> u32 {
    span[0] + crate::hash::index(h, (span[1] - span[0] + 1) as usize) as u32
}

/// The type from the recipe's shares.
fn kind_of(input: &TownInput<'_>, h: u64) -> BuildingKind {
    crate::hash::weighted_index(h, &input.recipe.type_shares).map_or(BuildingKind::Flat, |i| BuildingKind::ALL[i])
}

/// A curve for a building of `kind` and height `height_m`.
fn curve_of(input: &TownInput<'_>, kind: BuildingKind, height_m: f32, i: i64, j: i64) -> BuildingCurve {
    if kind == BuildingKind::Flat {
        return BuildingCurve::default();
    }
    let h = |n: i64| unit_f32(input.roll(b"t_curve", i * 8 + n, j));
    let wave = if h(0) < 0.4 { 0.4 + 1.2 * h(1) } else { 0.0 };
    BuildingCurve {
        direction: angle_vector(core::f32::consts::TAU * h(2)).to_array(),
        strength_m: height_m * (0.08 + 0.14 * h(3)),
        exponent: 1.3 + 1.7 * h(4),
        wave_amplitude_m: wave,
        wave_frequency: 0.5 + 1.5 * h(5),
        wave_phase: core::f32::consts::TAU * h(6),
        profile_blend: if kind == BuildingKind::Arched { 0.75 + 0.25 * h(7) } else { 0.25 * h(7) },
    }
}

/// A grid building at town-local `at`, its size from the bands (gates not yet passed).
fn building(input: &TownInput<'_>, growth: Vec2, at: Vec2, i: i64, j: i64) -> Building {
    let r = input.recipe;
    let h = |n: i64| input.roll(b"t_size", i * 8 + n, j);
    let width = band(h(0), r.footprint_m);
    let depth = width * band(h(1), r.aspect);
    let floors = (band_u32(h(2), r.floors) as f32 * height_scale(input, growth, at)).round().clamp(1.0, 60.0) as u32;
    let floor_height = band(h(3), r.floor_height_m);
    // Square to the growth axis, turned a little.
    let quarter = if unit_f32(h(4)) < 0.5 { 0.0 } else { core::f32::consts::FRAC_PI_2 };
    let yaw = libm::atan2f(growth.y, growth.x) + quarter + 0.2 * signed_f32(h(5));
    let kind = kind_of(input, h(6));
    let curve = curve_of(input, kind, floors as f32 * floor_height, i, j);
    finish(Building {
        kind,
        landmark: false,
        centre: at.to_array(),
        yaw,
        width_m: width,
        depth_m: depth,
        floors,
        floor_height_m: floor_height,
        base_m: 0.0,
        curve,
        bounds: [0.0; 4],
    })
}

/// A building with its box grown from its bend.
fn finish(mut b: Building) -> Building {
    b.bounds = b.grown_bounds();
    b
}

/// The landmark at the `end` (+1 or -1) of the growth axis: at the town's
/// edge, moved in until its ground passes the slope and height gates (the
/// plot's edge at the innermost).
fn landmark(input: &TownInput<'_>, growth: Vec2, end: f32, attempt: i64) -> Building {
    let r = input.recipe;
    let size = r.landmark_footprint_m[1];
    let outer = input.site.radius_m - size * 0.75;
    let inner = (input.plot_radius_m - size * 0.5).max(0.0);
    let mut reach = outer;
    while reach > inner {
        let b = landmark_at(input, growth, end, reach, attempt);
        if ground_under(input, &b).is_ok() {
            return b;
        }
        reach -= 4.0;
    }
    landmark_at(input, growth, end, inner, attempt)
}

/// The landmark at `end` of the growth axis, `reach` metres from the centre.
fn landmark_at(input: &TownInput<'_>, growth: Vec2, end: f32, reach: f32, attempt: i64) -> Building {
    let r = input.recipe;
    let slot = if end > 0.0 { 1 } else { 0 };
    let h = |n: i64| input.roll(b"t_lmark", attempt * 4 + slot, n);
    let width = band(h(0), r.landmark_footprint_m);
    let kind = kind_of(input, h(1));
    let floors = band_u32(h(2), r.landmark_floors);
    let floor_height = band(h(3), r.floor_height_m);
    let at = growth * (end * reach);
    let mut b = finish(Building {
        kind,
        landmark: true,
        centre: at.to_array(),
        yaw: libm::atan2f(growth.y, growth.x),
        width_m: width,
        depth_m: width,
        floors,
        floor_height_m: floor_height,
        base_m: 0.0,
        curve: curve_of(input, kind, floors as f32 * floor_height, 1000 + slot, attempt),
        bounds: [0.0; 4],
    });
    // Where the gates fail (a town with no good axis), the landmark stands
    // on a pad at the ground under its centre, raised out of any water.
    b.base_m = ground_under(input, &b).unwrap_or_else(|_| {
        let g = (input.ground)(input.frame.direction(at));
        let floor = g.water_m.map_or(input.lowest_m, |w| input.lowest_m.max(w + DRY_M));
        g.height_m.max(floor)
    });
    b
}

/// Gates 3 and 4 for `b`: the ground under its footprint (centre and
/// corners) no steeper than the recipe allows, within the height band of
/// the plot, dry and above the lowest ground. The base it is levelled to
/// (the samples' mean), or the gate that refused it (2: slope, 3: height).
pub(crate) fn ground_under(input: &TownInput<'_>, b: &Building) -> Result<f32, usize> {
    let r = input.recipe;
    let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(x, y)| {
        let p = b.point(x, y, 0.0);
        (input.ground)(input.frame.direction(Vec2::new(p.x, p.y)))
    });
    let centre = (input.ground)(input.frame.direction(Vec2::from(b.centre)));
    let diagonal = libm::sqrtf(b.width_m * b.width_m + b.depth_m * b.depth_m);
    let rise = (corners[0].height_m - corners[2].height_m).abs().max((corners[1].height_m - corners[3].height_m).abs());
    if libm::atanf(rise / diagonal).to_degrees() > r.max_slope_deg {
        return Err(2);
    }
    let all = [centre, corners[0], corners[1], corners[2], corners[3]];
    let in_band = |s: &GroundSample| {
        !s.wet && s.height_m >= input.lowest_m && (s.height_m - input.site.height_m).abs() <= r.height_band_m
    };
    if !all.iter().all(in_band) {
        return Err(3);
    }
    let base = all.iter().map(|s| s.height_m).sum::<f32>() / all.len() as f32;
    // Where the skirt meets the terrain, the ground must be near enough the
    // base for the skirt to stay walkable (at most `SKIRT_GRADE` on average).
    let ring = (super::level::APRON_M + r.skirt_m) / (b.width_m.max(b.depth_m) * 0.5).max(1.0);
    let outer = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0), (0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0)]
        .map(|(x, y)| {
            let p = b.point(x * (1.0 + ring), y * (1.0 + ring), 0.0);
            (input.ground)(input.frame.direction(Vec2::new(p.x, p.y))).height_m
        });
    let allowed = (super::level::APRON_M + r.skirt_m) * SKIRT_GRADE;
    if outer.iter().any(|&h| (h - base).abs() > allowed) {
        return Err(2);
    }
    // Levelled to the mean, the ground must not sink under water drawn there
    // (a lake's water reaches a cell past its shore, hidden by the banks).
    if all.iter().any(|s| s.water_m.is_some_and(|w| base < w + DRY_M)) {
        return Err(3);
    }
    Ok(base)
}
