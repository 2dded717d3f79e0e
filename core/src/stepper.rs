//! The fixed stepper: how much simulated time an outer frame owes, in whole ticks.
//!
//! # The two strategies
//!
//! *Accumulator* (Fiedler's "Fix Your Timestep", Unity): each frame adds its delta
//! to an accumulator; while the accumulator holds a whole `fixed_dt`, a tick runs
//! and `fixed_dt` is subtracted.
//!
//! *Step counting* (s&box): keep the total time `t` and the index of the last step
//! taken; the steps owed are `floor(t / fixed_dt) - step`, and `step` is clamped to
//! `[cur - max_steps, cur]` first so a long frame cannot owe more than `max_steps`.
//!
//! Both run on integer [`Flicks`], so they agree exactly: for any sequence of frame
//! deltas they owe the same number of ticks in every frame and drop the same time
//! (a property test checks it). They share the [`FixedStepper`] interface and the
//! pipeline's single tick executor; only the bookkeeping differs.
//!
//! # The cap, with numbers
//!
//! At 60 Hz (`fixed_dt` = 11,760,000 flicks) with `max_steps` = 4, a frame of
//! 0.1 s (70,560,000 flicks) owes 6 ticks. The cap runs 4 and discards the other
//! 2 whole ticks (1/30 s), which is added to `dropped_time`. The fractional
//! remainder stays, so the next frame's phase is the same as without the stall:
//! `dropped + simulated + accumulator` always equals the total fed time.
//!
//! # Owed ticks and the debugger
//!
//! [`FixedStepper::advance`] adds a frame's time and applies the cap once, at the
//! frame boundary; it returns how many ticks the frame owes. The pipeline then
//! calls [`FixedStepper::expend`] once per completed tick. If a breakpoint suspends
//! the frame after its first tick, the owed ticks simply stay owed (their time is
//! still in the accumulator) and Resume runs them: no callback of a completed tick
//! runs twice and the cap is not applied a second time.

use serde::{Deserialize, Serialize};

use crate::clock::Flicks;

/// Which bookkeeping the stepper uses. Both give identical tick sequences.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StepStrategy {
    /// Fiedler / Unity: an accumulator drained in whole ticks.
    #[default]
    Accumulator,
    /// s&box: `cur = floor(t / dt)`, the step clamped to `[cur - max, cur]`.
    StepCounting,
}

impl StepStrategy {
    /// Both strategies, for matrices in tests and tools.
    pub const ALL: [StepStrategy; 2] = [StepStrategy::Accumulator, StepStrategy::StepCounting];

    /// The name used on the command line and in scenes.
    pub fn name(self) -> &'static str {
        match self {
            StepStrategy::Accumulator => "accumulator",
            StepStrategy::StepCounting => "step-counting",
        }
    }
}

impl std::str::FromStr for StepStrategy {
    type Err = UnknownStrategy;
    fn from_str(s: &str) -> Result<Self, UnknownStrategy> {
        match s {
            "accumulator" => Ok(StepStrategy::Accumulator),
            "step-counting" | "step_counting" => Ok(StepStrategy::StepCounting),
            other => Err(UnknownStrategy(other.to_string())),
        }
    }
}

/// A strategy name that is neither `accumulator` nor `step-counting` (the
/// player's `--strategy`), as given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown strategy `{0}`: expected `accumulator` or `step-counting`")]
pub struct UnknownStrategy(pub String);

/// What one frame owes the fixed phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Advance {
    /// Ticks the frame must run (at most `max_steps`).
    pub owed: u32,
    /// Backlog discarded by the cap in this frame.
    pub dropped: Flicks,
}

/// Bookkeeping of one strategy. Private: the pipeline only sees [`FixedStepper`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Books {
    Accumulator {
        /// Time not yet consumed by a tick (owed ticks included).
        accumulator: Flicks,
    },
    StepCounting {
        /// Total time fed since the books were opened (or rebased).
        time: Flicks,
        /// Index of the last step taken, dropped steps included.
        step: u64,
    },
}

/// Turns frame deltas into whole fixed ticks, exactly, with the step cap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixedStepper {
    /// Length of one tick.
    fixed_dt: Flicks,
    /// The strategy's own bookkeeping.
    books: Books,
    /// Ticks of the current frame not yet run.
    owed: u32,
    /// Ticks completed since the session began.
    completed: u64,
    /// Simulated time at the last change of tick length: the exact sum of
    /// every tick completed before it, each at the length it had.
    base_time: Flicks,
    /// Completed ticks at the last change of tick length.
    base_ticks: u64,
    /// Cumulative backlog discarded by the cap.
    dropped: Flicks,
}

impl FixedStepper {
    /// A stepper with an empty accumulator and no completed tick.
    pub fn new(strategy: StepStrategy, fixed_dt: Flicks) -> FixedStepper {
        FixedStepper {
            fixed_dt: Flicks(fixed_dt.0.max(1)),
            books: Books::open(strategy, Flicks::ZERO),
            owed: 0,
            completed: 0,
            base_time: Flicks::ZERO,
            base_ticks: 0,
            dropped: Flicks::ZERO,
        }
    }

    /// The strategy in use.
    pub fn strategy(&self) -> StepStrategy {
        match self.books {
            Books::Accumulator { .. } => StepStrategy::Accumulator,
            Books::StepCounting { .. } => StepStrategy::StepCounting,
        }
    }

    /// Length of one tick.
    pub fn fixed_dt(&self) -> Flicks {
        self.fixed_dt
    }

    /// Time fed but not yet consumed by a completed tick (owed ticks included).
    pub fn accumulator(&self) -> Flicks {
        match self.books {
            Books::Accumulator { accumulator } => accumulator,
            Books::StepCounting { time, step } => time - self.fixed_dt * step,
        }
    }

    /// Ticks the current frame still owes.
    pub fn owed(&self) -> u32 {
        self.owed
    }

    /// Ticks completed since the session began.
    pub fn completed_ticks(&self) -> u64 {
        self.completed
    }

    /// Simulated time: the sum of every completed tick at the length it
    /// had, exactly (the ticks since the last change of tick length ×
    /// `fixed_dt`, plus the time before that change).
    pub fn simulation_time(&self) -> Flicks {
        self.base_time + self.fixed_dt * (self.completed - self.base_ticks)
    }

    /// Cumulative backlog discarded by the cap.
    pub fn dropped(&self) -> Flicks {
        self.dropped
    }

    /// Adds one frame's (clamped, scaled) delta and applies the cap. Ticks still
    /// owed by an earlier frame are kept and count toward this frame's cap.
    pub fn advance(&mut self, delta: Flicks, max_steps: u32) -> Advance {
        let max = u64::from(max_steps);
        let fixed = self.fixed_dt;
        let dropped_ticks = match &mut self.books {
            Books::Accumulator { accumulator } => {
                *accumulator += delta;
                let whole = accumulator.0 / fixed.0;
                let excess = whole.saturating_sub(max);
                *accumulator = *accumulator - fixed * excess;
                excess
            }
            Books::StepCounting { time, step } => {
                *time += delta;
                let cur = time.0 / fixed.0;
                let clamped = (*step).clamp(cur.saturating_sub(max), cur);
                let excess = clamped - *step;
                *step = clamped;
                excess
            }
        };
        let dropped = fixed * dropped_ticks;
        self.dropped += dropped;
        let owed = self.accumulator().0 / fixed.0;
        self.owed = u32::try_from(owed).unwrap_or(u32::MAX);
        Advance {
            owed: self.owed,
            dropped,
        }
    }

    /// Adds exactly one tick of time and owes it: the debugger's step-tick when the
    /// frame owes nothing. The fractional remainder is untouched, so the next real
    /// frame has the same interpolation phase it would have had.
    pub fn owe_one_more(&mut self) {
        let fixed = self.fixed_dt;
        match &mut self.books {
            Books::Accumulator { accumulator } => *accumulator += fixed,
            Books::StepCounting { time, .. } => *time += fixed,
        }
        self.owed = self.owed.saturating_add(1);
    }

    /// Mid-frame, after [`FixedStepper::reconfigure`] (which leaves nothing
    /// owed until the next advance): owes the whole ticks the accumulator
    /// holds at the new length, but at most `cap`, what the frame still
    /// owed before (the rest waits for the next frame, whose advance
    /// applies the cap again).
    pub fn owe_at_most(&mut self, cap: u32) {
        let whole = self.accumulator().0 / self.fixed_dt.0;
        self.owed = u32::try_from(whole).unwrap_or(u32::MAX).min(cap);
    }

    /// Consumes one owed tick after it completed. Returns `false` (and changes
    /// nothing) when no tick is owed.
    pub fn expend(&mut self) -> bool {
        if self.owed == 0 {
            return false;
        }
        self.owed -= 1;
        self.completed += 1;
        let fixed = self.fixed_dt;
        match &mut self.books {
            Books::Accumulator { accumulator } => *accumulator = *accumulator - fixed,
            Books::StepCounting { step, .. } => *step += 1,
        }
        true
    }

    /// Switches strategy or tick length between frames. The accumulator's
    /// content and the completed ticks carry over (simulation time restarts
    /// only with its physics world, [`FixedStepper::reset`]); step counting
    /// restarts its total from the accumulator so `floor(t / dt)` stays
    /// meaningful under the new `dt`. Owed ticks are recomputed by the next
    /// [`FixedStepper::advance`].
    ///
    /// Worked numbers: 600 ticks at 60 Hz are 600 × 11,760,000 flicks = 10 s;
    /// switched to 50 Hz there, tick 601 starts at 10 s and 50 ticks later
    /// tick 650 ends at 10 s + 50 × 14,112,000 flicks = 11 s, exactly.
    pub fn reconfigure(&mut self, strategy: StepStrategy, fixed_dt: Flicks) {
        let fixed_dt = Flicks(fixed_dt.0.max(1));
        if strategy == self.strategy() && fixed_dt == self.fixed_dt {
            return;
        }
        let pending = self.accumulator();
        // The ticks so far keep the length they had: they become the base.
        self.base_time = self.simulation_time();
        self.base_ticks = self.completed;
        self.fixed_dt = fixed_dt;
        self.books = Books::open(strategy, pending);
        self.owed = 0;
    }

    /// A new physics session: simulated time, the accumulator and the dropped-time
    /// diagnostic all restart from zero.
    pub fn reset(&mut self) {
        *self = FixedStepper::new(self.strategy(), self.fixed_dt);
    }
}

impl Books {
    fn open(strategy: StepStrategy, pending: Flicks) -> Books {
        match strategy {
            StepStrategy::Accumulator => Books::Accumulator {
                accumulator: pending,
            },
            StepStrategy::StepCounting => Books::StepCounting {
                time: pending,
                step: 0,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::FLICKS_PER_SECOND;

    const TICK_60: Flicks = Flicks(11_760_000);
    const FRAME_60: Flicks = Flicks(11_760_000);
    const FRAME_144: Flicks = Flicks(4_900_000);
    const TICK_50: Flicks = Flicks(14_112_000);

    fn both(fixed: Flicks) -> [FixedStepper; 2] {
        StepStrategy::ALL.map(|s| FixedStepper::new(s, fixed))
    }

    fn run_frame(stepper: &mut FixedStepper, delta: Flicks, max: u32) -> u32 {
        let owed = stepper.advance(delta, max).owed;
        for _ in 0..owed {
            assert!(stepper.expend());
        }
        owed
    }

    #[test]
    fn rates_are_whole_flicks() {
        assert_eq!(Flicks::per_hz(60), TICK_60);
        assert_eq!(Flicks::per_hz(144), FRAME_144);
        assert_eq!(Flicks::per_hz(50), TICK_50);
        assert_eq!(Flicks::from_secs_f64(1.0 / 144.0), FRAME_144);
        assert_eq!(Flicks::from_secs_f64(1.0 / 60.0), FRAME_60);
    }

    #[test]
    fn advance_expend_walks_the_accumulator_by_hand() {
        for mut s in both(TICK_60) {
            // Half a tick: nothing owed, all of it waits.
            assert_eq!(s.advance(Flicks(5_880_000), 4).owed, 0);
            assert_eq!(s.accumulator(), Flicks(5_880_000));
            // Another tick and a half: 2 ticks' worth in total, 2 owed.
            assert_eq!(s.advance(Flicks(17_640_000), 4).owed, 2);
            assert!(s.expend());
            assert_eq!(s.accumulator(), Flicks(11_760_000));
            assert!(s.expend());
            assert_eq!(s.accumulator(), Flicks::ZERO);
            assert!(!s.expend(), "{:?}: nothing left to expend", s.strategy());
            assert_eq!(s.completed_ticks(), 2);
            assert_eq!(s.simulation_time(), Flicks(23_520_000));
        }
    }

    #[test]
    fn primer_example_60hz_frames_50hz_ticks() {
        for mut s in both(TICK_50) {
            let pattern: Vec<u32> = (0..6).map(|_| run_frame(&mut s, FRAME_60, 4)).collect();
            assert_eq!(pattern, vec![0, 1, 1, 1, 1, 1], "{:?}", s.strategy());
            assert_eq!(s.accumulator(), Flicks::ZERO);
        }
    }

    #[test]
    fn one_second_of_144hz_frames_is_60_ticks() {
        for mut s in both(TICK_60) {
            let ticks: u32 = (0..144).map(|_| run_frame(&mut s, FRAME_144, 4)).sum();
            assert_eq!(ticks, 60);
            assert_eq!(s.simulation_time(), Flicks(FLICKS_PER_SECOND));
        }
    }

    #[test]
    fn cap_drops_whole_ticks_and_keeps_the_fraction() {
        for mut s in both(TICK_60) {
            // 0.1 s + a quarter tick: 6 whole ticks owed, 4 run, 2 dropped.
            let adv = s.advance(Flicks(70_560_000 + 2_940_000), 4);
            assert_eq!(adv.owed, 4);
            assert_eq!(adv.dropped, Flicks(23_520_000));
            assert_eq!(s.accumulator(), Flicks(47_040_000 + 2_940_000));
            for _ in 0..4 {
                s.expend();
            }
            assert_eq!(s.accumulator(), Flicks(2_940_000));
            assert_eq!(s.dropped(), Flicks(23_520_000));
        }
    }

    #[test]
    fn owed_ticks_survive_a_suspension_and_count_toward_the_next_cap() {
        for mut s in both(TICK_60) {
            assert_eq!(s.advance(TICK_60 * 3, 4).owed, 3);
            s.expend(); // a breakpoint suspends here; two ticks stay owed
            assert_eq!(s.owed(), 2);
            assert_eq!(s.accumulator(), TICK_60 * 2);
            // Next frame brings 3 more: 5 owed, cap 4, one dropped.
            let adv = s.advance(TICK_60 * 3, 4);
            assert_eq!((adv.owed, adv.dropped), (4, TICK_60));
        }
    }

    #[test]
    fn owe_one_more_keeps_the_fraction() {
        for mut s in both(TICK_60) {
            s.advance(Flicks(1_000), 4);
            s.owe_one_more();
            assert_eq!(s.owed(), 1);
            assert!(s.expend());
            assert_eq!(s.accumulator(), Flicks(1_000));
            assert_eq!(s.completed_ticks(), 1);
        }
    }

    #[test]
    fn a_new_tick_length_keeps_the_count_and_the_exact_time() {
        for mut s in both(TICK_60) {
            let strategy = s.strategy();
            for _ in 0..600 {
                run_frame(&mut s, FRAME_60, 4);
            }
            assert_eq!(s.simulation_time(), Flicks(600 * 11_760_000));
            s.reconfigure(strategy, TICK_50);
            assert_eq!(s.completed_ticks(), 600);
            assert_eq!(s.simulation_time(), Flicks(10 * FLICKS_PER_SECOND));
            for _ in 0..50 {
                run_frame(&mut s, TICK_50, 4);
            }
            assert_eq!(s.completed_ticks(), 650);
            // 10 s + 50 × 14,112,000 flicks = 11 s.
            assert_eq!(s.simulation_time(), Flicks(11 * FLICKS_PER_SECOND));
            // Back to 60 Hz: every earlier tick keeps the length it had.
            s.reconfigure(strategy, TICK_60);
            run_frame(&mut s, FRAME_60, 4);
            assert_eq!(
                s.simulation_time(),
                Flicks(11 * FLICKS_PER_SECOND + 11_760_000)
            );
        }
    }

    #[test]
    fn reset_restarts_simulated_time() {
        for mut s in both(TICK_60) {
            run_frame(&mut s, Flicks(FLICKS_PER_SECOND), 100);
            s.reset();
            assert_eq!(s.completed_ticks(), 0);
            assert_eq!(s.dropped(), Flicks::ZERO);
            assert_eq!(s.accumulator(), Flicks::ZERO);
        }
    }
}
