//! The mid-step dispatcher ([`MidStepCalls`]): what the pipeline hands the
//! physics stage for one step, and what the stage calls for each contact
//! pair (the order, the timing, the breakpoints and the panics of the
//! parent module's docs happen here), behind the one mutex that makes a
//! `Send`-only behaviour callable from rapier's `Sync` hooks object.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::time::Duration;

use super::{MidStepContact, MidStepPair};
use crate::behaviour::Behaviour;
use crate::clock::Clock;
use crate::clock_breakpoint::WallClock;
use crate::debugger::{BreakpointHit, Debugger};
use crate::hook_beacon::HookBeacon;
use crate::ids::{HookKind, ObjectId, Priority};
use crate::report::MAX_TIMED_PRIORITIES;

/// One behaviour the step calls back: a cohort entry with the mid-step
/// hook, active when the step began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MidStepEntry {
    /// Its object.
    pub(crate) object: ObjectId,
    /// Its priority.
    pub(crate) priority: Priority,
    /// Its registration number (the beacon's and the breakpoint's caller).
    pub(crate) seq: u64,
    /// Its index in the scheduler's behaviours.
    pub(crate) entry: u32,
}

/// Mid-step hook time per priority, for the frame report and the flame zones:
/// when the first call of each priority began and how long its calls took
/// in all. A fixed array, so a tick allocates nothing for it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct MidStepTimes {
    /// `(priority, first call's start, total)`; the first `len` are used.
    slots: [(Priority, Duration, Duration); MAX_TIMED_PRIORITIES],
    /// Slots in use.
    len: usize,
}

impl MidStepTimes {
    fn add(&mut self, priority: Priority, start: Duration, took: Duration) {
        if let Some(slot) = self.slots[..self.len]
            .iter_mut()
            .find(|(p, _, _)| *p == priority)
        {
            slot.2 += took;
        } else if self.len < MAX_TIMED_PRIORITIES {
            self.slots[self.len] = (priority, start, took);
            self.len += 1;
        } else {
            self.slots[MAX_TIMED_PRIORITIES - 1].2 += took;
        }
    }

    /// The timed priorities, lowest first: `(priority, first start, total)`.
    pub(crate) fn by_priority(&self) -> impl Iterator<Item = (Priority, Duration, Duration)> {
        let mut slots = self.slots;
        slots[..self.len].sort_unstable_by_key(|(p, _, _)| *p);
        slots.into_iter().take(self.len)
    }
}

/// What one step's mid-step calls left for the pipeline.
#[derive(Debug, Default)]
pub(crate) struct MidStepOutcome {
    /// The first breakpoint hit (the session suspends at the end of the tick).
    pub(crate) hit: Option<BreakpointHit>,
    /// Calls that panicked: the behaviour's scheduler index and the payload.
    pub(crate) faults: Vec<(u32, Box<dyn std::any::Any + Send>)>,
    /// Time per priority.
    pub(crate) times: MidStepTimes,
}

/// What the calls change, behind the dispatcher's mutex.
struct CallState<'a> {
    /// The cohort's behaviours (by scheduler index).
    behaviours: &'a mut [Box<dyn Behaviour>],
    /// Breakpoints and their match counts.
    debugger: &'a mut Debugger,
    /// What the pipeline gets back.
    outcome: MidStepOutcome,
}

/// The mid-step hooks of one tick's step, handed to the physics stage
/// ([`PhysicsStage::step_mid_step`](crate::PhysicsStage::step_mid_step)):
/// which objects have the hook, and [`MidStepCalls::run`] to call their
/// behaviours for one pair. Built by the pipeline for the step and taken
/// back after it (see the module docs for the order, the timing, the
/// breakpoints and the panics).
pub struct MidStepCalls<'a> {
    /// The hooked behaviours, by object then dispatch order.
    entries: &'a [MidStepEntry],
    /// The objects with at least one, in id order.
    objects: &'a [ObjectId],
    /// The pending tick's clock, `delta_time` the substep's dt.
    clock: Clock,
    /// Substeps of the tick.
    substeps: u32,
    /// Whether any breakpoint is armed (checked per call only then).
    armed: bool,
    /// Where call times are read.
    wall: &'a WallClock,
    /// Announces each call to a watcher, when one is installed.
    beacon: Option<&'a HookBeacon>,
    /// Everything a call changes.
    state: Mutex<CallState<'a>>,
}

impl std::fmt::Debug for MidStepCalls<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MidStepCalls")
            .field("objects", &self.objects)
            .field("substeps", &self.substeps)
            .finish_non_exhaustive()
    }
}

/// The pipeline's side of a step with mid-step hooks: what the calls read
/// and where they write.
pub(crate) struct MidStepSetup<'a> {
    pub(crate) entries: &'a [MidStepEntry],
    pub(crate) objects: &'a [ObjectId],
    pub(crate) clock: Clock,
    pub(crate) substeps: u32,
    pub(crate) behaviours: &'a mut [Box<dyn Behaviour>],
    pub(crate) debugger: &'a mut Debugger,
    pub(crate) wall: &'a WallClock,
    pub(crate) beacon: Option<&'a HookBeacon>,
}

impl<'a> MidStepCalls<'a> {
    /// The dispatcher for one step.
    pub(crate) fn new(setup: MidStepSetup<'a>) -> MidStepCalls<'a> {
        MidStepCalls {
            entries: setup.entries,
            objects: setup.objects,
            clock: setup.clock,
            substeps: setup.substeps,
            armed: setup.debugger.armed(),
            wall: setup.wall,
            beacon: setup.beacon,
            state: Mutex::new(CallState {
                behaviours: setup.behaviours,
                debugger: setup.debugger,
                outcome: MidStepOutcome::default(),
            }),
        }
    }

    /// What the calls left: the breakpoint hit, the faults, the times.
    pub(crate) fn finish(self) -> MidStepOutcome {
        let state = self.state.into_inner().unwrap_or_else(|e| e.into_inner());
        state.outcome
    }

    /// The objects whose behaviours have the hook, in id order: the stage
    /// has the engine call back for their contacts only.
    pub fn objects(&self) -> &[ObjectId] {
        self.objects
    }

    /// Whether `object` has the hook.
    pub fn has(&self, object: ObjectId) -> bool {
        self.objects.binary_search(&object).is_ok()
    }

    /// Calls the hooks of both objects of `contact` (those that have one),
    /// for substep `substep` (from 1), and leaves their edits in it.
    pub fn run(&self, contact: &mut MidStepContact, substep: u32) {
        let [a, b] = contact.objects;
        if a == b {
            return;
        }
        let sides = if a < b { [0, 1] } else { [1, 0] };
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let state = &mut *state;
        for side in sides {
            let object = contact.objects[side];
            let start = self.entries.partition_point(|e| e.object < object);
            let end = self.entries.partition_point(|e| e.object <= object);
            if start == end {
                continue;
            }
            let mut t0 = self.wall.now();
            for e in &self.entries[start..end] {
                if state.outcome.faults.iter().any(|(i, _)| *i == e.entry) {
                    continue;
                }
                let behaviour = &*state.behaviours[e.entry as usize];
                if self.armed
                    && let Some(hit) = state.debugger.check(
                        HookKind::MidStep,
                        object,
                        e.priority,
                        behaviour.name(),
                        &self.clock,
                    )
                    && state.outcome.hit.is_none()
                {
                    state.outcome.hit = Some(hit);
                }
                if let Some(beacon) = self.beacon {
                    beacon.enter(object, e.seq, HookKind::MidStep, self.clock.simulation_tick);
                }
                let mut pair = MidStepPair {
                    clock: &self.clock,
                    substep,
                    substeps: self.substeps,
                    contact: *contact,
                    side,
                };
                match catch_unwind(AssertUnwindSafe(|| behaviour.mid_step(&mut pair))) {
                    Ok(()) => *contact = pair.contact,
                    Err(payload) => state.outcome.faults.push((e.entry, payload)),
                }
                let t1 = self.wall.now();
                state
                    .outcome
                    .times
                    .add(e.priority, t0, t1.saturating_sub(t0));
                t0 = t1;
            }
        }
        if let Some(beacon) = self.beacon {
            beacon.leave();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_kept_per_priority_and_listed_lowest_first() {
        let mut t = MidStepTimes::default();
        let ms = Duration::from_millis;
        t.add(Priority(10), ms(5), ms(1));
        t.add(Priority(-3), ms(6), ms(2));
        t.add(Priority(10), ms(9), ms(4));
        let got: Vec<_> = t.by_priority().collect();
        assert_eq!(
            got,
            vec![(Priority(-3), ms(6), ms(2)), (Priority(10), ms(5), ms(5))]
        );
    }
}
