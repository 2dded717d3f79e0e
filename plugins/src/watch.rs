//! Watch queries: rhai expressions over the committed state, asked after
//! every tick. "The first tick the player is below 0" is `obj(20).y < 0`.
//!
//! | in an expression | what it is |
//! |---|---|
//! | `obj(id)` | the object's committed pose and velocity: `.x`, `.y`, `.angle` (m, rad), `.vx`, `.vy` (m/s), `.w` (rad/s), `.enabled` (active in the hierarchy); a soft body's `.particles` and `.pieces` too |
//! | `field(id, path)` | one of the object's behaviour fields by the stable path the inspector lists (`field(20, "PlayerController.charge_ms")`, `field(30, "Script.vars.speed")`): a number, a bool or a text as the behaviour holds it |
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
//! `field` asks only the behaviour its path names, and only for the paths an
//! expression has asked for: the first evaluation that meets a new path
//! fetches it and evaluates again, and every later tick fetches it up front.
//! That keeps a set without `field` as cheap as before, and a plotted field
//! as cheap as one behaviour's rows.
//!
//! `obj` and `contact` are read the same way: a tick copies only the objects
//! the set's expressions have read before (and the touching pairs only once
//! some expression has asked `contact`). An evaluation that meets an object
//! not copied yet copies every live object and evaluates again, remembering
//! the ones it read. `obj(20).y` after a tick then copies one object, not
//! the demo's 158: a plotted pose filled from the history replays about a
//! tenth faster for it (the copy was most of what the watch cost).
//!
//! The inspector's plot buttons write these expressions (`obj(20).y`,
//! `field(20, "PlayerController.charge_ms")`), so a plotted field is an
//! ordinary "show value" watch; [`plot_history`] fills its past ticks from
//! the rewind history.
//!
//! Expressions run on a rhai engine of their own with the standard library
//! only (no scene API, no printing) and an operation limit, so a watch can
//! neither change the session nor hang it. The engine belongs to the
//! [`WatchSet`], not to the process: two sessions never share one.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rhai::{AST, Dynamic, Engine, EvalAltResult, INT, Map, Scope};
use serde::{Deserialize, Serialize};
use stepframe_core::{FieldValue, ObjectId, Pipeline, Pose, TickWatch};

mod history;
mod plot;

pub use history::{PlotSpan, find_previous, plot_history, plot_history_spans};
pub use plot::{field_of, known_unit, plotted_unit};

/// Most rhai operations one evaluation may take (the size limits are the
/// scripts' own, see `script/limits.rs`).
const MAX_OPERATIONS: u64 = 100_000;

/// Most distinct `field(id, path)` pairs a set remembers and fetches every
/// tick. An expression that computes its ids (`field(tick % 1000, ...)`)
/// would otherwise grow the list without end; past this, new pairs are
/// fetched for the evaluation that asks and forgotten after it.
const MAX_REMEMBERED_FIELDS: usize = 256;

/// Most times one evaluation starts again to fetch the fields it met: one
/// round per new path, so an expression naming eight new paths at once
/// settles in at most nine evaluations, once; later ticks need one.
const MAX_FIELD_ROUNDS: usize = 8;

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
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// A soft body's particle count and pieces (`None` for any other).
    soft: Option<(u32, u32)>,
}

/// The committed state the expressions read at one tick.
#[derive(Debug, Default)]
struct TickData {
    /// The live objects copied for this tick: the remembered ones, or every
    /// one when `all_objects`.
    objects: BTreeMap<u64, ObjectData>,
    /// `objects` holds every live object: an id not in it is not alive.
    all_objects: bool,
    /// An evaluation asked for an object not copied (and maybe alive).
    objects_missing: bool,
    /// The ids `obj` was asked for this tick, to remember.
    objects_read: BTreeSet<u64>,
    /// The touching pairs, once some expression has asked `contact`.
    touching: Option<Vec<(u64, u64)>>,
    states: BTreeMap<u64, String>,
    /// An evaluation asked `contact` before the pairs were copied.
    touching_missing: bool,
    /// Behaviour fields fetched for this tick (`None`: no such field now).
    fields: BTreeMap<(u64, String), Option<FieldValue>>,
    /// Fields an evaluation asked for that were not fetched yet.
    wanted: BTreeSet<(u64, String)>,
}

/// A behaviour field as a rhai value: numbers and flags keep their kind
/// (a plot reads a bool as 0 or 1), text stays text, an empty `Option` is `()`.
fn field_dynamic(value: &FieldValue) -> Dynamic {
    match value {
        FieldValue::Bool(b) => Dynamic::from_bool(*b),
        FieldValue::Int(i) => Dynamic::from_int(*i),
        FieldValue::UInt(u) => INT::try_from(*u)
            .map(Dynamic::from_int)
            .unwrap_or_else(|_| Dynamic::from_float(*u as f64)),
        FieldValue::F32(f) => Dynamic::from_float(f64::from(*f)),
        FieldValue::F64(f) => Dynamic::from_float(*f),
        FieldValue::Text(t) => Dynamic::from(t.clone()),
        FieldValue::None => Dynamic::UNIT,
    }
}

fn lock(data: &Mutex<TickData>) -> MutexGuard<'_, TickData> {
    data.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What `obj` reads of `o` after the session's last tick.
fn object_data(session: &Pipeline, o: &stepframe_core::Object) -> ObjectData {
    let world = session.world();
    let velocity = o.body.as_ref().map(|b| b.velocity).unwrap_or_default();
    ObjectData {
        pose: world.physics_simulation_pose(o.id).unwrap_or(o.local),
        vx: velocity.linear.x,
        vy: velocity.linear.y,
        w: velocity.angular,
        enabled: world.is_active_in_hierarchy(o.id),
        soft: o
            .body
            .as_ref()
            .and_then(|b| b.soft.as_ref())
            .map(|s| (s.particles.len() as u32, s.pieces)),
    }
}

/// The session's touching pairs, each as `(lower id, higher id)`, sorted
/// (what `contact` searches); `scratch` keeps its buffer between ticks.
fn touching(session: &Pipeline, scratch: &mut Vec<(ObjectId, ObjectId)>) -> Vec<(u64, u64)> {
    scratch.clear();
    session.physics().touching_pairs(scratch);
    let mut pairs: Vec<(u64, u64)> = scratch
        .iter()
        .map(|(a, b)| (a.0.min(b.0), a.0.max(b.0)))
        .collect();
    pairs.sort_unstable();
    pairs
}

/// What `field`, `obj` and `contact` fail with while what they read is
/// being fetched (never shown: `eval` fetches it and evaluates again).
const PENDING: &str = "value not fetched yet";

/// The expression engine with `obj`, `contact`, `state` and `field`, reading
/// the data copied for the tick being asked about.
struct WatchEngine {
    engine: Engine,
    data: Arc<Mutex<TickData>>,
    pairs: Vec<(ObjectId, ObjectId)>,
    /// The `field` pairs fetched up front at every tick (the ones asked so far).
    remembered: Mutex<BTreeSet<(u64, String)>>,
    /// The objects copied up front at every tick (the ones `obj` read so
    /// far), and whether the touching pairs are.
    remembered_reads: Mutex<(BTreeSet<u64>, bool)>,
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
            let mut data = lock(&d);
            let not_alive = || format!("obj({id}): no such object alive at this tick");
            let Ok(key) = u64::try_from(id) else {
                return Err(not_alive().into());
            };
            data.objects_read.insert(key);
            let Some(o) = data.objects.get(&key).copied() else {
                if data.all_objects {
                    return Err(not_alive().into());
                }
                // Copied by `eval`, which then asks again.
                data.objects_missing = true;
                return Err(PENDING.into());
            };
            let mut m = Map::new();
            m.insert("x".into(), Dynamic::from_float(f64::from(o.pose.x)));
            m.insert("y".into(), Dynamic::from_float(f64::from(o.pose.y)));
            m.insert("angle".into(), Dynamic::from_float(f64::from(o.pose.angle)));
            m.insert("vx".into(), Dynamic::from_float(f64::from(o.vx)));
            m.insert("vy".into(), Dynamic::from_float(f64::from(o.vy)));
            m.insert("w".into(), Dynamic::from_float(f64::from(o.w)));
            m.insert("enabled".into(), Dynamic::from_bool(o.enabled));
            if let Some((particles, pieces)) = o.soft {
                m.insert("particles".into(), Dynamic::from_int(INT::from(particles)));
                m.insert("pieces".into(), Dynamic::from_int(INT::from(pieces)));
            }
            Ok(m)
        });
        let d = data.clone();
        engine.register_fn(
            "field",
            move |id: INT, path: &str| -> Result<Dynamic, Box<EvalAltResult>> {
                let id =
                    u64::try_from(id).map_err(|_| format!("field({id}, ..): no such object"))?;
                let mut data = lock(&d);
                let key = (id, path.to_string());
                match data.fields.get(&key) {
                    Some(Some(value)) => Ok(field_dynamic(value)),
                    Some(None) => Err(format!(
                        "field({id}, \"{path}\"): no behaviour field with that path at this tick"
                    )
                    .into()),
                    None => {
                        // Fetched by `eval`, which then asks again.
                        data.wanted.insert(key);
                        Err(PENDING.into())
                    }
                }
            },
        );
        let d = data.clone();
        engine.register_fn(
            "contact",
            move |a: INT, b: INT| -> Result<bool, Box<EvalAltResult>> {
                let mut data = lock(&d);
                let Some(touching) = &data.touching else {
                    // Fetched by `eval`, which then asks again.
                    data.touching_missing = true;
                    return Err(PENDING.into());
                };
                let (Ok(a), Ok(b)) = (u64::try_from(a), u64::try_from(b)) else {
                    return Ok(false);
                };
                Ok(touching.binary_search(&(a.min(b), a.max(b))).is_ok())
            },
        );
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
            remembered: Mutex::new(BTreeSet::new()),
            remembered_reads: Mutex::new((BTreeSet::new(), false)),
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
        data.all_objects = false;
        data.objects_missing = false;
        data.objects_read.clear();
        data.touching_missing = false;
        let reads = self
            .remembered_reads
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for &id in &reads.0 {
            if let Some(o) = world.get(ObjectId(id)) {
                data.objects.insert(id, object_data(session, o));
            }
        }
        if reads.1 {
            data.touching = Some(touching(session, &mut self.pairs));
        } else {
            data.touching = None;
        }
        drop(reads);
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
        data.fields.clear();
        data.wanted.clear();
        let remembered = self
            .remembered
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for (id, path) in remembered.iter() {
            let value = session.behaviour_field(ObjectId(*id), path);
            data.fields.insert((*id, path.clone()), value);
        }
    }

    /// Evaluates `ast` against the loaded data and the session's clock. A
    /// `field` not fetched yet is fetched from `session` and the expression
    /// evaluated again (module docs).
    fn eval(&self, ast: &AST, session: &Pipeline) -> Result<Dynamic, WatchError> {
        let c = session.clock();
        // One more round each for the objects and the touching pairs.
        for _ in 0..=MAX_FIELD_ROUNDS + 2 {
            let mut scope = Scope::new();
            crate::script::push_clock(&mut scope, c);
            scope.push("alpha", c.interpolation_alpha);
            scope.push("accumulator", c.accumulator);
            scope.push("dropped_time", c.dropped_time);
            let result = self.engine.eval_ast_with_scope::<Dynamic>(&mut scope, ast);
            let mut data = lock(&self.data);
            let mut reads = self
                .remembered_reads
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if data.objects_missing {
                // Every live object, this once; the ones read are
                // remembered below when the evaluation settles.
                data.objects_missing = false;
                data.all_objects = true;
                data.objects = session
                    .world()
                    .objects()
                    .map(|o| (o.id.0, object_data(session, o)))
                    .collect();
                continue;
            }
            if data.touching_missing {
                data.touching_missing = false;
                let mut pairs = Vec::new();
                data.touching = Some(touching(session, &mut pairs));
                reads.1 = true;
                continue;
            }
            if reads.0.len() < MAX_REMEMBERED_FIELDS {
                let read = std::mem::take(&mut data.objects_read);
                reads.0.extend(read);
            }
            drop(reads);
            if data.wanted.is_empty() {
                return result.map_err(|e| WatchError::Eval(e.to_string()));
            }
            let mut remembered = self
                .remembered
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            for (id, path) in std::mem::take(&mut data.wanted) {
                let value = session.behaviour_field(ObjectId(id), &path);
                if remembered.len() < MAX_REMEMBERED_FIELDS {
                    remembered.insert((id, path.clone()));
                }
                data.fields.insert((id, path), value);
            }
        }
        Err(WatchError::Eval(format!(
            "asks for more than {MAX_FIELD_ROUNDS} new fields at once"
        )))
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
        let (spec, value) = self.evaluate(index, session)?;
        value.as_bool().map_err(|t| WatchError::NotABool {
            expr: spec.expr.clone(),
            type_name: t.to_string(),
        })
    }

    /// Watch `index`'s number after the session's last tick, as a plot
    /// records it (a bool is 0 or 1): what the history fill asks at a
    /// keyframe's own tick, which no tick watch sees because it is restored,
    /// not run.
    pub fn value(&mut self, index: usize, session: &Pipeline) -> Result<f64, WatchError> {
        let (spec, value) = self.evaluate(index, session)?;
        outcome_number(spec, &value)
    }

    /// Watch `index`'s spec and what its expression gives after the
    /// session's last tick: what [`WatchSet::holds`] and [`WatchSet::value`]
    /// read it as.
    fn evaluate(
        &mut self,
        index: usize,
        session: &Pipeline,
    ) -> Result<(&WatchSpec, Dynamic), WatchError> {
        let w = self
            .watches
            .get(index)
            .ok_or(WatchError::NoSuchWatch(index))?;
        self.engine.load(session, w.spec.expr.contains("state("));
        let value = self.engine.eval(&w.ast, session)?;
        Ok((&w.spec, value))
    }
}

/// What a watch's value counts as: a plot's number (a bool is 0 or 1), or a
/// break or mark watch's truth as 1 or 0; anything else is an error.
fn outcome_number(spec: &WatchSpec, v: &Dynamic) -> Result<f64, WatchError> {
    match (spec.action, v.as_bool(), v.as_float(), v.as_int()) {
        (WatchAction::Plot, Ok(b), _, _) => Ok(f64::from(u8::from(b))),
        (WatchAction::Plot, _, Ok(f), _) => Ok(f),
        (WatchAction::Plot, _, _, Ok(n)) => Ok(n as f64),
        (_, Ok(b), _, _) => Ok(f64::from(u8::from(b))),
        _ => Err(WatchError::NotABool {
            expr: spec.expr.clone(),
            type_name: v.type_name().to_string(),
        }),
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
            let outcome = self
                .engine
                .eval(&w.ast, session)
                .and_then(|v| outcome_number(&w.spec, &v));
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
