//! Recipe errors: each names the JSON path of the field, the value found and
//! what is allowed, e.g. `planets[2].radius_m = -5: must be in 500..=50000`.

use std::fmt;

/// One problem with a recipe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecipeError {
    /// JSON path of the field (`planets[2].terrain.hills.height_m`); empty for the whole file.
    pub path: String,
    /// The offending value as written, when there is one.
    pub value: Option<String>,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl RecipeError {
    /// An error about a value at `path`.
    pub fn value(path: impl Into<String>, value: impl fmt::Display, message: impl Into<String>) -> Self {
        Self { path: path.into(), value: Some(value.to_string()), message: message.into() }
    }

    /// An error about a field as a whole (missing, unknown, wrong shape).
    pub fn field(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { path: path.into(), value: None, message: message.into() }
    }

    /// The same error under a parent path: `radius_m` becomes `planets[2].radius_m`.
    #[must_use]
    pub fn under(mut self, parent: &str) -> Self {
        self.path = join_path(parent, &self.path);
        self
    }
}

/// `parent` + `child` with the right separator (`a` + `b` = `a.b`, `a` + `[1]` = `a[1]`).
pub(crate) fn join_path(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_owned()
    } else if child.is_empty() {
        parent.to_owned()
    } else if child.starts_with('[') {
        format!("{parent}{child}")
    } else {
        format!("{parent}.{child}")
    }
}

impl fmt::Display for RecipeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.value, self.path.is_empty()) {
            (Some(v), false) => write!(f, "{} = {}: {}", self.path, v, self.message),
            (Some(v), true) => write!(f, "{}: {}", v, self.message),
            (None, false) => write!(f, "{}: {}", self.path, self.message),
            (None, true) => f.write_str(&self.message),
        }
    }
}

/// Every problem found in a recipe, in the order found. Never empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecipeErrors(pub Vec<RecipeError>);

impl RecipeErrors {
    /// The errors, one per problem.
    #[must_use]
    pub fn errors(&self) -> &[RecipeError] {
        &self.0
    }
}

impl From<RecipeError> for RecipeErrors {
    fn from(e: RecipeError) -> Self {
        Self(vec![e])
    }
}

impl fmt::Display for RecipeErrors {
    /// One error per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RecipeErrors {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_name_path_value_and_range() {
        let e = RecipeError::value("radius_m", -5.0f32, "must be in 500..=50000").under("planets[2]");
        assert_eq!(e.to_string(), "planets[2].radius_m = -5: must be in 500..=50000");
        let e = RecipeError::field("[3]", "unknown").under("materials");
        assert_eq!(e.to_string(), "materials[3]: unknown");
        assert_eq!(RecipeError::field("", "empty input").to_string(), "empty input");
    }
}
