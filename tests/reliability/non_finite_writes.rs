//! non-finite writes.

use super::*;

/// Writes all five body commands with a NaN or an infinity into each target's
/// body, in FixedUpdate at pending tick `tick` and in Update once `tick` ticks
/// are complete. Parameters: `(tick, [target ids])`.
#[derive(Clone, Debug)]
struct Vandal {
    tick: u64,
    targets: Vec<u64>,
}

impl Vandal {
    fn vandalise(&self, ctx: &mut Ctx) {
        for &t in &self.targets {
            let target = ObjectId(t);
            let accepted = [
                ctx.apply_force(target, Vec2::new(f32::INFINITY, 0.0)),
                ctx.apply_impulse(target, Vec2::new(0.0, f32::NAN)),
                ctx.set_pose(target, Pose::new(1.0, f32::NEG_INFINITY, 0.0)),
                ctx.set_velocity(
                    target,
                    Velocity {
                        linear: Vec2::new(f32::NAN, f32::NAN),
                        angular: 0.0,
                    },
                ),
                ctx.set_kinematic_target(target, Pose::new(0.0, 0.0, f32::NAN)),
            ];
            assert_eq!(accepted, [false; 5], "every write is refused at once");
        }
    }
}

impl Behaviour for Vandal {
    fn name(&self) -> &str {
        "Vandal"
    }
    fn update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick == self.tick {
            self.vandalise(ctx);
        }
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick == self.tick {
            self.vandalise(ctx);
        }
    }
}

fn registry_with_vandal() -> Registry {
    let mut registry = stepframe_plugins::registry();
    registry.register("Vandal", "(0, [])", |text: &str| {
        let (tick, targets): (u64, Vec<u64>) = parse_params(text)?;
        if targets.is_empty() {
            return Err(ParamsError::new("name at least one target"));
        }
        Ok(Box::new(Vandal { tick, targets }) as Box<dyn Behaviour>)
    });
    registry
}

#[test]
fn non_finite_writes_are_rejected_before_rapier_reported_and_bodies_keep_their_last_good_state() {
    let registry = registry_with_vandal();
    // The vandal writes into the falling ball (2), a resting box (3) and the
    // kinematic lift (5) at tick 20; the control's vandal never fires.
    let vandal = |tick: u64| bodyless(&format!(r#"(name: "Vandal", params: ({tick}, [2, 3, 5]))"#));
    let (faulty, control) = faulty_and_control(&registry, vandal, 20);

    // 3 targets × 5 writes, in FixedUpdate of tick 20 (frame 20) and in
    // Update of frame 21 (20 ticks complete): 30 errors, each with object,
    // hook and tick.
    let errors = faulty.errors();
    assert_eq!(errors.len(), 30, "{errors:#?}");
    for (i, e) in errors.iter().enumerate() {
        let (hook, frame) = if i < 15 {
            (HookKind::FixedUpdate, 20)
        } else {
            (HookKind::Update, 21)
        };
        let target = [2, 3, 5][(i % 15) / 5];
        assert_eq!(
            (e.object, e.hook, e.tick, e.frame),
            (Some(ObjectId(target)), Some(hook), 20, frame),
            "{e:?}"
        );
        assert!(
            e.message.starts_with("rejected non-finite body command"),
            "{}",
            e.message
        );
    }
    // Nothing reached rapier: every body's trace is bit-identical to the
    // control's, tick 20 and 21 included, and every committed value is finite.
    assert_eq!(faulty.rows, control.rows);
    assert_all_finite(&faulty.rows);
    // "Continues normally": the ball was still falling at tick 20 and went on
    // falling (its height went down between tick 20 and tick 30).
    let y = |tick: u64| faulty.body(tick, 2)[1];
    assert!(y(30) < y(20), "{} then {}", y(20), y(30));
}

#[test]
fn faulty_nan_force_pose_and_velocity_from_a_scene_are_rejected() {
    let registry = stepframe_plugins::registry();
    for (fault, hook, kind, frame) in [
        ("NanForce", "FixedUpdate", "Force", 10),
        ("NanPose", "FixedUpdate", "SetPose", 10),
        ("NanVelocity", "Update", "SetVelocity", 11),
    ] {
        let behaviour = format!(
            r#"(name: "Faulty", params: (hook: {hook}, tick: 10, fault: {fault}, repeat: true))"#
        );
        let faulty = run(
            &scene_text(&dropped_ball(&behaviour)),
            &registry,
            60,
            FaultPolicy::Disable,
        );
        let control = run(
            &scene_text(&dropped_ball("")),
            &registry,
            60,
            FaultPolicy::Disable,
        );
        // `repeat`: a rejected write is not a panic, the behaviour stays
        // enabled and writes again every call from tick 10 on; every one is
        // rejected and logged (frames 10..=60 in fixed code, 11..=60 in Update).
        let errors = faulty.errors();
        assert_eq!(errors.len(), 61 - frame as usize, "{fault}");
        assert_eq!(
            (errors[0].object, errors[0].tick, errors[0].frame),
            (Some(FAULTY), 10, frame),
            "{fault}"
        );
        assert!(errors.iter().all(|e| e.message.contains(kind)), "{fault}");
        assert_eq!(faulty.rows, control.rows, "{fault}");
        assert_all_finite(&faulty.rows);
    }
}
