//! What placement derives from each scatter rule of the recipe: the size of
//! its world cells on a cube face, how far a candidate may move inside its
//! cell, the coarsest LOD that still places it, and the children it brings.
//!
//! Min spacing is a property of the grid, not a check: a candidate moves at
//! most `jitter / 2` of a cell either way from its cell's centre, so two
//! candidates of one rule are at least `1 - jitter` cells apart, and a cell
//! is sized so that this is `min_spacing_m` where the tangent-warped face is
//! most squeezed.

use crate::recipe::{PlanetRecipe, ScatterKind, ScatterRecipe};

/// The least length of a step of face coordinate anywhere on a face, in units
/// of its length at the face's centre (`radius · π/4` per unit of u): the
/// corners, along a diagonal, are about 2/3 (`tests` measure the whole face).
pub const MIN_FACE_SCALE: f32 = 0.6667;

/// The coarsest LOD any rule is placed at: regions beyond it are shown from
/// so far that a single object is under a pixel.
pub const MAX_SCATTER_LOD: u8 = 4;

/// The coarsest LOD children (bushes by trees, pebbles by boulders) exist at.
pub const CHILD_MAX_LOD: u8 = 1;

/// Model variants per kind (chosen per object by its hash).
pub const VARIANTS: u8 = 3;

/// How one recipe rule is placed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// Index of the rule in the recipe.
    pub rule: u8,
    /// What it places.
    pub kind: ScatterKind,
    /// Cells across a face.
    pub cells: i32,
    /// The share of a cell its candidate may be moved across (0.5: the middle half).
    pub jitter: f32,
    /// Odd rows shifted by half a cell (the talk's offset grid, for gameplay
    /// objects: a near-hexagonal, exactly spaced pattern).
    pub offset_rows: bool,
    /// The coarsest LOD whose regions place it.
    pub max_lod: u8,
    /// Objects per square metre at full density.
    pub per_m2: f32,
    /// Size range, metres.
    pub size_m: [f32; 2],
}

impl Placement {
    /// The placement of rule `index` of a planet of `radius_m`.
    #[must_use]
    pub fn of(index: usize, rule: &ScatterRecipe, radius_m: f32) -> Self {
        let offset_rows = rule.kind == ScatterKind::Crystal;
        let jitter = if offset_rows { 0.25 } else { 0.5 };
        // Two candidates are at least (1 - jitter) cells apart, in face
        // coordinates; at the face's most squeezed point a cell of `c` units is
        // `c · MIN_FACE_SCALE · radius · π/4` metres.
        let metres_per_unit = MIN_FACE_SCALE * radius_m * core::f32::consts::FRAC_PI_4;
        let cell_units = rule.min_spacing_m / (1.0 - jitter) / metres_per_unit;
        let cells = ((2.0 / cell_units) as i32).max(1);
        // Never coarser than CHILD_MAX_LOD: a rule's children need its cells there.
        let max_lod = (libm::log2f(2.0 * rule.size_m[1]).floor() as i32)
            .clamp(i32::from(CHILD_MAX_LOD), i32::from(MAX_SCATTER_LOD)) as u8;
        Self {
            rule: index as u8,
            kind: rule.kind,
            cells,
            jitter,
            offset_rows,
            max_lod,
            per_m2: rule.per_100m2 / 100.0,
            size_m: rule.size_m,
        }
    }

    /// Every rule of a recipe.
    #[must_use]
    pub fn all(recipe: &PlanetRecipe) -> Vec<Self> {
        recipe.scatter.iter().enumerate().map(|(i, r)| Self::of(i, r, recipe.radius_m)).collect()
    }

    /// A cell's span in face coordinates.
    #[must_use]
    pub fn cell_units(&self) -> f32 {
        2.0 / self.cells as f32
    }

    /// Whether it grows (plants keep off bare rock, snow, ice and lava).
    #[must_use]
    pub fn is_plant(&self) -> bool {
        matches!(self.kind, ScatterKind::Tree | ScatterKind::Bush | ScatterKind::Grass)
    }

    /// The children each of its objects brings, if any.
    #[must_use]
    pub fn children(&self) -> Option<Children> {
        match self.kind {
            ScatterKind::Tree => {
                Some(Children { kind: ScatterKind::Bush, count: [0, 3], size_m: [0.4, 1.2], reach: [0.25, 0.6] })
            }
            ScatterKind::Bush => {
                Some(Children { kind: ScatterKind::Grass, count: [0, 3], size_m: [0.15, 0.4], reach: [0.5, 1.2] })
            }
            ScatterKind::Rock => {
                Some(Children { kind: ScatterKind::Rock, count: [1, 4], size_m: [0.05, 0.25], reach: [0.6, 1.5] })
            }
            ScatterKind::Grass | ScatterKind::Crystal => None,
        }
    }
}

/// The small objects a placed object brings around it (recursive detail):
/// seeded from the parent's id, owned wherever they land.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Children {
    /// Their kind.
    pub kind: ScatterKind,
    /// How many, inclusive range.
    pub count: [u32; 2],
    /// Their size range, metres.
    pub size_m: [f32; 2],
    /// How far from the parent, in parent sizes.
    pub reach: [f32; 2],
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{Face, direction};

    /// The smallest length, over the face and over directions, of a unit step of
    /// face coordinates, relative to the centre's: what `MIN_FACE_SCALE` claims.
    #[test]
    fn min_face_scale_holds_over_the_whole_face() {
        let n = 200;
        let h = 1e-3f32;
        let centre = core::f32::consts::FRAC_PI_4;
        let mut least = f32::MAX;
        for i in 0..=n {
            for j in 0..=n {
                let (u, v) = (-1.0 + 2.0 * i as f32 / n as f32, -1.0 + 2.0 * j as f32 / n as f32);
                let (u, v) = (u.clamp(-1.0 + h, 1.0 - h), v.clamp(-1.0 + h, 1.0 - h));
                let du = (direction(Face::PosZ, u + h, v) - direction(Face::PosZ, u - h, v)) / (2.0 * h);
                let dv = (direction(Face::PosZ, u, v + h) - direction(Face::PosZ, u, v - h)) / (2.0 * h);
                for k in 0..32 {
                    let a = k as f32 * core::f32::consts::PI / 32.0;
                    let step = (du * libm::cosf(a) + dv * libm::sinf(a)).length() / centre;
                    least = least.min(step);
                }
            }
        }
        assert!(least >= MIN_FACE_SCALE * 0.999, "least scale {least}");
        assert!(least <= MIN_FACE_SCALE * 1.02, "least scale {least}: the constant is too cautious");
    }
}
