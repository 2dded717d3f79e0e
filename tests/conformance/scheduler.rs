//! Scheduler.

use super::*;

#[test]
fn fixed_callbacks_run_in_priority_order_lower_first_and_in_registration_order_within_a_priority() {
    let log = new_log();
    let order = [(1, 0), (2, 100), (3, -1000), (4, 0), (5, -50), (6, 100)];
    let objects = order
        .iter()
        .map(|&(id, prio)| probe_object(&log, id, prio, Actions::default()))
        .collect();
    let mut p = session(&log, objects);
    p.step_frame(2.0 * TICK);
    let fixed: Vec<u64> = hooks(&take(&log))
        .into_iter()
        .filter(|(_, h, _)| *h == HookKind::FixedUpdate)
        .map(|(o, _, _)| o)
        .collect();
    assert_eq!(fixed, vec![3, 5, 1, 4, 2, 6, 3, 5, 1, 4, 2, 6]);
    assert!(Priority::from(stepframe_core::NamedPriority::Early) < Priority(-50));
    assert!(Priority(-50) < Priority::DEFAULT);
}

#[test]
fn dropping_a_registration_handle_unregisters() {
    let log = new_log();
    let mut p = session(&log, vec![]);
    let probe = stepframe_tests::Probe {
        log: log.clone(),
        actions: Actions::default(),
    };
    let handle = p.register(Priority::DEFAULT, Box::new(probe));
    assert!(handle.is_valid());
    p.step_frame(TICK);
    assert_eq!(count(&take(&log), HookKind::FixedUpdate), 1);
    drop(handle);
    p.step_frame(TICK);
    assert!(hooks(&take(&log)).is_empty());
}
