//! Watch queries: rhai expressions over the committed state, asked after
//! every tick. "The first tick the player is below 0" is `obj(20).y < 0`.
//!
//! | in an expression | what it is |
//! |---|---|
//! | `obj(id)` | the object's committed pose and velocity: `.x`, `.y`, `.angle` (m, rad), `.vx`, `.vy` (m/s), `.w` (rad/s), `.enabled` (active in the hierarchy) |
//! | `contact(a, b)` | whether the two objects' bodies touch after the tick (either order) |
//! | `state(id)` | the object's behaviour state as the inspector shows it, one `name = value` a line (scripts list their variables): `state(20).contains("grounded = true")` |
//! | `tick`, `frame` | the completed tick, the outer frame |
//! | `sim_time`, `frame_time`, `delta_time`, `fixed_dt` | the clock's times, s |
//! | `alpha`, `accumulator`, `dropped_time` | the clock's interpolation alpha, accumulator (s) and dropped time (s) |
//!
//! `obj` of an object that is not alive is a run-time error: the watch
//! reports it (once, until it changes) and does not hold. A watch that breaks
//! or marks must give `true` or `false`; one that is plotted may give a
//! number or a bool (0 or 1).
//!
//! Expressions run on a rhai engine of their own with the standard library
//! only (no scene API, no printing) and an operation limit, so a watch can
//! neither change the session nor hang it. The engine belongs to the
//! [`WatchSet`], not to the process: two sessions never share one.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rhai::{AST, Dynamic, Engine, EvalAltResult, INT, Map, Scope};
use serde::{Deserialize, Serialize};
use stepframe_core::{ObjectId, Pipeline, Pose, TickWatch};

/// Most rhai operations one evaluation may take (the size limits are the
/// scripts' own, see `script/limits.rs`).
const MAX_OPERATIONS: u64 = 100_000;

/// What a watch does when it holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum WatchAction {
    /// Suspend at the end of the tick where it holds.
    #[default]
    Break,
    /// Put a marker on the tick where it holds, and run on.
    Mark,
    /// Record its value every tick (a lane on the timeline).
    Plot,
}

/// A watch as the user wrote it (what the editor persists).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WatchSpec {
    /// The rhai expression.
    pub expr: String,
    /// What it does when it holds.
    pub action: WatchAction,
    /// Disabled watches are not evaluated.
    pub enabled: bool,
}

/// What a watch did at one tick, for the worker to pass on.
#[derive(Clone, Debug, PartialEq)]
pub enum WatchEvent {
    /// A Break or Mark watch held.
    Held {
        /// Index in the set.
        watch: usize,
        /// The completed tick.
        tick: u64,
        /// Its outer frame.
        frame: u64,
    },
    /// A Plot watch's value.
    Value {
        /// Index in the set.
        watch: usize,
        /// The completed tick.
        tick: u64,
        /// Its outer frame.
        frame: u64,
        /// The value (a bool is 0 or 1).
        value: f64,
    },
    /// The watch failed to evaluate (reported when the message changes).
    Failed {
        /// Index in the set.
        watch: usize,
        /// The completed tick.
        tick: u64,
        /// What went wrong.
        message: String,
    },
}

/// One object's committed state, copied for the expressions to read.
#[derive(Clone, Copy, Debug)]
struct ObjectData {
    pose: Pose,
    vx: f32,
    vy: f32,
    w: f32,
    enabled: bool,
}

/// The committed state the expressions read at one tick.
#[derive(Debug, Default)]
struct TickData {
    objects: BTreeMap<u64, ObjectData>,
    touching: Vec<(u64, u64)>,
    states: BTreeMap<u64, String>,
}

fn lock(data: &Mutex<TickData>) -> MutexGuard<'_, TickData> {
    data.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The expression engine with `obj`, `contact` and `state`, reading the data
/// copied for the tick being asked about.
struct WatchEngine {
    engine: Engine,
    data: Arc<Mutex<TickData>>,
    pairs: Vec<(ObjectId, ObjectId)>,
}

impl std::fmt::Debug for WatchEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WatchEngine").finish_non_exhaustive()
    }
}

impl WatchEngine {
    fn new() -> WatchEngine {
        let data = Arc::new(Mutex::new(TickData::default()));
        let mut engine = crate::script::sandboxed_engine(MAX_OPERATIONS);
        let d = data.clone();
        engine.register_fn("obj", move |id: INT| -> Result<Map, Box<EvalAltResult>> {
            let data = lock(&d);
            let o = u64::try_from(id)
                .ok()
                .and_then(|id| data.objects.get(&id))
                .ok_or_else(|| format!("obj({id}): no such object alive at this tick"))?;
            let mut m = Map::new();
            m.insert("x".into(), Dynamic::from_float(f64::from(o.pose.x)));
            m.insert("y".into(), Dynamic::from_float(f64::from(o.pose.y)));
            m.insert("angle".into(), Dynamic::from_float(f64::from(o.pose.angle)));
            m.insert("vx".into(), Dynamic::from_float(f64::from(o.vx)));
            m.insert("vy".into(), Dynamic::from_float(f64::from(o.vy)));
            m.insert("w".into(), Dynamic::from_float(f64::from(o.w)));
            m.insert("enabled".into(), Dynamic::from_bool(o.enabled));
            Ok(m)
        });
        let d = data.clone();
        engine.register_fn("contact", move |a: INT, b: INT| -> bool {
            let (Ok(a), Ok(b)) = (u64::try_from(a), u64::try_from(b)) else {
                return false;
            };
            let pair = (a.min(b), a.max(b));
            lock(&d).touching.binary_search(&pair).is_ok()
        });
        let d = data.clone();
        engine.register_fn("state", move |id: INT| -> String {
            u64::try_from(id)
                .ok()
                .and_then(|id| lock(&d).states.get(&id).cloned())
                .unwrap_or_default()
        });
        WatchEngine {
            engine,
            data,
            pairs: Vec::new(),
        }
    }

    /// Compiles `expr`, or says where it is wrong.
    fn compile(&self, expr: &str) -> Result<AST, WatchError> {
        self.engine.compile_expression(expr).map_err(|e| {
            let pos = e.position();
            WatchError::Syntax {
                expr: expr.to_string(),
                line: pos.line().unwrap_or(1),
                column: pos.position().unwrap_or(1),
                message: e.err_type().to_string(),
            }
        })
    }

    /// Copies what the expressions may read from the session after a tick;
    /// behaviour state text only if some expression asks for it.
    fn load(&mut self, session: &Pipeline, states: bool) {
        let world = session.world();
        let mut data = lock(&self.data);
        data.objects.clear();
        for o in world.objects() {
            let velocity = o.body.as_ref().map(|b| b.velocity).unwrap_or_default();
            data.objects.insert(
                o.id.0,
                ObjectData {
                    pose: world.physics_simulation_pose(o.id).unwrap_or(o.local),
                    vx: velocity.linear.x,
                    vy: velocity.linear.y,
                    w: velocity.angular,
                    enabled: world.is_active_in_hierarchy(o.id),
                },
            );
        }
        self.pairs.clear();
        session.physics().touching_pairs(&mut self.pairs);
        data.touching.clear();
        data.touching
            .extend(self.pairs.iter().map(|(a, b)| (a.0.min(b.0), a.0.max(b.0))));
        data.touching.sort_unstable();
        data.states.clear();
        if states {
            for o in world.objects().filter(|o| !o.behaviours.is_empty()) {
                let text: Vec<String> = session
                    .behaviour_states(o.id)
                    .into_iter()
                    .map(|s| s.state)
                    .collect();
                data.states.insert(o.id.0, text.join("\n"));
            }
        }
    }

    /// Evaluates `ast` against the loaded data and the session's clock.
    fn eval(&self, ast: &AST, session: &Pipeline) -> Result<Dynamic, WatchError> {
        let c = session.clock();
        let mut scope = Scope::new();
        crate::script::push_clock(&mut scope, c);
        scope.push("alpha", c.interpolation_alpha);
        scope.push("accumulator", c.accumulator);
        scope.push("dropped_time", c.dropped_time);
        self.engine
            .eval_ast_with_scope::<Dynamic>(&mut scope, ast)
            .map_err(|e| WatchError::Eval(e.to_string()))
    }
}

/// Why a watch could not be compiled, asked or searched for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WatchError {
    /// The expression does not parse: where (1-based, within the
    /// expression) and what rhai expected.
    #[error("`{expr}`: {message} (at {line}:{column})")]
    Syntax {
        /// The expression as written.
        expr: String,
        /// Line within it.
        line: usize,
        /// Column within it.
        column: usize,
        /// rhai's complaint.
        message: String,
    },
    /// Watch `number` (1-based, as the editor lists them) of a set failed.
    #[error("watch {number}: {error}")]
    InWatch {
        /// Its place in the list, from 1.
        number: usize,
        /// What went wrong with it.
        error: Box<WatchError>,
    },
    /// No watch at this index (0-based).
    #[error("no such watch: {0}")]
    NoSuchWatch(usize),
    /// Evaluating the expression failed (an object that does not exist...).
    #[error("{0}")]
    Eval(String),
    /// A Break or Mark watch gave something other than true or false.
    #[error("`{expr}` gave a {type_name}, not true or false")]
    NotABool {
        /// The expression.
        expr: String,
        /// rhai's name of the type it gave.
        type_name: String,
    },
    /// The history could not be replayed to search it.
    #[error("{0}")]
    Replay(String),
}

/// A compiled watch.
#[derive(Debug)]
struct Compiled {
    spec: WatchSpec,
    ast: AST,
    /// The last failure reported, so a failing watch reports once.
    last_error: Option<String>,
}

/// The watches of a session: the [`TickWatch`] a pipeline asks after every
/// tick. What they did goes to a shared list the owner drains
/// ([`WatchSet::events`]).
#[derive(Debug)]
pub struct WatchSet {
    engine: WatchEngine,
    watches: Vec<Compiled>,
    events: Arc<Mutex<Vec<WatchEvent>>>,
    /// Some expression calls `state(..)` (its text costs a pass over every
    /// behaviour, so it is only built then).
    wants_states: bool,
}

impl WatchSet {
    /// Compiles every spec; the first that does not parse is the error
    /// (`watch 2: ...`), and nothing is installed.
    pub fn new(specs: &[WatchSpec]) -> Result<WatchSet, WatchError> {
        let engine = WatchEngine::new();
        let mut watches = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let ast = engine
                .compile(&spec.expr)
                .map_err(|e| WatchError::InWatch {
                    number: i + 1,
                    error: Box::new(e),
                })?;
            watches.push(Compiled {
                spec: spec.clone(),
                ast,
                last_error: None,
            });
        }
        let wants_states = specs.iter().any(|s| s.enabled && s.expr.contains("state("));
        Ok(WatchSet {
            engine,
            watches,
            events: Arc::new(Mutex::new(Vec::new())),
            wants_states,
        })
    }

    /// Checks one expression without installing it (the editor's Add).
    pub fn check(expr: &str) -> Result<(), WatchError> {
        WatchEngine::new().compile(expr).map(|_| ())
    }

    /// The shared list of what the watches did, oldest first.
    pub fn events(&self) -> Arc<Mutex<Vec<WatchEvent>>> {
        self.events.clone()
    }

    /// Whether watch `index` holds after the session's last tick (Break and
    /// Mark watches; `false` for a failure or a plot).
    pub fn holds(&mut self, index: usize, session: &Pipeline) -> Result<bool, WatchError> {
        let w = self
            .watches
            .get(index)
            .ok_or(WatchError::NoSuchWatch(index))?;
        self.engine.load(session, w.spec.expr.contains("state("));
        let value = self.engine.eval(&w.ast, session)?;
        value.as_bool().map_err(|t| WatchError::NotABool {
            expr: w.spec.expr.clone(),
            type_name: t.to_string(),
        })
    }
}

impl TickWatch for WatchSet {
    fn after_tick(&mut self, session: &Pipeline) -> Option<String> {
        if !self.watches.iter().any(|w| w.spec.enabled) {
            return None;
        }
        self.engine.load(session, self.wants_states);
        let clock = session.clock();
        let (tick, frame) = (clock.simulation_tick, clock.frame_index);
        let mut events = self.events.lock().unwrap_or_else(PoisonError::into_inner);
        let mut stop = None;
        for (i, w) in self.watches.iter_mut().enumerate() {
            if !w.spec.enabled {
                continue;
            }
            let outcome = self.engine.eval(&w.ast, session).and_then(|v| {
                match (w.spec.action, v.as_bool(), v.as_float(), v.as_int()) {
                    (WatchAction::Plot, Ok(b), _, _) => Ok(f64::from(u8::from(b))),
                    (WatchAction::Plot, _, Ok(f), _) => Ok(f),
                    (WatchAction::Plot, _, _, Ok(n)) => Ok(n as f64),
                    (_, Ok(b), _, _) => Ok(f64::from(u8::from(b))),
                    _ => Err(WatchError::NotABool {
                        expr: w.spec.expr.clone(),
                        type_name: v.type_name().to_string(),
                    }),
                }
            });
            match outcome {
                Ok(value) => {
                    w.last_error = None;
                    match w.spec.action {
                        WatchAction::Plot => events.push(WatchEvent::Value {
                            watch: i,
                            tick,
                            frame,
                            value,
                        }),
                        action if value != 0.0 => {
                            events.push(WatchEvent::Held {
                                watch: i,
                                tick,
                                frame,
                            });
                            if action == WatchAction::Break && stop.is_none() {
                                stop = Some(format!("`{}` holds", w.spec.expr));
                            }
                        }
                        _ => {}
                    }
                }
                Err(e) => {
                    let message = e.to_string();
                    if w.last_error.as_ref() != Some(&message) {
                        w.last_error = Some(message.clone());
                        events.push(WatchEvent::Failed {
                            watch: i,
                            tick,
                            message,
                        });
                    }
                }
            }
        }
        stop
    }
}

/// The last tick before `before` at which `expr` holds, searched backward
/// through `history` (the editor's "Find previous"): one keyframe's span at a
/// time, newest first, each replayed into `scratch` with the watch asked
/// after every tick, so a find near the cursor costs one span's replay, not
/// the whole history's. `live_tick` is the live session's completed ticks.
/// `Ok(None)` when it holds nowhere in the kept history; an error only for an
/// expression that does not compile or a history that cannot be replayed.
pub fn find_previous(
    history: &stepframe_core::History,
    scratch: &mut Pipeline,
    live_tick: u64,
    expr: &str,
    before: u64,
) -> Result<Option<u64>, WatchError> {
    let spec = WatchSpec {
        expr: expr.to_string(),
        action: WatchAction::Mark,
        enabled: true,
    };
    let keyframes: Vec<u64> = history.keyframe_ticks().filter(|&t| t < before).collect();
    let last = before.saturating_sub(1).min(live_tick);
    for (i, &start) in keyframes.iter().enumerate().rev() {
        // This span: the keyframe's own tick, then the ticks replayed after
        // it up to the next keyframe (or `last`).
        let end = keyframes
            .get(i + 1)
            .map_or(last, |&next| next - 1)
            .min(last);
        let mut set = WatchSet::new(std::slice::from_ref(&spec))?;
        let events = set.events();
        scratch.set_tick_watch(None);
        history
            .replay_into(scratch, live_tick, start)
            .map_err(|e| WatchError::Replay(e.to_string()))?;
        // A tick where the watch fails (its object not yet spawned) is one
        // where it does not hold.
        let at_start = set.holds(0, scratch).unwrap_or(false);
        let mut found = at_start.then_some(start);
        if end > start {
            scratch.set_tick_watch(Some(Box::new(set)));
            let replayed = history.replay_into(scratch, live_tick, end);
            scratch.set_tick_watch(None);
            replayed.map_err(|e| WatchError::Replay(e.to_string()))?;
            let events = events.lock().unwrap_or_else(PoisonError::into_inner);
            for e in events.iter() {
                match e {
                    WatchEvent::Held { tick, .. } if *tick > start && *tick <= end => {
                        found = Some(found.map_or(*tick, |f: u64| f.max(*tick)));
                    }
                    _ => {}
                }
            }
        }
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}
