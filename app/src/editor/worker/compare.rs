//! The worker's side of "Compare with…": run B (a trace file, or the run so
//! far as the rewind history holds it) against the live session A. Every
//! tick A completes is measured against B's record of the same tick in the
//! tick observer; the ticks A ran before the comparison began are measured
//! by replaying the kept history span by span in a scratch pipeline (the
//! live session is not touched), so the divergence lane covers everything
//! rewind can reach. A tick B does not hold is not measured.

use std::path::Path;
use std::sync::Arc;

use stepframe_core::Pipeline;

use super::Worker;
use super::tap::TickTap;
use crate::compare::poses::{TickDivergence, TracePoses, TracedTick, compare, traced_tick};
use crate::editor::protocol::{Event, RunB};

impl Worker {
    /// Compares the live session with the trace at `path` from now on, and
    /// measures the kept history against it at once.
    pub(super) fn compare_with(&mut self, path: &Path) {
        match TracePoses::load(path) {
            Ok(b) if b.is_empty() => self.error(format!(
                "cannot compare with {}: it holds no tick",
                path.display()
            )),
            Ok(b) => {
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                let b = Arc::new(b);
                let mut past = Vec::new();
                let scanned = self.kept_ticks(|a| {
                    if let Some(theirs) = b.at(a.tick) {
                        past.push(compare(&a, theirs));
                    }
                });
                if let Err(e) = scanned {
                    self.error(format!("the kept history could not be measured: {e}"));
                }
                self.start_comparing(name, b, past);
            }
            Err(e) => self.error(format!("cannot compare: {e}")),
        }
    }

    /// Keeps the run so far (as far back as the rewind history reaches) as
    /// run B: a rewind and another input or edit then shows where the new
    /// branch parts from it.
    pub(super) fn compare_with_run(&mut self) {
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
            self.error(format!("the run could not be kept: {e}"));
            return;
        }
        if b.is_empty() {
            self.error("no tick to keep yet: play first".to_string());
            return;
        }
        let (first, last) = b.range().unwrap_or_default();
        self.start_comparing(format!("this run, ticks {first}–{last}"), Arc::new(b), same);
    }

    /// Ends the comparison (a what-if branch's too: B is dropped).
    pub(super) fn stop_comparing(&mut self) {
        if self.fork.is_some() {
            self.discard_fork(true);
        } else if self.comparing.take().is_some() {
            self.run_b = None;
            self.install_observer();
            self.send_event(Event::CompareStopped);
        }
    }

    fn start_comparing(&mut self, name: String, b: Arc<TracePoses>, past: Vec<TickDivergence>) {
        // One run B at a time: a comparison replaces a what-if branch.
        self.discard_fork(true);
        self.comparing = Some(b.clone());
        self.run_b = Some(RunB {
            name: name.clone(),
            forked_at: None,
            first: None,
        });
        self.install_observer();
        self.send_event(Event::Comparing { name, trace: b });
        self.send_divergences(past);
    }

    /// Sends measured ticks, noting the first where A and B part.
    pub(super) fn send_divergences(&mut self, batch: Vec<TickDivergence>) {
        if let Some(b) = self.run_b.as_mut() {
            note_parting(&mut b.first, &batch);
        }
        self.send_event(Event::Divergence(batch));
    }

    /// Every kept tick of the history, oldest first, as a trace records it:
    /// each keyframe's own tick, then the ticks replayed after it up to the
    /// next keyframe (or the live tick), in a scratch pipeline.
    fn kept_ticks(&self, mut each: impl FnMut(TracedTick)) -> Result<(), String> {
        let live = self.session.pipeline().clock().simulation_tick;
        let keyframes: Vec<u64> = self.session.history().keyframe_ticks().collect();
        for (i, &start) in keyframes.iter().enumerate() {
            let end = keyframes
                .get(i + 1)
                .map_or(live, |&next| next - 1)
                .min(live);
            let mut scratch = Pipeline::new(self.settings());
            self.session
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
                })));
                self.session
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

/// Keeps `first` the earliest measured tick where something differs.
pub(super) fn note_parting(first: &mut Option<TickDivergence>, batch: &[TickDivergence]) {
    for d in batch {
        if d.objects > 0 && first.is_none_or(|f| d.tick < f.tick) {
            *first = Some(*d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(tick: u64, objects: u32) -> TickDivergence {
        TickDivergence {
            tick,
            frame: tick,
            objects,
            distance: f64::from(objects),
            first_object: (objects > 0).then_some(20),
        }
    }

    #[test]
    fn the_first_parting_is_the_earliest_differing_tick() {
        let mut first = None;
        note_parting(&mut first, &[d(1, 0), d(2, 0), d(4, 2)]);
        assert_eq!(first.map(|f| f.tick), Some(4));
        // An earlier one measured later (the kept history) takes its place.
        note_parting(&mut first, &[d(3, 1), d(5, 3)]);
        assert_eq!(first.map(|f| f.tick), Some(3));
    }
}
