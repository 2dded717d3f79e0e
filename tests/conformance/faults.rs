//! Faults.

use super::*;

#[derive(Clone, Debug)]
struct PanicsAt(u64);

impl stepframe_core::Behaviour for PanicsAt {
    fn name(&self) -> &str {
        "PanicsAt"
    }
    fn fixed_update(&mut self, ctx: &mut stepframe_core::Ctx, _dt: f64) {
        if ctx.clock().simulation_tick == self.0 {
            panic!("boom at {}", self.0);
        }
    }
}

#[test]
fn a_panicking_fixed_update_is_caught_and_the_tick_completes_for_every_other_object() {
    let log = new_log();
    let objects = vec![
        probe_object(&log, 1, -10, Actions::default()),
        ObjectDesc::new("faulty", Pose::IDENTITY)
            .with_id(ObjectId(2))
            .with_behaviour(Box::new(PanicsAt(2)), Priority::DEFAULT),
        probe_object(&log, 3, 10, Actions::default()),
    ];
    let mut p = session(&log, objects);
    let r = p.step_frame(3.0 * TICK);
    assert_eq!(r.ticks, 3, "the session keeps running");
    let fixed: Vec<(u64, u64)> = hooks(&take(&log))
        .into_iter()
        .filter(|(_, h, _)| *h == HookKind::FixedUpdate)
        .map(|(o, _, t)| (o, t))
        .collect();
    assert_eq!(fixed, vec![(1, 1), (3, 1), (1, 2), (3, 2), (1, 3), (3, 3)]);
    let errors: Vec<_> = p
        .drain_log()
        .into_iter()
        .filter(|e| e.level == stepframe_core::LogLevel::Error)
        .collect();
    assert_eq!(
        errors.len(),
        1,
        "reported once; the behaviour is disabled after"
    );
    let e = &errors[0];
    assert_eq!(
        (e.object, e.hook, e.tick),
        (Some(ObjectId(2)), Some(HookKind::FixedUpdate), 2)
    );
    assert!(e.message.contains("boom at 2"), "{}", e.message);
}

#[test]
fn a_new_session_starts_with_its_own_settings_even_before_its_first_frame() {
    let mut p = Pipeline::new(TimeSettings::default());
    p.step_frame(TICK);
    p.set_settings(TimeSettings {
        fixed_hz: 50,
        ..TimeSettings::default()
    })
    .expect("valid settings");
    p.load_session(World::new(), Box::new(stepframe_core::NoPhysics), 1);
    assert_eq!(p.clock().fixed_delta_time, Flicks(14_112_000).as_secs_f64());
    p.pause();
    p.step_tick();
    assert_eq!(
        p.clock().simulation_time,
        Flicks(14_112_000).as_secs_f64(),
        "one 50 Hz tick"
    );
}
