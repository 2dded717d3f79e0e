//! When a hook call counts as stuck: the same reading of the fault marker
//! for the whole stuck-hook limit, timed on the watcher's own clock.
//!
//! The child never reads a clock for this (a marker write is a few stores),
//! so the watcher times each reading itself: the reading it first saw at its
//! time `t` is stuck at `t + limit` if every later look saw the same one.
//! A reading is the whole [`HookCall`] (call number, object, behaviour, hook,
//! tick), so FixedUpdate's fast loop, which keeps one call number for a pass
//! and moves the object on (`stepframe_core::hook_beacon`), is not one call.
//! Worked numbers, with a limit of 2 s and a look every 50 ms: a call that
//! starts at 10.03 s is first seen at 10.05 s and called stuck at the first
//! look at or after 12.05 s, so at most 2.05 s after it began plus one look;
//! a pass of 10,000 calls of 2.5 ns each changes the reading 10,000 times in
//! 25 µs and is never stuck.

use std::time::Duration;

use stepframe_core::HookCall;

/// The stuck-hook watch (module docs): fed one reading per look, with the
/// watcher's time of the look.
#[derive(Clone, Debug)]
pub struct StuckWatch {
    /// How long one reading may stay before it is stuck.
    after: Duration,
    /// The reading being timed, and when it was first seen.
    seen: Option<(HookCall, Duration)>,
}

impl StuckWatch {
    /// A watch that calls a call stuck after `after`.
    pub fn new(after: Duration) -> StuckWatch {
        StuckWatch { after, seen: None }
    }

    /// The limit.
    pub fn after(&self) -> Duration {
        self.after
    }

    /// One look at `now`: the call the marker shows (`None` outside every
    /// hook). Returns the call once it has been the same for the limit.
    pub fn look(&mut self, reading: Option<HookCall>, now: Duration) -> Option<HookCall> {
        let Some(call) = reading else {
            self.seen = None;
            return None;
        };
        match self.seen {
            Some((seen, since)) if seen == call => {
                (now.saturating_sub(since) >= self.after).then_some(call)
            }
            _ => {
                self.seen = Some((call, now));
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stepframe_core::{HookKind, ObjectId};

    fn call(call: u64, object: u64) -> Option<HookCall> {
        Some(HookCall {
            call,
            object: ObjectId(object),
            seq: 1,
            hook: HookKind::FixedUpdate,
            tick: 120,
        })
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_same_call_for_the_whole_limit_is_stuck_and_not_a_moment_before() {
        let mut w = StuckWatch::new(ms(2000));
        assert_eq!(w.look(call(4, 3), ms(10_050)), None);
        assert_eq!(w.look(call(4, 3), ms(12_000)), None);
        assert_eq!(w.look(call(4, 3), ms(12_049)), None);
        assert_eq!(w.look(call(4, 3), ms(12_050)), call(4, 3));
    }

    #[test]
    fn a_new_call_an_object_moving_on_or_no_hook_starts_the_clock_again() {
        let mut w = StuckWatch::new(ms(2000));
        w.look(call(4, 3), ms(0));
        assert_eq!(w.look(call(6, 3), ms(1900)), None, "a new call number");
        assert_eq!(
            w.look(call(6, 4), ms(3800)),
            None,
            "the fast loop's next object"
        );
        assert_eq!(w.look(None, ms(5700)), None, "between frames");
        assert_eq!(w.look(call(6, 4), ms(5800)), None, "seen afresh");
        assert_eq!(w.look(call(6, 4), ms(7800)), call(6, 4));
    }
}
