//! The binary layouts of the physics stages, beside `binary.rs`'s framing:
//!
//! - `collider` (`Collider`): `origin`, `vertices` (`f32` x, y, z),
//!   `triangles` (three `u32` vertex indices at any width held, in the tree's order; none
//!   where the region has no surface) and `objects` (one `u32`: the first
//!   vertex of the scatter's trunks and boulders). Reading checks them
//!   (every index in range, every coordinate finite) and rebuilds the tree,
//!   which is the same, bit for bit, as the one the stage built.
//! - `navmesh` (`NavMesh`): `origin`, `vertices` (`f32` x, y, z) and
//!   `polygons` (`NavPolygon`: its corner count, 3 or 4, then four vertex
//!   indices and the four polygons across its edges, `u32::MAX` for none and
//!   in the slot past a triangle's corners). Reading checks every index and
//!   count.

use super::DumpError;
use super::binary::{
    Field, Kind, ORIGIN, Reader, Section, Writer, element_bytes, err, f, origin_bytes, read_origin, read_u32s,
    u32_bytes,
};
use crate::RegionKey;
use crate::physics::{Collider, MAX_CORNERS, NO_NEIGHBOUR, NavMesh, NavPolygon};

use Kind::{F32, U32};

/// A point relative to an origin (a collider's or navmesh's vertex): 12 bytes.
pub const POINT: &[Field] = &[f("x", F32), f("y", F32), f("z", F32)];
/// A collider's triangle: 12 bytes.
pub const TRIANGLE: &[Field] = &[f("vertices[0]", U32), f("vertices[1]", U32), f("vertices[2]", U32)];
/// Where a collider's objects start: 4 bytes.
pub const OBJECTS_FROM: &[Field] = &[f("first_vertex", U32)];
/// A `NavPolygon`: 36 bytes.
pub const NAV_POLYGON: &[Field] = &[
    f("count", U32),
    f("vertices[0]", U32),
    f("vertices[1]", U32),
    f("vertices[2]", U32),
    f("vertices[3]", U32),
    f("neighbours[0]", U32),
    f("neighbours[1]", U32),
    f("neighbours[2]", U32),
    f("neighbours[3]", U32),
];

/// A collider file's sections, in order, with their layouts.
pub(crate) const COLLIDER_SECTIONS: [(&str, &[&[Field]]); 4] =
    [("origin", &[ORIGIN]), ("vertices", &[POINT]), ("triangles", &[TRIANGLE]), ("objects", &[OBJECTS_FROM])];

/// A navmesh file's sections, in order, with their layouts.
pub(crate) const NAVMESH_SECTIONS: [(&str, &[&[Field]]); 3] =
    [("origin", &[ORIGIN]), ("vertices", &[POINT]), ("polygons", &[NAV_POLYGON])];

fn section(name: &str, fields: &'static [Field], bytes: Vec<u8>) -> Section {
    Section::new(name, fields, bytes)
}

/// Why a stage's input of region `key` (named `what`) cannot go with the
/// sphere mesh of region `mesh`, if it cannot.
pub(crate) fn key_problem(what: &str, key: RegionKey, mesh: &crate::mesh::SphereMesh) -> Option<DumpError> {
    (key != mesh.key)
        .then(|| DumpError::new(format!("{what} (key {key}) and sphere_mesh (key {}) are not of one region", mesh.key)))
}

/// A message when a physics stage's `origin` is not its sphere mesh's, bit for bit.
pub(crate) fn origin_problem(origin: glam::DVec3, mesh: Option<&crate::mesh::SphereMesh>) -> Option<String> {
    let bits = |o: glam::DVec3| o.to_array().map(f64::to_bits);
    let mesh = mesh?;
    (bits(origin) != bits(mesh.origin))
        .then(|| format!("origin = {origin}: must be the sphere mesh's origin {}", mesh.origin))
}

/// A collider's sections.
pub(crate) fn collider_sections(c: &Collider) -> Vec<Section> {
    vec![
        section("origin", ORIGIN, origin_bytes(c.origin)),
        section("vertices", POINT, point_bytes(c.vertices.iter().copied())),
        section("triangles", TRIANGLE, u32_bytes(&c.corners.to_u32())),
        section("objects", OBJECTS_FROM, u32_bytes(&[c.objects_from])),
    ]
}

/// A navmesh's sections.
pub(crate) fn navmesh_sections(n: &NavMesh) -> Vec<Section> {
    vec![
        section("origin", ORIGIN, origin_bytes(n.origin)),
        section("vertices", POINT, point_bytes(n.vertices.iter().copied())),
        section("polygons", NAV_POLYGON, nav_polygon_bytes(&n.polygons)),
    ]
}

fn point_bytes(points: impl Iterator<Item = [f32; 3]>) -> Vec<u8> {
    let mut w = Writer::default();
    for p in points {
        for x in p {
            w.f32(x);
        }
    }
    w.0
}

fn read_points(bytes: &[u8]) -> Vec<[f32; 3]> {
    let mut r = Reader { bytes, at: 0 };
    (0..bytes.len() / element_bytes(POINT)).map(|_| [r.f32(), r.f32(), r.f32()]).collect()
}

fn nav_polygon_bytes(polygons: &[NavPolygon]) -> Vec<u8> {
    let mut w = Writer::default();
    for p in polygons {
        w.u32(p.count);
        for &i in p.vertices.iter().chain(&p.neighbours) {
            w.u32(i);
        }
    }
    w.0
}

fn read_nav_polygons(bytes: &[u8]) -> Vec<NavPolygon> {
    let mut r = Reader { bytes, at: 0 };
    (0..bytes.len() / element_bytes(NAV_POLYGON))
        .map(|_| NavPolygon {
            count: r.u32(),
            vertices: std::array::from_fn(|_| r.u32()),
            neighbours: std::array::from_fn(|_| r.u32()),
        })
        .collect()
}

/// A collider from its checked sections (`origin` holds one element).
pub(crate) fn read_collider(key: RegionKey, s: &[Section]) -> Result<Collider, DumpError> {
    let origin = read_origin(&s[0].bytes);
    let triangles = read_u32s(&s[2].bytes).chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    s[3].expect_count(1)?;
    let objects_from = read_u32s(&s[3].bytes)[0];
    Collider::from_parts(key, origin, read_points(&s[1].bytes), triangles, objects_from).map_err(err)
}

/// A navmesh from its checked sections (`origin` holds one element), every
/// index in range.
pub(crate) fn read_navmesh(key: RegionKey, s: &[Section]) -> Result<NavMesh, DumpError> {
    let origin = read_origin(&s[0].bytes);
    let vertices = read_points(&s[1].bytes);
    let polygons = read_nav_polygons(&s[2].bytes);
    for (p, polygon) in polygons.iter().enumerate() {
        let count = polygon.count as usize;
        if !(3..=MAX_CORNERS).contains(&count) {
            return Err(err(format!("polygons[{p}].count = {count}: must be in 3..={MAX_CORNERS}")));
        }
        for c in 0..MAX_CORNERS {
            let (v, n) = (polygon.vertices[c], polygon.neighbours[c]);
            if c < count && v as usize >= vertices.len() {
                return Err(err(format!(
                    "polygons[{p}].vertices[{c}] = {v}: must be in 0..{} (the vertex count)",
                    vertices.len()
                )));
            }
            if c >= count && (v != u32::MAX || n != NO_NEIGHBOUR) {
                return Err(err(format!(
                    "polygons[{p}].vertices[{c}] = {v}, neighbours[{c}] = {n}: both must be {NO_NEIGHBOUR} past the \
                     polygon's {count} corners"
                )));
            }
            if n != NO_NEIGHBOUR && n as usize >= polygons.len() {
                return Err(err(format!(
                    "polygons[{p}].neighbours[{c}] = {n}: must be in 0..{} (the polygon count) or {NO_NEIGHBOUR} \
                     (no neighbour)",
                    polygons.len()
                )));
            }
        }
    }
    Ok(NavMesh { key, origin, vertices, polygons })
}
