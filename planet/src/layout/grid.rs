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

use crate::geometry::{Face, GridPoint, PlanetGrid, direction_warped, face_coords, warp};

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
    /// The eight neighbours (in `OFFSETS` order, `NO_CELL` beyond a cube
    /// corner) of every cell on a face's border, `BORDER` a face, worked out
    /// once. Inside a face they are index arithmetic: the floods, distances
    /// and walks ask millions of times, in an order that jumps about the
    /// grid, and a table of every cell's ring (12 MiB) misses the cache.
    border: Vec<[Cell; 8]>,
}

/// Border cells of a face: its outer ring of cells.
const BORDER: usize = 4 * (PLAN_CELLS as usize - 1);

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
        // Each row's and column's warped coordinate once (the same bits as
        // `direction` at every centre).
        let warped: Vec<f32> = (0..n).map(|i| warp((2 * i + 1) as f32 / n as f32 - 1.0)).collect();
        let mut centres = Vec::with_capacity(6 * (n * n) as usize);
        for face in Face::ALL {
            for &wv in &warped {
                centres.extend(warped.iter().map(|&wu| direction_warped(face, wu, wv)));
            }
        }
        let mut out = Self { grid: grid.clone(), lod, centres, border: Vec::new() };
        let last = PLAN_CELLS - 1;
        let mut border = vec![[NO_CELL; 8]; 6 * BORDER];
        for face in Face::ALL {
            let rows = (0..PLAN_CELLS).flat_map(|x| [(x, 0), (x, last)]);
            let columns = (1..last).flat_map(|y| [(0, y), (last, y)]);
            for (x, y) in rows.chain(columns) {
                border[usize::from(face.index()) * BORDER + Self::border_slot(x, y)] = out.worked_out_ring(face, x, y);
            }
        }
        out.border = border;
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
    /// cube corner): index steps inside a face, the table on its border.
    #[inline]
    fn ring(&self, c: Cell) -> [Cell; 8] {
        let n = PLAN_CELLS as u32;
        let (x, y) = (c % n, (c / n) % n);
        if x == 0 || y == 0 || x == n - 1 || y == n - 1 {
            let face = (c / (n * n)) as usize;
            return self.border[face * BORDER + Self::border_slot(x as i32, y as i32)];
        }
        [c + 1, c - 1, c + n, c - n, c + n + 1, c + n - 1, c - n + 1, c - n - 1]
    }

    /// A border cell's place among its face's `BORDER`: the bottom row, the
    /// top row, then the left and right columns between them.
    #[inline]
    fn border_slot(x: i32, y: i32) -> usize {
        let last = PLAN_CELLS - 1;
        let slot = if y == 0 {
            x
        } else if y == last {
            PLAN_CELLS + x
        } else if x == 0 {
            2 * PLAN_CELLS + y - 1
        } else {
            2 * PLAN_CELLS + last - 1 + y - 1
        };
        slot as usize
    }

    /// The eight neighbours of (x, y) of `face`, across edges through the
    /// region grid's frames.
    fn worked_out_ring(&self, face: Face, x: i32, y: i32) -> [Cell; 8] {
        OFFSETS.map(|(dx, dy)| self.cell_at(face, x + dx, y + dy).unwrap_or(NO_CELL))
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
        inside: impl FnMut(Cell) -> bool,
        mut visit: impl FnMut(Cell),
    ) {
        self.walk_while(grid, start, inside, |c| {
            visit(c);
            true
        });
    }

    /// `walk`, stopping as soon as `visit` returns false; whether it ran to the end.
    pub fn walk_while(
        &mut self,
        grid: &PlanGrid,
        start: Cell,
        mut inside: impl FnMut(Cell) -> bool,
        mut visit: impl FnMut(Cell) -> bool,
    ) -> bool {
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
            if !visit(c) {
                return false;
            }
            for n in grid.neighbours(c) {
                if self.marks[n as usize] != g {
                    self.marks[n as usize] = g;
                    if inside(n) {
                        self.queue.push(n);
                    }
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Centres made from warped rows and columns are `direction`'s, bit for bit.
    #[test]
    fn centres_are_the_directions_of_the_cells() {
        let grid = PlanGrid::new(&PlanetGrid::of_radius(2600.0));
        let n = PLAN_CELLS as f32;
        for c in 0..grid.len() as Cell {
            let (face, x, y) = PlanGrid::coords(c);
            let (u, v) = ((2 * x + 1) as f32 / n - 1.0, (2 * y + 1) as f32 / n - 1.0);
            assert_eq!(grid.centre(c), crate::geometry::direction(face, u, v), "cell {c}");
        }
    }

    /// Every cell's ring, by index steps inside a face or from the border
    /// table, is its offsets' cells as `cell_at` works them out: across face
    /// edges and beside cube corners too, on every face.
    #[test]
    fn rings_are_the_offsets_cells() {
        let grid = PlanGrid::new(&PlanetGrid::of_radius(2600.0));
        for c in 0..grid.len() as Cell {
            let (face, x, y) = PlanGrid::coords(c);
            assert_eq!(grid.ring(c), grid.worked_out_ring(face, x, y), "cell {c}");
        }
        let corners = (0..grid.len() as Cell).filter(|&c| grid.ring(c).contains(&NO_CELL)).count();
        assert_eq!(corners, 6 * 4, "each face's four corner cells miss one neighbour");
    }
}
