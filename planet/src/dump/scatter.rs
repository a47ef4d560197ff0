//! The binary layout of the scatter stage, beside `binary.rs`'s framing:
//! `origin`, then `objects` (`ScatterObject`: its id as two `u32` halves,
//! rule, kind, variant and child flag as bytes, position, yaw and size as
//! `f32`, colour as four bytes). Reading checks every kind, variant, flag
//! and rule, and that every number is finite.

use glam::Vec3;

use super::DumpError;
use super::binary::{Field, Kind, ORIGIN, Reader, Section, Writer, err, f, origin_bytes, read_origin};
use crate::RegionKey;
use crate::scatter::{KINDS, Scatter, ScatterObject, VARIANTS, kind_index};

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

/// A scatter file's sections, in order, with their layouts.
pub(crate) const SCATTER_SECTIONS: [(&str, &[&[Field]]); 2] = [("origin", &[ORIGIN]), ("objects", &[OBJECT])];

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
    vec![Section::new("origin", ORIGIN, origin_bytes(s.origin)), Section::new("objects", OBJECT, w.0)]
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
    Ok(Scatter { key, origin, objects })
}
