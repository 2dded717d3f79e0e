//! finite writes whose result is not finite.

use super::*;

/// Writes commands whose numbers are finite but whose *result* overflows f32,
/// in FixedUpdate at pending tick `tick` and in Update once `tick` ticks are
/// complete: an impulse of 3e38 N·s into the ball (2, 0.79 kg: 3.8e38 m/s)
/// and the box (3, 0.36 kg), a kinematic target 3e38 m away for the lift
/// (5: 1.8e40 m/s to get there in one tick), and a velocity of 2e19 m/s for
/// box B (4: finite, but its square, which rapier takes every substep, is
/// not; rapier would stop the box dead for good). With `forces`, instead two
/// forces of 5e20 N into the ball: one adds 1.06e19 m/s in a tick (its square,
/// 1.1e38, fits), two add 2.1e19 m/s (4.5e38 does not).
#[derive(Clone, Debug)]
struct Overdrive {
    tick: u64,
    forces: bool,
}

impl Overdrive {
    fn write(&self, ctx: &mut Ctx) {
        if self.forces {
            for _ in 0..2 {
                assert!(ctx.apply_force(ObjectId(2), Vec2::new(5e20, 0.0)));
            }
            return;
        }
        // Each number is finite, so each write is queued; the stage refuses it.
        assert!(ctx.apply_impulse(ObjectId(2), Vec2::new(3e38, 0.0)));
        assert!(ctx.apply_impulse(ObjectId(3), Vec2::new(0.0, 3e38)));
        assert!(ctx.set_kinematic_target(ObjectId(5), Pose::new(3e38, 0.2, 0.0)));
        let fast = Velocity {
            linear: Vec2::new(2e19, 0.0),
            angular: 0.0,
        };
        assert!(ctx.set_velocity(ObjectId(4), fast));
    }
}

impl Behaviour for Overdrive {
    fn name(&self) -> &str {
        "Overdrive"
    }
    fn update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick == self.tick {
            self.write(ctx);
        }
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick == self.tick {
            self.write(ctx);
        }
    }
}

/// At pending tick `tick`, spawns three objects whose bodies physics cannot
/// build, or (`bodies: false`, the control) the same objects without bodies:
/// one at an infinite pose, one whose finite pose composed with its parent's
/// (object 9, at x = 3e38) is infinite, and a circle of radius 1e10 (an
/// inertia of 1.6e40, beyond f32).
#[derive(Clone, Debug)]
struct Unborn {
    tick: u64,
    bodies: bool,
}

impl Behaviour for Unborn {
    fn name(&self) -> &str {
        "Unborn"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick != self.tick {
            return;
        }
        let ball = BodyDesc::dynamic(Shape::Circle { radius: 0.5 });
        let huge = BodyDesc::dynamic(Shape::Circle { radius: 1e10 });
        let descs = [
            (Pose::new(f32::INFINITY, 0.0, 0.0), None, ball.clone()),
            (Pose::new(3e38, 0.0, 0.0), Some(ObjectId(9)), ball),
            (Pose::new(0.0, 30.0, 0.0), None, huge),
        ];
        for (pose, parent, body) in descs {
            let mut desc = stepframe_core::ObjectDesc::new("unborn", pose);
            desc.parent = parent;
            if self.bodies {
                desc = desc.with_body(body);
            }
            ctx.spawn(desc);
        }
    }
}

fn registry_with_overflows() -> Registry {
    let mut registry = stepframe_plugins::registry();
    registry.register("Overdrive", "(0, false)", |text: &str| {
        let (tick, forces): (u64, bool) = parse_params(text)?;
        Ok(Box::new(Overdrive { tick, forces }) as Box<dyn Behaviour>)
    });
    registry.register("Unborn", "(0, true)", |text: &str| {
        let (tick, bodies): (u64, bool) = parse_params(text)?;
        Ok(Box::new(Unborn { tick, bodies }) as Box<dyn Behaviour>)
    });
    registry
}

#[test]
fn finite_writes_whose_result_is_not_finite_are_rejected_reported_and_bodies_go_on() {
    let registry = registry_with_overflows();
    let overdrive =
        |tick: u64| bodyless(&format!(r#"(name: "Overdrive", params: ({tick}, false))"#));
    let (faulty, control) = faulty_and_control(&registry, overdrive, 20);
    // 4 writes in FixedUpdate of tick 20 (frame 20), 4 in Update of frame 21;
    // each refused at the reconcile of the tick it is for (20 and 21), with
    // its object and the hook that wrote it.
    let errors = faulty.errors();
    assert_eq!(errors.len(), 8, "{errors:#?}");
    for (i, e) in errors.iter().enumerate() {
        let (hook, tick, frame) = if i < 4 {
            (HookKind::FixedUpdate, 20, 20)
        } else {
            (HookKind::Update, 21, 21)
        };
        let target = [2, 3, 5, 4][i % 4];
        assert_eq!(
            (e.object, e.hook, e.tick, e.frame),
            (Some(ObjectId(target)), Some(hook), tick, frame),
            "{e:?}"
        );
        assert!(
            e.message.starts_with("rejected body command")
                && e.message.contains("its result is not finite"),
            "{}",
            e.message
        );
    }
    // The refused commands changed nothing: every body's trace is the
    // control's, bit for bit, and every value is finite.
    assert_eq!(faulty.rows, control.rows);
    assert_all_finite(&faulty.rows);
    let y = |tick: u64| faulty.body(tick, 2)[1];
    assert!(
        y(30) < y(20),
        "the ball goes on falling: {} then {}",
        y(20),
        y(30)
    );
}

#[test]
fn a_force_that_would_make_the_tick_s_forces_too_fast_is_rejected_and_the_first_still_acts() {
    let registry = registry_with_overflows();
    let forces = bodyless(r#"(name: "Overdrive", params: (10, true))"#);
    let faulty = run(&scene_text(&forces), &registry, 30, FaultPolicy::Disable);
    let errors = faulty.errors();
    // Two forces in FixedUpdate of tick 10 and two in Update of frame 11:
    // the second of each pair is refused, the first acts (rapier then caps
    // the ball's speed at 400 m/s).
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(
        errors
            .iter()
            .all(|e| e.object == Some(ObjectId(2)) && e.message.contains("speed would be 2.1")),
        "{errors:#?}"
    );
    assert_eq!(
        errors.iter().map(|e| (e.hook, e.tick)).collect::<Vec<_>>(),
        [
            (Some(HookKind::FixedUpdate), 10),
            (Some(HookKind::Update), 11)
        ]
    );
    assert_all_finite(&faulty.rows);
    let vx = |tick: u64| faulty.body(tick, 2)[3];
    assert!(
        vx(9) == 0.0 && vx(10) == 400.0,
        "pushed, then capped: {} {}",
        vx(9),
        vx(10)
    );
}

#[test]
fn a_body_physics_cannot_build_is_refused_and_its_object_lives_on_without_one() {
    let registry = registry_with_overflows();
    let scene = |bodies: bool| {
        scene_text(&format!(
            r#"(id: 8, name: "Unborn", behaviours: [(name: "Unborn", params: (10, {bodies}))]),
               (id: 9, name: "Far", transform: (x: 3e38, y: 0.0))"#
        ))
    };
    let faulty = run(&scene(true), &registry, 40, FaultPolicy::Disable);
    let control = run(&scene(false), &registry, 40, FaultPolicy::Disable);
    assert!(control.errors().is_empty());
    // The three objects exist (the next free ids, in spawn order), without
    // bodies.
    let errors = faulty.errors();
    assert_eq!(errors.len(), 3, "{errors:#?}");
    let first = errors[0].object.expect("an object").0;
    for (e, id) in errors.iter().zip(first..) {
        assert_eq!(
            (e.object, e.hook, e.tick, e.frame),
            (Some(ObjectId(id)), Some(HookKind::FixedUpdate), 10, 10),
            "{e:?}"
        );
        assert!(e.message.starts_with("body not created"), "{}", e.message);
        let object = faulty
            .pipeline
            .world()
            .get(ObjectId(id))
            .expect("it exists");
        assert!(object.body.is_none(), "#{id} has no body");
    }
    assert!(
        errors[2].message.contains("angular inertia"),
        "{}",
        errors[2].message
    );
    // Not in any tick's poses, and everything else as in the control run,
    // where the same objects were spawned without bodies.
    assert_eq!(faulty.rows, control.rows);
    assert_all_finite(&faulty.rows);
}
