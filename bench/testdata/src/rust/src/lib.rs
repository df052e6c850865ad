//! A crate-level doc comment: no pair.

use std::fmt;

/// Splits a path into its directory and its base name, at the last `/`.
///
/// # Examples
///
/// ```
/// assert_eq!(split("a/b"), ("a", "b"));
/// ```
pub fn split<'a>(path: &'a str) -> (&'a str, &'a str) {
    // A brace in a comment: {
    let brace = '{';
    let raw = r#"a "quoted" } brace"#;
    let _ = (brace, raw, b'}', "}\"{");
    /* a nested /* block } */ comment { */
    match path.rfind('/') {
        Some(i) => (&path[..i], &path[i + 1..]),
        None => ("", path),
    }
}

pub struct Ring<T> {
    items: Vec<T>,
    head: usize,
}

impl<T: Clone> Ring<T> {
    /// Returns the [`Ring`]'s newest value, or [None] when the ring holds
    /// no [values](https://example.com/values) yet.
    #[inline]
    #[must_use = "the value is
        the point"]
    pub(crate) fn newest(&self) -> Option<&T> {
        if self.items.is_empty() {
            return None;
        }
        self.items.get((self.head + self.items.len() - 1) % self.items.len())
    }

    //// Four slashes: an ordinary comment, not a doc.
    fn hidden(&self) -> usize {
        let n = self.items.len();
        n + self.head
    }
}

/// Formats values with a label.
pub trait Labelled {
    /// Writes the label of the value into the formatter and the value after it.
    fn label(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;

    /// Returns the label the value carries, as an owned string for callers.
    fn owned_label(&self) -> String
    where
        Self: Sized,
    {
        let mut s = String::new();
        s.push_str("label");
        s
    }
}

/// Too short.
fn tiny() {}
