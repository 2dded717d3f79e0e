//! Mid-step hooks: behaviour code inside the rapier step, per contact pair
//! and substep, that changes what the solver does with the contact.

use super::*;
use stepframe_core::{
    Breakpoint, FaultPolicy, HookKind, Hooks, MidStepPair, SuspendReason, ZoneDetail, ZoneKind,
};

/// What the hook does to every pair it is in.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Act {
    /// Nothing (it only looks).
    Look,
    /// Drops the pair.
    Drop,
    /// Drops every point, one by one.
    DropPoints,
    /// Sets the pair's friction.
    Friction(f32),
    /// Sets the pair's restitution.
    Restitution(f32),
    /// Moves its surface at this speed.
    Belt(f32),
    /// Drops the pair, then panics (its edit must not survive).
    DropThenPanic,
}

/// A mid-step behaviour that acts on every pair and logs what it saw.
#[derive(Clone, Debug, stepframe_core::Inspect)]
struct Hook {
    /// What it does.
    #[inspect(debug)]
    act: Act,
    /// Where it writes.
    #[inspect(skip)]
    log: Log,
}

#[stepframe_core::behaviour]
impl Behaviour for Hook {
    fn name(&self) -> &str {
        "Hook"
    }

    fn mid_step(&self, pair: &mut MidStepPair) {
        let c = pair.clock();
        let n = pair.normal();
        push(
            &self.log,
            format!(
                "{} with {} tick {} phase {:?} dt {} substep {}/{} normal ({}, {}) points {} v {}",
                pair.me(),
                pair.other(),
                c.simulation_tick,
                c.phase,
                pair.dt(),
                pair.substep(),
                pair.substeps(),
                n.x,
                n.y,
                pair.points().len(),
                pair.other_velocity().linear.y,
            ),
        );
        match self.act {
            Act::Look => {}
            Act::Drop => pair.drop_pair(),
            Act::DropPoints => while pair.drop_point(0) {},
            Act::Friction(f) => pair.set_friction(f),
            Act::Restitution(r) => pair.set_restitution(r),
            Act::Belt(s) => pair.set_surface_speed(s),
            Act::DropThenPanic => {
                pair.drop_pair();
                panic!("hook broke after dropping the pair");
            }
        }
    }
}

fn hooked_ground(act: Act, log: &Log) -> ObjectDesc {
    ground().with_behaviour(
        Box::new(Hook {
            act,
            log: log.clone(),
        }),
        Priority(0),
    )
}

fn crate_at(x: f32, y: f32) -> ObjectDesc {
    ObjectDesc::new("crate", Pose::new(x, y, 0.0))
        .with_body(BodyDesc::dynamic(Shape::Cuboid { hx: 0.5, hy: 0.5 }))
}

/// A crate resting on the ground (its top face at y = 0) and the ground
/// with `act`, spawned ground first or crate first (which makes the ground
/// rapier's collider 1 or 2 of the pair).
fn crate_on_ground(act: Act, log: &Log, ground_first: bool) -> (Pipeline, ObjectId, ObjectId) {
    let mut world = World::new();
    let (g, c) = if ground_first {
        let g = world.spawn(hooked_ground(act, log));
        (g, world.spawn(crate_at(0.0, 0.5)))
    } else {
        let c = world.spawn(crate_at(0.0, 0.5));
        (world.spawn(hooked_ground(act, log)), c)
    };
    (session(world, Vec2::new(0.0, -G), settings(60, 1)), g, c)
}

#[test]
fn a_surface_speed_carries_what_rests_on_it_along_the_surface_tangent() {
    // The ground's normal points up, so its tangent is +x: a belt of 2 m/s
    // brings the crate up to 2 m/s along +x through friction (0.5 × g =
    // 5 m/s² of grip: about 0.4 s), whichever collider rapier lists first.
    for ground_first in [true, false] {
        let log = new_log();
        let (mut p, _, c) = crate_on_ground(Act::Belt(2.0), &log, ground_first);
        for _ in 0..60 {
            p.step_frame(1.0 / 60.0);
        }
        let v = velocity_of(&p, c).linear;
        assert!(close(v.x, 2.0, 0.01), "ground first {ground_first}: {v:?}");
        assert!(
            pose_of(&p, c).x > 1.0,
            "it was carried: {:?}",
            pose_of(&p, c)
        );
        // And a belt the other way carries it the other way.
        let (mut p, _, c) = crate_on_ground(Act::Belt(-1.5), &log, ground_first);
        for _ in 0..60 {
            p.step_frame(1.0 / 60.0);
        }
        assert!(close(velocity_of(&p, c).linear.x, -1.5, 0.01));
    }
}

#[test]
fn a_dropped_pair_lets_the_bodies_pass_through_each_other() {
    for act in [Act::Drop, Act::DropPoints] {
        let log = new_log();
        let (mut p, _, c) = crate_on_ground(act, &log, true);
        for _ in 0..30 {
            p.step_frame(1.0 / 60.0);
        }
        let y = pose_of(&p, c).y;
        assert!(y < -0.5, "{act:?}: the crate fell into the ground, y = {y}");
        // With the hook only looking, it stays on top.
        let (mut p, _, c) = crate_on_ground(Act::Look, &log, true);
        for _ in 0..30 {
            p.step_frame(1.0 / 60.0);
        }
        assert!(close(pose_of(&p, c).y, 0.5, 0.01));
    }
}

#[test]
fn a_pair_friction_of_zero_lets_a_sliding_crate_keep_its_speed() {
    let speed_after = |act: Act| {
        let log = new_log();
        let mut world = World::new();
        world.spawn(hooked_ground(act, &log));
        let mut moving = crate_at(0.0, 0.5);
        moving.body.as_mut().expect("a body").velocity = Velocity {
            linear: Vec2::new(3.0, 0.0),
            angular: 0.0,
        };
        let c = world.spawn(moving);
        let mut p = session(world, Vec2::new(0.0, -G), settings(60, 1));
        for _ in 0..30 {
            p.step_frame(1.0 / 60.0);
        }
        velocity_of(&p, c).linear.x
    };
    // Friction 0.5 stops 3 m/s in 3 / 5 = 0.6 s; after 0.5 s, 0.5 m/s left.
    let rough = speed_after(Act::Look);
    assert!(close(rough, 0.5, 0.05), "{rough}");
    let ice = speed_after(Act::Friction(0.0));
    assert!(close(ice, 3.0, 1e-3), "{ice}");
}

#[test]
fn a_pair_restitution_of_one_bounces_a_dropped_ball_back_up() {
    let top_after_bounce = |act: Act| {
        let log = new_log();
        let mut world = World::new();
        world.spawn(hooked_ground(act, &log));
        let b = world.spawn(ball("ball", 0.0, 2.0, 0.5));
        let mut p = session(world, Vec2::new(0.0, -G), settings(60, 1));
        // It lands after about 0.55 s; watch the next 0.5 s.
        for _ in 0..40 {
            p.step_frame(1.0 / 60.0);
        }
        let mut top = f32::MIN;
        for _ in 0..30 {
            p.step_frame(1.0 / 60.0);
            top = top.max(pose_of(&p, b).y);
        }
        top
    };
    assert!(top_after_bounce(Act::Look) < 0.6, "no bounce by default");
    let bounced = top_after_bounce(Act::Restitution(1.0));
    assert!(
        bounced > 1.5,
        "back up most of the 1.5 m it fell: {bounced}"
    );
}

#[test]
fn the_hook_sees_the_pending_tick_and_the_substeps_dt_with_the_normal_out_of_its_surface() {
    // 60 Hz with 4 substeps: each substep is 1/240 s, unscaled by a time
    // scale of 2 (which makes frames owe two ticks, not longer ones).
    let log = new_log();
    let mut world = World::new();
    let g = world.spawn(hooked_ground(Act::Look, &log));
    let c = world.spawn(crate_at(0.0, 0.5));
    let time = TimeSettings {
        time_scale: 2.0,
        ..settings(60, 4)
    };
    let mut p = session(world, Vec2::new(0.0, -G), time);
    p.step_frame(1.0 / 60.0);
    let seen = lines(&log);
    // Two ticks, four substeps each, one pair.
    assert_eq!(seen.len(), 8, "{seen:#?}");
    let dt = 1.0 / 240.0;
    for (k, line) in seen.iter().enumerate() {
        let tick = 1 + k / 4;
        let substep = 1 + k % 4;
        let head = format!(
            "{g} with {c} tick {tick} phase Fixed dt {dt} substep {substep}/4 normal (0, 1) points 2 v "
        );
        assert!(line.starts_with(&head), "{line} vs {head}");
    }
}

#[test]
fn the_hook_is_derived_only_from_a_defined_mid_step_and_no_other_object_is_flagged() {
    let log = new_log();
    assert_eq!(
        Hook {
            act: Act::Look,
            log: log.clone()
        }
        .hooks(),
        Hooks::MID_STEP
    );
    // A scene without the hook never asks the engine to call back, not even
    // with a behaviour that declares no set (the default, `Hooks::ALL`,
    // leaves the mid-step hook out).
    assert!(!Hooks::ALL.contains(Hooks::MID_STEP));
    let mut world = World::new();
    world.spawn(ground().with_behaviour(Box::new(ContactProbe { log: log.clone() }), Priority(0)));
    world.spawn(crate_at(0.0, 0.5));
    let mut p = session(world, Vec2::new(0.0, -G), settings(60, 1));
    p.step_frame(1.0 / 60.0);
    assert!(!p.physics().has_mid_step_objects());
    // One with it does, until the hooked object is gone.
    let (mut p, g, _) = crate_on_ground(Act::Look, &log, true);
    p.step_frame(1.0 / 60.0);
    assert!(p.physics().has_mid_step_objects());
    p.apply_edit(&stepframe_core::Edit::Remove { object: g }.into())
        .expect("a live object");
    p.step_frame(1.0 / 60.0);
    p.step_frame(1.0 / 60.0);
    assert!(!p.physics().has_mid_step_objects());
}

#[test]
fn a_mid_step_breakpoint_suspends_at_the_end_of_the_tick_after_every_other_call() {
    // 2 substeps: the breakpoint matches in substep 1 of tick 1, and the
    // session stops only once substep 2's call and the tick's contact
    // callbacks are done.
    let log = new_log();
    let mut world = World::new();
    let g = world.spawn(hooked_ground(Act::Look, &log));
    let c = world.spawn(
        crate_at(0.0, 0.5).with_behaviour(Box::new(ContactProbe { log: log.clone() }), Priority(0)),
    );
    let mut p = session(world, Vec2::new(0.0, -G), settings(60, 2));
    p.add_breakpoint(Breakpoint::on(HookKind::MidStep, g));
    let report = p.step_frame(1.0 / 60.0);
    let s = report.suspended.expect("it stops");
    assert!(s.end_of_tick);
    assert_eq!(s.tick, 1);
    let SuspendReason::Breakpoint(hit) = &s.reason else {
        panic!("{:?}", s.reason);
    };
    assert_eq!(
        (hit.object, hit.hook, hit.tick, hit.behaviour.as_str()),
        (g, HookKind::MidStep, 1, "Hook")
    );
    let seen = lines(&log);
    assert_eq!(seen.len(), 3, "{seen:#?}");
    assert!(seen[0].contains("substep 1/2") && seen[1].contains("substep 2/2"));
    assert_eq!(seen[2], format!("{c} Started tick 1 phase Fixed with {g}"));
    assert_eq!(p.clock().simulation_tick, 1);
    assert_eq!(
        p.debugger().breakpoints()[0].matches,
        2,
        "both calls counted"
    );
}

#[test]
fn a_panicking_hook_is_reported_with_object_hook_and_tick_and_leaves_the_pair_unmodified() {
    // Tick 1 of three runs of a crate resting on the ground: a hook that
    // only looks, one that drops the pair (the crate starts to fall into
    // the ground), and one that drops it and then panics. The last must
    // end tick 1 with the very bits of the first: its drop did not survive.
    let after_tick_1 = |act: Act| {
        let log = new_log();
        let (mut p, _, c) = crate_on_ground(act, &log, true);
        p.step_frame(1.0 / 60.0);
        pose_of(&p, c)
    };
    let (looked, dropped) = (after_tick_1(Act::Look), after_tick_1(Act::Drop));
    assert!(dropped.y < looked.y, "{dropped:?} vs {looked:?}");
    assert!(after_tick_1(Act::DropThenPanic).bits_eq(&looked));

    let log = new_log();
    let (mut p, g, c) = crate_on_ground(Act::DropThenPanic, &log, true);
    p.set_fault_policy(FaultPolicy::Disable);
    for _ in 0..30 {
        p.step_frame(1.0 / 60.0);
    }
    assert!(close(pose_of(&p, c).y, 0.5, 0.01), "{:?}", pose_of(&p, c));
    // Called once: the fault disabled the behaviour.
    assert_eq!(lines(&log).len(), 1);
    let errors: Vec<_> = p
        .drain_log()
        .into_iter()
        .filter(|e| e.level == LogLevel::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = &errors[0];
    assert_eq!(
        (e.object, e.hook, e.tick),
        (Some(g), Some(HookKind::MidStep), 1)
    );
    assert!(
        e.message.contains("hook broke after dropping the pair"),
        "{}",
        e.message
    );
    assert!(p.behaviour_states(g)[0].faulted);
    assert!(!p.physics().has_mid_step_objects(), "no longer called back");
}

#[test]
fn hook_time_is_reported_per_priority_and_zoned_inside_the_physics_step() {
    let log = new_log();
    let mut world = World::new();
    world.spawn(hooked_ground(Act::Look, &log).with_behaviour(
        Box::new(Hook {
            act: Act::Look,
            log: log.clone(),
        }),
        Priority(-5),
    ));
    world.spawn(crate_at(0.0, 0.5));
    let mut p = session(world, Vec2::new(0.0, -G), settings(60, 1));
    p.set_zone_detail(ZoneDetail::Coarse);
    let report = p.step_frame(1.0 / 60.0);
    let priorities: Vec<Priority> = report
        .timing
        .mid_step_by_priority
        .iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(priorities.len(), 2);
    assert!(priorities.contains(&Priority(-5)) && priorities.contains(&Priority(0)));
    let zones = p.zones().zones();
    let physics = zones
        .iter()
        .position(|z| z.kind == ZoneKind::Physics)
        .expect("a physics zone");
    let inside: Vec<ZoneKind> = p.zones().children(physics).map(|i| zones[i].kind).collect();
    assert_eq!(
        inside,
        vec![
            ZoneKind::MidStep(Priority(-5)),
            ZoneKind::MidStep(Priority(0))
        ]
    );
    for i in p.zones().children(physics) {
        let z = &zones[i];
        assert!(z.start_ns >= zones[physics].start_ns && z.end_ns <= zones[physics].end_ns);
    }
}

#[test]
fn a_snapshot_with_mid_step_hooks_restores_and_continues_bit_identically() {
    let log = new_log();
    let (mut p, _, c) = crate_on_ground(Act::Belt(1.0), &log, true);
    for _ in 0..20 {
        p.step_frame(1.0 / 60.0);
    }
    let snap = p.snapshot();
    let run = |p: &mut Pipeline| {
        (0..40)
            .map(|_| {
                p.step_frame(1.0 / 60.0);
                (pose_of(p, c), p.state_hash())
            })
            .collect::<Vec<_>>()
    };
    let first = run(&mut p);
    p.restore(&snap);
    let again = run(&mut p);
    assert_eq!(first.len(), again.len());
    for ((a, ha), (b, hb)) in first.iter().zip(&again) {
        assert!(a.bits_eq(b), "{a:?} vs {b:?}");
        assert_eq!(ha, hb);
    }
}
