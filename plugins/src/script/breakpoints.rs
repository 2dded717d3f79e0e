//! Line breakpoints on scripts, and the hits they record: the table the editor
//! drives.
//!
//! # One table per session
//!
//! Each [`ScriptHost`](super::ScriptHost) (one per session) owns one table:
//! the breakpoints of every script of that session (keyed by the script's
//! resolved path, see [`crate::script::script_key`]) and the list of hits.
//! Two sessions in one process (a fork, a scratch replay) keep their own. The
//! editor's code pane changes the table through the worker, which owns the
//! session and its host; the next call of a script hook sees the change (a
//! version counter makes "nothing changed" one atomic load per call, so
//! breakpoints cost nothing while none is set on a script: it then runs on an
//! engine without a debugger).
//!
//! # Kinds of line breakpoint
//!
//! - **Plain**: the line is reached → a [`ScriptHit`] is recorded (line, column,
//!   object, hook, tick, call stack, locals with their values at that moment)
//!   and the session suspends where the contract says (see
//!   [`crate::script`]: end of the tick in fixed hooks, before the hook in
//!   Start/Update/Flow Tick).
//! - **Conditional**: a rhai expression evaluated when the line is reached, over
//!   the locals visible there and the clock (`tick`, `frame`, `sim_time`,
//!   `frame_time`, `delta_time`, `fixed_dt`; locals of the same name win). It
//!   stops only when the expression is `true`. An expression that fails, or is
//!   not a bool, stops (so a typo is noticed) and logs a warning.
//! - **Logpoint**: a message template, `"x = {x} at tick {tick}"`, whose `{...}`
//!   parts are expressions over the same variables (`{{` and `}}` are literal
//!   braces). It writes a log line (through `ctx.log`, stamped with object,
//!   hook and tick) and never stops. A condition, if set, gates it.
//!
//! A breakpoint fires once per statement that starts on its line (a loop body
//! line fires once per iteration). The session can only suspend once per hook
//! call, so the first stopping hit of a call is the one recorded; later lines
//! of the same call run on (logpoints still print).

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rhai::AST;
use stepframe_core::{HookKind, ObjectId};

use super::sandbox::condition_engine;
use super::{ScriptError, ScriptErrorKind, script_key};

/// Hits kept for the editor; older ones are dropped.
pub const MAX_SCRIPT_HITS: usize = 1024;

/// A line breakpoint that was reached and stopped the session.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScriptHit {
    /// The script's resolved path (the table's key).
    pub path: String,
    /// 1-based line of the statement reached.
    pub line: usize,
    /// 1-based column where that statement starts.
    pub column: usize,
    /// The object whose Script behaviour ran.
    pub object: ObjectId,
    /// The hook that was running.
    pub hook: HookKind,
    /// `simulation_tick` when reached: the pending tick in fixed hooks, the
    /// completed tick count elsewhere (the clock's own per-phase meaning).
    pub tick: u64,
    /// Outer frame when reached.
    pub frame: u64,
    /// Script functions on the call stack, innermost first (`["helper",
    /// "fixed_update"]`).
    pub stack: Vec<String>,
    /// Variables visible at that line, in declaration order, with their values
    /// at that moment (rhai's debug form: strings quoted). In the hook function
    /// this starts with the script's state variables, then the parameters and
    /// the locals; in a helper function it is the helper's own.
    pub locals: Vec<(String, String)>,
    /// Whether the hook was aborted and will run again on resume (Start, Update
    /// and Flow Tick), rather than finishing before an end-of-tick suspension.
    pub rerun: bool,
}

impl ScriptHit {
    /// The value of a local, as shown.
    pub fn local(&self, name: &str) -> Option<&str> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One piece of a logpoint template.
#[derive(Clone, Debug)]
pub(crate) enum Part {
    /// Literal text.
    Text(String),
    /// `{expr}`: evaluated and shown with `Display`.
    Expr(Arc<AST>),
}

/// A breakpoint on one line of one script.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct LineBreakpoint {
    /// 1-based line.
    pub line: usize,
    /// Disabled breakpoints neither stop nor log.
    pub enabled: bool,
    /// Condition text, if any (a rhai expression).
    pub condition: Option<String>,
    /// Logpoint template, if any: the breakpoint logs instead of stopping.
    pub log_message: Option<String>,
    /// The condition compiled (not sent: a front end shows the text).
    #[serde(skip)]
    pub(crate) compiled_condition: Option<Arc<AST>>,
    /// The template compiled (not sent either).
    #[serde(skip)]
    pub(crate) compiled_message: Option<Arc<[Part]>>,
}

impl LineBreakpoint {
    fn new(line: usize) -> LineBreakpoint {
        LineBreakpoint {
            line,
            enabled: true,
            condition: None,
            log_message: None,
            compiled_condition: None,
            compiled_message: None,
        }
    }

    /// True for a logpoint (logs, never stops).
    pub fn is_logpoint(&self) -> bool {
        self.log_message.is_some()
    }
}

impl PartialEq for LineBreakpoint {
    fn eq(&self, other: &LineBreakpoint) -> bool {
        self.line == other.line
            && self.enabled == other.enabled
            && self.condition == other.condition
            && self.log_message == other.log_message
    }
}

#[derive(Default)]
struct Table {
    lines: BTreeMap<String, Vec<LineBreakpoint>>,
    hits: VecDeque<ScriptHit>,
}

/// One session's table of script breakpoints and hits (see module docs);
/// reached through [`ScriptHost::breakpoints`](super::ScriptHost::breakpoints).
#[derive(Default)]
pub struct ScriptBreakpoints {
    table: Mutex<Table>,
    /// Bumped on every change of a breakpoint, so scripts re-read only then.
    version: AtomicU64,
}

impl std::fmt::Debug for ScriptBreakpoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptBreakpoints")
            .field("version", &self.version.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

fn condition_error(
    key: &str,
    line: usize,
    what: &str,
    text: &str,
    e: &rhai::ParseError,
) -> ScriptError {
    let pos = e.position();
    ScriptError {
        kind: ScriptErrorKind::Breakpoint,
        path: key.to_string(),
        line,
        column: 0,
        message: format!(
            "{what} `{text}`: {} (at {}:{} of the {what})",
            e.err_type(),
            pos.line().unwrap_or(0),
            pos.position().unwrap_or(0)
        ),
    }
}

/// Splits a logpoint template into text and `{expression}` parts.
fn parse_template(key: &str, line: usize, text: &str) -> Result<Vec<Part>, ScriptError> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut chars = text.chars().peekable();
    let unbalanced = |m: &str| ScriptError {
        kind: ScriptErrorKind::Breakpoint,
        path: key.to_string(),
        line,
        column: 0,
        message: format!("log message `{text}`: {m}"),
    };
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                literal.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                literal.push('}');
            }
            '{' => {
                let mut expr = String::new();
                let mut depth = 1;
                for c in chars.by_ref() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    expr.push(c);
                }
                if depth != 0 {
                    return Err(unbalanced("a `{` is never closed"));
                }
                let ast = condition_engine()
                    .compile_expression(&expr)
                    .map_err(|e| condition_error(key, line, "log message", &expr, &e))?;
                if !literal.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut literal)));
                }
                parts.push(Part::Expr(Arc::new(ast)));
            }
            '}' => return Err(unbalanced("a `}` has no `{` (write `}}` for a brace)")),
            c => literal.push(c),
        }
    }
    if !literal.is_empty() {
        parts.push(Part::Text(literal));
    }
    Ok(parts)
}

impl ScriptBreakpoints {
    fn lock(&self) -> MutexGuard<'_, Table> {
        // A panic while holding the lock leaves the table consistent (every
        // change is a single insert/remove), so a poisoned lock is still usable.
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn changed(&self) {
        self.version.fetch_add(1, Ordering::Release);
    }

    /// Current version: changes whenever any breakpoint changes.
    pub(crate) fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// Runs `f` on the breakpoint at (path, line), creating it if needed.
    fn edit<T>(
        &self,
        path: &Path,
        line: usize,
        f: impl FnOnce(&str, &mut LineBreakpoint) -> T,
    ) -> T {
        let key = script_key(path);
        let mut table = self.lock();
        let list = table.lines.entry(key.clone()).or_default();
        let at = match list.binary_search_by_key(&line, |b| b.line) {
            Ok(at) => at,
            Err(at) => {
                list.insert(at, LineBreakpoint::new(line));
                at
            }
        };
        let out = f(&key, &mut list[at]);
        drop(table);
        self.changed();
        out
    }

    /// Sets an enabled plain breakpoint on a line (keeps an existing one's
    /// condition and message, and enables it). Lines are 1-based; 0 is ignored.
    pub fn set(&self, path: impl AsRef<Path>, line: usize) {
        if line == 0 {
            return;
        }
        self.edit(path.as_ref(), line, |_, b| b.enabled = true);
    }

    /// Sets or clears the breakpoint on a line (a gutter click). Returns
    /// whether the line now has one.
    pub fn toggle(&self, path: impl AsRef<Path>, line: usize) -> bool {
        if self.remove(path.as_ref(), line) {
            return false;
        }
        self.set(path, line);
        line != 0
    }

    /// Removes the breakpoint on a line; false if there was none.
    pub fn remove(&self, path: impl AsRef<Path>, line: usize) -> bool {
        let key = script_key(path.as_ref());
        let mut table = self.lock();
        let removed = match table.lines.get_mut(&key) {
            Some(list) => {
                let before = list.len();
                list.retain(|b| b.line != line);
                let removed = list.len() != before;
                if list.is_empty() {
                    table.lines.remove(&key);
                }
                removed
            }
            None => false,
        };
        drop(table);
        if removed {
            self.changed();
        }
        removed
    }

    /// Enables or disables the breakpoint on a line; false if there is none.
    pub fn set_enabled(&self, path: impl AsRef<Path>, line: usize, enabled: bool) -> bool {
        let key = script_key(path.as_ref());
        let mut table = self.lock();
        let found = table
            .lines
            .get_mut(&key)
            .and_then(|list| list.iter_mut().find(|b| b.line == line))
            .map(|b| b.enabled = enabled)
            .is_some();
        drop(table);
        if found {
            self.changed();
        }
        found
    }

    /// Sets (or with `None` clears) the condition of the breakpoint on a line,
    /// creating the breakpoint if needed. A condition that does not parse is
    /// rejected and nothing changes.
    pub fn set_condition(
        &self,
        path: impl AsRef<Path>,
        line: usize,
        condition: Option<&str>,
    ) -> Result<(), ScriptError> {
        let key = script_key(path.as_ref());
        let compiled = match condition {
            Some(text) => Some(Arc::new(
                condition_engine()
                    .compile_expression(text)
                    .map_err(|e| condition_error(&key, line, "condition", text, &e))?,
            )),
            None => None,
        };
        self.edit(path.as_ref(), line, |_, b| {
            b.condition = condition.map(str::to_string);
            b.compiled_condition = compiled;
        });
        Ok(())
    }

    /// Makes the breakpoint on a line a logpoint with this message template (or
    /// with `None` a plain breakpoint again), creating it if needed. A template
    /// whose expressions do not parse is rejected and nothing changes.
    pub fn set_log_message(
        &self,
        path: impl AsRef<Path>,
        line: usize,
        message: Option<&str>,
    ) -> Result<(), ScriptError> {
        let key = script_key(path.as_ref());
        let compiled = match message {
            Some(text) => Some(Arc::from(parse_template(&key, line, text)?)),
            None => None,
        };
        self.edit(path.as_ref(), line, |_, b| {
            b.log_message = message.map(str::to_string);
            b.compiled_message = compiled;
        });
        Ok(())
    }

    /// The breakpoints of one script, by line.
    pub fn lines(&self, path: impl AsRef<Path>) -> Vec<LineBreakpoint> {
        let key = script_key(path.as_ref());
        self.lock().lines.get(&key).cloned().unwrap_or_default()
    }

    /// Every script with breakpoints and its breakpoints, by path then line.
    pub fn all(&self) -> Vec<(String, Vec<LineBreakpoint>)> {
        self.lock()
            .lines
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Removes every breakpoint of one script.
    pub fn clear(&self, path: impl AsRef<Path>) {
        let key = script_key(path.as_ref());
        if self.lock().lines.remove(&key).is_some() {
            self.changed();
        }
    }

    /// The recorded hits, oldest first.
    pub fn hits(&self) -> Vec<ScriptHit> {
        self.lock().hits.iter().cloned().collect()
    }

    /// The recorded hits of one script, oldest first.
    pub fn hits_for(&self, path: impl AsRef<Path>) -> Vec<ScriptHit> {
        let key = script_key(path.as_ref());
        self.lock()
            .hits
            .iter()
            .filter(|h| h.path == key)
            .cloned()
            .collect()
    }

    /// The most recent hit of any script.
    pub fn last_hit(&self) -> Option<ScriptHit> {
        self.lock().hits.back().cloned()
    }

    /// Forgets the recorded hits of one script.
    pub fn clear_hits_for(&self, path: impl AsRef<Path>) {
        let key = script_key(path.as_ref());
        self.lock().hits.retain(|h| h.path != key);
    }

    /// The enabled breakpoints of one script, as the engine needs them.
    pub(crate) fn for_script(&self, key: &str) -> Arc<[LineBreakpoint]> {
        match self.lock().lines.get(key) {
            Some(list) => list.iter().filter(|b| b.enabled).cloned().collect(),
            None => Arc::from(Vec::new()),
        }
    }

    pub(crate) fn record_hit(&self, hit: ScriptHit) {
        let mut table = self.lock();
        if table.hits.len() == MAX_SCRIPT_HITS {
            table.hits.pop_front();
        }
        table.hits.push_back(hit);
    }
}
