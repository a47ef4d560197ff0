//! The binary layout of the scatter stage, beside `binary.rs`'s framing:
//! `origin`, then `objects` (`ScatterObject`: its id as two `u32` halves,
//! rule, kind, variant and child flag as bytes, position, yaw and size as
//! `f32`, colour as four bytes), then `buildings` (`PlacedBuilding`: town
//! and index as `u32`, type, landmark and owned flags and a zero byte, its
//! 21 numbers as `f32` in `scatter::building_floats` order, colour as four
//! bytes). Reading checks every kind, variant, flag and rule, that every
//! number is finite, and that a building's axes are unit and its sizes positive.

use glam::Vec3;

use super::DumpError;
use super::binary::{Field, Kind, ORIGIN, Reader, Section, Writer, err, f, origin_bytes, read_origin};
use crate::RegionKey;
use crate::scatter::{KINDS, Scatter, ScatterObject, VARIANTS, building_floats, kind_index};
use crate::settlements::{BuildingCurve, BuildingKind, PlacedBuilding};

use Kind::{F32, U8, U32};

/// A `ScatterObject`: 36 bytes.
pub const OBJECT: &[Field] = &[
    f("id.low", U32),
    f("id.high", U32),
    f("rule", U8),
    f("kind", U8),
    f("variant", U8),
    f("child", U8),
    f("position.x", F32),
    f("position.y", F32),
    f("position.z", F32),
    f("yaw", F32),
    f("size_m", F32),
    f("color.r", U8),
    f("color.g", U8),
    f("color.b", U8),
    f("color.a", U8),
];

/// The numbers of a `PlacedBuilding`, in `scatter::building_floats` order.
const BUILDING_FLOATS: [&str; 21] = [
    "base.x",
    "base.y",
    "base.z",
    "up.x",
    "up.y",
    "up.z",
    "across.x",
    "across.y",
    "across.z",
    "width_m",
    "depth_m",
    "height_m",
    "floor_height_m",
    "curve.direction.x",
    "curve.direction.y",
    "curve.strength_m",
    "curve.exponent",
    "curve.wave_amplitude_m",
    "curve.wave_frequency",
    "curve.wave_phase",
    "curve.profile_blend",
];

/// A `PlacedBuilding`: 104 bytes.
pub const BUILDING: &[Field] = &[
    f("town", U32),
    f("index", U32),
    f("kind", U8),
    f("landmark", U8),
    f("owned", U8),
    f("zero", U8),
    f(BUILDING_FLOATS[0], F32),
    f(BUILDING_FLOATS[1], F32),
    f(BUILDING_FLOATS[2], F32),
    f(BUILDING_FLOATS[3], F32),
    f(BUILDING_FLOATS[4], F32),
    f(BUILDING_FLOATS[5], F32),
    f(BUILDING_FLOATS[6], F32),
    f(BUILDING_FLOATS[7], F32),
    f(BUILDING_FLOATS[8], F32),
    f(BUILDING_FLOATS[9], F32),
    f(BUILDING_FLOATS[10], F32),
    f(BUILDING_FLOATS[11], F32),
    f(BUILDING_FLOATS[12], F32),
    f(BUILDING_FLOATS[13], F32),
    f(BUILDING_FLOATS[14], F32),
    f(BUILDING_FLOATS[15], F32),
    f(BUILDING_FLOATS[16], F32),
    f(BUILDING_FLOATS[17], F32),
    f(BUILDING_FLOATS[18], F32),
    f(BUILDING_FLOATS[19], F32),
    f(BUILDING_FLOATS[20], F32),
    f("color.r", U8),
    f("color.g", U8),
    f("color.b", U8),
    f("color.a", U8),
];

/// A scatter file's sections, in order, with their layouts.
pub(crate) const SCATTER_SECTIONS: [(&str, &[&[Field]]); 3] =
    [("origin", &[ORIGIN]), ("objects", &[OBJECT]), ("buildings", &[BUILDING])];

/// A scatter's sections.
pub(crate) fn scatter_sections(s: &Scatter) -> Vec<Section> {
    let mut w = Writer::default();
    for o in &s.objects {
        w.u32(o.id as u32);
        w.u32((o.id >> 32) as u32);
        for b in [o.rule, kind_index(o.kind) as u8, o.variant, u8::from(o.child)] {
            w.u8(b);
        }
        for x in o.position.to_array().into_iter().chain([o.yaw, o.size_m]) {
            w.f32(x);
        }
        for b in o.color {
            w.u8(b);
        }
    }
    let mut b = Writer::default();
    for p in &s.buildings {
        b.u32(p.town);
        b.u32(p.index);
        for x in [p.kind.index() as u8, u8::from(p.landmark), u8::from(p.owned), 0] {
            b.u8(x);
        }
        for x in building_floats(p) {
            b.f32(x);
        }
        for x in p.color {
            b.u8(x);
        }
    }
    vec![
        Section::new("origin", ORIGIN, origin_bytes(s.origin)),
        Section::new("objects", OBJECT, w.0),
        Section::new("buildings", BUILDING, b.0),
    ]
}

/// A scatter from its checked sections (`origin` holds one element);
/// `rules` is the plan's rule count, when known.
pub(crate) fn read_scatter(key: RegionKey, s: &[Section], rules: Option<usize>) -> Result<Scatter, DumpError> {
    let origin = read_origin(&s[0].bytes);
    let mut r = Reader { bytes: &s[1].bytes, at: 0 };
    let mut objects = Vec::with_capacity(s[1].count());
    for i in 0..s[1].count() {
        let id = u64::from(r.u32()) | (u64::from(r.u32()) << 32);
        let (rule, kind, variant, child) = (r.u8(), r.u8(), r.u8(), r.u8());
        let field =
            |name: &str, value: u8, allowed: &str| err(format!("objects[{i}].{name} = {value}: must be {allowed}"));
        let kind = *KINDS.get(kind as usize).ok_or_else(|| field("kind", kind, &format!("in 0..{}", KINDS.len())))?;
        if variant >= VARIANTS {
            return Err(field("variant", variant, &format!("in 0..{VARIANTS}")));
        }
        if child > 1 {
            return Err(field("child", child, "0 or 1"));
        }
        if let Some(n) = rules
            && rule as usize >= n
        {
            return Err(field("rule", rule, &format!("in 0..{n} (the plan's scatter rules)")));
        }
        let (x, y, z, yaw, size_m) = (r.f32(), r.f32(), r.f32(), r.f32(), r.f32());
        if let Some((name, v)) =
            [("position.x", x), ("position.y", y), ("position.z", z), ("yaw", yaw), ("size_m", size_m)]
                .into_iter()
                .find(|(_, v)| !v.is_finite())
        {
            return Err(err(format!("objects[{i}].{name} = {v}: must be finite")));
        }
        let color = [r.u8(), r.u8(), r.u8(), r.u8()];
        objects.push(ScatterObject {
            id,
            rule,
            kind,
            variant,
            child: child == 1,
            position: Vec3::new(x, y, z),
            yaw,
            size_m,
            color,
        });
    }
    let buildings = read_buildings(&s[2])?;
    Ok(Scatter { key, origin, objects, buildings })
}

/// The `buildings` section, checked.
fn read_buildings(s: &Section) -> Result<Vec<PlacedBuilding>, DumpError> {
    let mut r = Reader { bytes: &s.bytes, at: 0 };
    let mut out = Vec::with_capacity(s.count());
    for i in 0..s.count() {
        let (town, index) = (r.u32(), r.u32());
        let (kind, landmark, owned, zero) = (r.u8(), r.u8(), r.u8(), r.u8());
        let field =
            |name: &str, value: u8, allowed: &str| err(format!("buildings[{i}].{name} = {value}: must be {allowed}"));
        let kind = *BuildingKind::ALL.get(kind as usize).ok_or_else(|| field("kind", kind, "in 0..3"))?;
        for (name, v) in [("landmark", landmark), ("owned", owned)] {
            if v > 1 {
                return Err(field(name, v, "0 or 1"));
            }
        }
        if zero != 0 {
            return Err(field("zero", zero, "0"));
        }
        let x: [f32; 21] = std::array::from_fn(|_| r.f32());
        if let Some(k) = x.iter().position(|v| !v.is_finite()) {
            return Err(err(format!("buildings[{i}].{} = {}: must be finite", BUILDING_FLOATS[k], x[k])));
        }
        let v = |k: usize| Vec3::new(x[k], x[k + 1], x[k + 2]);
        let (up, across) = (v(3), v(6));
        for (name, axis) in [("up", up), ("across", across)] {
            if (axis.length() - 1.0).abs() > 1e-3 {
                return Err(err(format!("buildings[{i}].{name}: must be a unit vector (length {})", axis.length())));
            }
        }
        if let Some(k) = (9..13).find(|&k| x[k] <= 0.0) {
            return Err(err(format!("buildings[{i}].{} = {}: must be positive", BUILDING_FLOATS[k], x[k])));
        }
        let color = [r.u8(), r.u8(), r.u8(), r.u8()];
        out.push(PlacedBuilding {
            town,
            index,
            kind,
            landmark: landmark == 1,
            owned: owned == 1,
            base: v(0),
            up,
            across,
            width_m: x[9],
            depth_m: x[10],
            height_m: x[11],
            floor_height_m: x[12],
            curve: BuildingCurve {
                direction: [x[13], x[14]],
                strength_m: x[15],
                exponent: x[16],
                wave_amplitude_m: x[17],
                wave_frequency: x[18],
                wave_phase: x[19],
                profile_blend: x[20],
            },
            color,
        });
    }
    Ok(out)
}
