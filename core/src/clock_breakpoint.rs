//! Breakpoints on time itself: stop where the loop misbehaves, not on a hook.
//!
//! A hook breakpoint stops when a call is reached; a clock breakpoint stops
//! when the *frame* or the *tick* had a given shape. Two kinds of rule:
//!
//! | rule | checked | holds when |
//! |---|---|---|
//! | [`ClockRule::TicksAtLeast`] | at the end of each frame | the frame ran at least n fixed ticks |
//! | [`ClockRule::DroppedTime`] | at the end of each frame | the capped accumulator dropped time this frame |
//! | [`ClockRule::DeltaAbove`] | at the end of each frame | the frame's `delta_time` (clamped and scaled, the timeline's dt lane) exceeded the limit |
//! | [`ClockRule::AlphaCrosses`] | at the end of each frame | `interpolation_alpha` is on the other side of the threshold from the previous frame's |
//! | [`ClockRule::FixedPriorityAbove`] | at the end of each tick | FixedUpdate at that priority took longer than the limit in this tick |
//! | [`ClockRule::PhysicsAbove`] | at the end of each tick | reconcile, step and commit took longer than the limit in this tick |
//!
//! A frame rule suspends **at the end of the frame** where it holds: its
//! presentation has run, and resume starts the next frame. A frame whose
//! fixed phase was interrupted (by a fixed breakpoint, a step) ends where its
//! skipped remainder would have ended, and is checked there; a lone tick from
//! step-tick is no frame and is not checked. A tick rule suspends **at the end
//! of the tick**, with committed state, exactly like a FixedUpdate breakpoint.
//!
//! "Crossed" means either way: with threshold 0.5, alpha going 0.42 → 0.83
//! crosses, and so does 0.83 → 0.25; a value equal to the threshold counts as
//! above it. The first frame of a session has no previous alpha and never
//! crosses.
//!
//! The clock [`Condition`] and [`HitCount`] work as for hook breakpoints: the
//! condition is read on the clock at the check (the completed tick count, the
//! frame index), and only matches that pass it are counted.
//!
//! The two timing rules measure wall time, so they are debugging aids, not
//! part of the deterministic state: whether they fire depends on the machine.
//! A replay (a rewind, a view of a past tick) therefore does not check them:
//! the history keeps the tick a wall-time stop happened at, and the replay
//! stops there again, so it reproduces the run's frames exactly (the same
//! Flow Tick and presentation skipped).
//!
//! # Where wall time comes from
//!
//! The pipeline reads wall time through a [`WallClock`] for every phase
//! timing (the frame report's `update_ms`, `fixed_ms`, `physics_ms`,
//! `flow_ms`, `present_ms` and FixedUpdate by priority), which the timing
//! rules above read. It is the system's monotonic clock unless a
//! [`ManualTime`] is installed ([`crate::Pipeline::set_wall_clock`]): then
//! time moves only when someone calls [`ManualTime::advance`], so a test can
//! say "this physics step took 150 ms" and check a 60 ms rule on any machine,
//! however loaded, without sleeping.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::clock::Clock;
use crate::condition::{BreakpointId, Condition, HitCount};
use crate::ids::Priority;

/// The wall time the pipeline's phase timings read (see the module docs).
/// Cheap to clone: a manual clock's clones share one time.
#[derive(Clone, Debug)]
pub struct WallClock {
    /// The system clock's reading at construction (times are durations since).
    origin: Instant,
    /// A manual clock's time, ns; `None` for the system clock.
    manual: Option<Arc<AtomicU64>>,
}

/// Two clocks are equal when they read the same time: both the system's, or
/// clones of one manual time.
impl PartialEq for WallClock {
    fn eq(&self, other: &WallClock) -> bool {
        match (&self.manual, &other.manual) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Default for WallClock {
    fn default() -> WallClock {
        WallClock::system()
    }
}

impl WallClock {
    /// The system's monotonic clock (what every session uses unless told).
    pub fn system() -> WallClock {
        WallClock {
            origin: Instant::now(),
            manual: None,
        }
    }

    /// The time now, as a duration since an origin of this clock.
    pub fn now(&self) -> Duration {
        match &self.manual {
            Some(ns) => Duration::from_nanos(ns.load(Ordering::Relaxed)),
            None => self.origin.elapsed(),
        }
    }

    /// Milliseconds since `t0` (a reading of [`now`](Self::now)).
    pub fn ms_since(&self, t0: Duration) -> f64 {
        self.now().saturating_sub(t0).as_secs_f64() * 1000.0
    }
}

/// A wall clock that moves only when told: install [`ManualTime::clock`]
/// in a pipeline, then [`advance`](ManualTime::advance) it from a hook or a
/// physics stage to say how long that work took.
#[derive(Clone, Debug, Default)]
pub struct ManualTime {
    ns: Arc<AtomicU64>,
}

impl ManualTime {
    /// A manual time at zero.
    pub fn new() -> ManualTime {
        ManualTime::default()
    }

    /// A [`WallClock`] reading this time.
    pub fn clock(&self) -> WallClock {
        WallClock {
            origin: Instant::now(),
            manual: Some(self.ns.clone()),
        }
    }

    /// Moves the time forward by `d`.
    pub fn advance(&self, d: Duration) {
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        self.ns.fetch_add(ns, Ordering::Relaxed);
    }
}

/// What a clock breakpoint watches for (see the module docs for when each is
/// checked).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum ClockRule {
    /// The frame ran at least this many fixed ticks (2: every frame that
    /// caught up).
    TicksAtLeast(u32),
    /// The frame dropped time at the step cap.
    DroppedTime,
    /// The frame's delta exceeded this many milliseconds.
    DeltaAbove {
        /// The limit, ms.
        ms: f64,
    },
    /// Interpolation alpha crossed this threshold (either way) since the
    /// previous frame.
    AlphaCrosses {
        /// The threshold, 0..=1.
        threshold: f64,
    },
    /// FixedUpdate at `priority` took more than `ms` in one tick.
    FixedPriorityAbove {
        /// Whose time.
        priority: Priority,
        /// The limit, ms.
        ms: f64,
    },
    /// Physics (reconcile, step, commit) took more than `ms` in one tick.
    PhysicsAbove {
        /// The limit, ms.
        ms: f64,
    },
}

impl ClockRule {
    /// Whether the rule measures wall time (the two tick rules): it may hold
    /// in one run of a tick and not in a replay of it, so replays do not
    /// check it and stop where the run stopped instead ([`crate::History`]).
    pub fn measures_wall_time(&self) -> bool {
        self.per_tick()
    }

    /// Whether the rule is checked at the end of each tick (else of each frame).
    pub fn per_tick(&self) -> bool {
        matches!(
            self,
            ClockRule::FixedPriorityAbove { .. } | ClockRule::PhysicsAbove { .. }
        )
    }

    /// The rule in words, for lists and markers.
    pub fn describe(&self) -> String {
        match self {
            ClockRule::TicksAtLeast(n) => format!("frame ran ≥ {n} ticks"),
            ClockRule::DroppedTime => "frame dropped time".to_string(),
            ClockRule::DeltaAbove { ms } => format!("frame delta > {ms} ms"),
            ClockRule::AlphaCrosses { threshold } => format!("alpha crosses {threshold}"),
            ClockRule::FixedPriorityAbove { priority, ms } => {
                format!("FixedUpdate {priority} > {ms} ms in a tick")
            }
            ClockRule::PhysicsAbove { ms } => format!("physics > {ms} ms in a tick"),
        }
    }

    /// Checks the values themselves, so a breakpoint that could never hold
    /// (or always would, by a typo) is refused when it is made.
    pub fn validate(&self) -> Result<(), ClockRuleError> {
        let finite_ms = |ms: f64| {
            if ms.is_finite() && ms >= 0.0 {
                Ok(())
            } else {
                Err(ClockRuleError::TimeLimit(ms))
            }
        };
        match *self {
            ClockRule::TicksAtLeast(0) => Err(ClockRuleError::NoTicks),
            ClockRule::TicksAtLeast(_) | ClockRule::DroppedTime => Ok(()),
            ClockRule::DeltaAbove { ms }
            | ClockRule::FixedPriorityAbove { ms, .. }
            | ClockRule::PhysicsAbove { ms } => finite_ms(ms),
            ClockRule::AlphaCrosses { threshold } => {
                if (0.0..=1.0).contains(&threshold) {
                    Ok(())
                } else {
                    Err(ClockRuleError::AlphaThreshold(threshold))
                }
            }
        }
    }
}

/// Why a [`ClockRule`] is refused when it is made: a value with which it
/// could never hold, or always would.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum ClockRuleError {
    /// "At least 0 ticks" holds every frame.
    #[error("ticks: give 1 or more")]
    NoTicks,
    /// A time limit that is negative or not a number.
    #[error("a time limit must be 0 ms or more, not {0}")]
    TimeLimit(f64),
    /// An alpha threshold outside `0..=1`, which alpha never crosses.
    #[error("alpha threshold must be in 0..=1, not {0}")]
    AlphaThreshold(f64),
}

/// A breakpoint on the shape of a frame or a tick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockBreakpoint {
    /// Set by [`crate::Debugger::add_clock`]; shared with hook breakpoints.
    pub id: BreakpointId,
    /// Disabled breakpoints neither count nor suspend.
    pub enabled: bool,
    /// What it watches for.
    pub rule: ClockRule,
    /// Clock condition (tick and frame ranges), checked before counting.
    pub condition: Condition,
    /// Hit-count rule.
    pub hit_count: HitCount,
    /// Matches so far.
    pub matches: u64,
}

impl ClockBreakpoint {
    /// An enabled breakpoint on `rule`, every match suspending.
    pub fn on(rule: ClockRule) -> ClockBreakpoint {
        ClockBreakpoint {
            id: BreakpointId::default(),
            enabled: true,
            rule,
            condition: Condition::default(),
            hit_count: HitCount::Always,
            matches: 0,
        }
    }
}

/// A clock breakpoint that fired.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockHit {
    /// Which breakpoint.
    pub breakpoint: BreakpointId,
    /// Its rule.
    pub rule: ClockRule,
    /// What was measured: ticks, ms, or alpha.
    pub value: f64,
    /// Completed ticks when it fired.
    pub tick: u64,
    /// Outer frame when it fired.
    pub frame: u64,
}

impl std::fmt::Display for ClockHit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let measured = match self.rule {
            ClockRule::TicksAtLeast(_) => format!("{} ticks", self.value),
            ClockRule::DroppedTime => format!("{:.3} ms dropped", self.value),
            ClockRule::AlphaCrosses { .. } => format!("alpha {:.4}", self.value),
            _ => format!("{:.3} ms", self.value),
        };
        write!(
            f,
            "clock breakpoint {} ({}): {measured}",
            self.breakpoint.0,
            self.rule.describe()
        )
    }
}

/// What a frame was, for the frame rules.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct FrameFacts {
    /// Fixed ticks the frame ran (across resumes).
    pub ticks: u32,
    /// Time dropped at the step cap, ms.
    pub dropped_ms: f64,
    /// The frame's delta, ms.
    pub delta_ms: f64,
    /// Alpha at the frame's end, and at the previous frame's end.
    pub alpha: f64,
    /// `None` for a session's first frame.
    pub previous_alpha: Option<f64>,
}

/// What a tick cost, for the tick rules.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct TickFacts<'a> {
    /// Physics wall time, ms.
    pub physics_ms: f64,
    /// FixedUpdate wall time per priority in this tick, ms.
    pub fixed_by_priority: &'a [(Priority, f64)],
}

impl ClockRule {
    /// The measured value when the frame meets the rule.
    fn frame_value(&self, f: &FrameFacts) -> Option<f64> {
        match *self {
            ClockRule::TicksAtLeast(n) => (f.ticks >= n).then_some(f64::from(f.ticks)),
            ClockRule::DroppedTime => (f.dropped_ms > 0.0).then_some(f.dropped_ms),
            ClockRule::DeltaAbove { ms } => (f.delta_ms > ms).then_some(f.delta_ms),
            ClockRule::AlphaCrosses { threshold } => f
                .previous_alpha
                .filter(|&p| (p < threshold) != (f.alpha < threshold))
                .map(|_| f.alpha),
            _ => None,
        }
    }

    /// The measured value when the tick meets the rule.
    fn tick_value(&self, t: &TickFacts<'_>) -> Option<f64> {
        match *self {
            ClockRule::PhysicsAbove { ms } => (t.physics_ms > ms).then_some(t.physics_ms),
            ClockRule::FixedPriorityAbove { priority, ms } => t
                .fixed_by_priority
                .iter()
                .find(|(p, _)| *p == priority)
                .map(|&(_, took)| took)
                .filter(|&took| took > ms),
            _ => None,
        }
    }
}

/// Counts matches of every enabled breakpoint for which `value` gives a
/// measurement, and returns the first hit its hit count admits.
pub(crate) fn check(
    breakpoints: &mut [ClockBreakpoint],
    clock: &Clock,
    value: impl Fn(&ClockRule) -> Option<f64>,
) -> Option<ClockHit> {
    let mut first = None;
    for b in breakpoints.iter_mut().filter(|b| b.enabled) {
        let Some(measured) = value(&b.rule) else {
            continue;
        };
        if !b.condition.holds(clock) {
            continue;
        }
        b.matches += 1;
        if first.is_none() && b.hit_count.admits(b.matches) {
            first = Some(ClockHit {
                breakpoint: b.id,
                rule: b.rule,
                value: measured,
                tick: clock.simulation_tick,
                frame: clock.frame_index,
            });
        }
    }
    first
}

/// The frame rules' check.
pub(crate) fn check_frame(
    breakpoints: &mut [ClockBreakpoint],
    clock: &Clock,
    facts: &FrameFacts,
) -> Option<ClockHit> {
    check(breakpoints, clock, |r| r.frame_value(facts))
}

/// The tick rules' check.
pub(crate) fn check_tick(
    breakpoints: &mut [ClockBreakpoint],
    clock: &Clock,
    facts: &TickFacts<'_>,
) -> Option<ClockHit> {
    check(breakpoints, clock, |r| r.tick_value(facts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(alpha: f64, previous: Option<f64>) -> FrameFacts {
        FrameFacts {
            alpha,
            previous_alpha: previous,
            ..FrameFacts::default()
        }
    }

    #[test]
    fn alpha_crosses_either_way_and_equal_counts_as_above() {
        let rule = ClockRule::AlphaCrosses { threshold: 0.5 };
        assert_eq!(rule.frame_value(&frame(0.83, Some(0.42))), Some(0.83));
        assert_eq!(rule.frame_value(&frame(0.25, Some(0.83))), Some(0.25));
        assert_eq!(rule.frame_value(&frame(0.5, Some(0.49))), Some(0.5));
        assert_eq!(rule.frame_value(&frame(0.6, Some(0.5))), None);
        assert_eq!(rule.frame_value(&frame(0.9, None)), None, "first frame");
    }

    #[test]
    fn rules_that_could_never_hold_are_refused() {
        assert!(ClockRule::TicksAtLeast(0).validate().is_err());
        assert!(
            ClockRule::AlphaCrosses { threshold: 1.5 }
                .validate()
                .is_err()
        );
        assert!(ClockRule::PhysicsAbove { ms: f64::NAN }.validate().is_err());
        assert!(ClockRule::DeltaAbove { ms: -1.0 }.validate().is_err());
        assert!(ClockRule::DeltaAbove { ms: 20.0 }.validate().is_ok());
    }
}
