//! The six faces of the cube a planet is mapped onto, their axes, and how the
//! face grids join across the cube's edges.
//!
//! A face is the set of directions whose largest absolute component is its
//! normal's. On each face, cube point = normal + u'·tu + v'·tv, with
//! tu × tv = normal so that every face winds the same way.

use glam::Vec3;
use serde::{Deserialize, Serialize};

/// One face of the cube.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum Face {
    /// +X
    PosX = 0,
    /// -X
    NegX = 1,
    /// +Y (the north pole is its centre)
    PosY = 2,
    /// -Y
    NegY = 3,
    /// +Z
    PosZ = 4,
    /// -Z
    NegZ = 5,
}

/// An integer axis vector: exactly one component is +1 or -1.
pub type Axis = [i8; 3];

/// (normal, tu, tv) per face, with tu × tv = normal.
const AXES: [(Axis, Axis, Axis); 6] = [
    ([1, 0, 0], [0, 0, -1], [0, 1, 0]),
    ([-1, 0, 0], [0, 0, 1], [0, 1, 0]),
    ([0, 1, 0], [1, 0, 0], [0, 0, -1]),
    ([0, -1, 0], [1, 0, 0], [0, 0, 1]),
    ([0, 0, 1], [1, 0, 0], [0, 1, 0]),
    ([0, 0, -1], [-1, 0, 0], [0, 1, 0]),
];

/// One of a face's four edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    /// u = -1
    UMin,
    /// u = +1
    UMax,
    /// v = -1
    VMin,
    /// v = +1
    VMax,
}

/// How grid coordinates carry over an edge onto the neighbouring face: a point
/// `k` cells beyond the edge of this face, at position `t` along it, lands on
/// the neighbour `k` cells inside, at `t` or `n - t` along the shared edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdgeCrossing {
    /// The face across the edge.
    pub face: Face,
    /// True when the shared edge is the neighbour's u = ±1 edge (its x is the
    /// across-edge coordinate); false when it is its v = ±1 edge.
    pub across_is_x: bool,
    /// The neighbour's across-edge coordinate of the shared edge: n (true) or 0.
    pub edge_at_max: bool,
    /// Whether the along-edge coordinate runs the opposite way on the neighbour.
    pub along_flipped: bool,
}

fn dot(a: Axis, b: Axis) -> i8 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn neg(a: Axis) -> Axis {
    [-a[0], -a[1], -a[2]]
}

fn to_vec(a: Axis) -> Vec3 {
    Vec3::new(f32::from(a[0]), f32::from(a[1]), f32::from(a[2]))
}

impl Face {
    /// Every face, in index order.
    pub const ALL: [Face; 6] = [Face::PosX, Face::NegX, Face::PosY, Face::NegY, Face::PosZ, Face::NegZ];

    /// The face with index `i` (0..=5).
    #[must_use]
    pub fn from_index(i: u8) -> Option<Face> {
        Self::ALL.get(usize::from(i)).copied()
    }

    /// This face's index.
    #[must_use]
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// Integer axes (normal, tu, tv).
    #[must_use]
    pub fn axes(self) -> (Axis, Axis, Axis) {
        AXES[self as usize]
    }

    /// Outward normal.
    #[must_use]
    pub fn normal(self) -> Vec3 {
        to_vec(AXES[self as usize].0)
    }

    /// Direction of increasing u.
    #[must_use]
    pub fn tu(self) -> Vec3 {
        to_vec(AXES[self as usize].1)
    }

    /// Direction of increasing v.
    #[must_use]
    pub fn tv(self) -> Vec3 {
        to_vec(AXES[self as usize].2)
    }

    fn with_normal(n: Axis) -> Face {
        Self::ALL.into_iter().find(|f| f.axes().0 == n).expect("every axis is a face normal")
    }

    /// The face a direction belongs to: the one of its largest absolute component
    /// (ties go to x, then y).
    #[must_use]
    pub fn of_direction(d: Vec3) -> Face {
        let a = d.abs();
        if a.x >= a.y && a.x >= a.z {
            if d.x >= 0.0 { Face::PosX } else { Face::NegX }
        } else if a.y >= a.z {
            if d.y >= 0.0 { Face::PosY } else { Face::NegY }
        } else if d.z >= 0.0 {
            Face::PosZ
        } else {
            Face::NegZ
        }
    }

    /// How the grid carries over `edge` onto the neighbouring face.
    #[must_use]
    pub fn crossing(self, edge: Edge) -> EdgeCrossing {
        let (_, tu, tv) = self.axes();
        // The neighbour's normal is the axis we leave along; the along-edge axis is the other tangent.
        let (out, along) = match edge {
            Edge::UMax => (tu, tv),
            Edge::UMin => (neg(tu), tv),
            Edge::VMax => (tv, tu),
            Edge::VMin => (neg(tv), tu),
        };
        let face = Face::with_normal(out);
        let (n_self, _, _) = self.axes();
        let (_, gu, gv) = face.axes();
        // On the neighbour, our normal is one of its tangents: that tangent is the across-edge axis,
        // and the shared edge is where that coordinate is +1 (dot = +1) or -1.
        if dot(gu, n_self) != 0 {
            EdgeCrossing {
                face,
                across_is_x: true,
                edge_at_max: dot(gu, n_self) > 0,
                along_flipped: dot(gv, along) < 0,
            }
        } else {
            EdgeCrossing {
                face,
                across_is_x: false,
                edge_at_max: dot(gv, n_self) > 0,
                along_flipped: dot(gu, along) < 0,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_are_right_handed_and_faces_classify() {
        for f in Face::ALL {
            assert_eq!(f.tu().cross(f.tv()), f.normal(), "{f:?}");
            assert_eq!(Face::of_direction(f.normal()), f);
            assert_eq!(Face::of_direction(f.normal() * 2.0 + f.tu() * 0.5 - f.tv() * 0.9), f);
            assert_eq!(Face::from_index(f.index()), Some(f));
        }
        assert_eq!(Face::from_index(6), None);
    }

    #[test]
    fn every_edge_has_a_consistent_neighbour() {
        for f in Face::ALL {
            for edge in [Edge::UMin, Edge::UMax, Edge::VMin, Edge::VMax] {
                let c = f.crossing(edge);
                assert_ne!(c.face, f);
                assert_ne!(c.face.normal(), -f.normal());
                // Crossing back from the neighbour's shared edge returns to this face.
                let back = match (c.across_is_x, c.edge_at_max) {
                    (true, true) => Edge::UMax,
                    (true, false) => Edge::UMin,
                    (false, true) => Edge::VMax,
                    (false, false) => Edge::VMin,
                };
                let r = c.face.crossing(back);
                assert_eq!(r.face, f, "{f:?} {edge:?}");
                assert_eq!(r.along_flipped, c.along_flipped);
            }
        }
    }
}
