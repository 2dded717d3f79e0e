//! What every breakpoint shares, whether it stops a hook or the shape of a
//! frame: its [`BreakpointId`], the clock [`Condition`] it is evaluated
//! under and the [`HitCount`] that decides which match suspends.
//!
//! A leaf below [`crate::debugger`] and [`crate::clock_breakpoint`], so that
//! neither needs the other for these. Worked example: `ticks: (10, 40)`
//! with `every_ticks: 5` holds at ticks 10, 15, ... 40; with
//! `HitCount::Equals(3)` only the third of those matches (tick 20) suspends.

use serde::{Deserialize, Serialize};

use crate::clock::Clock;

/// Identifies a breakpoint.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct BreakpointId(pub u32);

/// When a matching call counts as a hit that suspends, by how many times the
/// breakpoint's filters have matched so far (this one included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HitCount {
    /// Every match suspends.
    #[default]
    Always,
    /// Only the n-th match suspends.
    Equals(u64),
    /// The n-th match and every later one.
    AtLeast(u64),
    /// Every n-th match.
    Multiple(u64),
}

impl HitCount {
    pub(crate) fn admits(self, count: u64) -> bool {
        match self {
            HitCount::Always => true,
            HitCount::Equals(n) => count == n,
            HitCount::AtLeast(n) => count >= n,
            HitCount::Multiple(n) => n > 0 && count.is_multiple_of(n),
        }
    }
}

/// A condition on the clock, evaluated before the hit count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Condition {
    /// Only ticks in `[first, last]` (the pending tick in fixed code, the completed
    /// tick count elsewhere).
    pub ticks: Option<(u64, u64)>,
    /// Only every n-th tick, counted from the first tick of `ticks` (or from
    /// tick 0 without a range): `ticks: (10, ..)` with `every_ticks: 5` holds at
    /// ticks 10, 15, 20... A user who types "from 10, every 5" means the tenth
    /// tick and every fifth after it, not the multiples of five past ten.
    pub every_ticks: Option<u64>,
    /// Only frames in `[first, last]`.
    pub frames: Option<(u64, u64)>,
}

impl Condition {
    pub(crate) fn holds(&self, clock: &Clock) -> bool {
        let tick = clock.simulation_tick;
        let from = self.ticks.map_or(0, |(a, _)| a);
        self.ticks.is_none_or(|(a, b)| (a..=b).contains(&tick))
            && self.every_ticks.is_none_or(|n| {
                n > 0 && tick.checked_sub(from).is_some_and(|d| d.is_multiple_of(n))
            })
            && self
                .frames
                .is_none_or(|(a, b)| (a..=b).contains(&clock.frame_index))
    }
}
