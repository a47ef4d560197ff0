//! f32 noise on libm and the seeded lattice hash: gradient (Perlin-style) and
//! value noise in 2D and 3D, fractal sums (fbm, ridged multifractal,
//! turbulence), domain warp, and cellular (Worley) noise.
//!
//! All noise is a pure function of a 32-bit seed and the sample point: no
//! permutation tables built at run time, no state. Inner loops pick gradients
//! from constant tables indexed by hash bits, with no branch on the hash: at
//! high octaves nearly every sample lands in a new lattice cell, and a
//! branchy gradient select was measured about 4x slower there.
//!
//! **Invariant:** the bits of every function here are pinned by
//! `tests/golden_noise.rs`; changing them changes every world, so it needs a
//! `GENERATOR_VERSION` bump.

mod cellular;
mod fractal;
mod gradient;
mod lattice;
mod value;
mod warp;

pub use cellular::{Cellular, cellular2, cellular3};
pub use fractal::{Fractal, FractalParams, MAX_OCTAVES};
pub use gradient::{Gradient, gradient2, gradient3};
pub use value::{Value, value2, value3};
pub use warp::Warp3;

/// A lattice noise in 2D and 3D that fractal sums are built from.
pub trait Basis {
    /// Noise at (x, y), roughly in [-1, 1].
    fn sample2(seed: u32, x: f32, y: f32) -> f32;
    /// Noise at (x, y, z), roughly in [-1, 1].
    fn sample3(seed: u32, x: f32, y: f32, z: f32) -> f32;
}
