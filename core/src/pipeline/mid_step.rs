//! The tick's physics step and the mid-step hooks inside it: which
//! behaviours the engine calls back, and what their calls leave (a
//! breakpoint hit, faults, time per priority) applied once the step is done.
//!
//! A scene in which no behaviour of the cohort has the hook, and whose
//! engine calls back for nobody, steps exactly as before the hook existed:
//! one test of an empty list and one of the stage, then
//! [`PhysicsStage::step`]. Otherwise the pipeline lists the hooked
//! behaviours that are active as the step begins (by object, then dispatch
//! order) and hands them to [`PhysicsStage::step_mid_step`] behind a
//! [`MidStepCalls`]. A behaviour that faults inside the step gets no
//! further call in it; after the step its fault is reported (object, hook,
//! pending tick) and the fault policy applies, as for any hook.

use super::*;
use crate::behaviour::mid_step::{MidStepCalls, MidStepEntry, MidStepSetup};

impl Pipeline {
    /// Steps the engine for one tick, with the mid-step hooks when any
    /// behaviour has them. Returns whether it called them back (their time
    /// per priority is then in `mid_times`, for the flame zones inside the
    /// tick's physics zone).
    pub(super) fn step_physics(&mut self, dt: f64) -> bool {
        let substeps = self.sim.settings.substeps;
        if self.mid_step_bypass
            || (self.sim.scheduler.list(HookKind::MidStep).is_empty()
                && !self.sim.physics.has_mid_step_objects())
        {
            self.sim.physics.step(dt, substeps, &mut self.contacts);
            return false;
        }
        self.list_mid_step_entries();
        let mut clock = self.sim.clock;
        clock.delta_time = dt / f64::from(substeps.max(1));
        let Pipeline {
            sim: SimulationState {
                physics, scheduler, ..
            },
            debugger,
            contacts,
            wall,
            beacon,
            mid_entries,
            mid_objects,
            ..
        } = self;
        let calls = MidStepCalls::new(MidStepSetup {
            entries: mid_entries,
            objects: mid_objects,
            clock,
            substeps,
            behaviours: &mut scheduler.behaviours,
            debugger,
            wall,
            beacon: beacon.as_ref(),
        });
        physics.step_mid_step(dt, substeps, contacts, &calls);
        let outcome = calls.finish();
        if let Some(hit) = outcome.hit
            && self.pending_suspend.is_none()
        {
            self.pending_suspend = Some(SuspendReason::Breakpoint(hit));
        }
        for (i, payload) in outcome.faults {
            let i = i as usize;
            let object = self.sim.scheduler.entries[i].object;
            self.sim.scheduler.set_faulted(i);
            self.report_fault(object, HookKind::MidStep, &payload);
        }
        for (priority, _, took) in outcome.times.by_priority() {
            self.report
                .timing
                .mid_step_by_priority
                .add(priority, took.as_secs_f64() * 1000.0);
        }
        self.mid_times = outcome.times;
        true
    }

    /// The behaviours with the mid-step hook that may run now (their object
    /// active, not faulted), by object then dispatch order, and their
    /// objects, into the pipeline's scratch lists.
    fn list_mid_step_entries(&mut self) {
        let scheduler = &self.sim.scheduler;
        let world = &self.sim.world;
        self.mid_entries.clear();
        self.mid_entries.extend(
            scheduler
                .list(HookKind::MidStep)
                .iter()
                .map(|&i| (i, &scheduler.entries[i as usize]))
                .filter(|(_, e)| e.is_active(world))
                .map(|(i, e)| MidStepEntry {
                    object: e.object,
                    priority: e.priority,
                    seq: e.seq,
                    entry: i,
                }),
        );
        // Keys are unique (seq is), so the unstable sort is deterministic.
        self.mid_entries
            .sort_unstable_by_key(|e| (e.object, e.priority, e.seq));
        self.mid_objects.clear();
        self.mid_objects
            .extend(self.mid_entries.iter().map(|e| e.object));
        self.mid_objects.dedup();
    }

    /// The last step's mid-step zones inside its physics zone (begun at
    /// `start`, ending at `end`): each priority's total from where its first
    /// call began, laid end to end (see [`ZoneKind::MidStep`]).
    pub(super) fn record_mid_step_zones(
        &mut self,
        start: std::time::Duration,
        end: std::time::Duration,
    ) {
        if !self.zones.on() {
            return;
        }
        let mut cursor = start;
        for (priority, first, took) in self.mid_times.by_priority() {
            let from = first.max(cursor).min(end.saturating_sub(took));
            let to = (from + took).min(end);
            self.zones.record(ZoneKind::MidStep(priority), from, to);
            cursor = to;
        }
    }

    /// Runs the pipeline without the mid-step mechanism: every tick's
    /// physics is the plain step, as before the hook existed, and no hook
    /// is called. Only for `stepframe bench`'s `midstep_idle_overhead`,
    /// which measures a scene without the hook against this in one run
    /// (the `bench-knobs` feature; the shipped crates never turn it on).
    #[cfg(feature = "bench-knobs")]
    pub fn set_mid_step_bypass(&mut self, bypass: bool) {
        self.mid_step_bypass = bypass;
    }
}
