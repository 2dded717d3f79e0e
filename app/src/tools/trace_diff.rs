//! `stepframe trace-diff`: what differs between two traces, object by object
//! and field by field.
//!
//! Traces are compared line by line (one line per tick), ignoring `frame`,
//! which legitimately depends on pacing. Lines that are byte-identical once
//! `frame` is left out match without being parsed. The first pair that is not
//! is parsed and taken apart into a [`TickDiff`]:
//!
//! - every object whose pose record differs, with each differing field (`x`,
//!   `y`, `angle`, `vx`, `vy`, `w`), both values and their distance in f32
//!   ULPs, and the objects present in only one trace;
//! - the tick's inputs (both lists, when they differ) and contacts (the events
//!   each side has that the other lacks);
//! - with subsystem hashes in the lines (`play --trace-subsystems`), every
//!   subsystem whose hash differs, in the order a tick touches them (clock,
//!   fixed input memory, behaviour state per object, session RNG, physics): the
//!   first one is the state that changed first;
//! - anything else that differs (`tick`, `sim_time`, `hash`, unknown members).
//!
//! Numbers are compared by their bits, so `-0.0` and `0.0` differ just as they
//! do in the state hash ([`crate::compare::tick`] has the ULP rule, with worked
//! numbers).
//!
//! When only one trace carries subsystem hashes they are left out of the
//! comparison, so a trace written with `--trace-subsystems` still compares
//! equal to a default one of the same run.
//!
//! Exit 0 with `identical (N ticks)`, 1 with the first difference (or where one
//! trace ends before the other), 2 when a file cannot be read or a differing
//! line is not JSON. `--all` walks both traces to the end and lists every range
//! of consecutive differing ticks; `--json` writes the same as one JSON
//! document.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;
use serde_json::Value;

use crate::compare::tick::{TickDiff, diff_records};

/// Arguments of `stepframe trace-diff`.
#[derive(clap::Args, Debug)]
pub struct TraceDiffArgs {
    /// First trace (JSON Lines).
    pub a: PathBuf,
    /// Second trace (JSON Lines).
    pub b: PathBuf,
    /// Read both traces to the end and list every range of diverging ticks.
    #[arg(long)]
    pub all: bool,
    /// Write the report as one JSON document on stdout instead of text.
    #[arg(long)]
    pub json: bool,
}

/// How two traces compare.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum TraceDiff {
    /// Same number of ticks, identical apart from `frame`.
    Identical {
        /// Ticks compared.
        ticks: usize,
    },
    /// At least one line pair differs.
    Differs(Box<Divergence>),
    /// One trace is a strict prefix of the other.
    Length {
        /// Ticks both traces have, all identical.
        common: usize,
        /// Ticks of the first trace.
        a_ticks: usize,
        /// Ticks of the second trace.
        b_ticks: usize,
    },
}

/// Where two traces part.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Divergence {
    /// Everything that differs at the first differing tick.
    pub first: TickDiff,
    /// With `--all`: every run of consecutive differing lines, in order (the
    /// first starts at `first`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ranges: Vec<TickRange>,
    /// With `--all`, when the traces also have different lengths: both
    /// lengths, in ticks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lengths: Option<[usize; 2]>,
}

/// A run of consecutive differing lines.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TickRange {
    /// One-based line of the first differing line of the run.
    pub first_line: usize,
    /// One-based line of the last.
    pub last_line: usize,
    /// Tick of the first line (its `tick` in the first trace).
    pub first_tick: u64,
    /// Tick of the last line.
    pub last_tick: u64,
    /// What differs at the run's first tick.
    pub diff: TickDiff,
}

/// A differing line that is not valid JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceParseError {
    /// 0 for the first trace, 1 for the second.
    pub which: usize,
    /// One-based line.
    pub line: usize,
    /// One-based column.
    pub column: usize,
    /// serde_json's message.
    pub message: String,
}

/// How far to walk, and whether subsystem hashes count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiffOptions {
    /// Walk to the end and collect every range (`--all`), instead of stopping
    /// at the first difference.
    pub all: bool,
    /// Compare subsystem hashes when both lines have them (off: they are left
    /// out, as `check` does for its verdict).
    pub subsystems: bool,
}

impl DiffOptions {
    /// The first difference, subsystem hashes included.
    pub const FIRST: DiffOptions = DiffOptions {
        all: false,
        subsystems: true,
    };
}

/// The member the opt-in subsystem hashes start with (always the last one).
const SUBSYSTEMS_KEY: &str = ",\"subsystems\":{";

/// The line without its `"frame":<digits>` member: (before, after).
fn split_frame(line: &str) -> (&str, &str) {
    const KEY: &str = "\"frame\":";
    let Some(at) = line.find(KEY) else {
        return (line, "");
    };
    let rest = &line[at + KEY.len()..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    (&line[..at], &rest[digits..])
}

/// The text after `frame` without the subsystem member and the closing brace.
fn without_subsystems(after: &str) -> &str {
    let t = after.trim_end();
    match t.rfind(SUBSYSTEMS_KEY) {
        Some(at) => &t[..at],
        None => t.strip_suffix('}').unwrap_or(t),
    }
}

/// Whether two lines match by the comparison rule, without parsing them.
fn same_line(x: &str, y: &str, options: DiffOptions) -> bool {
    let ((x0, x1), (y0, y1)) = (split_frame(x), split_frame(y));
    if x0 != y0 {
        return false;
    }
    if x1 == y1 {
        return true;
    }
    let both = x1.contains(SUBSYSTEMS_KEY) && y1.contains(SUBSYSTEMS_KEY);
    (!options.subsystems || !both) && without_subsystems(x1) == without_subsystems(y1)
}

/// Lines of a trace, blank lines skipped, with their one-based file line.
fn trace_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l))
}

/// Compares two traces up to the first difference (see the module docs).
pub fn diff_traces(a: &str, b: &str) -> Result<TraceDiff, TraceParseError> {
    diff_traces_with(a, b, DiffOptions::FIRST)
}

/// Compares two traces (see the module docs and [`DiffOptions`]).
pub fn diff_traces_with(
    a: &str,
    b: &str,
    options: DiffOptions,
) -> Result<TraceDiff, TraceParseError> {
    let mut la = trace_lines(a);
    let mut lb = trace_lines(b);
    let mut index = 0;
    let mut first: Option<TickDiff> = None;
    let mut ranges: Vec<TickRange> = Vec::new();
    let (a_ticks, b_ticks) = loop {
        match (la.next(), lb.next()) {
            (None, None) => break (index, index),
            (Some(_), None) => break (index + 1 + la.count(), index),
            (None, Some(_)) => break (index, index + 1 + lb.count()),
            (Some(x), Some(y)) => {
                index += 1;
                if same_line(x.1, y.1, options) {
                    continue;
                }
                // A line that goes on a range only moves its end: only a
                // range's first line is taken apart (the others are still
                // checked to be JSON).
                if let Some(r) = ranges.last_mut()
                    && r.last_line + 1 == index
                {
                    let tick = parse_tick(0, x.0, x.1)?;
                    parse_tick(1, y.0, y.1)?;
                    r.last_line = index;
                    r.last_tick = tick.unwrap_or(index as u64);
                    continue;
                }
                let (va, vb) = (parse_line(0, x.0, x.1)?, parse_line(1, y.0, y.1)?);
                let diff = diff_records(index, va, vb, options.subsystems, (x.1, y.1));
                if !options.all {
                    first = Some(diff);
                    break (index, index);
                }
                ranges.push(TickRange {
                    first_line: index,
                    last_line: index,
                    first_tick: diff.tick,
                    last_tick: diff.tick,
                    diff: diff.clone(),
                });
                if first.is_none() {
                    first = Some(diff);
                }
            }
        }
    };
    Ok(match first {
        Some(first) => TraceDiff::Differs(Box::new(Divergence {
            first,
            ranges,
            lengths: (a_ticks != b_ticks).then_some([a_ticks, b_ticks]),
        })),
        None if a_ticks == b_ticks => TraceDiff::Identical { ticks: a_ticks },
        None => TraceDiff::Length {
            common: a_ticks.min(b_ticks),
            a_ticks,
            b_ticks,
        },
    })
}

/// Compares one pair of trace lines of tick index `index`: `None` when they
/// match by the comparison rule. The sync test compares its runs with this.
pub fn diff_trace_lines(
    index: usize,
    a: &str,
    b: &str,
) -> Result<Option<TickDiff>, TraceParseError> {
    if same_line(a, b, DiffOptions::FIRST) {
        return Ok(None);
    }
    let (va, vb) = (parse_line(0, index, a)?, parse_line(1, index, b)?);
    Ok(Some(diff_records(index, va, vb, true, (a, b))))
}

fn parse_error(which: usize, line: usize) -> impl Fn(serde_json::Error) -> TraceParseError {
    move |e| TraceParseError {
        which,
        line,
        column: e.column(),
        message: e.to_string(),
    }
}

fn parse_line(which: usize, line: usize, text: &str) -> Result<Value, TraceParseError> {
    serde_json::from_str(text).map_err(parse_error(which, line))
}

/// Only a record's `tick`: checks the line is JSON without building it.
fn parse_tick(which: usize, line: usize, text: &str) -> Result<Option<u64>, TraceParseError> {
    #[derive(serde::Deserialize)]
    struct Tick {
        tick: Option<u64>,
    }
    match serde_json::from_str::<Tick>(text) {
        Ok(t) => Ok(t.tick),
        // Valid JSON of another shape (a hand-edited line): no tick to read.
        Err(e) if e.is_data() => Ok(None),
        Err(e) => Err(parse_error(which, line)(e)),
    }
}

/// Runs trace-diff: exit 0 identical, 1 different, 2 unreadable.
pub fn trace_diff(args: TraceDiffArgs) -> ExitCode {
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    let (a, b) = match (read(&args.a), read(&args.b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("stepframe trace-diff: {e}");
            return ExitCode::from(2);
        }
    };
    let options = DiffOptions {
        all: args.all,
        subsystems: true,
    };
    match diff_traces_with(&a, &b, options) {
        Ok(d) => {
            if args.json {
                match serde_json::to_string(&d) {
                    Ok(json) => println!("{json}"),
                    Err(e) => {
                        eprintln!("stepframe trace-diff: cannot write JSON: {e}");
                        return ExitCode::from(2);
                    }
                }
            } else {
                println!("{d}");
            }
            if matches!(d, TraceDiff::Identical { .. }) {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            let file = if e.which == 0 { &args.a } else { &args.b };
            eprintln!(
                "stepframe trace-diff: {}:{}:{}: not a trace line: {}",
                file.display(),
                e.line,
                e.column,
                e.message
            );
            ExitCode::from(2)
        }
    }
}
