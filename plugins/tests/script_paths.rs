//! The typed script path computes what rhai computes.
//!
//! Every generated program runs twice, in two sessions that differ only in
//! the path the Script behaviours may take: rhai only, and typed register
//! code (`typed/`, the default). The state hash (world, poses, every script
//! variable by type and bits) must be equal after every tick, and so must the
//! log (run-time errors included: where the typed path bails, rhai runs the
//! call and reports its own error).
//!
//! The programs are generated from a fixed seed over the compiled subset:
//! integer and float arithmetic with overflow, division by zero and near-equal
//! float comparisons (rhai compares floats within a relative epsilon),
//! booleans and short-circuits, type changes of state variables between ticks
//! and between branches, `pose()` fields (with and without a body), random
//! draws, body commands with non-finite values, early returns. Many programs
//! fail in rhai with a type error; the test also checks that most calls did
//! run on the typed path, so it is not only testing the bail-out.

use std::collections::BTreeMap;

use stepframe_core::{
    BodyDesc, BodyKind, ObjectDesc, Pipeline, Pose, Priority, RapierStage, Rng, Shape,
    TimeSettings, Vec2, World,
};
use stepframe_plugins::script::{self, CallCounts, Script, ScriptContext, ScriptHost, ScriptValue};

/// Which paths a session's scripts may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    Rhai,
    Typed,
}

const TICKS: usize = 12;

/// The name every test script goes by: each session has its own host, so
/// one name serves every program (no two sessions share a cache).
const NAME: &str = "paths/test.rhai";

/// Builds the session of [`session`] (no frame run yet), its scripts in `host`.
fn build(host: &ScriptHost, text: &str, path: Path) -> Option<Pipeline> {
    let vars: BTreeMap<String, ScriptValue> = [("k".to_string(), ScriptValue::Float(2.5))]
        .into_iter()
        .collect();
    let mut script = match Script::from_source(host, NAME, text, &vars) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("does not compile: {e}");
            return None;
        }
    };
    script.set_compiled(path == Path::Typed);
    let mut world = World::new();
    let body = BodyDesc::with_kind(BodyKind::Kinematic, Shape::Cuboid { hx: 0.4, hy: 0.4 });
    world.spawn(
        ObjectDesc::new("Body", Pose::new(1.0, 2.0, 0.25))
            .with_body(body)
            .with_behaviour(Box::new(script.clone()), Priority::DEFAULT),
    );
    world.spawn(
        ObjectDesc::new("No body", Pose::new(0.0, 0.0, 0.0))
            .with_behaviour(Box::new(script), Priority::DEFAULT),
    );
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline.load_session(world, Box::new(RapierStage::new(Vec2::ZERO)), 7);
    Some(pipeline)
}

/// Runs `text` on two objects (one with a kinematic body, one without) for
/// `TICKS` ticks, in a session of its own: the state hash after each tick,
/// the log, and the call counts.
fn session(text: &str, path: Path) -> Option<(Vec<u64>, Vec<String>, CallCounts)> {
    let host = ScriptHost::new();
    let mut pipeline = build(&host, text, path)?;
    let mut hashes = Vec::new();
    for _ in 0..TICKS {
        pipeline.step_frame(1.0 / 60.0);
        hashes.push(pipeline.state_hash());
    }
    let log = pipeline
        .drain_log()
        .into_iter()
        .map(|l| format!("{:?}: {}", l.level, l.message))
        .collect();
    Some((hashes, log, host.call_counts()))
}

/// A program generator over the compiled subset.
struct Gen {
    rng: Rng,
    /// Locals in scope, innermost last.
    locals: Vec<String>,
    next_local: usize,
    has_pose: bool,
}

impl Gen {
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.rng.next_u64() % items.len() as u64) as usize]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.rng.next_u64() % 100 < percent
    }

    fn leaf(&mut self) -> String {
        match self.rng.next_u64() % 7 {
            0 => self
                .pick(&[
                    "0",
                    "1",
                    "2",
                    "-3",
                    "7",
                    "1000000007",
                    "9223372036854775807",
                    "-9223372036854775807",
                ])
                .to_string(),
            1 => self
                .pick(&[
                    "0.0",
                    "0.5",
                    "-1.25",
                    "0.1",
                    "0.3",
                    "(0.1 + 0.2)",
                    "0.30000000000000004",
                    "1.0",
                    "1.0000000000000002",
                    "0.9999999999999999",
                    "1e300",
                    "-1e-300",
                    "3.0",
                ])
                .to_string(),
            2 => self.pick(&["true", "false"]).to_string(),
            3 if !self.locals.is_empty() => {
                let i = (self.rng.next_u64() % self.locals.len() as u64) as usize;
                self.locals[i].clone()
            }
            4 => {
                let mut fields = vec![
                    "pose().x",
                    "pose().angle",
                    "velocity().x",
                    "velocity().angular",
                ];
                if self.has_pose {
                    fields.extend(["p.x", "p.y", "p.angle"]);
                }
                self.pick(&fields).to_string()
            }
            5 => self
                .pick(&[
                    "tick()",
                    "rand()",
                    "sim_time()",
                    "fixed_dt()",
                    "me()",
                    "frame()",
                ])
                .to_string(),
            _ => self.pick(&["a", "b", "c", "d", "dt", "k"]).to_string(),
        }
    }

    fn expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.chance(30) {
            return self.leaf();
        }
        match self.rng.next_u64() % 10 {
            0 => format!("-({})", self.expr(depth - 1)),
            1 => format!("!({})", self.expr(depth - 1)),
            2 => format!("({} && {})", self.cond(depth - 1), self.cond(depth - 1)),
            3 => format!("({} || {})", self.cond(depth - 1), self.cond(depth - 1)),
            4 => {
                let f = self.pick(&["abs", "sqrt", "floor", "ceiling", "ceil", "sin", "cos"]);
                format!("{f}({})", self.expr(depth - 1))
            }
            5 => format!(
                "rand_range({}, {})",
                self.expr(depth - 1),
                self.expr(depth - 1)
            ),
            _ => {
                let op = self.pick(&[
                    "+", "-", "*", "/", "%", "**", "==", "!=", "<", "<=", ">", ">=",
                ]);
                format!("({} {op} {})", self.expr(depth - 1), self.expr(depth - 1))
            }
        }
    }

    /// Something rhai's parser accepts as a condition: a comparison, a bool,
    /// a variable (which may hold anything at run time), or a negation.
    fn cond(&mut self, depth: u32) -> String {
        match self.rng.next_u64() % 6 {
            0 => self.pick(&["true", "false", "c", "d", "a"]).to_string(),
            1 if depth > 0 => format!("!({})", self.cond(depth - 1)),
            2 if depth > 0 => format!("({} && {})", self.cond(depth - 1), self.cond(depth - 1)),
            _ => {
                let op = self.pick(&["==", "!=", "<", "<=", ">", ">="]);
                let d = depth.max(1);
                format!("({} {op} {})", self.expr(d - 1), self.expr(d - 1))
            }
        }
    }

    fn block(&mut self, depth: u32, len: u64) -> String {
        let visible = self.locals.len();
        let n = 1 + self.rng.next_u64() % len;
        let text: Vec<String> = (0..n).map(|_| self.stmt(depth)).collect();
        self.locals.truncate(visible);
        text.join("\n")
    }

    fn stmt(&mut self, depth: u32) -> String {
        match self.rng.next_u64() % 12 {
            0 | 1 => {
                let v = self.pick(&["a", "b", "c", "d"]);
                format!("{v} = {};", self.expr(2))
            }
            2 => {
                let v = self.pick(&["a", "b", "d"]);
                let op = self.pick(&["+=", "-=", "*=", "/=", "%="]);
                format!("{v} {op} {};", self.expr(2))
            }
            3 | 4 => {
                let name = format!("l{}", self.next_local);
                self.next_local += 1;
                let text = format!("let {name} = {};", self.expr(2));
                self.locals.push(name);
                text
            }
            5 if !self.locals.is_empty() => {
                let i = (self.rng.next_u64() % self.locals.len() as u64) as usize;
                let name = self.locals[i].clone();
                format!("{name} = {};", self.expr(2))
            }
            6 | 7 if depth > 0 => {
                let cond = self.cond(2);
                let then = self.block(depth - 1, 3);
                if self.chance(50) {
                    let other = self.block(depth - 1, 3);
                    format!("if {cond} {{\n{then}\n}} else {{\n{other}\n}}")
                } else {
                    format!("if {cond} {{\n{then}\n}}")
                }
            }
            8 => format!(
                "set_kinematic_target({}, {}, {});",
                self.expr(1),
                self.expr(1),
                self.expr(1)
            ),
            9 if depth < 2 && self.chance(30) => "return;".to_string(),
            _ => {
                // The common shape of real fixed logic: numbers only.
                let v = self.pick(&["b", "d"]);
                format!("{v} = {v} + {} * dt;", self.pick(&["k", "0.5", "b", "d"]))
            }
        }
    }

    fn program(&mut self) -> String {
        let init = |g: &mut Gen, pool: &[&str]| g.pick(pool).to_string();
        let a = init(self, &["0", "5", "-2", "9223372036854775806"]);
        let b = init(self, &["0.0", "1.5", "-0.1", "0.30000000000000004"]);
        let c = init(self, &["true", "false"]);
        let d = init(self, &["0.25", "2", "false", "0.3"]);
        self.has_pose = self.chance(50);
        let pose = if self.has_pose {
            "let p = pose();\n"
        } else {
            ""
        };
        let body = self.block(2, 6);
        format!(
            "let a = {a};\nlet b = {b};\nlet c = {c};\nlet d = {d};\n\
             fn fixed_update(dt) {{\n{pose}{body}\n}}\n"
        )
    }
}

#[test]
fn the_compiled_and_typed_paths_match_rhai_on_generated_programs() {
    let mut g = Gen {
        rng: Rng::new(0x5eed),
        locals: Vec::new(),
        next_local: 0,
        has_pose: false,
    };
    let (mut compared, mut typed_calls, mut all_calls) = (0, 0u64, 0u64);
    for case in 0..400 {
        g.locals.clear();
        g.next_local = 0;
        let text = g.program();
        let Some(rhai) = session(&text, Path::Rhai) else {
            continue;
        };
        compared += 1;
        {
            let path = Path::Typed;
            let other = session(&text, path).expect("compiles on every path");
            assert_eq!(
                rhai.1, other.1,
                "case {case}: the log differs on {path:?} from rhai for:\n{text}"
            );
            assert_eq!(
                rhai.0, other.0,
                "case {case}: the state differs on {path:?} from rhai for:\n{text}"
            );
            assert_eq!(rhai.2.typed, 0, "rhai only");
            all_calls += other.2.typed + other.2.rhai;
            typed_calls += other.2.typed;
        }
    }
    eprintln!("{compared} programs; calls: {typed_calls} typed of {all_calls}");
    assert!(compared >= 320, "only {compared} programs compiled");
    // At least half the calls of the typed sessions ran typed (63% when
    // written), or the comparison only tested the bail-out.
    assert!(
        typed_calls * 2 >= all_calls,
        "typed path ran {typed_calls} of {all_calls} calls"
    );
}

#[test]
fn the_bundled_patrol_runs_typed_and_matches_rhai_tick_for_tick() {
    let text = include_str!("../../assets/scripts/patrol.rhai").replace(
        "let started = false;",
        "let left = -1.0; let right = 1.0; let speed = k; let started = false;",
    );
    let rhai = session(&text, Path::Rhai).expect("compiles");
    let typed = session(&text, Path::Typed).expect("compiles");
    assert_eq!(rhai.0, typed.0);
    assert_eq!(rhai.1, typed.1);
    // The object with a body runs typed every tick after the first (whose
    // `started` branch the specialisation covers too); the one without a
    // body bails to rhai, whose empty `pose()` map makes `p.x` fail.
    assert!(typed.2.typed >= TICKS as u64 - 1, "{:?}", typed.2);
}

#[test]
fn hook_engines_name_the_line_that_keeps_a_function_on_rhai() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scripts/dropper.rhai");
    let vars = [("max", 3.0), ("every", 30.0), ("spread", 0.5)]
        .into_iter()
        .map(|(k, v)| (k.to_string(), ScriptValue::Float(v)))
        .collect();
    let host = ScriptHost::new();
    let cx = ScriptContext::new(&host, ".");
    Script::new(
        script::ScriptParams {
            path: path.to_string_lossy().into_owned(),
            vars,
            hot_reload: false,
        },
        &cx,
    )
    .expect("the dropper loads");
    let engines = host.hook_engines(&path);
    assert_eq!(engines.len(), 1, "{engines:?}");
    assert_eq!(engines[0].hook, "fixed_update");
    assert!(!engines[0].compiled);
    // `spawn_body(#{ name: `Drop ${dropped}`, ... })`: the first thing outside
    // the subset the compiler meets.
    let why = engines[0].why_not.as_deref().expect("a reason");
    assert!(why.starts_with("line "), "{why}");

    let patrol =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scripts/patrol.rhai");
    Script::new(
        script::ScriptParams {
            path: patrol.to_string_lossy().into_owned(),
            vars: BTreeMap::new(),
            hot_reload: false,
        },
        &cx,
    )
    .expect("the patrol loads");
    assert!(
        ScriptHost::new().hook_engines(&patrol).is_empty(),
        "another session has not loaded it"
    );
    let engines = host.hook_engines(&patrol);
    assert_eq!(engines.len(), 1);
    assert!(
        engines[0].compiled && engines[0].why_not.is_none(),
        "{engines:?}"
    );
}

#[test]
fn a_breakpoint_set_after_compiled_ticks_stops_with_the_state_rhai_would_have() {
    // The patrol runs typed for 40 ticks (its state in typed slots), then a
    // line breakpoint sends it to rhai's debugger: the hit's locals and the
    // suspended state must be those of a session that ran on rhai throughout.
    let text = include_str!("../../assets/scripts/patrol.rhai").replace(
        "let started = false;",
        "let left = -1.0; let right = 1.0; let speed = k; let started = false;",
    );
    let key = format!("inline:{NAME}");
    let mut seen = Vec::new();
    for path in [Path::Rhai, Path::Typed] {
        let host = ScriptHost::new();
        let mut p = build(&host, &text, path).expect("compiles");
        for _ in 0..40 {
            p.step_frame(1.0 / 60.0);
        }
        // Line 22 of patrol.rhai: `let next = x + dir * speed * dt;`.
        host.breakpoints().set(&key, 22);
        let mut frames = 0;
        while p.suspension().is_none() && frames < 5 {
            p.step_frame(1.0 / 60.0);
            frames += 1;
        }
        host.breakpoints().clear(&key);
        assert!(
            p.suspension().is_some(),
            "{path:?}: the breakpoint stopped the session"
        );
        let hit = host.breakpoints().last_hit().expect("a hit");
        seen.push((hit.tick, hit.locals, p.state_hash()));
        host.breakpoints().clear_hits_for(&key);
        // Resumed without the breakpoint, it goes back to the fast path.
        let stopped = p.state_hash();
        let before = host.call_counts();
        p.resume();
        for _ in 0..10 {
            p.step_frame(1.0 / 60.0);
        }
        assert_ne!(p.state_hash(), stopped, "{path:?}: the session went on");
        if path == Path::Typed {
            let typed = host.call_counts().typed - before.typed;
            assert!(typed >= 10, "back on the typed path: {typed} calls");
        }
        seen.push((0, Vec::new(), p.state_hash()));
    }
    assert_eq!(seen[0], seen[2], "the stop: tick, locals and state");
    assert_eq!(seen[1], seen[3], "10 frames after it");
}
