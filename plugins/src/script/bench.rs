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
//! path buys.

use std::collections::BTreeMap;

use stepframe_core::{
    Behaviour, BodyDesc, BodyKind, Ctx, Inspect, ObjectDesc, Pipeline, Pose, Priority, RapierStage,
    Shape, TimeSettings, Vec2, World,
};

use super::{Script, ScriptError, ScriptHost, ScriptValue};

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
pub struct ScriptVsRust {
    /// Patrolling objects per session.
    pub objects: usize,
    /// Ticks timed (after the warm-up).
    pub ticks: u64,
    /// Scripted FixedUpdate, nanoseconds per object per tick, as scripts run
    /// by default (typed register code where the function qualifies).
    pub script_ns: f64,
    /// The same on rhai only.
    pub rhai_ns: f64,
    /// Rust FixedUpdate, nanoseconds per object per tick.
    pub rust_ns: f64,
    /// Whole fixed phase of the scripted session, nanoseconds per tick.
    pub script_tick_ns: f64,
    /// Whole fixed phase of the Rust session, nanoseconds per tick.
    pub rust_tick_ns: f64,
}

impl ScriptVsRust {
    /// How many times the Rust hook's cost the script's is (the target: ≤ 3).
    pub fn ratio(&self) -> f64 {
        self.script_ns / self.rust_ns.max(f64::MIN_POSITIVE)
    }

    /// The same ratio for the whole fixed phase (hooks and physics).
    pub fn tick_ratio(&self) -> f64 {
        self.script_tick_ns / self.rust_tick_ns.max(f64::MIN_POSITIVE)
    }
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

/// Times `objects` scripted patrols against `objects` Rust patrols for `ticks`
/// ticks each (see module docs). Call it from an optimised build.
pub fn bench_script_vs_rust(objects: usize, ticks: u64) -> Result<ScriptVsRust, ScriptError> {
    let vars: BTreeMap<String, ScriptValue> = [("left", LEFT), ("right", RIGHT), ("speed", SPEED)]
        .into_iter()
        .map(|(k, v)| (k.to_string(), ScriptValue::Float(v)))
        .collect();
    // The bench's own session: its scripts share nothing with the caller's.
    let host = ScriptHost::new();
    let script = Script::from_source(&host, "bench/patrol.rhai", PATROL, &vars)?;
    let mut rhai = script.clone();
    rhai.use_typed(false);
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
    let rhai_ns = run(objects, ticks, &|| Box::new(rhai.clone())).0;
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
