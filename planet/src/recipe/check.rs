//! The validation walker: recipe types describe their limits through a
//! `Checker`, which keeps the JSON path and collects every error rather than
//! stopping at the first.

use std::collections::BTreeMap;
use std::fmt::Display;
use std::ops::RangeInclusive;

use super::error::{RecipeError, join_path};

/// Collects validation errors under a JSON path.
#[derive(Debug, Default)]
pub struct Checker {
    path: String,
    errors: Vec<RecipeError>,
    /// Every number's allowed range by path (`must be in 1..=16`), when
    /// recording: what a field of the wrong type or size is told.
    limits: Option<BTreeMap<String, String>>,
}

/// A type whose values can be checked against their allowed ranges.
pub trait Validate {
    /// Reports every out-of-range or inconsistent field to `c`.
    fn validate(&self, c: &mut Checker);
}

impl Checker {
    /// A checker rooted at `path` (empty for the top of a file).
    #[must_use]
    pub fn new(path: &str) -> Self {
        Self { path: path.to_owned(), ..Self::default() }
    }

    /// A checker that also records every number's allowed range by path.
    #[must_use]
    pub fn recording() -> Self {
        Self { limits: Some(BTreeMap::new()), ..Self::default() }
    }

    /// The errors found so far.
    #[must_use]
    pub fn into_errors(self) -> Vec<RecipeError> {
        self.errors
    }

    /// The ranges recorded (empty unless made by [`Checker::recording`]).
    #[must_use]
    pub fn into_limits(self) -> BTreeMap<String, String> {
        self.limits.unwrap_or_default()
    }

    fn limit(&mut self, name: &str, range: impl FnOnce() -> String) {
        if let Some(limits) = &mut self.limits {
            limits.insert(join_path(&self.path, name), range());
        }
    }

    fn at(&self, name: &str) -> String {
        join_path(&self.path, name)
    }

    /// Runs `f` with the path extended by `name`.
    pub fn scope(&mut self, name: &str, f: impl FnOnce(&mut Self)) {
        let inner = join_path(&self.path, name);
        let saved = std::mem::replace(&mut self.path, inner);
        f(self);
        self.path = saved;
    }

    /// Checks the fields of a nested value under `name`.
    pub fn nested(&mut self, name: &str, value: &impl Validate) {
        self.scope(name, |c| value.validate(c));
    }

    /// Checks every element of a list under `name[i]`, and its length.
    pub fn list<T: Validate>(&mut self, name: &str, items: &[T], len: RangeInclusive<usize>) {
        self.len(name, items.len(), len);
        for (i, item) in items.iter().enumerate() {
            self.nested(&format!("{name}[{i}]"), item);
        }
    }

    /// Reports an error at `name` with its value.
    pub fn fail(&mut self, name: &str, value: impl Display, message: impl Into<String>) {
        self.errors.push(RecipeError::value(self.at(name), value, message));
    }

    /// A finite float in `range`.
    pub fn f32_in(&mut self, name: &str, value: f32, range: RangeInclusive<f32>) {
        self.limit(name, || format!("must be in {}..={}", range.start(), range.end()));
        if !value.is_finite() || !range.contains(&value) {
            self.fail(name, value, format!("must be in {}..={}", range.start(), range.end()));
        }
    }

    /// An integer in `range`.
    pub fn u32_in(&mut self, name: &str, value: u32, range: RangeInclusive<u32>) {
        self.limit(name, || format!("must be a whole number in {}..={}", range.start(), range.end()));
        if !range.contains(&value) {
            self.fail(name, value, format!("must be in {}..={}", range.start(), range.end()));
        }
    }

    /// A colour: three finite channels in 0..=1.
    pub fn color(&mut self, name: &str, rgb: [f32; 3]) {
        for (i, c) in rgb.iter().enumerate() {
            self.f32_in(&format!("{name}[{i}]"), *c, 0.0..=1.0);
        }
    }

    /// `[min, max]` with both ends in `range` and min <= max.
    pub fn span(&mut self, name: &str, span: [f32; 2], range: RangeInclusive<f32>) {
        self.f32_in(&format!("{name}[0]"), span[0], range.clone());
        self.f32_in(&format!("{name}[1]"), span[1], range);
        if span[0] > span[1] {
            self.fail(name, format!("[{}, {}]", span[0], span[1]), "the minimum must not exceed the maximum");
        }
    }

    /// An index into a list of `len` items called `what`.
    pub fn index(&mut self, name: &str, value: u32, len: usize, what: &str) {
        self.limit(name, || format!("must be an index of the {what} (0..{len})"));
        if value as usize >= len {
            let msg = if len == 0 {
                format!("there are no {what} to refer to")
            } else {
                format!("must be in 0..={} (an index into {what})", len - 1)
            };
            self.fail(name, value, msg);
        }
    }

    /// A list length in `range`.
    pub fn len(&mut self, name: &str, len: usize, range: RangeInclusive<usize>) {
        if !range.contains(&len) {
            self.errors.push(RecipeError::value(
                self.at(name),
                format!("{len} entries"),
                format!("must have {}..={} entries", range.start(), range.end()),
            ));
        }
    }

    /// A display name: 1..=32 printable characters.
    pub fn name(&mut self, name: &str, value: &str) {
        let n = value.chars().count();
        if n == 0 || n > 32 || value.chars().any(char::is_control) {
            self.fail(name, format!("{value:?}"), "must be 1..=32 printable characters");
        }
    }
}
