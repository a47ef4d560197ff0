//! The planet layout: a small plan made once from the planet's recipe,
//! before any region exists, that every region then samples (the planet-plan
//! issue; the reference generators' "plan"). `PlanetPlan` -> `PlanetLayout`
//! is a stage of the top-down chain like the others: a pure function of the
//! plan, serde, dumped and replayed.
//!
//! Made on the coarse plan grid (`grid.rs`, 256² cells a face), in order:
//! the tectonic value and uncarved height of every cell; the mountain belts'
//! mask, skeleton and stamps (`belts.rs`, `stamp.rs`); the drainage, lakes
//! and rivers on the height with the stamps (`rivers.rs`); the distances to
//! the sea and to water (`coast.rs`); the plots (`plots.rs`). `Layout` holds
//! the layout with the indexes regions read it through (`index.rs`,
//! `channel.rs`).

mod belts;
mod channel;
mod coast;
mod grid;
mod index;
mod plots;
mod rivers;
mod share;
mod stamp;

pub use channel::{Channels, LEVEL_TOLERANCE_M, MARGIN_M, NearSegments, RiverSample};
pub use coast::COAST_STEP_M;
pub use grid::{Cell, PLAN_CELLS, PlanGrid};
pub use plots::{MIN_REACH_CELLS, Plot};
pub use rivers::{FREEBOARD_M, Lake, River, RiverEnd, RiverPoint};
pub use stamp::{Stamp, StampSample};

use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::geometry::PlanetGrid;
use crate::plan::PlanetPlan;
use crate::signature::Signature;
use crate::terrain::{Fields, Terrain};
use grid::Walker;
use index::SpatialIndex;

/// The parts of the layout, in the order they are made (`build_observed`
/// names each as it finishes).
pub const PARTS: [&str; 6] = ["relief", "belts", "height", "rivers", "coast", "plots"];

/// A planet's layout: what the plan decided, in plan-grid cells and directions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanetLayout {
    /// Plan cells along a face's side.
    pub cells_per_face: u32,
    /// The planet's base radius, metres (the grid's size).
    pub radius_m: f32,
    /// How far a river's valley reaches beyond its channel, metres (the recipe's).
    pub valley_m: f32,
    /// The mountain stamps, in placement order.
    pub stamps: Vec<Stamp>,
    /// The belts' skeleton cells, ascending.
    pub skeleton: Vec<Cell>,
    /// Cells of the belt mask.
    pub mask_cells: u32,
    /// The rivers, in spring order (a tributary after the river it joins).
    pub rivers: Vec<River>,
    /// The lakes.
    pub lakes: Vec<Lake>,
    /// The buildable plots.
    pub plots: Vec<Plot>,
    /// Every cell's distance to the sea, in `COAST_STEP_M` steps.
    pub coast: Vec<u8>,
}

/// Figures of a layout, for `planet plan` and the tests.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LayoutFigures {
    /// Stamps.
    pub stamps: usize,
    /// Skeleton cells.
    pub skeleton_cells: usize,
    /// Mask cells.
    pub mask_cells: u32,
    /// Rivers.
    pub rivers: usize,
    /// Rivers ending in the sea, in a lake, and joining another.
    pub river_ends: [usize; 3],
    /// Total length of every river, metres.
    pub river_length_m: f32,
    /// The longest river, metres.
    pub longest_river_m: f32,
    /// Lakes, and the cells they cover.
    pub lakes: usize,
    /// Lake cells.
    pub lake_cells: usize,
    /// Plots.
    pub plots: usize,
}

impl PlanetLayout {
    /// The layout of a planet.
    #[must_use]
    pub fn build(plan: &PlanetPlan) -> Self {
        Self::build_observed(plan, &mut |_| {})
    }

    /// The layout, calling `done(part)` as each of `PARTS` finishes (so a
    /// caller with a clock can time them; this crate has none).
    pub fn build_observed(plan: &PlanetPlan, done: &mut dyn FnMut(&'static str)) -> Self {
        Self::build_with_scaffold(plan, done, share::threads()).0
    }

    /// The layout and what indexing it needs again (`Layout::build` keeps
    /// them rather than making them a second time).
    /// `threads` share the per-cell work (`share.rs`: the same bits on any number).
    fn build_with_scaffold(plan: &PlanetPlan, done: &mut dyn FnMut(&'static str), threads: usize) -> (Self, Scaffold) {
        let recipe = &plan.recipe;
        let grid = PlanGrid::new(&PlanetGrid::of_radius(recipe.radius_m));
        let fields = Fields::new(plan.seed, recipe);
        let mut walker = Walker::new(grid.len());
        // The height with the octaves the regions' smooth fields keep at LOD 0
        // (rivers' levels follow it: it must be the ground's), the belt mask's
        // ridges without those finer than eight plan cells (a mask's edge).
        let fine_m = Terrain::lattice_cell_m(&PlanetGrid::new(recipe), 0);
        let ridge_m = grid.cell_m() * 4.0;
        let (base, tectonic) = relief(&grid, &fields, fine_m, ridge_m, threads);
        done("relief");
        let mask = belts::mask(recipe, &tectonic);
        let mask_cells = mask.iter().filter(|&&m| m).count() as u32;
        let skeleton = belts::skeleton(&grid, &mask);
        let stamps = belts::stamps(&grid, &mut walker, recipe, plan.seed, &skeleton, &tectonic);
        done("belts");
        let stamp_index = stamp_index(&grid, &mut walker, &stamps);
        let height = share::map(grid.len(), threads, |c| {
            base[c] + stamps_at(&stamps, &stamp_index, &grid, grid.centre(c as Cell), c as Cell).height_m
        });
        done("height");
        let route = rivers::meander(&grid, plan.seed, &height, threads);
        let (drainage, lakes) = rivers::drain(&grid, &mut walker, recipe, &route);
        let river_list = rivers::rivers(&grid, recipe, plan.seed, &height, &drainage, &lakes);
        done("rivers");
        let beach_cap = (recipe.surface.beach_length_m + COAST_STEP_M * 2.0).min(COAST_STEP_M * 255.0);
        let mut river_cell = vec![false; grid.len()];
        for r in &river_list {
            for p in &r.points {
                river_cell[grid.cell_of(p.direction) as usize] = true;
            }
        }
        let water_cap = recipe.plots.water_m.max(recipe.plots.radius_m + 3.0 * grid.cell_m()) + grid.cell_m();
        let river_cap = recipe.plots.radius_m + recipe.terrain.rivers.valley_m + recipe.terrain.rivers.width_m[1] + 1.0;
        // Three floods over the grid, each alone: the sea's beside the other two.
        let (coast_m, (water, river)) = share::join(
            threads,
            || coast::distance_to(&grid, |c| drainage.sea[c as usize], beach_cap),
            || {
                let water = coast::distance_to(
                    &grid,
                    |c| drainage.sea[c as usize] || drainage.lake[c as usize] != rivers::NONE || river_cell[c as usize],
                    water_cap,
                );
                (water, coast::distance_to(&grid, |c| river_cell[c as usize], river_cap))
            },
        );
        done("coast");
        let slope = plots::slopes(&grid, &height, threads);
        let inputs =
            plots::PlotInputs { height: &height, slope: &slope, drainage: &drainage, water: &water, river: &river };
        let plot_list = plots::plots(&grid, &mut walker, recipe, &inputs);
        done("plots");
        let data = Self {
            cells_per_face: PLAN_CELLS as u32,
            radius_m: recipe.radius_m,
            valley_m: recipe.terrain.rivers.valley_m,
            stamps,
            skeleton,
            mask_cells,
            rivers: river_list,
            lakes,
            plots: plot_list,
            coast: coast_m.iter().map(|&d| coast::to_byte(d)).collect(),
        };
        (data, Scaffold { grid, walker, stamp_index })
    }

    /// The layout's signature (its golden hash).
    #[must_use]
    pub fn signature(&self) -> Signature {
        Signature::of("layout", self)
    }

    /// Its figures.
    #[must_use]
    pub fn figures(&self) -> LayoutFigures {
        let mut ends = [0; 3];
        for r in &self.rivers {
            ends[match r.end {
                RiverEnd::Sea => 0,
                RiverEnd::Lake(_) => 1,
                RiverEnd::Joins { .. } => 2,
            }] += 1;
        }
        LayoutFigures {
            stamps: self.stamps.len(),
            skeleton_cells: self.skeleton.len(),
            mask_cells: self.mask_cells,
            rivers: self.rivers.len(),
            river_ends: ends,
            river_length_m: self.rivers.iter().map(|r| r.length_m).fold(0.0, |a, b| a + b),
            longest_river_m: self.rivers.iter().map(|r| r.length_m).fold(0.0, f32::max),
            lakes: self.lakes.len(),
            lake_cells: self.lakes.iter().map(|l| l.cells.len()).sum(),
            plots: self.plots.len(),
        }
    }

    /// Why a layout read from a file cannot be indexed, if it cannot (each
    /// message names the field and what is allowed).
    #[must_use]
    pub fn problems(&self) -> Vec<String> {
        let cells = 6 * (PLAN_CELLS * PLAN_CELLS) as usize;
        let mut out = Vec::new();
        if !(500.0..=50_000.0).contains(&self.radius_m) {
            out.push(format!("radius_m = {}: must be in 500..=50000", self.radius_m));
        }
        if !(0.0..=256.0).contains(&self.valley_m) {
            out.push(format!("valley_m = {}: must be in 0..=256", self.valley_m));
        }
        if self.cells_per_face != PLAN_CELLS as u32 {
            out.push(format!("cells_per_face = {}: must be {PLAN_CELLS}", self.cells_per_face));
        }
        if self.coast.len() != cells {
            out.push(format!("coast has {} entries: must have {cells} (one per plan cell)", self.coast.len()));
        }
        let unit = |v: Vec3| v.is_finite() && (v.length() - 1.0).abs() < 1e-3;
        for (i, s) in self.stamps.iter().enumerate() {
            if !(unit(s.centre) && unit(s.axis) && s.radius_m > 0.0 && s.radius_m <= 5000.0) {
                out.push(format!("stamps[{i}]: centre and axis must be unit vectors, radius_m in (0, 5000]"));
            } else if !(0.05..=1.0).contains(&s.aspect) || !(0.0..=10_000.0).contains(&s.peak_m) {
                out.push(format!("stamps[{i}]: aspect must be in 0.05..=1, peak_m in 0..=10000"));
            }
        }
        for (i, r) in self.rivers.iter().enumerate() {
            if r.points.len() < 2 {
                out.push(format!("rivers[{i}].points: must hold at least 2 points"));
            }
            for (j, p) in r.points.iter().enumerate() {
                if !(unit(p.direction) && p.level_m.is_finite() && p.width_m > 0.0 && p.width_m <= 256.0) {
                    out.push(format!(
                        "rivers[{i}].points[{j}]: direction must be a unit vector, level_m finite, width_m in (0, 256]"
                    ));
                    break;
                }
            }
            match r.end {
                RiverEnd::Lake(k) if k as usize >= self.lakes.len() => {
                    out.push(format!("rivers[{i}].end: lake {k} of {} lakes", self.lakes.len()));
                }
                RiverEnd::Joins { river, point }
                    if (river as usize) >= i || point as usize >= self.rivers[river as usize].points.len() =>
                {
                    out.push(format!(
                        "rivers[{i}].end: joins river {river} point {point}, which is not an earlier river's point"
                    ));
                }
                _ => {}
            }
        }
        for (i, l) in self.lakes.iter().enumerate() {
            if l.cells.iter().any(|&c| c as usize >= cells) || !l.level_m.is_finite() {
                out.push(format!("lakes[{i}]: cells must be below {cells}, level_m finite"));
            }
        }
        if self.skeleton.iter().any(|&c| c as usize >= cells) {
            out.push(format!("skeleton: cells must be below {cells}"));
        }
        for (i, p) in self.plots.iter().enumerate() {
            if p.cell as usize >= cells || !unit(p.centre) {
                out.push(format!("plots[{i}]: cell must be below {cells}, centre a unit vector"));
            }
        }
        out
    }
}

/// What the layout gives one column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColumnPlan {
    /// The rivers' carves and the water (river or lake) over the column.
    pub river: RiverSample,
    /// Distance to the sea, metres.
    pub coast_m: f32,
}

/// Bounds wider than this many plan cells are not searched for what may
/// reach them (`Layout::near`): the search would cost more than it saves.
const NEAR_CELLS: f32 = 4.0;

/// What of the layout may reach one region's columns, found once a region
/// (`Layout::near`) so that most columns read only what reaches them.
#[derive(Clone, Debug)]
pub struct LayoutNear {
    /// The stamps whose footprints may hold a point (ascending), or `None`:
    /// each point finds its own.
    stamps: Option<Vec<u32>>,
    segments: NearSegments,
    /// Whether a lake's water may stand over a column.
    lakes: bool,
    /// The coast distance every column reads, where they all read the same.
    coast_m: Option<f32>,
}

impl LayoutNear {
    /// No filter: every column locates itself and reads its cell.
    #[must_use]
    pub fn everything() -> Self {
        Self { stamps: None, segments: NearSegments::default(), lakes: true, coast_m: None }
    }

    /// Whether a stamp's footprint may hold a point of the bound.
    #[must_use]
    pub fn may_hold_stamps(&self) -> bool {
        self.stamps.as_ref().is_none_or(|s| !s.is_empty())
    }
}

/// A layout with the indexes regions read it through.
#[derive(Clone)]
pub struct Layout {
    /// What the plan decided.
    pub data: PlanetLayout,
    grid: PlanGrid,
    stamp_index: SpatialIndex,
    channels: Channels,
    /// Per cell: the lake whose water stands over it (its cells and one cell around), or none.
    lake_over: Vec<u32>,
    coast_m: Vec<f32>,
}

impl PartialEq for Layout {
    /// Equal layouts have equal indexes: only what the plan decided is compared.
    fn eq(&self, other: &Self) -> bool {
        self.data == other.data
    }
}

impl std::fmt::Debug for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Layout({:?})", self.data.figures())
    }
}

/// What making a layout builds that indexing it needs too: the plan grid
/// (about 9 ms a planet), the walker's marks and the stamps' index, the same
/// whether made with the layout or again from its data (the plan grid does
/// not depend on the shell, so `of_radius` serves both).
struct Scaffold {
    grid: PlanGrid,
    walker: Walker,
    stamp_index: SpatialIndex,
}

/// The tectonic value and base height (before the stamps) of every cell
/// (half the layout's making), shared among `threads` threads.
fn relief(grid: &PlanGrid, fields: &Fields, fine_m: f32, ridge_m: f32, threads: usize) -> (Vec<f32>, Vec<f32>) {
    share::map(grid.len(), threads, |c| {
        let d = grid.centre(c as Cell);
        let (e, t) = fields.tectonic(d, fine_m, ridge_m);
        (e + fields.hills(d, fine_m), t)
    })
    .into_iter()
    .unzip()
}

fn stamp_index(grid: &PlanGrid, walker: &mut Walker, stamps: &[Stamp]) -> SpatialIndex {
    SpatialIndex::build(grid, walker, stamps.len(), |i| (stamps[i].centre, stamps[i].radius_m))
}

fn stamps_at(stamps: &[Stamp], index: &SpatialIndex, grid: &PlanGrid, d: Vec3, cell: Cell) -> StampSample {
    stamp::combine(index.near(cell).iter().map(|&i| stamps[i as usize]), d, grid.radius_m())
}

impl Layout {
    /// The layout of `plan` with its indexes.
    #[must_use]
    pub fn build(plan: &PlanetPlan) -> Self {
        let (data, scaffold) = PlanetLayout::build_with_scaffold(plan, &mut |_| {}, share::threads());
        Self::with_scaffold(data, scaffold)
    }

    /// Indexes `data` (checked by `PlanetLayout::problems` where it was read from a file).
    #[must_use]
    pub fn new(data: PlanetLayout) -> Self {
        let grid = PlanGrid::new(&PlanetGrid::of_radius(data.radius_m));
        let mut walker = Walker::new(grid.len());
        let stamp_index = stamp_index(&grid, &mut walker, &data.stamps);
        Self::with_scaffold(data, Scaffold { grid, walker, stamp_index })
    }

    fn with_scaffold(data: PlanetLayout, scaffold: Scaffold) -> Self {
        let Scaffold { grid, mut walker, stamp_index } = scaffold;
        let channels = Channels::new(&grid, &mut walker, &data.rivers, data.valley_m);
        let mut lake_over = vec![rivers::NONE; grid.len()];
        for (i, lake) in data.lakes.iter().enumerate() {
            for &c in &lake.cells {
                lake_over[c as usize] = i as u32;
            }
        }
        // One cell around each lake too, so the water meets the shore the
        // terrain draws rather than the cells' edges (the lower level wins).
        let mut grown = lake_over.clone();
        for c in 0..grid.len() as Cell {
            let own = lake_over[c as usize];
            if own == rivers::NONE {
                continue;
            }
            for m in grid.neighbours(c) {
                let g = &mut grown[m as usize];
                if *g == rivers::NONE || data.lakes[own as usize].level_m < data.lakes[*g as usize].level_m {
                    *g = own;
                }
            }
        }
        let coast_m = data.coast.iter().map(|&b| f32::from(b) * COAST_STEP_M).collect();
        Self { data, grid, stamp_index, channels, lake_over: grown, coast_m }
    }

    /// A layout with nothing in it (no stamps, rivers, lakes or plots, the
    /// sea far from everywhere) for a planet of `radius_m`: the plan switched
    /// off, for measuring what it costs.
    #[must_use]
    pub fn none(radius_m: f32, valley_m: f32) -> Self {
        let cells = 6 * (PLAN_CELLS * PLAN_CELLS) as usize;
        Self::new(PlanetLayout {
            cells_per_face: PLAN_CELLS as u32,
            radius_m,
            valley_m,
            stamps: Vec::new(),
            skeleton: Vec::new(),
            mask_cells: 0,
            rivers: Vec::new(),
            lakes: Vec::new(),
            plots: Vec::new(),
            coast: vec![u8::MAX; cells],
        })
    }

    /// The plan grid.
    #[must_use]
    pub fn grid(&self) -> &PlanGrid {
        &self.grid
    }

    /// The stamps over direction `d`.
    #[inline]
    #[must_use]
    pub fn stamps_at(&self, d: Vec3) -> StampSample {
        stamps_at(&self.data.stamps, &self.stamp_index, &self.grid, d, self.grid.cell_of(d))
    }

    /// `stamps_at` for a point of the bound `near` was made for (the same result).
    #[must_use]
    pub fn stamps_near(&self, near: &LayoutNear, d: Vec3) -> StampSample {
        match &near.stamps {
            Some(list) => stamp::combine(list.iter().map(|&i| self.data.stamps[i as usize]), d, self.grid.radius_m()),
            None => self.stamps_at(d),
        }
    }

    /// The rivers' carves and water at `d` over ground `ground_m`, water
    /// shown up to `margin_m` (at most `MARGIN_M`) beyond a channel.
    #[inline]
    #[must_use]
    pub fn river_at(&self, d: Vec3, ground_m: f32, margin_m: f32) -> RiverSample {
        self.channels.at(d, self.grid.cell_of(d), ground_m, margin_m.min(MARGIN_M))
    }

    /// Everything the 2D pass reads of the layout at `d` over ground
    /// `ground_m` (the carves, river and lake water, the coast distance),
    /// locating `d` on the plan grid once.
    #[must_use]
    pub fn column_at(&self, d: Vec3, ground_m: f32, margin_m: f32) -> ColumnPlan {
        self.column_near(&LayoutNear::everything(), d, ground_m, margin_m)
    }

    /// What of the layout may reach the points within `radius_m` of unit
    /// direction `centre` on the base sphere (a region's columns and
    /// lattice nodes), for `column_near` and `stamps_near`: the stamps, the
    /// river segments, whether a lake may, and the coast distance where
    /// every such point reads the same. Found from the cells
    /// those points lie in or read bilinearly; for a bound wider than a few
    /// cells, everything (each column then locates itself).
    #[must_use]
    pub fn near(&self, centre: Vec3, radius_m: f32) -> LayoutNear {
        let cell_m = self.grid.cell_m();
        if radius_m > NEAR_CELLS * cell_m {
            return LayoutNear::everything();
        }
        // A point within the radius lies in a cell whose centre is within it
        // and one cell's width (1.41x wider at face corners), and reads
        // bilinearly from cells within two: 1.5 and 3 keep a margin.
        let (holding, reading) = (radius_m + 1.5 * cell_m, radius_m + 3.0 * cell_m);
        let mut cells = vec![(self.grid.cell_of(centre), 0.0)];
        let mut head = 0;
        while let Some(&(c, _)) = cells.get(head) {
            head += 1;
            for n in self.grid.neighbours(c) {
                let apart = self.grid.distance_m(self.grid.centre(n), centre);
                if apart <= reading && !cells.iter().any(|&(m, _)| m == n) {
                    cells.push((n, apart));
                }
            }
        }
        let coast = self.coast_m[cells[0].0 as usize];
        let held: Vec<Cell> = cells.iter().filter(|&&(_, apart)| apart <= holding).map(|&(c, _)| c).collect();
        let mut stamps = self.stamp_index.near_any(&held);
        // A stamp whose footprint no point of the bound is in (a metre for rounding).
        stamps
            .retain(|&i| self.data.stamps[i as usize].least_radius(centre, radius_m + 1.0, self.grid.radius_m()) < 1.0);
        LayoutNear {
            stamps: Some(stamps),
            segments: self.channels.near(centre, radius_m, &held),
            lakes: held.iter().any(|&c| self.lake_over[c as usize] != rivers::NONE),
            coast_m: cells.iter().all(|&(c, _)| self.coast_m[c as usize] == coast).then_some(coast),
        }
    }

    /// `near` for the points within `radius_m` (a chord of the base sphere)
    /// of unit direction `centre`, a part of the bound `region` was made
    /// for: only the river segments that may reach the part (the same result).
    #[must_use]
    pub fn narrow(&self, region: &LayoutNear, centre: Vec3, radius_m: f32) -> LayoutNear {
        LayoutNear {
            stamps: region.stamps.clone(),
            segments: self.channels.narrow(&region.segments, centre, radius_m),
            lakes: region.lakes,
            coast_m: region.coast_m,
        }
    }

    /// `column_at` for a column of the region `near` was made for (the same
    /// result): a column no lake reaches and whose coast distance is known
    /// is never located on the plan grid.
    #[must_use]
    pub fn column_near(&self, near: &LayoutNear, d: Vec3, ground_m: f32, margin_m: f32) -> ColumnPlan {
        let margin_m = margin_m.min(MARGIN_M);
        let located = (near.lakes || near.coast_m.is_none() || near.segments.0.is_none()).then(|| self.grid.locate(d));
        let segments = match (&near.segments.0, &located) {
            (Some(list), _) => list.as_slice(),
            (None, Some((cell, _))) => self.channels.in_cell(*cell),
            (None, None) => &[],
        };
        let mut river = self.channels.at_among(segments, d, ground_m, margin_m);
        if let Some((cell, _)) = located.filter(|_| near.lakes) {
            let l = self.lake_over[cell as usize];
            if l != rivers::NONE {
                let level = self.data.lakes[l as usize].level_m;
                river.water_m = Some(river.water_m.map_or(level, |w| w.max(level)));
            }
        }
        let coast_m = match (near.coast_m, &located) {
            (Some(c), _) => c,
            (None, Some((_, corners))) => PlanGrid::sample_at(&self.coast_m, corners),
            // Not taken: a column whose coast is not known is located.
            (None, None) => self.coast_m(d),
        };
        ColumnPlan { river, coast_m }
    }

    /// The level of the lake whose water stands over `d`, if any.
    #[inline]
    #[must_use]
    pub fn lake_at(&self, d: Vec3) -> Option<f32> {
        let l = self.lake_over[self.grid.cell_of(d) as usize];
        (l != rivers::NONE).then(|| self.data.lakes[l as usize].level_m)
    }

    /// Distance from `d` to the sea, metres (capped a little beyond the beaches' length).
    #[inline]
    #[must_use]
    pub fn coast_m(&self, d: Vec3) -> f32 {
        self.grid.sample(&self.coast_m, d)
    }

    /// River segments held.
    #[must_use]
    pub fn segments(&self) -> usize {
        self.channels.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout is the same bits however many threads share its work
    /// (including shares of uneven size, and more threads than cores).
    #[test]
    fn the_layout_does_not_depend_on_the_threads() {
        let system = crate::PlannedSystem::default_system();
        for plan in [&system.planets[1], &system.planets[2]] {
            let on = |threads| PlanetLayout::build_with_scaffold(plan, &mut |_| {}, threads).0;
            let one = on(1);
            assert!(!one.rivers.is_empty() && !one.plots.is_empty());
            for threads in [2, 3, 7] {
                assert_eq!(on(threads).signature(), one.signature(), "planet {}: {threads} threads", plan.index);
            }
        }
    }
}
