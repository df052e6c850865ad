/// Measures how long splitting a long path takes on this machine today.
fn bench_split() {
    let p = "a/".repeat(100);
    let _ = crate::split(&p);
}
