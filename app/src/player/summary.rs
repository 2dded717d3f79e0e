//! What a run did ([`RunSummary`]) or why it stopped early
//! ([`RunFailure`]), and the summary `stepframe play` prints at the end: frames,
//! ticks, simulated and dropped time, the final hash, the sync test's count,
//! resumed suspensions, and every error line (those of `Faulty` objects are
//! injected on purpose and do not fail the run).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use stepframe_core::{LogEntry, ObjectId, Scene, SyncFailure};

use crate::compare::tick::TickDiff;
use crate::tools::report::Sides;
use crate::tools::trace_diff::diff_trace_lines;

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct RunSummary {
    /// Outer frames run.
    pub frames: u64,
    /// Ticks completed.
    pub ticks: u64,
    /// Simulation time at the end, seconds.
    pub simulation_time: f64,
    /// Cumulative dropped time, seconds.
    pub dropped_time: f64,
    /// State hash at the end.
    pub final_hash: u64,
    /// Suspensions (requested breaks, faults) the headless player resumed.
    pub resumed_suspensions: u64,
    /// Error lines of the log (hook panics, rejected commands).
    pub errors: Vec<LogEntry>,
    /// Ticks compared by the sync test.
    pub sync_checks: u64,
}

/// Why a run stopped early.
#[derive(Debug)]
pub enum RunFailure {
    /// The sync test found a re-simulated tick with another hash.
    SyncMismatch {
        /// The first mismatching tick.
        tick: u64,
        /// Hash of the first run.
        expected: u64,
        /// Hash after rollback and re-simulation.
        actual: u64,
        /// The first re-simulated tick whose record (subsystem hashes
        /// included) differs from the first run's, field by field: what
        /// `trace-diff` would say of the two runs' traces.
        report: Option<Box<TickDiff>>,
    },
    /// Re-simulation completed a tick the first run never reached.
    SyncExtraTick(u64),
    /// The run stopped making progress: `frames` in a row without `waiting_for`
    /// (a tick, display time), or a frame that kept suspending.
    Stuck {
        /// Frames (or resumes of one frame) without progress.
        frames: u64,
        /// What never came.
        waiting_for: &'static str,
    },
    /// The run could never end (refused before it started), and why.
    NeverEnds(String),
    /// An output could not be written, or settings were refused.
    Output(String),
}

impl std::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunFailure::SyncMismatch {
                tick,
                expected,
                actual,
                report,
            } => {
                write!(
                    f,
                    "sync test: first mismatch at tick {tick}: re-simulated hash {actual:016x}, first run {expected:016x}"
                )?;
                match report {
                    Some(r) => write!(f, "\n{}", r.report(Sides::SYNC_TEST)),
                    None => Ok(()),
                }
            }
            RunFailure::SyncExtraTick(tick) => write!(
                f,
                "sync test: re-simulation completed tick {tick}, which the first run never reached"
            ),
            RunFailure::Stuck {
                frames,
                waiting_for,
            } => write!(
                f,
                "no progress: {frames} frames in a row without {waiting_for}; the run could never end"
            ),
            RunFailure::NeverEnds(why) => write!(f, "the run could never end: {why}"),
            RunFailure::Output(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for RunFailure {}

impl From<SyncFailure> for RunFailure {
    fn from(f: SyncFailure) -> RunFailure {
        match f {
            SyncFailure::Mismatch {
                tick,
                expected,
                actual,
                lines,
            } => RunFailure::SyncMismatch {
                tick,
                expected,
                actual,
                // The first re-simulated line that differs by trace-diff's
                // rule, field by field.
                report: lines.iter().find_map(|(t, first, resim)| {
                    diff_trace_lines(*t as usize, first, resim)
                        .ok()
                        .flatten()
                        .map(Box::new)
                }),
            },
            SyncFailure::ExtraTick(tick) => RunFailure::SyncExtraTick(tick),
            SyncFailure::NeverEnds(e) => RunFailure::Stuck {
                frames: e.resumes,
                waiting_for: "the end of a re-simulated frame that suspends on every resume",
            },
            SyncFailure::Stuck(e) => RunFailure::Stuck {
                frames: e.resumes,
                waiting_for: "the end of a frame that suspends on every resume",
            },
        }
    }
}

/// Objects of the scene that carry a `Faulty` behaviour: their errors are
/// injected on purpose (see the module docs, exit codes).
pub(crate) fn fault_injectors(scene: &Scene) -> BTreeSet<ObjectId> {
    scene
        .all_objects()
        .into_iter()
        .filter(|o| o.behaviours.iter().any(|b| b.name == "Faulty"))
        .map(|o| ObjectId(o.id))
        .collect()
}

pub(super) fn print_summary(scene: &Path, s: &RunSummary, sync_test: Option<u64>) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "played {}: {} frames, {} ticks ({} s simulated), dropped {} s, final hash {:016x}",
        scene.display(),
        s.frames,
        s.ticks,
        s.simulation_time,
        s.dropped_time,
        s.final_hash
    );
    if let Some(n) = sync_test {
        let _ = writeln!(
            out,
            "sync test: rolled back {n} ticks every frame, {} re-simulated ticks matched",
            s.sync_checks
        );
    }
    if s.resumed_suspensions > 0 {
        let _ = writeln!(
            out,
            "resumed {} suspension(s) (headless: breaks do not stop the run)",
            s.resumed_suspensions
        );
    }
    if s.errors.is_empty() {
        let _ = writeln!(out, "errors: none");
    } else {
        let _ = writeln!(out, "errors: {}", s.errors.len());
        for e in &s.errors {
            let _ = writeln!(out, "  {e}");
        }
    }
}
