//! Comparing a rewritten text file with its original line by line. Core's
//! scene tests and the app's save tests both use it (the app's by path).

/// The lines of `new` that differ from `old`'s, 1-based, with their new
/// text. The two must have the same number of lines.
pub fn changed_lines(old: &str, new: &str) -> Vec<(usize, String)> {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    assert_eq!(a.len(), b.len(), "line count changed:\n{new}");
    a.iter()
        .zip(&b)
        .enumerate()
        .filter(|(_, (x, y))| x != y)
        .map(|(i, (_, y))| (i + 1, y.to_string()))
        .collect()
}
