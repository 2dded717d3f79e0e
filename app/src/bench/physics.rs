//! The physics figures: what the pipeline adds on top of rapier, on 1,000
//! awake balls (`pipeline_vs_raw_rapier`) and on soft.ron's soft bodies
//! (`soft_pipeline_vs_raw_rapier`). Each races the whole pipeline (hooks,
//! events, commits, telemetry, per-tick hashing) against a bare rapier loop
//! stepping the same world through the same states.

use std::hint::black_box;

use rapier2d::prelude as rp;
use stepframe_core::scene::Scene;
use stepframe_core::{
    BodyDesc, BodyKind, ObjectDesc, ObjectId, PhysicsStage, Pipeline, Pose, RapierStage, Shape,
    Telemetry, TickObserver, TickRecord, TimeSettings, Vec2, World,
};

use super::{Figure, Scenes, alternate, time};

const BALLS: usize = 1000;

/// Ball `i`'s start: a 40-wide grid inside a walled box, jittered so it churns.
fn ball_start(i: usize) -> (f32, f32) {
    let x = (i % 40) as f32 * 1.05 - 20.5 + (i % 7) as f32 * 0.01;
    let y = 1.0 + (i / 40) as f32 * 1.05;
    (x, y)
}

/// Walls and floor for `balls` balls: `(x, y, hx, hy)`. The side walls are
/// 42 m tall up to 1,000 balls (the grid's 25 rows fit), taller above.
fn walls(balls: usize) -> [(f32, f32, f32, f32); 3] {
    let hy = (balls.div_ceil(40) as f32 * 1.05 / 2.0 + 1.0).max(21.0);
    [
        (0.0, -0.5, 23.0, 0.5),
        (-22.5, hy - 1.0, 0.5, hy),
        (22.5, hy - 1.0, 0.5, hy),
    ]
}

/// A pipeline running [`awake_world`] under rapier at 9.81 m/s² down.
pub(super) fn awake_pipeline(balls: usize) -> Pipeline {
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(
        awake_world(balls),
        Box::new(RapierStage::new(Vec2::new(0.0, -9.81))),
        1,
    );
    p
}

/// `balls` balls that never sleep in a walled box, as a stepframe world.
fn awake_world(balls: usize) -> World {
    let mut w = World::new();
    for (i, (x, y, hx, hy)) in walls(balls).iter().enumerate() {
        w.spawn(
            ObjectDesc::new(format!("wall{i}"), Pose::new(*x, *y, 0.0))
                .with_id(ObjectId(i as u64 + 1))
                .with_body(BodyDesc::with_kind(
                    BodyKind::Fixed,
                    Shape::Cuboid { hx: *hx, hy: *hy },
                )),
        );
    }
    for i in 0..balls {
        let (x, y) = ball_start(i);
        let mut body = BodyDesc::dynamic(Shape::Circle { radius: 0.5 });
        body.can_sleep = false;
        w.spawn(
            ObjectDesc::new(format!("ball{i}"), Pose::new(x, y, 0.0))
                .with_id(ObjectId(100 + i as u64))
                .with_body(body),
        );
    }
    w
}

/// Hashes every tick (the trace's checksum) and keeps the last one.
struct HashSink(u64);
impl TickObserver for HashSink {
    fn on_tick(&mut self, r: &TickRecord<'_>) {
        self.0 = black_box(r.hash);
    }
}

/// The same world as [`awake_world`], for a bare rapier loop: no pipeline,
/// no hooks, no events, no commits.
fn raw_rapier(balls: usize) -> rp::PhysicsWorld {
    let mut world = rp::PhysicsWorld {
        gravity: rapier2d::math::Vector::new(0.0, -9.81),
        ..Default::default()
    };
    world.integration_parameters.dt = 1.0 / 60.0;
    for (x, y, hx, hy) in walls(balls) {
        let b = world
            .bodies
            .insert(rp::RigidBodyBuilder::fixed().translation(rapier2d::math::Vector::new(x, y)));
        world.colliders.insert_with_parent(
            rp::ColliderBuilder::cuboid(hx, hy).friction(0.5),
            b,
            &mut world.bodies,
        );
    }
    for i in 0..balls {
        let (x, y) = ball_start(i);
        let b = world.bodies.insert(
            rp::RigidBodyBuilder::dynamic()
                .translation(rapier2d::math::Vector::new(x, y))
                .can_sleep(false),
        );
        world.colliders.insert_with_parent(
            rp::ColliderBuilder::ball(0.5).friction(0.5).density(1.0),
            b,
            &mut world.bodies,
        );
    }
    world
}

/// Seconds per tick of the pipeline (frames of `dt`, telemetry recorded)
/// and of a bare rapier loop, each the fastest of `rounds` alternating
/// rounds of `ticks` ticks, after a 30-tick warm-up of both (first
/// contacts, caches). Both worlds advance through the same states; each
/// round times the next ticks of each, so they compare like with like.
///
/// Why many short rounds: on this shared VM one 0.2 s round in four is
/// often slowed by a neighbour for its whole length, and the fastest of four
/// such rounds wandered by ±20% between runs (0.92-1.20 for the same
/// binary; docs/performance.md). The fastest of 24 rounds of 50 ticks, the same 1,200
/// ticks in all, repeats within ±3% (a bare loop against a copy of its own
/// world measured 0.99-1.03 in four runs). That holds for worlds whose cost
/// per tick stays level (awake balls); soft.ron settles and sleeps, so the
/// fastest short round would time a sleeping world, and it keeps four long
/// rounds.
fn race(
    p: &mut Pipeline,
    raw: &mut rp::PhysicsWorld,
    dt: f64,
    (rounds, round): (usize, usize),
) -> (f64, f64) {
    race_with(p, raw, dt, (rounds, round), true)
}

/// [`race`], with the per-tick hashing observer on (`traced`) or off.
fn race_with(
    p: &mut Pipeline,
    raw: &mut rp::PhysicsWorld,
    dt: f64,
    (rounds, round): (usize, usize),
    traced: bool,
) -> (f64, f64) {
    if traced {
        p.set_tick_observer(Some(Box::new(HashSink(0))));
    }
    let mut telemetry = Telemetry::default();
    for _ in 0..30 {
        let r = p.step_frame(dt);
        telemetry.record(&r, p.clock());
        raw.step();
    }
    let (ours, theirs) = alternate(
        rounds,
        || {
            time(|| {
                for _ in 0..round {
                    let r = p.step_frame(dt);
                    telemetry.record(&r, p.clock());
                }
            })
        },
        || {
            time(|| {
                for _ in 0..round {
                    raw.step();
                }
            })
        },
    );
    (ours / round as f64, theirs / round as f64)
}

/// Rounds of the awake-ball race, and of the trace floor timed beside it:
/// one estimator for both, so the floor compares with the race's bare tick.
const RACE_ROUNDS: usize = 24;

/// Pipeline and bare-rapier ms per tick on `balls` awake balls, each the
/// fastest of [`RACE_ROUNDS`] alternating rounds of `ticks / 6` ticks ([`race`]).
pub(super) fn pipeline_and_raw_ms(balls: usize, ticks: usize) -> (f64, f64) {
    let (_, _, ours, theirs) = race_awake(balls, ticks, &Scenes::default());
    (ours, theirs)
}

/// [`pipeline_and_raw_ms`], and both worlds as the race left them; the
/// pipeline watched as `scenes` says (the fault marker of a supervised bench).
fn race_awake(
    balls: usize,
    ticks: usize,
    scenes: &Scenes,
) -> (Pipeline, rp::PhysicsWorld, f64, f64) {
    race_awake_with(balls, ticks, true, scenes)
}

/// [`race_awake`], traced (a hashing tick observer) or not.
fn race_awake_with(
    balls: usize,
    ticks: usize,
    traced: bool,
    scenes: &Scenes,
) -> (Pipeline, rp::PhysicsWorld, f64, f64) {
    let mut p = awake_pipeline(balls);
    scenes.watch(&mut p, None);
    let mut raw = raw_rapier(balls);
    let (ours, theirs) = race_with(
        &mut p,
        &mut raw,
        1.0 / 60.0,
        (RACE_ROUNDS, race_round(ticks)),
        traced,
    );
    (p, raw, ours * 1000.0, theirs * 1000.0)
}

/// Ticks per round of the awake-ball race.
fn race_round(ticks: usize) -> usize {
    (ticks / 6).max(5)
}

pub(super) fn pipeline_vs_raw_rapier(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let ticks = ((300.0 * scale) as usize).max(30);
    let (p, mut raw, ours, theirs) = race_awake(BALLS, ticks, scenes);
    let round = race_round(ticks);
    // What the trace fixes, with the race's estimator so it compares with
    // the bare tick: the tick's state hash (on the world the
    // race left), and the committed angle (`atan2` of rapier's rotation,
    // which the trace prints bit for bit) of every body that turned in one
    // more bare tick (the commit reuses the angle of a body that did not).
    let rotations =
        |w: &rp::PhysicsWorld| -> Vec<_> { w.bodies.iter().map(|(_, b)| *b.rotation()).collect() };
    let before = rotations(&raw);
    raw.step();
    let turned: Vec<_> = rotations(&raw)
        .into_iter()
        .zip(before)
        .filter(|(now, then)| (now.re, now.im) != (then.re, then.im))
        .map(|(now, _)| now)
        .collect();
    let fixed_ms = (0..RACE_ROUNDS)
        .map(|_| {
            time(|| {
                for _ in 0..round {
                    black_box(black_box(&p).state_hash());
                    for rotation in black_box(&turned) {
                        black_box(rotation.angle());
                    }
                }
            })
        })
        .fold(f64::MAX, f64::min)
        / round as f64
        * 1000.0;
    let floor = fixed_ms / theirs;
    // The same race on a fresh pair of worlds with no tick observer, so no
    // hash: what stepframe adds to rapier's step when nothing is traced.
    let (_, _, untraced, untraced_raw) = race_awake_with(BALLS, ticks, false, scenes);
    Ok(vec![
        Figure::ratio(
            "pipeline_untraced_vs_raw_rapier",
            untraced,
            "ms/tick",
            untraced_raw,
            format!(
                "{BALLS} awake balls, fastest of {RACE_ROUNDS} rounds of {round} ticks, telemetry on, no tick observer (no hash)"
            ),
        )
        .at_most(1.05),
        Figure::ratio(
            "pipeline_vs_raw_rapier",
            ours,
            "ms/tick",
            theirs,
            format!(
                "{BALLS} awake balls, fastest of {RACE_ROUNDS} rounds of {round} ticks, telemetry and per-tick hashing on; target 1.05 + pipeline_trace_floor ({floor:.3}) of this run"
            ),
        )
        .at_most(1.05 + floor),
        // The traced pipeline's share of the tick once the trace's own
        // floor is taken off: (ours - floor) / rapier - 1.
        Figure::value(
            "pipeline_share_beyond_trace",
            ours / theirs - 1.0 - floor,
            "of the bare tick",
            format!(
                "pipeline_vs_raw_rapier ({:.3}) - 1 - pipeline_trace_floor ({floor:.3})",
                ours / theirs
            ),
        )
        .at_most(0.05),
        // No target: the floor under the figure above. Every trace line
        // carries the state hash and every committed angle, so the hash's
        // function and inputs (every body's pose and velocity, every link,
        // every touching pair: ~13,000 words on this world, each one
        // dependent multiply-rotate) and the `atan2` per body are fixed by
        // the byte-identical-traces rule. The pipeline cannot come closer
        // to bare rapier than 1 + this ratio while that rule holds.
        Figure::ratio(
            "pipeline_trace_floor",
            fixed_ms,
            "ms/tick",
            theirs,
            format!(
                "what the trace fixes per tick on the same {BALLS}-ball world (the state hash, and atan2 for the {} bodies that turned in a tick), against the bare rapier tick (fastest of {RACE_ROUNDS} rounds of {round})", turned.len()
            ),
        ),
    ])
}

/// The pipeline on `soft.ron` (two jellies, a rope bridge, rigid bodies
/// they hit) against a bare rapier loop stepping a copy of the same rapier
/// world: what the pipeline adds per tick on top of rapier's soft-body solver
/// (reconcile, copying every particle out, the centroid pose and its best-fit
/// rotation, hashing every particle, contact counting).
pub(super) fn soft_pipeline_vs_raw_rapier(
    scale: f64,
    scenes: &Scenes,
) -> anyhow::Result<Vec<Figure>> {
    let ticks = ((300.0 * scale) as usize).max(30);
    let dt = 1.0 / 60.0;
    // Without the scene's behaviours (the jelly's squash.rhai reads its
    // particles every tick): the figure is what the pipeline adds, not what
    // a script costs.
    let registry = crate::player::registry(&scenes.join("soft.ron"));
    let mut scene =
        Scene::load(&scenes.join("soft.ron"), &registry).map_err(|e| anyhow::anyhow!("{e}"))?;
    fn strip(objects: &mut [stepframe_core::SceneObject]) {
        for o in objects {
            o.behaviours.clear();
            strip(&mut o.children);
        }
    }
    strip(&mut scene.objects);
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, &registry)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    // Its behaviours stripped: nothing of the file's runs, nothing to name.
    scenes.watch(&mut p, None);
    // The same world for the bare loop: a stage that has taken in the
    // scene's bodies, its rapier world copied out.
    let mut world = scene
        .instantiate(&registry)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut stage = RapierStage::new(scene.settings.gravity);
    stage.reconcile(&mut world, dt);
    let mut raw = stage.rapier_world();
    raw.integration_parameters.dt = dt as f32;
    let (ours, theirs) = race(&mut p, &mut raw, dt, (4, ticks));
    let particles: usize = p
        .world()
        .objects()
        .filter_map(|o| o.body.as_ref()?.soft.as_ref())
        .map(|s| s.particles.len())
        .sum();
    Ok(vec![Figure::ratio(
        "soft_pipeline_vs_raw_rapier",
        ours * 1000.0,
        "ms/tick",
        theirs * 1000.0,
        format!(
            "soft.ron: 3 soft bodies ({particles} particles) and 4 rigid bodies, fastest of 4 rounds of {ticks} ticks, telemetry and per-tick hashing on"
        ),
    )])
}
