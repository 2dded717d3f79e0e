//! The engines scripts run on, built once per process: the plain one, and
//! the one with the line-breakpoint debugger, whose callbacks reach the
//! running call through this thread's call state (`engine.rs`). Both carry
//! the script API (`api.rs`) and the limits (`limits.rs`).

use std::sync::OnceLock;

use rhai::debugger::{BreakPoint, DebuggerCommand, DebuggerEvent};
use rhai::{Engine, Position};

use super::api::register_api;
use super::engine::{call_mut, call_ref};
use super::limits::{self, MAX_OPERATIONS};

fn base_engine() -> Engine {
    let mut engine = Engine::new();
    engine.set_max_operations(MAX_OPERATIONS);
    limits::apply(&mut engine);
    limits::sample_during_calls(&mut engine);
    register_api(&mut engine);
    engine
}

/// The two engines scripts run on (see module docs).
pub(crate) struct Engines {
    /// No debugger: scripts without breakpoints.
    pub(crate) plain: Engine,
    /// With the line-breakpoint debugger.
    pub(crate) debug: Engine,
}

/// The engines, built once per process. Safe to share between sessions: an
/// [`Engine`] is immutable once built (its native functions keep no state;
/// they reach the running call only through this thread's `CALL`).
pub(crate) fn engines() -> &'static Engines {
    static ENGINES: OnceLock<Engines> = OnceLock::new();
    ENGINES.get_or_init(|| {
        let plain = base_engine();
        let mut debug = base_engine();
        #[allow(deprecated)]
        debug.register_debugger(
            |_, mut dbg| {
                call_ref(|c| {
                    if let Some(list) = &c.breakpoints {
                        for b in list.iter() {
                            let Ok(line) = u16::try_from(b.line) else {
                                continue;
                            };
                            dbg.break_points_mut().push(BreakPoint::AtPosition {
                                source: Some(c.source.clone()),
                                pos: Position::new(line, 0),
                                enabled: true,
                            });
                        }
                    }
                });
                dbg
            },
            |ctx, event, node, _source, pos| {
                if !matches!(event, DebuggerEvent::BreakPoint(_)) {
                    return Ok(DebuggerCommand::Continue);
                }
                let Some(line) = pos.line() else {
                    return Ok(DebuggerCommand::Continue);
                };
                call_mut(|c| c.reach_line(&ctx, node.is_stmt(), line, pos))
            },
        );
        Engines { plain, debug }
    })
}
