//! The sandboxed engine conditions, logpoints and watches run on, and the
//! clock they read: below the call machinery, so the breakpoint table and
//! the watches can compile against it without importing the engines.

use std::sync::OnceLock;

use rhai::{Engine, INT, Scope};
use stepframe_core::Clock;

use super::limits::{self, MAX_OPERATIONS};

/// The engine conditions and logpoint expressions are evaluated with: the
/// standard library only, no API, no debugger, printing nowhere.
/// Built once and immutable afterwards (the standard library, no state), so
/// every session may share it.
pub(crate) fn condition_engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| sandboxed_engine(MAX_OPERATIONS))
}

/// An engine with the standard library only, at most `max_operations` a
/// call and the size limits of `limits.rs`, printing nowhere: what
/// conditions and watches run on, so they can neither change the session
/// nor hang it, nor abort it by building a huge value. (They are single
/// expressions, with no loops, so rhai's per-value limits bound them; the
/// scope sampling of hook calls is not needed.)
pub(crate) fn sandboxed_engine(max_operations: u64) -> Engine {
    let mut engine = Engine::new();
    engine.set_max_operations(max_operations);
    limits::apply(&mut engine);
    engine.on_print(|_| {});
    engine.on_debug(|_, _, _| {});
    engine
}

/// The clock as conditions and watches read it: `tick`, `frame`,
/// `sim_time`, `frame_time`, `delta_time`, `fixed_dt`.
pub(crate) fn push_clock(scope: &mut Scope, clock: &Clock) {
    scope.push("tick", clock.simulation_tick as INT);
    scope.push("frame", clock.frame_index as INT);
    scope.push("sim_time", clock.simulation_time);
    scope.push("frame_time", clock.frame_time);
    scope.push("delta_time", clock.delta_time);
    scope.push("fixed_dt", clock.fixed_delta_time);
}
