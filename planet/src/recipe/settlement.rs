//! The settlements' recipe (`crate::settlements`): where towns may stand (an
//! offset grid of cells about a kilometre across, each holding at most one
//! town on a buildable plot) and the rules that lay a town out, in the order
//! the building-placement reference applies them: a grid, five gates per
//! cell, size bands, a directional height field, density zones, two
//! landmarks and a route between them. Every number has its limits here.

use serde::{Deserialize, Serialize};

use super::check::{Checker, Validate};

/// Settlements: sites and town rules.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettlementRecipe {
    /// Whether the planet has settlements at all.
    pub enabled: bool,
    /// Side of a cell of the offset grid, metres: each cell holds at most one town.
    pub cell_m: f32,
    /// Chance that a cell with a plot holds a town.
    pub chance: f32,
    /// Radius of a town around its plot's centre, metres.
    pub radius_m: f32,
    /// Side of a square of the town's building grid, metres.
    pub grid_m: f32,
    /// Gate 1: the chance a grid square holds a building (in a dense zone).
    pub density: f32,
    /// Gate 2: the most a building moves off its square's centre, metres.
    pub jitter_m: f32,
    /// Gate 3: the steepest ground a building stands on, degrees.
    pub max_slope_deg: f32,
    /// Gate 4: how far a building's ground may be above or below the plot's, metres.
    pub height_band_m: f32,
    /// Gate 5: the least gap between two buildings' boxes, metres.
    pub spacing_m: f32,
    /// Size band: the footprint's longer side, metres.
    pub footprint_m: [f32; 2],
    /// Size band: depth over width.
    pub aspect: [f32; 2],
    /// Size band: floors.
    pub floors: [u32; 2],
    /// Size band: height of a floor, metres.
    pub floor_height_m: [f32; 2],
    /// Height field: buildings are up to this share taller (and shorter) along
    /// the town's growth direction, end to end.
    pub height_gain: f32,
    /// Density zones: the noise's wavelength, metres.
    pub zone_wavelength_m: f32,
    /// Density zones: the building chance in the sparsest outskirts, as a share of `density`.
    pub sparse_share: f32,
    /// Shares of the three building types: flat-topped, curved, arched.
    pub type_shares: [f32; 3],
    /// Landmarks: their footprint, metres.
    pub landmark_footprint_m: [f32; 2],
    /// Landmarks: their floors.
    pub landmark_floors: [u32; 2],
    /// Route: buildings whose box comes this near its centre line go, metres.
    pub route_delete_m: f32,
    /// Route: buildings whose box comes this near are pushed out to it, metres.
    pub route_push_m: f32,
    /// Route: the sine wave's amplitude, metres.
    pub route_amplitude_m: f32,
    /// Route: whole waves from landmark to landmark.
    pub route_waves: f32,
    /// Levelling: the blend from a footprint's flat ground (and a 1.5 m apron)
    /// back to the terrain, metres; at most `spacing_m` less the apron.
    pub skirt_m: f32,
    /// The material of the streets (the road's flat width), an index into
    /// the planet's materials; gravel in every derived palette.
    #[serde(default = "street_material")]
    pub street_material: u32,
}

/// The derived palettes' gravel, the streets' material where a recipe names none.
fn street_material() -> u32 {
    10
}

impl Default for SettlementRecipe {
    /// The reference's numbers.
    fn default() -> Self {
        Self {
            enabled: true,
            cell_m: 1000.0,
            chance: 0.85,
            radius_m: 140.0,
            grid_m: 28.0,
            density: 0.45,
            jitter_m: 8.0,
            max_slope_deg: 14.0,
            height_band_m: 8.0,
            spacing_m: 10.0,
            footprint_m: [7.5, 18.0],
            aspect: [0.6, 1.6],
            floors: [3, 12],
            floor_height_m: [3.2, 4.4],
            height_gain: 0.6,
            zone_wavelength_m: 160.0,
            sparse_share: 0.35,
            type_shares: [0.5, 0.3, 0.2],
            landmark_footprint_m: [18.0, 24.0],
            landmark_floors: [14, 18],
            route_delete_m: 3.0,
            route_push_m: 8.0,
            route_amplitude_m: 18.0,
            route_waves: 1.5,
            skirt_m: 8.0,
            street_material: street_material(),
        }
    }
}

impl Validate for SettlementRecipe {
    fn validate(&self, c: &mut Checker) {
        c.f32_in("cell_m", self.cell_m, 200.0..=20_000.0);
        c.f32_in("chance", self.chance, 0.0..=1.0);
        c.f32_in("radius_m", self.radius_m, 30.0..=(self.cell_m * 0.25).max(30.0));
        c.f32_in("grid_m", self.grid_m, 8.0..=100.0);
        c.f32_in("density", self.density, 0.0..=1.0);
        c.f32_in("jitter_m", self.jitter_m, 0.0..=(self.grid_m * 0.5).max(0.0));
        c.f32_in("max_slope_deg", self.max_slope_deg, 0.5..=45.0);
        c.f32_in("height_band_m", self.height_band_m, 0.5..=100.0);
        c.f32_in("spacing_m", self.spacing_m, 0.0..=100.0);
        c.span("footprint_m", self.footprint_m, 2.0..=60.0);
        c.span("aspect", self.aspect, 0.2..=5.0);
        c.u32_in("floors[0]", self.floors[0], 1..=60);
        c.u32_in("floors[1]", self.floors[1], self.floors[0].clamp(1, 60)..=60);
        c.span("floor_height_m", self.floor_height_m, 2.0..=8.0);
        c.f32_in("height_gain", self.height_gain, 0.0..=0.9);
        c.f32_in("zone_wavelength_m", self.zone_wavelength_m, 20.0..=5000.0);
        c.f32_in("sparse_share", self.sparse_share, 0.0..=1.0);
        for (i, s) in self.type_shares.iter().enumerate() {
            c.f32_in(&format!("type_shares[{i}]"), *s, 0.0..=1.0);
        }
        if self.type_shares.iter().sum::<f32>() <= 0.0 {
            c.fail("type_shares", format!("{:?}", self.type_shares), "at least one share must be above 0");
        }
        c.span("landmark_footprint_m", self.landmark_footprint_m, 2.0..=80.0);
        c.u32_in("landmark_floors[0]", self.landmark_floors[0], 1..=80);
        c.u32_in("landmark_floors[1]", self.landmark_floors[1], self.landmark_floors[0].clamp(1, 80)..=80);
        c.f32_in("route_delete_m", self.route_delete_m, 0.5..=50.0);
        c.f32_in("route_push_m", self.route_push_m, self.route_delete_m.clamp(0.5, 50.0)..=100.0);
        c.f32_in("route_amplitude_m", self.route_amplitude_m, 1.0..=(self.radius_m * 0.5).max(1.0));
        c.f32_in("route_waves", self.route_waves, 0.25..=8.0);
        // A skirt stops short of the next building's box, so every footprint stays flat.
        c.f32_in("skirt_m", self.skirt_m, 0.0..=(self.spacing_m - 1.5).clamp(0.0, 40.0));
    }
}
