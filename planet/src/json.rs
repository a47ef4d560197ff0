//! Strict JSON reading, for every JSON file the program reads (recipes, plans,
//! manifests, camera paths, scripts, smoke scenarios). serde_json keeps the
//! last of a key given twice in one object, silently; here that is an error
//! naming the key's JSON path. Typed reads also name the JSON path of the
//! first field that does not fit (`keyframes[2].lon: invalid type ...`), as
//! recipe errors do.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};

/// Why a JSON text was refused: where, and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct JsonError {
    /// The JSON path of the value at fault (`planets[1].seed`), empty for
    /// the whole text or a syntax error.
    pub path: String,
    /// What is wrong, with serde's line and column where it gives them.
    pub message: String,
}

impl JsonError {
    fn describe(&self) -> String {
        if self.path.is_empty() { self.message.clone() } else { format!("{}: {}", self.path, self.message) }
    }
}

/// The first key given twice in one object of `text`, as a `JsonError`
/// naming its path and line; None when every object's keys are distinct or
/// the text is not JSON (the parser that follows says why).
#[must_use]
pub fn duplicate_key(text: &str) -> Option<JsonError> {
    let found = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    match (Unique { path: String::new(), found: &found }).deserialize(&mut de) {
        Ok(()) => None,
        Err(e) => found.into_inner().map(|path| JsonError {
            path,
            message: format!("this key is given twice in one object (line {} column {})", e.line(), e.column()),
        }),
    }
}

/// `text` as a `serde_json::Value`, refusing duplicate keys.
pub fn parse_value(text: &str) -> Result<serde_json::Value, JsonError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| JsonError { path: String::new(), message: syntax(&e) })?;
    duplicate_key(text).map_or(Ok(value), Err)
}

/// `text` as a `T`, refusing duplicate keys and naming the JSON path of the
/// first value that does not fit `T`.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, JsonError> {
    // Duplicates first: a typed read would name some of them in serde's words.
    if let Some(e) = duplicate_key(text) {
        return Err(e);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize::<_, T>(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if inner.is_syntax() || inner.is_eof() || path == "." {
            JsonError { path: String::new(), message: syntax(&inner) }
        } else {
            JsonError { path, message: inner.to_string() }
        }
    })?;
    de.end().map_err(|e| JsonError { path: String::new(), message: syntax(&e) })?;
    Ok(value)
}

/// serde's message, saying which kind of problem it is.
fn syntax(e: &serde_json::Error) -> String {
    if e.is_eof() {
        format!("truncated: the JSON ends early ({e})")
    } else if e.is_syntax() {
        format!("not valid JSON: {e}")
    } else {
        e.to_string()
    }
}

/// Walks any JSON value, remembering each object's keys; stops at the first
/// key seen twice, leaving its path in `found`.
struct Unique<'a> {
    path: String,
    found: &'a RefCell<Option<String>>,
}

impl Unique<'_> {
    fn child(&self, path: String) -> Self {
        Unique { path, found: self.found }
    }
}

impl<'de> DeserializeSeed<'de> for Unique<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        while seq.next_element_seed(self.child(format!("{}[{i}]", self.path)))?.is_some() {
            i += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = if self.path.is_empty() { key.clone() } else { format!("{}.{key}", self.path) };
            if !seen.insert(key) {
                *self.found.borrow_mut() = Some(path);
                return Err(de::Error::custom("duplicate key"));
            }
            map.next_value_seed(self.child(path))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_found_at_any_depth_with_their_path() {
        assert_eq!(duplicate_key(r#"{"a": 1, "b": {"c": [1, {"d": 2}]}}"#), None);
        let at = |text: &str| duplicate_key(text).map(|e| e.path);
        assert_eq!(at(r#"{"seed": 1, "seed": 2}"#).as_deref(), Some("seed"));
        assert_eq!(at(r#"{"planets": [{"index": 1}, {"index": 2, "index": 3}]}"#).as_deref(), Some("planets[1].index"));
        assert_eq!(at(r#"{"a": {"b": {"c": 1, "c": 1}}}"#).as_deref(), Some("a.b.c"));
        // The same key in two different objects is fine.
        assert_eq!(at(r#"[{"k": 1}, {"k": 2}]"#), None);
        // Not JSON: left to the parser that follows.
        assert_eq!(at("{\"a\": "), None);
        let e = duplicate_key("{\n  \"x\": 1,\n  \"x\": 2\n}").unwrap();
        assert!(e.to_string().starts_with("x: this key is given twice in one object (line 3"), "{e}");
    }

    #[test]
    fn typed_reads_name_the_path_and_refuse_duplicates() {
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        struct Point {
            #[allow(dead_code)]
            lat: f64,
        }
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        struct Path {
            #[allow(dead_code)]
            points: Vec<Point>,
        }
        assert!(parse::<Path>(r#"{"points": [{"lat": 1}]}"#).is_ok());
        let e = parse::<Path>(r#"{"points": [{"lat": 1}, {"lat": "north"}]}"#).unwrap_err();
        assert_eq!(e.path, "points[1].lat");
        let e = parse::<serde_json::Value>(r#"{"points": [{"lat": 1, "lat": 2}]}"#).unwrap_err();
        assert_eq!(e.path, "points[0].lat");
        let e = parse::<Path>(r#"{"points": ["#).unwrap_err();
        assert!(e.message.starts_with("truncated"), "{e}");
        assert!(parse_value("[1, 2] x").unwrap_err().message.starts_with("not valid JSON"));
    }
}
