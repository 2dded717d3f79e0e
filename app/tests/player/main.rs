//! The headless tools through their command line: `stepframe play` and
//! `stepframe trace-diff`, run as a user runs them (`check.rs` has `stepframe
//! check`, `divergence.rs` the field-level report and the subsystem hashes).
//! One test binary, by concern: `basics` (summary, run length, realtime),
//! `determinism` (traces at every pacing, the sync test, recordings),
//! `trace_diff`, `outputs` (telemetry, Chrome trace), `failures` (bad input,
//! failing hooks, runs that could never end), `scripts`, and `fatal` (the
//! faults no process survives, named by the supervisor: abort, stack
//! overflow, out of memory, a stuck hook, through `play`, `check`, `soak` and
//! `bench`).
//!
//! Determinism rule used throughout: a replay run stops once the recording's
//! 900 ticks are complete; a frame may complete a few ticks more, so traces are
//! compared on ticks 1..=900, each line without its `frame` member (the only
//! field that depends on pacing), byte for byte.

use std::path::Path;

#[path = "../support/mod.rs"]
mod support;
use support::{code, path_str, stderr, stepframe};

mod basics;
mod determinism;
mod failures;
mod fatal;
mod outputs;
mod scripts;
mod trace_diff;

const DEMO: &str = "assets/scenes/demo.ron";
const DEMO_INPUT: &str = "assets/recordings/demo.ron";
const CONTRACT: &str = "assets/scenes/contract.ron";
const STRESS: &str = "assets/scenes/stress.ron";
/// Length of the demo recording, ticks (15 s at 60 Hz).
const DEMO_TICKS: usize = 900;

/// Ticks 1..=n of a trace, `frame` removed from every line.
fn without_frame(trace: &str, n: usize) -> Vec<String> {
    trace
        .lines()
        .take(n)
        .map(|line| {
            let at = line.find(",\"frame\":").expect("every line has a frame");
            let rest = &line[at + 9..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            format!("{}{}", &line[..at], &rest[digits..])
        })
        .collect()
}

/// Plays the demo recording with extra arguments and returns its trace.
fn demo_trace(dir: &Path, name: &str, extra: &[&str]) -> String {
    let trace = dir.join(format!("{name}.jsonl"));
    let mut args = vec![
        "play",
        DEMO,
        "--input",
        DEMO_INPUT,
        "--trace",
        path_str(&trace),
    ];
    args.extend_from_slice(extra);
    let out = stepframe(&args);
    assert_eq!(code(&out), 0, "{name}: {}", stderr(&out));
    std::fs::read_to_string(&trace).expect("trace written")
}
