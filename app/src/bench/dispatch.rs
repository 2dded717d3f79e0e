//! The hook figures: what calling behaviours costs. 10,000 FixedUpdate
//! behaviours through the whole `step_frame` against the same closures in a
//! bare loop (`dispatch_vs_bare_loop`), the allocations a tick makes once
//! warm (`allocations_per_tick`), and a script's hook against the same logic
//! in Rust (`script_vs_rust`, in `script_vs_rust.rs`).

use std::hint::black_box;

use super::alloc_count::count_allocations;
use stepframe_core::{
    Behaviour, Ctx, HookBeacon, NoPhysics, ObjectDesc, ObjectId, Pipeline, Pose, Priority,
    TimeSettings, World,
};

use super::{Figure, Scenes, alternate, counting_allocator, time};

/// Behaviours in the dispatch, allocation and snapshot figures.
pub(super) const CALLBACKS: usize = 10_000;

/// The work every callback does, identical in both loops: a damped integrator.
#[inline]
fn work(state: &mut [f32; 4], dt: f32) {
    state[1] += (state[2] - state[0]) * dt;
    state[0] += state[1] * dt;
    state[1] *= 0.999;
    state[3] += state[0] * state[0];
}

#[derive(Clone, Debug, stepframe_core::Inspect)]
struct Integrator {
    state: [f32; 4],
}

#[stepframe_core::behaviour]
impl Behaviour for Integrator {
    fn name(&self) -> &str {
        "Integrator"
    }
    fn fixed_update(&mut self, _ctx: &mut Ctx, dt: f64) {
        work(&mut self.state, dt as f32);
    }
}

/// A world of `callbacks` objects with one [`Integrator`] each, over eight
/// priorities.
pub(super) fn integrator_world(callbacks: usize) -> World {
    // The behaviours are boxed first, back to back, as the bare loop's closures
    // are: both loops then read their callbacks' state from the same layout.
    let behaviours: Vec<Box<dyn Behaviour>> = (0..callbacks)
        .map(|i| {
            Box::new(Integrator {
                state: [0.0, 0.0, i as f32, 0.0],
            }) as Box<dyn Behaviour>
        })
        .collect();
    let mut w = World::new();
    for (i, behaviour) in behaviours.into_iter().enumerate() {
        w.spawn(
            ObjectDesc::new(format!("i{i}"), Pose::IDENTITY)
                .with_id(ObjectId(i as u64 + 1))
                // Eight priority groups of consecutive objects, so dispatch
                // order is allocation order, as in the bare loop.
                .with_behaviour(behaviour, Priority((i * 8 / callbacks) as i32 * 10 - 40)),
        );
    }
    w
}

/// Pipeline and bare-loop ns per callback with `callbacks` FixedUpdate
/// behaviours, each the fastest of 20 alternating rounds of `ticks / 4`
/// ticks (at least 10): the same ticks as five rounds of `ticks`, in rounds
/// short enough that some of them miss the neighbours on this shared VM
/// (the reasoning of `physics::race`).
/// With `beacon`, the pipeline announces its calls on it (a supervised
/// bench: the marker's cost is in the figure).
pub(super) fn dispatch_and_bare_ns(
    callbacks: usize,
    ticks: usize,
    beacon: Option<&HookBeacon>,
) -> (f64, f64) {
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(integrator_world(callbacks), Box::new(NoPhysics), 1);
    crate::player::supervise::watch_session(&mut p, beacon, None);
    p.step_frame(1.0 / 60.0);
    let mut bare: Vec<Box<dyn FnMut(f32)>> = (0..callbacks)
        .map(|i| {
            let mut state = [0.0, 0.0, i as f32, 0.0];
            Box::new(move |dt: f32| work(black_box(&mut state), dt)) as Box<dyn FnMut(f32)>
        })
        .collect();
    let dt = black_box(1.0f32 / 60.0);
    let round = (ticks / 4).max(10);
    let (ours, theirs) = alternate(
        20,
        || {
            time(|| {
                for _ in 0..round {
                    p.step_frame(1.0 / 60.0);
                }
            })
        },
        || {
            time(|| {
                for _ in 0..round {
                    for f in bare.iter_mut() {
                        f(dt);
                    }
                }
            })
        },
    );
    let calls = (round * callbacks) as f64 / 1e9;
    (ours / calls, theirs / calls)
}

pub(super) fn dispatch_vs_bare_loop(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let ticks = ((400.0 * scale) as usize).max(40);
    let (ours, theirs) = dispatch_and_bare_ns(CALLBACKS, ticks, scenes.beacon.as_ref());
    Ok(vec![
        Figure::ratio(
            "dispatch_vs_bare_loop",
            ours,
            "ns/callback",
            theirs,
            format!(
                "{CALLBACKS} FixedUpdate callbacks over 8 priorities, whole step_frame per tick (no physics)"
            ),
        )
        .at_most(1.5),
    ])
}

pub(super) fn allocations_per_tick(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    counting_allocator()?;
    let frames = ((2000.0 * scale) as usize).max(200);
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(integrator_world(CALLBACKS), Box::new(NoPhysics), 1);
    scenes.watch(&mut p, None);
    let dts = [1.0 / 60.0, 2.0 / 60.0, 0.5 / 60.0];
    for i in 0..100 {
        p.step_frame(dts[i % 3]);
    }
    let (ticks, allocations) = count_allocations(|| {
        (0..frames)
            .map(|i| u64::from(p.step_frame(dts[i % 3]).ticks))
            .sum::<u64>()
    });
    Ok(vec![
        Figure::value(
            "allocations_per_tick",
            allocations as f64 / ticks.max(1) as f64,
            "allocations/tick",
            format!(
                "{allocations} allocations over {ticks} ticks, {CALLBACKS} behaviours, rapier excluded"
            ),
        )
        .at_most(0.0),
    ])
}
