//! A town's buildings in a region: each one placed in the region's frame
//! (its base, its up along the planet's radius, its width axis on the
//! tangent plane), what the renderer draws and the collider stands on.
//!
//! A building belongs to the region that holds its base (the column and
//! layer of its footprint's centre at the region's LOD), which draws it; the
//! colliders of every region whose column one of its corners reaches hold it
//! too, so a walker at a region's edge meets a building that stands across it.
//!
//! The shape is one sum, [`PlacedBuilding::point`], from the models' shape
//! coordinates (`models.rs`); the buildings shader makes the same sum. The
//! collider is convex pieces from the same curve values: the walls cut into
//! `HULL_SEGMENTS` straight prisms up the bend (each the sweep of the
//! cross-section from one height to the next, so convex), and the roof's
//! stair house or vault as one more.

use glam::{DVec3, Vec2, Vec3};
use serde::{Deserialize, Serialize};

use super::models::{STAIR_HOUSE, VAULT_RISE, rows, section, vault_arch};
use super::{Building, BuildingCurve, BuildingKind, TownFrame};
use crate::geometry::RegionKey;
use crate::hash::{hash2, salt, unit_f32};
use crate::terrain::Terrain;

/// How far a building's walls go below its levelled ground, metres: the
/// ground's last centimetres of slope never show a gap under a wall.
pub const SINK_M: f32 = 0.4;

/// Straight pieces of a bent building's collider.
pub const HULL_SEGMENTS: u32 = 12;

/// One building placed in a region.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacedBuilding {
    /// Its town (the settlement's cell).
    pub town: u32,
    /// Its index among the town's buildings.
    pub index: u32,
    /// Its type.
    pub kind: BuildingKind,
    /// One of its town's two landmarks.
    pub landmark: bool,
    /// Whether this region draws it (it holds its base); the others only collide with it.
    pub owned: bool,
    /// The centre of its footprint, `SINK_M` below its ground, relative to the region's origin.
    pub base: Vec3,
    /// Up (unit, the planet's radius through its centre).
    pub up: Vec3,
    /// Its width axis (unit, tangent).
    pub across: Vec3,
    /// Footprint along `across`, metres.
    pub width_m: f32,
    /// Footprint along `up × across`, metres.
    pub depth_m: f32,
    /// Base to roof, metres (the sink included).
    pub height_m: f32,
    /// Height of a floor, metres (the facade's rows of windows).
    pub floor_height_m: f32,
    /// Its bend.
    pub curve: BuildingCurve,
    /// Wall colour, linear RGB, and 255.
    pub color: [u8; 4],
}

/// One convex piece of a building's collider: points and outward triangles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConvexPiece {
    /// Corners, relative to the region's origin.
    pub points: Vec<Vec3>,
    /// Triangles, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
}

/// Wall colours, linear RGB: limewash, sandstone, terracotta, slate, ochre.
const WALLS: [[u8; 3]; 5] = [[200, 196, 184], [186, 160, 120], [150, 74, 48], [96, 100, 108], [180, 132, 60]];
/// A landmark's walls: pale copper.
const LANDMARK_WALL: [u8; 3] = [120, 170, 150];

impl PlacedBuilding {
    /// `building` of the town of `frame` (cell `town`), relative to `origin`.
    #[must_use]
    pub fn new(seed: u64, town: u32, index: u32, building: &Building, frame: &TownFrame, origin: DVec3) -> Self {
        let up = frame.direction(Vec2::from(building.centre));
        let (width, _) = building.axes();
        let flat = frame.x * width.x + frame.y * width.y;
        let across = (flat - up * flat.dot(up)).normalize();
        let base = up.as_dvec3() * f64::from(frame.radius_m + building.base_m - SINK_M) - origin;
        let pick = hash2(seed, salt(b"b_wall"), i64::from(town), i64::from(index));
        let wall = if building.landmark {
            LANDMARK_WALL
        } else {
            WALLS[((unit_f32(pick) * WALLS.len() as f32) as usize).min(WALLS.len() - 1)]
        };
        Self {
            town,
            index,
            kind: building.kind,
            landmark: building.landmark,
            owned: false,
            base: base.as_vec3(),
            up,
            across,
            width_m: building.width_m,
            depth_m: building.depth_m,
            height_m: building.height_m() + SINK_M,
            floor_height_m: building.floor_height_m,
            curve: building.curve,
            color: [wall[0], wall[1], wall[2], 255],
        }
    }

    /// Its depth axis, `up × across`.
    #[must_use]
    pub fn along(&self) -> Vec3 {
        self.up.cross(self.across)
    }

    /// The point of shape coordinates `(a, b, t, rise)` (`models.rs`),
    /// relative to the region's origin: what the buildings shader computes.
    #[must_use]
    pub fn point(&self, a: f32, b: f32, t: f32, rise: f32) -> Vec3 {
        let half_width = self.width_m * 0.5;
        let bend = self.curve.offset(t);
        let x = a * half_width + bend.x;
        let y = b * self.depth_m * 0.5 + bend.y;
        let z = t * self.height_m + rise * half_width;
        self.base + self.across * x + self.along() * y + self.up * z
    }

    /// The convex pieces of its collider (see the module's doc).
    #[must_use]
    pub fn hulls(&self) -> Vec<ConvexPiece> {
        let section = section(self.kind);
        let segments = if self.curve.is_straight() { 1 } else { HULL_SEGMENTS };
        let slice = |t: f32, rise: f32, scale: f32| -> Vec<Vec3> {
            section.iter().map(|p| self.point(p.x * scale, p.y * scale, t, rise)).collect()
        };
        let mut pieces: Vec<ConvexPiece> = (0..segments)
            .map(|s| {
                let (t0, t1) = (s as f32 / segments as f32, (s + 1) as f32 / segments as f32);
                prism(slice(t0, 0.0, 1.0), slice(t1, 0.0, 1.0))
            })
            .collect();
        match self.kind {
            BuildingKind::Flat => {
                let (size, height) = STAIR_HOUSE;
                pieces.push(prism(slice(1.0, 0.0, size), slice(1.0, height, size)));
            }
            BuildingKind::Arched => {
                let end = |b: f32| vault_arch().iter().map(|p| self.point(p.x, b, 1.0, p.y)).collect();
                pieces.push(prism(end(-1.0), end(1.0)));
            }
            BuildingKind::Curved => {}
        }
        pieces
    }

    /// Whether point `p` (relative to the region's origin) is within
    /// `margin_m` of the walls' inside, between the sunk base and the roof:
    /// ground a walker cannot stand on.
    #[must_use]
    pub fn contains(&self, p: Vec3, margin_m: f32) -> bool {
        let q = p - self.base;
        let z = q.dot(self.up);
        let roof = match self.kind {
            BuildingKind::Flat => STAIR_HOUSE.1,
            BuildingKind::Arched => VAULT_RISE,
            BuildingKind::Curved => 0.0,
        };
        let top = self.height_m + roof * self.width_m * 0.5;
        if z < -margin_m || z > top + margin_m {
            return false;
        }
        let bend = self.curve.offset(z / self.height_m);
        let x = q.dot(self.across) - bend.x;
        let y = q.dot(self.along()) - bend.y;
        x.abs() <= self.width_m * 0.5 + margin_m && y.abs() <= self.depth_m * 0.5 + margin_m
    }

    /// Rows of its drawn walls.
    #[must_use]
    pub fn rows(&self) -> u32 {
        rows(self.kind)
    }
}

/// The convex hull of `bottom` and `top`, two copies of one convex polygon,
/// the second moved by one vector (a slice of a bent wall and the next, or a
/// vault's two ends): the sweep of the polygon along that vector, whose
/// faces are the two polygons and a parallelogram per edge.
fn prism(bottom: Vec<Vec3>, top: Vec<Vec3>) -> ConvexPiece {
    let n = bottom.len() as u32;
    let mut points = bottom;
    points.extend(top);
    let centre = points.iter().copied().sum::<Vec3>() / points.len() as f32;
    let mut triangles = Vec::with_capacity(4 * n as usize);
    for i in 1..n - 1 {
        triangles.push([0, i, i + 1]);
        triangles.push([n, n + i, n + i + 1]);
    }
    for i in 0..n {
        let j = (i + 1) % n;
        triangles.push([i, j, n + j]);
        triangles.push([i, n + j, n + i]);
    }
    // Each face turned outward, away from the piece's centre.
    for tri in &mut triangles {
        let [a, b, c] = tri.map(|k| points[k as usize]);
        if (b - a).cross(c - a).dot((a + b + c) / 3.0 - centre) < 0.0 {
            tri.swap(1, 2);
        }
    }
    ConvexPiece { points, triangles }
}

/// The face column `(face, x, y)` of direction `d` at `lod`.
fn column_of(terrain: &Terrain, d: Vec3, lod: u8) -> (u8, u32, u32) {
    let key = terrain.column_key(d, lod);
    (key.face, key.x, key.y)
}

/// The buildings of region `key` (origin `origin`): those whose base it
/// holds (`owned`) and those one of whose corners its column reaches.
#[must_use]
pub fn region_buildings(terrain: &Terrain, key: RegionKey, origin: DVec3) -> Vec<PlacedBuilding> {
    let settlements = &terrain.settlements;
    if settlements.data.sites.is_empty() {
        return Vec::new();
    }
    let grid = &terrain.grid;
    let column = (key.face, key.x, key.y);
    // The region's column: its centre and the angle to its farthest corner.
    let cells = crate::geometry::REGION_CELLS;
    let corner = |i: i32, j: i32| {
        let (u, v) = grid.face_uv(key.lod, (key.x as i32 + i) * cells, (key.y as i32 + j) * cells);
        crate::geometry::direction(key.face(), u, v)
    };
    let centre = (corner(0, 0) + corner(1, 0) + corner(0, 1) + corner(1, 1)).normalize();
    let spread = [(0, 0), (1, 0), (0, 1), (1, 1)]
        .map(|(i, j)| super::angle(centre, corner(i, j)))
        .into_iter()
        .fold(0.0, f32::max);
    let mut out = Vec::new();
    for (i, site) in settlements.data.sites.iter().enumerate() {
        // Town reach: its radius, its buildings' half-diagonals and skirts, with room to spare.
        let reach = (site.radius_m * 1.5 + 60.0) / settlements.data.radius_m;
        if super::angle(centre, site.centre) > spread + reach {
            continue;
        }
        let Some(town) = settlements.town(i) else { continue };
        let frame = settlements.frame(i);
        for (j, b) in town.buildings.iter().enumerate() {
            let bounds = b.bounds;
            let corners =
                [(bounds[0], bounds[1]), (bounds[2], bounds[1]), (bounds[0], bounds[3]), (bounds[2], bounds[3])];
            let at = frame.direction(Vec2::from(b.centre));
            let mine = column_of(terrain, at, key.lod) == column;
            if !mine
                && !corners
                    .iter()
                    .any(|&(x, y)| column_of(terrain, frame.direction(Vec2::new(x, y)), key.lod) == column)
            {
                continue;
            }
            let mut placed = PlacedBuilding::new(terrain.seed, site.cell, j as u32, b, &frame, origin);
            placed.owned = mine && terrain.surface_key(at, key.lod).z == key.z;
            out.push(placed);
        }
    }
    out
}
