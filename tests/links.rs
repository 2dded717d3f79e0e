//! Every relative link in README.md and docs/*.md points at a file that
//! exists: moving a section out of the README (into docs/) or renaming a
//! guide cannot leave a dead link behind. Web links and in-page anchors
//! are not checked.

use std::path::{Path, PathBuf};

/// The `(target)` of every `[text](target)` in `text`, in order.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        out.push(rest[..end].to_string());
        rest = &rest[end..];
    }
    out
}

/// `(file, target)` of each relative link in `files` whose target is missing.
fn dead_links(files: &[PathBuf]) -> Vec<(String, String)> {
    let mut dead = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).expect("a readable markdown file");
        let dir = file.parent().expect("a directory");
        for target in link_targets(&text) {
            let path = target.split('#').next().unwrap_or("").trim();
            if path.is_empty() || path.contains("://") || path.starts_with("mailto:") {
                continue;
            }
            if !dir.join(path).exists() {
                dead.push((file.display().to_string(), target));
            }
        }
    }
    dead
}

fn markdown_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ is readable")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn every_relative_link_in_the_readme_and_the_guides_resolves() {
    let files = markdown_files();
    assert!(files.len() > 5, "the README and the guides: {files:?}");
    assert_eq!(dead_links(&files), Vec::<(String, String)>::new());
}

#[test]
fn a_dead_link_is_reported_with_its_file() {
    let dir = std::env::temp_dir().join(format!("stepframe-links-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let page = dir.join("page.md");
    std::fs::write(dir.join("there.md"), "# there\n").expect("write");
    std::fs::write(
        &page,
        "[ok](there.md#a) [web](https://example.com) [gone](docs/moved.md)\n",
    )
    .expect("write");
    assert_eq!(
        dead_links(std::slice::from_ref(&page)),
        vec![(page.display().to_string(), "docs/moved.md".to_string())]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
