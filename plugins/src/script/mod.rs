//! `Script`: behaviours written in [rhai](https://rhai.rs), with line
//! breakpoints that keep the contract's timing, and hot reload.
//!
//! A `.rhai` file defines any of these functions; the Script behaviour calls
//! each from the matching hook (a function the file lacks costs nothing):
//!
//! | function | hook | clock it sees |
//! |---|---|---|
//! | `start()` | Start | frame |
//! | `update(dt)` | Update, `dt` = `delta_time` | frame |
//! | `flow_tick(dt)` | Flow Tick | frame |
//! | `fixed_update(dt)` | FixedUpdate, `dt` = `fixed_delta_time` | pending tick |
//! | `on_contact(other, kind)` | contact, `kind` = `"started"` / `"stopped"` | completed tick |
//!
//! (Flow Tick runs after the fixed phase, on the frame clock.)
//!
//! # Timed routines
//!
//! `start_routine("name", seconds)` asks for `name()` to be called `seconds`
//! later on the object's time group (the frame clock unless the scene says
//! `time_group: Fixed`, even when started from `fixed_update`). The script
//! keeps no routine object: the core keeps the name, the object and the wake
//! time ([`stepframe_core::Ctx::start_named_routine`]) and, when it is due,
//! calls [`Behaviour::routine`], which runs `name()` on rhai with the script's
//! state, like a hook. A number returned is the next wait in seconds; anything
//! else ends the routine. So a snapshot (the pipeline's routine list plus this
//! behaviour's scope) holds all of a routine, and rewind and the sync test
//! cover it.
//!
//! The API scripts call (pose, velocity, body commands, spawn, remove, input,
//! clock, random numbers, log) is listed in `docs/scripts.md` and implemented
//! in `api.rs`. In a scene:
//!
//! ```ron
//! (id: 40, name: "Guard", transform: (x: 2.0, y: 0.5),
//!  body: (kind: Kinematic, shapes: [Cuboid(hx: 0.4, hy: 0.5)]),
//!  behaviours: [(name: "Script", params: (path: "scripts/patrol.rhai",
//!                vars: {"left": -2.0, "right": 6.0, "speed": 1.5}))])
//! ```
//!
//! # Where the script file is found
//!
//! Scripts belong to a session's [`ScriptHost`] (see [`host`]):
//! the registry of a session is built with its host and the scene's
//! directory ([`crate::registry_for`]), and a relative `path` is looked up
//! under that scene's assets directory ([`assets_dir`]). The resolved,
//! canonical path is the script's **key**: breakpoints, hits, errors and
//! [`ScriptHost::reload`] all name a script by it, and any spelling that
//! resolves to the same file reaches the same script.
//!
//! # State
//!
//! The top-level statements of the file run once, when the behaviour is made,
//! in a scope that already holds the scene's `vars` (in key order). The
//! variables they leave (`let dir = 1.0;`) are the script's **state**: the hook
//! functions read and write them by name, and they persist from call to call.
//! (Helper functions called from a hook get rhai's usual fresh scope: pass
//! them what they need.) That scope is part of the behaviour: `clone_box`
//! copies it, so `Pipeline::snapshot`/`restore`, rewind and the sync test cover
//! scripts; `hash_state` hashes every variable's name and value in scope order
//! (maps in key order, floats by bit pattern). The copy is deep because the
//! engine is built without closures, the only way rhai values get shared.
//!
//! Scripts are deterministic: the API has no wall clock (rhai's `timestamp` is
//! compiled out), object maps iterate in key order, randomness comes from the
//! session generator (`rand()`), and reads see the committed state of the
//! phase, as Rust behaviours do.
//!
//! # Line breakpoints and when the session stops
//!
//! Breakpoints live in the session's table, [`ScriptHost::breakpoints`] (see
//! `breakpoints` for conditions and logpoints). When a
//! statement on a breakpoint line is reached, rhai's debugger callback records
//! a [`ScriptHit`]: script, line and column, object, hook, tick, the call stack
//! and the local variables with their values at that moment. Then:
//!
//! - **Fixed hooks** (`fixed_update`, `on_contact`): the script runs on
//!   (`DebuggerCommand::Continue`), its writes are applied, and the behaviour
//!   calls `ctx.request_break`: every other FixedUpdate, the physics step and
//!   the contact callbacks of the tick finish, and the session suspends at the
//!   end of that tick with its committed state, like a FixedUpdate hook
//!   breakpoint. The captured locals are the values at the line, not at the end
//!   of the tick.
//! - **Start, Update and Flow Tick**: the contract suspends *before* these
//!   hooks. A script cannot know that it will reach a line before running, so
//!   the hook is **aborted at the line and run again on resume**: the debugger
//!   callback returns an error that stops the script; the behaviour puts back
//!   the scope copy it took before the call and drops every write the aborted
//!   run buffered (body commands, spawns, log lines, random draws), so the
//!   world is exactly as it was before the hook; then it calls
//!   `ctx.request_break_and_rerun`, and the pipeline suspends with that call
//!   still pending (a Start hook is not marked started). On resume the hook runs
//!   from the start, from the same state, so it reaches the same line; that
//!   stop is let through (the behaviour counts the stops it already took in
//!   this call), and a later breakpoint in the same call stops again the same
//!   way. Pausing before entering the hook was the alternative, but whether a
//!   line will be reached is only known by running the hook; a dry run on a
//!   copy would run the script twice on every call while a breakpoint is set.
//!
//! # Hot reload
//!
//! [`ScriptHost::reload`] (or [`ScriptHost::reload_changed`], or the
//! behaviour's own check of its file
//! at each outer frame boundary when `hot_reload` is on) recompiles a script.
//! Every Script behaviour running it switches at its next `start`/`update`
//! (the next outer frame boundary): the new file's top level runs in a fresh
//! scope with the `vars`, then every variable that existed before keeps its
//! current value (new variables get their initial one), and a script stopped
//! by a run-time error runs again. A reload with a syntax error changes
//! nothing: the old program keeps running, and the error is returned, logged
//! once as `path:line:column: message` and kept for
//! [`ScriptHost::compile_error`].
//!
//! A run-time error in a hook (a type error, a runaway loop past
//! [`MAX_OPERATIONS`], a value past the size limits of `limits.rs`) is logged
//! with its position and stops the script's hooks until the file is reloaded;
//! the object and the other behaviours go on. Where rhai drops the position
//! (it does for "Too many operations", "Stack overflow" and the size errors,
//! which it passes up through every function call with the caller's
//! position, and the hook has no caller), the position is that of the hook
//! function's body, so an error always names a line.
//!
//! # Cost: two engines, one meaning
//!
//! A hook call runs on the first of these that can take it:
//!
//! 1. **typed register code** (`typed/`): the function, lowered from rhai's
//!    AST (`lower.rs`) to a small tree (`ir.rs`), then specialised to the
//!    types its state variables hold, as flat register instructions;
//! 2. **rhai** itself: functions outside the subset (loops, strings, maps,
//!    `log`, `spawn_body`, ...), any call while a line breakpoint is set in
//!    the script, calls whose types the typed code was not made for (after
//!    `MAX_SPECIALISATIONS`, 8, tries), and any call the typed code gives up on.
//!
//! The typed code covers a numeric subset of rhai (listed in `ir.rs`) and
//! computes exactly what rhai computes (`semantics.rs`: its checked integer
//! arithmetic and epsilon-relative float comparisons); where it cannot (an
//! overflow, a non-finite body command, an object with no body), it gives the
//! call to rhai before changing anything, so rhai's own result or error is
//! what happens. `plugins/tests/script_paths.rs` runs 400 generated programs
//! on both and compares the state hash tick by tick. `stepframe bench`
//! measures a scripted patrol against the same patrol in Rust (`stepframe
//! (its `script_vs_rust` figure, with rhai alone for context).
//!
//! (A middle engine, evaluating the tree with types checked as it runs, was
//! removed: measured in a release build it took 3.2x the typed code's time
//! per patrol call (229 against 72 ns), and with the typed path on it ran no
//! call of the bundled scenes in 600 frames and 4% of the calls of the
//! generated programs, those whose types keep changing.)

// Module map (each file opens with what it owns):
//
// - this file: `Script` (its parameters, state and how it adopts a reload);
//   `behaviour.rs`: its `Behaviour` impl (the hooks as the pipeline calls
//   them, routines, hashing, new vars mid-run);
// - `host.rs`: the session's `ScriptHost` (cache, breakpoints, counts, a
//   fork's own host) and where script files are found (`ScriptContext`,
//   `assets_dir`);
// - `cache.rs`: compiled programs by key, generations, hot reload;
// - `breakpoints.rs`: line breakpoints, conditions, logpoints, hits;
// - `engines.rs`: the two rhai engines scripts run on and the debugger
//   hook; `engine.rs`: the per-call state they reach (commands, hits,
//   logpoints); `api.rs`: the native functions scripts call; `limits.rs`:
//   operations and memory a script may take; `sandbox.rs`: the engine
//   conditions, logpoints and watches run on, and the clock they read;
// - `rhai_calls.rs`: hook and routine calls on rhai, breakpoint timing;
// - `ir.rs`, `lower.rs`, `semantics.rs`, `typed/`, `typed_calls.rs`: the
//   typed path (the tree, rhai's AST to it, rhai's number rules, the
//   register code, and the behaviour's state as typed code holds it);
// - `value.rs`: scene values and hashing.
mod api;
mod behaviour;
mod breakpoints;
mod cache;
mod engine;
mod engines;
pub mod host;
pub(crate) use sandbox::{push_clock, sandboxed_engine};
mod ir;
mod limits;
mod lower;
mod rhai_calls;
mod sandbox;
mod semantics;
mod typed;
mod typed_calls;
mod value;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use rhai::{Dynamic, FuncArgs, Scope};
use serde::{Deserialize, Serialize};
use stepframe_core::{Behaviour, Ctx, HookKind, LogLevel};

pub use breakpoints::{LineBreakpoint, MAX_SCRIPT_HITS, ScriptBreakpoints, ScriptHit};
pub use host::{
    CallCounts, HookEngine, ScriptContext, ScriptHost, assets_dir, resolve_in, script_key,
};
pub use limits::MAX_OPERATIONS;
pub use limits::{
    MAX_ARRAY_LEN, MAX_CALL_LEVELS, MAX_COMMANDS, MAX_MAP_LEN, MAX_SCRIPT_MEMORY, MAX_STRING_BYTES,
    MAX_TEXT_BYTES, MAX_VARIABLES,
};
pub use value::ScriptValue;

use breakpoints::LineBreakpoint as Bp;
use cache::Program;
use ir::Val;
use typed_calls::FastState;

/// A script that could not be read, compiled, or run: the script's key, the
/// position (1-based; 0 when the error has none), what kind of fault it is
/// (for a caller to act on) and what went wrong (for a person to read).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub struct ScriptError {
    /// What the fault is about: the editor keeps the old text running on any
    /// of them, but only a syntax error has a place in the text to jump to.
    pub kind: ScriptErrorKind,
    /// The script's key (resolved path), or `inline:<name>`; empty when no
    /// script was named.
    pub path: String,
    /// 1-based line, or 0.
    pub line: usize,
    /// 1-based column, or 0.
    pub column: usize,
    /// What went wrong.
    pub message: String,
}

/// A hook of a script that failed at run time (a division by zero, an
/// unknown function, a limit), as [`ScriptHost::failure`] keeps it for the
/// program in force: what a code pane marks, as it marks a syntax error.
/// The script's hooks stop on that object until the script is reloaded;
/// the log has the same failure as a line.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ScriptFailure {
    /// The hook function that failed (`fixed_update`, a routine's name).
    pub function: String,
    /// 1-based line of the failure in the program's text.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// rhai's words for it.
    pub message: String,
    /// The object whose Script failed.
    pub object: stepframe_core::ObjectId,
    /// The tick it failed in (completed ticks when the hook ran).
    pub tick: u64,
}

/// What a [`ScriptError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ScriptErrorKind {
    /// The file could not be read.
    Io,
    /// The text does not compile.
    Syntax,
    /// A hook is declared with the wrong number of parameters.
    HookSignature,
    /// The script's top level failed when it ran.
    TopLevel,
    /// A breakpoint's condition or log message does not compile.
    Breakpoint,
    /// The script was named wrongly (not a `.rhai` file).
    Path,
    /// No running script has this file (a reload of a file nobody uses).
    NotRunning,
}

impl std::fmt::Display for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else if self.line == 0 {
            write!(f, "{}: {}", self.path, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.path, self.line, self.column, self.message
            )
        }
    }
}

fn default_true() -> bool {
    true
}

/// Parameters of [`Script`] in a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptParams {
    /// The `.rhai` file, relative to the assets directory (see module docs).
    pub path: String,
    /// Variables the script's top level starts with: `{"speed": 2.0}`.
    #[serde(default)]
    pub vars: BTreeMap<String, ScriptValue>,
    /// Check the file at each outer frame boundary and reload it when it changed.
    #[serde(default = "default_true")]
    pub hot_reload: bool,
}

impl Default for ScriptParams {
    fn default() -> ScriptParams {
        ScriptParams {
            path: "scripts/patrol.rhai".to_string(),
            vars: BTreeMap::new(),
            hot_reload: true,
        }
    }
}

/// A Start/Update/Flow Tick call aborted at a breakpoint, to be run again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rerun {
    hook: HookKind,
    frame: u64,
    /// Stopping hits already taken in this call: the re-run lets them pass.
    stops: u32,
}

/// Runs a rhai script's hooks (see module docs).
#[derive(Clone)]
pub struct Script {
    /// The session's scripts: cache, breakpoints, counts.
    host: ScriptHost,
    /// The program in force.
    program: Arc<Program>,
    /// The newest generation this behaviour has tried to adopt.
    seen_generation: u64,
    /// The scene's `vars`, in key order, for the top level of a reloaded file.
    vars: Arc<[(String, Dynamic)]>,
    /// The script's state: its top-level variables.
    scope: Scope<'static>,
    hot_reload: bool,
    /// A run-time error stopped the hooks until the next reload.
    failed: Option<String>,
    rerun: Option<Rerun>,
    /// Breakpoint table version the cached list below was read at.
    bp_version: u64,
    bps: Arc<[Bp]>,
    /// The host cache's change count at the last refresh that looked in it.
    seen_changes: u64,
    /// Whether calls may take the typed path (see `Script::set_compiled`).
    compiled: bool,
    fast: FastState,
    /// A reload edit chose this Script's version: the history decides from
    /// now on, and a frame boundary no longer adopts the file's version
    /// (which would undo the edit in a headless replay of a recording).
    pinned: bool,
}

impl std::fmt::Debug for Script {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Script")
            .field("path", &self.program.source)
            .field("generation", &self.program.generation)
            .field("scope", &self.scope)
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}

/// The scope a program starts with: the vars, then its top level.
fn initial_scope(
    program: &Program,
    vars: &[(String, Dynamic)],
) -> Result<Scope<'static>, ScriptError> {
    let mut scope = Scope::new();
    for (name, value) in vars {
        scope.push_dynamic(name.clone(), value.clone());
    }
    limits::start_call();
    engines::engines()
        .plain
        .run_ast_with_scope(&mut scope, &program.ast)
        .and_then(|()| limits::check_scope(&scope))
        .map_err(|e| {
            // The top level has no function to fall back on: its first line.
            let pos = e.position();
            ScriptError {
                kind: ScriptErrorKind::TopLevel,
                path: program.source.to_string(),
                line: pos.line().unwrap_or(1),
                column: pos.position().unwrap_or(1),
                message: format!("top level failed: {e}"),
            }
        })?;
    Ok(scope)
}

fn hook_function(hook: HookKind) -> &'static str {
    match hook {
        HookKind::Start => "start",
        HookKind::Update => "update",
        HookKind::FlowTick => "flow_tick",
        HookKind::FixedUpdate => "fixed_update",
        _ => "on_contact",
    }
}

impl Script {
    /// Loads (or reuses) the script file and runs its top level with the vars.
    /// `cx` names the session's host and the scene's directory (relative
    /// paths are looked up from there, see [`host`]).
    pub fn new(params: ScriptParams, cx: &ScriptContext) -> Result<Script, ScriptError> {
        if params.path.is_empty() {
            return Err(ScriptError {
                kind: ScriptErrorKind::Path,
                path: String::new(),
                line: 0,
                column: 0,
                message: "path must name a .rhai file".into(),
            });
        }
        let key = cx.key(Path::new(&params.path));
        let program = cx.host.cache().load(&key)?;
        Script::with_program(&cx.host, program, &params.vars, params.hot_reload)
    }

    /// A script from source text with no file: `name` makes its key
    /// `inline:<name>` (what breakpoints and hits use). For tests, benches and
    /// scratch scripts; the same name with new text is a reload (in the same
    /// host: names only need to differ within one session).
    pub fn from_source(
        host: &ScriptHost,
        name: &str,
        text: &str,
        vars: &BTreeMap<String, ScriptValue>,
    ) -> Result<Script, ScriptError> {
        let key = format!("inline:{name}");
        let program = host.cache().load_source(&key, text)?;
        Script::with_program(host, program, vars, false)
    }

    fn with_program(
        host: &ScriptHost,
        program: Arc<Program>,
        vars: &BTreeMap<String, ScriptValue>,
        hot_reload: bool,
    ) -> Result<Script, ScriptError> {
        let vars: Arc<[(String, Dynamic)]> = vars
            .iter()
            .map(|(k, v)| (k.clone(), v.to_dynamic()))
            .collect();
        let scope = initial_scope(&program, &vars)?;
        if hot_reload {
            host.watch(&program.source);
        }
        Ok(Script {
            host: host.clone(),
            seen_generation: program.generation,
            program,
            vars,
            scope,
            hot_reload,
            failed: None,
            rerun: None,
            bp_version: 0,
            bps: Arc::from(Vec::new()),
            seen_changes: u64::MAX,
            compiled: true,
            fast: FastState::default(),
            pinned: false,
        })
    }

    /// Runs on `host` from now on (the editor's fork gives branch B its own,
    /// [`ScriptHost::fork`]): its state and program stay, and it reads
    /// `host`'s breakpoints and adopts `host`'s next version of its file.
    pub fn rebind(&mut self, host: &ScriptHost) {
        self.host = host.clone();
        // Re-read the breakpoint table and the cache at the next call.
        self.bp_version = u64::MAX;
        self.bps = Arc::from(Vec::new());
        self.seen_changes = u64::MAX;
    }

    /// The script's key (resolved path or `inline:<name>`).
    pub fn key(&self) -> &str {
        &self.program.source
    }

    /// A state variable's current value (top-level variables only).
    pub fn var(&self, name: &str) -> Option<Dynamic> {
        let names: Vec<&str> = self.scope.iter_raw().map(|(n, ..)| n).collect();
        let position = names.iter().rposition(|n| *n == name)?;
        Some(
            self.live_value(position)
                .unwrap_or_else(|| self.scope.get_value::<Dynamic>(name).unwrap_or_default()),
        )
    }

    /// Lets calls take the typed path (the default) or keeps every call on
    /// rhai. The results are the same either way; this exists to compare the
    /// two (the equivalence tests, `script_vs_rust`), so it is public only
    /// with the `engine-knobs` feature, which the shipped binary does not
    /// enable (see `docs/scripts.md`).
    #[cfg(feature = "engine-knobs")]
    pub fn set_compiled(&mut self, on: bool) {
        if !on {
            self.sync_scope();
        }
        self.compiled = on;
    }

    /// At an outer frame boundary: adopt a newer program, log a failed reload.
    /// A managed host's Scripts adopt versions through reload edits only
    /// ([`ScriptHost::set_managed`]).
    fn refresh(&mut self, ctx: &mut Ctx) {
        if self.pinned || self.host.managed() {
            return;
        }
        let frame = ctx.clock().frame_index;
        // Nothing changed in the cache since the last look, and the file (if
        // any, if watched) was checked this frame already: no lock needed.
        let changes = self.host.cache().changes();
        let polled = self
            .program
            .polled_frame
            .load(std::sync::atomic::Ordering::Acquire);
        let watch = self.hot_reload && self.host.watches_files();
        if changes == self.seen_changes
            && (!watch || polled == frame || polled == cache::NOT_A_FILE)
        {
            return;
        }
        self.seen_changes = changes;
        let current = self
            .host
            .cache()
            .current(&self.program.source, frame, watch);
        let Some((program, error)) = current else {
            return;
        };
        if let Some(e) = error {
            ctx.log_at(
                LogLevel::Error,
                format!("{e} (reload failed; the previous version keeps running)"),
            );
        }
        if program.generation == self.seen_generation {
            return;
        }
        self.seen_generation = program.generation;
        match self.adopt_program(program) {
            Ok(hooks_changed) => {
                if hooks_changed {
                    ctx.hooks_changed();
                }
                ctx.log(format!("{}: reloaded", self.program.source));
            }
            // The new top level failed: keep running the old program.
            Err(e) => ctx.log_at(LogLevel::Error, e.to_string()),
        }
    }

    /// Runs `program` from now on, keeping the values of the variables it
    /// shares with the old one (module docs). Returns whether the set of
    /// hooks changed; an error (its top level failed) keeps the old program.
    fn adopt_program(&mut self, program: Arc<Program>) -> Result<bool, ScriptError> {
        self.sync_scope();
        let mut scope = initial_scope(&program, &self.vars)?;
        for (name, _, value) in self.scope.iter_raw() {
            if scope.contains(name) && !scope.is_constant(name).unwrap_or(false) {
                scope.set_value(name.to_string(), value.clone());
            }
        }
        self.scope = scope;
        let before = self.hooks();
        self.seen_generation = program.generation;
        self.program = program;
        self.failed = None;
        self.rerun = None;
        Ok(self.hooks() != before)
    }

    /// A reload edit of `key` with `text` (see [`Behaviour::reload`]).
    pub(crate) fn reload_edit(&mut self, key: &str, text: &str) -> stepframe_core::Reload {
        use stepframe_core::Reload;
        if &*self.program.source != key {
            return Reload::NotMine;
        }
        let adopted = self
            .host
            .cache()
            .version_for_text(key, text)
            .and_then(|program| self.adopt_program(program));
        match adopted {
            Ok(hooks_changed) => {
                self.pinned = true;
                Reload::Adopted { hooks_changed }
            }
            Err(e) => Reload::Refused(e.to_string()),
        }
    }

    fn defines(&self, hook: HookKind) -> bool {
        let h = &self.program.hooks;
        match hook {
            HookKind::Start => h.start,
            HookKind::Update => h.update,
            HookKind::FlowTick => h.flow_tick,
            HookKind::FixedUpdate => h.fixed_update,
            HookKind::Contact => h.on_contact,
            _ => false,
        }
    }

    /// Whether line breakpoints are set in this script (re-reading the table
    /// only when it changed).
    fn debugging(&mut self) -> bool {
        let table = self.host.breakpoints();
        let version = table.version();
        if version != self.bp_version {
            self.bps = table.for_script(&self.program.source);
            self.bp_version = version;
        }
        !self.bps.is_empty()
    }

    /// Calls one hook function (see module docs for the breakpoint timing).
    fn call(&mut self, ctx: &mut Ctx, hook: HookKind, args: impl FuncArgs, fast_args: &[Val]) {
        if self.failed.is_some() || !self.defines(hook) {
            return;
        }
        let debug = self.debugging();
        if !debug && self.compiled && self.rerun.is_none() && self.call_fast(ctx, hook, fast_args) {
            return;
        }
        self.call_rhai(ctx, hook, hook_function(hook), args, debug);
    }
}
