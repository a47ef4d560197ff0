//! Settlements: where towns stand on a planet, and each town's buildings.
//!
//! - **Sites** (`sites.rs`): the offset grid of cells about a kilometre
//!   across; a cell holds at most one town, on the buildable plot nearest a
//!   hashed aim, wholly inside the cell. Decided from the layout's plots
//!   alone, listed for a whole planet at once (`SettlementSites`, the
//!   `planet_settlements` stage), and searched for the nearest from any
//!   direction (`Settlements::nearest`).
//! - **Towns** (`town.rs`, `route.rs`, `building.rs`): laid out by the
//!   building-placement reference's rules from the terrain before any
//!   levelling; made on first use and kept (a pure function of the plan,
//!   so when it is made never matters).
//! - **Levelling** (`level.rs`): the structure term of the 2D pass.
//! - **In a region** (`placed.rs`, `models.rs`): the buildings a region
//!   draws and collides with, placed in its frame, their generated meshes and
//!   their convex collider pieces.

mod building;
mod level;
pub mod models;
mod placed;
mod route;
mod sites;
mod town;

pub use building::{BEND_SAMPLES, Building, BuildingCurve, BuildingKind, box_distance, box_gap};
pub use level::{APRON_M, Levelling};
pub use placed::{ConvexPiece, HULL_SEGMENTS, PlacedBuilding, SINK_M, region_buildings};
pub use route::{ROAD_GRADE_DEG, Route, road_clearance};
pub use sites::{Settlement, SiteCell, SiteGrid, angle, cells_across};
pub use town::{GroundSample, Town, TownCounts, TownFrame};

use std::collections::BinaryHeap;
use std::sync::{Arc, OnceLock};

use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::layout::Layout;
use crate::plan::PlanetPlan;
use crate::recipe::SettlementRecipe;
use crate::terrain::Terrain;

/// No settlement.
const NONE: u32 = u32::MAX;

/// Every settlement of a planet: what the `planet_settlements` stage makes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettlementSites {
    /// Cells along each side of a face of the offset grid.
    pub cells_across: u32,
    /// The planet's base radius, metres.
    pub radius_m: f32,
    /// The settlements, by cell.
    pub sites: Vec<Settlement>,
}

impl SettlementSites {
    /// The settlements of `plan` on the plots of `layout`.
    #[must_use]
    pub fn build(plan: &PlanetPlan, layout: &Layout) -> Self {
        let r = &plan.recipe.settlements;
        let n = cells_across(plan.recipe.radius_m, r.cell_m);
        let mut out = Self { cells_across: n, radius_m: plan.recipe.radius_m, sites: Vec::new() };
        if !r.enabled {
            return out;
        }
        let grid = SiteGrid::new(plan.recipe.radius_m, n);
        let plots = &layout.data.plots;
        let mut by_cell: Vec<Vec<u32>> = vec![Vec::new(); grid.len()];
        for (i, p) in plots.iter().enumerate() {
            by_cell[grid.cell_of(p.centre) as usize].push(i as u32);
        }
        let rules = sites::SiteRules {
            seed: plan.seed,
            chance: r.chance,
            radius_m: r.radius_m,
            margin_m: level::town_reach_m(0.0, largest_building_m(r), r.skirt_m),
            plots,
        };
        out.sites = (0..grid.len() as SiteCell)
            .filter_map(|c| sites::settlement_of(&grid, &rules, c, &by_cell[c as usize]))
            .collect();
        out
    }

    /// Problems that make these sites unusable (from a file), each naming its field.
    #[must_use]
    pub fn problems(&self) -> Vec<String> {
        let mut found = Vec::new();
        if !(1..=256).contains(&self.cells_across) {
            found.push(format!("cells_across = {}: must be in 1..=256", self.cells_across));
        }
        if !(self.radius_m.is_finite() && self.radius_m > 0.0) {
            found.push(format!("radius_m = {}: must be a positive radius", self.radius_m));
        }
        let cells = 6 * u64::from(self.cells_across).pow(2);
        let mut last = None;
        for (i, s) in self.sites.iter().enumerate() {
            if u64::from(s.cell) >= cells {
                found.push(format!("sites[{i}].cell = {}: must be in 0..{cells}", s.cell));
            }
            if last.is_some_and(|l| s.cell <= l) {
                found.push(format!("sites[{i}].cell = {}: cells must ascend", s.cell));
            }
            last = Some(s.cell);
            if !(s.centre.is_finite() && (s.centre.length() - 1.0).abs() < 1e-3) {
                found.push(format!("sites[{i}].centre: must be a unit direction"));
            }
            if !(s.radius_m.is_finite() && s.radius_m > 0.0) {
                found.push(format!("sites[{i}].radius_m = {}: must be positive", s.radius_m));
            }
        }
        found
    }

    /// The golden hash of the sites.
    #[must_use]
    pub fn signature(&self) -> crate::Signature {
        crate::Signature::of("settlements", self)
    }
}

/// The longest side any building of `r` may have, metres.
fn largest_building_m(r: &SettlementRecipe) -> f32 {
    (r.footprint_m[1] * r.aspect[1]).max(r.landmark_footprint_m[1])
}

/// What of the towns may reach one region's columns, found once a region
/// (`Settlements::near`) so that each column skips the rest.
#[derive(Clone, Debug)]
pub enum TownsNear {
    /// No town levels any of them.
    Nothing,
    /// Each column finds its town (the bound may cross a site cell's edge).
    Everything,
    /// Every column lies in one town's cell, and only the buildings listed
    /// (ascending), and the road if `road`, may reach one.
    One {
        /// The town's site.
        site: u32,
        /// Its buildings that may reach the bound.
        buildings: Vec<u32>,
        /// Whether its road may.
        road: bool,
    },
}

/// The sites with the grid and the towns, as the terrain and the queries use them.
pub struct Settlements {
    /// The sites.
    pub data: SettlementSites,
    grid: SiteGrid,
    /// The site index of each cell, or `NONE`.
    by_cell: Vec<u32>,
    towns: Vec<OnceLock<Town>>,
    /// Each site's town-local frame (read for every column near a town).
    frames: Vec<TownFrame>,
    /// What towns are laid out from: set when made from a plan, or once
    /// sites read from a file meet their plan (`ready`).
    maker: OnceLock<TownMaker>,
}

/// The ground and rules the towns are laid out with.
struct TownMaker {
    recipe: SettlementRecipe,
    /// The terrain without settlements (towns are laid out on the ground before levelling).
    ground: Terrain,
    lowest_m: f32,
    /// Per site, the cosine of the angle its buildings and skirts reach:
    /// a column with a smaller dot product with the centre is untouched.
    reach_cos: Vec<f32>,
}

impl Settlements {
    /// No settlements on a planet of `radius_m` (and none to make).
    #[must_use]
    pub fn none(radius_m: f32) -> Self {
        Self::from_sites(SettlementSites { cells_across: 2, radius_m, sites: Vec::new() })
    }

    /// Sites (read from a file and checked) whose towns cannot be made until
    /// they meet their plan and layout (`ready`).
    #[must_use]
    pub fn from_sites(data: SettlementSites) -> Self {
        let grid = SiteGrid::new(data.radius_m, data.cells_across);
        let mut by_cell = vec![NONE; grid.len()];
        for (i, s) in data.sites.iter().enumerate() {
            if let Some(slot) = by_cell.get_mut(s.cell as usize) {
                *slot = i as u32;
            }
        }
        let towns = data.sites.iter().map(|_| OnceLock::new()).collect();
        let frames = data.sites.iter().map(|s| TownFrame::new(s.centre, data.radius_m)).collect();
        Self { data, grid, by_cell, towns, frames, maker: OnceLock::new() }
    }

    /// `settlements` able to make their towns from `plan` and `layout` (the
    /// same, shared, when they already can: towns made are kept).
    #[must_use]
    pub fn ready(settlements: &Arc<Self>, plan: &PlanetPlan, layout: &Arc<Layout>) -> Arc<Self> {
        settlements.maker.get_or_init(|| TownMaker::new(plan, layout, &settlements.data));
        Arc::clone(settlements)
    }

    /// The settlements of `plan` on `layout`'s plots.
    #[must_use]
    pub fn build(plan: &PlanetPlan, layout: &Arc<Layout>) -> Self {
        Self::with_sites(plan, layout, SettlementSites::build(plan, layout))
    }

    /// `sites` (made, or read from a dump and checked) with their towns to be
    /// made from `plan` and `layout`.
    #[must_use]
    pub fn with_sites(plan: &PlanetPlan, layout: &Arc<Layout>, sites: SettlementSites) -> Self {
        let out = Self::from_sites(sites);
        let _ = out.maker.set(TownMaker::new(plan, layout, &out.data));
        out
    }

    /// The offset grid.
    #[must_use]
    pub fn grid(&self) -> &SiteGrid {
        &self.grid
    }

    /// The settlement of cell `c`, if any.
    #[must_use]
    pub fn in_cell(&self, c: SiteCell) -> Option<&Settlement> {
        let i = *self.by_cell.get(c as usize)?;
        self.data.sites.get(i as usize)
    }

    /// The nearest settlement to direction `d` (unit) and its distance along
    /// the base sphere, metres: a best-first search of the cells around `d`.
    #[must_use]
    pub fn nearest(&self, d: Vec3) -> Option<(&Settlement, f32)> {
        if self.data.sites.is_empty() {
            return None;
        }
        let start = self.grid.cell_of(d);
        // Cells by the least angle any of their points could be from `d`
        // (as ordered integers, so the heap needs no float order).
        let key = |c: SiteCell| std::cmp::Reverse((self.grid.least_angle(c, d).to_bits(), c));
        let mut seen = vec![false; self.grid.len()];
        let mut queue = BinaryHeap::new();
        queue.push(key(start));
        seen[start as usize] = true;
        let mut best: Option<(u32, f32)> = None;
        while let Some(std::cmp::Reverse((bound, c))) = queue.pop() {
            // Nothing left can be nearer (a small slack for the bound's rounding).
            if best.is_some_and(|(_, a)| f32::from_bits(bound) > a + 1e-5) {
                break;
            }
            if let Some(i) = self.by_cell.get(c as usize).copied().filter(|&i| i != NONE) {
                let a = angle(d, self.data.sites[i as usize].centre);
                if best.is_none_or(|(j, b)| a < b || (a == b && i < j)) {
                    best = Some((i, a));
                }
            }
            for &m in self.grid.neighbours(c) {
                if !seen[m as usize] {
                    seen[m as usize] = true;
                    queue.push(key(m));
                }
            }
        }
        best.map(|(i, a)| (&self.data.sites[i as usize], a * self.data.radius_m))
    }

    /// The town of settlement `i` (an index into the sites), laid out on
    /// first use; `None` for a planet whose towns cannot be made (no plan).
    #[must_use]
    pub fn town(&self, i: usize) -> Option<&Town> {
        let maker = self.maker.get()?;
        let site = self.data.sites.get(i)?;
        Some(self.towns[i].get_or_init(|| maker.lay_out(site)))
    }

    /// The town-local frame of settlement `i`.
    #[must_use]
    pub fn frame(&self, i: usize) -> TownFrame {
        self.frames[i]
    }

    /// The structure term at unit direction `d`: the levelling of the town whose
    /// cell holds `d`, if one of its buildings reaches it.
    #[must_use]
    pub fn levelling_at(&self, d: Vec3) -> Option<Levelling> {
        let (town, p, recipe) = self.town_reaching(d)?;
        level::levelling(town, p, recipe)
    }

    /// Whether unit direction `d` is on a town's street: within the
    /// recipe's `route_delete_m` of its route's centre line, kept clear of
    /// scattered trees and rocks so the way through stays open.
    #[must_use]
    pub fn on_route(&self, d: Vec3) -> bool {
        self.town_reaching(d).is_some_and(|(town, p, recipe)| {
            town.route
                .windows(2)
                .any(|w| level::nearest_on_segment(p, w[0].into(), w[1].into()).0 < recipe.route_delete_m)
        })
    }

    /// What of the towns may reach the directions within `angle` radians of
    /// unit direction `centre` (a region's columns), for `levelling_near`.
    #[must_use]
    pub fn near(&self, centre: Vec3, angle: f32) -> TownsNear {
        if !self.may_reach(centre, angle) {
            return TownsNear::Nothing;
        }
        let cell = self.grid.cell_of(centre);
        // Every direction of the bound lies in the centre's cell (a metre for rounding).
        if self.grid.inset_m(cell, centre) <= angle * self.data.radius_m + 1.0 {
            return TownsNear::Everything;
        }
        let site = self.by_cell.get(cell as usize).copied().unwrap_or(NONE);
        let (Some(maker), Some(town)) = (self.maker.get(), self.town(site as usize)) else {
            return TownsNear::Nothing;
        };
        match self.local_bound(site, centre, angle) {
            Some((p, radius_m)) => TownsNear::One {
                site,
                buildings: level::buildings_near(town, p, maker.recipe.skirt_m, radius_m),
                road: level::road_near(town, p, &maker.recipe, radius_m),
            },
            None => TownsNear::Everything,
        }
    }

    /// `near` for the directions within `angle` radians of unit direction
    /// `centre`, a part of the bound `region` was made for: of a town's
    /// buildings and road, only those that may reach the part (the same result).
    #[must_use]
    pub fn narrow(&self, region: &TownsNear, centre: Vec3, angle: f32) -> TownsNear {
        let TownsNear::One { site, buildings, road } = region else { return region.clone() };
        let (Some(maker), Some(town)) = (self.maker.get(), self.town(*site as usize)) else { return region.clone() };
        match self.local_bound(*site, centre, angle) {
            Some((p, radius_m)) => TownsNear::One {
                site: *site,
                buildings: level::buildings_near_among(
                    town,
                    buildings.iter().copied(),
                    p,
                    maker.recipe.skirt_m,
                    radius_m,
                ),
                road: *road && level::road_near(town, p, &maker.recipe, radius_m),
            },
            None => region.clone(),
        }
    }

    /// The town-local point of `centre` in site `site`'s frame and a radius
    /// there that holds every direction within `angle` of it, where the
    /// town-local map stretches little enough to bound.
    fn local_bound(&self, site: u32, centre: Vec3, angle: f32) -> Option<(glam::Vec2, f32)> {
        let frame = &self.frames[site as usize];
        // The town-local map stretches by up to 1/k² where the bound's
        // directions are k = cos(angle from the town's centre) off it.
        let k = libm::cosf(sites::angle(centre, frame.centre) + angle);
        let p = level::local_point(frame, centre).filter(|_| k > 0.6)?;
        Some((p, angle * self.data.radius_m / (k * k) * 1.01 + 1.0))
    }

    /// `levelling_at` for a direction of the bound `near` was made for (the same result).
    #[must_use]
    pub fn levelling_near(&self, near: &TownsNear, d: Vec3) -> Option<Levelling> {
        match near {
            TownsNear::Nothing => None,
            TownsNear::Everything => self.levelling_at(d),
            TownsNear::One { site, buildings, road } => {
                let maker = self.maker.get()?;
                let i = *site as usize;
                let frame = &self.frames[i];
                if d.dot(frame.centre) < maker.reach_cos[i] {
                    return None;
                }
                let p = level::local_point(frame, d)?;
                level::levelling_among(self.town(i)?, buildings, *road, p, &maker.recipe)
            }
        }
    }

    /// Whether a town's buildings and skirts may reach a direction within
    /// `angle` radians of unit direction `centre` (a region's columns): when
    /// not, `levelling_at` is `None` at every one of them.
    #[must_use]
    pub fn may_reach(&self, centre: Vec3, angle: f32) -> bool {
        let Some(maker) = self.maker.get() else { return false };
        self.frames.iter().zip(&maker.reach_cos).any(|(frame, &reach_cos)| {
            // Apart by more than the town's reach and the region's: no column
            // is reached (1e-4 rad, under a metre, for rounding).
            let apart = libm::acosf(centre.dot(frame.centre).clamp(-1.0, 1.0));
            apart <= libm::acosf(reach_cos.clamp(-1.0, 1.0)) + angle + 1e-4
        })
    }

    /// The town whose cell holds unit direction `d`, if its buildings and
    /// skirts reach `d`, with `d`'s town-local point and the rules.
    fn town_reaching(&self, d: Vec3) -> Option<(&Town, glam::Vec2, &SettlementRecipe)> {
        let maker = self.maker.get()?;
        let i = *self.by_cell.get(self.grid.cell_of(d) as usize)?;
        if i == NONE {
            return None;
        }
        let frame = &self.frames[i as usize];
        if d.dot(frame.centre) < maker.reach_cos[i as usize] {
            return None;
        }
        let p = level::local_point(frame, d)?;
        Some((self.town(i as usize)?, p, &maker.recipe))
    }
}

impl TownMaker {
    fn new(plan: &PlanetPlan, layout: &Arc<Layout>, sites: &SettlementSites) -> Self {
        let r = &plan.recipe;
        let sea = if r.sea.enabled { r.sea.level_m } else { f32::MIN / 2.0 };
        let largest = largest_building_m(&r.settlements);
        let reach_cos = sites
            .sites
            .iter()
            .map(|s| {
                let reach = level::town_reach_m(s.radius_m, largest, r.settlements.skirt_m) / sites.radius_m;
                libm::cosf(reach.min(core::f32::consts::PI))
            })
            .collect();
        Self {
            recipe: r.settlements,
            ground: Terrain::bare(plan, Arc::clone(layout)),
            lowest_m: sea + r.plots.min_height_m,
            reach_cos,
        }
    }

    fn lay_out(&self, site: &Settlement) -> Town {
        let t = &self.ground;
        let plot_radius = t.layout.data.plots.get(site.plot as usize).map_or(0.0, |p| p.radius_m);
        let ground = |d: Vec3| {
            let s = t.surface_at(d);
            let sea_m = t.recipe.sea.enabled.then_some(t.recipe.sea.level_m);
            let water = (s.water_m > crate::terrain::NO_WATER).then_some(s.water_m);
            GroundSample {
                height_m: s.surface_m,
                wet: sea_m.is_some_and(|l| s.surface_m < l) || s.water_m > s.surface_m,
                water_m: [water, sea_m].into_iter().flatten().reduce(f32::max),
            }
        };
        let input = town::TownInput {
            seed: t.seed,
            recipe: &self.recipe,
            site,
            frame: TownFrame::new(site.centre, t.recipe.radius_m),
            plot_radius_m: plot_radius,
            lowest_m: self.lowest_m,
            ground: &ground,
        };
        Town::lay_out(&input)
    }
}

impl std::fmt::Debug for Settlements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Settlements({} sites)", self.data.sites.len())
    }
}

impl PartialEq for Settlements {
    /// Equal sites make equal towns: only the sites are compared.
    fn eq(&self, other: &Self) -> bool {
        self.data == other.data
    }
}
