//! Placement of one region: every rule's cells that can reach into the
//! region, their candidates rolled against the habitat, the survivors whose
//! base lies in the region's footprint seated on its mesh, and the children
//! of every survivor (placed or not, since its children may land in this
//! region while it stands in the next) seated the same way.
//!
//! The footprint is half-open in face coordinates ([lo, hi), the face's far
//! edge included), computed from grid numbers alike in every region, so two
//! neighbours never both hold an object; of a column's regions, the one whose
//! layers hold the 2D terrain surface there holds it.

use glam::{DVec3, Vec3};

use super::cells::{Candidate, candidate, cells_over, roll, scatter_seed};
use super::habitat::Habitat;
use super::habitat_memo::HabitatMemo;
use super::rules::{CHILD_MAX_LOD, Children, MIN_FACE_SCALE, Placement, VARIANTS};
use super::seat::{NoSeat, Seater};
use super::{Scatter, ScatterObject};
use crate::RegionKey;
use crate::geometry::{MARGIN, REGION_CELLS, direction};
use crate::hash::{hash1, salt};
use crate::mesh::CubeMesh;
use crate::recipe::ScatterKind;
use crate::terrain::{ColumnField, Terrain};

/// How far below the habitat's surface the ground under an object may be
/// before it counts as a cave floor, at LOD 0 (two cells more at coarser LODs):
/// the mesh's top surface is within 5.2 m of the habitat's over the scatter tests.
const CAVE_DEPTH_M: f32 = 6.0;

/// The least sky light (`mesh/sky.rs`) under an object: below it the ground
/// is a cave's or a cave mouth's pit, dark, where nothing grows.
const MIN_SKY: f32 = 0.5;

/// Why candidates that exist were not placed in a region, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Refusals {
    /// No ground of the region under it (seen from a region of the column without it).
    pub no_ground: u32,
    /// The ground is in another region of the column.
    pub other_layer: u32,
    /// A ceiling or overhang lower than the object.
    pub roofed: u32,
    /// The ground under it is below the sea, a river's or a lake's water.
    pub under_sea: u32,
    /// The ground under it is far below the surface or dark (a cave floor, a
    /// cave mouth's pit).
    pub cave: u32,
    /// A building's levelled ground (its footprint, apron or skirt).
    pub built_on: u32,
    /// Children refused, for any of the reasons above.
    pub children: u32,
    /// Parents refused, by rule (a recipe holds at most 32 rules).
    pub parents_by_rule: [u32; 32],
}

impl Refusals {
    /// Objects refused, for every reason, parents and children.
    #[must_use]
    pub fn total(&self) -> u32 {
        self.no_ground + self.other_layer + self.roofed + self.under_sea + self.cave + self.built_on + self.children
    }

    /// Parents refused, for every reason.
    #[must_use]
    pub fn parents(&self) -> u32 {
        self.total() - self.children
    }
}

/// The objects of the region of `mesh` (its cube mesh; `columns` its column
/// pass), relative to `origin`.
#[must_use]
pub fn scatter(terrain: &Terrain, columns: &ColumnField, mesh: &CubeMesh, origin: DVec3) -> Scatter {
    place(terrain, columns, mesh, origin).0
}

/// [`scatter`], the habitat's nodes from `memo` (kept for `terrain` by the
/// caller, shared among its regions): the same objects.
#[must_use]
pub fn scatter_with(
    memo: &HabitatMemo,
    terrain: &Terrain,
    columns: &ColumnField,
    mesh: &CubeMesh,
    origin: DVec3,
) -> Scatter {
    place_with(memo, terrain, columns, mesh, origin).0
}

/// What one region's placement needs at hand.
struct Region<'a> {
    terrain: &'a Terrain,
    key: RegionKey,
    columns: &'a ColumnField,
    mesh: &'a CubeMesh,
    /// Built on the first object to seat (most regions of a column seat none).
    seater: Option<Seater>,
    lo: [f32; 2],
    hi: [f32; 2],
    cells_across: f32,
    origin: DVec3,
    /// How far below the habitat's surface ground still counts as the surface.
    cave_depth_m: f32,
    sea_m: Option<f32>,
    refusals: Refusals,
}

impl Region<'_> {
    /// Whether (u, v) is in the footprint and the column's 2D terrain surface
    /// there is in this region's layers: one region of a column holds an
    /// object, whatever the 3D pass makes of the ground (the 2D pass is the
    /// same for every region of the column).
    fn holds(&self, u: f32, v: f32) -> bool {
        if !self.owns(u, v) {
            return false;
        }
        let (surface, floor) = self.surface_2d_m(u, v);
        let layer = (surface - floor) / self.terrain.grid.layer_m(self.key.lod);
        let top = self.terrain.grid.regions_up(self.key.lod) - 1;
        ((layer / REGION_CELLS as f32).max(0.0) as u32).min(top) == self.key.z
    }

    /// The 2D terrain surface and the shell's floor at (u, v), metres above
    /// the base radius, from the region's column pass.
    fn surface_2d_m(&self, u: f32, v: f32) -> (f32, f32) {
        let first = [self.key.x as i32 * REGION_CELLS - MARGIN, self.key.y as i32 * REGION_CELLS - MARGIN];
        let at = |t: f32, f: i32| {
            ((t + 1.0) * 0.5 * self.cells_across - f as f32).clamp(0.0, (ColumnField::SIDE - 2) as f32)
        };
        let (x, y) = (at(u, first[0]), at(v, first[1]));
        let (a, b) = (x as usize, y as usize);
        let (tx, ty) = (x - a as f32, y - b as f32);
        let mix = |f: &dyn Fn(&crate::terrain::Column) -> f32| {
            let h = |a: usize, b: usize| f(self.columns.at(a, b));
            (h(a, b) * (1.0 - tx) + h(a + 1, b) * tx) * (1.0 - ty)
                + (h(a, b + 1) * (1.0 - tx) + h(a + 1, b + 1) * tx) * ty
        };
        let below = self.terrain.grid.shell_below_m;
        (mix(&|c| c.surface_m()), mix(&|c| c.elevation_m - below))
    }

    fn owns(&self, u: f32, v: f32) -> bool {
        let inside = |t: f32, lo: f32, hi: f32| t >= lo && (t < hi || (hi >= 1.0 && t <= 1.0));
        inside(u, self.lo[0], self.hi[0]) && inside(v, self.lo[1], self.hi[1])
    }

    /// Seats an object of rule `rule` at (u, v), or counts why not.
    fn seat(&mut self, habitat: &Habitat, u: f32, v: f32, rule: u8, child: bool) -> Option<Vec3> {
        let before = self.refusals;
        let seated = self.try_seat(habitat, u, v);
        if seated.is_none() {
            if child {
                // Children are counted apart, whatever the reason.
                self.refusals = Refusals { children: before.children + 1, ..before };
            } else {
                self.refusals.parents_by_rule[rule as usize % 32] += 1;
            }
        }
        seated
    }

    fn try_seat(&mut self, habitat: &Habitat, u: f32, v: f32) -> Option<Vec3> {
        let to_grid = |t: f32| (t + 1.0) * 0.5 * self.cells_across;
        let (terrain, mesh) = (self.terrain, self.mesh);
        let seater = self.seater.get_or_insert_with(|| Seater::new(&terrain.grid, mesh));
        let seat = match seater.seat(to_grid(u), to_grid(v)) {
            Ok(seat) => seat,
            Err(why) => {
                match why {
                    NoSeat::NoGround => self.refusals.no_ground += 1,
                    NoSeat::OtherLayer => self.refusals.other_layer += 1,
                    NoSeat::Roofed => self.refusals.roofed += 1,
                }
                return None;
            }
        };
        if self.sea_m.is_some_and(|sea| seat.height_m < sea + 0.2) {
            self.refusals.under_sea += 1;
            return None;
        }
        // Nor under a river's or a lake's water.
        let up = direction(self.key.face(), u, v);
        if self.terrain.layout.column_at(up, seat.height_m, 0.0).river.water_m.is_some_and(|w| seat.height_m < w + 0.2)
        {
            self.refusals.under_sea += 1;
            return None;
        }
        // Nor on a building's ground, nor on a town's street.
        if self.terrain.settlements.levelling_at(up).is_some() || self.terrain.settlements.on_route(up) {
            self.refusals.built_on += 1;
            return None;
        }
        if seat.height_m < habitat.surface_m(u, v) - self.cave_depth_m || seat.sky < MIN_SKY {
            self.refusals.cave += 1;
            return None;
        }
        let radius = self.terrain.grid.radius_m + seat.height_m;
        let at = (direction(self.key.face(), u, v) * radius).as_dvec3();
        Some((at - self.origin).as_vec3())
    }
}

/// The share of the way from `lo` to `hi` of a roll, leaning small (most
/// objects are young; a few are large).
fn size_between(range: [f32; 2], roll: f32) -> f32 {
    range[0] + (range[1] - range[0]) * roll * libm::sqrtf(roll)
}

/// Linear RGB in 0..=1 times `tint`, as bytes.
fn color_bytes(color: [f32; 3], tint: [f32; 3]) -> [u8; 4] {
    let c = |i: usize| ((color[i] * tint[i]).clamp(0.0, 1.0) * 255.0 + 0.5) as u8;
    [c(0), c(1), c(2), 255]
}

/// The area of cell `(i, j)` of a rule, m², on a sphere of `radius_m`: the
/// tangent warp's area element at the cell's centre times its span squared.
#[must_use]
pub fn cell_area_m2(rule: &Placement, i: i32, j: i32, radius_m: f32) -> f32 {
    let c = rule.cell_units();
    let q = core::f32::consts::FRAC_PI_4;
    let centre = |k: i32| libm::tanf((-1.0 + (k as f32 + 0.5) * c) * q);
    let (a, b) = (centre(i), centre(j));
    let s = 1.0 + a * a + b * b;
    radius_m * radius_m * q * q * (1.0 + a * a) * (1.0 + b * b) / (s * libm::sqrtf(s)) * c * c
}

/// [`scatter`], with the count of objects that exist but were refused.
#[must_use]
pub fn place(terrain: &Terrain, columns: &ColumnField, mesh: &CubeMesh, origin: DVec3) -> (Scatter, Refusals) {
    place_in(None, terrain, columns, mesh, origin)
}

/// [`place`], the habitat's nodes from `memo`.
#[must_use]
pub fn place_with(
    memo: &HabitatMemo,
    terrain: &Terrain,
    columns: &ColumnField,
    mesh: &CubeMesh,
    origin: DVec3,
) -> (Scatter, Refusals) {
    place_in(Some(memo), terrain, columns, mesh, origin)
}

/// [`place`], the habitat's nodes from `memo` when there is one, else made
/// for this region alone.
fn place_in(
    memo: Option<&HabitatMemo>,
    terrain: &Terrain,
    columns: &ColumnField,
    mesh: &CubeMesh,
    origin: DVec3,
) -> (Scatter, Refusals) {
    let key = mesh.key;
    let lod = key.lod;
    let mut out = Scatter { key, origin, objects: Vec::new(), buildings: Vec::new() };
    let placements: Vec<Placement> = Placement::all(&terrain.recipe)
        .into_iter()
        // Every rule reaches CHILD_MAX_LOD (`Placement::of`), so none is kept for its children alone.
        .filter(|p| lod <= p.max_lod)
        .collect();
    if placements.is_empty() || mesh.terrain.triangles.is_empty() {
        return (out, Refusals::default());
    }
    let n = terrain.grid.cells_across(lod);
    let to_uv = |x: u32| 2.0 * (x as i32 * REGION_CELLS) as f32 / n as f32 - 1.0;
    let (lo, hi) = ([to_uv(key.x), to_uv(key.y)], [to_uv(key.x + 1), to_uv(key.y + 1)]);
    let radius = terrain.grid.radius_m;
    let units_per_m = 1.0 / (MIN_FACE_SCALE * radius * core::f32::consts::FRAC_PI_4);
    // Children reach out from parents beyond the footprint.
    let reach = |p: &Placement| match p.children() {
        Some(ch) if lod <= CHILD_MAX_LOD => Some(p.size_m[1] * ch.reach[1] * units_per_m),
        _ => None,
    };
    // Where each rule's density is read: at candidates whose children can
    // reach the region (a rule with children), or that the region holds.
    let grown = |m: f32| ([lo[0] - m, lo[1] - m], [hi[0] + m, hi[1] + m]);
    let needs: Vec<([f32; 2], [f32; 2])> = placements.iter().map(|p| grown(reach(p).unwrap_or(0.0))).collect();
    let habitat = match memo {
        Some(memo) => Habitat::with_memo(memo, terrain, &placements, key.face(), &needs),
        None => Habitat::new(terrain, &placements, key.face(), &needs),
    };
    let r = &terrain.recipe;
    let mut region = Region {
        terrain,
        key,
        columns,
        mesh,
        seater: None,
        lo,
        hi,
        cells_across: n as f32,
        origin,
        cave_depth_m: CAVE_DEPTH_M + 2.0 * terrain.grid.cell_m(lod),
        sea_m: r.sea.enabled.then_some(r.sea.level_m),
        refusals: Refusals::default(),
    };
    let seed = scatter_seed(terrain.seed);
    for (index, p) in placements.iter().enumerate() {
        let rule = &r.scatter[p.rule as usize];
        let with_children = reach(p);
        // The rectangle its density is read in: its candidates that matter lie there.
        let (near_lo, near_hi) = needs[index];
        let (first, last) = cells_over(p, near_lo, near_hi);
        // No cell's chance is above this: a cell's area is at most the face
        // centre's (the warp only shrinks cells) and its factor at most the
        // largest node's.
        let bound = p.per_m2 * habitat.max_factor(index) * cell_area_m2(p, p.cells / 2, p.cells / 2, radius) * 1.01;
        if bound <= 0.0 {
            continue;
        }
        for j in first[1]..last[1] {
            for i in first[0]..last[0] {
                let Some(c) = candidate(seed, p, key.face(), i, j) else { continue };
                let rolled = c.roll(roll::EXISTS);
                if rolled >= bound {
                    continue;
                }
                // Only a candidate the region holds matters, or one whose
                // children can reach it (a child lands within `m` of it).
                let near = (near_lo[0]..=near_hi[0]).contains(&c.u) && (near_lo[1]..=near_hi[1]).contains(&c.v);
                let held = near && region.holds(c.u, c.v);
                if !held && (with_children.is_none() || !near) {
                    continue;
                }
                let chance = p.per_m2 * habitat.factor(index, c.u, c.v) * cell_area_m2(p, i, j, radius);
                if rolled >= chance {
                    continue;
                }
                let size_m = size_between(p.size_m, c.roll(roll::SIZE));
                if lod <= p.max_lod
                    && held
                    && let Some(position) = region.seat(&habitat, c.u, c.v, p.rule, false)
                {
                    out.objects.push(object(&c, p.rule, p.kind, false, position, size_m, rule.color, 1.0));
                }
                if with_children.is_some()
                    && let Some(ch) = p.children()
                {
                    children(&mut region, &habitat, &mut out.objects, &c, p, &ch, size_m, rule.color, units_per_m);
                }
            }
        }
    }
    (out, region.refusals)
}

/// An object from a candidate (or a child's stand-in candidate).
#[allow(clippy::too_many_arguments)]
fn object(
    c: &Candidate,
    rule: u8,
    kind: ScatterKind,
    child: bool,
    position: Vec3,
    size_m: f32,
    color: [f32; 3],
    shade: f32,
) -> ScatterObject {
    let tint = |k: u64| shade * (0.8 + 0.4 * c.roll(roll::TINT + k * 16));
    ScatterObject {
        id: c.id,
        rule,
        kind,
        variant: ((c.roll(roll::VARIANT) * f32::from(VARIANTS)) as u8).min(VARIANTS - 1),
        child,
        position,
        yaw: c.roll(roll::YAW) * core::f32::consts::TAU,
        size_m,
        color: color_bytes(color, [tint(0), tint(0) * (0.95 + 0.1 * c.roll(roll::TINT + 1)), tint(0)]),
    }
}

/// The children of parent `c` (of rule `p`, `size_m` tall) that land in the region.
#[allow(clippy::too_many_arguments)]
fn children(
    region: &mut Region<'_>,
    habitat: &Habitat,
    objects: &mut Vec<ScatterObject>,
    c: &Candidate,
    p: &Placement,
    ch: &Children,
    size_m: f32,
    color: [f32; 3],
    units_per_m: f32,
) {
    let span = ch.count[1] - ch.count[0] + 1;
    let count = ch.count[0] + ((c.roll(roll::CHILDREN) * span as f32) as u32).min(span - 1);
    // Pebbles only around boulders, not around pebble-sized rocks.
    if p.kind == ScatterKind::Rock && size_m < 1.0 {
        return;
    }
    for k in 0..count {
        let id = hash1(c.id, salt(b"child"), i64::from(k));
        let probe = Candidate { id, u: 0.0, v: 0.0 };
        let angle = (k as f32 + probe.roll(roll::JITTER_U) * 0.8) / count as f32 * core::f32::consts::TAU;
        let distance = size_m * (ch.reach[0] + (ch.reach[1] - ch.reach[0]) * probe.roll(roll::JITTER_V));
        // Face units per metre at the face's most squeezed point: children land a
        // little nearer than `distance` elsewhere, the same from every region.
        let (u, v) =
            (c.u + libm::cosf(angle) * distance * units_per_m, c.v + libm::sinf(angle) * distance * units_per_m);
        if u.abs() >= 1.0 || v.abs() >= 1.0 || !region.holds(u, v) {
            continue;
        }
        let child = Candidate { id, u, v };
        let child_size = size_between(ch.size_m, child.roll(roll::SIZE));
        if let Some(position) = region.seat(habitat, u, v, p.rule, true) {
            let shade = match ch.kind {
                ScatterKind::Rock => 0.85,
                ScatterKind::Grass => 1.15,
                _ => 0.9,
            };
            objects.push(object(&child, p.rule, ch.kind, true, position, child_size, color, shade));
        }
    }
}
