//! The first difference between two outputs of a stage, named down to the
//! element and field: `recipe.caves.worm_threshold` in a plan,
//! `voxels[12, 30, 7].density` in a grid, `terrain.vertices[88].local.z` in a mesh,
//! `polygons[40].neighbours[2]` in a navmesh.

use serde_json::Value;

use super::binary::{Section, element_bytes, layout};
use crate::RegionKey;
use crate::geometry::WINDOW;

/// Where two plans first differ, as a JSON path (`recipe.caves.worm_threshold`).
pub(crate) fn json_difference(a: &impl serde::Serialize, b: &impl serde::Serialize) -> Option<String> {
    let a = serde_json::to_value(a).expect("plans always serialize");
    let b = serde_json::to_value(b).expect("plans always serialize");
    value_difference("", &a, &b)
}

fn join(path: &str, child: &str) -> String {
    if path.is_empty() { child.to_owned() } else { format!("{path}.{child}") }
}

fn value_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            // Fields in the order the dumped file has them, then any only the replay has.
            for (k, va) in x {
                match y.get(k) {
                    Some(vb) => {
                        if let Some(d) = value_difference(&join(path, k), va, vb) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{}: dumped {va}, replayed has no such field", join(path, k))),
                }
            }
            y.iter()
                .find(|(k, _)| !x.contains_key(*k))
                .map(|(k, vb)| format!("{}: not in the dump, replayed {vb}", join(path, k)))
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                if let Some(d) = value_difference(&format!("{path}[{i}]"), va, vb) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| format!("{path}: dumped {} elements, replayed {}", x.len(), y.len()))
        }
        _ if a == b => None,
        _ => Some(format!(
            "{}: dumped {}, replayed {}",
            if path.is_empty() { "(whole file)" } else { path },
            show(a),
            show(b)
        )),
    }
}

/// A JSON value for messages; an f32 widened to f64 is shown as the f32 it was (`0.2`, not `0.20000000298023224`).
fn show(v: &Value) -> String {
    if let Value::Number(n) = v
        && !n.is_i64()
        && !n.is_u64()
        && let Some(x) = n.as_f64()
    {
        let narrow = x as f32;
        if f64::from(narrow) == x {
            return format!("{narrow:?}");
        }
    }
    v.to_string()
}

/// An element's name in messages: grids by window sample, the rest by index.
fn element_name(section: &str, i: usize) -> String {
    match section {
        "columns" => format!("columns[{}, {}]", i % WINDOW, i / WINDOW),
        "voxels" => {
            // z fastest, then x, then y.
            let (c, rest) = (i % WINDOW, i / WINDOW);
            format!("voxels[{}, {}, {c}]", rest % WINDOW, rest / WINDOW)
        }
        _ => format!("{section}[{i}]"),
    }
}

/// Where two binary outputs first differ: their keys, then the first
/// differing element of their sections, named down to the field.
pub(crate) fn sections_difference(
    key_a: Option<RegionKey>,
    a: &[Section],
    key_b: Option<RegionKey>,
    b: &[Section],
) -> Option<String> {
    if key_a != key_b {
        let show = |k: Option<RegionKey>| k.map(|k| k.to_string()).unwrap_or_default();
        return Some(format!("key: dumped {}, replayed {}", show(key_a), show(key_b)));
    }
    a.iter().zip(b).find_map(|(x, y)| section_difference(x, y))
}

fn section_difference(a: &Section, b: &Section) -> Option<String> {
    if a.fields != b.fields {
        return Some(format!("{}: dumped as {:?}, replayed as {:?}", a.name, layout(a.fields), layout(b.fields)));
    }
    let size = element_bytes(a.fields);
    let counts =
        (a.count() != b.count()).then(|| format!("{}: dumped {} elements, replayed {}", a.name, a.count(), b.count()));
    let common = a.bytes.len().min(b.bytes.len());
    let Some(byte) = (0..common).find(|&i| a.bytes[i] != b.bytes[i]) else {
        return counts;
    };
    let element = byte / size;
    let mut offset = element * size;
    let mut field_at = None;
    for f in a.fields {
        let end = offset + f.kind.size();
        if byte < end {
            field_at = Some((f, offset, end));
            break;
        }
        offset = end;
    }
    let (f, start, end) = field_at.expect("a byte inside an element lies in one of its fields");
    let name = element_name(&a.name, element);
    let shown = format!(
        "{name}.{}: dumped {}, replayed {}",
        f.name,
        f.kind.show(&a.bytes[start..end]),
        f.kind.show(&b.bytes[start..end])
    );
    let total = (0..a.count().min(b.count()))
        .filter(|&e| a.bytes[e * size..(e + 1) * size] != b.bytes[e * size..(e + 1) * size])
        .count();
    Some(match counts {
        Some(c) => format!("{shown} ({total} elements differ; {c})"),
        None => format!("{shown} ({total} of {} elements differ)", a.count()),
    })
}
