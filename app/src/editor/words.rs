//! Counts in words, for every side that writes them: the panels' labels and
//! the worker's notices. A leaf, so the worker can use it without importing
//! the panels (which import the worker's protocol).

/// `n` things in words, the noun agreeing with the number: `1 match`,
/// `3 matches`, `0 matches`. Every count the editor prints goes through it,
/// so no tab says "1 matches".
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_count_of_one_takes_the_singular_and_every_other_the_plural() {
        assert_eq!(super::count(1, "match", "matches"), "1 match");
        assert_eq!(super::count(0, "match", "matches"), "0 matches");
        assert_eq!(
            super::count(2, "earlier edge", "earlier edges"),
            "2 earlier edges"
        );
    }
}
