//! What one [`Pipeline`] call did: the report `step_frame`, `resume`,
//! `step_tick` and `step_one_frame` return, with the wall time of each phase.
//!
//! The phases are timed in the order they run: the update phase (Start,
//! Update and frame routines), the fixed phase (every tick's FixedUpdate,
//! physics and contacts; physics alone also in `physics_ms`), Flow Tick (after
//! the fixed phase, on the update phase's clock) and presentation. A call that
//! only finishes a frame (a continuation) times what it ran. Wall times are
//! telemetry: they never feed back into the simulation.
//!
//! [`Pipeline`]: crate::Pipeline

use serde::{Deserialize, Serialize};

use crate::debugger::Suspension;
use crate::ids::Priority;
use crate::stepper::StepStrategy;

/// How a [`Pipeline`](crate::Pipeline) call used its time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FrameKind {
    /// A full outer frame (it may still have been suspended part-way).
    #[default]
    Frame,
    /// The rest of a frame interrupted by a suspension (resume, step).
    Continuation,
    /// A single tick with no outer frame (step-tick between frames).
    LoneTick,
    /// Nothing ran: the pipeline was suspended.
    NotRun,
}

/// Wall-clock cost of one call, by phase (telemetry; never affects simulation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseTiming {
    /// Start, Update and frame routines, ms.
    pub update_ms: f64,
    /// Whole fixed phase (hooks, physics, contacts), ms.
    pub fixed_ms: f64,
    /// Physics reconcile + step + commit, summed over ticks, ms.
    pub physics_ms: f64,
    /// Flow Tick, ms: on the update phase's clock, but it runs after the fixed
    /// phase, so its time is its own and not part of `update_ms`.
    pub flow_ms: f64,
    /// Presentation, ms.
    pub present_ms: f64,
    /// FixedUpdate time per priority, summed over the call's ticks.
    pub fixed_by_priority: PriorityTimes,
    /// Mid-step hook time per priority, summed over every call of the
    /// call's ticks. The hooks run inside the physics step, so this is
    /// part of `physics_ms`; empty when no object has the hook.
    #[serde(default)]
    pub mid_step_by_priority: PriorityTimes,
}

/// Most distinct priorities timed separately; later ones share the last slot.
pub const MAX_TIMED_PRIORITIES: usize = 16;

/// Hook wall time per priority (FixedUpdate's, the mid-step hooks'), in the
/// order the priorities were first timed. A fixed-size array, so reporting a
/// frame never allocates (the zero-allocation tick budget).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PriorityTimes {
    /// `(priority, ms)` pairs; only the first `len` are meaningful.
    slots: [(Priority, f64); MAX_TIMED_PRIORITIES],
    /// Slots in use.
    len: usize,
}

impl PriorityTimes {
    /// The timed priorities and their milliseconds, in first-seen order.
    pub fn iter(&self) -> impl Iterator<Item = (Priority, f64)> + '_ {
        self.slots[..self.len].iter().copied()
    }

    /// Total time across priorities, ms.
    pub fn total_ms(&self) -> f64 {
        self.iter().map(|(_, ms)| ms).sum()
    }

    /// Adds time to a priority's slot.
    pub fn add(&mut self, priority: Priority, ms: f64) {
        if let Some(slot) = self.slots[..self.len]
            .iter_mut()
            .find(|(p, _)| *p == priority)
        {
            slot.1 += ms;
        } else if self.len < MAX_TIMED_PRIORITIES {
            self.slots[self.len] = (priority, ms);
            self.len += 1;
        } else {
            self.slots[MAX_TIMED_PRIORITIES - 1].1 += ms;
        }
    }

    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }
}

/// What one call did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FrameReport {
    /// Full frame, continuation, lone tick, or nothing.
    pub kind: FrameKind,
    /// The frame's index (the interrupted frame's for continuations).
    pub frame_index: u64,
    /// The frame's clamped, scaled delta, seconds.
    pub delta_time: f64,
    /// Ticks completed by this call.
    pub ticks: u32,
    /// Backlog the cap discarded in this call, seconds.
    pub dropped_time: f64,
    /// Accumulator when the fixed phase began (after adding the delta), seconds.
    pub accumulator_before: f64,
    /// Accumulator when the call ended, seconds.
    pub accumulator_after: f64,
    /// Set when the call ended suspended.
    pub suspended: Option<Suspension>,
    /// Wall time by phase.
    pub timing: PhaseTiming,
    /// The tick length or strategy changed at this frame's boundary (the
    /// timeline's marker, the log's line).
    #[serde(default)]
    pub clock_change: Option<ClockChange>,
}

/// A change of the fixed rate, the stepping strategy or the substeps, as it
/// took effect at a frame boundary. Simulation time does not restart (it
/// restarts only with its physics world): the ticks before keep the length
/// they had. `Display` is the log's line, "fixed rate 60 → 50 Hz at tick 600".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockChange {
    /// Ticks completed when it took effect: tick `after_tick + 1` is the first
    /// to run with the new settings.
    pub after_tick: u64,
    /// Fixed ticks per second, before and after.
    pub fixed_hz: (u32, u32),
    /// Strategy, before and after.
    pub strategy: (StepStrategy, StepStrategy),
    /// Physics substeps per tick, before and after.
    pub substeps: (u32, u32),
}

impl std::fmt::Display for ClockChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if self.fixed_hz.0 != self.fixed_hz.1 {
            parts.push(format!(
                "fixed rate {} → {} Hz",
                self.fixed_hz.0, self.fixed_hz.1
            ));
        }
        if self.strategy.0 != self.strategy.1 {
            parts.push(format!(
                "strategy {} → {}",
                self.strategy.0.name(),
                self.strategy.1.name()
            ));
        }
        if self.substeps.0 != self.substeps.1 {
            parts.push(format!(
                "substeps {} → {}",
                self.substeps.0, self.substeps.1
            ));
        }
        write!(f, "{} at tick {}", parts.join(", "), self.after_tick)
    }
}

impl FrameReport {
    /// Adds what a later call on the same frame did (a resume that finished
    /// it): its ticks, dropped time and phase times add up, the accumulator
    /// and the suspension are the later call's. The frame's own facts (kind,
    /// index, delta, accumulator before) stay the first call's.
    pub fn absorb(&mut self, more: &FrameReport) {
        self.ticks += more.ticks;
        self.dropped_time += more.dropped_time;
        self.accumulator_after = more.accumulator_after;
        let (t, m) = (&mut self.timing, &more.timing);
        t.update_ms += m.update_ms;
        t.fixed_ms += m.fixed_ms;
        t.physics_ms += m.physics_ms;
        t.flow_ms += m.flow_ms;
        t.present_ms += m.present_ms;
        for (priority, ms) in m.fixed_by_priority.iter() {
            t.fixed_by_priority.add(priority, ms);
        }
        self.suspended = more.suspended.clone();
    }
}
