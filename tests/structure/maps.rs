//! The module maps in the docs match the sources: every crate root, and
//! every module file that has a map (a `| module | ... |` table in its `//!`
//! docs), names exactly the child modules the file declares, so a new file
//! cannot go unmentioned and a removed one cannot linger in the map.
//!
//! A row's first cell names one or more modules in backticks (`` [`panels`] ``,
//! `` `files`, `scene_file` ``); rows without a name (core's layer headings)
//! are skipped. A child is a `mod name;` line at the start of a line, with
//! any visibility; inline modules (`mod tests { ... }`) are not files.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::source::{declared, rust_files, src_of};

/// The names the file's module map gives, if it has one.
fn mapped(text: &str) -> Option<BTreeSet<String>> {
    let mut lines = text
        .lines()
        .skip_while(|l| !(l.starts_with("//! | module |") || l.starts_with("//! | module|")));
    lines.next()?;
    lines.next(); // the |---| row
    let mut names = BTreeSet::new();
    for row in lines.map_while(|l| l.strip_prefix("//! |")) {
        let first = row.split('|').next().unwrap_or("");
        // The cell without its link targets (`[`x`](mod@x)` names x once).
        let mut depth = 0usize;
        let cell: String = first
            .chars()
            .filter(|&c| {
                match c {
                    '(' => depth += 1,
                    ')' => depth = depth.saturating_sub(1),
                    _ => return depth == 0,
                }
                false
            })
            .collect();
        let is_name = |w: &&str| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        };
        names.extend(
            cell.split('`')
                .skip(1)
                .step_by(2)
                .filter(is_name)
                .map(str::to_string),
        );
    }
    Some(names)
}

/// Each file of `krate` with a module map (or that must have one: the
/// crate root), with what it maps and what it declares.
fn maps_of(krate: &str) -> Vec<(PathBuf, Option<BTreeSet<String>>, BTreeSet<String>)> {
    let src = src_of(krate);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .into_iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(&f).expect("a readable source file");
            let map = mapped(&text);
            let root = f == src.join("lib.rs");
            (root || map.is_some()).then(|| (f.clone(), map, declared(&text)))
        })
        .collect()
}

/// Every map of `krate` that does not match its file, all at once.
fn check(krate: &str) {
    let src = src_of(krate);
    let mut wrong = Vec::new();
    for (file, map, declared) in maps_of(krate) {
        let name = file.strip_prefix(&src).unwrap_or(Path::new("?")).display();
        match map {
            None => wrong.push(format!("{krate}/src/{name} has no module map")),
            Some(map) if map != declared => {
                let missing: Vec<_> = declared.difference(&map).collect();
                let extra: Vec<_> = map.difference(&declared).collect();
                wrong.push(format!(
                    "{krate}/src/{name}: the map lacks {missing:?} and names {extra:?}, which are not modules there"
                ));
            }
            Some(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_apps_module_maps_name_its_modules() {
    check("app");
}

#[test]
fn the_plugins_module_map_names_its_modules() {
    check("plugins");
}

#[test]
fn cores_module_maps_name_its_modules() {
    check("core");
}

#[test]
fn a_map_and_its_declarations_are_read_as_the_docs_say() {
    let text = "//! | module | what |\n//! |---|---|\n//! | [`app`] | the shell |\n\
        //! | [`trace_diff`](mod@trace_diff), `junit` | tools |\n//! | `files`, `scene_file` | files |\n\
        //!\n//! | not | a row |\n\npub mod app;\nmod files;\npub(crate) mod scene_file;\n\
        pub mod trace_diff;\nmod junit;\n#[cfg(test)]\nmod tests {\n}\n";
    let want: BTreeSet<String> = ["app", "files", "junit", "scene_file", "trace_diff"]
        .map(String::from)
        .into();
    assert_eq!(mapped(text), Some(want.clone()));
    assert_eq!(declared(text), want);
    assert_eq!(mapped("//! no map here\n"), None);
}
