//! `RegionKey`: one region of 32³ voxels on one face at one LOD, and its place
//! in the region tree: parent, children and neighbours on every side, across
//! cube-face edges and corners too.
//!
//! `x` and `y` count regions across the face; `z` counts up through the voxel
//! shell. Horizontally each LOD doubles the cell size; vertically a layer is
//! `PlanetGrid::layer_m(lod)` tall (1, 2, then 4 m with a 128 m shell), so
//! from LOD 2 on a single region spans the shell and has 4 children, not 8.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::face::{Edge, Face};
use super::grid::PlanetGrid;

/// Identifies one region of one planet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RegionKey {
    /// Cube face, 0..=5 (+X, -X, +Y, -Y, +Z, -Z).
    pub face: u8,
    /// Level of detail: voxels are 2^lod cells of LOD 0 across.
    pub lod: u8,
    /// Region column along the face's u axis.
    pub x: u32,
    /// Region column along the face's v axis.
    pub y: u32,
    /// Region layer, counting up from the bottom of the voxel shell.
    pub z: u32,
}

/// Why a region key does not name a region of a planet.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// Not of the form F/L/X/Y/Z.
    #[error("region key {0:?} must be F/L/X/Y/Z with five non-negative integers, e.g. 4/0/120/77/1")]
    Syntax(String),
    /// A part that is a whole number, but too large for any key.
    #[error("{part} = {value}: too large for a region key (faces are 0..=5, and no planet's grid reaches 4294967295)")]
    Huge {
        /// "face", "lod", "x", "y" or "z".
        part: &'static str,
        /// The number as written.
        value: String,
    },
    /// Face out of range.
    #[error("face = {0}: must be in 0..=5")]
    Face(u32),
    /// LOD beyond the tree.
    #[error("lod = {lod}: must be in 0..={max} (at LOD {max} one region covers a face)")]
    Lod {
        /// The LOD asked for.
        lod: u32,
        /// The planet's coarsest LOD.
        max: u8,
    },
    /// Column off the face.
    #[error("{axis} = {value}: must be in 0..={max} at LOD {lod}")]
    Column {
        /// "x", "y" or "z".
        axis: &'static str,
        /// The coordinate.
        value: u32,
        /// The largest allowed.
        max: u32,
        /// The LOD.
        lod: u8,
    },
}

impl fmt::Display for RegionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}/{}/{}", self.face, self.lod, self.x, self.y, self.z)
    }
}

impl FromStr for RegionKey {
    type Err = KeyError;

    /// Parses F/L/X/Y/Z. Ranges are checked by `PlanetGrid::check`.
    fn from_str(s: &str) -> Result<Self, KeyError> {
        let texts: Vec<&str> = s.split('/').map(str::trim).collect();
        if texts.len() != 5 || texts.iter().any(|t| t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit())) {
            return Err(KeyError::Syntax(s.to_owned()));
        }
        let mut parts = [0u32; 5];
        for (i, (t, part)) in texts.iter().zip(["face", "lod", "x", "y", "z"]).enumerate() {
            // All digits: only its size can fail it.
            parts[i] = t.parse().map_err(|_| KeyError::Huge { part, value: (*t).to_owned() })?;
        }
        let [face, lod, x, y, z] = parts;
        if face > 5 {
            return Err(KeyError::Face(face));
        }
        let lod = u8::try_from(lod).map_err(|_| KeyError::Lod { lod, max: 0 })?;
        Ok(Self { face: face as u8, lod, x, y, z })
    }
}

impl RegionKey {
    /// The key's face. Panics on a face index above 5 (check keys first).
    #[must_use]
    pub fn face(&self) -> Face {
        Face::from_index(self.face).expect("a checked key has a face in 0..=5")
    }
}

/// The neighbour directions: (dx, dy, dz), each -1, 0 or 1, not all 0.
pub const NEIGHBOUR_OFFSETS: [(i32, i32, i32); 26] = {
    let mut out = [(0, 0, 0); 26];
    let mut i = 0;
    let mut dz = -1;
    while dz <= 1 {
        let mut dy = -1;
        while dy <= 1 {
            let mut dx = -1;
            while dx <= 1 {
                if dx != 0 || dy != 0 || dz != 0 {
                    out[i] = (dx, dy, dz);
                    i += 1;
                }
                dx += 1;
            }
            dy += 1;
        }
        dz += 1;
    }
    out
};

impl PlanetGrid {
    /// Checks that `key` names a region of this planet.
    pub fn check(&self, key: RegionKey) -> Result<(), KeyError> {
        if key.face > 5 {
            return Err(KeyError::Face(u32::from(key.face)));
        }
        if key.lod > self.max_lod {
            return Err(KeyError::Lod { lod: u32::from(key.lod), max: self.max_lod });
        }
        let across = self.regions_across(key.lod);
        let up = self.regions_up(key.lod);
        for (axis, value, n) in [("x", key.x, across), ("y", key.y, across), ("z", key.z, up)] {
            if value >= n {
                return Err(KeyError::Column { axis, value, max: n - 1, lod: key.lod });
            }
        }
        Ok(())
    }

    /// The region one LOD coarser that contains `key`, or `None` at the coarsest LOD.
    #[must_use]
    pub fn parent(&self, key: RegionKey) -> Option<RegionKey> {
        if key.lod >= self.max_lod {
            return None;
        }
        let lod = key.lod + 1;
        // Layers of the parent are as tall or twice as tall as ours.
        let ratio = (self.layer_m(lod) / self.layer_m(key.lod)) as u32;
        Some(RegionKey { face: key.face, lod, x: key.x / 2, y: key.y / 2, z: key.z / ratio })
    }

    /// The regions one LOD finer inside `key`: 8, or 4 where the finer LOD has
    /// layers as tall as ours. Empty at LOD 0.
    #[must_use]
    pub fn children(&self, key: RegionKey) -> Vec<RegionKey> {
        if key.lod == 0 {
            return Vec::new();
        }
        let lod = key.lod - 1;
        let ratio = (self.layer_m(key.lod) / self.layer_m(lod)) as u32;
        let mut out = Vec::with_capacity(8);
        for dz in 0..ratio {
            for dy in 0..2 {
                for dx in 0..2 {
                    out.push(RegionKey {
                        face: key.face,
                        lod,
                        x: key.x * 2 + dx,
                        y: key.y * 2 + dy,
                        z: key.z * ratio + dz,
                    });
                }
            }
        }
        out
    }

    /// The neighbour at offset (dx, dy, dz) in regions, each in -1..=1, at the
    /// same LOD. Across a face edge it is the neighbour face's region; there is
    /// none diagonally beyond a cube corner, nor above or below the shell.
    #[must_use]
    pub fn neighbour(&self, key: RegionKey, dx: i32, dy: i32, dz: i32) -> Option<RegionKey> {
        let z = i64::from(key.z) + i64::from(dz);
        if z < 0 || z >= i64::from(self.regions_up(key.lod)) {
            return None;
        }
        let n = self.regions_across(key.lod) as i32;
        let x = key.x as i32 + dx;
        let y = key.y as i32 + dy;
        let out_x = !(0..n).contains(&x);
        let out_y = !(0..n).contains(&y);
        let (face, x, y) = match (out_x, out_y) {
            (false, false) => (key.face(), x, y),
            (true, true) => return None,
            (true, false) => {
                let edge = if x >= n { Edge::UMax } else { Edge::UMin };
                cross_region(key.face(), edge, y, n)
            }
            (false, true) => {
                let edge = if y >= n { Edge::VMax } else { Edge::VMin };
                cross_region(key.face(), edge, x, n)
            }
        };
        Some(RegionKey { face: face.index(), lod: key.lod, x: x as u32, y: y as u32, z: z as u32 })
    }

    /// Every region touching `key` on a side, an edge or a corner, sorted.
    #[must_use]
    pub fn neighbours(&self, key: RegionKey) -> Vec<RegionKey> {
        let mut out: Vec<RegionKey> =
            NEIGHBOUR_OFFSETS.iter().filter_map(|&(dx, dy, dz)| self.neighbour(key, dx, dy, dz)).collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The first region inside the face across `edge`, at region `t` along the edge.
fn cross_region(face: Face, edge: Edge, t: i32, n: i32) -> (Face, i32, i32) {
    let c = face.crossing(edge);
    let along = if c.along_flipped { n - 1 - t } else { t };
    let across = if c.edge_at_max { n - 1 } else { 0 };
    if c.across_is_x { (c.face, across, along) } else { (c.face, along, across) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipe::{PlanetKind, derive_recipe};

    fn grid() -> PlanetGrid {
        PlanetGrid::new(&derive_recipe(PlanetKind::Rocky, 3))
    }

    #[test]
    fn keys_parse_print_and_check() {
        let g = grid();
        let k: RegionKey = "4/0/12/7/1".parse().unwrap();
        assert_eq!(k.to_string(), "4/0/12/7/1");
        assert!(g.check(k).is_ok());
        // A well-formed key with a coordinate too large for any grid says so.
        assert_eq!(
            "0/0/99999999999/0/0".parse::<RegionKey>().unwrap_err().to_string(),
            "x = 99999999999: too large for a region key (faces are 0..=5, and no planet's grid reaches 4294967295)"
        );
        for bad in ["4/0/12/7", "a/b/c/d/e", "4/0/-1/7/1", "", "1/2/3/4/5/6", "4/0/+1/7/1"] {
            assert!(matches!(bad.parse::<RegionKey>(), Err(KeyError::Syntax(_))), "{bad}");
        }
        assert_eq!("7/0/0/0/0".parse::<RegionKey>(), Err(KeyError::Face(7)));
        let n = g.regions_across(0);
        let beyond_lod = RegionKey { face: 0, lod: g.max_lod + 1, x: 0, y: 0, z: 0 };
        assert!(g.check(beyond_lod).unwrap_err().to_string().contains("must be in 0..="));
        let off = RegionKey { face: 0, lod: 0, x: n, y: 0, z: 0 };
        assert_eq!(g.check(off).unwrap_err().to_string(), format!("x = {n}: must be in 0..={} at LOD 0", n - 1));
        let high = RegionKey { face: 0, lod: 3, x: 0, y: 0, z: 1 };
        assert_eq!(g.check(high).unwrap_err().to_string(), "z = 1: must be in 0..=0 at LOD 3");
    }

    #[test]
    fn parents_and_children_nest() {
        let g = grid();
        for key in [
            RegionKey { face: 2, lod: 0, x: 5, y: 9, z: 3 },
            RegionKey { face: 5, lod: 1, x: 4, y: 1, z: 1 },
            RegionKey { face: 1, lod: 4, x: 2, y: 3, z: 0 },
        ] {
            let parent = g.parent(key).unwrap();
            assert!(g.check(parent).is_ok());
            assert!(g.children(parent).contains(&key), "{key} in {parent}");
            for c in g.children(parent) {
                assert!(g.check(c).is_ok());
                assert_eq!(g.parent(c), Some(parent));
            }
        }
        assert_eq!(g.children(RegionKey { face: 0, lod: 1, x: 0, y: 0, z: 0 }).len(), 8);
        assert_eq!(g.children(RegionKey { face: 0, lod: 3, x: 0, y: 0, z: 0 }).len(), 4);
        let top = RegionKey { face: 0, lod: g.max_lod, x: 0, y: 0, z: 0 };
        assert_eq!(g.parent(top), None);
    }

    #[test]
    fn neighbours_across_every_face_edge_and_back() {
        let g = grid();
        for lod in [0u8, 2, g.max_lod] {
            let n = g.regions_across(lod);
            for face in 0..6u8 {
                for t in [0, n / 2, n - 1] {
                    for (key, (dx, dy)) in [
                        (RegionKey { face, lod, x: n - 1, y: t, z: 0 }, (1, 0)),
                        (RegionKey { face, lod, x: 0, y: t, z: 0 }, (-1, 0)),
                        (RegionKey { face, lod, x: t, y: n - 1, z: 0 }, (0, 1)),
                        (RegionKey { face, lod, x: t, y: 0, z: 0 }, (0, -1)),
                    ] {
                        let across = g.neighbour(key, dx, dy, 0).unwrap();
                        assert_ne!(across.face, face);
                        assert!(g.check(across).is_ok());
                        // Exactly one step back leads home.
                        let back: Vec<_> = [(1, 0), (-1, 0), (0, 1), (0, -1)]
                            .iter()
                            .filter_map(|&(bx, by)| g.neighbour(across, bx, by, 0))
                            .filter(|&k| k == key)
                            .collect();
                        assert_eq!(back.len(), 1, "{key} -> {across}");
                        assert!(g.neighbours(across).contains(&key));
                    }
                }
            }
        }
    }

    #[test]
    fn corners_have_three_regions_around_them() {
        let g = grid();
        let n = g.regions_across(1);
        let corner = RegionKey { face: 4, lod: 1, x: n - 1, y: n - 1, z: 0 };
        assert_eq!(g.neighbour(corner, 1, 1, 0), None);
        let ring: Vec<_> = g.neighbours(corner).into_iter().filter(|k| k.z == 0).collect();
        // 8 around a key in a face's interior; 7 at a cube corner (the diagonal is missing).
        assert_eq!(ring.len(), 7, "{ring:?}");
        let inner = RegionKey { face: 4, lod: 1, x: 3, y: 3, z: 0 };
        assert_eq!(g.neighbours(inner).len(), 8 + 9);
        // The two regions across the corner's edges are neighbours of each other too.
        let a = g.neighbour(corner, 1, 0, 0).unwrap();
        let b = g.neighbour(corner, 0, 1, 0).unwrap();
        assert!(g.neighbours(a).contains(&b), "{a} {b}");
    }
}
