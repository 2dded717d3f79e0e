//! The mid-step hook figures: what a hook costs per pair-call
//! (`midstep_hook_ns`), and what the mechanism costs a scene that has no
//! hook (`midstep_idle_overhead`).
//!
//! # `midstep_hook_ns`
//!
//! 200 crates that never sleep rest on a floor 1 m apart, each one pair
//! with it; the floor has a mid-step behaviour that counts its calls (an atomic:
//! the hook takes `&self`) and sets the pair's friction to what it already
//! is. The same world without the behaviour is the reference. The figure is
//! the difference per tick divided by the pair-calls per tick: everything a
//! pair-call costs, which is rapier's full contact update of the pair (it
//! reuses the contacts of an unhooked pair that barely moved), turning the
//! manifold into plain data and back, the dispatcher's lock, two clock
//! reads and the call. Printed for information, with no target.
//!
//! # `midstep_idle_overhead`: "before" in the same run
//!
//! demo.ron has no mid-step hook. The pipeline then steps each tick as it
//! did before the hook existed, after two tests: the cohort's mid-step list
//! is empty, and the engine calls back for nobody. The reference is the
//! same pipeline with the mechanism switched off
//! (`Pipeline::set_mid_step_bypass`, behind the `bench-knobs` feature,
//! which `--features bench` turns on): its ticks call the physics step
//! directly, the code as it was. Both sides step the same 30 ticks from
//! the same snapshot, in 200 alternating rounds, fastest of each; the
//! target is a ratio of at most 1.01.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use stepframe_core::{
    Behaviour, BodyDesc, BodyKind, Inspect, MidStepPair, ObjectDesc, Pipeline, Pose, Priority,
    RapierStage, Shape, TimeSettings, Vec2, World,
};

use super::{Figure, Scenes, alternate, time};

/// Crates in the `midstep_hook_ns` world.
const CRATES: usize = 200;

/// Alternating rounds of `midstep_hook_ns`, of 20 ticks (2-5 ms a side):
/// short enough that some of them miss the neighbours on a shared 2-core
/// machine, and the fastest of each side is kept (40 rounds of 60 ticks
/// read 297 to 861 ns in four runs under load 10).
const HOOK_ROUNDS: usize = 150;

/// Alternating rounds of `midstep_idle_overhead`, of 30 ticks (about 3 ms)
/// each: with 20 rounds of 120 ticks three runs under load 8 read 0.80,
/// 1.0002 and 1.16; the difference measured is a few nanoseconds a tick,
/// so the figure needs rounds no neighbour interrupts.
const IDLE_ROUNDS: usize = 200;

/// Counts its pair-calls and writes the pair's own friction back.
#[derive(Clone, Debug, Inspect)]
struct CountingHook {
    /// Pair-calls so far, shared with the bench.
    #[inspect(skip)]
    calls: Arc<AtomicU64>,
}

#[stepframe_core::behaviour]
impl Behaviour for CountingHook {
    fn name(&self) -> &str {
        "CountingHook"
    }

    fn mid_step(&self, pair: &mut MidStepPair) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let friction = pair.friction();
        pair.set_friction(friction);
    }
}

/// A floor 200 m long with [`CRATES`] awake crates on it, 1 m apart; the
/// floor counts its pair-calls into `calls` when given one.
fn crates_world(calls: Option<Arc<AtomicU64>>) -> World {
    let mut w = World::new();
    let half = CRATES as f32 / 2.0 + 1.0;
    let mut floor = ObjectDesc::new("floor", Pose::new(0.0, -0.5, 0.0)).with_body(
        BodyDesc::with_kind(BodyKind::Fixed, Shape::Cuboid { hx: half, hy: 0.5 }),
    );
    if let Some(calls) = calls {
        floor = floor.with_behaviour(Box::new(CountingHook { calls }), Priority(0));
    }
    w.spawn(floor);
    for i in 0..CRATES {
        let mut body = BodyDesc::dynamic(Shape::Cuboid { hx: 0.4, hy: 0.4 });
        body.can_sleep = false;
        w.spawn(
            ObjectDesc::new(
                format!("crate{i}"),
                Pose::new(i as f32 - half + 1.5, 0.4, 0.0),
            )
            .with_body(body),
        );
    }
    w
}

fn crates_pipeline(calls: Option<Arc<AtomicU64>>) -> Pipeline {
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(
        crates_world(calls),
        Box::new(RapierStage::new(Vec2::new(0.0, -9.81))),
        1,
    );
    // Settle first: the crates land in the first ticks.
    for _ in 0..30 {
        p.step_frame(1.0 / 60.0);
    }
    p
}

pub(super) fn midstep_figures(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    Ok(vec![hook_ns(scale), idle_overhead(scale, scenes)?])
}

fn hook_ns(scale: f64) -> Figure {
    let ticks = ((20.0 * scale) as usize).max(10);
    let calls = Arc::new(AtomicU64::new(0));
    let mut hooked = crates_pipeline(Some(calls.clone()));
    let mut plain = crates_pipeline(None);
    let hooked_start = hooked.snapshot();
    let plain_start = plain.snapshot();
    let mut counted = 0;
    let (with, without) = alternate(
        HOOK_ROUNDS,
        || {
            hooked.restore(&hooked_start);
            let before = calls.load(Ordering::Relaxed);
            let t = time(|| {
                for _ in 0..ticks {
                    hooked.step_frame(1.0 / 60.0);
                }
            });
            counted = calls.load(Ordering::Relaxed) - before;
            t
        },
        || {
            plain.restore(&plain_start);
            time(|| {
                for _ in 0..ticks {
                    plain.step_frame(1.0 / 60.0);
                }
            })
        },
    );
    let per_tick = counted as f64 / ticks as f64;
    let ns = (with - without) * 1e9 / counted.max(1) as f64;
    Figure::value(
        "midstep_hook_ns",
        ns,
        "ns/pair-call",
        format!(
            "{CRATES} awake crates on a hooked floor, {per_tick:.0} pair-calls a tick: \
             ({:.1} - {:.1}) µs/tick over the calls, fastest of {HOOK_ROUNDS} alternating rounds \
             of {ticks} \
             ticks; includes rapier's full contact update of a hooked pair",
            with * 1e6 / ticks as f64,
            without * 1e6 / ticks as f64
        ),
    )
}

fn idle_overhead(scale: f64, scenes: &Scenes) -> anyhow::Result<Figure> {
    let ticks = ((30.0 * scale) as usize).max(10);
    let mut p = scenes.load("demo.ron")?;
    for _ in 0..60 {
        p.step_frame(1.0 / 60.0);
    }
    let start = p.snapshot();
    set_bypass(&mut p, false)?;
    let mut run = |bypass: bool| {
        // Checked above: it cannot fail here.
        let _ = set_bypass(&mut p, bypass);
        p.restore(&start);
        time(|| {
            for _ in 0..ticks {
                p.step_frame(1.0 / 60.0);
            }
        })
    };
    let (mut with, mut without) = (f64::MAX, f64::MAX);
    for _ in 0..IDLE_ROUNDS {
        with = with.min(run(false));
        without = without.min(run(true));
    }
    let per_tick = |s: f64| s * 1e6 / ticks as f64;
    Ok(Figure::ratio(
        "midstep_idle_overhead",
        per_tick(with),
        "µs/tick",
        per_tick(without),
        format!(
            "demo.ron (no mid-step hook) against the same pipeline with the mechanism \
             bypassed (the step as before it), the same {ticks} ticks from one snapshot, \
             fastest of {IDLE_ROUNDS} alternating rounds"
        ),
    )
    .at_most(1.01))
}

/// Switches the mid-step mechanism off or back on (the reference of
/// `midstep_idle_overhead`); only a `--features bench` build has the switch.
#[cfg(feature = "bench")]
fn set_bypass(p: &mut Pipeline, bypass: bool) -> anyhow::Result<()> {
    p.set_mid_step_bypass(bypass);
    Ok(())
}

#[cfg(not(feature = "bench"))]
fn set_bypass(_: &mut Pipeline, _: bool) -> anyhow::Result<()> {
    anyhow::bail!(
        "midstep_idle_overhead needs the pipeline without the mechanism: cargo run --release --features bench -- bench"
    )
}
