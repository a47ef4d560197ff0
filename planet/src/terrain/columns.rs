//! `ColumnField`, the 2D pass: once per column of a region's 36² sample window,
//! the elevated surface, the 2D terrain height over it, the mountain, plain
//! and river masks, slope, climate, biome and surface materials. The 3D pass
//! reuses it.
//!
//! Smooth fields (elevation, hills, masks, climate noise) come from lattice
//! nodes every 4 cells (`lattice.rs`); sharp ones (detail, mountain ridges) are
//! evaluated at every column. Slope needs the height one column beyond the
//! window, so heights are computed over a 38² window first.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::Terrain;
use super::climate::{Ground, ground, mix, moisture, temperature_c};
use super::fields::CoarseFields;
use super::lattice::{Window, near_cube_corner};
use crate::geometry::{RegionKey, WINDOW};
use crate::layout::LayoutNear;
use crate::settlements::TownsNear;

/// One column of the 2D pass.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Column {
    /// Unit direction of the column, planet-local.
    pub direction: Vec3,
    /// The elevated surface (where the voxel shell rides), metres above the base radius.
    pub elevation_m: f32,
    /// The 2D terrain surface, metres above the elevated surface.
    pub height_m: f32,
    /// Slope of the 2D surface, degrees.
    pub slope_deg: f32,
    /// How mountainous, 0..=1 (the plain mask is 1 - this).
    pub mountain: f32,
    /// How much river valley, 0..=1 (1 in the channel): the 3D noise fades with it.
    pub river: f32,
    /// How much of the column a building levels, 0..=1 (1 under its
    /// footprint): the 3D noise and caves fade with it too.
    pub structure: f32,
    /// The river or lake water over the column, metres above the base radius
    /// (`NO_WATER` where there is none; the sea is drawn on its own).
    pub water_m: f32,
    /// Temperature, °C.
    pub temperature_c: f32,
    /// Moisture, 0..=1.
    pub moisture: f32,
    /// Biome index.
    pub biome: u8,
    /// Primary and secondary surface materials.
    pub surface: [u8; 2],
    /// Share of the secondary surface material, 0..=65535.
    pub blend: u16,
    /// Material under the top layer.
    pub subsurface: u8,
    /// Thickness of the top layer, metres.
    pub surface_depth_m: f32,
}

/// A column's `water_m` where no river or lake water stands over it.
pub const NO_WATER: f32 = f32::MIN;

impl Column {
    /// The 2D surface's height above the base radius, metres.
    #[must_use]
    pub fn surface_m(&self) -> f32 {
        self.elevation_m + self.height_m
    }

    /// The river or lake water over the column, if any.
    #[must_use]
    pub fn water(&self) -> Option<f32> {
        (self.water_m > NO_WATER).then_some(self.water_m)
    }
}

/// The 2D pass over a region's sample window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ColumnField {
    /// The region.
    pub key: RegionKey,
    /// 36 x 36 columns, x fastest; column (0, 0) is 2 cells before the region's first.
    pub columns: Vec<Column>,
}

impl ColumnField {
    /// Columns along each side.
    pub const SIDE: usize = WINDOW;

    /// Column (a, b) of the window.
    #[inline]
    #[must_use]
    pub fn at(&self, a: usize, b: usize) -> &Column {
        &self.columns[b * Self::SIDE + a]
    }
}

/// The height-defining parts of a column, before climate.
#[derive(Clone, Copy)]
pub(super) struct Relief {
    pub(super) coarse: CoarseFields,
    pub(super) height_m: f32,
    /// Valley, bed and water of the rivers and lakes.
    pub(super) river: f32,
    bed: f32,
    water_m: f32,
    coast_m: f32,
    /// The structure term's weight.
    pub(super) structure: f32,
    /// How much of the column is a town's street.
    street: f32,
}

/// What of the layout and the towns can reach one region's columns, found
/// once a region so that each column skips the rest (the same surface).
pub(super) struct RegionNear {
    /// The stamps, river segments, lakes and coast that may reach the region.
    layout: LayoutNear,
    /// The towns that may level one of its columns.
    towns: TownsNear,
}

impl RegionNear {
    /// No filter: for a single direction.
    pub(super) fn everything() -> Self {
        Self { layout: LayoutNear::everything(), towns: TownsNear::Everything }
    }
}

impl Terrain {
    /// What may reach the columns at `directions` (unit).
    fn region_near(&self, directions: impl Iterator<Item = Vec3> + Clone) -> RegionNear {
        match bound(directions) {
            Some((centre, angle)) => RegionNear {
                layout: self.layout.near(centre, self.chord_m(angle)),
                towns: self.settlements.near(centre, angle),
            },
            None => RegionNear::everything(),
        }
    }

    /// What of `region` may reach the columns at `directions`, some of
    /// those `region` was made for (the same surface).
    fn tile_near(&self, region: &RegionNear, directions: impl Iterator<Item = Vec3> + Clone) -> RegionNear {
        match bound(directions) {
            Some((centre, angle)) => RegionNear {
                layout: self.layout.narrow(&region.layout, centre, self.chord_m(angle)),
                towns: self.settlements.narrow(&region.towns, centre, angle),
            },
            None => RegionNear::everything(),
        }
    }

    /// The chord of `angle` radians on the base sphere, metres.
    fn chord_m(&self, angle: f32) -> f32 {
        2.0 * libm::sinf(angle * 0.5) * self.grid.radius_m
    }

    /// The 2D surface at `d` from its smooth fields, in the ladder's order
    /// (ARCHITECTURE.md, "Precedence"): the base height and the stamps (in
    /// `coarse.elevation_m`), hills, detail and the ridges on the stamps,
    /// then the rivers' valley and channel carves. `margin_m`: how far
    /// beyond a channel its water is kept (the water mesh's quad size).
    pub(super) fn relief(
        &self,
        near: &RegionNear,
        d: Vec3,
        coarse: CoarseFields,
        cell_m: f32,
        margin_m: f32,
    ) -> Relief {
        let t = &self.recipe.terrain;
        let ridges = if coarse.mountain > 0.0 {
            let basis = &coarse.ridge_basis[..self.fields.ridge_lattice_octaves(Self::node_spacing_m(cell_m))];
            self.fields.ridges_from(d, cell_m, basis) * coarse.mountain * t.mountains.height_m
        } else {
            0.0
        };
        let uncarved = coarse.hills_m + self.fields.detail_m(d, cell_m) + ridges;
        let plan = self.layout.column_near(&near.layout, d, coarse.elevation_m + uncarved, margin_m);
        // The carves never reach the bottom of the voxel shell.
        let floor = -(self.grid.shell_below_m - 4.0 - t.overhangs.amplitude_m).max(0.0);
        let carved = (plan.river.ground_m - coarse.elevation_m).max(floor.min(uncarved));
        // The structure term: a building's footprint levelled to its base.
        let levelling = self.settlements.levelling_near(&near.towns, d);
        let (height_m, structure, street) = match levelling {
            Some(l) => (carved + (l.base_m - coarse.elevation_m - carved) * l.weight, l.weight, l.street),
            None => (carved, 0.0, 0.0),
        };
        Relief {
            coarse,
            height_m,
            structure,
            street,
            river: plan.river.valley,
            bed: plan.river.bed,
            water_m: plan.river.water_m.unwrap_or(NO_WATER),
            coast_m: plan.coast_m,
        }
    }

    /// The smooth fields at `d` with the belts' stamps (their height on the
    /// elevation, their weight as the mountain mask), for a column of cells
    /// `cell_m` wide: with the ridges' long octaves where a stamp stands.
    #[must_use]
    pub fn coarse(&self, d: Vec3, cell_m: f32) -> CoarseFields {
        let mut c = self.coarse_near(&RegionNear::everything(), d, cell_m, 0);
        if c.mountain > 0.0 {
            let octaves = self.fields.ridge_lattice_octaves(Self::node_spacing_m(cell_m));
            c.ridge_basis = self.fields.ridge_basis(d, octaves);
        }
        c
    }

    /// The smooth fields at lattice node `d`, `node_cell_m` from the next,
    /// with the ridges' long octaves (whether a stamp stands there or not:
    /// the columns between it and a node on a stamp read them).
    #[must_use]
    pub fn node_coarse(&self, d: Vec3, node_cell_m: f32) -> CoarseFields {
        let octaves = self.fields.ridge_lattice_octaves(node_cell_m);
        self.coarse_near(&RegionNear::everything(), d, node_cell_m, octaves)
    }

    /// `coarse` for a point of the bound `near` was made for (the same
    /// result), with the basis of the ridges' first `ridge_octaves` octaves.
    fn coarse_near(&self, near: &RegionNear, d: Vec3, cell_m: f32, ridge_octaves: usize) -> CoarseFields {
        let mut c = self.fields.coarse(d, cell_m);
        let s = self.layout.stamps_near(&near.layout, d);
        c.elevation_m += s.height_m;
        c.mountain = s.weight;
        if ridge_octaves > 0 {
            c.ridge_basis = self.fields.ridge_basis(d, ridge_octaves);
        }
        c
    }

    /// The elevated surface's offset from the base radius at `d`, stamps included.
    #[inline]
    #[must_use]
    pub fn elevation_m(&self, d: Vec3, cell_m: f32) -> f32 {
        self.fields.base_elevation_m(d, cell_m) + self.layout.stamps_at(d).height_m
    }

    /// The ground of a column: climate, then the river bed's material over
    /// it, then a town street's.
    fn column_ground(&self, relief: &Relief, temperature: f32, wet: f32, altitude: f32, slope_deg: f32) -> Ground {
        let r = &self.recipe;
        let mut g = ground(r, temperature, wet, altitude, slope_deg, relief.coast_m);
        for (material, share) in
            [(r.terrain.rivers.bed_material, relief.bed), (r.settlements.street_material, relief.street)]
        {
            if share > 0.0 {
                let mut mixed = (g.surface, f32::from(g.blend) / 65535.0);
                mix(&mut mixed, material as u8, share);
                g.surface = mixed.0;
                g.blend = (mixed.1.clamp(0.0, 1.0) * 65535.0) as u16;
            }
        }
        g
    }

    /// The 2D pass for `key` (which must be a checked key of this planet).
    #[must_use]
    pub fn columns(&self, key: RegionKey) -> ColumnField {
        self.columns_reading(key, true)
    }

    /// The 2D pass, its columns reading only the river segments and towns
    /// that reach the region and their tile (`read_near`) or everything (the
    /// same field: tested).
    fn columns_reading(&self, key: RegionKey, read_near: bool) -> ColumnField {
        let lod = key.lod;
        let cell_m = self.grid.cell_m(lod);
        let node_cell_m = self.node_cell_m(lod);
        let r = &self.recipe;
        // A 38² window: one column of margin around the 36² sample window, for slopes.
        let window = Window::new(&self.grid, key, 3);
        // The bound of the columns and the lattice nodes around them.
        let near = if read_near {
            self.region_near(window.sites.iter().map(|s| s.direction).chain(window.node_directions.iter().copied()))
        } else {
            RegionNear::everything()
        };
        // The ridges' long octaves at every node, where a stamp may stand on a column.
        let ridge_octaves =
            if near.layout.may_hold_stamps() { self.fields.ridge_lattice_octaves(node_cell_m) } else { 0 };
        let nodes: Vec<[f32; CoarseFields::COUNT]> = window
            .node_directions
            .iter()
            .map(|&d| self.coarse_near(&near, d, node_cell_m, ridge_octaves).to_array())
            .collect();
        let margin_m = 2.0 * cell_m;
        let wide = window.side;
        // What reaches each tile of the window, tiles x fastest.
        let across = wide.div_ceil(TILE);
        let tile_nears: Vec<RegionNear> = (0..across * across)
            .map(|t| {
                let (rows, columns) = (tile_span(t / across, wide), tile_span(t % across, wide));
                let sites = &window.sites;
                let directions = rows.flat_map(|b| columns.clone().map(move |a| sites[b * wide + a].direction));
                if read_near { self.tile_near(&near, directions) } else { RegionNear::everything() }
            })
            .collect();
        let reliefs: Vec<Relief> = window
            .sites
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let tile = &tile_nears[(i / wide / TILE) * across + i % wide / TILE];
                let coarse = CoarseFields::from_array(Window::interpolate(s, &nodes));
                self.relief(tile, s.direction, coarse, cell_m, margin_m)
            })
            .collect();
        let sea = if r.sea.enabled { r.sea.level_m } else { 0.0 };
        let mut columns = Vec::with_capacity(WINDOW * WINDOW);
        for b in 1..wide - 1 {
            for a in 1..wide - 1 {
                let i = b * wide + a;
                let site = &window.sites[i];
                let relief = reliefs[i];
                let surface = relief.coarse.elevation_m + relief.height_m;
                let slope_deg = match site.canonical {
                    Some(c) if !near_cube_corner(&self.grid, lod, c, 4) => {
                        let pair = |p: usize, q: usize| {
                            // |dh / dx| between two opposite neighbours; symmetric in p, q.
                            let dh = (reliefs[p].coarse.elevation_m + reliefs[p].height_m)
                                - (reliefs[q].coarse.elevation_m + reliefs[q].height_m);
                            let dx =
                                (window.sites[p].direction - window.sites[q].direction).length() * self.grid.radius_m;
                            let g = dh.abs() / dx;
                            g * g
                        };
                        let g2 = pair(i + 1, i - 1) + pair(i + wide, i - wide);
                        libm::atanf(libm::sqrtf(g2)).to_degrees()
                    }
                    // Beyond or beside a cube corner, where neighbours depend on the frame: flat.
                    _ => 0.0,
                };
                let altitude = surface - sea;
                let temperature = temperature_c(r, site.direction, altitude, relief.coarse.temperature_noise);
                let wet = moisture(r, relief.coarse.moisture_noise);
                let g = self.column_ground(&relief, temperature, wet, altitude, slope_deg);
                columns.push(Column {
                    direction: site.direction,
                    elevation_m: relief.coarse.elevation_m,
                    height_m: relief.height_m,
                    slope_deg,
                    mountain: relief.coarse.mountain,
                    river: relief.river,
                    structure: relief.structure,
                    water_m: relief.water_m,
                    temperature_c: temperature,
                    moisture: wet,
                    biome: g.biome,
                    surface: g.surface,
                    blend: g.blend,
                    subsurface: g.subsurface,
                    surface_depth_m: g.surface_depth_m,
                });
            }
        }
        ColumnField { key, columns }
    }

    /// The height of the 2D surface above the base radius at any direction,
    /// metres: `surface_at(d).surface_m` without the climate, for bounds and
    /// cameras that only need the ground's height.
    #[must_use]
    pub fn surface_height_at(&self, d: Vec3) -> f32 {
        let cell_m = self.grid.cell_m(0);
        let relief = self.relief(&RegionNear::everything(), d, self.coarse(d, cell_m), cell_m, 0.0);
        relief.coarse.elevation_m + relief.height_m
    }

    /// The 2D surface's height above the base radius at `d` and the smooth
    /// fields there, with octaves limited as for cells of `cell_m` metres: the
    /// scatter habitat samples this on its own world-fixed lattice.
    #[must_use]
    pub fn surface_with(&self, d: Vec3, cell_m: f32) -> (f32, CoarseFields) {
        let relief = self.relief(&RegionNear::everything(), d, self.coarse(d, cell_m), cell_m, 0.0);
        (relief.coarse.elevation_m + relief.height_m, relief.coarse)
    }

    /// The 2D surface at any direction, from the exact fields (no lattice): for
    /// maps, and for placing cell-owned features the same way at every LOD.
    #[must_use]
    pub fn surface_at(&self, d: Vec3) -> SurfaceSample {
        let cell_m = self.grid.cell_m(0);
        let relief = self.relief(&RegionNear::everything(), d, self.coarse(d, cell_m), cell_m, 2.0);
        let r = &self.recipe;
        let surface = relief.coarse.elevation_m + relief.height_m;
        let sea = if r.sea.enabled { r.sea.level_m } else { 0.0 };
        let temperature = temperature_c(r, d, surface - sea, relief.coarse.temperature_noise);
        let wet = moisture(r, relief.coarse.moisture_noise);
        SurfaceSample {
            elevation_m: relief.coarse.elevation_m,
            surface_m: surface,
            temperature_c: temperature,
            moisture: wet,
            mountain: relief.coarse.mountain,
            river: relief.river,
            water_m: relief.water_m,
            ground: self.column_ground(&relief, temperature, wet, surface - sea, 0.0),
        }
    }
}

/// Columns along a side of a tile: each tile of a window reads only what of
/// its region's river segments and town buildings may reach it.
const TILE: usize = 8;

/// The columns (or rows) of tile `i` along a window `side` columns wide.
fn tile_span(i: usize, side: usize) -> std::ops::Range<usize> {
    i * TILE..((i + 1) * TILE).min(side)
}

/// The bound of `directions` (unit): their centre and the largest angle
/// from it to one of them; `None` where they have no centre.
fn bound(directions: impl Iterator<Item = Vec3> + Clone) -> Option<(Vec3, f32)> {
    let centre = directions.clone().fold(Vec3::ZERO, |sum, d| sum + d).normalize_or_zero();
    if centre == Vec3::ZERO {
        return None;
    }
    let widest = directions.map(|d| centre.dot(d)).fold(1.0f32, f32::min);
    Some((centre, libm::acosf(widest.clamp(-1.0, 1.0))))
}

/// The 2D ground around one place, for many directions near it: what may
/// reach it (rivers, towns) is found once (see `Terrain::ground_probe`).
pub struct GroundProbe<'a> {
    terrain: &'a Terrain,
    near: RegionNear,
    cell_m: f32,
}

/// The 2D ground at one direction (see `GroundProbe::at`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundSample {
    /// The 2D terrain surface, metres above the base radius.
    pub surface_m: f32,
    /// River or lake water over the point (`NO_WATER` where none).
    pub water_m: f32,
    /// How much a building levels it, 0..=1.
    pub structure: f32,
}

impl std::fmt::Debug for GroundProbe<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroundProbe").field("cell_m", &self.cell_m).field("towns", &self.near.towns).finish()
    }
}

impl GroundProbe<'_> {
    /// The 2D ground at `d` (unit, within the probe's reach).
    #[must_use]
    pub fn at(&mut self, d: Vec3) -> GroundSample {
        let t = self.terrain;
        let relief = t.relief(&self.near, d, t.coarse(d, self.cell_m), self.cell_m, 0.0);
        GroundSample {
            surface_m: relief.coarse.elevation_m + relief.height_m,
            water_m: relief.water_m,
            structure: relief.structure,
        }
    }
}

impl Terrain {
    /// A probe of the 2D ground within `reach_m` of direction `centre`, its
    /// fields' octaves limited as for cells of `cell_m` metres: a cheap
    /// reading of coarse ground for paths planned before any region exists.
    #[must_use]
    pub fn ground_probe(&self, centre: Vec3, reach_m: f32, cell_m: f32) -> GroundProbe<'_> {
        let angle = (reach_m / self.grid.radius_m).min(1.0);
        let (s, c) = (libm::sinf(angle), libm::cosf(angle));
        // Four directions on the reach's rim bound it for `region_near`.
        let (a, b) = (centre.any_orthonormal_vector(), centre.cross(centre.any_orthonormal_vector()));
        let rim = [centre * c + a * s, centre * c - a * s, centre * c + b * s, centre * c - b * s];
        GroundProbe { terrain: self, near: self.region_near(rim.into_iter()), cell_m }
    }
}

/// The surface at one direction (see `Terrain::surface_at`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceSample {
    /// The elevated surface, metres above the base radius.
    pub elevation_m: f32,
    /// The 2D terrain surface, metres above the base radius.
    pub surface_m: f32,
    /// Temperature, °C.
    pub temperature_c: f32,
    /// Moisture, 0..=1.
    pub moisture: f32,
    /// Mountain mask.
    pub mountain: f32,
    /// River valley mask.
    pub river: f32,
    /// River or lake water over the point (`NO_WATER` where none).
    pub water_m: f32,
    /// Biome and materials (slope not considered).
    pub ground: Ground,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlannedSystem;
    use crate::terrain::lat_lon_direction;
    use glam::Vec2;

    /// Reading only what reaches a region changes no column: over regions on
    /// rivers, by lakes, on shores, on town buildings and roads, and at
    /// random directions of the five default planets, LODs 0 to 4, face
    /// edges among them.
    #[test]
    fn columns_reading_what_reaches_the_region_are_the_same() {
        let (mut checked, mut with_rivers, mut in_towns, mut by_lakes, mut on_shores, mut on_stamps) =
            (0, 0, 0, 0, 0, 0);
        for plan in PlannedSystem::default_system().planets {
            let t = Terrain::new(&plan);
            let mut directions: Vec<Vec3> =
                t.layout.data.rivers.iter().flat_map(|r| r.points.iter().step_by(7).map(|p| p.direction)).collect();
            directions.truncate(60);
            let grid = t.layout.grid();
            let (sea, beach) = (t.recipe.sea.level_m, t.recipe.surface.beach as u8);
            // Stamps' flanks, where their footprints' edges cross regions.
            let r = t.recipe.radius_m;
            let flank = |s: &crate::layout::Stamp| (s.centre + s.axis * (s.radius_m * 0.9 / r)).normalize();
            directions.extend(t.layout.data.stamps.iter().step_by(5).take(12).map(flank));
            // A lake's edge cells, where its water meets the shore.
            directions
                .extend(t.layout.data.lakes.iter().take(10).filter_map(|l| l.cells.last()).map(|&c| grid.centre(c)));
            let shore = (0..grid.len() as u32)
                .map(|c| grid.centre(c))
                .filter(|&d| t.layout.coast_m(d) < t.recipe.surface.beach_length_m && t.surface_at(d).surface_m > sea);
            directions.extend(shore.step_by(97).take(10));
            for i in 0..t.settlements.data.sites.len().min(12) {
                let frame = t.settlements.frame(i);
                directions.push(frame.centre);
                if let Some(town) = t.settlements.town(i) {
                    let building = town.buildings.iter().map(|b| Vec2::from(b.centre)).next();
                    let road = town.route.get(town.route.len() / 2).map(|&p| Vec2::from(p));
                    directions.extend(building.into_iter().chain(road).map(|p| frame.direction(p)));
                }
            }
            let mut h = u64::from(plan.index) * 7919 + 1;
            let mut next = || {
                h = h.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                (h >> 40) as f32 / (1u64 << 24) as f32
            };
            directions.extend((0..16).map(|_| lat_lon_direction(next() * 180.0 - 90.0, next() * 360.0 - 180.0)));
            // Beside a face edge and a cube corner.
            directions.push(Vec3::new(1.0, 1.0, 0.2).normalize());
            directions.push(Vec3::new(1.0, 1.0, 1.0).normalize());
            for (n, d) in directions.iter().enumerate() {
                let key = t.surface_key(*d, (n % 5) as u8);
                let fast = t.columns_reading(key, true);
                assert!(fast == t.columns_reading(key, false), "planet {} region {key:?}", plan.index);
                checked += 1;
                with_rivers += usize::from(fast.columns.iter().any(|c| c.river > 0.0));
                in_towns += usize::from(fast.columns.iter().any(|c| c.structure > 0.0));
                by_lakes += usize::from(fast.columns.iter().any(|c| c.water_m > NO_WATER && c.river <= 0.0));
                on_shores += usize::from(fast.columns.iter().any(|c| c.surface.contains(&beach)));
                on_stamps += usize::from(fast.columns.iter().any(|c| c.mountain > 0.0));
            }
        }
        eprintln!(
            "{checked} regions the same: {with_rivers} with a river's valley, {in_towns} levelled by a town, \
             {by_lakes} with lake water, {on_shores} with beach, {on_stamps} on a stamp"
        );
        assert!(
            checked >= 400
                && with_rivers >= 100
                && in_towns >= 40
                && by_lakes >= 10
                && on_shores >= 10
                && on_stamps >= 30,
            "{checked} {with_rivers} {in_towns} {by_lakes} {on_shores} {on_stamps}"
        );
    }
}
