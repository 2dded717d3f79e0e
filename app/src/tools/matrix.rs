//! The check matrix: which runs `stepframe check` makes, how one run goes, and
//! how the scene × pacing matrix is cut into shards.
//!
//! Every scene is run under the same 18 cases: 60, 30 and 144 Hz,
//! `irregular:1` to `irregular:4`, and 60 Hz with a 1 s and with a 5 s stall at
//! frame 30, each under the accumulator and under step counting. The first
//! case (60 Hz, accumulator) is the scene's reference.
//!
//! **Shards.** The whole matrix is the scenes in the order given, each with
//! its 18 cases in the order above: 3 scenes make 54 runs, numbered 0 to 53.
//! `--shard i/n` takes the i-th of n contiguous slices, from
//! `(i-1)·M/n` up to (not including) `i·M/n` in integer division: 54 runs in
//! 4 shards are 0..13, 13..27, 27..40 and 40..54, sizes differing by at most
//! one, together every run exactly once. Contiguous slices keep a shard on as
//! few scenes as possible, which matters because a shard holding some of a
//! scene's cases but not its reference runs that reference too (without
//! reporting it: the shard that owns it does).

use std::ops::Range;
use std::path::Path;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use stepframe_core::{
    HookBeacon, LogEntry, LogLevel, Pipeline, Recording, Registry, Replay, Scene, StepStrategy,
    TimeSettings, TraceWriter,
};

use crate::player::{FramePacer, Pacing, RunLength, RunPlan, Stall, run_plan};

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

    /// `60 Hz / accumulator`: the label with the strategy, unique in the matrix.
    pub fn name(&self) -> String {
        format!("{} / {}", self.label(), self.strategy.name())
    }
}

/// Frame at which the matrix's stalls happen (half a second in at 60 Hz).
pub const STALL_FRAME: u64 = 30;

/// The pacing matrix of one scene, reference (60 Hz, accumulator) first.
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

/// One run of the whole matrix: scene index (in the order given) and case
/// index (in [`check_matrix`] order; 0 is the scene's reference).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MatrixRun {
    /// Which scene.
    pub scene: usize,
    /// Which case of that scene's matrix.
    pub case: usize,
}

/// `0:3`: how a `check` child is told which run is its own.
impl FromStr for MatrixRun {
    type Err = String;
    fn from_str(s: &str) -> Result<MatrixRun, String> {
        let bad = || format!("`{s}`: expected <scene>:<case>, as in 0:3");
        let (scene, case) = s.split_once(':').ok_or_else(bad)?;
        Ok(MatrixRun {
            scene: scene.trim().parse().map_err(|_| bad())?,
            case: case.trim().parse().map_err(|_| bad())?,
        })
    }
}

impl std::fmt::Display for MatrixRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.scene, self.case)
    }
}

/// The i-th of n slices of the matrix (module docs), `i` counting from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which slice, 1..=count.
    pub index: usize,
    /// How many slices.
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("`{s}`: expected <i>/<n> with 1 <= i <= n, as in 2/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// The whole matrix as one shard.
    pub const ALL: Shard = Shard { index: 1, count: 1 };

    /// This shard's positions in a matrix of `total` runs.
    pub fn slice(&self, total: usize) -> Range<usize> {
        (self.index - 1) * total / self.count..self.index * total / self.count
    }

    /// This shard's runs of the matrix of `scenes` scenes, in matrix order.
    pub fn runs(&self, scenes: usize) -> Vec<MatrixRun> {
        let cases = check_matrix().len();
        self.slice(scenes * cases)
            .map(|k| MatrixRun {
                scene: k / cases,
                case: k % cases,
            })
            .collect()
    }
}

/// What one run produced.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseRun {
    /// Frames it took to reach the tick count.
    pub frames: u64,
    /// Dropped time, seconds.
    pub dropped_time: f64,
    /// Error lines logged (hook panics, rejected writes), in order.
    pub errors: Vec<LoggedError>,
    /// The trace of ticks `1..=T`, with subsystem hashes.
    pub trace: String,
}

impl CaseRun {
    /// The errors that fail the run: all but those of objects that carry a
    /// `Faulty` behaviour, which are injected on purpose (the rule of
    /// `stepframe play`'s exit codes).
    pub fn unexpected_errors(&self) -> impl Iterator<Item = &LoggedError> {
        self.errors.iter().filter(|e| !e.injected)
    }
}

/// One error line of a run's log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedError {
    /// The line as the log prints it (tick, frame, object, hook, message).
    pub line: String,
    /// Whether its object carries a `Faulty` behaviour (an injected fault).
    pub injected: bool,
}

/// Runs one case in memory until `ticks` ticks are complete and keeps the trace
/// of exactly those ticks, with subsystem hashes (for the report; the verdict
/// leaves them out).
///
/// `watch` is the hook beacon of a supervised child and its scene file
/// (`crate::player::supervise`); `None` for a run among others in one
/// process (a beacon has one writer).
pub fn run_case(
    scene: &Scene,
    registry: &Registry,
    recording: Option<&Recording>,
    case: &CheckCase,
    ticks: u64,
    watch: Option<(&HookBeacon, &Path)>,
) -> Result<CaseRun, String> {
    let settings = TimeSettings {
        strategy: case.strategy,
        ..scene.settings.time
    };
    let mut pipeline = Pipeline::new(settings);
    pipeline
        .load_scene(scene, registry)
        .map_err(|e| e.to_string())?;
    if let Some((beacon, path)) = watch {
        crate::player::supervise::watch_session(&mut pipeline, Some(beacon), Some(path));
    }
    if let Some(r) = recording {
        let replay = Replay::with_registry(r.clone(), registry)
            .map_err(|e| format!("an edit of the recording does not fit the scene: {e}"))?;
        pipeline.set_tick_input(Some(Box::new(replay)));
    }
    let writer = Arc::new(Mutex::new(
        TraceWriter::new(Vec::<u8>::new()).with_subsystem_hashes(),
    ));
    pipeline.set_tick_observer(Some(Box::new(writer.clone())));
    let plan = RunPlan {
        settings,
        pacer: FramePacer::new(&case.pacing, &case.stalls).map_err(|e| e.to_string())?,
        length: RunLength::Ticks(ticks),
        realtime: false,
        sync_test: None,
    };
    let injectors = crate::player::fault_injectors(scene);
    let mut errors = Vec::new();
    let mut on_log = |entry: &LogEntry| {
        if entry.level == LogLevel::Error {
            errors.push(LoggedError {
                line: entry.to_string(),
                injected: entry.object.is_some_and(|o| injectors.contains(&o)),
            });
        }
    };
    // The run takes the pipeline (its observer's handle on the writer goes
    // with it when the run ends).
    let summary =
        run_plan(pipeline, plan, &mut |_, _| Ok(()), &mut on_log).map_err(|e| e.to_string())?;
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
        errors,
        trace: text[..keep].to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn shards_parse_as_i_of_n() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "2", "a/b", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn four_shards_of_fifty_four_runs_are_the_documented_slices() {
        let slices: Vec<Range<usize>> = (1..=4)
            .map(|index| Shard { index, count: 4 }.slice(54))
            .collect();
        assert_eq!(slices, vec![0..13, 13..27, 27..40, 40..54]);
    }
}
