//! Cohort and lifecycle.

use super::*;

#[test]
fn the_fixed_cohort_is_selected_at_the_outer_frame_boundary_and_new_objects_get_fixed_update_next_frame()
 {
    let log = new_log();
    let spawner = probe_object(
        &log,
        1,
        0,
        Actions {
            spawn_at_tick: Some((1, ObjectId(50))),
            ..Actions::default()
        },
    );
    let mut p = session(&log, vec![spawner]);
    p.step_frame(3.0 * TICK);
    let events = take(&log);
    // The new body is created by the reconcile of the very tick that spawned it...
    let first_reconcile_added = events.iter().find_map(|e| match e {
        Event::Reconcile { added, .. } if added.contains(&ObjectId(50)) => Some(()),
        _ => None,
    });
    assert!(first_reconcile_added.is_some());
    let reconciles: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::Reconcile { .. }))
        .collect();
    assert!(
        matches!(reconciles[0], Event::Reconcile { added, .. } if added.contains(&ObjectId(50)))
    );
    // ...and committed (it has a pose after tick 1), but no hook of it ran in frame 1.
    assert!(p.world().physics_simulation_pose(ObjectId(50)).is_some());
    assert!(hooks(&events).iter().all(|(o, _, _)| *o == 1));
    // Frame 2: Start, then Update, then its FixedUpdate.
    p.step_frame(TICK);
    let calls: Vec<(u64, HookKind, u64)> = hooks(&take(&log))
        .into_iter()
        .filter(|(o, _, _)| *o == 50)
        .collect();
    assert_eq!(
        calls,
        vec![
            (50, HookKind::Start, 3),
            (50, HookKind::Update, 3),
            (50, HookKind::FixedUpdate, 4),
            (50, HookKind::FlowTick, 4),
            (50, HookKind::Present, 4),
        ]
    );
}

#[test]
fn removing_an_object_prevents_subsequent_callbacks_on_the_retired_instance_even_later_in_the_same_tick()
 {
    let log = new_log();
    // Object 1 (priority -10) removes object 2 (priority 10) in FixedUpdate of tick 2.
    // Object 2 also has a contact scheduled in tick 2.
    let killer = probe_object(
        &log,
        1,
        -10,
        Actions {
            remove_at_tick: Some((2, ObjectId(2))),
            ..Actions::default()
        },
    );
    let victim = probe_object(&log, 2, 10, Actions::default());
    let stage =
        StandIn::new(&log).with_contacts(vec![(2, ObjectId(2), ObjectId(3), ContactKind::Started)]);
    let third = probe_object(&log, 3, 0, Actions::default());
    let mut p = session_with(
        &log,
        vec![killer, victim, third],
        TimeSettings::default(),
        stage,
    );
    p.step_frame(3.0 * TICK);
    let fixed_of_2: Vec<u64> = hooks(&take(&log))
        .into_iter()
        .filter(|(o, h, _)| *o == 2 && (*h == HookKind::FixedUpdate || *h == HookKind::Contact))
        .map(|(_, _, t)| t)
        .collect();
    assert_eq!(
        fixed_of_2,
        vec![1],
        "only tick 1's FixedUpdate; none in tick 2 (later priority) or after"
    );
    assert!(p.world().get(ObjectId(2)).is_none());
}

#[test]
fn a_removal_within_one_priority_group_stops_the_removed_objects_call_later_in_the_same_pass() {
    // Five objects at one priority, so the FixedUpdate pass calls them on its
    // fast path (gate flags read before the pass): object 2 removes object 4
    // in tick 2, and object 4 must not be called in that pass.
    let log = new_log();
    let objects = (1..=5)
        .map(|id| {
            let actions = Actions {
                remove_at_tick: (id == 2).then_some((2, ObjectId(4))),
                ..Actions::default()
            };
            probe_object(&log, id, 0, actions)
        })
        .collect();
    let mut p = session(&log, objects);
    p.step_frame(3.0 * TICK);
    let fixed: Vec<(u64, u64)> = hooks(&take(&log))
        .into_iter()
        .filter(|(_, h, _)| *h == HookKind::FixedUpdate)
        .map(|(o, _, t)| (t, o))
        .collect();
    let mut expected = vec![(1, 1), (1, 2), (1, 3), (1, 4), (1, 5)];
    expected.extend([(2, 1), (2, 2), (2, 3), (2, 5)]);
    expected.extend([(3, 1), (3, 2), (3, 3), (3, 5)]);
    assert_eq!(fixed, expected, "(tick, object) of every FixedUpdate");
}

#[test]
fn replacing_an_object_retires_the_old_instance() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    p.step_frame(TICK);
    take(&log);
    // The world's own rule, as a hook's spawn meets it.
    p.world_mut_for_tests().remove(ObjectId(1));
    let replacement = p
        .world_mut_for_tests()
        .spawn(probe_object(&log, 1, 0, Actions::default()));
    assert_ne!(
        replacement,
        ObjectId(1),
        "a retired id is not reused in the same frame"
    );
    p.step_frame(TICK);
    let objects: Vec<u64> = hooks(&take(&log)).into_iter().map(|(o, _, _)| o).collect();
    assert!(objects.iter().all(|o| *o == replacement.0), "{objects:?}");
    assert!(!objects.is_empty());
}

#[test]
fn disabled_components_retain_their_lifecycle_gate() {
    let log = new_log();
    let mut p = session(&log, probes(&log, 2));
    p.step_frame(TICK);
    take(&log);
    enable(&mut p, ObjectId(2), false);
    p.step_frame(2.0 * TICK);
    assert!(hooks(&take(&log)).iter().all(|(o, _, _)| *o == 1));
    enable(&mut p, ObjectId(2), true);
    p.step_frame(TICK);
    let of_2: Vec<HookKind> = hooks(&take(&log))
        .into_iter()
        .filter(|(o, _, _)| *o == 2)
        .map(|(_, h, _)| h)
        .collect();
    assert_eq!(
        of_2,
        vec![
            HookKind::Update,
            HookKind::FixedUpdate,
            HookKind::FlowTick,
            HookKind::Present
        ]
    );
}

#[test]
fn disabled_components_retain_their_normal_lifecycle_gate_through_a_parent_and_a_child() {
    // Unity's activeInHierarchy: a disabled parent takes its subtree out.
    let log = new_log();
    let parent = probe_object(&log, 1, 0, Actions::default());
    let child = probe_object(&log, 2, 0, Actions::default()).with_parent(ObjectId(1));
    let mut p = session(&log, vec![parent, child]);
    let of = |events: &[Event], id: u64| -> Vec<HookKind> {
        hooks(events)
            .into_iter()
            .filter(|(o, _, _)| *o == id)
            .map(|(_, h, _)| h)
            .collect()
    };
    let frame = [
        HookKind::Update,
        HookKind::FixedUpdate,
        HookKind::FlowTick,
        HookKind::Present,
    ];
    p.step_frame(TICK);
    take(&log);

    // The parent disabled: neither it nor its (still enabled) child gets a call.
    enable(&mut p, ObjectId(1), false);
    p.step_frame(2.0 * TICK);
    assert!(hooks(&take(&log)).is_empty());
    let w = p.world();
    assert!(
        w.get(ObjectId(2)).expect("child").is_enabled(),
        "its own flag stays"
    );
    assert!(!w.is_active_in_hierarchy(ObjectId(2)));

    // A child disabled on its own stays out when the parent comes back.
    enable(&mut p, ObjectId(2), false);
    enable(&mut p, ObjectId(1), true);
    p.step_frame(TICK);
    let events = take(&log);
    assert_eq!(of(&events, 1), frame);
    assert!(of(&events, 2).is_empty());
    enable(&mut p, ObjectId(2), true);
    p.step_frame(TICK);
    let events = take(&log);
    assert_eq!(
        of(&events, 2),
        frame,
        "no second Start: its gate only closed"
    );

    // An object created under a disabled parent waits for it, Start included.
    enable(&mut p, ObjectId(1), false);
    p.apply_edit(&PreparedEdit::spawn(
        probe_object(&log, 3, 0, Actions::default()).with_parent(ObjectId(2)),
    ))
    .expect("id 3 is free");
    let late = ObjectId(3);
    p.step_frame(TICK);
    assert!(hooks(&take(&log)).is_empty());
    enable(&mut p, ObjectId(1), true);
    p.step_frame(TICK);
    let events = take(&log);
    let mut first = vec![HookKind::Start];
    first.extend(frame);
    assert_eq!(of(&events, late.0), first);
}

#[test]
fn fixed_update_sees_the_committed_body_pose_of_the_previous_tick() {
    let log = new_log();
    // Unit mass, force 60 N along x: each tick v += 1 m/s, then x += v/60.
    let mover = probe_object(
        &log,
        1,
        0,
        Actions {
            force: Some(stepframe_core::Vec2::new(60.0, 0.0)),
            ..Actions::default()
        },
    );
    let mut p = session(&log, vec![mover]);
    p.step_frame(3.0 * TICK);
    let xs: Vec<f32> = take(&log)
        .into_iter()
        .filter_map(|e| match e {
            Event::Hook {
                hook: HookKind::FixedUpdate,
                pose,
                ..
            } => pose.map(|p| p.x),
            _ => None,
        })
        .collect();
    // Start at x = 1. After tick 1: v = 1, x = 1 + 1/60. After tick 2: v = 2, x += 2/60.
    let dt = (1.0f64 / 60.0) as f32;
    let x1 = 1.0 + 1.0 * dt;
    let x2 = x1 + 2.0 * dt;
    assert_eq!(xs, vec![1.0, x1, x2]);
}

#[test]
fn physics_simulation_pose_returns_a_copied_committed_world_pose_and_bodyless_children_inherit_their_physics_parent()
 {
    let log = new_log();
    let parent = probe_object(
        &log,
        1,
        0,
        Actions {
            force: Some(stepframe_core::Vec2::new(0.0, 60.0)),
            ..Actions::default()
        },
    );
    let child = ObjectDesc::new("child", Pose::new(2.0, 0.0, 0.5))
        .with_id(ObjectId(2))
        .with_parent(ObjectId(1));
    let mut p = session(&log, vec![parent, child]);
    p.step_frame(TICK);
    let committed = p
        .world()
        .get(ObjectId(1))
        .and_then(|o| o.body.as_ref())
        .map(|b| b.committed);
    let mut copy = p.world().physics_simulation_pose(ObjectId(1));
    assert_eq!(copy, committed);
    if let Some(c) = copy.as_mut() {
        c.x = 1000.0;
    }
    assert_eq!(
        p.world().physics_simulation_pose(ObjectId(1)),
        committed,
        "the read is a copy"
    );
    // Parent at (1, 1/60) with angle 0: the child sits at parent + (2, 0), angle 0.5.
    let parent_pose = committed.expect("parent has a body");
    let child_pose = p
        .world()
        .physics_simulation_pose(ObjectId(2))
        .expect("child exists");
    assert_eq!(
        child_pose,
        Pose::new(parent_pose.x + 2.0, parent_pose.y, 0.5)
    );
}
