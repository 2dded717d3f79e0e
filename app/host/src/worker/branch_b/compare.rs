//! "Compare with…": run B is a trace file, or the run so far as the rewind
//! history holds it, measured against the live session A. Every tick A
//! completes is measured against B's record of the same tick in the tick
//! observer; the ticks A ran before the comparison began are measured by
//! replaying the kept history span by span in a scratch pipeline (the live
//! session is not touched), so the divergence lane covers everything rewind
//! can reach. A tick B does not hold is not measured.

use std::path::Path;
use std::sync::Arc;

use stepframe_core::Pipeline;

use super::super::Worker;
use super::super::tap::TickTap;
use super::Kind;
use crate::protocol::{BName, BranchEvent, Event, HostError, RUN_BATCH_TICKS};
use crate::traced::{TickDivergence, TracePoses, TracedTick, compare, traced_tick};

impl Worker {
    /// Compares the live session with the trace at `path` from now on, and
    /// measures the kept history against it at once.
    pub(in crate::worker) fn compare_with(&mut self, path: &Path) {
        let b = match TracePoses::load(path) {
            Ok(b) if b.is_empty() => {
                self.out.error(HostError::CompareEmpty(path.to_path_buf()));
                return;
            }
            Ok(b) => Arc::new(b),
            Err(e) => {
                self.out.error(HostError::Compare(e.to_string()));
                return;
            }
        };
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let mut past = Vec::new();
        let scanned = self.kept_ticks(|a| {
            if let Some(theirs) = b.at(a.tick) {
                past.push(compare(&a, theirs));
            }
        });
        if let Err(e) = scanned {
            self.out.error(HostError::History(e));
        }
        let ticks = b.range().unwrap_or_default();
        self.start_comparing(BName::Trace(name), ticks, b, past);
    }

    /// Compares the live session with `b`, a run another host sent (an old
    /// build's), from now on, and measures the kept history against it.
    pub(in crate::worker) fn compare_with_ticks(&mut self, name: String, b: TracePoses) {
        let Some(ticks) = b.range() else {
            self.out.error(HostError::CompareEmpty(name.into()));
            return;
        };
        let mut past = Vec::new();
        if let Err(e) = self.kept_ticks(|a| {
            if let Some(theirs) = b.at(a.tick) {
                past.push(compare(&a, theirs));
            }
        }) {
            self.out.error(HostError::History(e));
        }
        self.start_comparing(BName::OldBuild(name), ticks, Arc::new(b), past);
    }

    /// Sends the run so far, up to the end of tick `upto`, in batches.
    pub(in crate::worker) fn send_run(&mut self, upto: u64) {
        let mut kept = Vec::new();
        let scanned = self.kept_ticks(|t| {
            if t.tick <= upto {
                kept.push(t);
            }
        });
        if let Err(e) = scanned {
            self.out.error(HostError::History(e));
        }
        let mut rest = kept.into_iter().peekable();
        loop {
            let ticks: Vec<TracedTick> = rest.by_ref().take(RUN_BATCH_TICKS).collect();
            let last = rest.peek().is_none();
            self.out
                .event(Event::BranchB(BranchEvent::Run { ticks, last }));
            if last {
                break;
            }
        }
    }

    /// Keeps the run so far (as far back as the rewind history reaches) as
    /// run B: a rewind and another input or edit then shows where the new
    /// branch parts from it.
    pub(in crate::worker) fn compare_with_run(&mut self) {
        let mut b = TracePoses::default();
        let mut same = Vec::new();
        if let Err(e) = self.kept_ticks(|t| {
            same.push(TickDivergence {
                tick: t.tick,
                frame: t.frame,
                ..TickDivergence::default()
            });
            b.push(t);
        }) {
            self.out.error(HostError::History(e));
            return;
        }
        let Some((first, last)) = b.range() else {
            self.out.error(HostError::NothingToKeep);
            return;
        };
        self.start_comparing(
            BName::ThisRun(first, last),
            (first, last),
            Arc::new(b),
            same,
        );
    }

    fn start_comparing(
        &mut self,
        name: BName,
        ticks: (u64, u64),
        b: Arc<TracePoses>,
        past: Vec<TickDivergence>,
    ) {
        self.start_branch(Kind::Comparison(b), name.clone(), None);
        self.out
            .event(Event::BranchB(BranchEvent::Comparing { name, ticks }));
        self.branch.measured.extend(past);
        self.drain_branch();
    }

    /// Every kept tick of the history, oldest first, as a trace records it:
    /// each keyframe's own tick, then the ticks replayed after it up to the
    /// next keyframe (or the live tick), in a scratch pipeline.
    fn kept_ticks(&self, mut each: impl FnMut(TracedTick)) -> Result<(), String> {
        let session = &self.run.session;
        let live = session.pipeline().clock().simulation_tick;
        let keyframes: Vec<u64> = session.history().keyframe_ticks().collect();
        for (i, &start) in keyframes.iter().enumerate() {
            let end = keyframes
                .get(i + 1)
                .map_or(live, |&next| next - 1)
                .min(live);
            let mut scratch = Pipeline::new(self.run.next_settings());
            session
                .replay_into(&mut scratch, start)
                .map_err(|e| e.to_string())?;
            if start > 0 {
                each(traced_tick(
                    start,
                    scratch.clock().frame_index,
                    scratch.world(),
                ));
            }
            if end > start {
                let (tx, rx) = crossbeam_channel::unbounded();
                scratch.set_tick_observer(Some(Box::new(TickTap {
                    tx,
                    compare: None,
                    trace: true,
                    hashing: None,
                })));
                session
                    .replay_into(&mut scratch, end)
                    .map_err(|e| e.to_string())?;
                scratch.set_tick_observer(None);
                for t in rx
                    .try_iter()
                    .filter_map(|news| news.traced)
                    .filter(|t| t.tick > start && t.tick <= end)
                {
                    each(t);
                }
            }
        }
        Ok(())
    }
}
