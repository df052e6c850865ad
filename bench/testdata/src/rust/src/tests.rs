/// Checks that splitting a path works for the common case of two parts.
fn split_two() {
    assert_eq!(crate::split("a/b"), ("a", "b"));
    assert_eq!(crate::split("b"), ("", "b"));
}
