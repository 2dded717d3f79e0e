//! The byte mutator the format fuzzers share (`fuzz_formats.rs` here, and the
//! app's `fuzz_formats.rs`, which includes this file by path): a seed text,
//! one to four random edits (bit flips, deletions, insertions of awkward
//! punctuation, duplicated spans, truncation), then a check that must hold
//! for every result. Cases: `STEPFRAME_FUZZ_CASES` (default 256).
#![allow(dead_code)]

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestRunner};

pub fn cases() -> u32 {
    std::env::var("STEPFRAME_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

/// Bytes an insertion picks from: RON and rhai punctuation, awkward bytes.
pub const INSERTS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "\"",
    "'",
    "`",
    "#",
    "\n",
    "\0",
    "é",
    "\u{feff}",
    "1e999",
    "-",
    ".",
    "NaN",
    "18446744073709551616",
    "((((((((((",
    "//",
    "/*",
    "$",
    "\\",
];

#[derive(Clone, Debug)]
pub enum Edit {
    Flip(Index, u8),
    Delete(Index, usize),
    Insert(Index, Index),
    Duplicate(Index, usize, Index),
    Truncate(Index),
}

pub fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), 0u8..8).prop_map(|(i, b)| Edit::Flip(i, b)),
        (any::<Index>(), 1usize..16).prop_map(|(i, n)| Edit::Delete(i, n)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, c)| Edit::Insert(i, c)),
        (any::<Index>(), 1usize..64, any::<Index>()).prop_map(|(f, n, t)| Edit::Duplicate(f, n, t)),
        any::<Index>().prop_map(Edit::Truncate),
    ]
}

pub fn apply(bytes: &mut Vec<u8>, e: &Edit) {
    let at = |i: &Index, len: usize| i.index(len + 1);
    match e {
        Edit::Flip(i, b) if !bytes.is_empty() => {
            let k = i.index(bytes.len());
            bytes[k] ^= 1 << b;
        }
        Edit::Delete(i, n) if !bytes.is_empty() => {
            let k = i.index(bytes.len());
            let end = (k + n).min(bytes.len());
            bytes.drain(k..end);
        }
        Edit::Insert(i, c) => {
            let k = at(i, bytes.len());
            let s = INSERTS[c.index(INSERTS.len())].as_bytes();
            bytes.splice(k..k, s.iter().copied());
        }
        Edit::Duplicate(f, n, t) if !bytes.is_empty() => {
            let k = f.index(bytes.len());
            let span: Vec<u8> = bytes[k..(k + n).min(bytes.len())].to_vec();
            let to = at(t, bytes.len());
            bytes.splice(to..to, span);
        }
        Edit::Truncate(i) => {
            let k = at(i, bytes.len());
            bytes.truncate(k);
        }
        _ => {}
    }
}

/// Whether `line:column` (1-based) points into `text` (at most one past a
/// line's end, or the line after the last).
pub fn points_into(text: &str, line: usize, column: usize) -> bool {
    let lines: Vec<&str> = text.split('\n').collect();
    line >= 1
        && column >= 1
        && line <= lines.len() + 1
        && lines
            .get(line - 1)
            .is_none_or(|l| column <= l.chars().count() + 1)
}

pub fn run(name: &str, seeds: &[String], check: impl Fn(&str) -> Result<(), String>) {
    run_bytes(name, seeds, |bytes| check(&String::from_utf8_lossy(bytes)));
}

/// [`run`] on the mutated bytes as they are (a file need not be UTF-8).
pub fn run_bytes(name: &str, seeds: &[String], check: impl Fn(&[u8]) -> Result<(), String>) {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let input = (any::<Index>(), prop::collection::vec(edit(), 1..=4));
    let result = runner.run(&input, |(seed, edits)| {
        let mut bytes = seeds[seed.index(seeds.len())].clone().into_bytes();
        for e in &edits {
            apply(&mut bytes, e);
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&bytes))) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(broken)) => {
                prop_assert!(false, "{name}: {broken}\n--- mutated ---\n{text}");
                Ok(())
            }
            Err(_) => {
                prop_assert!(false, "{name}: panic\n--- mutated ---\n{text}");
                Ok(())
            }
        }
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
