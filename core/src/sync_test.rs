//! The sync test: proof that a snapshot holds all of a session's state.
//!
//! GGRS's `SyncTestSession` is the model. After every frame that ran a tick,
//! [`SyncTest`] rolls the session back to the newest frame boundary at least
//! `distance` ticks ago ([`Pipeline::restore`]), runs the same frames again
//! (same deltas, resumed as a headless run resumes them) and compares every
//! re-simulated tick's state hash with the first run's. State a snapshot does
//! not hold (a behaviour counting in a global, an engine cache) makes a
//! re-simulated tick differ, and the first such tick is named. The session is
//! left exactly where the first run left it.
//!
//! Worked example, distance 2 at 60 Hz (one tick per frame): frame 1 rolls
//! back to the session start and re-runs tick 1; frame f ≥ 2 rolls back to the
//! boundary before tick f − 1 and re-runs ticks f − 1 and f. Twenty frames
//! compare 1 + 19 × 2 = 39 ticks.
//!
//! Every tick's trace line (with the opt-in subsystem hashes) is kept too, so
//! a mismatch comes with the first re-simulated line that differs from the
//! first run's: the material of a field-by-field report (the CLI's
//! `trace-diff` turns it into one). That line can come before the first hash
//! mismatch: the RNG and the input memory are in the subsystem hashes, not
//! in the tick hash.
//!
//! Use: [`SyncTest::attach`] once, then around every frame
//! [`SyncTest::before_frame`] and [`SyncTest::after_frame`].

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::headless::{FrameNeverEnds, run_frame};
use crate::pipeline::{Pipeline, Snapshot, TimeSettings};
use crate::trace::{SubsystemHashes, TickObserver, TickRecord};
use crate::trace_writer::write_trace_line_with_subsystems;

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
    #[error("sync test: {0}")]
    NeverEnds(#[from] FrameNeverEnds),
}

/// The sync test's memory: recent frame boundaries and the first run's ticks
/// (module docs).
#[derive(Debug)]
pub struct SyncTest {
    distance: u64,
    max_resumes: u64,
    checkpoints: VecDeque<Checkpoint>,
    /// Hashes and trace lines of the kept timeline, by tick.
    first_run: BTreeMap<u64, (u64, String)>,
    /// Shared with the pipeline's observer during normal frames.
    log: Arc<Mutex<HashLog>>,
    checks: u64,
    resumes: u64,
}

impl SyncTest {
    /// A test rolling back at least `distance` ticks (1 or more), resuming a
    /// re-simulated frame at most `max_resumes` times.
    pub fn new(distance: u64, max_resumes: u64) -> SyncTest {
        SyncTest {
            distance: distance.max(1),
            max_resumes,
            checkpoints: VecDeque::new(),
            first_run: BTreeMap::new(),
            log: Arc::default(),
            checks: 0,
            resumes: 0,
        }
    }

    /// Adds the test's observer beside the pipeline's own (kept first).
    pub fn attach(&self, p: &mut Pipeline) {
        let mut observers: Vec<Box<dyn TickObserver>> = Vec::new();
        if let Some(main) = p.take_tick_observer() {
            observers.push(main);
        }
        observers.push(Box::new(self.log.clone()));
        p.set_tick_observer(Some(Box::new(observers)));
    }

    /// Remembers the boundary before a frame of `dt` seconds.
    pub fn before_frame(&mut self, p: &Pipeline, dt: f64) {
        self.checkpoints.push_back(Checkpoint {
            snapshot: p.snapshot(),
            ticks_before: p.stepper().completed_ticks(),
            dt,
        });
    }

    /// After a frame that ran at least one tick: rolls back at least
    /// `distance` ticks, re-simulates to now and compares (module docs).
    /// `settings` are the run's time settings (a restore brings back the ones
    /// in force at the snapshot).
    pub fn after_frame(
        &mut self,
        p: &mut Pipeline,
        settings: TimeSettings,
    ) -> Result<(), SyncFailure> {
        for t in lock(&self.log).ticks.drain(..) {
            self.first_run.insert(t.tick, (t.hash, t.line));
        }
        let now = p.stepper().completed_ticks();
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
        let before = p.state_hash();

        let main_observer = p.take_tick_observer();
        let resim = Arc::new(Mutex::new(HashLog::default()));
        p.set_tick_observer(Some(Box::new(resim.clone())));
        p.restore(&first.snapshot);
        // A restore keeps the settings in force at the snapshot, not pending
        // ones; the run's are valid (they ran).
        let _ = p.set_settings(settings);
        let mut replayed = Ok(());
        for c in &self.checkpoints {
            match run_frame(p, c.dt, self.max_resumes) {
                Ok(frame) => self.resumes += frame.resumes,
                Err(e) => {
                    replayed = Err(e);
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
