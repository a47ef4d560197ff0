//! The binary stage files: grids and meshes.
//!
//! ```text
//! b"PLANETSD"            8 bytes, the magic
//! header_len: u32        little-endian
//! header: JSON           header_len bytes of UTF-8: `Header`
//! payload                the sections, back to back
//! ```
//!
//! Each section is `count` elements of one fixed layout, fields in the order
//! the header's `layout` lists them (`name:type`, types `u8 u16 i16 u32 i32
//! f32 f64`), little-endian, no padding. The sections of each stage:
//!
//! - `columns` (`ColumnField`): `columns`, 36 x 36 `Column`s, x fastest.
//! - `voxels` (`VoxelGrid`): `voxels`, 36³ `Voxel`s, z fastest, then x, then y.
//! - `cube_mesh` (`CubeMesh`): for each part `terrain`, `blocks`, `water`:
//!   `PART.vertices` (`CubeVertex`), `PART.triangles` and `PART.overlap` (`u32` indices).
//! - `sphere_mesh` (`SphereMesh`): `origin` (one `f64` x, y, z), then for each
//!   part `PART.vertices` (`Vertex`, 24 bytes), `PART.indices` and
//!   `PART.overlap` (`u16` or `u32` indices, as the mesh holds them).
//! - `collider` and `navmesh`: see `physics.rs`.

use serde::{Deserialize, Serialize};

use super::{DUMP_FORMAT, DumpError, hash_hex};
use crate::RegionKey;
use crate::mesh::{CubeVertex, Indices, Vertex};
use crate::terrain::{Column, Voxel};

/// The first 8 bytes of every binary stage file.
pub const MAGIC: &[u8; 8] = b"PLANETSD";

/// The JSON header of a binary stage file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// `DUMP_FORMAT`.
    pub format: u32,
    /// Which stage's output the file holds (its name).
    pub stage: String,
    /// `GENERATOR_VERSION` of the generator that made it.
    pub generator_version: u32,
    /// The region, `F/L/X/Y/Z`.
    pub key: String,
    /// The payload's sections, in order.
    pub sections: Vec<SectionHeader>,
    /// Length of the payload, bytes.
    pub payload_bytes: u64,
    /// XXH3-64 of the payload, 16 hex digits.
    pub payload_hash: String,
}

/// One section of a payload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SectionHeader {
    /// Its name (`voxels`, `terrain.vertices`, ...).
    pub name: String,
    /// Number of elements.
    pub count: u64,
    /// Bytes per element.
    pub element_bytes: u32,
    /// The fields of an element, `name:type` separated by spaces.
    pub layout: String,
}

/// The type of one field of an element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `u8`.
    U8,
    /// `i8`.
    I8,
    /// `u16`.
    U16,
    /// `i16`.
    I16,
    /// `u32`.
    U32,
    /// `i32`.
    I32,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl Kind {
    /// Bytes it takes.
    #[must_use]
    pub fn size(self) -> usize {
        match self {
            Self::U8 | Self::I8 => 1,
            Self::U16 | Self::I16 => 2,
            Self::U32 | Self::I32 | Self::F32 => 4,
            Self::F64 => 8,
        }
    }

    /// Its name in layouts.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::U8 => "u8",
            Self::I8 => "i8",
            Self::U16 => "u16",
            Self::I16 => "i16",
            Self::U32 => "u32",
            Self::I32 => "i32",
            Self::F32 => "f32",
            Self::F64 => "f64",
        }
    }

    /// The value in `b` (exactly `size` bytes), for messages.
    #[must_use]
    pub fn show(self, b: &[u8]) -> String {
        let mut r = Reader { bytes: b, at: 0 };
        match self {
            Self::U8 => r.u8().to_string(),
            Self::I8 => i8::from_le_bytes([r.u8()]).to_string(),
            Self::U16 => r.u16().to_string(),
            Self::I16 => r.i16().to_string(),
            Self::U32 => r.u32().to_string(),
            Self::I32 => r.i32().to_string(),
            Self::F32 => format!("{:?}", r.f32()),
            Self::F64 => format!("{:?}", r.f64()),
        }
    }
}

/// One field of an element layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// Its name (`density`, `local.x`).
    pub name: &'static str,
    /// Its type.
    pub kind: Kind,
}

pub(super) const fn f(name: &'static str, kind: Kind) -> Field {
    Field { name, kind }
}

use Kind::{F32, F64, I8, I16, I32, U8, U16, U32};

/// A `Column`: 54 bytes.
pub const COLUMN: &[Field] = &[
    f("direction.x", F32),
    f("direction.y", F32),
    f("direction.z", F32),
    f("elevation_m", F32),
    f("height_m", F32),
    f("slope_deg", F32),
    f("mountain", F32),
    f("river", F32),
    f("structure", F32),
    f("water_m", F32),
    f("temperature_c", F32),
    f("moisture", F32),
    f("biome", U8),
    f("surface[0]", U8),
    f("surface[1]", U8),
    f("blend", U16),
    f("subsurface", U8),
    f("surface_depth_m", F32),
];

/// A `Voxel`: 6 bytes.
pub const VOXEL: &[Field] = &[f("density", I16), f("materials[0]", U8), f("materials[1]", U8), f("blend", U16)];

/// A sample's cover (`VoxelGrid::cover`): 1 byte.
pub const COVER: &[Field] = &[f("cover", I8)];

/// A `CubeVertex`: 66 bytes.
pub const CUBE_VERTEX: &[Field] = &[
    f("face", U8),
    f("cell[0]", I32),
    f("cell[1]", I32),
    f("cell[2]", I32),
    f("local.x", F32),
    f("local.y", F32),
    f("local.z", F32),
    f("base_m", F32),
    f("base_slope[0]", F32),
    f("base_slope[1]", F32),
    f("smooth_normal.x", F32),
    f("smooth_normal.y", F32),
    f("smooth_normal.z", F32),
    f("face_normal.x", F32),
    f("face_normal.y", F32),
    f("face_normal.z", F32),
    f("materials[0]", U8),
    f("materials[1]", U8),
    f("blend", U16),
    f("sky", U8),
];

/// A `Vertex` (the GPU format): 24 bytes.
pub const VERTEX: &[Field] = &[
    f("position[0]", F32),
    f("position[1]", F32),
    f("position[2]", F32),
    f("smooth_normal[0]", I16),
    f("smooth_normal[1]", I16),
    f("face_normal[0]", I16),
    f("face_normal[1]", I16),
    f("materials[0]", U8),
    f("materials[1]", U8),
    f("blend", U8),
    f("sky", U8),
];

/// A `u16` index.
pub const INDEX16: &[Field] = &[f("index", U16)];
/// A `u32` index.
pub const INDEX32: &[Field] = &[f("index", U32)];
/// A planet-local origin.
pub const ORIGIN: &[Field] = &[f("x", F64), f("y", F64), f("z", F64)];

/// Bytes per element of `fields`.
#[must_use]
pub fn element_bytes(fields: &[Field]) -> usize {
    fields.iter().map(|f| f.kind.size()).sum()
}

/// `fields` as a header's `layout`.
#[must_use]
pub fn layout(fields: &[Field]) -> String {
    fields.iter().map(|f| format!("{}:{}", f.name, f.kind.name())).collect::<Vec<_>>().join(" ")
}

/// One section of a binary stage file, in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Its name (`voxels`, `terrain.vertices`, ...).
    pub name: String,
    /// The layout of its elements.
    pub fields: &'static [Field],
    /// Its elements, back to back.
    pub bytes: Vec<u8>,
}

impl Section {
    /// A section of `bytes` laid out as `fields`.
    #[must_use]
    pub fn new(name: &str, fields: &'static [Field], bytes: Vec<u8>) -> Self {
        Self { name: name.to_owned(), fields, bytes }
    }

    /// How many elements it holds.
    #[must_use]
    pub fn count(&self) -> usize {
        self.bytes.len() / element_bytes(self.fields)
    }

    /// An error unless it holds exactly `want` elements.
    pub fn expect_count(&self, want: usize) -> Result<(), DumpError> {
        if self.count() == want {
            Ok(())
        } else {
            Err(err(format!("{}: {} elements, must be {want}", self.name, self.count())))
        }
    }
}

/// `what = m: must be in 0..materials (the plan's materials)`.
pub(crate) fn bad_material(what: &str, m: u8, materials: usize) -> String {
    format!("{what} = {m}: must be in 0..{materials} (the plan's materials)")
}

/// An error unless `indices` are whole triangles of a part's `vertices`.
pub(crate) fn check_indices(part: &str, name: &str, indices: &[u32], vertices: usize) -> Result<(), DumpError> {
    if !indices.len().is_multiple_of(3) {
        return Err(err(format!("{part}.{name}: {} indices, must be a multiple of 3", indices.len())));
    }
    match indices.iter().position(|&i| i as usize >= vertices) {
        Some(p) => {
            Err(err(format!("{part}.{name}[{p}] = {}: must be in 0..{vertices} (the part's vertex count)", indices[p])))
        }
        None => Ok(()),
    }
}

#[derive(Default)]
pub(super) struct Writer(pub Vec<u8>);

impl Writer {
    pub fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i16(&mut self, v: i16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn f32(&mut self, v: f32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
}

/// Reads little-endian numbers; callers check lengths first.
pub(super) struct Reader<'a> {
    pub bytes: &'a [u8],
    pub at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0; N];
        out.copy_from_slice(&self.bytes[self.at..self.at + N]);
        self.at += N;
        out
    }
    pub fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }
    fn i16(&mut self) -> i16 {
        i16::from_le_bytes(self.take())
    }
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn i32(&mut self) -> i32 {
        i32::from_le_bytes(self.take())
    }
    pub fn f32(&mut self) -> f32 {
        f32::from_le_bytes(self.take())
    }
    fn f64(&mut self) -> f64 {
        f64::from_le_bytes(self.take())
    }
    fn vec3(&mut self) -> glam::Vec3 {
        glam::Vec3::new(self.f32(), self.f32(), self.f32())
    }
}

pub(crate) fn column_bytes(columns: &[Column]) -> Vec<u8> {
    let mut w = Writer::default();
    for c in columns {
        for v in c.direction.to_array() {
            w.f32(v);
        }
        for v in [
            c.elevation_m,
            c.height_m,
            c.slope_deg,
            c.mountain,
            c.river,
            c.structure,
            c.water_m,
            c.temperature_c,
            c.moisture,
        ] {
            w.f32(v);
        }
        w.u8(c.biome);
        w.u8(c.surface[0]);
        w.u8(c.surface[1]);
        w.u16(c.blend);
        w.u8(c.subsurface);
        w.f32(c.surface_depth_m);
    }
    w.0
}

pub(crate) fn read_columns(bytes: &[u8]) -> Vec<Column> {
    let mut r = Reader { bytes, at: 0 };
    (0..bytes.len() / element_bytes(COLUMN))
        .map(|_| Column {
            direction: r.vec3(),
            elevation_m: r.f32(),
            height_m: r.f32(),
            slope_deg: r.f32(),
            mountain: r.f32(),
            river: r.f32(),
            structure: r.f32(),
            water_m: r.f32(),
            temperature_c: r.f32(),
            moisture: r.f32(),
            biome: r.u8(),
            surface: [r.u8(), r.u8()],
            blend: r.u16(),
            subsurface: r.u8(),
            surface_depth_m: r.f32(),
        })
        .collect()
}

pub(crate) fn read_voxels(bytes: &[u8]) -> Vec<Voxel> {
    let mut r = Reader { bytes, at: 0 };
    (0..bytes.len() / element_bytes(VOXEL))
        .map(|_| Voxel { density: r.i16(), materials: [r.u8(), r.u8()], blend: r.u16() })
        .collect()
}

pub(crate) fn cube_vertex_bytes(vertices: &[CubeVertex]) -> Vec<u8> {
    let mut w = Writer::default();
    for v in vertices {
        w.u8(v.face);
        for c in v.cell {
            w.i32(c);
        }
        for x in v.local.to_array() {
            w.f32(x);
        }
        w.f32(v.base_m);
        w.f32(v.base_slope[0]);
        w.f32(v.base_slope[1]);
        for x in v.smooth_normal.to_array().into_iter().chain(v.face_normal.to_array()) {
            w.f32(x);
        }
        w.u8(v.materials[0]);
        w.u8(v.materials[1]);
        w.u16(v.blend);
        w.u8(v.sky);
    }
    w.0
}

pub(crate) fn read_cube_vertices(bytes: &[u8]) -> Vec<CubeVertex> {
    let mut r = Reader { bytes, at: 0 };
    (0..bytes.len() / element_bytes(CUBE_VERTEX))
        .map(|_| CubeVertex {
            face: r.u8(),
            cell: [r.i32(), r.i32(), r.i32()],
            local: r.vec3(),
            base_m: r.f32(),
            base_slope: [r.f32(), r.f32()],
            smooth_normal: r.vec3(),
            face_normal: r.vec3(),
            materials: [r.u8(), r.u8()],
            blend: r.u16(),
            sky: r.u8(),
        })
        .collect()
}

pub(crate) fn vertex_bytes(vertices: &[Vertex]) -> Vec<u8> {
    let mut w = Writer::default();
    for v in vertices {
        for x in v.position {
            w.f32(x);
        }
        for x in v.smooth_normal.into_iter().chain(v.face_normal) {
            w.i16(x);
        }
        w.u8(v.materials[0]);
        w.u8(v.materials[1]);
        w.u8(v.blend);
        w.u8(v.sky);
    }
    w.0
}

pub(crate) fn read_vertices(bytes: &[u8]) -> Vec<Vertex> {
    let mut r = Reader { bytes, at: 0 };
    (0..bytes.len() / element_bytes(VERTEX))
        .map(|_| Vertex {
            position: [r.f32(), r.f32(), r.f32()],
            smooth_normal: [r.i16(), r.i16()],
            face_normal: [r.i16(), r.i16()],
            materials: [r.u8(), r.u8()],
            blend: r.u8(),
            sky: r.u8(),
        })
        .collect()
}

pub(crate) fn u32_bytes(values: &[u32]) -> Vec<u8> {
    let mut w = Writer::default();
    for &v in values {
        w.u32(v);
    }
    w.0
}

pub(crate) fn read_u32s(bytes: &[u8]) -> Vec<u32> {
    let mut r = Reader { bytes, at: 0 };
    (0..bytes.len() / 4).map(|_| r.u32()).collect()
}

pub(crate) fn origin_bytes(origin: glam::DVec3) -> Vec<u8> {
    let mut w = Writer::default();
    for v in origin.to_array() {
        w.f64(v);
    }
    w.0
}

pub(crate) fn read_origin(bytes: &[u8]) -> glam::DVec3 {
    let mut r = Reader { bytes, at: 0 };
    glam::DVec3::new(r.f64(), r.f64(), r.f64())
}

pub(crate) fn indices_section(name: String, indices: &Indices) -> Section {
    match indices {
        Indices::U16(v) => {
            let mut w = Writer::default();
            for &i in v {
                w.u16(i);
            }
            Section { name, fields: INDEX16, bytes: w.0 }
        }
        Indices::U32(v) => Section { name, fields: INDEX32, bytes: u32_bytes(v) },
    }
}

pub(crate) fn read_indices(section: &Section) -> Indices {
    if section.fields == INDEX16 {
        let mut r = Reader { bytes: &section.bytes, at: 0 };
        Indices::U16((0..section.bytes.len() / 2).map(|_| r.u16()).collect())
    } else {
        Indices::U32(read_u32s(&section.bytes))
    }
}

/// The parts of a mesh, in file order.
pub(crate) const PARTS: [&str; 3] = ["terrain", "blocks", "water"];

/// A binary stage file of stage `stage` (its name): magic, header, payload.
#[must_use]
pub fn encode(stage: &str, key: Option<RegionKey>, sections: &[Section], generator_version: u32) -> Vec<u8> {
    let mut payload = Vec::with_capacity(sections.iter().map(|s| s.bytes.len()).sum());
    for s in sections {
        payload.extend_from_slice(&s.bytes);
    }
    let header = Header {
        format: DUMP_FORMAT,
        stage: stage.to_owned(),
        generator_version,
        key: key.map(|k| k.to_string()).unwrap_or_default(),
        sections: sections
            .iter()
            .map(|s| SectionHeader {
                name: s.name.clone(),
                count: s.count() as u64,
                element_bytes: element_bytes(s.fields) as u32,
                layout: layout(s.fields),
            })
            .collect(),
        payload_bytes: payload.len() as u64,
        payload_hash: hash_hex(&payload),
    };
    let json = serde_json::to_vec_pretty(&header).expect("a header always serializes");
    let mut file = Vec::with_capacity(12 + json.len() + payload.len());
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(&(json.len() as u32).to_le_bytes());
    file.extend_from_slice(&json);
    file.extend_from_slice(&payload);
    file
}

pub(super) fn err(message: impl Into<String>) -> DumpError {
    DumpError::new(message)
}

/// The sections a stage's file must hold, in order, with the layouts each may have.
pub type Layout = [(String, &'static [&'static [Field]])];

/// A binary stage file's header and its payload, checking the magic and
/// the header's framing (not yet the payload).
pub fn header(bytes: &[u8]) -> Result<(Header, &[u8]), DumpError> {
    if bytes.len() < 12 {
        return Err(err(format!(
            "truncated: {} bytes, but a stage file starts with 12 (the magic {:?} and a header length)",
            bytes.len(),
            "PLANETSD"
        )));
    }
    if &bytes[..8] != MAGIC {
        return Err(err(format!(
            "not a binary stage file: it starts with {:?}, not the magic \"PLANETSD\"",
            String::from_utf8_lossy(&bytes[..8])
        )));
    }
    let header_len = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    let rest = &bytes[12..];
    if header_len > rest.len() {
        return Err(err(format!(
            "truncated: the header length says {header_len} bytes of JSON header, only {} bytes follow",
            rest.len()
        )));
    }
    let header: Header = super::json_from(&rest[..header_len]).map_err(|e| err(format!("header: {e}")))?;
    let payload = &rest[header_len..];
    Ok((header, payload))
}

/// Reads a binary file of stage `stage` (its name), checking every length,
/// the payload's hash and the sections against `expected`; the header, the
/// region key and the sections.
pub fn decode(stage: &str, expected: &Layout, bytes: &[u8]) -> Result<(Header, RegionKey, Vec<Section>), DumpError> {
    let (header, payload) = header(bytes)?;
    if header.format != DUMP_FORMAT {
        return Err(err(format!("header.format = {}: this build reads dump format {DUMP_FORMAT}", header.format)));
    }
    if header.stage.as_str() != stage {
        return Err(err(format!("header.stage = {}: expected {stage} (the file holds another stage)", header.stage)));
    }
    let key: RegionKey = header.key.parse().map_err(|e| err(format!("header.key = {:?}: {e}", header.key)))?;
    if payload.len() as u64 != header.payload_bytes {
        let what = if (payload.len() as u64) < header.payload_bytes { "truncated" } else { "too long" };
        return Err(err(format!(
            "{what}: header.payload_bytes = {}, but {} bytes follow the header",
            header.payload_bytes,
            payload.len()
        )));
    }
    let hash = hash_hex(payload);
    if hash != header.payload_hash {
        return Err(err(format!(
            "damaged: the payload hashes to {hash}, header.payload_hash = {} (a changed or flipped bit)",
            header.payload_hash
        )));
    }
    if header.sections.len() != expected.len() {
        return Err(err(format!(
            "header.sections: {} sections, {stage} has {}: {}",
            header.sections.len(),
            expected.len(),
            expected.iter().map(|e| e.0.as_str()).collect::<Vec<_>>().join(", ")
        )));
    }
    let mut sections = Vec::with_capacity(expected.len());
    let mut at = 0usize;
    for (i, (h, (name, layouts))) in header.sections.iter().zip(expected).enumerate() {
        if &h.name != name {
            return Err(err(format!("header.sections[{i}].name = {:?}: must be {name:?}", h.name)));
        }
        let Some(fields) = layouts.iter().copied().find(|l| layout(l) == h.layout) else {
            let allowed: Vec<String> = layouts.iter().map(|l| format!("{:?}", layout(l))).collect();
            return Err(err(format!("header.sections[{i}].layout = {:?}: must be {}", h.layout, allowed.join(" or "))));
        };
        let size = element_bytes(fields);
        if h.element_bytes as usize != size {
            return Err(err(format!("header.sections[{i}].element_bytes = {}: must be {size}", h.element_bytes)));
        }
        let len = usize::try_from(h.count).ok().and_then(|c| c.checked_mul(size));
        let Some(end) = len.and_then(|l| at.checked_add(l)).filter(|&e| e <= payload.len()) else {
            return Err(err(format!(
                "header.sections[{i}].count = {}: {name} would run past the payload's {} bytes",
                h.count,
                payload.len()
            )));
        };
        sections.push(Section { name: name.clone(), fields, bytes: payload[at..end].to_vec() });
        at = end;
    }
    if at != payload.len() {
        return Err(err(format!("header.payload_bytes = {}: the sections take {at} bytes", header.payload_bytes)));
    }
    Ok((header, key, sections))
}
