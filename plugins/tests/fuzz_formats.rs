//! Fuzzing two small formats the way `fuzz_scene.rs` fuzzes scenes: random
//! byte edits of the input tape (`assets/recordings/demo.ron`, core's
//! `Recording::parse`) and of watch expressions (`WatchSet::new`) never
//! panic; a rejected text gets an error with line ≥ 1 and column ≥ 1; an
//! accepted one runs (a tape replays into a session, a watch is asked after
//! a few ticks) without panicking. Cases: `STEPFRAME_FUZZ_CASES` (default 256).

use std::path::Path;

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestRunner};
use stepframe_core::{Pipeline, Recording, RecordingError, Replay, TickWatch, TimeSettings};
use stepframe_plugins::{WatchAction, WatchError, WatchSet, WatchSpec};

fn cases() -> u32 {
    std::env::var("STEPFRAME_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

/// Bytes an insertion picks from: RON and rhai punctuation, awkward bytes.
const INSERTS: &[&str] = &[
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
enum Edit {
    Flip(Index, u8),
    Delete(Index, usize),
    Insert(Index, Index),
    Duplicate(Index, usize, Index),
    Truncate(Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), 0u8..8).prop_map(|(i, b)| Edit::Flip(i, b)),
        (any::<Index>(), 1usize..16).prop_map(|(i, n)| Edit::Delete(i, n)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, c)| Edit::Insert(i, c)),
        (any::<Index>(), 1usize..64, any::<Index>()).prop_map(|(f, n, t)| Edit::Duplicate(f, n, t)),
        any::<Index>().prop_map(Edit::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, e: &Edit) {
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
fn points_into(text: &str, line: usize, column: usize) -> bool {
    let lines: Vec<&str> = text.split('\n').collect();
    line >= 1
        && column >= 1
        && line <= lines.len() + 1
        && lines
            .get(line - 1)
            .is_none_or(|l| column <= l.chars().count() + 1)
}

fn run(name: &str, seeds: &[String], check: impl Fn(&str) -> Result<(), String>) {
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
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&text))) {
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

#[test]
fn mutated_tapes_never_panic_and_errors_have_positions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let demo = std::fs::read_to_string(root.join("assets/recordings/demo.ron")).expect("demo tape");
    let small = "(version: 1, fixed_hz: 60, ticks: 9, events: [\n    (tick: 3, source: Key(\"Space\"), value: 1.0),\n    (tick: 7, source: GamepadAxis(\"LeftStickX\"), value: -0.5),\n])\n".to_string();
    run("tape", &[demo, small], |text| {
        match Recording::parse(text, Path::new("fuzz.ron")) {
            Ok(recording) => {
                // It replays: a few frames of a session fed by it.
                let mut p = Pipeline::new(TimeSettings::default());
                p.set_tick_input(Some(Box::new(Replay::new(recording))));
                for _ in 0..3 {
                    p.step_frame(1.0 / 60.0);
                }
                Ok(())
            }
            Err(RecordingError::Parse {
                line,
                column,
                message,
                ..
            })
            | Err(RecordingError::Invalid {
                line,
                column,
                message,
                ..
            }) => {
                if points_into(text, line, column) && !message.is_empty() {
                    Ok(())
                } else {
                    Err(format!(
                        "error at {line}:{column} ({message}) is not in the text"
                    ))
                }
            }
            Err(other) => Err(format!("unexpected error kind: {other}")),
        }
    });
}

#[test]
fn mutated_watch_expressions_never_panic_and_errors_have_positions() {
    let seeds: Vec<String> = [
        "obj(20).y < 0",
        "contact(20, 1) && tick > 10",
        "state(20).contains(\"grounded = true\")",
        "alpha > 0.5 || accumulator >= fixed_dt",
        "if tick % 2 == 0 { obj(20).vx } else { 0.0 }",
        "[1, 2, 3].len() + sim_time",
        "#{a: 1, b: \"x\"}.a == 1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    run("watch", &seeds, |text| {
        let spec = WatchSpec {
            expr: text.to_string(),
            action: WatchAction::Plot,
            enabled: true,
        };
        match WatchSet::new(&[spec]) {
            Ok(mut set) => {
                let mut p = Pipeline::new(TimeSettings::default());
                for _ in 0..2 {
                    p.step_frame(1.0 / 60.0);
                    let _ = set.after_tick(&p);
                }
                Ok(())
            }
            Err(WatchError::InWatch { error, .. }) => match *error {
                WatchError::Syntax {
                    line,
                    column,
                    message,
                    ..
                } => {
                    if points_into(text, line, column) && !message.is_empty() {
                        Ok(())
                    } else {
                        Err(format!(
                            "error at {line}:{column} ({message}) is not in the text"
                        ))
                    }
                }
                other => Err(format!("unexpected error kind: {other}")),
            },
            Err(other) => Err(format!("unexpected error kind: {other}")),
        }
    });
}
