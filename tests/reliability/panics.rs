//! panics in hooks.

use super::*;

#[test]
fn a_panic_in_every_hook_kind_is_caught_logged_with_object_hook_and_tick_and_the_rest_runs_unchanged()
 {
    let registry = stepframe_plugins::registry();
    for case in &HOOK_CASES {
        let (control, faulty) = case.control_and_faulty(&registry, FaultPolicy::Disable);
        let hook = case.hook;

        // The session kept running: every frame ran its tick.
        assert_eq!(faulty.pipeline.clock().simulation_tick, u64::from(FRAMES));
        assert_eq!(faulty.rows.len(), FRAMES as usize, "{hook}");
        assert!(control.errors().is_empty(), "{:?}", control.errors());

        // Exactly one error although the fault repeats: the behaviour was
        // disabled (a routine that panicked was dropped) after the first panic.
        let errors = faulty.errors();
        assert_eq!(errors.len(), 1, "{hook}: {errors:?}");
        let e = errors[0];
        let (tick, frame) = case.expected_stamp(&control);
        assert_eq!(
            (e.object, e.hook, e.tick, e.frame),
            (Some(FAULTY), Some(hook), tick, frame),
            "{hook}: {e:?}"
        );
        assert!(
            e.message.contains("`Faulty` panicked")
                && e.message
                    .contains(&format!("injected panic in {hook} at tick {tick}")),
            "{hook}: {}",
            e.message
        );
        assert!(faulty.suspensions.is_empty());
        // The object stays (policy Disable); a ball keeps falling and resting.
        assert!(faulty.pipeline.world().get(FAULTY).is_some());

        // Every other object's trace is bit-identical to the control run's,
        // including the tick of the fault: the tick completed for them.
        assert_eq!(
            faulty.others(&[FAULTY]),
            control.others(&[FAULTY]),
            "{hook}: the other objects diverged"
        );
        // And the faulty object itself: Faulty has no physical effect, so its
        // body moves exactly as the control's.
        assert_eq!(faulty.rows, control.rows, "{hook}");
        assert_all_finite(&faulty.rows);
    }
}

#[test]
fn the_remove_policy_removes_only_the_faulty_object_and_the_rest_runs_unchanged() {
    let registry = stepframe_plugins::registry();
    for case in HOOK_CASES.iter().filter(|c| !c.ball) {
        let (control, faulty) = case.control_and_faulty(&registry, FaultPolicy::Remove);
        let hook = case.hook;
        let errors = faulty.errors();
        assert_eq!(errors.len(), 1, "{hook}: {errors:?}");
        let (tick, frame) = case.expected_stamp(&control);
        assert_eq!(
            (
                errors[0].object,
                errors[0].hook,
                errors[0].tick,
                errors[0].frame
            ),
            (Some(FAULTY), Some(hook), tick, frame)
        );
        assert!(faulty.pipeline.world().get(FAULTY).is_none(), "{hook}");
        assert_eq!(
            faulty.pipeline.world().len(),
            control.pipeline.world().len() - 1,
            "{hook}: only the faulty object went"
        );
        assert_eq!(faulty.pipeline.clock().simulation_tick, u64::from(FRAMES));
        assert_eq!(
            faulty.others(&[FAULTY]),
            control.others(&[FAULTY]),
            "{hook}"
        );
    }
}

#[test]
fn the_remove_policy_also_takes_the_body_out_of_physics() {
    // The contact case: the ball panics when it lands and is removed with its body.
    let registry = stepframe_plugins::registry();
    let case = &HOOK_CASES[4];
    assert_eq!(case.hook, HookKind::Contact);
    let (control, faulty) = case.control_and_faulty(&registry, FaultPolicy::Remove);
    let landed = first_contact(&control.rows, FAULTY);
    for row in &faulty.rows {
        let has_ball = row.bodies.iter().any(|(id, _)| *id == FAULTY);
        // The ball is removed in the contact callback of its landing tick, so
        // that tick's record (taken after the callbacks) lists it no more.
        assert_eq!(has_ball, row.tick < landed, "tick {}", row.tick);
    }
    assert_eq!(faulty.errors().len(), 1);
    assert_eq!(faulty.pipeline.clock().simulation_tick, u64::from(FRAMES));
}

#[test]
fn the_break_policy_suspends_on_the_fault_and_resume_goes_on_unchanged() {
    let registry = stepframe_plugins::registry();
    for case in &HOOK_CASES {
        let (control, faulty) = case.control_and_faulty(&registry, FaultPolicy::Break);
        let hook = case.hook;
        let (tick, frame) = case.expected_stamp(&control);
        // One suspension: the behaviour was disabled before the session stopped.
        assert_eq!(
            faulty.suspensions.len(),
            1,
            "{hook}: {:?}",
            faulty.suspensions
        );
        let s = &faulty.suspensions[0];
        match &s.reason {
            SuspendReason::Fault {
                object,
                hook: h,
                message,
            } => {
                assert_eq!((*object, *h), (FAULTY, hook));
                assert!(message.contains("injected panic"), "{message}");
            }
            other => panic!("{hook}: expected a fault suspension, got {other:?}"),
        }
        // Fixed hooks suspend at the end of the tick (the tick completed);
        // update-phase and presentation hooks right after the hook.
        assert_eq!((s.tick, s.frame), (tick, frame), "{hook}");
        if hook.is_fixed() {
            assert!(s.end_of_tick, "{hook}");
        }
        if matches!(
            hook,
            HookKind::Start | HookKind::Update | HookKind::FlowTick
        ) {
            assert!(!s.end_of_tick, "{hook}");
        }
        assert_eq!(faulty.errors().len(), 1, "{hook}");
        assert_eq!(faulty.pipeline.clock().simulation_tick, u64::from(FRAMES));
        assert_eq!(faulty.rows, control.rows, "{hook}");
    }
}

/// Whether a behaviour injects a fault: a `Faulty`, or a `Script` running one
/// of the fault scripts (`scripts/fault_*.rhai`).
fn injects_faults(b: &stepframe_core::SceneBehaviour) -> bool {
    b.name == "Faulty" || (b.name == "Script" && b.params.contains("scripts/fault_"))
}

/// `scene` with every fault-injecting behaviour taken out (objects kept).
fn without_faulty(scene: &Scene) -> Scene {
    fn strip(o: &mut SceneObject) {
        o.behaviours.retain(|b| !injects_faults(b));
        o.children.iter_mut().for_each(strip);
    }
    let mut control = scene.clone();
    control.objects.iter_mut().for_each(strip);
    control
}

#[test]
fn faults_ron_injects_every_fault_from_the_scene_and_the_level_runs_as_without_them() {
    let registry = scene_registry();
    let scene =
        Scene::load(&repo_path("assets/scenes/faults.ron"), &registry).expect("faults.ron loads");
    let control_scene = without_faulty(&scene);
    assert_ne!(scene, control_scene);
    let faulty = run_scene(&scene, &registry, 600, FaultPolicy::Disable);
    let control = run_scene(&control_scene, &registry, 600, FaultPolicy::Disable);
    assert!(control.errors().is_empty());
    let landed = first_contact(&control.rows, ObjectId(56));

    // The table in the scene's header, with ticks and frames derived as in
    // HOOK_CASES: (object, hook, tick, frame, what the message says).
    let expected: Vec<(u64, HookKind, u64, u64, &str)> = vec![
        (50, HookKind::Start, 0, 1, "panicked"),
        (51, HookKind::Update, 5, 6, "panicked"),
        (52, HookKind::FlowTick, 10, 10, "panicked"),
        (53, HookKind::FixedUpdate, 15, 15, "panicked"),
        (54, HookKind::Routine, 20, 21, "panicked"),
        (55, HookKind::Present, 25, 25, "panicked"),
        (
            57,
            HookKind::FixedUpdate,
            30,
            30,
            "rejected non-finite body command: Force",
        ),
        (
            58,
            HookKind::FixedUpdate,
            40,
            40,
            "rejected non-finite body command: SetPose",
        ),
        (56, HookKind::Contact, landed, landed, "panicked"),
        (
            59,
            HookKind::Update,
            50,
            51,
            "rejected non-finite body command: SetVelocity",
        ),
        (12, HookKind::FixedUpdate, 70, 70, "panicked"),
        (
            57,
            HookKind::FixedUpdate,
            100,
            100,
            "rejected body command Impulse",
        ),
    ];
    let mut got: Vec<(u64, HookKind, u64, u64, String)> = faulty
        .errors()
        .iter()
        .map(|e| {
            (
                e.object.map_or(0, |o| o.0),
                e.hook.expect("every fault names its hook"),
                e.tick,
                e.frame,
                e.message.clone(),
            )
        })
        .collect();
    got.sort_by_key(|g| (g.2, g.0));
    let mut want = expected.clone();
    want.sort_by_key(|w| (w.2, w.0));
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!((g.0, g.1, g.2, g.3), (w.0, w.1, w.2, w.3), "{g:?}");
        assert!(g.4.contains(w.4), "{g:?}");
    }
    // Only the Faulty behaviour of the platform was disabled: its mover, and
    // everything else, ran exactly as in the control run.
    assert_eq!(faulty.rows, control.rows);
    assert_all_finite(&faulty.rows);
    assert_eq!(faulty.pipeline.clock().simulation_tick, 600);
}
