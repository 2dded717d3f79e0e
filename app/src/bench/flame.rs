//! `flame_overhead`: what the live coarse flame zones cost the dispatch
//! world (10,000 FixedUpdate behaviours over eight priorities, no physics,
//! the `dispatch_vs_bare_loop` world): the same pipeline stepped with zones
//! on and with them off, in alternating rounds, the fastest round of each.
//! One pipeline toggled between rounds, rather than two, so both sides run
//! the same behaviours from the same heap (the dispatch figure showed how
//! much the heap's layout alone moves this world).
//!
//! Per tick the zones add three clock reads (a tick's start, its contacts'
//! end, its end) and a buffer write per zone to the ~30 µs the 10,000
//! callbacks take, so the target is a ratio of at most 1.03.

use stepframe_core::flame::ZoneDetail;
use stepframe_core::{NoPhysics, Pipeline, TimeSettings};

use super::dispatch::{CALLBACKS, integrator_world};
use super::{Figure, Scenes, time};

pub(super) fn flame_overhead(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let round = ((100.0 * scale) as usize).max(10);
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(integrator_world(CALLBACKS), Box::new(NoPhysics), 1);
    scenes.watch(&mut p, None);
    p.step_frame(1.0 / 60.0);
    let mut run = |detail: ZoneDetail| {
        p.set_zone_detail(detail);
        time(|| {
            for _ in 0..round {
                p.step_frame(1.0 / 60.0);
            }
        })
    };
    let (mut on, mut off) = (f64::MAX, f64::MAX);
    for _ in 0..20 {
        on = on.min(run(ZoneDetail::Coarse));
        off = off.min(run(ZoneDetail::Off));
    }
    let per_tick = |s: f64| s * 1e6 / round as f64;
    Ok(vec![
        Figure::ratio(
            "flame_overhead",
            per_tick(on),
            "µs/tick",
            per_tick(off),
            format!(
                "{CALLBACKS} FixedUpdate callbacks over 8 priorities, coarse flame zones on against \
                 off, one tick a frame, fastest of 20 alternating rounds of {round} ticks"
            ),
        )
        .at_most(1.03),
    ])
}
