//! Exact game time and the eight clock fields of the phase contract.
//!
//! # Why integer time
//!
//! A float sum drifts: adding `1.0 / 144.0` to itself 144 times does not give
//! exactly `1.0`, so an accumulator fed with float frame times at 144 Hz runs 59
//! ticks in the first second on some machines and 60 on others. stepframe keeps
//! every duration as a whole number of [`Flicks`]: 1/705,600,000 of a second, the
//! unit chosen because it divides evenly by every common frame and tick rate
//! (24, 25, 30, 48, 50, 60, 90, 100, 120, 144, 240, 1000 Hz).
//!
//! Worked numbers: one frame at 144 Hz is exactly 4,900,000 flicks and one tick at
//! 60 Hz is exactly 11,760,000 flicks, so 144 frames make 705,600,000 flicks, which
//! is exactly 60 ticks, for as long as the game runs. A frame at 60 Hz
//! (11,760,000) against a 50 Hz tick (14,112,000) leaves 11,760,000 after the first
//! frame (no tick), 9,408,000 after the second (one tick), and so on: six frames
//! run exactly five ticks in the pattern 0, 1, 1, 1, 1, 1.
//!
//! Raw frame times arrive as `f64` seconds from the OS and are rounded once, to the
//! nearest flick (about 1.4 ns), when they enter [`crate::Pipeline::step_frame`].
//! Every later computation is integer arithmetic; the `f64` fields of [`Clock`] are
//! derived from the integers and never fed back.
//!
//! # The clock fields
//!
//! [`Clock`] is the value behaviours read in every phase. Its meaning per phase:
//!
//! | field | update phase | during FixedUpdate of tick n | after tick n's physics |
//! |---|---|---|---|
//! | `delta_time` | this frame's clamped, scaled delta | same | same |
//! | `simulation_tick` | ticks completed so far | `n` (the pending tick) | `n` |
//! | `simulation_time` | the completed ticks' lengths summed | start of tick n (the completed ticks' sum) | end of tick n |
//! | `interpolation_alpha` | the previous frame's | same | same; this frame's once the fixed phase has drained the accumulator |
//!
//! Flow Tick runs after the fixed phase but on the update phase's clock
//! (`Phase::Update`): ticks completed, frame delta, and this frame's alpha.
//!
//! `interpolation_alpha` is `accumulator / fixed_delta_time`, set as soon as
//! the fixed phase has drained the accumulator (so Flow Tick and presentation
//! read the same value) and whenever the pipeline stops outside presentation
//! (a suspension, or a frame whose presentation was skipped): then it is the accumulator over fixed
//! dt of the state it stopped in, above 1 while a suspended frame still owes
//! ticks (2.25: two owed ticks and a quarter).
//!
//! Simulation time restarts only with its physics world (a new scene, a
//! reload). A change of the fixed rate or the strategy mid-run keeps
//! `simulation_tick` counting, and `simulation_time` stays the exact sum of
//! the completed ticks at each length they had: 600 ticks at 60 Hz, then 50
//! at 50 Hz, are tick 650 at exactly 11 s ([`crate::FixedStepper::reconfigure`]).
//!
//! `frame_time` is the sum of every active frame's `delta_time`; `frame_index`
//! is the one-based index of the current (or last) outer frame, 0 before the first;
//! `dropped_time` is the cumulative backlog discarded by the step cap.

use serde::{Deserialize, Serialize};

/// Flicks in one second: divisible by every common display and tick rate, so
/// frame and tick durations at those rates are whole numbers (see module docs).
pub const FLICKS_PER_SECOND: u64 = 705_600_000;

/// A duration (or an instant measured from a clock's origin) in flicks,
/// 1/705,600,000 s. `u64` flicks last about 826 years, so overflow is not a concern.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Flicks(pub u64);

impl Flicks {
    /// No time at all.
    pub const ZERO: Flicks = Flicks(0);

    /// Rounds seconds to the nearest flick. Negative and non-finite inputs give
    /// zero: a frame can never move time backwards.
    pub fn from_secs_f64(seconds: f64) -> Flicks {
        if !seconds.is_finite() || seconds <= 0.0 {
            return Flicks::ZERO;
        }
        let flicks = (seconds * FLICKS_PER_SECOND as f64).round();
        if flicks >= u64::MAX as f64 {
            Flicks(u64::MAX)
        } else {
            Flicks(flicks as u64)
        }
    }

    /// The duration of one period at `hz`, exact whenever `hz` divides 705,600,000
    /// (all usual rates do), otherwise rounded to the nearest flick.
    pub fn per_hz(hz: u32) -> Flicks {
        let hz = u64::from(hz.max(1));
        Flicks((FLICKS_PER_SECOND + hz / 2) / hz)
    }

    /// Seconds as `f64`, for display and for hooks. Never fed back into timing.
    pub fn as_secs_f64(self) -> f64 {
        // Split so that large values keep full precision in the fractional part.
        let whole = self.0 / FLICKS_PER_SECOND;
        let rest = self.0 % FLICKS_PER_SECOND;
        whole as f64 + rest as f64 / FLICKS_PER_SECOND as f64
    }

    /// Scales by a time-scale factor, rounding to the nearest flick. Frame lengths
    /// are far below 2^53 flicks, so the product is exact for the usual factors
    /// (0, 0.25, 0.5, 1, 2, 4) and the result is the same on every machine.
    pub fn scaled(self, factor: f64) -> Flicks {
        if !factor.is_finite() || factor <= 0.0 {
            return Flicks::ZERO;
        }
        let product = (self.0 as f64 * factor).round();
        if product >= u64::MAX as f64 {
            Flicks(u64::MAX)
        } else {
            Flicks(product as u64)
        }
    }
}

impl std::ops::Add for Flicks {
    type Output = Flicks;
    fn add(self, rhs: Flicks) -> Flicks {
        Flicks(self.0.saturating_add(rhs.0))
    }
}

impl std::ops::AddAssign for Flicks {
    fn add_assign(&mut self, rhs: Flicks) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}

impl std::ops::Sub for Flicks {
    type Output = Flicks;
    fn sub(self, rhs: Flicks) -> Flicks {
        Flicks(self.0.saturating_sub(rhs.0))
    }
}

impl std::ops::Mul<u64> for Flicks {
    type Output = Flicks;
    fn mul(self, rhs: u64) -> Flicks {
        Flicks(self.0.saturating_mul(rhs))
    }
}

/// The phase the pipeline is in when a clock value is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// Between frames, or while suspended at the end of a frame.
    #[default]
    Idle,
    /// Start, Update and frame-clock routines, and Flow Tick (which runs after
    /// the fixed phase, on this phase's clock).
    Update,
    /// FixedUpdate, physics and contact callbacks of one tick.
    Fixed,
    /// Interpolated poses and presentation hooks.
    Presentation,
}

/// The clock every hook reads: the contract's eight fields plus the accumulator.
///
/// A plain `Copy` value: hooks get a snapshot that cannot change under them, and
/// the debugger can keep one per suspension. See the module docs for what each
/// field means in each phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    /// This outer frame's delta: `min(raw_dt, max_delta) × time_scale`, seconds.
    pub delta_time: f64,
    /// Sum of every active outer frame's `delta_time` since the session began, seconds.
    pub frame_time: f64,
    /// One-based index of the current (or last) active outer frame; 0 before the first.
    pub frame_index: u64,
    /// Start of the pending tick during FixedUpdate; end of the completed tick after
    /// physics and outside the fixed phase, seconds. Always `tick × fixed_delta_time`.
    pub simulation_time: f64,
    /// One-based index of the pending tick during FixedUpdate; the number of
    /// completed ticks everywhere else.
    pub simulation_tick: u64,
    /// Length of one fixed tick, seconds (1/60 by default).
    pub fixed_delta_time: f64,
    /// `accumulator / fixed_delta_time` as of the last presentation phase, in
    /// [0, 1), or of the state a suspension stopped in (above 1 while ticks are
    /// still owed; see the module docs).
    pub interpolation_alpha: f64,
    /// Cumulative backlog discarded by the `max_steps` cap, seconds.
    pub dropped_time: f64,
    /// Time waiting in the fixed stepper that no tick has consumed yet, seconds.
    pub accumulator: f64,
    /// The phase in which this value was taken.
    pub phase: Phase,
}
