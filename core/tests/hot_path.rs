//! The shortcuts of the per-tick hot path (the rapier commit and the state
//! hash) change no value: each is checked against the slow computation it
//! replaced.

use stepframe_core::{
    BodyCommand, BodyDesc, ObjectDesc, ObjectId, PhysicsStage, Pose, RapierStage, Shape,
    StableHasher, Vec2, Velocity, World,
};

#[test]
fn a_one_byte_write_u8_feeds_the_same_word_as_a_one_byte_slice() {
    for b in [0u8, 1, 0x7f, 0xff] {
        let mut slice = StableHasher::new();
        slice.write(&[b]);
        let mut byte = StableHasher::new();
        byte.write_u8(b);
        assert_eq!(byte.finish(), slice.finish(), "byte {b}");
    }
}

/// One tick of the stage alone: reconcile, step, commit.
fn tick(stage: &mut RapierStage, world: &mut World) {
    let dt = 1.0 / 60.0;
    stage.reconcile(world, dt);
    stage.step(dt, 1, &mut Vec::new());
    stage.commit(world);
}

/// Asserts that every committed angle is bit for bit rapier's own `atan2` of
/// the body's rotation (what the commit computed before it cached angles).
fn assert_angles_are_rapiers(stage: &RapierStage, world: &World, what: &str) {
    let rapier = stage.rapier_world();
    let mut checked = 0;
    for (_, body) in rapier.bodies.iter() {
        let id = ObjectId(body.user_data as u64);
        let committed = world
            .get(id)
            .and_then(|o| o.body.as_ref())
            .map(|b| b.committed);
        let committed = committed.map(|p| p.angle.to_bits());
        assert_eq!(
            committed,
            Some(body.rotation().angle().to_bits()),
            "{what}: {id}"
        );
        checked += 1;
    }
    assert_eq!(checked, 2, "{what}");
}

#[test]
fn the_committed_angle_is_rapiers_angle_bit_for_bit_through_spins_rests_and_teleports() {
    let mut world = World::new();
    let (spinner, resting) = (ObjectId(1), ObjectId(2));
    let mut body = BodyDesc::dynamic(Shape::Cuboid { hx: 0.5, hy: 0.2 });
    body.can_sleep = false;
    world.spawn(
        ObjectDesc::new("spinner", Pose::new(0.0, 0.0, 0.3))
            .with_id(spinner)
            .with_body(body.clone()),
    );
    world.spawn(
        ObjectDesc::new("resting", Pose::new(5.0, 0.0, -2.0))
            .with_id(resting)
            .with_body(body),
    );
    let mut stage = RapierStage::new(Vec2::ZERO);
    let set_spin = |world: &mut World, w: f32| {
        let velocity = Velocity {
            linear: Vec2::ZERO,
            angular: w,
        };
        let cmd = BodyCommand::SetVelocity {
            target: spinner,
            velocity,
        };
        assert!(world.command(cmd, 0, 0));
    };
    // At rest: the rotation repeats tick after tick (the cached angle serves).
    for _ in 0..3 {
        tick(&mut stage, &mut world);
        assert_angles_are_rapiers(&stage, &world, "at rest");
    }
    // Spinning: a new rotation every tick.
    set_spin(&mut world, 2.0);
    for _ in 0..5 {
        tick(&mut stage, &mut world);
        assert_angles_are_rapiers(&stage, &world, "spinning");
    }
    // Stopped, then teleported back to the first rotation.
    set_spin(&mut world, 0.0);
    tick(&mut stage, &mut world);
    assert_angles_are_rapiers(&stage, &world, "stopped");
    let back = BodyCommand::SetPose {
        target: spinner,
        pose: Pose::new(0.0, 0.0, 0.3),
    };
    assert!(world.command(back, 0, 0));
    tick(&mut stage, &mut world);
    assert_angles_are_rapiers(&stage, &world, "teleported");
    let angle = world
        .get(spinner)
        .and_then(|o| o.body.as_ref())
        .map(|b| b.committed.angle);
    assert!(angle.is_some_and(|a| (a - 0.3).abs() < 1e-6), "{angle:?}");
}
