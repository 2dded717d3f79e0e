//! The rhai engines, the call state the script API (`api.rs`) reads and
//! writes, and the debugger hook.
//!
//! # How a native function reaches the hook's context
//!
//! Native functions registered on a rhai [`Engine`] are `'static` closures: they
//! cannot borrow the [`Ctx`] of the hook that is running. So a hook call goes in
//! three steps, all on the calling thread:
//!
//! 1. [`begin`] copies what a script may read into this thread's call state:
//!    the object, the hook, the clock, the object's committed pose and velocity,
//!    the input snapshot of the phase, and the session's random generator;
//! 2. the script runs; reads come from that copy, and every write (body
//!    commands, spawns, removals, log lines, break requests, random draws) goes
//!    to a command buffer, in call order;
//! 3. [`commit`] applies the buffer through `Ctx` in the same order and writes
//!    the generator back, or [`discard`] drops it all (a Start/Update hook
//!    aborted at a line breakpoint: it will run again on resume).
//!
//! Nothing a script can reach depends on the wall clock (no `timestamp()`: the
//! crate is built with `no_time`), on a hash order (object maps are `BTreeMap`s)
//! or on shared mutable values (`no_closure`: no value is ever shared, so a
//! cloned scope is independent of the original).
//!
//! # Two engines
//!
//! With a debugger registered, rhai calls back at every statement to compare it
//! with the breakpoint list and copies every function's arguments for the call
//! stack. A script with no breakpoint set runs on the `plain` engine, which has
//! no debugger at all; one with breakpoints runs on the `debug` engine. Both
//! register the same API, so a script behaves identically on either.
//!
//! Every engine caps a call at [`MAX_OPERATIONS`] operations, so a script stuck
//! in a loop fails (logged, script disabled until reloaded) instead of hanging
//! the worker thread, and every engine has the size limits of `limits.rs`, so
//! a script that builds a huge string, array or map fails the same way
//! instead of aborting the process.

use std::cell::RefCell;
use std::sync::Arc;

#[allow(deprecated)]
use rhai::debugger::DebuggerCommand;
use rhai::{Dynamic, EvalAltResult, EvalContext, ImmutableString, Position, Scope};
use stepframe_core::{
    ActionSnapshot, BodyCommand, Clock, Ctx, HookKind, LogLevel, ObjectDesc, ObjectId, Pose, Rng,
    Vec2, Velocity,
};

use super::breakpoints::{LineBreakpoint, Part, ScriptHit};
use super::ir::Out;
use super::limits::{self, MAX_COMMANDS, MAX_TEXT_BYTES};
use super::sandbox::{condition_engine, push_clock};
use super::value::show;

pub(super) type RhaiResult<T> = Result<T, Box<EvalAltResult>>;

/// A write a script made, applied after the call in this order.
pub(super) enum Command {
    Body(BodyCommand),
    Spawn(Box<ObjectDesc>),
    Remove(ObjectId),
    Log(LogLevel, String),
    Break(String),
    /// `start_routine(name, seconds)`.
    Routine(String, f64),
}

/// What one call may read and what it wrote (see module docs).
#[derive(Default)]
pub(super) struct CallState {
    pub(super) active: bool,
    pub(super) me: ObjectId,
    pub(super) hook: Option<HookKind>,
    pub(super) clock: Clock,
    pub(super) pose: Option<Pose>,
    pub(super) velocity: Option<Velocity>,
    /// A soft body's committed particles (empty for any other object; the
    /// buffer is reused, so a rigid body's calls copy nothing).
    pub(super) particles: Vec<Vec2>,
    pub(super) input: ActionSnapshot,
    pub(super) rng: Option<Rng>,
    pub(super) commands: Vec<Command>,
    /// Bytes of log and break text in `commands`.
    text_bytes: usize,
    /// `print`/`debug` lines dropped past [`MAX_TEXT_BYTES`] (they cannot
    /// fail the call; one warning says how many at commit).
    dropped_lines: u32,
    // ---- debugger ----
    /// The script's key: the AST's source, the hits' path.
    pub(super) source: ImmutableString,
    pub(super) breakpoints: Option<Arc<[LineBreakpoint]>>,
    /// Abort at a stopping hit (update-phase hooks) instead of continuing.
    pub(super) abort_on_stop: bool,
    /// Stopping hits to let pass: the ones a re-run already stopped at.
    pub(super) skip_stops: u32,
    /// Stopping hits seen in this call.
    pub(super) stops_seen: u32,
    /// The first stopping hit of this call.
    pub(super) stop: Option<ScriptHit>,
    /// Line of the last statement a breakpoint fired on (dedupes the
    /// expressions inside that statement).
    pub(super) last_line: Option<usize>,
}

thread_local! {
    /// Per-thread scratch of the hook call running on this thread. Safe to
    /// keep outside the session: [`begin`] overwrites every field a call reads
    /// and [`end`]/[`commit`]/[`discard`] take everything it wrote, so nothing
    /// outlives one call, and no two sessions share a call (a session's hooks
    /// run on the thread stepping it, one at a time).
    static CALL: RefCell<CallState> = RefCell::new(CallState::default());
}

/// How the debugger should treat this call.
pub(crate) struct DebugSetup {
    /// The script's key (its AST source).
    pub(crate) source: ImmutableString,
    /// Enabled breakpoints of the script (empty: the plain engine runs).
    pub(crate) breakpoints: Arc<[LineBreakpoint]>,
    /// Abort at the first stopping hit (update-phase hooks).
    pub(crate) abort_on_stop: bool,
    /// Stopping hits to let pass (a re-run after an abort).
    pub(crate) skip_stops: u32,
}

/// What the debugger saw during a call.
pub(crate) struct CallEnd {
    /// The first stopping hit, if any.
    pub(crate) stop: Option<ScriptHit>,
    /// Stopping hits seen (passed ones included).
    pub(crate) stops_seen: u32,
}

/// Copies what the script may read and arms the command buffer.
pub(crate) fn begin(ctx: &mut Ctx, setup: DebugSetup) {
    let me = ctx.me();
    let pose = ctx.physics_simulation_pose(me);
    let velocity = ctx.velocity(me);
    let clock = *ctx.clock();
    let rng = *ctx.rng();
    CALL.with_borrow_mut(|c| {
        c.active = true;
        c.me = me;
        c.hook = Some(ctx.hook());
        c.clock = clock;
        c.pose = pose;
        c.velocity = velocity;
        c.particles.clear();
        if let Some(particles) = ctx.soft_particles(me) {
            c.particles.extend_from_slice(particles);
        }
        c.input.clone_from(ctx.input());
        c.rng = Some(rng);
        c.commands.clear();
        c.text_bytes = 0;
        c.dropped_lines = 0;
        c.source = setup.source;
        c.breakpoints = Some(setup.breakpoints);
        c.abort_on_stop = setup.abort_on_stop;
        c.skip_stops = setup.skip_stops;
        c.stops_seen = 0;
        c.stop = None;
        c.last_line = None;
    });
    limits::start_call();
}

/// Ends the call: what the debugger saw. The buffer waits for [`commit`] or
/// [`discard`].
pub(crate) fn end() -> CallEnd {
    CALL.with_borrow_mut(|c| {
        c.active = false;
        c.breakpoints = None;
        CallEnd {
            stop: c.stop.take(),
            stops_seen: c.stops_seen,
        }
    })
}

/// Applies the buffered writes through `ctx`, in order, and writes the random
/// generator back.
pub(crate) fn commit(ctx: &mut Ctx) {
    CALL.with_borrow_mut(|c| {
        if let Some(rng) = c.rng.take() {
            *ctx.rng() = rng;
        }
        for command in c.commands.drain(..) {
            match command {
                Command::Body(b) => apply_body(ctx, b),
                Command::Spawn(desc) => {
                    ctx.spawn(*desc);
                }
                Command::Remove(id) => ctx.remove(id),
                Command::Log(level, message) => ctx.log_at(level, message),
                Command::Break(message) => ctx.request_break(message),
                Command::Routine(name, seconds) => ctx.start_named_routine(&name, seconds),
            }
        }
        if c.dropped_lines > 0 {
            ctx.log_at(
                LogLevel::Warning,
                format!(
                    "{}: {} print/debug line(s) dropped: one hook call may log at most {} KiB",
                    c.source,
                    c.dropped_lines,
                    MAX_TEXT_BYTES >> 10
                ),
            );
            c.dropped_lines = 0;
        }
    });
}

/// Applies what a typed call queued (see `typed/`), in order, the way
/// [`commit`] applies the same commands from rhai.
pub(crate) fn commit_fast(ctx: &mut Ctx, out: &mut Vec<Out>) {
    for command in out.drain(..) {
        apply_out(ctx, command);
    }
}

/// Applies one command of a compiled call.
pub(crate) fn apply_out(ctx: &mut Ctx, command: Out) {
    match command {
        Out::Body(b) => apply_body(ctx, b),
        Out::Remove(id) => ctx.remove(id),
    }
}

fn apply_body(ctx: &mut Ctx, b: BodyCommand) {
    let _ = match b {
        BodyCommand::Force { target, force } => ctx.apply_force(target, force),
        BodyCommand::Impulse { target, impulse } => ctx.apply_impulse(target, impulse),
        BodyCommand::KinematicTarget { target, pose } => ctx.set_kinematic_target(target, pose),
        BodyCommand::SetPose { target, pose } => ctx.set_pose(target, pose),
        BodyCommand::SetVelocity { target, velocity } => ctx.set_velocity(target, velocity),
    };
}

/// Drops the buffered writes and the random draws of an aborted call.
pub(crate) fn discard() {
    CALL.with_borrow_mut(|c| {
        c.commands.clear();
        c.rng = None;
    });
}

/// Runs `f` on the call state, or fails when no hook is running (the top level
/// of a script runs at load time, outside any hook).
/// Reads this thread's call state (the debugger's callbacks, `engines.rs`).
pub(super) fn call_ref<T>(f: impl FnOnce(&CallState) -> T) -> T {
    CALL.with_borrow(f)
}

/// Changes this thread's call state (the debugger's callbacks, `engines.rs`).
pub(super) fn call_mut<T>(f: impl FnOnce(&mut CallState) -> T) -> T {
    CALL.with_borrow_mut(f)
}

pub(super) fn with_call<T>(name: &str, f: impl FnOnce(&mut CallState) -> T) -> RhaiResult<T> {
    CALL.with_borrow_mut(|c| {
        if c.active {
            Ok(f(c))
        } else {
            Err(format!(
                "`{name}` is only available inside a hook, not at the top level of a script"
            )
            .into())
        }
    })
}

impl CallState {
    /// Queues a write of the script, or fails the call once it has queued
    /// [`MAX_COMMANDS`] commands or [`MAX_TEXT_BYTES`] of text (see
    /// `limits.rs`). The error is an ordinary one, at the script's line: a
    /// `try` may catch it, but nothing more is queued either way.
    pub(super) fn push(&mut self, what: &str, command: Command) -> RhaiResult<()> {
        if self.commands.len() >= MAX_COMMANDS {
            return Err(format!(
                "{what}: one hook call may queue at most {MAX_COMMANDS} commands \
                 (body commands, spawns, removals, log lines, routines)"
            )
            .into());
        }
        let text = match &command {
            Command::Log(_, t) | Command::Break(t) => t.len(),
            _ => 0,
        };
        if self.text_bytes + text > MAX_TEXT_BYTES {
            return Err(format!(
                "{what}: one hook call may log at most {} KiB of text",
                MAX_TEXT_BYTES >> 10
            )
            .into());
        }
        self.text_bytes += text;
        self.commands.push(command);
        Ok(())
    }

    /// [`push`](Self::push) for lines that cannot fail the call (`print`,
    /// `debug`, logpoints, a condition's warning): a line past the limits is
    /// counted and dropped.
    pub(super) fn push_line(&mut self, level: LogLevel, text: String) {
        if self.push("print", Command::Log(level, text)).is_err() {
            self.dropped_lines += 1;
        }
    }
}

/// The variables a condition sees: the clock, then the visible locals (which
/// win on a name clash, being searched first).
fn condition_scope(clock: &Clock, locals: &Scope) -> Scope<'static> {
    let mut scope = Scope::new();
    push_clock(&mut scope, clock);
    for (name, _, value) in locals.iter() {
        scope.push_dynamic(name.to_string(), value);
    }
    scope
}

impl CallState {
    /// A statement on a breakpoint line was reached (see `breakpoints` docs).
    pub(super) fn reach_line(
        &mut self,
        ctx: &EvalContext,
        is_stmt: bool,
        line: usize,
        pos: Position,
    ) -> RhaiResult<DebuggerCommand> {
        // Expressions inside the statement that fired are the same line reached.
        if !is_stmt && self.last_line == Some(line) {
            return Ok(DebuggerCommand::Continue);
        }
        self.last_line = Some(line);
        let Some(bp) = self
            .breakpoints
            .as_ref()
            .and_then(|list| list.iter().find(|b| b.line == line).cloned())
        else {
            return Ok(DebuggerCommand::Continue);
        };
        let mut scope = None;
        if let Some(condition) = &bp.compiled_condition {
            let s = scope.get_or_insert_with(|| condition_scope(&self.clock, ctx.scope()));
            match condition_engine().eval_ast_with_scope::<Dynamic>(s, condition) {
                Ok(v) if v.as_bool() == Ok(false) => return Ok(DebuggerCommand::Continue),
                Ok(v) if v.as_bool() == Ok(true) => {}
                Ok(v) => self.push_line(
                    LogLevel::Warning,
                    format!(
                        "{}:{line}: breakpoint condition gave {} (not a bool): stopping",
                        self.source,
                        v.type_name()
                    ),
                ),
                Err(e) => self.push_line(
                    LogLevel::Warning,
                    format!(
                        "{}:{line}: breakpoint condition failed ({e}): stopping",
                        self.source
                    ),
                ),
            }
        }
        if let Some(parts) = &bp.compiled_message {
            let s = scope.get_or_insert_with(|| condition_scope(&self.clock, ctx.scope()));
            let mut text = String::new();
            for part in parts.iter() {
                match part {
                    Part::Text(t) => text.push_str(t),
                    Part::Expr(ast) => {
                        match condition_engine().eval_ast_with_scope::<Dynamic>(s, ast) {
                            Ok(v) => text.push_str(&v.to_string()),
                            Err(e) => text.push_str(&format!("<{e}>")),
                        }
                    }
                }
            }
            self.push_line(LogLevel::Info, text);
            return Ok(DebuggerCommand::Continue);
        }
        self.stops_seen += 1;
        if self.stops_seen <= self.skip_stops || self.stop.is_some() {
            return Ok(DebuggerCommand::Continue);
        }
        let stack = ctx
            .global_runtime_state()
            .debugger()
            .call_stack()
            .iter()
            .rev()
            .map(|f| f.fn_name.to_string())
            .collect();
        let locals = ctx
            .scope()
            .iter()
            .map(|(name, _, value)| (name.to_string(), show(&value)))
            .collect();
        let hit = ScriptHit {
            path: self.source.to_string(),
            line,
            column: pos.position().unwrap_or(0),
            object: self.me,
            hook: self.hook.unwrap_or(HookKind::FixedUpdate),
            tick: self.clock.simulation_tick,
            frame: self.clock.frame_index,
            stack,
            locals,
            rerun: self.abort_on_stop,
        };
        // The caller records it in its host's table (see `end`).
        self.stop = Some(hit);
        if self.abort_on_stop {
            // Abort the hook here: the caller rolls its state back and asks the
            // pipeline to suspend before the hook and run it again on resume.
            return Err(EvalAltResult::ErrorTerminated(Dynamic::UNIT, pos).into());
        }
        Ok(DebuggerCommand::Continue)
    }
}
