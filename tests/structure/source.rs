//! Reading the crates' sources as text: their files, their code lines
//! (comments left out: a doc link is not a dependency), the child modules
//! a file declares, and cycles in a graph of them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The `src` folder of a crate of the workspace (`core`, `plugins`, `app`).
pub fn src_of(krate: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src")
}

/// Every `.rs` file under `dir`, recursively, sorted.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines of `text` that are code, not comments.
pub fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| !l.trim_start().starts_with("//"))
}

/// The child modules a file declares: each `mod name;` line, with any
/// visibility (inline `mod tests { ... }` is not a file).
pub fn declared(text: &str) -> BTreeSet<String> {
    code_lines(text)
        .filter_map(|l| {
            let l = l.trim_start();
            let rest = ["pub mod ", "pub(crate) mod ", "pub(super) mod ", "mod "]
                .into_iter()
                .find_map(|p| l.strip_prefix(p))?;
            let name = rest.strip_suffix(';')?;
            Some(name.trim().to_string())
        })
        .collect()
}

/// A cycle through `at`, if the depth-first walk from it finds one. Nodes
/// the graph has no entry for are leaves.
pub fn find_cycle<T: Ord + Clone>(
    graph: &BTreeMap<T, BTreeSet<T>>,
    at: &T,
    path: &mut Vec<T>,
    done: &mut BTreeSet<T>,
) -> Option<Vec<T>> {
    if let Some(start) = path.iter().position(|m| m == at) {
        let mut cycle = path[start..].to_vec();
        cycle.push(at.clone());
        return Some(cycle);
    }
    if done.contains(at) {
        return None;
    }
    path.push(at.clone());
    for next in graph.get(at).into_iter().flatten() {
        if let Some(cycle) = find_cycle(graph, next, path, done) {
            return Some(cycle);
        }
    }
    path.pop();
    done.insert(at.clone());
    None
}

/// The first cycle of `graph`, if any.
pub fn first_cycle<T: Ord + Clone>(graph: &BTreeMap<T, BTreeSet<T>>) -> Option<Vec<T>> {
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| find_cycle(graph, node, &mut Vec::new(), &mut done))
}
