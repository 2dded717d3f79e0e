//! Snapshot and restore.

use super::*;

/// Sweeps a kinematic paddle left and right through the pile, and pushes a box.
#[derive(Clone, Debug)]
struct Stirrer {
    pushed: ObjectId,
}

impl Behaviour for Stirrer {
    fn name(&self) -> &str {
        "Stirrer"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let t = ctx.clock().simulation_time as f32;
        let me = ctx.me();
        ctx.set_kinematic_target(me, Pose::new(3.0 * (2.0 * t).sin(), 0.4, 0.0));
        let pushed = self.pushed;
        ctx.apply_force(pushed, Vec2::new(5.0, 0.0));
    }
}

fn pile_world() -> World {
    let mut world = World::new();
    world.spawn(ground());
    for (x, hy) in [(-6.0, 3.0), (6.0, 3.0)] {
        world.spawn(
            ObjectDesc::new("wall", Pose::new(x, hy, 0.0)).with_body(BodyDesc::with_kind(
                BodyKind::Fixed,
                Shape::Cuboid { hx: 0.25, hy },
            )),
        );
    }
    let mut first = None;
    for row in 0..6 {
        for col in 0..5 {
            let x = -3.0 + 1.3 * col as f32 + 0.1 * row as f32;
            let y = 1.5 + 1.1 * row as f32;
            let mut desc = if (row + col) % 2 == 0 {
                BodyDesc::dynamic(Shape::Circle { radius: 0.45 })
            } else {
                BodyDesc::dynamic(Shape::Cuboid { hx: 0.4, hy: 0.35 })
            };
            desc.restitution = 0.2;
            let id = world
                .spawn(ObjectDesc::new("piece", Pose::new(x, y, 0.1 * col as f32)).with_body(desc));
            first.get_or_insert(id);
        }
    }
    let paddle = BodyDesc::with_kind(
        BodyKind::Kinematic,
        Shape::Capsule {
            half_height: 0.3,
            radius: 0.2,
        },
    );
    let pushed = first.expect("pile is not empty");
    world.spawn(
        ObjectDesc::new("paddle", Pose::new(0.0, 0.4, 0.0))
            .with_body(paddle)
            .with_behaviour(Box::new(Stirrer { pushed }), Priority(0)),
    );
    world
}

/// Bit patterns of every body's committed, previous pose and velocity.
fn bits(pipeline: &Pipeline) -> Vec<(u64, [u32; 9])> {
    pipeline
        .world()
        .objects()
        .filter_map(|o| {
            let b = o.body.as_ref()?;
            let (c, p, v) = (b.committed, b.previous, b.velocity);
            let all = [
                c.x, c.y, c.angle, p.x, p.y, p.angle, v.linear.x, v.linear.y, v.angular,
            ];
            Some((o.id.0, all.map(f32::to_bits)))
        })
        .collect()
}

/// One frame of a run: completed tick, state hash, every body's bits.
type FrameBits = (u64, u64, Vec<(u64, [u32; 9])>);

/// Runs one-tick frames until tick `until`, recording hash and bits per frame.
fn run_to(pipeline: &mut Pipeline, until: u64) -> Vec<FrameBits> {
    let mut out = Vec::new();
    while pipeline.clock().simulation_tick < until {
        assert_eq!(pipeline.step_frame(1.0 / 60.0).ticks, 1);
        out.push((
            pipeline.clock().simulation_tick,
            pipeline.state_hash(),
            bits(pipeline),
        ));
    }
    out
}

#[test]
fn a_snapshot_restores_the_whole_engine_and_continues_bit_identically() {
    let mut pipeline = session(pile_world(), Vec2::new(0.0, -9.81), TimeSettings::default());
    let mut snapshots = Vec::new();
    let mut reference = Vec::new();
    for at in [10, 60, 120] {
        reference.extend(run_to(&mut pipeline, at));
        snapshots.push(pipeline.snapshot());
    }
    reference.extend(run_to(&mut pipeline, 200));
    assert_eq!(reference.len(), 200);

    // The pile is busy at the snapshot ticks: bodies moving, contacts between them.
    for (tick, _, bodies) in &reference {
        if [10, 60, 120].contains(tick) {
            let moving = bodies
                .iter()
                .filter(|(_, b)| f32::from_bits(b[6]).abs() + f32::from_bits(b[7]).abs() > 0.01)
                .count();
            assert!(moving >= 3, "tick {tick}: only {moving} bodies moving");
        }
    }

    let from = |tick: u64| {
        reference
            .iter()
            .filter(move |(t, _, _)| *t > tick)
            .cloned()
            .collect::<Vec<_>>()
    };
    for snapshot in &snapshots {
        let at = snapshot.tick();
        // Back into the same pipeline...
        pipeline.restore(snapshot);
        assert_eq!(pipeline.clock().simulation_tick, at);
        let again = run_to(&mut pipeline, 200);
        assert!(
            again == from(at),
            "restore at tick {at} diverged at tick {:?}",
            first_divergence(&again, &from(at))
        );
        // ...and into a fresh one.
        let mut fresh = Pipeline::new(TimeSettings::default());
        fresh.restore(snapshot);
        let again = run_to(&mut fresh, 200);
        assert!(
            again == from(at),
            "fresh restore at tick {at} diverged at tick {:?}",
            first_divergence(&again, &from(at))
        );
    }

    // Two fresh runs of the same world agree bit for bit.
    let mut other = session(pile_world(), Vec2::new(0.0, -9.81), TimeSettings::default());
    let second = run_to(&mut other, 200);
    assert!(
        second == reference,
        "fresh runs diverged at tick {:?}",
        first_divergence(&second, &reference)
    );
}

fn first_divergence(a: &[FrameBits], b: &[FrameBits]) -> Option<u64> {
    a.iter().zip(b).find(|(x, y)| x != y).map(|(x, _)| x.0)
}

#[test]
fn the_rapier_state_feeds_the_state_hash() {
    // Two balls at rest with no gravity, the same committed pose and
    // velocity bit for bit; one may sleep and falls asleep (rapier sleeps a
    // body still for about 2 s), the other may not. The stage's hash covers
    // rapier's state, not the authored description, so only the hidden
    // sleeping state tells them apart, and the hash must see it.
    let run = |awake: bool| {
        let mut world = World::new();
        let mut body = BodyDesc::dynamic(Shape::Circle { radius: 0.5 });
        body.can_sleep = !awake;
        let id = world.spawn(ObjectDesc::new("ball", Pose::new(1.0, 1.0, 0.0)).with_body(body));
        let mut pipeline = session(world, Vec2::ZERO, TimeSettings::default());
        for _ in 0..600 {
            pipeline.step_frame(1.0 / 60.0);
        }
        let mut hasher = StableHasher::new();
        pipeline.physics().hash_state(&mut hasher);
        (
            pose_of(&pipeline, id),
            velocity_of(&pipeline, id),
            hasher.finish(),
        )
    };
    let (asleep_pose, asleep_velocity, asleep_hash) = run(false);
    let (awake_pose, awake_velocity, awake_hash) = run(true);
    assert_eq!(asleep_pose, awake_pose);
    assert_eq!(asleep_pose, Pose::new(1.0, 1.0, 0.0));
    assert_eq!(asleep_velocity, awake_velocity);
    assert_ne!(asleep_hash, awake_hash, "sleeping and awake hash alike");
}

#[test]
fn damaged_engine_bytes_are_refused_by_what_is_wrong_and_leave_the_session_as_it_was() {
    use stepframe_core::{EngineBytesError, NoPhysics};

    let mut pipeline = session(pile_world(), Vec2::new(0.0, -9.81), TimeSettings::default());
    run_to(&mut pipeline, 30);
    let at_30 = pipeline.state_hash();
    let mut engine = Vec::new();
    let snapshot = pipeline
        .snapshot_detached(&mut engine)
        .expect("the rapier stage has a byte form");
    run_to(&mut pipeline, 40);
    let now = (pipeline.clock().simulation_tick, pipeline.state_hash());

    // The layout: a u32 count of parts, a u32 length for each, the parts.
    let word = |i: usize| u32::from_le_bytes(engine[i..i + 4].try_into().expect("4 bytes"));
    assert_eq!(word(0), 8, "the rapier stage writes eight parts");
    let header = 4 + 4 * 8;

    // No header at all.
    assert_eq!(
        pipeline.restore_detached(&snapshot, &[]),
        Err(EngineBytesError::BadHeader { len: 0 })
    );
    // A header that promises more bytes than follow.
    assert_eq!(
        pipeline.restore_detached(&snapshot, &engine[..engine.len() - 1]),
        Err(EngineBytesError::BadHeader {
            len: engine.len() - 1
        })
    );
    // One empty part where the stage writes eight.
    assert_eq!(
        pipeline.restore_detached(&snapshot, &[1, 0, 0, 0, 0, 0, 0, 0]),
        Err(EngineBytesError::PartCount {
            found: 1,
            expected: 8
        })
    );
    // Eight parts, the first (islands) emptied: it cannot decode.
    let mut cut = engine[..header].to_vec();
    cut[4..8].copy_from_slice(&0u32.to_le_bytes());
    cut.extend_from_slice(&engine[header + word(4) as usize..]);
    match pipeline.restore_detached(&snapshot, &cut) {
        Err(EngineBytesError::Part { part, .. }) => assert_eq!(part, "islands"),
        other => panic!("expected the islands part refused, got {other:?}"),
    }
    // None of those touched the session.
    assert_eq!(
        (pipeline.clock().simulation_tick, pipeline.state_hash()),
        now
    );

    // The bytes as written restore tick 30 exactly.
    assert_eq!(pipeline.restore_detached(&snapshot, &engine), Ok(()));
    assert_eq!(
        (pipeline.clock().simulation_tick, pipeline.state_hash()),
        (30, at_30)
    );

    // A stage with no byte form refuses any bytes.
    assert_eq!(
        NoPhysics.load_engine(&engine),
        Err(EngineBytesError::NoByteForm)
    );
}
