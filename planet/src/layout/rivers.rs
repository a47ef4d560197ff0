//! Rivers, as the voxel generator routes them, on the plan grid's uncarved
//! height (never the carved height they make):
//!
//! 1. A priority flood from the sea (or, with none, from the lowest cell),
//!    over the height with a meander noise added (`meander`: a large
//!    landscape's slopes are smooth, and steepest descent on them runs
//!    straight for kilometres),
//!    gives every cell a filled level, never below its ground and never
//!    lower downstream, and a receiver one step nearer the sea. Cells the
//!    fill lifts more than `LAKE_DEPTH_M` above their ground are lakes.
//! 2. Flow accumulates against the flood order: a cell's flow is the number
//!    of cells that drain through it, so flow adds up where rivers join.
//! 3. One spring may rise in each square of the recipe's spacing, on high
//!    ground. Each is followed down its receivers until it reaches the sea, a
//!    lake, or a river traced before it, which it joins.
//! 4. A river's water level is its cells' ground less a freeboard, never
//!    rising downstream (the lowest so far), and meeting the sea level at
//!    the mouth (a lake's level, or the joined river's, at its end); its
//!    width and depth grow with the flow. The course is smoothed (Chaikin),
//!    keeping the ends and the points where tributaries join fixed.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::grid::{Cell, PLAN_CELLS, PlanGrid, Walker};
use crate::geometry::Face;
use crate::hash::{hash3, index, salt};
use crate::recipe::PlanetRecipe;

/// How far a river's water stands below the filled level of its cells, metres.
pub const FREEBOARD_M: f32 = 1.0;
/// How far the fill must lift a cell above its ground for it to be lake, metres.
pub const LAKE_DEPTH_M: f32 = FREEBOARD_M;
/// The deepest a lake stands over its basin's floor, metres.
pub const LAKE_MAX_DEPTH_M: f32 = 24.0;
/// The rise of the fill from cell to cell over flat or sunken ground, metres:
/// enough to order every route, too little to see.
const FILL_STEP_M: f32 = 2e-4;
/// No cell.
pub const NONE: u32 = u32::MAX;

/// The flood's result over every cell.
#[derive(Clone, Debug)]
pub struct Drainage {
    /// The cell each cell drains into (`NONE` for the sea and the sink).
    pub receiver: Vec<u32>,
    /// Cells draining through each cell, itself included.
    pub flow: Vec<f32>,
    /// Whether each cell is sea.
    pub sea: Vec<bool>,
    /// Each cell's lake (an index into the lakes), `NONE` for none.
    pub lake: Vec<u32>,
}

/// A lake: a basin the flood filled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lake {
    /// Water level, metres above the base radius.
    pub level_m: f32,
    /// Its cells under water, ascending.
    pub cells: Vec<Cell>,
}

/// How a river ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RiverEnd {
    /// In the sea: its last point lies in the first sea cell.
    Sea,
    /// In lake `0` (an index into the layout's lakes).
    Lake(u32),
    /// In river `river`, at its point `point` (a fixed point of both courses).
    Joins {
        /// The river joined.
        river: u32,
        /// The point of that river's smoothed course where it is joined.
        point: u32,
    },
}

/// A point of a river's course.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiverPoint {
    /// Unit direction.
    pub direction: Vec3,
    /// The water surface, metres above the base radius.
    pub level_m: f32,
    /// Channel width, metres.
    pub width_m: f32,
    /// Channel depth under the water surface, metres.
    pub depth_m: f32,
    /// Plan cells draining through it.
    pub flow: f32,
}

/// One river, spring first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct River {
    /// The smoothed course.
    pub points: Vec<RiverPoint>,
    /// Where it ends.
    pub end: RiverEnd,
    /// Length along the course, metres.
    pub length_m: f32,
}

/// Largest height the meander noise adds to the routing height, metres.
const MEANDER_M: f32 = 5.0;
/// Its wavelength, metres.
const MEANDER_WAVELENGTH_M: f32 = 220.0;

/// The height rivers are routed over: `height` plus a meander
/// noise, so that courses wind. The water levels still follow `height`.
#[must_use]
pub fn meander(grid: &PlanGrid, seed: u64, height: &[f32], threads: usize) -> Vec<f32> {
    let noise =
        crate::recipe::NoiseRecipe { wavelength_m: MEANDER_WAVELENGTH_M, octaves: 1, lacunarity: 2.0, gain: 0.5 };
    let fractal = noise.fractal(crate::hash::noise_seed(seed, salt(b"meander")));
    let scale = grid.radius_m() / MEANDER_WAVELENGTH_M;
    super::share::map(height.len(), threads, |c| {
        height[c] + MEANDER_M * fractal.fbm3_octaves::<crate::noise::Gradient>(grid.centre(c as Cell) * scale, 1)
    })
}

/// The priority flood over ground `height`, lakes included.
#[must_use]
pub fn drain(grid: &PlanGrid, walker: &mut Walker, recipe: &PlanetRecipe, height: &[f32]) -> (Drainage, Vec<Lake>) {
    let n = grid.len();
    let sea_level = recipe.sea.enabled.then_some(recipe.sea.level_m);
    let mut sea = vec![false; n];
    let mut filled = height.to_vec();
    let mut receiver = vec![NONE; n];
    let mut done = vec![false; n];
    // The queue: buckets of one centimetre of level (Dial's algorithm), first
    // in, first out within a bucket: a fixed order, and no heap.
    let lowest = height.iter().copied().fold(f32::MAX, f32::min).min(sea_level.unwrap_or(f32::MAX));
    // The sea may stand over every cell (a drowned planet): its level needs a bucket too.
    let highest = height.iter().copied().fold(f32::MIN, f32::max).max(sea_level.unwrap_or(f32::MIN));
    let bucket_of = |level: f32| ((level - lowest) * 100.0) as usize;
    let mut queue = BucketQueue::new(bucket_of(highest) + 2, n);
    if let Some(level) = sea_level {
        for c in 0..n {
            if height[c] < level {
                sea[c] = true;
                filled[c] = level;
                done[c] = true;
                queue.push(bucket_of(level), c as u32);
            }
        }
    }
    if queue.is_empty() {
        // No sea: everything drains to the lowest cell, a lake.
        let low = (0..n).min_by(|&a, &b| height[a].total_cmp(&height[b]).then(a.cmp(&b))).unwrap_or(0);
        done[low] = true;
        queue.push(bucket_of(height[low]), low as u32);
    }
    let mut order = Vec::with_capacity(n);
    let last = queue.buckets() - 1;
    for b in 0..queue.buckets() {
        let mut at = queue.first(b);
        while let Some(c) = at {
            order.push(c);
            let f = filled[c as usize];
            for m in grid.neighbours(c) {
                if done[m as usize] {
                    continue;
                }
                done[m as usize] = true;
                let level = height[m as usize].max(f + FILL_STEP_M);
                filled[m as usize] = level;
                receiver[m as usize] = c;
                // Never into a bucket already passed (a filled level a hair over the last).
                queue.push(bucket_of(level).clamp(b, last), m);
            }
            // Read after the neighbours: those pushed into this bucket follow.
            at = queue.after(c);
        }
    }
    let mut flow = vec![1.0f32; n];
    for &c in order.iter().rev() {
        let r = receiver[c as usize];
        if r != NONE {
            flow[r as usize] += flow[c as usize];
        }
    }
    // Lakes only where water runs: a planet without rivers fills no basins.
    let rivers_on = recipe.terrain.rivers.enabled;
    let wet = |c: Cell| rivers_on && !sea[c as usize] && filled[c as usize] - height[c as usize] > LAKE_DEPTH_M;
    let mut lake = vec![NONE; n];
    let mut lakes = Vec::new();
    for c in 0..n as Cell {
        if lake[c as usize] != NONE || !wet(c) {
            continue;
        }
        let id = lakes.len() as u32;
        let mut cells = Vec::new();
        walker.walk(grid, c, wet, |m| cells.push(m));
        cells.sort_unstable();
        // The fill's level, but never more than `LAKE_MAX_DEPTH_M` over the
        // basin's floor: a wide basin (a sea-less planet's) holds a lake at
        // its bottom, not one to its rim. Rivers end where they enter the basin.
        let spill = cells.iter().map(|&m| filled[m as usize]).fold(f32::MAX, f32::min);
        let floor = cells.iter().map(|&m| height[m as usize]).fold(f32::MAX, f32::min);
        let level_m = spill.min(floor + LAKE_MAX_DEPTH_M);
        for &m in &cells {
            lake[m as usize] = id;
        }
        cells.retain(|&m| height[m as usize] < level_m);
        lakes.push(Lake { level_m, cells });
    }
    (Drainage { receiver, flow, sea, lake }, lakes)
}

/// The flood's queue: per bucket a first-in, first-out list threaded
/// through the cells (each cell enters the queue once), so a flood over
/// hundreds of thousands of one-centimetre buckets allocates three arrays
/// rather than a list per bucket.
struct BucketQueue {
    head: Vec<u32>,
    tail: Vec<u32>,
    next: Vec<u32>,
}

impl BucketQueue {
    fn new(buckets: usize, cells: usize) -> Self {
        Self { head: vec![NONE; buckets], tail: vec![NONE; buckets], next: vec![NONE; cells] }
    }

    fn buckets(&self) -> usize {
        self.head.len()
    }

    fn is_empty(&self) -> bool {
        self.head.iter().all(|&h| h == NONE)
    }

    /// Appends cell `c` (never queued before) to bucket `b`.
    fn push(&mut self, b: usize, c: u32) {
        match self.tail[b] {
            NONE => self.head[b] = c,
            t => self.next[t as usize] = c,
        }
        self.tail[b] = c;
    }

    fn first(&self, b: usize) -> Option<u32> {
        (self.head[b] != NONE).then_some(self.head[b])
    }

    /// The cell queued after `c` in its bucket, as the list stands now.
    fn after(&self, c: u32) -> Option<u32> {
        let n = self.next[c as usize];
        (n != NONE).then_some(n)
    }
}

/// A river's course through cells before smoothing.
struct Course {
    cells: Vec<Cell>,
    end: RiverEnd,
}

/// The springs: at most one per square of the spacing, on high dry ground.
fn springs(grid: &PlanGrid, recipe: &PlanetRecipe, seed: u64, height: &[f32], d: &Drainage) -> Vec<Cell> {
    let rivers = &recipe.terrain.rivers;
    let block = ((rivers.spring_spacing_m / grid.cell_m()) as i32).clamp(2, PLAN_CELLS);
    let blocks = (PLAN_CELLS + block - 1) / block;
    let sea = if recipe.sea.enabled { recipe.sea.level_m } else { height.iter().copied().fold(f32::MAX, f32::min) };
    let mut out = Vec::new();
    for face in Face::ALL {
        for by in 0..blocks {
            for bx in 0..blocks {
                let h = hash3(seed, salt(b"spring"), i64::from(face.index()), i64::from(bx), i64::from(by));
                let pick = index(h, (block * block) as usize) as i32;
                let (x, y) = (bx * block + pick % block, by * block + pick / block);
                if x >= PLAN_CELLS || y >= PLAN_CELLS {
                    continue;
                }
                let c = PlanGrid::index(face, x, y);
                let dry = !d.sea[c as usize] && d.lake[c as usize] == NONE;
                if dry && height[c as usize] - sea >= rivers.spring_min_m {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// Every spring's course, in spring order; a course that reaches an earlier
/// one joins it there. Courses shorter than the recipe's least length are dropped.
fn courses(grid: &PlanGrid, recipe: &PlanetRecipe, springs: &[Cell], d: &Drainage) -> Vec<Course> {
    let min_cells = (recipe.terrain.rivers.min_length_m / grid.cell_m()).ceil() as usize;
    let mut owner = vec![NONE; grid.len()];
    let mut at = vec![0u32; grid.len()];
    let mut out: Vec<Course> = Vec::new();
    for &spring in springs {
        if owner[spring as usize] != NONE {
            continue;
        }
        let mut cells = vec![spring];
        let mut c = spring;
        let end = loop {
            let r = d.receiver[c as usize];
            if r == NONE {
                // The sink of a planet without a sea: its lake.
                break d.lake.get(c as usize).copied().filter(|&l| l != NONE).map(RiverEnd::Lake);
            }
            c = r;
            cells.push(c);
            // An earlier river's course, its mouth included: join it there.
            if owner[c as usize] != NONE {
                break Some(RiverEnd::Joins { river: owner[c as usize], point: at[c as usize] });
            }
            if d.sea[c as usize] {
                break Some(RiverEnd::Sea);
            }
            if d.lake[c as usize] != NONE {
                break Some(RiverEnd::Lake(d.lake[c as usize]));
            }
        };
        let Some(end) = end else { continue };
        if cells.len() < min_cells.max(3) {
            continue;
        }
        let id = out.len() as u32;
        let own = if matches!(end, RiverEnd::Joins { .. }) { cells.len() - 1 } else { cells.len() };
        for (i, &m) in cells[..own].iter().enumerate() {
            owner[m as usize] = id;
            at[m as usize] = i as u32;
        }
        out.push(Course { cells, end });
    }
    out
}

/// Width and depth for a flow: from the recipe's spring values to its largest
/// at 2^14 cells, growing with the logarithm of the flow.
fn size_for(recipe: &PlanetRecipe, flow: f32) -> (f32, f32) {
    let r = &recipe.terrain.rivers;
    let t = (libm::log2f(flow.max(1.0)) / 14.0).clamp(0.0, 1.0);
    (r.width_m[0] + (r.width_m[1] - r.width_m[0]) * t, r.depth_m[0] + (r.depth_m[1] - r.depth_m[0]) * t)
}

/// The rivers of a planet from its drainage.
#[must_use]
pub fn rivers(
    grid: &PlanGrid,
    recipe: &PlanetRecipe,
    seed: u64,
    height: &[f32],
    d: &Drainage,
    lakes: &[Lake],
) -> Vec<River> {
    if !recipe.terrain.rivers.enabled {
        return Vec::new();
    }
    let springs = springs(grid, recipe, seed, height, d);
    let courses = courses(grid, recipe, &springs, d);
    let sea = recipe.sea.enabled.then_some(recipe.sea.level_m);
    // Raw points, with the water level never rising downstream.
    let mut raw: Vec<Vec<RiverPoint>> = Vec::with_capacity(courses.len());
    for course in &courses {
        let mut points = Vec::with_capacity(course.cells.len());
        let mut level = f32::MAX;
        for (i, &c) in course.cells.iter().enumerate() {
            let last = i + 1 == course.cells.len();
            let mut l = height[c as usize] - FREEBOARD_M;
            if last {
                l = match course.end {
                    RiverEnd::Sea => sea.unwrap_or(l),
                    RiverEnd::Lake(k) => lakes[k as usize].level_m.min(l),
                    RiverEnd::Joins { river, point } => raw[river as usize][point as usize].level_m,
                };
            }
            if let Some(s) = sea {
                l = l.max(s);
            }
            level = level.min(l);
            let (width_m, depth_m) = size_for(recipe, d.flow[c as usize]);
            points.push(RiverPoint {
                direction: grid.centre(c),
                level_m: level,
                width_m,
                depth_m,
                flow: d.flow[c as usize],
            });
        }
        raw.push(points);
    }
    // Fixed points: both ends, and every point a tributary joins.
    let mut fixed: Vec<Vec<bool>> = raw
        .iter()
        .map(|p| {
            let mut f = vec![false; p.len()];
            f[0] = true;
            f[p.len() - 1] = true;
            f
        })
        .collect();
    for course in &courses {
        if let RiverEnd::Joins { river, point } = course.end {
            fixed[river as usize][point as usize] = true;
        }
    }
    // Smooth each course; the joined points move to their new place in the course.
    let smoothed: Vec<(Vec<RiverPoint>, Vec<u32>)> = raw.iter().zip(&fixed).map(|(p, f)| chaikin(p, f, 2)).collect();
    courses
        .iter()
        .zip(&smoothed)
        .map(|(course, (points, _))| {
            let end = match course.end {
                RiverEnd::Joins { river, point } => {
                    RiverEnd::Joins { river, point: smoothed[river as usize].1[point as usize] }
                }
                other => other,
            };
            let length_m = points.windows(2).map(|w| grid.distance_m(w[0].direction, w[1].direction)).sum();
            River { points: points.clone(), end, length_m }
        })
        .collect()
}

/// `iterations` rounds of Chaikin's corner cutting, keeping the `fixed`
/// points; also where each raw point went (meaningful for fixed ones).
fn chaikin(points: &[RiverPoint], fixed: &[bool], iterations: usize) -> (Vec<RiverPoint>, Vec<u32>) {
    let mut p = points.to_vec();
    let mut keep = fixed.to_vec();
    let mut place: Vec<u32> = (0..points.len() as u32).collect();
    for _ in 0..iterations {
        let mut q = Vec::with_capacity(p.len() * 2);
        let mut k = Vec::with_capacity(p.len() * 2);
        let mut moved = vec![0u32; p.len()];
        for i in 0..p.len() {
            if keep[i] {
                moved[i] = q.len() as u32;
                q.push(p[i]);
                k.push(true);
            }
            if i + 1 < p.len() {
                q.push(lerp(&p[i], &p[i + 1], 0.25));
                q.push(lerp(&p[i], &p[i + 1], 0.75));
                k.extend([false, false]);
            }
        }
        for slot in &mut place {
            *slot = moved[*slot as usize];
        }
        p = q;
        keep = k;
    }
    (p, place)
}

/// The point a fraction `t` of the way from `a` to `b`.
fn lerp(a: &RiverPoint, b: &RiverPoint, t: f32) -> RiverPoint {
    let mix = |x: f32, y: f32| x * (1.0 - t) + y * t;
    RiverPoint {
        direction: (a.direction * (1.0 - t) + b.direction * t).normalize(),
        level_m: mix(a.level_m, b.level_m),
        width_m: mix(a.width_m, b.width_m),
        depth_m: mix(a.depth_m, b.depth_m),
        flow: mix(a.flow, b.flow),
    }
}
