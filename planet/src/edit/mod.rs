//! Terrain edits: dig, fill, smooth, flatten and paint with a sphere or a box brush,
//! as operations in planet-local space (DESIGN.md invariants 6 and 7).
//!
//! An edit is data, not voxels: its operation, brush, centre and material.
//! The voxel stage applies the edits touching a region after generation and
//! its own features (`apply.rs`), sample by sample at the sample's
//! planet-local position, so every LOD sees the same operations at its own
//! resolution and two regions' overlapping samples stay bit-identical. The
//! log (`log.rs`) keeps them in order with a spatial index of the regions
//! each one touches, at every LOD, and names each region's edits with a
//! stamp; a save (`save.rs`) holds the log, never terrain.

mod apply;
mod bake;
mod brush;
mod ground;
mod log;
pub mod save;
mod smooth;

use serde::{Deserialize, Serialize};

pub use apply::{apply_edits, buries, object_reach_m};
pub use bake::{BAKE_AT, Bake, BakeAt, bake_ball, bake_region};
pub use brush::Brush;
pub use ground::ground_radius;
pub use log::{EditLog, RegionEdits, WindowBox, stamp, window_box};
pub use smooth::{Surface, fit_surface};

/// What an edit does inside its brush.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// Removes the ground: air inside the brush.
    Dig,
    /// Adds ground of the edit's material: solid inside the brush.
    Fill,
    /// Levels the ground to the plane through the brush's centre, square
    /// to the local up, fully at the centre and fading out to its edge.
    Flatten,
    /// Changes the material of whatever is inside the brush.
    Paint,
    /// Levels the ground towards the surface fitted to it when the edit was
    /// made (`smooth.rs`), fully at the centre and fading out to the edge:
    /// bumps smaller than the brush go. [`EditLog::fit`] fits an edit made
    /// with [`Surface::FLAT`].
    Smooth(Surface),
}

impl Operation {
    /// Every operation (a smooth unfitted), in the order of their codes in saves.
    pub const ALL: [Operation; 5] =
        [Operation::Dig, Operation::Fill, Operation::Flatten, Operation::Paint, Operation::Smooth(Surface::FLAT)];

    /// Its name, as the CLI and saves spell it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Operation::Dig => "dig",
            Operation::Fill => "fill",
            Operation::Flatten => "flatten",
            Operation::Paint => "paint",
            Operation::Smooth(_) => "smooth",
        }
    }

    /// Its code in saves: its place in [`Operation::ALL`].
    #[must_use]
    pub fn code(self) -> u8 {
        let kind = std::mem::discriminant(&self);
        Self::ALL.iter().position(|o| std::mem::discriminant(o) == kind).expect("listed") as u8
    }

    /// Bytes an edit of this operation takes in saves: [`EDIT_BYTES`], a
    /// smooth's [`SMOOTH_BYTES`] (its surface after the rest).
    #[must_use]
    pub fn encoded_len(self) -> usize {
        if matches!(self, Operation::Smooth(_)) { SMOOTH_BYTES } else { EDIT_BYTES }
    }

    /// The operation called `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Operation> {
        Self::ALL.into_iter().find(|o| o.name() == name)
    }

    /// Whether the objects standing inside the brush go with it (the
    /// ground under them is removed, or they are buried).
    #[must_use]
    pub fn removes_objects(self) -> bool {
        matches!(self, Operation::Dig | Operation::Fill)
    }
}

/// One edit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Edit {
    /// What it does.
    pub op: Operation,
    /// Its shape and size.
    pub brush: Brush,
    /// Its centre, planet-local metres.
    pub centre: [f32; 3],
    /// The material a fill adds or a paint lays (a palette index; unused by
    /// dig and flatten).
    pub material: u8,
}

/// Why an edit cannot be applied to a planet.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EditError {
    /// A number out of its range.
    #[error("{field} = {value}: must be in {range}")]
    Range {
        /// The field, as a save or the CLI names it.
        field: &'static str,
        /// The value given.
        value: String,
        /// The range allowed.
        range: String,
    },
}

/// The largest brush, metres: a radius or a box's half extent. Beyond it an
/// edit would touch thousands of regions at once.
pub const MAX_BRUSH_M: f32 = 64.0;
/// The smallest brush, metres: a quarter of a LOD-0 cell.
pub const MIN_BRUSH_M: f32 = 0.25;

impl Edit {
    /// Checks the edit against a planet of `radius_m` with `materials`
    /// palette entries: a finite centre within the voxel shell's reach, a
    /// brush of [`MIN_BRUSH_M`]..=[`MAX_BRUSH_M`], a material in the palette.
    pub fn check(&self, radius_m: f32, materials: usize) -> Result<(), EditError> {
        let range = |field, value: String, range: String| Err(EditError::Range { field, value, range });
        let centre = glam::Vec3::from_array(self.centre);
        let reach = 2.0 * radius_m;
        if !centre.is_finite() || centre.length() > reach {
            return range(
                "centre",
                format!("{:?}", self.centre),
                format!("a point within {reach} m of the planet's centre"),
            );
        }
        self.brush.check()?;
        if let Operation::Smooth(surface) = self.op {
            surface.check(self.brush.reach_m())?;
        }
        if usize::from(self.material) >= materials {
            return range(
                "material",
                self.material.to_string(),
                format!("0..={} (the planet's palette)", materials - 1),
            );
        }
        Ok(())
    }

    /// How far from its centre the edit changes samples of a region at
    /// `lod`, metres: its brush's reach and three of the LOD's cells more,
    /// so that a dig's or a fill's density stays a distance field across
    /// the brush's surface for as far as the polygonizer's stencil reads
    /// (two cells beyond a cell): cut off nearer, the crossings would be
    /// dragged inward and their normals bent into steps. At LODs whose
    /// cells outgrow the brush the margin stays at the brush's reach: the
    /// edit is smaller than a cell there and bends nothing a cell shows.
    #[must_use]
    pub fn reach_m(&self, grid: &crate::PlanetGrid, lod: u8) -> f32 {
        let reach = self.brush.reach_m();
        reach + (3.0 * grid.cell_m(lod).max(grid.layer_m(lod))).min(reach)
    }

    /// Its canonical bytes (what stamps hash and saves store):
    /// [`EDIT_BYTES`], and a smooth's surface after them ([`SMOOTH_BYTES`]).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let (shape, size, yaw) = self.brush.parts();
        let mut out = Vec::with_capacity(self.op.encoded_len());
        out.extend_from_slice(&[self.op.code(), shape, self.material, 0]);
        let surface = match self.op {
            Operation::Smooth(s) => s.0.to_vec(),
            _ => Vec::new(),
        };
        for v in self.centre.iter().chain(&size).chain([&yaw]).chain(&surface) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// The edit at the start of `bytes` ([`Edit::to_bytes`]) and how many
    /// bytes it took; `None` for an unknown operation or shape, or too few bytes.
    #[must_use]
    pub fn from_bytes(bytes: &[u8]) -> Option<(Edit, usize)> {
        let head = bytes.get(..4)?;
        let op = *Operation::ALL.get(usize::from(head[0]))?;
        let len = op.encoded_len();
        let bytes = bytes.get(..len)?;
        let f = |i: usize| f32::from_le_bytes(bytes[4 + 4 * i..8 + 4 * i].try_into().expect("4 bytes"));
        let brush = Brush::from_parts(head[1], [f(3), f(4), f(5)], f(6))?;
        let op = match op {
            Operation::Smooth(_) => Operation::Smooth(Surface(std::array::from_fn(|i| f(7 + i)))),
            other => other,
        };
        (head[3] == 0).then_some((Edit { op, brush, centre: [f(0), f(1), f(2)], material: head[2] }, len))
    }
}

/// Bytes of one edit's canonical encoding (a smooth's takes [`SMOOTH_BYTES`]).
pub const EDIT_BYTES: usize = 32;
/// Bytes of a smooth's: an edit's and its surface's six coefficients.
pub const SMOOTH_BYTES: usize = EDIT_BYTES + 24;
