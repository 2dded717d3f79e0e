//! No file imports one that imports it back, in any crate of the workspace:
//! a reader can learn each crate file by file, bottom up, and a change to a
//! low file never needs the files above it to build. (`layering` checks
//! core's top-level modules against the module map in its docs; this one
//! checks every file of core and its macros, plugins, the host and the app.)
//!
//! A file's imports are the paths it writes from `crate::`, `super::` or
//! `self::`, outside comments, resolved to the file that defines the longest
//! prefix of the path (`crate::editor::panels::log::LogPanel` is
//! `editor/panels/log.rs`; `super::Worker` in `worker/tape.rs` is
//! `worker/mod.rs`). A parent also depends on each child it declares
//! (`mod tape;`): the parent's items are built from the child's, whether it
//! names them (`use tape::X;`) or only calls the methods the child adds to
//! its types. A child using its ancestors' items (`super::Worker`) is not
//! counted, or every split `impl` would be a circle.
//!
//! Worked examples: were `editor/shared.rs` to say
//! `crate::editor::panels::log::LogBook` while `panels/log.rs` says
//! `crate::editor::shared::View`, the test fails naming
//! `editor/shared.rs -> editor/panels/log.rs -> editor/shared.rs`. Were
//! `editor/files.rs` to call `crate::editor::worker::absolute` (defined in
//! `worker/mod.rs`, which says `mod scene_watch;`) while
//! `worker/scene_watch.rs` says `crate::editor::files::open`, the test fails
//! naming `editor/files.rs -> editor/worker/mod.rs ->
//! editor/worker/scene_watch.rs -> editor/files.rs`: the middle edge is a
//! `mod` line, with no path in it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::source::{code_lines, declared, find_cycle, first_cycle, rust_files, src_of};

/// The module path of a file under `src` (`editor/panels/log.rs` ->
/// `[editor, panels, log]`; `worker/mod.rs` -> `[worker]`; `lib.rs` -> `[]`).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

/// The file that defines module `path`, if any.
fn file_of(files: &BTreeMap<Vec<String>, PathBuf>, path: &[String]) -> Option<PathBuf> {
    files.get(path).cloned()
}

/// Each path a line writes from `crate::`, `super::` or `self::`, resolved
/// against `module`, the module of the file that writes it (`super` is its
/// parent, for a `mod.rs` as for any other file).
fn paths_in(line: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if !line.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let starts_word = i == 0 || !is_ident(bytes[i - 1]);
        let rest = &line[i..];
        let head = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|h| rest.starts_with(h));
        let (Some(head), true) = (head, starts_word) else {
            i += 1;
            continue;
        };
        // The segments after the head, up to the first non-path character.
        let mut segments: Vec<&str> = Vec::new();
        let mut tail = &rest[head.len()..];
        let mut supers = usize::from(head == "super::");
        loop {
            let len = tail.bytes().take_while(|c| is_ident(*c)).count();
            if len == 0 {
                break;
            }
            let word = &tail[..len];
            if word == "super" && segments.is_empty() && head != "crate::" {
                supers += 1;
            } else {
                segments.push(word);
            }
            tail = &tail[len..];
            if !tail.starts_with("::") {
                break;
            }
            tail = &tail[2..];
        }
        let mut base: Vec<String> = match head {
            "crate::" => Vec::new(),
            _ => module.to_vec(),
        };
        for _ in 0..supers {
            base.pop();
        }
        base.extend(segments.iter().map(|s| s.to_string()));
        // A group (`use super::{isolated, verdict::print};`, over lines
        // too): each item is a path of its own, a module as much as an item.
        let trimmed = tail.trim_start();
        if rest[..rest.len() - tail.len()].ends_with("::") && trimmed.starts_with('{') {
            let used = group(trimmed, &base, &mut out);
            tail = &trimmed[used..];
        }
        out.push(base);
        // Past the whole path: `super::super::x` is one path, not two.
        i += rest.len() - tail.len();
    }
    out
}

/// The paths of a `{...}` group of a use (`text` starts at its `{`), each
/// item after `base` (`self` and `*` are `base` itself, `X as Y` is `X`),
/// nested groups too. Returns the bytes the group takes.
fn group(text: &str, base: &[String], out: &mut Vec<Vec<String>>) -> usize {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut at = 1; // past the `{`
    loop {
        let rest = &text[at..];
        let skipped = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_whitespace() || c == ',')
                .len();
        at += skipped;
        let rest = &text[at..];
        if rest.is_empty() || rest.starts_with('}') {
            return (at + 1).min(text.len());
        }
        // One item: segments, then a nested group, `as` and its name, or
        // the item's end.
        let mut path = base.to_vec();
        let mut item = rest;
        let mut grouped = false;
        loop {
            let len = item.find(|c: char| !is_ident(c)).unwrap_or(item.len());
            let word = &item[..len];
            if !word.is_empty() && word != "self" {
                path.push(word.to_string());
            }
            item = &item[len..];
            if let Some(after) = item.strip_prefix("::") {
                item = after;
                if item.starts_with('{') {
                    let used = group(item, &path, out);
                    item = &item[used..];
                    grouped = true;
                    break;
                }
                continue;
            }
            break;
        }
        if !grouped
            && (path.len() > base.len() || rest.starts_with("self") || rest.starts_with('*'))
        {
            out.push(path);
        }
        // Past `as Name`, `*`, or anything else up to the item's end.
        let end = item.find([',', '}']).unwrap_or(item.len());
        item = &item[end..];
        let consumed = rest.len() - item.len();
        at += consumed.max(1);
        if at >= text.len() {
            return text.len();
        }
    }
}

/// File -> the files it imports and the child module files it declares
/// (itself and its own ancestors' module files left out: a child may use
/// its parent's items).
fn import_graph(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut list = Vec::new();
    rust_files(src, &mut list);
    let files: BTreeMap<Vec<String>, PathBuf> = list
        .iter()
        .filter(|f| !f.ends_with("main.rs") || f.parent() != Some(src))
        .map(|f| (module_path(src, f), f.clone()))
        .collect();
    let mut graph: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (module, file) in &files {
        let text = std::fs::read_to_string(file).expect("a readable source file");
        let imports = graph.entry(file.clone()).or_default();
        for child in declared(&text) {
            let mut path = module.clone();
            path.push(child);
            imports.extend(file_of(&files, &path));
        }
        // One text of the code lines: a use group may span several.
        let code = code_lines(&text).collect::<Vec<_>>().join("\n");
        for path in paths_in(&code, module) {
            let target = (0..=path.len())
                .rev()
                .find_map(|n| file_of(&files, &path[..n]).map(|f| (n, f)));
            let Some((n, target)) = target else { continue };
            let ancestor = module.starts_with(&path[..n]);
            if target != *file && !ancestor {
                imports.insert(target);
            }
        }
    }
    graph
}

/// The first import circle among `crate`'s files, as `a -> b -> a`.
fn first_circle(krate: &str) -> Option<String> {
    circle_in(&src_of(krate))
}

/// The first import circle among the files under `src`, as `a -> b -> a`,
/// each named from `src`.
fn circle_in(src: &Path) -> Option<String> {
    let cycle = first_cycle(&import_graph(src))?;
    let names: Vec<String> = cycle
        .iter()
        .map(|f| f.strip_prefix(src).unwrap_or(f).display().to_string())
        .collect();
    Some(names.join(" -> "))
}

/// A scratch `src` folder holding `files` (path from `src`, text), in a
/// temp folder named for `test` so tests running at once do not share one.
fn scratch(test: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stepframe-imports-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let src = dir.join("src");
    for (path, text) in files {
        let file = src.join(path);
        std::fs::create_dir_all(file.parent().expect("a folder")).expect("a temp dir");
        std::fs::write(file, text).expect("write");
    }
    src
}

/// The first import circle among `files` written into a scratch `src`
/// (see [`scratch`]), the folder removed again.
fn circle_in_scratch(test: &str, files: &[(&str, &str)]) -> Option<String> {
    let src = scratch(test, files);
    let found = circle_in(&src);
    let _ = std::fs::remove_dir_all(src.parent().expect("the scratch folder"));
    found
}

/// Module paths written as segment lists, as [`paths_in`] gives them.
fn paths(list: &[&[&str]]) -> Vec<Vec<String>> {
    list.iter()
        .map(|p| p.iter().map(|s| s.to_string()).collect())
        .collect()
}

#[test]
fn no_file_of_the_app_imports_one_that_imports_it_back() {
    assert_eq!(first_circle("app"), None);
}

#[test]
fn no_file_of_plugins_imports_one_that_imports_it_back() {
    assert_eq!(first_circle("plugins"), None);
}

#[test]
fn no_file_of_core_imports_one_that_imports_it_back() {
    assert_eq!(first_circle("core"), None);
}

#[test]
fn no_file_of_the_session_host_imports_one_that_imports_it_back() {
    assert_eq!(first_circle("app/host"), None);
}

#[test]
fn no_file_of_cores_derive_macros_imports_one_that_imports_it_back() {
    assert_eq!(first_circle("core/macros"), None);
}

#[test]
fn the_reader_resolves_crate_super_and_nested_super_paths() {
    let module: Vec<String> = ["editor", "worker", "tape"].map(String::from).to_vec();
    let got = paths_in(
        "use super::Worker; use crate::editor::protocol::Event; x = super::super::shared::View;",
        &module,
    );
    let want = paths(&[
        &["editor", "worker", "Worker"],
        &["editor", "protocol", "Event"],
        &["editor", "shared", "View"],
    ]);
    assert_eq!(got, want);
}

#[test]
fn a_circle_written_into_a_copy_of_the_sources_is_found() {
    // Two files that name each other, as the worked example in the docs.
    let dir = std::env::temp_dir().join(format!("stepframe-imports-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("editor/panels")).expect("a temp dir");
    std::fs::write(src.join("lib.rs"), "pub mod editor;\n").expect("write");
    std::fs::write(
        src.join("editor/mod.rs"),
        "pub mod panels;\npub mod shared;\n",
    )
    .expect("write");
    std::fs::write(src.join("editor/panels/mod.rs"), "pub mod log;\n").expect("write");
    std::fs::write(
        src.join("editor/shared.rs"),
        "use crate::editor::panels::log::LogBook;\n",
    )
    .expect("write");
    std::fs::write(
        src.join("editor/panels/log.rs"),
        "use crate::editor::shared::View; // and a comment: crate::nothing\n",
    )
    .expect("write");
    let graph = import_graph(&src);
    let mut done = BTreeSet::new();
    let start = src.join("editor/shared.rs");
    let cycle = find_cycle(&graph, &start, &mut Vec::new(), &mut done).expect("a circle");
    let names: Vec<String> = cycle
        .iter()
        .map(|f| f.strip_prefix(&src).unwrap_or(f).display().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "editor/shared.rs",
            "editor/panels/log.rs",
            "editor/shared.rs"
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_circle_through_a_parent_and_its_child_module_is_found() {
    // The circle the editor once had: `files.rs` used `worker::absolute`
    // (in `worker/mod.rs`), the worker declares `scene_watch`, and
    // `scene_watch.rs` reached back to a file that needs `files.rs`. The
    // middle edge is a `mod` line, not a path; a check that skips it sees
    // two unrelated imports.
    let found = circle_in_scratch(
        "parent-child",
        &[
            ("lib.rs", "pub mod editor;\n"),
            ("editor/mod.rs", "pub mod files;\npub mod worker;\n"),
            (
                "editor/files.rs",
                "pub fn open() -> std::path::PathBuf {\n    crate::editor::worker::absolute()\n}\n",
            ),
            (
                "editor/worker/mod.rs",
                "mod scene_watch;\n\npub fn absolute() -> std::path::PathBuf {\n    scene_watch::start()\n}\n",
            ),
            (
                "editor/worker/scene_watch.rs",
                "use crate::editor::files;\n\npub fn start() -> std::path::PathBuf {\n    files::open()\n}\n",
            ),
        ],
    );
    assert_eq!(
        found.as_deref(),
        Some(
            "editor/files.rs -> editor/worker/mod.rs -> editor/worker/scene_watch.rs -> editor/files.rs"
        )
    );
}

#[test]
fn the_reader_resolves_each_item_of_a_use_group_over_lines_too() {
    let module: Vec<String> = ["tools", "check"].map(String::from).to_vec();
    let got = paths_in(
        "use super::{isolated, junit as j, verdict::{print, self}};\nuse crate::editor::{\n    panels,\n    shared::Reading,\n};",
        &module,
    );
    let want = paths(&[
        &["tools", "isolated"],
        &["tools", "junit"],
        &["tools", "verdict", "print"],
        &["tools", "verdict"],
        &["tools"],
        &["editor", "panels"],
        &["editor", "shared", "Reading"],
        &["editor"],
    ]);
    assert_eq!(got, want);
}

#[test]
fn a_circle_through_a_use_group_of_modules_is_found() {
    // The circle `check` once had: it took its siblings as modules in one
    // group (`use super::{isolated, verdict};`) while they took its types.
    let found = circle_in_scratch(
        "use-group",
        &[
            ("lib.rs", "pub mod tools;\n"),
            ("tools/mod.rs", "pub mod check;\npub mod isolated;\n"),
            (
                "tools/check.rs",
                "use super::{\n    isolated,\n};\n\npub struct CheckArgs;\n\npub fn run() {\n    isolated::run_one()\n}\n",
            ),
            (
                "tools/isolated.rs",
                "use super::check::CheckArgs;\n\npub fn run_one() {\n    let _ = CheckArgs;\n}\n",
            ),
        ],
    );
    assert_eq!(
        found.as_deref(),
        Some("tools/check.rs -> tools/isolated.rs -> tools/check.rs")
    );
}
