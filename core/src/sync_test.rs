//! The sync test: proof that a snapshot holds all of a session's state.
//!
//! GGRS's `SyncTestSession` is the model. [`SyncTest`] owns the session (its
//! [`Pipeline`]) and advances it itself, a frame per
//! [`SyncTest::advance_frame`]: the caller gives the frame's delta and reads
//! the session between calls; it never sequences a snapshot, a rollback or a
//! comparison. Before each frame, if the frame before ran a tick, the test
//! rolls the session back to the newest frame boundary at least `distance`
//! ticks ago ([`Pipeline::restore`]), runs the same frames again (same
//! deltas, resumed as a headless run resumes them) and compares every
//! re-simulated tick's state hash with the first run's. State a snapshot does
//! not hold (a behaviour counting in a global, an engine cache) makes a
//! re-simulated tick differ, and the first such tick is named. The session is
//! left exactly where the first run left it; [`SyncTest::finish`] checks the
//! last frame the same way.
//!
//! The check of a frame comes at the start of the next call, as in GGRS, so
//! that between two calls the session shows the first run of the frame just
//! advanced: its report, its flame zones ([`Pipeline::zones`]) and its log
//! lines ([`SyncTest::drain_log`]), not the re-simulation's.
//!
//! Worked example, distance 2 at 60 Hz (one tick per frame): frame 1 rolls
//! back to the session start and re-runs tick 1; frame f ≥ 2 rolls back to the
//! boundary before tick f − 1 and re-runs ticks f − 1 and f. Twenty frames
//! (the last checked by `finish`) compare 1 + 19 × 2 = 39 ticks.
//!
//! Every tick's trace line (with the opt-in subsystem hashes) is kept too, so
//! a mismatch comes with the first re-simulated line that differs from the
//! first run's: the material of a field-by-field report (the CLI's
//! `trace-diff` turns it into one). That line can come before the first hash
//! mismatch: the RNG and the input memory are in the subsystem hashes, not
//! in the tick hash.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::headless::{FrameNeverEnds, WholeFrame, run_frame};
use crate::pipeline::{Pipeline, Snapshot};
use crate::trace::{SubsystemHashes, TickObserver, TickRecord};
use crate::trace_writer::write_trace_line_with_subsystems;
use crate::world::LogEntry;

/// One completed tick as the sync test keeps it.
#[derive(Debug)]
struct TickLog {
    tick: u64,
    /// Its state hash (what is compared).
    hash: u64,
    /// Its trace line with subsystem hashes (what a report compares).
    line: String,
}

/// Collects every completed tick's hash and trace line.
#[derive(Debug, Default)]
struct HashLog {
    ticks: Vec<TickLog>,
    /// Reused subsystem hashes.
    scratch: SubsystemHashes,
}

impl TickObserver for HashLog {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        record.state.subsystem_hashes(&mut self.scratch);
        let mut line = String::new();
        write_trace_line_with_subsystems(&mut line, record, &self.scratch);
        self.ticks.push(TickLog {
            tick: record.clock.simulation_tick,
            hash: record.hash,
            line,
        });
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A poisoned log still holds the best record there is.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A frame boundary the test can roll back to.
#[derive(Debug)]
struct Checkpoint {
    /// State before the frame.
    snapshot: Snapshot,
    /// Ticks completed before the frame.
    ticks_before: u64,
    /// The frame's raw delta.
    dt: f64,
}

/// Why the sync test failed.
#[derive(Debug, thiserror::Error)]
pub enum SyncFailure {
    /// A re-simulated tick has another hash than the first run's.
    #[error(
        "sync test: first mismatch at tick {tick}: re-simulated hash {actual:016x}, first run {expected:016x}"
    )]
    Mismatch {
        /// The first mismatching tick.
        tick: u64,
        /// Hash of the first run.
        expected: u64,
        /// Hash after rollback and re-simulation.
        actual: u64,
        /// The re-simulated ticks whose trace line (subsystem hashes
        /// included) is not the first run's text, in tick order: `(tick, first
        /// run's line, re-simulated line)`. A report takes the first that
        /// differs by its comparison rule.
        lines: Vec<(u64, String, String)>,
    },
    /// Re-simulation completed a tick the first run never reached.
    #[error("sync test: re-simulation completed tick {0}, which the first run never reached")]
    ExtraTick(u64),
    /// A re-simulated frame kept suspending.
    #[error("sync test: a re-simulated frame never ended: {0}")]
    NeverEnds(FrameNeverEnds),
    /// A frame of the run itself (not a re-simulation) kept suspending.
    #[error("{0}")]
    Stuck(FrameNeverEnds),
}

/// A session under the sync test: the pipeline, recent frame boundaries and
/// the first run's ticks (module docs).
#[derive(Debug)]
pub struct SyncTest {
    /// The session; the test steps it, restores it and re-simulates it.
    pipeline: Pipeline,
    /// Ticks rolled back at least, at every check.
    distance: u64,
    /// Resumes of one frame (first run or re-simulated) before giving up.
    max_resumes: u64,
    /// Frame boundaries a check may roll back to, oldest first.
    checkpoints: VecDeque<Checkpoint>,
    /// Hashes and trace lines of the kept timeline, by tick.
    first_run: BTreeMap<u64, (u64, String)>,
    /// Shared with the pipeline's observer during first-run frames.
    log: Arc<Mutex<HashLog>>,
    /// The last frame ran a tick and was not checked yet.
    unchecked: bool,
    /// Log lines of the first run, taken out before a rollback (the
    /// re-simulation's own lines are dropped), until [`SyncTest::drain_log`].
    first_run_log: Vec<LogEntry>,
    /// Ticks compared so far.
    checks: u64,
    /// Suspensions resumed while re-simulating (a first-run frame's are in
    /// its [`WholeFrame`]).
    resumes: u64,
}

impl SyncTest {
    /// `pipeline` under a test rolling back at least `distance` ticks (1 or
    /// more), resuming a frame at most `max_resumes` times. Its own tick
    /// observer (a trace, a recorder) stays, first, and sees the first run
    /// only: it is taken out while the test re-simulates.
    pub fn new(mut pipeline: Pipeline, distance: u64, max_resumes: u64) -> SyncTest {
        let log: Arc<Mutex<HashLog>> = Arc::default();
        let mut observers: Vec<Box<dyn TickObserver>> = Vec::new();
        if let Some(main) = pipeline.take_tick_observer() {
            observers.push(main);
        }
        observers.push(Box::new(log.clone()));
        pipeline.set_tick_observer(Some(Box::new(observers)));
        SyncTest {
            pipeline,
            distance: distance.max(1),
            max_resumes,
            checkpoints: VecDeque::new(),
            first_run: BTreeMap::new(),
            log,
            unchecked: false,
            first_run_log: Vec::new(),
            checks: 0,
            resumes: 0,
        }
    }

    /// One outer frame of `dt` seconds, run to its end (every suspension
    /// resumed, as a headless run does), after checking the frame before it
    /// if that one ran a tick (module docs). The report is the first run's.
    pub fn advance_frame(&mut self, dt: f64) -> Result<WholeFrame, SyncFailure> {
        self.finish()?;
        let p = &mut self.pipeline;
        self.checkpoints.push_back(Checkpoint {
            snapshot: p.snapshot(),
            ticks_before: p.stepper().completed_ticks(),
            dt,
        });
        let frame = run_frame(p, dt, self.max_resumes).map_err(SyncFailure::Stuck)?;
        self.unchecked = frame.report.ticks > 0;
        Ok(frame)
    }

    /// Checks the last frame now, if it ran a tick and was not checked yet
    /// ([`SyncTest::advance_frame`] checks it at the start of the next
    /// frame): the end of a run.
    pub fn finish(&mut self) -> Result<(), SyncFailure> {
        if !std::mem::take(&mut self.unchecked) {
            return Ok(());
        }
        self.check()
    }

    /// The session, to read between frames (its clock, state hash, zones).
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// The first run's log lines since the last drain (re-simulations
    /// write none).
    pub fn drain_log(&mut self) -> Vec<LogEntry> {
        let mut lines = std::mem::take(&mut self.first_run_log);
        lines.extend(self.pipeline.drain_log());
        lines
    }

    /// Rolls back at least `distance` ticks, re-simulates to now and
    /// compares (module docs).
    fn check(&mut self) -> Result<(), SyncFailure> {
        for t in lock(&self.log).ticks.drain(..) {
            self.first_run.insert(t.tick, (t.hash, t.line));
        }
        let now = self.pipeline.stepper().completed_ticks();
        let target = now.saturating_sub(self.distance);
        // The newest boundary at least `distance` ticks back, else the oldest.
        let start = self
            .checkpoints
            .iter()
            .rposition(|c| c.ticks_before <= target)
            .unwrap_or(0);
        // Older boundaries are never needed again.
        self.checkpoints.drain(..start);
        let Some(first) = self.checkpoints.front() else {
            return Ok(());
        };
        let oldest_tick = first.ticks_before;
        let p = &mut self.pipeline;
        self.first_run_log.extend(p.drain_log());
        let before = p.state_hash();

        let main_observer = p.take_tick_observer();
        let resim = Arc::new(Mutex::new(HashLog::default()));
        p.set_tick_observer(Some(Box::new(resim.clone())));
        // The snapshot holds the time settings with any change still waiting
        // for the frame boundary: the re-simulation runs with what ran.
        p.restore(&first.snapshot);
        let mut replayed = Ok(());
        for c in &self.checkpoints {
            match run_frame(p, c.dt, self.max_resumes) {
                Ok(frame) => self.resumes += frame.resumes,
                Err(e) => {
                    replayed = Err(SyncFailure::NeverEnds(e));
                    break;
                }
            }
        }
        let _ = p.drain_log();
        p.set_tick_observer(main_observer);
        replayed?;

        let resim = std::mem::take(&mut lock(&resim).ticks);
        for t in &resim {
            self.checks += 1;
            match self.first_run.get(&t.tick) {
                Some(&(expected, _)) if expected == t.hash => {}
                Some(&(expected, _)) => {
                    return Err(SyncFailure::Mismatch {
                        tick: t.tick,
                        expected,
                        actual: t.hash,
                        lines: self.differing_lines(&resim),
                    });
                }
                None => return Err(SyncFailure::ExtraTick(t.tick)),
            }
        }
        let p = &self.pipeline;
        let after = p.state_hash();
        if after != before || p.stepper().completed_ticks() != now {
            return Err(SyncFailure::Mismatch {
                tick: now,
                expected: before,
                actual: after,
                lines: self.differing_lines(&resim),
            });
        }
        self.first_run = self.first_run.split_off(&oldest_tick);
        Ok(())
    }

    /// Ticks compared so far.
    pub fn checks(&self) -> u64 {
        self.checks
    }

    /// Suspensions resumed while re-simulating.
    pub fn resumes(&self) -> u64 {
        self.resumes
    }

    /// The re-simulated ticks whose line is not the first run's text.
    fn differing_lines(&self, resim: &[TickLog]) -> Vec<(u64, String, String)> {
        resim
            .iter()
            .filter_map(|t| {
                let (_, first) = self.first_run.get(&t.tick)?;
                (*first != t.line).then(|| (t.tick, first.clone(), t.line.clone()))
            })
            .collect()
    }
}
