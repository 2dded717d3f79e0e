//! Which hook a pipeline is inside right now, readable from another thread.
//!
//! A hook that panics is caught; a hook that never returns (an endless loop
//! in a Rust behaviour) cannot be stopped by anything in the process. What
//! the host can do is notice it and walk away: the editor watches its
//! worker's beacon from the UI thread, and when the same hook call has been
//! running for more than a few seconds it names the object, the behaviour
//! and the hook, and offers a fresh worker from the last recovery point.
//!
//! The beacon is written by the one thread that runs the pipeline and read by
//! any other. A write is a few plain atomic stores and no clock read: every
//! hook call gets a new *call number* (odd while the call is being written,
//! even once it is readable). The reader times a call itself: the call it saw
//! first at its time `t` is still running at its time `t + 5 s` if the call
//! number has not moved. So the cost on the worker is the same on any machine
//! and the watchdog's time source is the reader's (injectable in tests).
//!
//! Installed with [`crate::Pipeline::set_hook_beacon`]; while one is
//! installed, FixedUpdate goes through the per-call dispatch loop (the one a
//! session with an armed breakpoint uses) so every call is announced.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::ids::{HookKind, ObjectId};

/// `hook` value when no hook runs.
const OUTSIDE: u64 = u64::MAX;

#[derive(Debug, Default)]
struct Cells {
    /// Call number: odd while a write is under way.
    call: AtomicU64,
    /// The running hook's object id.
    object: AtomicU64,
    /// The running behaviour's registration number (its cohort entry's).
    seq: AtomicU64,
    /// The running hook's kind (index into [`HookKind::ALL`]), or `OUTSIDE`.
    hook: AtomicU64,
}

/// A shared cell saying which hook call runs (see the module docs). Clones
/// share the cell: one goes to the pipeline, one to the watcher.
#[derive(Clone, Debug, Default)]
pub struct HookBeacon {
    cells: Arc<Cells>,
}

/// One hook call as the beacon last said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookCall {
    /// Which call (a new number for every call: the same number twice means
    /// the same call is still running).
    pub call: u64,
    /// The object the hook runs for.
    pub object: ObjectId,
    /// The behaviour's registration number in the cohort
    /// ([`crate::Snapshot::behaviour_name`] finds its name).
    pub seq: u64,
    /// The hook.
    pub hook: HookKind,
}

impl HookBeacon {
    /// A beacon that says no hook runs.
    pub fn new() -> HookBeacon {
        let beacon = HookBeacon::default();
        beacon.cells.hook.store(OUTSIDE, Ordering::Relaxed);
        beacon
    }

    fn write(&self, object: u64, seq: u64, hook: u64) {
        let c = &self.cells;
        // One writer: a load and two stores, no read-modify-write.
        let n = c.call.load(Ordering::Relaxed);
        c.call.store(n.wrapping_add(1), Ordering::Relaxed);
        std::sync::atomic::fence(Ordering::Release);
        c.object.store(object, Ordering::Relaxed);
        c.seq.store(seq, Ordering::Relaxed);
        c.hook.store(hook, Ordering::Relaxed);
        c.call.store(n.wrapping_add(2), Ordering::Release);
    }

    /// The pipeline is about to call `hook` of behaviour `seq` of `object`.
    #[inline]
    pub fn enter(&self, object: ObjectId, seq: u64, hook: HookKind) {
        let kind = HookKind::ALL.iter().position(|k| *k == hook).unwrap_or(0);
        self.write(object.0, seq, kind as u64);
    }

    /// No hook runs any more (the pass of calls ended).
    #[inline]
    pub fn leave(&self) {
        if self.cells.hook.load(Ordering::Relaxed) != OUTSIDE {
            self.write(0, 0, OUTSIDE);
        }
    }

    /// The hook call running now, if any; `None` also while the writer is
    /// between two stores (the next read will see it).
    pub fn current(&self) -> Option<HookCall> {
        let c = &self.cells;
        let before = c.call.load(Ordering::Acquire);
        if before % 2 == 1 {
            return None;
        }
        let object = c.object.load(Ordering::Relaxed);
        let seq = c.seq.load(Ordering::Relaxed);
        let hook = c.hook.load(Ordering::Relaxed);
        std::sync::atomic::fence(Ordering::Acquire);
        if c.call.load(Ordering::Relaxed) != before {
            return None;
        }
        let hook = *HookKind::ALL.get(usize::try_from(hook).ok()?)?;
        Some(HookCall {
            call: before,
            object: ObjectId(object),
            seq,
            hook,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_beacon_names_the_call_until_the_pass_ends() {
        let b = HookBeacon::new();
        assert_eq!(b.current(), None);
        b.enter(ObjectId(3), 7, HookKind::FixedUpdate);
        let first = b.current().expect("inside a call");
        assert_eq!(
            (first.object, first.seq, first.hook),
            (ObjectId(3), 7, HookKind::FixedUpdate)
        );
        assert_eq!(b.current(), Some(first), "the same call, read twice");
        b.enter(ObjectId(3), 8, HookKind::Present);
        let second = b.current().expect("inside a call");
        assert_ne!(second.call, first.call, "a new call has a new number");
        assert_eq!(second.hook, HookKind::Present);
        b.leave();
        assert_eq!(b.current(), None);
    }
}
