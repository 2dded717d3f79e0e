//! `script_vs_rust`: what scripted fixed logic costs next to the same logic in
//! Rust.
//!
//! Two sessions run the same world: `objects` kinematic bodies, each with a
//! patrol (`assets/scripts/patrol.rhai` in one, [`RustPatrol`], a line-by-line
//! translation, in the other), at 60 Hz, one tick per frame. The pipeline
//! already times FixedUpdate per priority ([`stepframe_core::PhaseTiming`]);
//! the figure is that time per object per tick, after a warm-up, in the
//! fastest of a few alternating rounds. The whole
//! fixed phase (hooks plus the rapier step) is reported too, since that is what
//! a frame pays. No breakpoint is set, so the script runs as it does in a
//! session with no script breakpoint: on typed register code (`typed/`).
//! The same patrol on rhai alone is measured too, to show what the typed
//! path buys (in a build with the `bench` feature, which turns on the
//! plugins' `engine-knobs` to keep a script on rhai).

use std::collections::BTreeMap;

use stepframe_core::{
    Behaviour, BodyDesc, BodyKind, Ctx, Inspect, ObjectDesc, Pipeline, Pose, Priority, RapierStage,
    Shape, TimeSettings, Vec2, World,
};

use stepframe_plugins::script::{Script, ScriptError, ScriptHost, ScriptValue};

use super::Scenes;
use super::figure::Figure;

/// The patrol script the bench runs (the asset itself, built in).
const PATROL: &str = include_str!("../../../assets/scripts/patrol.rhai");

/// Patrol ends and speed, the same for both sessions.
const LEFT: f64 = -4.0;
const RIGHT: f64 = 4.0;
const SPEED: f64 = 1.5;

/// Ticks run before timing starts (first-call allocations, caches).
const WARMUP_TICKS: u64 = 30;

/// Rounds of (script, Rust) sessions; the fastest round of each counts, which
/// drops most of the noise a neighbour process adds on a shared machine.
const ROUNDS: usize = 5;

/// The patrol of `patrol.rhai`, in Rust: same state, same f64 arithmetic.
#[derive(Clone, Debug, Inspect)]
struct RustPatrol {
    started: bool,
    x: f64,
    dir: f64,
    legs: i64,
}

#[stepframe_core::behaviour]
impl Behaviour for RustPatrol {
    fn name(&self) -> &str {
        "RustPatrol"
    }

    fn fixed_update(&mut self, ctx: &mut Ctx, dt: f64) {
        let me = ctx.me();
        let Some(p) = ctx.physics_simulation_pose(me) else {
            return;
        };
        if !self.started {
            self.x = f64::from(p.x);
            self.started = true;
        }
        let mut next = self.x + self.dir * SPEED * dt;
        if next >= RIGHT {
            next = RIGHT - (next - RIGHT);
            self.dir = -1.0;
            self.legs += 1;
        } else if next <= LEFT {
            next = LEFT + (LEFT - next);
            self.dir = 1.0;
            self.legs += 1;
        }
        self.x = next;
        ctx.set_kinematic_target(me, Pose::new(self.x as f32, p.y, 0.0));
    }
}

/// What [`bench_script_vs_rust`] measured.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ScriptVsRust {
    /// Patrolling objects per session.
    objects: usize,
    /// Ticks timed (after the warm-up).
    ticks: u64,
    /// Scripted FixedUpdate, nanoseconds per object per tick, as scripts run
    /// by default (typed register code where the function qualifies).
    script_ns: f64,
    /// The same on rhai only (measured in a `bench` build only).
    rhai_ns: Option<f64>,
    /// Rust FixedUpdate, nanoseconds per object per tick.
    rust_ns: f64,
    /// Whole fixed phase of the scripted session, nanoseconds per tick.
    script_tick_ns: f64,
    /// Whole fixed phase of the Rust session, nanoseconds per tick.
    rust_tick_ns: f64,
}

/// Runs one session; returns (FixedUpdate ns per object per tick, fixed phase
/// ns per tick).
fn run(objects: usize, ticks: u64, make: &dyn Fn() -> Box<dyn Behaviour>) -> (f64, f64) {
    let mut world = World::new();
    for i in 0..objects {
        let body = BodyDesc::with_kind(BodyKind::Kinematic, Shape::Cuboid { hx: 0.4, hy: 0.4 });
        let x = LEFT as f32 + (i % 8) as f32;
        let y = 2.0 * i as f32;
        world.spawn(
            ObjectDesc::new(format!("Patrol {i}"), Pose::new(x, y, 0.0))
                .with_body(body)
                .with_behaviour(make(), Priority::DEFAULT),
        );
    }
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline.load_session(world, Box::new(RapierStage::new(Vec2::ZERO)), 1);
    let (mut hooks_ms, mut fixed_ms) = (0.0, 0.0);
    for tick in 0..WARMUP_TICKS + ticks {
        let report = pipeline.step_frame(1.0 / 60.0);
        if tick >= WARMUP_TICKS {
            hooks_ms += report.timing.fixed_by_priority.total_ms();
            fixed_ms += report.timing.fixed_ms;
        }
    }
    let per_tick = 1e6 / ticks.max(1) as f64;
    (
        hooks_ms * per_tick / objects.max(1) as f64,
        fixed_ms * per_tick,
    )
}

/// The script kept on rhai for every call, where the build can say so.
#[cfg(feature = "bench")]
fn rhai_only(script: &Script) -> Option<Script> {
    let mut rhai = script.clone();
    rhai.set_compiled(false);
    Some(rhai)
}

/// Without the `bench` feature the knob does not exist: no rhai figure.
#[cfg(not(feature = "bench"))]
fn rhai_only(_: &Script) -> Option<Script> {
    None
}

/// Times `objects` scripted patrols against `objects` Rust patrols for `ticks`
/// ticks each (see module docs). Call it from an optimised build.
fn bench_script_vs_rust(objects: usize, ticks: u64) -> Result<ScriptVsRust, ScriptError> {
    let vars: BTreeMap<String, ScriptValue> = [("left", LEFT), ("right", RIGHT), ("speed", SPEED)]
        .into_iter()
        .map(|(k, v)| (k.to_string(), ScriptValue::Float(v)))
        .collect();
    // The bench's own session: its scripts share nothing with the caller's.
    let host = ScriptHost::new();
    let script = Script::from_source(&host, "bench/patrol.rhai", PATROL, &vars)?;
    let rhai = rhai_only(&script);
    let rust = RustPatrol {
        started: false,
        x: 0.0,
        dir: 1.0,
        legs: 0,
    };
    let fastest = |a: (f64, f64), b: (f64, f64)| (a.0.min(b.0), a.1.min(b.1));
    let (mut script_best, mut rust_best) = ((f64::MAX, f64::MAX), (f64::MAX, f64::MAX));
    for _ in 0..ROUNDS {
        script_best = fastest(
            script_best,
            run(objects, ticks, &|| Box::new(script.clone())),
        );
        rust_best = fastest(rust_best, run(objects, ticks, &|| Box::new(rust.clone())));
    }
    // The slower path, for context: one round is enough to show the order
    // of magnitude.
    let rhai_ns = rhai.map(|rhai| run(objects, ticks, &|| Box::new(rhai.clone())).0);
    let ((script_ns, script_tick_ns), (rust_ns, rust_tick_ns)) = (script_best, rust_best);
    Ok(ScriptVsRust {
        objects,
        ticks,
        script_ns,
        rhai_ns,
        rust_ns,
        script_tick_ns,
        rust_tick_ns,
    })
}

/// The `script_vs_rust` figures.
pub(super) fn script_vs_rust(scale: f64, _: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let ticks = ((600.0 * scale) as u64).max(60);
    let r = bench_script_vs_rust(100, ticks).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut figures = vec![
        Figure::ratio(
            "script_vs_rust",
            r.script_ns,
            "ns/hook call",
            r.rust_ns,
            format!(
                "patrol logic, {} objects, {} ticks: the same FixedUpdate as a script (typed path) and in Rust",
                r.objects, r.ticks
            ),
        )
        .at_most(3.0),
    ];
    if let Some(rhai_ns) = r.rhai_ns {
        figures.push(Figure::ratio(
            "script_rhai_vs_rust",
            rhai_ns,
            "ns/hook call",
            r.rust_ns,
            "the same script on rhai alone (what a breakpointed script runs on), for context",
        ));
    }
    figures.push(Figure::ratio(
        "script_vs_rust_tick",
        r.script_tick_ns,
        "ns/tick",
        r.rust_tick_ns,
        "whole ticks (hooks plus physics), for context",
    ));
    Ok(figures)
}
