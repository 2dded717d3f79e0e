//! [`RewindReach`]: how far back a history reaches now, and how far its
//! byte budget would reach at the rate it fills, as the editor shows them.
//!
//! Two figures, because they answer two questions. "History holds 26 s" is
//! what a rewind can reach right now: the simulated time since the oldest
//! keyframe. "Budget reaches ≈ 9 min at this rate" is a projection: how far
//! back the budget will let rewind reach once the history is full, from the
//! bytes the history spends per simulated second now, counting the
//! spacing doublings that stretch the same bytes over more time (see
//! [`super`]'s bounds). Worked numbers: a history holding 100 s in 8 MiB
//! at 120 frames apart spends 0.08 MiB a second; at two doublings the same
//! keyframes are 480 frames apart (0.02 MiB a second), so 256 MiB reach
//! 12,800 s, 3 h 33 min (the test below).

use super::MAX_SPACING_DOUBLINGS;

/// How far back rewind reaches and what that costs (see [`super::Session::reach`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RewindReach {
    /// Simulated seconds between the oldest keyframe and the live tick.
    pub seconds: f64,
    /// The oldest tick a rewind can reach, if the history has a keyframe.
    pub oldest_tick: Option<u64>,
    /// Bytes the history holds (keyframes and call log).
    pub bytes: usize,
    /// The byte budget, if the history has one.
    pub budget: Option<usize>,
    /// Frames between keyframes now (doubles as the budget fills).
    pub keyframe_every: u64,
    /// Frames between keyframes at the last doubling the budget allows.
    pub widest_every: u64,
}

/// "1 h 5 min", "9 min 40 s", "26 s".
fn duration_text(seconds: f64) -> String {
    let total = seconds.max(0.0).floor() as u64;
    let (h, m, s) = (total / 3600, total / 60 % 60, total % 60);
    if h > 0 {
        format!("{h} h {m} min")
    } else if m > 0 {
        format!("{m} min {s} s")
    } else {
        format!("{s} s")
    }
}

impl RewindReach {
    /// Seconds of rewind the budget reaches once the history is full, at
    /// the rate it fills now (module docs); `None` without a budget or
    /// before the history holds enough to measure the rate.
    pub fn projected_seconds(&self) -> Option<f64> {
        let budget = self.budget? as f64;
        if self.seconds <= 0.0 || self.bytes == 0 {
            return None;
        }
        let per_second = self.bytes as f64 / self.seconds;
        // Wider spacing spends the keyframes' bytes over more time.
        let stretch = self.widest_every.max(1) as f64 / self.keyframe_every.max(1) as f64;
        Some(budget / per_second * stretch)
    }

    /// "history holds 26 s (from tick 120)".
    pub fn held_text(&self) -> String {
        match self.oldest_tick {
            Some(t) => format!(
                "history holds {} (from tick {t})",
                duration_text(self.seconds)
            ),
            None => "history holds nothing yet (the first keyframe comes with the next frame)"
                .to_string(),
        }
    }

    /// "budget reaches ≈ 9 min at this rate (256 MiB)", or what the history
    /// holds without a budget.
    pub fn budget_text(&self) -> String {
        let mib = |b: usize| b as f64 / f64::from(1u32 << 20);
        match (self.budget, self.projected_seconds()) {
            (Some(b), Some(s)) => format!(
                "budget reaches ≈ {} at this rate ({} MiB)",
                duration_text(s),
                mib(b).round()
            ),
            (Some(b), None) => format!("budget {} MiB", mib(b).round()),
            (None, _) => format!("no budget ({:.1} MiB held)", mib(self.bytes)),
        }
    }
}

impl std::fmt::Display for RewindReach {
    /// "history holds 26 s (from tick 120); budget reaches ≈ 9 min at this
    /// rate (256 MiB)".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}; {}", self.held_text(), self.budget_text())
    }
}

/// Frames between keyframes after every doubling a budget allows.
pub(super) fn widest_every(base_every: u64) -> u64 {
    base_every << MAX_SPACING_DOUBLINGS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_history_holds_and_where_the_budget_reaches() {
        // 100 s held in 8 MiB, a keyframe every 120 frames (widest 480):
        // 8 MiB per 100 s is 0.08 MiB/s; four times wider spacing makes it
        // 0.02 MiB/s, so 256 MiB reach 12,800 s = 3 h 33 min.
        let reach = RewindReach {
            seconds: 100.0,
            oldest_tick: Some(120),
            bytes: 8 << 20,
            budget: Some(256 << 20),
            keyframe_every: 120,
            widest_every: 480,
        };
        assert_eq!(
            reach.held_text(),
            "history holds 1 min 40 s (from tick 120)"
        );
        assert_eq!(reach.projected_seconds(), Some(12_800.0));
        assert_eq!(
            reach.budget_text(),
            "budget reaches ≈ 3 h 33 min at this rate (256 MiB)"
        );
        // Nothing held yet: no rate to project from.
        let empty = RewindReach {
            seconds: 0.0,
            oldest_tick: None,
            bytes: 0,
            ..reach
        };
        assert_eq!(empty.projected_seconds(), None);
        assert_eq!(empty.budget_text(), "budget 256 MiB");
    }
}
