//! The Script behaviour's calls on rhai: hooks outside the typed subset (or
//! with a line breakpoint set), and timed routines; the breakpoint timing is
//! in the parent module's docs.

use rhai::{AST, CallFnOptions, Dynamic, EvalAltResult, FuncArgs};
use stepframe_core::{Ctx, HookKind, LogLevel, Wait};

use super::{Rerun, Script, engine, host, limits};

/// `line:column` of an error of a call of `function`: rhai's position, else
/// the function's (rhai passes "Too many operations", "Stack overflow" and
/// the size errors up through every call with the caller's position, and a
/// hook has no caller), else the first line.
pub(super) fn error_place(ast: &AST, function: &str, e: &EvalAltResult) -> (usize, usize) {
    let pos = Some(e.position())
        .filter(|p| !p.is_none())
        .or_else(|| super::cache::function_position(ast, function));
    match pos {
        Some(p) => (p.line().unwrap_or(1), p.position().unwrap_or(1)),
        None => (1, 1),
    }
}

impl Script {
    /// A routine the script started (`start_routine(name, seconds)`) is due:
    /// calls `name()` and turns what it returns into the next wait (see the
    /// module docs, "Timed routines").
    pub(super) fn call_routine(&mut self, ctx: &mut Ctx, name: &str) -> Wait {
        if self.failed.is_some() {
            return Wait::Done;
        }
        let defined = self
            .program
            .ast
            .iter_functions()
            .any(|f| f.name == name && f.params.is_empty());
        if !defined {
            ctx.log_at(
                LogLevel::Error,
                format!(
                    "{}: routine `{name}`: the script has no function `{name}()` without parameters; the routine ends",
                    self.program.source
                ),
            );
            return Wait::Done;
        }
        let debug = self.debugging();
        let Some(value) = self.call_rhai(ctx, HookKind::Routine, name, (), debug) else {
            return Wait::Done;
        };
        let seconds = value
            .as_float()
            .ok()
            .or_else(|| value.as_int().ok().map(|i| i as rhai::FLOAT));
        match seconds {
            Some(s) if s.is_finite() && s >= 0.0 => Wait::Seconds(s),
            Some(s) => {
                ctx.log_at(
                    LogLevel::Warning,
                    format!(
                        "{}: routine `{name}` returned {s}: a wait must be a finite number of seconds >= 0; the routine ends",
                        self.program.source
                    ),
                );
                Wait::Done
            }
            None => Wait::Done,
        }
    }

    /// Runs the hook function on rhai (see module docs for breakpoints). Kept
    /// out of line: the fast paths above should not pay for its stack frame.
    #[inline(never)]
    /// Returns what the function returned, or `None` when it failed or was
    /// aborted at a breakpoint.
    pub(super) fn call_rhai(
        &mut self,
        ctx: &mut Ctx,
        hook: HookKind,
        function: &str,
        args: impl FuncArgs,
        debug: bool,
    ) -> Option<Dynamic> {
        self.sync_scope();
        self.host.count(host::Engine::Rhai);
        let rerunnable = matches!(
            hook,
            HookKind::Start | HookKind::Update | HookKind::FlowTick
        );
        let frame = ctx.clock().frame_index;
        let skip_stops = match self.rerun.take() {
            Some(r) if r.hook == hook && r.frame == frame => r.stops,
            _ => 0,
        };
        let saved = (debug && rerunnable).then(|| self.scope.clone());
        engine::begin(
            ctx,
            engine::DebugSetup {
                source: self.program.source.clone(),
                breakpoints: self.bps.clone(),
                abort_on_stop: rerunnable,
                skip_stops,
            },
        );
        let engines = super::engines::engines();
        let engine = if debug {
            &engines.debug
        } else {
            &engines.plain
        };
        let options = CallFnOptions::new().eval_ast(false).rewind_scope(true);
        let result = engine.call_fn_with_options::<Dynamic>(
            options,
            &mut self.scope,
            &self.program.ast,
            function,
            args,
        );
        let end = engine::end();
        if let Some(hit) = &end.stop {
            self.host.breakpoints().record_hit(hit.clone());
            let message = format!(
                "script breakpoint {}:{}:{} in {}",
                hit.path,
                hit.line,
                hit.column,
                hit.stack.first().map_or("?", String::as_str)
            );
            if rerunnable {
                // Undo the aborted run entirely, then stop before this hook.
                engine::discard();
                if let Some(scope) = saved {
                    self.scope = scope;
                }
                self.rerun = Some(Rerun {
                    hook,
                    frame,
                    stops: end.stops_seen,
                });
                ctx.request_break_and_rerun(message);
                return None;
            }
            engine::commit(ctx);
            ctx.request_break(message);
        } else {
            engine::commit(ctx);
        }
        // What the call left in the script's state must fit the budget too
        // (a map grown by `m[key] = v` is not measured by rhai itself; see
        // `limits.rs`).
        let result = result.and_then(|value| {
            limits::check_scope(&self.scope)?;
            Ok(value)
        });
        if let Err(e) = result {
            let (line, column) = error_place(&self.program.ast, function, &e);
            let somewhere = if e.position().is_none() {
                format!(
                    " (rhai does not say where in `{function}` or the functions it calls: \
                     this is where `{function}` starts)"
                )
            } else {
                String::new()
            };
            let message = format!(
                "{}:{line}:{column}: {function} failed: {e}{somewhere}; the script's hooks stop until it is reloaded",
                self.program.source,
            );
            ctx.log_at(LogLevel::Error, message.clone());
            self.host.record_failure(
                &self.program.source,
                self.program.generation,
                super::ScriptFailure {
                    function: function.to_string(),
                    line,
                    column,
                    message: e.to_string(),
                    object: ctx.me(),
                    tick: ctx.clock().simulation_tick,
                },
            );
            self.failed = Some(message);
            return None;
        }
        result.ok()
    }
}
