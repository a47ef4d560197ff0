//! Where towns are: the talk's offset grid. Each cube face is cut into
//! `n x n` cells of about the recipe's `cell_m` (equal steps of the face
//! coordinates, as the region grid's, so cells are spherical quadrilaterals
//! bounded by great circles). A cell may hold one settlement: a hashed point of the cell is its
//! aim, and the buildable plot (from the layout) nearest that aim whose whole
//! town fits inside the cell is its site. No voxel, no column, nothing finer
//! than the plan decides it, so any cell's settlement is known at once, from
//! anywhere, and a town never reaches outside its cell (it is the cell's, as
//! DESIGN.md's invariant 4 asks of every feature).
//!
//! The nearest settlement to a point is a best-first search over the cells
//! around it: the point's cell and its eight neighbours first, widening only
//! while a cell not yet searched could hold a nearer one (its centre's
//! distance less its circumradius bounds every point in it from below). The
//! search crosses face edges and corners through a neighbour table made
//! with the grid.

use std::collections::BTreeMap;

use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::geometry::{Face, direction, face_coords, warp};
use crate::hash::{hash3, salt, unit_f32};
use crate::layout::Plot;

/// A cell of the offset grid, face by face, row by row.
pub type SiteCell = u32;

/// The offset grid of one planet.
#[derive(Clone, Debug)]
pub struct SiteGrid {
    /// Cells along each side of a face.
    pub cells_across: u32,
    radius_m: f32,
    centres: Vec<Vec3>,
    /// Each cell's circumradius: the angle from its centre to its farthest corner.
    reach: Vec<f32>,
    /// Each cell's neighbours (up to eight; across a cube corner fewer).
    neighbours: Vec<Vec<SiteCell>>,
}

/// Cells along a face for cells of about `cell_m` on a planet of `radius_m`.
#[must_use]
pub fn cells_across(radius_m: f32, cell_m: f32) -> u32 {
    let face_m = radius_m * core::f32::consts::FRAC_PI_2;
    ((face_m / cell_m).round() as u32).clamp(2, 256)
}

impl SiteGrid {
    /// The grid of `cells_across` cells a face side on a planet of `radius_m`.
    #[must_use]
    pub fn new(radius_m: f32, cells_across: u32) -> Self {
        let n = cells_across.max(1);
        let count = 6 * (n * n) as usize;
        let mut grid =
            Self { cells_across: n, radius_m, centres: Vec::new(), reach: Vec::new(), neighbours: Vec::new() };
        for c in 0..count as SiteCell {
            let (face, x, y) = grid.coords(c);
            let centre = grid.at(face, x as f32 + 0.5, y as f32 + 0.5);
            let corners = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
                .map(|(a, b)| grid.at(face, x as f32 + a, y as f32 + b));
            grid.reach.push(corners.iter().map(|&k| angle(centre, k)).fold(0.0, f32::max));
            grid.centres.push(centre);
        }
        // Neighbours share a corner. A corner is a point of the cube's integer
        // lattice (n units a half-side), the same integers from every face
        // it lies on, so the faces meeting at an edge or a cube corner agree
        // exactly on who touches whom.
        let mut at_corner: BTreeMap<[i32; 3], Vec<SiteCell>> = BTreeMap::new();
        for c in 0..count as SiteCell {
            for k in grid.corner_keys(c) {
                at_corner.entry(k).or_default().push(c);
            }
        }
        grid.neighbours = (0..count as SiteCell)
            .map(|c| {
                let mut out: Vec<SiteCell> =
                    grid.corner_keys(c).iter().flat_map(|k| at_corner[k].iter().copied()).filter(|&m| m != c).collect();
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        grid
    }

    /// The cube-lattice points of a cell's four corners.
    fn corner_keys(&self, c: SiteCell) -> [[i32; 3]; 4] {
        let (face, x, y) = self.coords(c);
        let n = self.cells_across as i32;
        let axis = |v: Vec3| [v.x as i32, v.y as i32, v.z as i32];
        let (normal, tu, tv) = (axis(face.normal()), axis(face.tu()), axis(face.tv()));
        [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(a, b)| {
            let (i, j) = (2 * (x as i32 + a) - n, 2 * (y as i32 + b) - n);
            [0, 1, 2].map(|k| normal[k] * n + tu[k] * i + tv[k] * j)
        })
    }

    /// Number of cells.
    #[must_use]
    pub fn len(&self) -> usize {
        self.centres.len()
    }

    /// Whether the grid has no cells (never: at least one a face).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.centres.is_empty()
    }

    /// Face and (x, y) of a cell.
    #[must_use]
    pub fn coords(&self, c: SiteCell) -> (Face, u32, u32) {
        let n = self.cells_across;
        let face = Face::from_index((c / (n * n)) as u8).unwrap_or(Face::PosX);
        (face, c % n, (c / n) % n)
    }

    /// Face coordinates of grid position (x, y), in cells.
    fn face_uv(&self, x: f32, y: f32) -> (f32, f32) {
        let n = self.cells_across as f32;
        (2.0 * x / n - 1.0, 2.0 * y / n - 1.0)
    }

    /// The direction of grid position (x, y) of `face`, in cells.
    fn at(&self, face: Face, x: f32, y: f32) -> Vec3 {
        let (u, v) = self.face_uv(x, y);
        direction(face, u, v)
    }

    /// The cell holding direction `d`.
    #[must_use]
    pub fn cell_of(&self, d: Vec3) -> SiteCell {
        let (face, u, v) = face_coords(d);
        let n = self.cells_across;
        let at = |t: f32| (((t + 1.0) * 0.5 * n as f32) as u32).min(n - 1);
        (u32::from(face.index()) * n + at(v)) * n + at(u)
    }

    /// Unit direction of a cell's centre.
    #[must_use]
    pub fn centre(&self, c: SiteCell) -> Vec3 {
        self.centres[c as usize]
    }

    /// A cell's neighbours.
    #[must_use]
    pub fn neighbours(&self, c: SiteCell) -> &[SiteCell] {
        &self.neighbours[c as usize]
    }

    /// The least angle from `d` to any point of cell `c` may be (a bound from below).
    #[must_use]
    pub fn least_angle(&self, c: SiteCell, d: Vec3) -> f32 {
        (angle(d, self.centres[c as usize]) - self.reach[c as usize]).max(0.0)
    }

    /// How far `d` (in cell `c`) is from the cell's edges, metres along the
    /// sphere: the least angle to the four great circles that bound it.
    #[must_use]
    pub fn inset_m(&self, c: SiteCell, d: Vec3) -> f32 {
        let (face, x, y) = self.coords(c);
        let n = self.cells_across as f32;
        let mut least = f32::MAX;
        for (axis, k) in [(0, x), (0, x + 1), (1, y), (1, y + 1)] {
            // The great circle of constant warped u' is the plane with normal tu - u'·n.
            let w = warp(2.0 * k as f32 / n - 1.0);
            let tangent = if axis == 0 { face.tu() } else { face.tv() };
            let normal = (tangent - face.normal() * w).normalize();
            least = least.min(libm::asinf(d.dot(normal).abs().min(1.0)));
        }
        least * self.radius_m
    }
}

/// The angle between two unit directions, radians.
#[must_use]
pub fn angle(a: Vec3, b: Vec3) -> f32 {
    // atan2 of |a x b| and a . b: accurate for small and large angles alike.
    libm::atan2f(a.cross(b).length(), a.dot(b))
}

/// A settlement: its cell, its plot and the town's disc.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settlement {
    /// Its cell of the offset grid (also its id).
    pub cell: SiteCell,
    /// A name from its cell's hash.
    pub name: String,
    /// Unit direction of the town's centre (its plot's centre).
    pub centre: Vec3,
    /// The plot it stands on (an index into the layout's plots).
    pub plot: u32,
    /// The plot's height, metres above the base radius.
    pub height_m: f32,
    /// Radius of the town, metres.
    pub radius_m: f32,
}

/// What choosing a cell's settlement reads.
pub struct SiteRules<'a> {
    /// The planet's seed.
    pub seed: u64,
    /// The chance a cell with a plot holds a town.
    pub chance: f32,
    /// The town's radius, metres.
    pub radius_m: f32,
    /// What the town needs clear inside its cell beyond its radius, metres.
    pub margin_m: f32,
    /// The layout's plots.
    pub plots: &'a [Plot],
}

/// The settlement of cell `c`, if it holds one. `in_cell` lists the plots
/// whose centres lie in the cell, ascending.
#[must_use]
pub fn settlement_of(grid: &SiteGrid, rules: &SiteRules<'_>, c: SiteCell, in_cell: &[u32]) -> Option<Settlement> {
    let (face, x, y) = grid.coords(c);
    let (fx, fy) = (i64::from(face.index()), i64::from(y) * i64::from(grid.cells_across) + i64::from(x));
    if unit_f32(hash3(rules.seed, salt(b"town"), fx, fy, 0)) >= rules.chance {
        return None;
    }
    // The aim: a hashed point well inside the cell.
    let a = 0.2 + 0.6 * unit_f32(hash3(rules.seed, salt(b"town_aim"), fx, fy, 0));
    let b = 0.2 + 0.6 * unit_f32(hash3(rules.seed, salt(b"town_aim"), fx, fy, 1));
    let aim = grid.at(face, x as f32 + a, y as f32 + b);
    let fits = |p: &Plot| grid.inset_m(c, p.centre) >= rules.radius_m + rules.margin_m;
    let best = in_cell
        .iter()
        .copied()
        .filter(|&i| fits(&rules.plots[i as usize]))
        // Nearest the aim; ties to the lower plot index (`in_cell` ascends).
        .fold(None, |best: Option<(u32, f32)>, i| {
            let near = rules.plots[i as usize].centre.dot(aim);
            match best {
                Some((_, b)) if b >= near => best,
                _ => Some((i, near)),
            }
        })?;
    let plot = &rules.plots[best.0 as usize];
    Some(Settlement {
        cell: c,
        name: crate::plan::name_from(hash3(rules.seed, salt(b"townname"), fx, fy, 0)),
        centre: plot.centre,
        plot: best.0,
        height_m: plot.height_m,
        radius_m: rules.radius_m,
    })
}
