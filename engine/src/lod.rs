//! The region tree per cube face: which columns of regions the camera wants.
//! Each face is a quadtree of columns, from one column per face (the coarsest
//! LOD) down to LOD 0; a column is split while the camera is nearer than
//! `split` times its width, so each LOD doubles outward, with hysteresis so a
//! camera resting on a boundary does not thrash, and never beyond the horizon.
//! A column stands for every region stacked through the voxel shell.
//!
//! A moving camera is met half-way: a column is split while the camera is,
//! or within `look_ahead_s` will be, near enough (along its velocity), so
//! the ground ahead is wanted before the camera arrives; and a column is not
//! split into children the camera would pass in less than `min_dwell_s`
//! (they could not be built in time, and building them would only delay
//! what can be), so the finest LOD coarsens with the ground speed.

use glam::DVec3;
use planet::geometry::{GridPoint, MARGIN, PlanetGrid, REGION_CELLS};
use planet::terrain::Terrain;
use planet::{Face, RegionKey};
use serde::{Deserialize, Serialize};

use crate::camera::Camera;
use crate::{FastMap, FastSet};

/// A column of regions: one (face, lod, x, y), every layer of the shell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ColumnKey {
    /// Face, 0..=5.
    pub face: u8,
    /// Level of detail.
    pub lod: u8,
    /// Column along the face's u axis.
    pub x: u32,
    /// Column along the face's v axis.
    pub y: u32,
}

impl ColumnKey {
    /// The column holding `key`.
    #[must_use]
    pub fn of(key: RegionKey) -> Self {
        Self { face: key.face, lod: key.lod, x: key.x, y: key.y }
    }

    /// Its region at layer `z`.
    #[must_use]
    pub fn region(self, z: u32) -> RegionKey {
        RegionKey { face: self.face, lod: self.lod, x: self.x, y: self.y, z }
    }

    /// Its every region, bottom first (an iterator: the streamer asks this
    /// of every shown column every frame, and a list each time showed in
    /// its profile).
    pub fn regions(self, grid: &PlanetGrid) -> impl ExactSizeIterator<Item = RegionKey> + Clone + use<> {
        (0..grid.regions_up(self.lod)).map(move |z| self.region(z))
    }

    /// The four columns one LOD finer inside it (LOD > 0).
    #[must_use]
    pub fn children(self) -> [ColumnKey; 4] {
        let lod = self.lod - 1;
        [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(dx, dy)| ColumnKey {
            face: self.face,
            lod,
            x: self.x * 2 + dx,
            y: self.y * 2 + dy,
        })
    }

    /// The column one LOD coarser that holds it.
    #[must_use]
    pub fn parent(self) -> ColumnKey {
        ColumnKey { face: self.face, lod: self.lod + 1, x: self.x / 2, y: self.y / 2 }
    }

    /// Its area in LOD-0 columns.
    #[must_use]
    pub fn area(self) -> u64 {
        1 << (2 * u32::from(self.lod))
    }

    /// The column at `lod` holding face grid point (x, y) of LOD 0, on `face`.
    #[must_use]
    pub fn at(face: u8, lod: u8, x0: u32, y0: u32) -> Self {
        Self { face, lod, x: x0 >> lod, y: y0 >> lod }
    }
}

/// How high above the ground what stands on it may reach, metres: the
/// tallest tree, building or animal, as the renderer bounds them.
pub const STANDING_M: f64 = 80.0;

/// How the tree is split.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LodSettings {
    /// Split a column while the camera is nearer than this many column widths.
    pub split: f64,
    /// Keep a split column split until the camera is `1 + hysteresis` times as far.
    pub hysteresis: f64,
    /// The finest LOD streamed.
    pub min_lod: u8,
    /// How far ahead along the camera's velocity the tree looks, seconds:
    /// a column is split if the camera will be near enough within this time.
    pub look_ahead_s: f64,
    /// The least time the camera may take to pass a column for the column
    /// to be wanted, seconds: no column is split into children narrower
    /// than the ground speed times this, over `1 + 2 * split` (the span of
    /// ground in which a column stays wanted). 0: every LOD at any speed.
    pub min_dwell_s: f64,
}

impl Default for LodSettings {
    fn default() -> Self {
        Self { split: 1.0, hysteresis: 0.25, min_lod: 0, look_ahead_s: 0.5, min_dwell_s: 0.25 }
    }
}

impl LodSettings {
    /// The same tree for a camera standing still: no look-ahead, no
    /// resolution traded for speed (the static target a deficit is measured
    /// against).
    #[must_use]
    pub fn fixed(self) -> Self {
        Self { look_ahead_s: 0.0, min_dwell_s: 0.0, ..self }
    }

    /// The same tree without look-ahead, but with its speed limit: what
    /// the speed allows where the camera is now.
    #[must_use]
    pub fn speed_allowed(self) -> Self {
        Self { look_ahead_s: 0.0, ..self }
    }
}

/// Where a column is: a bounding sphere in planet space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Centre: the surface under the column's centre.
    pub centre: DVec3,
    /// Radius holding the column's shell and terrain.
    pub radius: f64,
}

/// The region tree of one planet.
#[derive(Debug)]
pub struct LodTree {
    settings: LodSettings,
    grid: PlanetGrid,
    /// Lowest and highest surface radius anywhere, for the horizon.
    surface_range: (f64, f64),
    split: FastSet<ColumnKey>,
    bounds: FastMap<ColumnKey, Bounds>,
}

impl LodTree {
    /// The tree of the planet of `terrain`.
    #[must_use]
    pub fn new(terrain: &Terrain, settings: LodSettings) -> Self {
        let r = &terrain.recipe;
        let base = f64::from(r.radius_m);
        let low = base - f64::from(r.elevation.amplitude_m) - f64::from(terrain.grid.shell_below_m);
        let high = base + f64::from(r.elevation.max_rise_m()) + f64::from(terrain.grid.shell_m);
        Self {
            settings,
            grid: terrain.grid.clone(),
            surface_range: (low, high),
            split: FastSet::default(),
            bounds: FastMap::default(),
        }
    }

    /// The planet's grid.
    #[must_use]
    pub fn grid(&self) -> &PlanetGrid {
        &self.grid
    }

    /// The six columns that cover the planet at the coarsest LOD.
    #[must_use]
    pub fn roots(&self) -> [ColumnKey; 6] {
        let lod = self.grid.max_lod;
        core::array::from_fn(|f| ColumnKey { face: f as u8, lod, x: 0, y: 0 })
    }

    /// Width of a column at `lod`, metres (on the base sphere, at a face centre).
    #[must_use]
    pub fn width(&self, lod: u8) -> f64 {
        f64::from(self.grid.cell_m(lod)) * f64::from(REGION_CELLS)
    }

    /// The bounding sphere of a column (computed once, then remembered).
    pub fn bounds(&mut self, terrain: &Terrain, c: ColumnKey) -> Bounds {
        if let Some(b) = self.bounds.get(&c) {
            return *b;
        }
        let b = column_bounds(terrain, &self.grid, c);
        self.bounds.insert(c, b);
        b
    }

    /// Whether anything column `c` holds may be in `camera`'s view: its
    /// terrain, blocks and water, and what stands on them (objects,
    /// buildings and animals, within [`STANDING_M`] of the ground). All of
    /// it lies within reach of the radial segment under the column's
    /// centre, from below the lowest ground the planet has to above its
    /// highest, reach being the footprint's (at that height) and the cells
    /// a region's margin holds beyond it: where no point that near the
    /// segment is in the view cone, no pixel of the column is in the frame.
    #[must_use]
    pub fn may_show(&self, c: ColumnKey, camera: &Camera) -> bool {
        let (mid, reach) = footprint(&self.grid, c);
        let base = f64::from(self.grid.radius_m);
        // The shell's height again beyond the planet's range either way.
        let pad = f64::from(self.grid.shell_m);
        let (low, high) = (self.surface_range.0 - pad, self.surface_range.1 + pad);
        let cells = f64::from(MARGIN + 1) * f64::from(self.grid.cell_m(c.lod)) * core::f64::consts::SQRT_2;
        let radius = (reach + cells) * high / base + STANDING_M;
        camera.sees_segment(mid * low, mid * high, radius)
    }

    /// Whether `c` is split now.
    #[must_use]
    pub fn is_split(&self, c: ColumnKey) -> bool {
        self.split.contains(&c)
    }

    /// The split columns (every ancestor of a wanted leaf), sorted: the
    /// streamer keeps them built as the fallback each shows while one of its
    /// leaves is missing.
    #[must_use]
    pub fn split_columns(&self) -> Vec<ColumnKey> {
        let mut out: Vec<ColumnKey> = self.split.iter().copied().collect();
        out.sort_unstable();
        out
    }

    /// The finest LOD a camera moving as `camera` does may want: the
    /// finest whose columns it passes in no less than `min_dwell_s` at its
    /// ground speed (climbing and diving do not carry it past columns).
    #[must_use]
    pub fn min_lod_at(&self, camera: &Camera) -> u8 {
        let up = camera.position.normalize_or_zero();
        let ground_speed = (camera.velocity - up * camera.velocity.dot(up)).length();
        let span = ground_speed * self.settings.min_dwell_s / (1.0 + 2.0 * self.settings.split);
        let mut lod = self.settings.min_lod;
        while lod < self.grid.max_lod && self.width(lod) < span {
            lod += 1;
        }
        lod
    }

    /// Updates the tree for `camera` and returns the wanted leaves, sorted.
    pub fn update(&mut self, terrain: &Terrain, camera: &Camera) -> Vec<ColumnKey> {
        let mut leaves = Vec::new();
        let mut split = FastSet::default();
        let mut stack: Vec<ColumnKey> = self.roots().to_vec();
        let (low, high) = self.surface_range;
        let from_centre = camera.position.length();
        // How far the camera sees over the curve of the planet to the lowest ground,
        // and how far the highest ground rises into view from beyond it.
        let horizon = if from_centre > low { libm::sqrt(from_centre * from_centre - low * low) } else { 0.0 }
            + libm::sqrt((high * high - low * low).max(0.0));
        let ahead = camera.velocity * self.settings.look_ahead_s;
        let min_lod = self.min_lod_at(camera);
        while let Some(c) = stack.pop() {
            let b = self.bounds(terrain, c);
            let now = (b.centre.distance(camera.position) - b.radius).max(0.0);
            let soon = (segment_distance(b.centre, camera.position, ahead) - b.radius).max(0.0);
            let factor = if self.split.contains(&c) {
                self.settings.split * (1.0 + self.settings.hysteresis)
            } else {
                self.settings.split
            };
            let wants_split = c.lod > min_lod && soon < factor * self.width(c.lod) && now <= horizon;
            if wants_split {
                split.insert(c);
                stack.extend(c.children());
            } else {
                leaves.push(c);
            }
        }
        self.split = split;
        leaves.sort_unstable();
        // Remember bounds only for the tree as it stands (every node is split or a leaf), so a
        // long flight does not grow the memo without end.
        if self.bounds.len() > 4 * (self.split.len() + leaves.len()) + 64 {
            let (tree, leaf_set) = (&self.split, &leaves);
            self.bounds.retain(|c, _| tree.contains(c) || leaf_set.binary_search(c).is_ok());
        }
        leaves
    }
}

/// The distance from `point` to the segment from `start` along `offset`.
fn segment_distance(point: DVec3, start: DVec3, offset: DVec3) -> f64 {
    let length_squared = offset.length_squared();
    if length_squared == 0.0 {
        return point.distance(start);
    }
    let t = ((point - start).dot(offset) / length_squared).clamp(0.0, 1.0);
    point.distance(start + offset * t)
}

/// The bounding sphere of a column: the surface under its centre, and the
/// farthest of its corners on the base sphere, plus the elevation's range.
fn column_bounds(terrain: &Terrain, grid: &PlanetGrid, c: ColumnKey) -> Bounds {
    let (mid, reach) = footprint(grid, c);
    let base = f64::from(grid.radius_m);
    let centre = mid * (base + f64::from(terrain.surface_height_at(mid.as_vec3())));
    let r = &terrain.recipe;
    let vertical = f64::from(r.elevation.amplitude_m + r.elevation.max_rise_m()) + f64::from(grid.shell_m);
    // The ground under a small column varies little about its centre (a 1:2
    // slope at most, in practice); a large column holds the elevation's whole
    // range. The shell above the ground is air and sky, and is not counted:
    // what the camera's distance is measured to is the ground.
    let rise = vertical.min(reach * 0.5);
    Bounds { centre, radius: reach + rise }
}

/// The direction under a column's centre, and the farthest of its corners
/// from it on the base sphere, metres.
fn footprint(grid: &PlanetGrid, c: ColumnKey) -> (DVec3, f64) {
    let face = Face::from_index(c.face).expect("columns hold faces 0..=5");
    let span = REGION_CELLS;
    let at = |x: i32, y: i32| grid.direction(c.lod, GridPoint { face, x, y }).as_dvec3();
    let (x0, y0) = (c.x as i32 * span, c.y as i32 * span);
    let mid = at(x0 + span / 2, y0 + span / 2);
    let base = f64::from(grid.radius_m);
    let reach = [(x0, y0), (x0 + span, y0), (x0, y0 + span), (x0 + span, y0 + span)]
        .iter()
        .map(|&(x, y)| (at(x, y) * base).distance(mid * base))
        .fold(0.0, f64::max);
    (mid, reach)
}

#[cfg(test)]
mod tests {
    use super::*;
    use planet::PlannedSystem;

    #[test]
    fn lods_double_outward_and_cover_the_planet() {
        let terrain = Terrain::new(&PlannedSystem::default_system().planets[1]);
        let mut tree = LodTree::new(&terrain, LodSettings::default());
        let d = planet::terrain::lat_lon_direction(20.0, 30.0);
        let surface = f64::from(terrain.recipe.radius_m + terrain.surface_at(d).surface_m);
        let camera = Camera::new(d.as_dvec3() * (surface + 2.0), DVec3::X);
        let leaves = tree.update(&terrain, &camera);
        // Exact cover: areas add up to the six faces.
        let n0 = u64::from(tree.grid().regions_across(0));
        assert_eq!(leaves.iter().map(|c| c.area()).sum::<u64>(), 6 * n0 * n0);
        // LOD 0 under the camera, coarse far away.
        assert!(leaves.iter().any(|c| c.lod == 0));
        // Columns on the far side of the planet stay coarse.
        let far_face = Face::of_direction(-d) as u8;
        assert!(leaves.iter().filter(|c| c.face == far_face).all(|c| c.lod + 1 >= tree.grid().max_lod), "{leaves:?}");
        let per_lod: Vec<usize> =
            (0..=tree.grid().max_lod).map(|l| leaves.iter().filter(|c| c.lod == l).count()).collect();
        // Each LOD a ring of roughly the same count.
        assert!(per_lod[..7].iter().all(|&n| (16..=96).contains(&n)), "{per_lod:?}");
        assert!(leaves.len() < 400, "{} leaves: {per_lod:?}", leaves.len());
        // From orbit, only coarse columns.
        let far = Camera::new(d.as_dvec3() * (surface + 50_000.0), -d.as_dvec3());
        let leaves = tree.update(&terrain, &far);
        assert!(leaves.iter().all(|c| c.lod + 3 >= tree.grid().max_lod), "{leaves:?}");
    }

    /// Whether some leaf of `leaves` holds `c` and is coarser than it.
    fn coarser_over(leaves: &[ColumnKey], c: ColumnKey) -> bool {
        leaves.iter().any(|&l| l != c && crate::streamer::descends_from(c, l))
    }

    #[test]
    fn a_moving_camera_looks_ahead_and_coarsens_with_speed() {
        let terrain = Terrain::new(&PlannedSystem::default_system().planets[1]);
        let settings = LodSettings::default();
        let mut stream = planet::hash::HashStream::new(21);
        for case in 0..200 {
            let (lat, lon) = (stream.range_f64(-85.0, 85.0), stream.range_f64(-180.0, 180.0));
            let d = planet::terrain::lat_lon_direction(lat as f32, lon as f32).as_dvec3();
            let surface = f64::from(terrain.recipe.radius_m + terrain.surface_at(d.as_vec3()).surface_m);
            let altitude = [2.0, 100.0, 1_000.0, 20_000.0][case % 4] * stream.range_f64(0.5, 1.5);
            let velocity =
                DVec3::new(stream.range_f64(-1.0, 1.0), stream.range_f64(-1.0, 1.0), stream.range_f64(-1.0, 1.0))
                    * stream.range_f64(0.0, 4_000.0);
            let camera = Camera::new(d * (surface + altitude), -d).moving(velocity);
            let mut trees = [settings, settings.speed_allowed(), settings.fixed()].map(|s| LodTree::new(&terrain, s));
            let [moving, allowed, fixed] = trees.each_mut().map(|t| t.update(&terrain, &camera));
            for leaves in [&moving, &allowed, &fixed] {
                crate::coverage::check_exact_cover(trees[0].grid(), leaves).unwrap();
            }
            let min_lod = trees[0].min_lod_at(&camera);
            assert!(moving.iter().all(|c| c.lod >= min_lod), "case {case}: a leaf finer than LOD {min_lod}");
            // Looking ahead only refines; the speed limit only coarsens.
            assert!(!allowed.iter().any(|&c| coarser_over(&moving, c)), "case {case}: coarser with look-ahead");
            assert!(!fixed.iter().any(|&c| coarser_over(&allowed, c) && c.lod >= min_lod), "case {case}");
            assert!(!allowed.iter().any(|&c| coarser_over(&fixed, c)), "case {case}: finer than at rest");
        }
    }

    #[test]
    fn the_ground_ahead_is_wanted_finer_than_behind_and_speed_sets_the_finest_lod() {
        let terrain = Terrain::new(&PlannedSystem::default_system().planets[1]);
        let mut tree = LodTree::new(&terrain, LodSettings::default());
        let k = |lon: f64| crate::path::Keyframe {
            t: 0.0,
            lat: 10.0,
            lon,
            altitude_m: 100.0,
            heading_deg: -90.0,
            pitch_deg: -10.0,
        };
        let camera = crate::path::keyframe_camera(&terrain, &k(0.0));
        // Heading -90 looks toward increasing longitude (headings turn
        // clockwise seen from above; longitude grows the other way).
        let east = crate::path::view_direction(camera.position.normalize(), -90.0, 0.0);
        let fast = camera.moving(east * 1_000.0);
        let leaves = tree.update(&terrain, &fast);
        let set: std::collections::BTreeSet<ColumnKey> = leaves.iter().copied().collect();
        // Points ahead and behind on latitude 10 (a degree is 68.8 m there):
        // never coarser ahead, and finer somewhere within the look-ahead.
        let lod_at = |metres: f64| {
            let d = crate::path::keyframe_camera(&terrain, &k(metres / 68.8)).position.normalize().as_vec3();
            crate::coverage::column_at(tree.grid(), &set, d).unwrap().lod
        };
        let pairs: Vec<(u8, u8)> =
            (1..=10).map(|i| (lod_at(100.0 * f64::from(i)), lod_at(-100.0 * f64::from(i)))).collect();
        assert!(pairs.iter().all(|(ahead, behind)| ahead <= behind), "(ahead, behind) LODs every 100 m: {pairs:?}");
        assert!(pairs.iter().any(|(ahead, behind)| ahead < behind), "(ahead, behind) LODs every 100 m: {pairs:?}");
        // Walking and flying slowly keep LOD 0; 1 km/s and 3 km/s coarsen
        // it; diving straight down does not.
        let up = camera.position.normalize();
        let lod = |v: DVec3| tree.min_lod_at(&camera.moving(v));
        assert_eq!(lod(east * 1.5), 0);
        assert_eq!(lod(east * 100.0), 0);
        assert!(lod(east * 1_000.0) >= 1);
        assert!(lod(east * 3_000.0) > lod(east * 1_000.0));
        assert_eq!(lod(-up * 3_000.0), 0);
        // At rest the settings change nothing.
        let mut fresh = LodTree::new(&terrain, LodSettings::default());
        let mut at_rest = LodTree::new(&terrain, LodSettings::default().fixed());
        assert_eq!(fresh.update(&terrain, &camera), at_rest.update(&terrain, &camera));
    }

    #[test]
    fn a_camera_on_a_boundary_does_not_thrash() {
        let terrain = Terrain::new(&PlannedSystem::default_system().planets[1]);
        let d = planet::terrain::lat_lon_direction(-10.0, 100.0).as_dvec3();
        let surface = f64::from(terrain.recipe.radius_m + terrain.surface_at(d.as_vec3()).surface_m);
        let wobble = |settings: LodSettings, altitude: f64| {
            let mut tree = LodTree::new(&terrain, settings);
            let mut previous = tree.update(&terrain, &Camera::new(d * (surface + altitude), -d));
            let mut changes = 0;
            for i in 0..40 {
                let w = if i % 2 == 0 { 0.5 } else { -0.5 };
                let leaves = tree.update(&terrain, &Camera::new(d * (surface + altitude + w), -d));
                changes += usize::from(leaves != previous);
                previous = leaves;
            }
            changes
        };
        // An altitude where, without hysteresis, a column sits right on its split distance.
        let plain = LodSettings { hysteresis: 0.0, ..LodSettings::default() };
        let boundary = (0..400)
            .map(|i| 20.0 + f64::from(i) * 5.0)
            .find(|&a| wobble(plain, a) > 10)
            .expect("some altitude puts a column on its split distance");
        assert!(wobble(LodSettings::default(), boundary) <= 1, "thrashing at {boundary} m with hysteresis");
    }
}
