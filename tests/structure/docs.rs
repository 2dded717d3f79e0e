//! The docs hold no placeholder left for a figure: a word in capitals with
//! an underscore (`FILL_SECONDS`) in running text, outside code, is a value
//! someone meant to fill in. Constants the docs name are written in code
//! spans (`STUCK_AFTER`), so they do not count.

use std::path::Path;

/// Every unfilled placeholder in `text`: capitals, digits and at least
/// one underscore, outside fenced blocks and code spans.
fn placeholders(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Odd pieces between backticks are code spans.
        for (i, piece) in line.split('`').enumerate() {
            if i % 2 == 1 {
                continue;
            }
            for word in piece.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                let capitals = word
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                let starts = word.chars().next().is_some_and(|c| c.is_ascii_uppercase());
                if capitals && starts && word.contains('_') && word.len() > 3 {
                    found.push(word.to_string());
                }
            }
        }
    }
    found
}

#[test]
fn a_placeholder_is_found_in_text_and_not_in_code() {
    let text = "measured at WORKER_SPAN_MS here, `STUCK_AFTER` there\n```\nLIMIT_MIB\n```\n";
    assert_eq!(placeholders(text), vec!["WORKER_SPAN_MS".to_string()]);
}

#[test]
fn no_doc_has_an_unfilled_placeholder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).expect("docs/") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    let mut left = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a doc");
        for word in placeholders(&text) {
            left.push(format!("{}: {word}", file.display()));
        }
    }
    assert!(left.is_empty(), "placeholders left: {left:#?}");
}
