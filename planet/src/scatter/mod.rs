//! Scatter: trees, bushes, grass, rocks and crystals, the last region stage
//! before drawing. Every rule of the recipe lays its own grid of world cells
//! over each cube face (`rules.rs`, `cells.rs`); a cell holds at most one
//! candidate, whose existence is rolled against the habitat's density there
//! (`habitat.rs`, a lattice that belongs to the face, not the region, whose
//! nodes regions share through `habitat_memo.rs`). A
//! region keeps the candidates whose base lies in its footprint and seats
//! each on its own mesh (`seat.rs`); trees, bushes and boulders bring
//! children around them, seeded from their ids (`place.rs`).
//!
//! **Invariant (DESIGN.md 4):** an object is owned by its cell, never by a
//! region: its id, place across the ground, size, turn, variant and tint
//! are the same from every region and every LOD that holds it. Only its
//! height (the ground it is seated on) depends on the LOD.

mod cells;
mod habitat;
mod habitat_memo;
pub mod models;
mod place;
mod rules;
mod seat;

pub use cells::{Candidate, candidate, cells_over, scatter_seed};
pub use habitat::{HABITAT_CELLS, Habitat};
pub use habitat_memo::HabitatMemo;
pub use place::{Refusals, cell_area_m2, place, place_with, scatter, scatter_with};
pub use rules::{CHILD_MAX_LOD, Children, MAX_SCATTER_LOD, MIN_FACE_SCALE, Placement, VARIANTS};
pub use seat::{NoSeat, Seat, Seater};

use glam::{DVec3, Vec3};
use serde::{Deserialize, Serialize};

use crate::RegionKey;
use crate::recipe::ScatterKind;

/// One placed object.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScatterObject {
    /// Its id, unique on the planet (a hash of its rule and cell, or of its parent).
    pub id: u64,
    /// The recipe rule that placed it (a child's is its parent's).
    pub rule: u8,
    /// What it is.
    pub kind: ScatterKind,
    /// Which model of its kind, 0..VARIANTS.
    pub variant: u8,
    /// Whether a parent object brought it.
    pub child: bool,
    /// Its base, relative to the region's origin, metres.
    pub position: Vec3,
    /// Its turn about the local up, radians.
    pub yaw: f32,
    /// Its size (a tree's height, a rock's width), metres.
    pub size_m: f32,
    /// Its colour, linear RGB in 0..=255, and 255.
    pub color: [u8; 4],
}

/// The objects a region holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Scatter {
    /// The region.
    pub key: RegionKey,
    /// Planet-local origin the positions are relative to (the sphere mesh's).
    pub origin: DVec3,
    /// The objects, rule by rule in cell order, each parent before its children.
    pub objects: Vec<ScatterObject>,
    /// The settlements' buildings it draws or collides with, town by town
    /// (`settlements::region_buildings`).
    #[serde(default)]
    pub buildings: Vec<crate::settlements::PlacedBuilding>,
}

impl Scatter {
    /// A signature of every object (what golden tests pin).
    #[must_use]
    pub fn signature(&self) -> crate::Signature {
        let mut bytes = Vec::with_capacity(24 + self.objects.len() * 36);
        bytes.extend(self.origin.to_array().iter().flat_map(|x| x.to_bits().to_le_bytes()));
        for o in &self.objects {
            bytes.extend(o.id.to_le_bytes());
            bytes.extend([o.rule, kind_index(o.kind) as u8, o.variant, u8::from(o.child)]);
            for x in o.position.to_array().into_iter().chain([o.yaw, o.size_m]) {
                bytes.extend(x.to_bits().to_le_bytes());
            }
            bytes.extend(o.color);
        }
        // Appended only where there are buildings: a region without them keeps its signature.
        for b in &self.buildings {
            bytes.extend(b.town.to_le_bytes());
            bytes.extend(b.index.to_le_bytes());
            bytes.extend([b.kind.index() as u8, u8::from(b.landmark), u8::from(b.owned)]);
            for x in building_floats(b) {
                bytes.extend(x.to_bits().to_le_bytes());
            }
            bytes.extend(b.color);
        }
        crate::Signature::of_bytes("scatter", &bytes)
    }

    /// Heap bytes held (the capacities of its objects and buildings).
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.objects.capacity() * size_of::<ScatterObject>()
            + self.buildings.capacity() * size_of::<crate::settlements::PlacedBuilding>()
    }

    /// Trims every buffer to fill its allocator block (`heap::fit_to_block`).
    pub fn fit_to_blocks(&mut self) {
        crate::heap::fit_to_block(&mut self.objects);
        crate::heap::fit_to_block(&mut self.buildings);
    }
}

/// A placed building's numbers in the dump's order (`dump/scatter.rs`).
#[must_use]
pub fn building_floats(b: &crate::settlements::PlacedBuilding) -> [f32; 21] {
    let c = &b.curve;
    [
        b.base.x,
        b.base.y,
        b.base.z,
        b.up.x,
        b.up.y,
        b.up.z,
        b.across.x,
        b.across.y,
        b.across.z,
        b.width_m,
        b.depth_m,
        b.height_m,
        b.floor_height_m,
        c.direction[0],
        c.direction[1],
        c.strength_m,
        c.exponent,
        c.wave_amplitude_m,
        c.wave_frequency,
        c.wave_phase,
        c.profile_blend,
    ]
}

/// The kinds in the order the renderer numbers their models.
pub const KINDS: [ScatterKind; 5] =
    [ScatterKind::Tree, ScatterKind::Bush, ScatterKind::Grass, ScatterKind::Rock, ScatterKind::Crystal];

/// A kind's position in [`KINDS`] (its declaration order, as `KINDS` lists them).
#[must_use]
pub fn kind_index(kind: ScatterKind) -> usize {
    kind as usize
}

/// A kind's name, as recipes spell it.
#[must_use]
pub fn kind_name(kind: ScatterKind) -> &'static str {
    match kind {
        ScatterKind::Tree => "tree",
        ScatterKind::Bush => "bush",
        ScatterKind::Grass => "grass",
        ScatterKind::Rock => "rock",
        ScatterKind::Crystal => "crystal",
    }
}

/// An object's axes: across (x), up (y, the planet's radius through its
/// base) and along (z), turned by `yaw` about up. The objects shader builds
/// the same frame; a model's point `p` (in units of the size) lies at
/// `base + (x * p.x + up * p.y + z * p.z) * size`.
#[must_use]
pub fn object_axes(up: Vec3, yaw: f32) -> [Vec3; 3] {
    let mut side = up.cross(Vec3::Y);
    if side.length_squared() < 1e-6 {
        side = up.cross(Vec3::X);
    }
    let side = side.normalize();
    let forward = side.cross(up);
    let (s, c) = (libm::sinf(yaw), libm::cosf(yaw));
    [side * c + forward * s, up, forward * c - side * s]
}

impl ScatterObject {
    /// Its axes (see [`object_axes`]), for a region whose origin is `origin`.
    #[must_use]
    pub fn axes(&self, origin: DVec3) -> [Vec3; 3] {
        object_axes((origin + self.position.as_dvec3()).normalize().as_vec3(), self.yaw)
    }

    /// A point of its model (`p`, in units of its size) relative to its
    /// region's origin, with `axes` its [`ScatterObject::axes`].
    #[must_use]
    pub fn place(&self, axes: &[Vec3; 3], p: [f32; 3]) -> Vec3 {
        self.position + (axes[0] * p[0] + axes[1] * p[1] + axes[2] * p[2]) * self.size_m
    }
}
