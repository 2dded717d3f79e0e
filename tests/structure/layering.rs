//! Core's structure, read from its sources: the modules form layers
//! (each depends only on modules below it, so a reader can learn the crate
//! bottom up), and the crate docs' module map names exactly the modules
//! that exist.
//!
//! A module's dependencies are the `crate::<module>` paths in its files
//! (its submodules' included), comments left out: a doc link is not a
//! dependency. Worked example: `world.rs` says `crate::ids::ObjectId`, so
//! `world` depends on `ids`; were `ids.rs` to say `crate::world`, the test
//! would fail naming the cycle `ids -> world -> ids`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::source::{code_lines, first_cycle, rust_files, src_of};

/// The top-level module a file belongs to (`pipeline/drive.rs` -> `pipeline`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let first = rel.components().next().expect("a file name");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

/// Module -> the modules it names with `crate::`, outside comments.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let src = src_of("core");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(&src, file);
        if module == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("a readable source file");
        let deps = graph.entry(module.clone()).or_default();
        for line in code_lines(&text) {
            for (at, _) in line.match_indices("crate::") {
                let name: String = line[at + "crate::".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                if !name.is_empty() && name != module {
                    deps.insert(name);
                }
            }
        }
    }
    graph
}

#[test]
fn core_modules_depend_downward_only() {
    // A name that is not a module of the crate (a macro's `crate::` path)
    // has no entry, so it is a leaf.
    if let Some(cycle) = first_cycle(&dependencies()) {
        panic!("module cycle: {}", cycle.join(" -> "));
    }
}

#[test]
fn ids_are_a_leaf_and_world_behaviour_schedule_are_stacked_in_that_order() {
    let graph = dependencies();
    assert_eq!(
        graph["ids"],
        BTreeSet::new(),
        "ids imports nothing from the crate"
    );
    for (module, above) in [
        ("world", ["behaviour", "schedule"]),
        ("behaviour", ["schedule", "spawn"]),
    ] {
        for upper in above {
            assert!(
                !graph[module].contains(upper),
                "`{module}` must not depend on `{upper}`, which is above it"
            );
        }
    }
}

/// The crate docs' module map rows, in order, and the `pub mod` lines.
fn module_map() -> (Vec<String>, BTreeSet<String>) {
    let lib = std::fs::read_to_string(src_of("core").join("lib.rs")).expect("lib.rs is readable");
    let declared = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect();
    let mapped = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//! | [`"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    (mapped, declared)
}

#[test]
fn the_crate_docs_module_map_names_every_module_and_no_other() {
    let (mapped, declared) = module_map();
    let mapped: BTreeSet<String> = mapped.into_iter().collect();
    assert_eq!(
        mapped, declared,
        "module map rows vs `pub mod` lines in lib.rs"
    );
}

#[test]
fn each_module_uses_only_modules_above_it_in_the_module_map() {
    let (order, _) = module_map();
    let graph = dependencies();
    for (row, module) in order.iter().enumerate() {
        for dep in graph.get(module).into_iter().flatten() {
            let Some(at) = order.iter().position(|m| m == dep) else {
                continue;
            };
            assert!(
                at < row,
                "`{module}` (row {row}) uses `{dep}` (row {at}), which the module map puts below it"
            );
        }
    }
}

#[test]
fn the_module_maps_file_column_lists_each_modules_files() {
    let lib = std::fs::read_to_string(src_of("core").join("lib.rs")).expect("lib.rs is readable");
    let src = src_of("core");
    for row in lib.lines().filter_map(|l| l.strip_prefix("//! | [`")) {
        let module = row.split('`').next().expect("a module name");
        let files_cell = row.rsplit('|').nth(1).expect("a files cell");
        let listed: BTreeSet<String> = files_cell
            .split(',')
            .map(|f| f.trim().trim_matches('`').to_string())
            .filter(|f| !f.is_empty())
            .collect();
        let dir = src.join(module);
        // A file is `name.rs`, or a folder `name/` with its `mod.rs`.
        let present: BTreeSet<String> = if dir.is_dir() {
            std::fs::read_dir(&dir)
                .expect("a module directory")
                .map(|e| e.expect("an entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "rs") || p.join("mod.rs").is_file())
                .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                .filter(|s| s != "mod")
                .collect()
        } else {
            BTreeSet::new()
        };
        assert_eq!(listed, present, "files of `{module}` in the module map");
    }
}
