//! The plan's coarse grid: 256 x 256 cells on each cube face, aligned with
//! the region grid (a plan cell is a cell of LOD `max_lod - 3`), so that
//! neighbours cross face edges exactly as the region grid's do
//! (`PlanetGrid::cell_frame`). Cells are numbered face by face, row by row.
//!
//! Fields on the grid are read at any direction from the cell that holds it,
//! or bilinearly between the four nearest cell centres (across an edge from
//! the neighbour face's cells), so a sample is a pure function of the
//! direction.

use glam::Vec3;

use crate::geometry::{Face, GridPoint, PlanetGrid, face_coords};

/// Cells along each side of a face.
pub const PLAN_CELLS: i32 = 256;

/// A cell index, face by face, row by row.
pub type Cell = u32;

/// The coarse grid of one planet.
#[derive(Clone, Debug)]
pub struct PlanGrid {
    grid: PlanetGrid,
    lod: u8,
    /// Unit direction of every cell's centre.
    centres: Vec<Vec3>,
    /// Every cell's eight neighbours in `OFFSETS` order (`NO_CELL` beyond a
    /// cube corner): the floods, distances and walks read them millions of
    /// times, so they are worked out once.
    neighbours: Vec<[Cell; 8]>,
}

/// No cell (a neighbour beyond a cube corner).
const NO_CELL: Cell = Cell::MAX;

/// The eight neighbour offsets, the four edge neighbours first.
pub const OFFSETS: [(i32, i32); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)];

impl PlanGrid {
    /// The plan grid over `grid` (whose faces are at least 256 cells across at LOD 0).
    #[must_use]
    pub fn new(grid: &PlanetGrid) -> Self {
        let lod = grid.max_lod.saturating_sub(3);
        debug_assert_eq!(grid.cells_across(lod), PLAN_CELLS, "every valid radius has max_lod >= 3");
        let n = PLAN_CELLS;
        let mut centres = Vec::with_capacity(6 * (n * n) as usize);
        for face in Face::ALL {
            for y in 0..n {
                for x in 0..n {
                    let (u, v) = ((2 * x + 1) as f32 / n as f32 - 1.0, (2 * y + 1) as f32 / n as f32 - 1.0);
                    centres.push(crate::geometry::direction(face, u, v));
                }
            }
        }
        let mut out = Self { grid: grid.clone(), lod, centres, neighbours: Vec::new() };
        out.neighbours = (0..out.centres.len() as Cell)
            .map(|c| {
                let (face, x, y) = Self::coords(c);
                OFFSETS.map(|(dx, dy)| out.cell_at(face, x + dx, y + dy).unwrap_or(NO_CELL))
            })
            .collect();
        out
    }

    /// Number of cells.
    #[must_use]
    pub fn len(&self) -> usize {
        self.centres.len()
    }

    /// Whether the grid is empty (never).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.centres.is_empty()
    }

    /// The planet's base radius, metres.
    #[must_use]
    pub fn radius_m(&self) -> f32 {
        self.grid.radius_m
    }

    /// A cell's width at a face's centre, metres.
    #[must_use]
    pub fn cell_m(&self) -> f32 {
        self.grid.cell_m(self.lod)
    }

    /// Unit direction of a cell's centre.
    #[inline]
    #[must_use]
    pub fn centre(&self, c: Cell) -> Vec3 {
        self.centres[c as usize]
    }

    /// The index of cell (x, y) of `face` (inside the face).
    #[inline]
    #[must_use]
    pub fn index(face: Face, x: i32, y: i32) -> Cell {
        ((i32::from(face.index()) * PLAN_CELLS + y) * PLAN_CELLS + x) as Cell
    }

    /// Face and (x, y) of a cell.
    #[inline]
    #[must_use]
    pub fn coords(c: Cell) -> (Face, i32, i32) {
        let n = PLAN_CELLS as u32;
        let face = Face::from_index((c / (n * n)) as u8).expect("a cell index is below 6 faces");
        (face, (c % n) as i32, ((c / n) % n) as i32)
    }

    /// The cell at (x, y) of `face`'s frame, possibly one step beyond an edge
    /// (then on the neighbour face); `None` beyond a cube corner.
    #[must_use]
    pub fn cell_at(&self, face: Face, x: i32, y: i32) -> Option<Cell> {
        if (0..PLAN_CELLS).contains(&x) && (0..PLAN_CELLS).contains(&y) {
            return Some(Self::index(face, x, y));
        }
        let frame = self.grid.cell_frame(self.lod, GridPoint { face, x, y })?;
        Some(Self::index(frame.face, frame.x, frame.y))
    }

    /// The neighbour of `c` at offset `o` (one of `OFFSETS`).
    #[inline]
    #[must_use]
    pub fn neighbour(&self, c: Cell, o: (i32, i32)) -> Option<Cell> {
        let (face, x, y) = Self::coords(c);
        self.cell_at(face, x + o.0, y + o.1)
    }

    /// The eight neighbours of `c` in `OFFSETS` order, `None` beyond a cube
    /// corner (each `neighbour(c, OFFSETS[i])`, worked out once).
    #[inline]
    #[must_use]
    pub fn neighbour_ring(&self, c: Cell) -> [Option<Cell>; 8] {
        self.ring(c).map(|n| (n != NO_CELL).then_some(n))
    }

    /// The eight neighbours of `c` in `OFFSETS` order, those beyond a cube corner left out.
    #[inline]
    pub fn neighbours(&self, c: Cell) -> impl Iterator<Item = Cell> + use<> {
        self.ring(c).into_iter().filter(|&n| n != NO_CELL)
    }

    /// The eight neighbours of `c` in `OFFSETS` order (`NO_CELL` beyond a
    /// cube corner): from the table, or worked out once it is forgotten.
    #[inline]
    fn ring(&self, c: Cell) -> [Cell; 8] {
        match self.neighbours.get(c as usize) {
            Some(&ring) => ring,
            None => {
                let (face, x, y) = Self::coords(c);
                OFFSETS.map(|(dx, dy)| self.cell_at(face, x + dx, y + dy).unwrap_or(NO_CELL))
            }
        }
    }

    /// Frees the neighbour table (12 MiB): the floods and walks that read
    /// it millions of times are over once a layout is made, and the few
    /// neighbours asked for later are worked out as they are asked for.
    pub fn forget_neighbours(&mut self) {
        self.neighbours = Vec::new();
    }

    /// The cell holding direction `d`.
    #[must_use]
    pub fn cell_of(&self, d: Vec3) -> Cell {
        let (face, u, v) = face_coords(d);
        let at = |t: f32| ((((t + 1.0) * 0.5) * PLAN_CELLS as f32) as i32).clamp(0, PLAN_CELLS - 1);
        Self::index(face, at(u), at(v))
    }

    /// The four cells around `d` and their bilinear weights (in a fixed order:
    /// the sum over them is a pure function of `d`). Beside a cube corner,
    /// where a neighbour cell does not exist, the cell holding `d` stands in.
    #[must_use]
    pub fn bilinear(&self, d: Vec3) -> [(Cell, f32); 4] {
        self.locate(d).1
    }

    /// The cell holding `d` and the four cells around it with their bilinear
    /// weights (`cell_of` and `bilinear` at the price of one).
    #[must_use]
    pub fn locate(&self, d: Vec3) -> (Cell, [(Cell, f32); 4]) {
        let (face, u, v) = face_coords(d);
        let at = |t: f32| ((((t + 1.0) * 0.5) * PLAN_CELLS as f32) as i32).clamp(0, PLAN_CELLS - 1);
        let own = Self::index(face, at(u), at(v));
        let fx = (u + 1.0) * 0.5 * PLAN_CELLS as f32 - 0.5;
        let fy = (v + 1.0) * 0.5 * PLAN_CELLS as f32 - 0.5;
        let (x0, y0) = (fx.floor() as i32, fy.floor() as i32);
        let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
        let cell = |x: i32, y: i32| self.cell_at(face, x, y).unwrap_or(own);
        let corners = [
            (cell(x0, y0), (1.0 - tx) * (1.0 - ty)),
            (cell(x0 + 1, y0), tx * (1.0 - ty)),
            (cell(x0, y0 + 1), (1.0 - tx) * ty),
            (cell(x0 + 1, y0 + 1), tx * ty),
        ];
        (own, corners)
    }

    /// A field sampled bilinearly with the weights of `bilinear`.
    #[inline]
    #[must_use]
    pub fn sample_at(field: &[f32], corners: &[(Cell, f32); 4]) -> f32 {
        let first = field[corners[0].0 as usize];
        // Four equal values are that value, not a rounding of it: a bound
        // whose cells all read one value gives it to every point within.
        if corners[1..].iter().all(|&(c, _)| field[c as usize] == first) {
            return first;
        }
        corners.iter().map(|&(c, w)| field[c as usize] * w).sum()
    }

    /// A field sampled bilinearly at `d`.
    #[must_use]
    pub fn sample(&self, field: &[f32], d: Vec3) -> f32 {
        Self::sample_at(field, &self.bilinear(d))
    }

    /// Distance between two unit directions on the base sphere (chord), metres.
    #[inline]
    #[must_use]
    pub fn distance_m(&self, a: Vec3, b: Vec3) -> f32 {
        libm::sqrtf((a - b).length_squared()) * self.grid.radius_m
    }
}

/// A breadth-first walk over the cells near a point, reusing its marks
/// between walks (a generation counter per cell, never cleared).
#[derive(Clone, Debug)]
pub struct Walker {
    marks: Vec<u32>,
    generation: u32,
    queue: Vec<Cell>,
}

impl Walker {
    /// A walker over a grid of `cells` cells.
    #[must_use]
    pub fn new(cells: usize) -> Self {
        Self { marks: vec![0; cells], generation: 0, queue: Vec::new() }
    }

    /// Calls `visit` on every cell connected to `start` through cells for
    /// which `inside` holds (`start` always visited), in breadth-first order.
    pub fn walk(
        &mut self,
        grid: &PlanGrid,
        start: Cell,
        mut inside: impl FnMut(Cell) -> bool,
        mut visit: impl FnMut(Cell),
    ) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.marks.fill(0);
            self.generation = 1;
        }
        let g = self.generation;
        self.queue.clear();
        self.queue.push(start);
        self.marks[start as usize] = g;
        let mut head = 0;
        while head < self.queue.len() {
            let c = self.queue[head];
            head += 1;
            visit(c);
            for n in grid.neighbours(c) {
                if self.marks[n as usize] != g {
                    self.marks[n as usize] = g;
                    if inside(n) {
                        self.queue.push(n);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Once the table is forgotten, every cell's neighbours are worked out
    /// the same, across face edges and beside cube corners too.
    #[test]
    fn forgotten_neighbours_are_worked_out_the_same() {
        let table = PlanGrid::new(&PlanetGrid::of_radius(2600.0));
        let mut forgetful = table.clone();
        forgetful.forget_neighbours();
        assert!(forgetful.neighbours.is_empty());
        for c in 0..table.len() as Cell {
            assert_eq!(table.neighbour_ring(c), forgetful.neighbour_ring(c), "cell {c}");
        }
    }
}
