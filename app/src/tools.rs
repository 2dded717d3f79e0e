//! `stepframe trace-diff` and `stepframe check`: proving fixed logic is
//! frame-rate independent.
//!
//! # trace-diff
//!
//! Compares two traces line by line (one line per tick), ignoring the `frame`
//! field, which legitimately depends on pacing. Lines that are byte-identical
//! once `frame` is left out match without being parsed; the first pair that is
//! not is parsed and walked field by field, in the order the trace writes them
//! (`tick`, `sim_time`, `inputs`, `contacts`, `poses`, then `hash`), so the
//! report names the first field that differs, like `poses[2].vy`, with both
//! values. Numbers are compared by their bits, so `-0.0` and `0.0` differ just as
//! they do in the state hash. Exit 0 with `identical (N ticks)`, 1 with the first
//! difference (or where one trace ends before the other), 2 when a file cannot be
//! read or a differing line is not JSON.
//!
//! # check
//!
//! Runs one scene and recording under the pacing matrix: 60, 30 and 144 Hz,
//! `irregular:1` to `irregular:4`, and 60 Hz with a 1 s and with a 5 s stall at
//! frame 30, each under the accumulator and under step counting: 18 runs, in
//! parallel on every core, each writing its trace in memory. The reference is
//! 60 Hz with the accumulator.
//!
//! **The comparison rule.** Every run goes on until it has completed the same
//! number of ticks `T` (the recording's length, or `--ticks`): a run at 30 Hz
//! needs half the frames of one at 60 Hz, and a stalled run needs more frames,
//! because the step cap drops the hitch's backlog instead of simulating it. A
//! frame may complete a few ticks past `T`; only ticks `1..=T` are compared. So
//! "matches" means: the same `T` ticks, with byte-identical inputs, contacts,
//! poses and hashes, `frame` aside.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use stepframe_core::{
    Pipeline, Recording, Registry, Replay, Scene, StepStrategy, TimeSettings, TraceWriter,
};

use crate::player::{
    FramePacer, Pacing, RunLength, RunPlan, Stall, register_assets_root, registry, run_plan,
};

/// Arguments of `stepframe trace-diff`.
#[derive(clap::Args, Debug)]
pub struct TraceDiffArgs {
    /// First trace (JSON Lines).
    pub a: PathBuf,
    /// Second trace (JSON Lines).
    pub b: PathBuf,
}

/// Arguments of `stepframe check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Scene to check.
    pub scene: PathBuf,
    /// Tick-stamped input recording to replay in every run.
    #[arg(long)]
    pub input: Option<PathBuf>,
    /// Ticks every run must complete and that are compared (default: the
    /// recording's length, or 600 without one).
    #[arg(long)]
    pub ticks: Option<u64>,
    /// Parallel runs (default: every core).
    #[arg(long)]
    pub jobs: Option<usize>,
}

/// How two traces compare.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceDiff {
    /// Same number of ticks, identical apart from `frame`.
    Identical {
        /// Ticks compared.
        ticks: usize,
    },
    /// The first line pair that differs.
    Differs {
        /// One-based line (= tick index) of the difference.
        line: usize,
        /// The tick the line describes (its `tick` field in the first trace).
        tick: u64,
        /// Path of the first differing field, like `poses[2].vy`.
        field: String,
        /// The field's value in the first trace (compact JSON, or `(absent)`).
        a: String,
        /// The field's value in the second trace.
        b: String,
    },
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

impl std::fmt::Display for TraceDiff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceDiff::Identical { ticks } => write!(f, "identical ({ticks} ticks)"),
            TraceDiff::Differs {
                line,
                tick,
                field,
                a,
                b,
            } => write!(
                f,
                "first difference at tick {tick} (line {line}), field {field}: {a} vs {b}"
            ),
            TraceDiff::Length {
                common,
                a_ticks,
                b_ticks,
            } => write!(
                f,
                "identical for the first {common} ticks, then the lengths differ: {a_ticks} ticks vs {b_ticks} ticks"
            ),
        }
    }
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

/// Lines of a trace, blank lines skipped, with their one-based file line.
fn trace_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l))
}

/// Compares two traces (see the module docs).
pub fn diff_traces(a: &str, b: &str) -> Result<TraceDiff, TraceParseError> {
    let mut la = trace_lines(a);
    let mut lb = trace_lines(b);
    let mut common = 0;
    loop {
        match (la.next(), lb.next()) {
            (None, None) => return Ok(TraceDiff::Identical { ticks: common }),
            (Some(_), None) => {
                return Ok(TraceDiff::Length {
                    common,
                    a_ticks: common + 1 + la.count(),
                    b_ticks: common,
                });
            }
            (None, Some(_)) => {
                return Ok(TraceDiff::Length {
                    common,
                    a_ticks: common,
                    b_ticks: common + 1 + lb.count(),
                });
            }
            (Some((line_a, x)), Some((line_b, y))) => {
                if split_frame(x) != split_frame(y) {
                    return diff_lines(common + 1, (line_a, x), (line_b, y));
                }
                common += 1;
            }
        }
    }
}

fn parse_line(which: usize, line: usize, text: &str) -> Result<Value, TraceParseError> {
    serde_json::from_str(text).map_err(|e| TraceParseError {
        which,
        line,
        column: e.column(),
        message: e.to_string(),
    })
}

fn diff_lines(
    index: usize,
    (line_a, a): (usize, &str),
    (line_b, b): (usize, &str),
) -> Result<TraceDiff, TraceParseError> {
    let va = parse_line(0, line_a, a)?;
    let vb = parse_line(1, line_b, b)?;
    let tick = va
        .get("tick")
        .and_then(Value::as_u64)
        .unwrap_or(index as u64);
    let (field, x, y) = first_difference(&va, &vb, String::new()).unwrap_or_else(|| {
        // Same values, other text (spacing, key order): say so rather than nothing.
        ("(formatting)".to_string(), a.to_string(), b.to_string())
    });
    Ok(TraceDiff::Differs {
        line: index,
        tick,
        field,
        a: x,
        b: y,
    })
}

/// The order the trace writer emits keys in; others come after, alphabetically.
const KEY_ORDER: [&str; 22] = [
    "tick", "sim_time", "frame", "inputs", "contacts", "poses", "id", "a", "b", "kind", "key",
    "mouse", "button", "axis", "value", "x", "y", "angle", "vx", "vy", "w", "hash",
];

fn key_rank(key: &str) -> (usize, &str) {
    (
        KEY_ORDER
            .iter()
            .position(|k| *k == key)
            .unwrap_or(KEY_ORDER.len()),
        key,
    )
}

fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    if a.is_f64() != b.is_f64() {
        return false;
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x.to_bits() == y.to_bits(),
        _ => false,
    }
}

/// Path and both values of the first difference, walking in trace order.
fn first_difference(a: &Value, b: &Value, path: String) -> Option<(String, String, String)> {
    let differ = |path: String| Some((path, a.to_string(), b.to_string()));
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&str> = x.keys().chain(y.keys()).map(String::as_str).collect();
            keys.sort_by_key(|k| key_rank(k));
            keys.dedup();
            for key in keys {
                if key == "frame" && path.is_empty() {
                    continue;
                }
                let sub = if path.is_empty() {
                    key.to_string()
                } else {
                    format!("{path}.{key}")
                };
                match (x.get(key), y.get(key)) {
                    (Some(p), Some(q)) => {
                        if let Some(d) = first_difference(p, q, sub) {
                            return Some(d);
                        }
                    }
                    (p, q) => {
                        let show = |v: Option<&Value>| {
                            v.map_or_else(|| "(absent)".to_string(), Value::to_string)
                        };
                        return Some((sub, show(p), show(q)));
                    }
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(p, q, format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
            if x.len() != y.len() {
                return Some((
                    format!("{path}.length"),
                    x.len().to_string(),
                    y.len().to_string(),
                ));
            }
            None
        }
        (Value::Number(x), Value::Number(y)) => {
            if numbers_equal(x, y) {
                None
            } else {
                differ(path)
            }
        }
        _ => {
            if a == b {
                None
            } else {
                differ(path)
            }
        }
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
    match diff_traces(&a, &b) {
        Ok(d @ TraceDiff::Identical { .. }) => {
            println!("{d}");
            ExitCode::SUCCESS
        }
        Ok(d) => {
            println!("{d}");
            ExitCode::from(1)
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

/// One run of the check matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckCase {
    /// Frame deltas.
    pub pacing: Pacing,
    /// Hitches.
    pub stalls: Vec<Stall>,
    /// Step strategy.
    pub strategy: StepStrategy,
}

impl CheckCase {
    /// `60 Hz`, `irregular:3`, `60 Hz + 5 s stall at frame 30`.
    pub fn label(&self) -> String {
        let mut s = self.pacing.to_string();
        for stall in &self.stalls {
            s.push_str(&format!(
                " + {} s stall at frame {}",
                stall.seconds, stall.frame
            ));
        }
        s
    }
}

/// Frame at which the matrix's stalls happen (half a second in at 60 Hz).
pub const STALL_FRAME: u64 = 30;

/// The pacing matrix, reference (60 Hz, accumulator) first.
pub fn check_matrix() -> Vec<CheckCase> {
    let mut pacings: Vec<(Pacing, Vec<Stall>)> = vec![
        (Pacing::Rate(60.0), vec![]),
        (Pacing::Rate(30.0), vec![]),
        (Pacing::Rate(144.0), vec![]),
    ];
    for seed in 1..=4 {
        pacings.push((Pacing::Irregular(seed), vec![]));
    }
    for seconds in [1.0, 5.0] {
        pacings.push((
            Pacing::Rate(60.0),
            vec![Stall {
                frame: STALL_FRAME,
                seconds,
            }],
        ));
    }
    let mut cases = Vec::new();
    for strategy in StepStrategy::ALL {
        for (pacing, stalls) in &pacings {
            cases.push(CheckCase {
                pacing: pacing.clone(),
                stalls: stalls.clone(),
                strategy,
            });
        }
    }
    cases
}

/// What one run produced.
#[derive(Clone, Debug)]
pub struct CaseRun {
    /// Frames it took to reach the tick count.
    pub frames: u64,
    /// Dropped time, seconds.
    pub dropped_time: f64,
    /// Errors logged.
    pub errors: usize,
    /// The trace of ticks `1..=T`.
    pub trace: String,
}

/// Runs one case in memory until `ticks` ticks are complete and keeps the trace
/// of exactly those ticks.
pub fn run_case(
    scene: &Scene,
    registry: &Registry,
    recording: Option<&Recording>,
    case: &CheckCase,
    ticks: u64,
) -> Result<CaseRun, String> {
    let settings = TimeSettings {
        strategy: case.strategy,
        ..scene.settings.time
    };
    let mut pipeline = Pipeline::new(settings);
    pipeline
        .load_scene(scene, registry)
        .map_err(|e| e.to_string())?;
    if let Some(r) = recording {
        pipeline.set_tick_input(Some(Box::new(Replay::new(r.clone()))));
    }
    let writer = Arc::new(Mutex::new(TraceWriter::new(Vec::<u8>::new())));
    pipeline.set_tick_observer(Some(Box::new(writer.clone())));
    let plan = RunPlan {
        settings,
        pacer: FramePacer::new(&case.pacing, &case.stalls)?,
        length: RunLength::Ticks(ticks),
        realtime: false,
        sync_test: None,
    };
    let summary = run_plan(&mut pipeline, plan, &mut |_, _| Ok(()), &mut |_| {})
        .map_err(|e| e.to_string())?;
    pipeline.set_tick_observer(None);
    let bytes = {
        let mut w = writer.lock().unwrap_or_else(|p| p.into_inner());
        w.flush().map_err(|e| e.to_string())?;
        std::mem::take(w.get_mut())
    };
    let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
    let keep: usize = text
        .match_indices('\n')
        .nth(ticks.saturating_sub(1) as usize)
        .map_or(text.len(), |(i, _)| i + 1);
    Ok(CaseRun {
        frames: summary.frames,
        dropped_time: summary.dropped_time,
        errors: summary.errors.len(),
        trace: text[..keep].to_string(),
    })
}

/// The result of one case against the reference.
#[derive(Clone, Debug)]
pub struct CaseOutcome {
    /// The case.
    pub case: CheckCase,
    /// The run, or why it could not run.
    pub run: Result<CaseRun, String>,
    /// Comparison with the reference (None for the reference itself or a failed run).
    pub diff: Option<TraceDiff>,
}

/// Runs the matrix: the reference first, then the other cases on `jobs`
/// threads, each compared with the reference as soon as it finishes (so only
/// `jobs` traces are in memory at once besides the reference).
pub fn run_matrix(
    scene: &Scene,
    registry: &Registry,
    recording: Option<&Recording>,
    ticks: u64,
    jobs: usize,
) -> Vec<CaseOutcome> {
    let cases = check_matrix();
    let reference = run_case(scene, registry, recording, &cases[0], ticks);
    let reference_trace = reference.as_ref().ok().map(|r| r.trace.clone());
    let rest = &cases[1..];
    let slots: Vec<Mutex<Option<CaseOutcome>>> = rest.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, rest.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = rest.get(i) else { break };
                    let mut run = run_case(scene, registry, recording, case, ticks);
                    let diff = match (&mut run, &reference_trace) {
                        (Ok(r), Some(reference)) => {
                            let d = diff_traces(reference, &r.trace).unwrap_or_else(|e| {
                                TraceDiff::Differs {
                                    line: e.line,
                                    tick: e.line as u64,
                                    field: "(unparsable line)".into(),
                                    a: String::new(),
                                    b: e.message,
                                }
                            });
                            r.trace = String::new();
                            Some(d)
                        }
                        _ => None,
                    };
                    *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(CaseOutcome {
                        case: case.clone(),
                        run,
                        diff,
                    });
                }
            });
        }
    });
    let mut outcomes = vec![CaseOutcome {
        case: cases[0].clone(),
        run: reference,
        diff: None,
    }];
    outcomes.extend(
        slots
            .into_iter()
            .filter_map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner())),
    );
    outcomes
}

/// Runs check: exit 0 when every run matches the reference.
pub fn check(args: CheckArgs) -> ExitCode {
    let registry = registry();
    register_assets_root(&args.scene);
    let scene = match Scene::load(&args.scene, &registry) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("stepframe check: {e}");
            return ExitCode::from(2);
        }
    };
    let recording = match &args.input {
        Some(path) => match Recording::load(path) {
            Ok(r) => Some(r),
            Err(e) => {
                eprintln!("stepframe check: {e}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let ticks = args
        .ticks
        .or(recording.as_ref().map(|r| r.ticks))
        .unwrap_or(600)
        .max(1);
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(1)
    });
    let outcomes = run_matrix(&scene, &registry, recording.as_ref(), ticks, jobs);
    println!(
        "check {}{}: {} runs, ticks 1..={ticks} compared with 60 Hz / accumulator ({jobs} jobs)",
        args.scene.display(),
        args.input
            .as_ref()
            .map(|p| format!(" with {}", p.display()))
            .unwrap_or_default(),
        outcomes.len()
    );
    println!(
        "{:<36} {:<14} {:>7} {:>9} {:>6}  result",
        "pacing", "strategy", "frames", "dropped", "errors"
    );
    let mut failures = 0;
    for o in &outcomes {
        let (frames, dropped, errors) = match &o.run {
            Ok(r) => (
                r.frames.to_string(),
                format!("{:.3}", r.dropped_time),
                r.errors.to_string(),
            ),
            Err(_) => ("-".into(), "-".into(), "-".into()),
        };
        let result = match (&o.run, &o.diff) {
            (Err(e), _) => {
                failures += 1;
                format!("FAILED: {e}")
            }
            (Ok(_), None) => "reference".to_string(),
            (Ok(_), Some(TraceDiff::Identical { .. })) => "match".to_string(),
            (Ok(_), Some(d)) => {
                failures += 1;
                format!("DIFFERS: {d}")
            }
        };
        println!(
            "{:<36} {:<14} {:>7} {:>9} {:>6}  {result}",
            o.case.label(),
            o.case.strategy.name(),
            frames,
            dropped,
            errors
        );
    }
    if failures == 0 {
        println!(
            "all {} runs match the reference: the fixed logic is frame-rate independent",
            outcomes.len() - 1
        );
        ExitCode::SUCCESS
    } else {
        println!("{failures} run(s) do not match the reference");
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"tick":1,"sim_time":0.0,"frame":1,"inputs":[],"contacts":[],"poses":[{"id":3,"x":0.0,"y":1.0,"angle":0.0,"vx":0.0,"vy":-0.5,"w":0.0}],"hash":"00000000000000aa"}"#;

    #[test]
    fn frame_is_ignored() {
        let a = format!("{LINE}\n");
        let b = format!("{}\n", LINE.replace("\"frame\":1", "\"frame\":17"));
        assert_eq!(diff_traces(&a, &b), Ok(TraceDiff::Identical { ticks: 1 }));
    }

    #[test]
    fn the_first_field_in_trace_order_is_reported() {
        // vy and hash both differ; vy comes first in the line.
        let b = LINE
            .replace("\"vy\":-0.5", "\"vy\":-0.25")
            .replace("00aa", "00bb");
        assert_eq!(
            diff_traces(LINE, &b),
            Ok(TraceDiff::Differs {
                line: 1,
                tick: 1,
                field: "poses[0].vy".into(),
                a: "-0.5".into(),
                b: "-0.25".into(),
            })
        );
    }

    #[test]
    fn negative_zero_differs_from_zero() {
        let b = LINE.replace("\"angle\":0.0", "\"angle\":-0.0");
        match diff_traces(LINE, &b) {
            Ok(TraceDiff::Differs { field, .. }) => assert_eq!(field, "poses[0].angle"),
            other => panic!("expected a difference, got {other:?}"),
        }
    }

    #[test]
    fn a_missing_member_and_a_shorter_trace_are_reported() {
        let b = LINE.replace(",\"contacts\":[]", "");
        match diff_traces(LINE, &b) {
            Ok(TraceDiff::Differs { field, b, .. }) => {
                assert_eq!((field.as_str(), b.as_str()), ("contacts", "(absent)"));
            }
            other => panic!("expected a difference, got {other:?}"),
        }
        let two = format!("{LINE}\n{}\n", LINE.replace("\"tick\":1", "\"tick\":2"));
        assert_eq!(
            diff_traces(&two, LINE),
            Ok(TraceDiff::Length {
                common: 1,
                a_ticks: 2,
                b_ticks: 1
            })
        );
    }

    #[test]
    fn the_matrix_has_nine_pacings_under_two_strategies() {
        let m = check_matrix();
        assert_eq!(m.len(), 18);
        assert_eq!(m[0].pacing, Pacing::Rate(60.0));
        assert_eq!(m[0].strategy, StepStrategy::Accumulator);
        assert!(m[0].stalls.is_empty());
        let stalls: Vec<f64> = m
            .iter()
            .flat_map(|c| c.stalls.iter().map(|s| s.seconds))
            .collect();
        assert_eq!(stalls, vec![1.0, 5.0, 1.0, 5.0]);
    }
}
