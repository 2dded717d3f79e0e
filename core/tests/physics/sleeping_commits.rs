//! The commit skips bodies that cannot have changed (asleep, fixed or
//! disabled, and settled), and still writes exactly what a walk over every
//! body writes: each tick's committed pose, previous pose and velocity, bit
//! for bit, and the state hash, while the pile sleeps, is woken by a
//! teleport, a spawn, a toggle and a removal, and after a restore.

use super::*;

/// What the director does, by simulation tick.
const TELEPORT: u64 = 420;
const DISABLE: u64 = 700;
const ENABLE: u64 = 760;
const SPAWN: u64 = 820;
const REMOVE: u64 = 900;
const PUSH: u64 = 960;
/// A fixed body is moved: rapier never has it awake, so only the command
/// tells the commit.
const GATE: u64 = 1200;
/// The kinematic paddle moves until this tick, then stays put.
const PADDLE_STOPS: u64 = 240;
const TICKS: u64 = 1300;

/// Wakes the settled pile in every way a game can, at fixed ticks.
#[derive(Clone, Debug)]
struct Director {
    paddle: ObjectId,
    gate: ObjectId,
    pieces: Vec<ObjectId>,
}

impl Behaviour for Director {
    fn name(&self) -> &str {
        "Director"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        // The tick this FixedUpdate runs in (the clock is on it already).
        let tick = ctx.clock().simulation_tick;
        if tick <= PADDLE_STOPS {
            let x = 8.0 + (tick as f32 * 0.05).sin();
            ctx.set_kinematic_target(self.paddle, Pose::new(x, 1.0, 0.0));
        }
        let piece = |i: usize| self.pieces[i];
        match tick {
            TELEPORT => {
                ctx.set_pose(piece(3), Pose::new(-1.0, 9.0, 0.3));
            }
            DISABLE => ctx.set_enabled(piece(10), false),
            ENABLE => ctx.set_enabled(piece(10), true),
            SPAWN => {
                ctx.spawn(ball("late", 0.5, 8.0, 0.3));
            }
            REMOVE => ctx.remove(piece(20)),
            GATE => {
                ctx.set_pose(self.gate, Pose::new(12.0, 3.0, 0.5));
            }
            PUSH => {
                ctx.set_velocity(
                    piece(30),
                    Velocity {
                        linear: Vec2::new(3.0, 2.0),
                        angular: 1.0,
                    },
                );
            }
            _ => {}
        }
    }
}

/// A box of `half` half-extent at `(x, y)`.
fn crate_at(x: f32, y: f32, half: f32) -> ObjectDesc {
    ObjectDesc::new("piece", Pose::new(x, y, 0.0))
        .with_body(BodyDesc::dynamic(Shape::Cuboid { hx: half, hy: half }))
}

/// Six stacks of ten boxes on the ground (boxes settle and sleep; balls on
/// flat ground roll on), a paddle away from them, and the director.
fn sleepy_world() -> World {
    let mut world = World::new();
    world.spawn(ground());
    let mut paddle = BodyDesc::with_kind(BodyKind::Kinematic, Shape::Cuboid { hx: 0.5, hy: 0.2 });
    paddle.can_sleep = true;
    let paddle = world.spawn(ObjectDesc::new("paddle", Pose::new(8.0, 1.0, 0.0)).with_body(paddle));
    let gate = world.spawn(
        ObjectDesc::new("gate", Pose::new(12.0, 1.0, 0.0)).with_body(BodyDesc::with_kind(
            BodyKind::Fixed,
            Shape::Cuboid { hx: 0.2, hy: 1.0 },
        )),
    );
    let pieces: Vec<ObjectId> = (0..60)
        .map(|i| {
            let (col, row) = (i % 6, i / 6);
            let x = -3.0 + 1.0 * col as f32;
            world.spawn(crate_at(x, 0.3 + 0.61 * row as f32, 0.3))
        })
        .collect();
    world.spawn(ObjectDesc::new("director", Pose::IDENTITY).with_behaviour(
        Box::new(Director {
            paddle,
            gate,
            pieces,
        }),
        Priority(0),
    ));
    world
}

/// One body's committed state as bits: id, committed pose, previous pose,
/// velocity.
type BodyBits = (u64, [u32; 9]);

/// One tick: its number, its state hash, every body's bits.
type TickBits = (u64, u64, Vec<BodyBits>);

/// Every tick's hash and every body's bits, in tick order.
#[derive(Clone, Default)]
struct BitsRecorder(Arc<Mutex<Vec<TickBits>>>);

impl TickObserver for BitsRecorder {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        let bodies = record
            .world
            .objects()
            .filter_map(|o| {
                let b = o.body.as_ref()?;
                let (c, p, v) = (b.committed, b.previous, b.velocity);
                let bits = [c.x, c.y, c.angle, p.x, p.y, p.angle]
                    .into_iter()
                    .chain([v.linear.x, v.linear.y, v.angular])
                    .map(f32::to_bits)
                    .collect::<Vec<_>>();
                Some((o.id.0, bits.try_into().expect("nine fields")))
            })
            .collect();
        self.0.lock().expect("recorder lock").push((
            record.clock.simulation_tick,
            record.hash,
            bodies,
        ));
    }
}

fn run(stage: RapierStage) -> (Pipeline, Vec<TickBits>) {
    let mut p = Pipeline::new(settings(60, 1));
    p.load_session(sleepy_world(), Box::new(stage), 7);
    let recorder = BitsRecorder::default();
    p.set_tick_observer(Some(Box::new(recorder.clone())));
    while p.clock().simulation_tick < TICKS {
        p.step_frame(1.0 / 60.0);
    }
    let bits = recorder.0.lock().expect("recorder lock").clone();
    (p, bits)
}

/// The `sparse_ticks` the stage's `Debug` shows.
fn sparse_ticks(p: &Pipeline) -> u64 {
    let shown = format!("{:?}", p.physics());
    let rest = shown
        .split("sparse_ticks: ")
        .nth(1)
        .expect("the stage shows sparse_ticks");
    rest.split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a count")
}

#[test]
fn skipping_settled_bodies_commits_the_same_bits_as_walking_every_body() {
    let g = Vec2::new(0.0, -G);
    let (sparse, got) = run(RapierStage::new(g));
    let (full, want) = run(RapierStage::new(g).walking_every_body());
    assert_eq!(got.len(), want.len());
    for ((tick, hash, bodies), (want_tick, want_hash, want_bodies)) in got.iter().zip(&want) {
        assert_eq!(tick, want_tick);
        assert_eq!(bodies, want_bodies, "body bits differ at tick {tick}");
        assert_eq!(hash, want_hash, "state hash differs at tick {tick}");
    }
    // The pile did go to sleep, so most ticks took the sparse path, and
    // the reference never did.
    assert_eq!(sparse_ticks(&full), 0);
    let skipped = sparse_ticks(&sparse);
    assert!(
        skipped > TICKS / 3,
        "only {skipped} of {TICKS} ticks committed sparsely: the pile never slept"
    );
    // Each wake-up moved bodies that had been asleep: the teleported piece
    // and its neighbours, the re-enabled one, the spawn's landing, the push.
    let moved_at = |tick: u64| {
        let before = &want[tick as usize - 2].2;
        let after = &want[tick as usize + 30].2;
        after
            .iter()
            .filter(|(id, bits)| {
                before
                    .iter()
                    .find(|(b, _)| b == id)
                    .is_some_and(|(_, old)| old[..3] != bits[..3])
            })
            .count()
    };
    for tick in [TELEPORT, ENABLE, SPAWN, PUSH, GATE] {
        assert!(moved_at(tick) >= 1, "nothing moved after tick {tick}");
    }
}

#[test]
fn a_restored_sleeping_pile_commits_like_the_run_it_came_from() {
    let g = Vec2::new(0.0, -G);
    let mut p = Pipeline::new(settings(60, 1));
    p.load_session(sleepy_world(), Box::new(RapierStage::new(g)), 7);
    // Asleep, before the teleport wakes it.
    while p.clock().simulation_tick < TELEPORT - 20 {
        p.step_frame(1.0 / 60.0);
    }
    let snapshot = p.snapshot();
    let recorder = BitsRecorder::default();
    p.set_tick_observer(Some(Box::new(recorder.clone())));
    while p.clock().simulation_tick < SPAWN {
        p.step_frame(1.0 / 60.0);
    }
    let first = std::mem::take(&mut *recorder.0.lock().expect("recorder lock"));
    p.restore(&snapshot);
    while p.clock().simulation_tick < SPAWN {
        p.step_frame(1.0 / 60.0);
    }
    let again = recorder.0.lock().expect("recorder lock").clone();
    assert_eq!(first.len(), again.len());
    assert!(first == again, "the replay after the restore differs");
}
