//! Branch B: one other run beside the live session A, measured against it
//! tick by tick. It is either a **comparison** (a trace file, or the run so
//! far as the rewind history holds it: `compare`) or a **what-if fork**
//! with a pipeline of its own, run in lockstep with A (`fork`). One at a
//! time: a new one replaces the old.
//!
//! The feature owns B whole: what B is, B's records by tick (so a past view
//! of any tick shows B there: the viewport's B outlines, the inspector's B
//! column), the ticks measured since the last publish, and the first tick
//! where A and B part.

mod compare;
mod fork;

use std::sync::Arc;

use super::Worker;
use super::outbox::Outbox;
use super::stepping::Stepping;
use super::tap::TickNews;
use crate::protocol::{
    BName, BranchCommand, BranchEvent, EditCommand, Event, HostError, Notice, RunB,
};
use crate::traced::{TickDivergence, TracePoses, TracedTick};

pub(super) use fork::Fork;

/// Ticks of a fork's B the host keeps (10 minutes at 60 Hz): past views
/// show B at any of them.
const MAX_FORK_TICKS: usize = 36_000;

/// What B is.
enum Kind {
    /// A trace file or the run so far: B's records, whole.
    Comparison(Arc<TracePoses>),
    /// A what-if branch with its own pipeline.
    Fork(Box<Fork>),
}

/// B and what it measured.
struct Run {
    /// What B is.
    kind: Kind,
    /// Its name, fork tick and first parting, as the live view shows them.
    about: RunB,
    /// B's records by tick, as a fork runs (a comparison's are in its trace).
    records: TracePoses,
}

/// Branch B, while there is one (module docs).
#[derive(Default)]
pub(super) struct BranchB {
    /// B, if any.
    run: Option<Run>,
    /// Ticks measured since the last publish.
    measured: Vec<TickDivergence>,
    /// Batches of a run sent from elsewhere, until the last one comes.
    incoming: TracePoses,
}

impl BranchB {
    /// What the live view says of B.
    pub(super) fn about(&self) -> Option<RunB> {
        self.run.as_ref().map(|r| r.about.clone())
    }

    /// B at `tick`, if B holds it.
    pub(super) fn at(&self, tick: u64) -> Option<TracedTick> {
        let run = self.run.as_ref()?;
        match &run.kind {
            Kind::Comparison(trace) => trace.at(tick).cloned(),
            Kind::Fork(_) => run.records.at(tick).cloned(),
        }
    }

    /// The trace A's ticks are measured against in the tick observer, while
    /// comparing; whether the observer must trace A's ticks for a fork.
    pub(super) fn observer_needs(&self) -> (Option<Arc<TracePoses>>, bool) {
        match self.run.as_ref().map(|r| &r.kind) {
            Some(Kind::Comparison(trace)) => (Some(trace.clone()), false),
            Some(Kind::Fork(_)) => (None, true),
            None => (None, false),
        }
    }

    /// A's news of one tick: measured against a comparison's B, or kept for
    /// a fork's B to pair with.
    pub(super) fn take_a(&mut self, news: &mut TickNews) {
        if let Some(d) = news.divergence.take() {
            self.measured.push(d);
        }
        if let Some(Run {
            kind: Kind::Fork(f),
            ..
        }) = self.run.as_mut()
        {
            f.takes(news.tick, &news.inputs, news.traced.take());
        }
    }

    /// Runs a fork's B to A's tick after a call that moved A (`dt`: the
    /// frame length A ran, 0 for a lone tick or a resume). An error if B
    /// could not follow.
    pub(super) fn follow(&mut self, a: &Stepping, dt: f64) -> Option<HostError> {
        let Some(Run {
            kind: Kind::Fork(f),
            records,
            ..
        }) = self.run.as_mut()
        else {
            return None;
        };
        let target = a.completed_ticks();
        let fixed_dt = a.session.pipeline().clock().fixed_delta_time;
        let stuck = f.run_to(target, dt, fixed_dt).err();
        for (b, divergence) in f.pair() {
            records.push(b);
            self.measured.push(divergence);
        }
        records.keep_last(MAX_FORK_TICKS);
        stuck.map(|reason| HostError::BranchStuck {
            tick: target,
            reason,
        })
    }

    /// Sends the ticks measured since the last publish, noting the first
    /// where A and B part.
    pub(super) fn send_measured(&mut self, out: &mut Outbox) {
        if self.measured.is_empty() {
            return;
        }
        let batch = std::mem::take(&mut self.measured);
        if let Some(run) = self.run.as_mut() {
            note_parting(&mut run.about.first, &batch);
        }
        out.event(Event::BranchB(BranchEvent::Measured(batch)));
    }

    /// A change of B (Target::B): applied to B alone, from its next tick.
    pub(super) fn edit(&mut self, edit: EditCommand, out: &mut Outbox) {
        let Some(Run {
            kind: Kind::Fork(f),
            ..
        }) = self.run.as_mut()
        else {
            out.error(HostError::NoBranch);
            return;
        };
        f.edit(edit, out);
    }

    /// The session A was rewound to `tick`: what was measured after it is
    /// being run again.
    fn rewound(&mut self, tick: u64) {
        if let Some(run) = self.run.as_mut()
            && run.about.first.is_some_and(|f| f.tick > tick)
        {
            run.about.first = None;
        }
    }

    /// A new world: a comparison measures it from its first tick.
    pub(super) fn new_world(&mut self) {
        if let Some(run) = self.run.as_mut() {
            run.about.first = None;
        }
        self.measured.clear();
    }

    /// Whether B is a fork.
    pub(super) fn is_fork(&self) -> bool {
        matches!(self.run.as_ref().map(|r| &r.kind), Some(Kind::Fork(_)))
    }
}

impl Worker {
    /// A branch-B command.
    pub(super) fn branch_command(&mut self, command: BranchCommand) {
        match command {
            BranchCommand::ForkHere(at) => self.fork_here(at),
            BranchCommand::CompareWith(path) => self.compare_with(&path),
            BranchCommand::CompareWithRun => self.compare_with_run(),
            BranchCommand::Adopt => self.adopt_fork(),
            BranchCommand::Discard => self.end_branch(true),
            BranchCommand::SendRun { upto } => self.send_run(upto),
            BranchCommand::CompareWithTicks { name, ticks, last } => {
                for tick in ticks {
                    self.branch.incoming.push(tick);
                }
                if last {
                    let b = std::mem::take(&mut self.branch.incoming);
                    self.compare_with_ticks(name, b);
                }
            }
        }
    }

    /// Sends what B measured and reinstalls A's observer as B needs it.
    pub(super) fn drain_branch(&mut self) {
        self.branch.send_measured(&mut self.out);
    }

    /// Ends B, if any (`say`: tell the user).
    pub(super) fn end_branch(&mut self, say: bool) {
        let Some(run) = self.branch.run.take() else {
            return;
        };
        self.branch.measured.clear();
        self.reobserve();
        self.out.event(Event::BranchB(BranchEvent::Ended));
        if say && matches!(run.kind, Kind::Fork(_)) {
            self.out.notice(Notice::BDiscarded);
        }
    }

    /// A's tick observer, as branch B needs it now.
    pub(super) fn reobserve(&mut self) {
        let (compare, trace) = self.branch.observer_needs();
        self.run.observe(compare, trace);
    }

    /// The live session was rewound to the end of `tick`.
    pub(super) fn branch_rewound(&mut self, tick: u64) {
        self.branch.rewound(tick);
    }

    /// Starts a run B, replacing any other.
    fn start_branch(&mut self, kind: Kind, name: BName, forked_at: Option<u64>) {
        self.end_branch(true);
        self.branch.run = Some(Run {
            kind,
            about: RunB {
                name,
                forked_at,
                first: None,
            },
            records: TracePoses::default(),
        });
        self.reobserve();
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
