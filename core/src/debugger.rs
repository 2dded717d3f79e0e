//! Breakpoints and suspension, with the contract's timing and no UI.
//!
//! # Where a session suspends
//!
//! - A breakpoint on a **FixedUpdate**, **mid-step** or **contact** hook records
//!   its hit when the hook is reached, lets the hook run, and suspends at the
//!   **end of that fixed tick**: every object's FixedUpdate, the physics step
//!   (with every other mid-step call of the tick, which run inside it) and the
//!   contact callbacks of the tick finish first, so what the debugger shows is
//!   committed state and a fixed callback is never separated from its physics
//!   integration. Each mid-step call (one per contact pair and substep) counts
//!   as a match.
//! - A breakpoint on **Start**, **Update**, **Flow Tick**, a routine or a
//!   presentation hook suspends **before** the hook runs. Resume runs that hook
//!   (the breakpoint does not fire again for the same call) and finishes the frame.
//!   Flow Tick runs after the fixed phase, so a Flow Tick suspension has the
//!   frame's ticks behind it: resume runs the rest of Flow Tick and the
//!   presentation; step-frame does the same, then suspends.
//! - Code can ask for a break ([`crate::Ctx::request_break`]): in fixed code at the
//!   end of the tick, elsewhere right after the hook returns.
//!
//! # Resume after a fixed suspension
//!
//! Ticks the interrupted frame still owed stay owed (their time is in the
//! accumulator). [`crate::Pipeline::resume`] runs them, then ends the frame
//! *without* its Flow Tick and its presentation phase: the contract skips "the
//! remainder of the interrupted outer frame (including Flow Tick and
//! presentation animation)". No callback of the completed tick runs twice, and
//! the next frame starts with its own Start and Update as usual.
//!
//! While suspended, the clock's `interpolation_alpha` is the accumulator over
//! fixed dt of the state the session stopped in (2.25 with two owed ticks and a
//! quarter waiting), so the alpha beside the accumulator always agrees with it.
//!
//! # Step tick
//!
//! [`crate::Pipeline::step_tick`] runs exactly one fixed tick, then suspends:
//! - if the interrupted frame still owes ticks, it runs the next of them;
//! - if the frame was suspended before its fixed phase (an Update breakpoint), it
//!   finishes the update phase and runs the frame's first tick (the frame is
//!   then interrupted at the end of a tick like any other: its Flow Tick and
//!   presentation are skipped);
//! - if the frame was suspended in its Flow Tick (its ticks are done), it
//!   finishes Flow Tick and the presentation, then runs a lone tick as below;
//! - otherwise it starts *no* outer frame: it adds exactly one `fixed_delta_time`
//!   to the accumulator and runs that tick alone. The update phase does not run
//!   and the frame clock does not move, because no display time passed; the
//!   fractional remainder in the accumulator is untouched, so the next real frame
//!   has the interpolation phase it would have had.
//!
//! Either way the tick is the same tick an uninterrupted run would have run next,
//! with the same inputs (index, start time, fixed dt, committed poses, input
//! edges): stepping never changes the fixed tick sequence.

use serde::{Deserialize, Serialize};

use crate::clock::Clock;
use crate::clock_breakpoint::{self, ClockBreakpoint, ClockHit, FrameFacts, TickFacts};
use crate::condition::{BreakpointId, Condition, HitCount};
use crate::ids::{HookKind, ObjectId, Priority};

/// A breakpoint: filters (absent = any), a clock condition and a hit count.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Breakpoint {
    /// Set by [`Debugger::add`].
    pub id: BreakpointId,
    /// Disabled breakpoints neither count nor suspend.
    pub enabled: bool,
    /// Only this hook kind.
    pub hook: Option<HookKind>,
    /// Only this object.
    pub object: Option<ObjectId>,
    /// Only behaviours at this priority.
    pub priority: Option<Priority>,
    /// Clock condition.
    pub condition: Condition,
    /// Hit-count rule.
    pub hit_count: HitCount,
    /// Matches so far.
    pub matches: u64,
}

impl Breakpoint {
    /// An enabled breakpoint on one hook kind of one object.
    pub fn on(hook: HookKind, object: ObjectId) -> Breakpoint {
        Breakpoint {
            enabled: true,
            hook: Some(hook),
            object: Some(object),
            ..Breakpoint::default()
        }
    }

    /// An enabled breakpoint on every call of one hook kind.
    pub fn on_hook(hook: HookKind) -> Breakpoint {
        Breakpoint {
            enabled: true,
            hook: Some(hook),
            ..Breakpoint::default()
        }
    }
}

/// A breakpoint that fired.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BreakpointHit {
    /// Which breakpoint.
    pub breakpoint: BreakpointId,
    /// Whose hook.
    pub object: ObjectId,
    /// Which hook.
    pub hook: HookKind,
    /// The behaviour's priority.
    pub priority: Priority,
    /// The behaviour's name.
    pub behaviour: String,
    /// Pending tick (fixed hooks) or completed ticks (others) when it fired.
    pub tick: u64,
    /// Outer frame when it fired.
    pub frame: u64,
}

/// Why the session is suspended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SuspendReason {
    /// A breakpoint fired.
    Breakpoint(BreakpointHit),
    /// A clock breakpoint fired (at the end of the frame or the tick it
    /// describes, see [`crate::clock_breakpoint`]).
    Clock(ClockHit),
    /// A watch held at the end of a tick ([`crate::pipeline::TickWatch`]).
    Watch(String),
    /// A hook called `request_break`.
    Requested {
        /// Whose hook.
        object: ObjectId,
        /// Which hook.
        hook: HookKind,
        /// The hook's message.
        message: String,
    },
    /// A hook panicked and the fault policy is "break".
    Fault {
        /// Whose hook.
        object: ObjectId,
        /// Which hook.
        hook: HookKind,
        /// The panic message.
        message: String,
    },
    /// The step-tick command completed its tick.
    StepTick,
    /// The step-frame command completed its frame.
    StepFrame,
    /// The pause command.
    Pause,
    /// A requested stop after a given tick (rewind, replay).
    ReachedTick(u64),
}

impl std::fmt::Display for SuspendReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SuspendReason::Breakpoint(h) => write!(
                f,
                "breakpoint {} on {} {} ({})",
                h.breakpoint.0, h.object, h.hook, h.behaviour
            ),
            SuspendReason::Clock(hit) => write!(f, "{hit}"),
            SuspendReason::Watch(reason) => write!(f, "watch: {reason}"),
            SuspendReason::Requested {
                object,
                hook,
                message,
            } => write!(f, "break requested by {object} {hook}: {message}"),
            SuspendReason::Fault {
                object,
                hook,
                message,
            } => write!(f, "fault in {object} {hook}: {message}"),
            SuspendReason::StepTick => f.write_str("step tick"),
            SuspendReason::StepFrame => f.write_str("step frame"),
            SuspendReason::Pause => f.write_str("paused"),
            SuspendReason::ReachedTick(t) => write!(f, "reached tick {t}"),
        }
    }
}

/// Where and why the session stopped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Suspension {
    /// The reason.
    pub reason: SuspendReason,
    /// Completed ticks when it stopped.
    pub tick: u64,
    /// Outer frame when it stopped.
    pub frame: u64,
    /// True when stopped at the end of a fixed tick (committed state), false when
    /// stopped before an update-phase hook or between frames.
    pub end_of_tick: bool,
}

/// Hits kept for the editor's list; older ones are dropped.
pub const MAX_HITS: usize = 1024;

/// The breakpoints and the hit list.
#[derive(Clone, Debug, Default)]
pub struct Debugger {
    breakpoints: Vec<Breakpoint>,
    clock: Vec<ClockBreakpoint>,
    hits: std::collections::VecDeque<BreakpointHit>,
    /// Hits recorded since the debugger was made, including those dropped.
    recorded: u64,
    next_id: u32,
}

impl Debugger {
    /// Adds a breakpoint and returns its id.
    pub fn add(&mut self, mut breakpoint: Breakpoint) -> BreakpointId {
        self.next_id += 1;
        breakpoint.id = BreakpointId(self.next_id);
        breakpoint.matches = 0;
        self.breakpoints.push(breakpoint);
        BreakpointId(self.next_id)
    }

    /// Adds a clock breakpoint and returns its id (from the same sequence as
    /// hook breakpoints, so one id names one breakpoint of either kind).
    pub fn add_clock(&mut self, mut breakpoint: ClockBreakpoint) -> BreakpointId {
        self.next_id += 1;
        breakpoint.id = BreakpointId(self.next_id);
        breakpoint.matches = 0;
        self.clock.push(breakpoint);
        BreakpointId(self.next_id)
    }

    /// Removes a breakpoint of either kind; false if there was none.
    pub fn remove(&mut self, id: BreakpointId) -> bool {
        let before = self.breakpoints.len() + self.clock.len();
        self.breakpoints.retain(|b| b.id != id);
        self.clock.retain(|b| b.id != id);
        self.breakpoints.len() + self.clock.len() != before
    }

    /// Enables or disables a breakpoint of either kind.
    pub fn set_enabled(&mut self, id: BreakpointId, enabled: bool) {
        if let Some(b) = self.breakpoints.iter_mut().find(|b| b.id == id) {
            b.enabled = enabled;
        }
        if let Some(b) = self.clock.iter_mut().find(|b| b.id == id) {
            b.enabled = enabled;
        }
    }

    /// A copy without the clock breakpoints that measure wall time: what a
    /// replay runs with, since they would not hold where the run's did.
    pub fn for_replay(&self) -> Debugger {
        let mut d = self.clone();
        d.clock.retain(|b| !b.rule.measures_wall_time());
        d
    }

    /// The clock breakpoints, in creation order.
    pub fn clock_breakpoints(&self) -> &[ClockBreakpoint] {
        &self.clock
    }

    /// Whether any clock breakpoint exists (so the pipeline gathers the
    /// per-tick timings they read only then).
    #[inline]
    pub(crate) fn clock_armed(&self) -> bool {
        !self.clock.is_empty()
    }

    /// Checks the frame rules at the end of a frame.
    pub(crate) fn check_frame(&mut self, clock: &Clock, facts: &FrameFacts) -> Option<ClockHit> {
        clock_breakpoint::check_frame(&mut self.clock, clock, facts)
    }

    /// Checks the tick rules at the end of a tick.
    pub(crate) fn check_tick(&mut self, clock: &Clock, facts: &TickFacts<'_>) -> Option<ClockHit> {
        clock_breakpoint::check_tick(&mut self.clock, clock, facts)
    }

    /// The breakpoints, in creation order.
    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.breakpoints
    }

    /// The most recent hits, oldest first.
    pub fn hits(&self) -> impl Iterator<Item = &BreakpointHit> {
        self.hits.iter()
    }

    /// How many hits were ever recorded, the dropped ones too: a reader that
    /// keeps its own list (the editor labels each hit as it happens) takes
    /// the `recorded() - seen` newest of [`Debugger::hits`].
    pub fn recorded(&self) -> u64 {
        self.recorded
    }

    /// Whether any breakpoint is enabled (the dispatch fast path).
    #[inline]
    pub(crate) fn armed(&self) -> bool {
        !self.breakpoints.is_empty()
    }

    /// Counts matches for a call about to run and returns the first hit.
    pub(crate) fn check(
        &mut self,
        hook: HookKind,
        object: ObjectId,
        priority: Priority,
        behaviour: &str,
        clock: &Clock,
    ) -> Option<BreakpointHit> {
        let mut first = None;
        for b in &mut self.breakpoints {
            let matches = b.enabled
                && b.hook.is_none_or(|h| h == hook)
                && b.object.is_none_or(|o| o == object)
                && b.priority.is_none_or(|p| p == priority)
                && b.condition.holds(clock);
            if !matches {
                continue;
            }
            b.matches += 1;
            if first.is_none() && b.hit_count.admits(b.matches) {
                first = Some(BreakpointHit {
                    breakpoint: b.id,
                    object,
                    hook,
                    priority,
                    behaviour: behaviour.to_string(),
                    tick: clock.simulation_tick,
                    frame: clock.frame_index,
                });
            }
        }
        if let Some(hit) = &first {
            if self.hits.len() == MAX_HITS {
                self.hits.pop_front();
            }
            self.hits.push_back(hit.clone());
            self.recorded += 1;
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_tick(tick: u64) -> Clock {
        Clock {
            simulation_tick: tick,
            ..Clock::default()
        }
    }

    #[test]
    fn every_n_ticks_counts_from_the_from_tick() {
        // "From tick 7, every 5 ticks": 7, 12, 17, never the multiples of 5.
        let c = Condition {
            ticks: Some((7, u64::MAX)),
            every_ticks: Some(5),
            frames: None,
        };
        let holding: Vec<u64> = (0..20).filter(|&t| c.holds(&at_tick(t))).collect();
        assert_eq!(holding, vec![7, 12, 17]);
    }

    #[test]
    fn every_n_ticks_without_a_range_counts_from_tick_zero() {
        let c = Condition {
            every_ticks: Some(4),
            ..Condition::default()
        };
        let holding: Vec<u64> = (1..13).filter(|&t| c.holds(&at_tick(t))).collect();
        assert_eq!(holding, vec![4, 8, 12]);
    }

    #[test]
    fn recorded_counts_every_hit_the_list_dropped_too() {
        let mut d = Debugger::default();
        d.add(Breakpoint::on_hook(HookKind::FixedUpdate));
        let n = MAX_HITS as u64 + 3;
        for t in 1..=n {
            d.check(
                HookKind::FixedUpdate,
                ObjectId(1),
                Priority(0),
                "b",
                &at_tick(t),
            );
        }
        assert_eq!(d.recorded(), n);
        assert_eq!(d.hits().count(), MAX_HITS, "the list keeps the newest");
        assert_eq!(d.hits().next().map(|h| h.tick), Some(4));
    }
}
