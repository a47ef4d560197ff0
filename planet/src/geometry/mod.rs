//! Planet geometry: the cube faces, the tangent-warped cube <-> sphere
//! mapping, the planet's voxel grid with its canonical points, and region keys.

mod cube_sphere;
mod face;
mod grid;
mod region_key;

pub use cube_sphere::{direction, direction_warped, face_coords, seam_biased_direction, unwarp, warp};
pub use face::{Edge, EdgeCrossing, Face};
pub use grid::{CellFrame, GridPoint, MARGIN, PlanetGrid, REGION_CELLS, WINDOW};
pub use region_key::{KeyError, NEIGHBOUR_OFFSETS, RegionKey};
