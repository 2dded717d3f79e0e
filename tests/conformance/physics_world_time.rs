//! Simulation time belongs to its physics world.

use super::*;

/// The pending tick and its start time, as every FixedUpdate of `events` saw them.
fn fixed_clocks(events: &[Event]) -> Vec<(u64, f64)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Hook {
                hook: HookKind::FixedUpdate,
                clock,
                ..
            } => Some((clock.simulation_tick, clock.simulation_time)),
            _ => None,
        })
        .collect()
}

#[test]
fn simulation_time_restarts_only_with_its_physics_world() {
    // 60 Hz is 11,760,000 flicks a tick and 50 Hz 14,112,000 (705,600,000 a
    // second), so every sum below is exact and checkable by hand.
    let log = new_log();
    let mut p = session(&log, probes(&log, 1));
    for _ in 0..600 {
        p.step_frame(TICK);
    }
    assert_eq!(p.clock().simulation_tick, 600);
    assert_eq!(p.clock().simulation_time, 10.0);
    take(&log);

    // A fixed-rate change mid-run: the tick counter goes on, and the time is
    // 600 ticks of 1/60 s plus every tick of 1/50 s since.
    let fifty = TimeSettings {
        fixed_hz: 50,
        ..TimeSettings::default()
    };
    p.set_settings(fifty).expect("valid settings");
    p.drain_log();
    let report = p.step_frame(0.02);
    assert_eq!(fixed_clocks(&take(&log)), vec![(601, 10.0)]);
    // The change is marked in the frame's report and logged.
    let change = report.clock_change.expect("the frame reports the change");
    assert_eq!((change.after_tick, change.fixed_hz), (600, (60, 50)));
    let lines: Vec<String> = p.drain_log().into_iter().map(|e| e.message).collect();
    assert_eq!(lines, vec!["fixed rate 60 → 50 Hz at tick 600".to_string()]);
    assert_eq!(p.clock().simulation_tick, 601);
    assert_eq!(p.clock().simulation_time, 10.02);
    for _ in 0..49 {
        p.step_frame(0.02);
    }
    assert_eq!(p.clock().simulation_tick, 650);
    assert_eq!(p.clock().simulation_time, 11.0);
    assert_eq!(p.clock().fixed_delta_time, 0.02);

    // A strategy change (and back to 60 Hz) keeps counting too.
    p.set_settings(TimeSettings {
        strategy: StepStrategy::StepCounting,
        ..TimeSettings::default()
    })
    .expect("valid settings");
    take(&log);
    for _ in 0..60 {
        p.step_frame(TICK);
    }
    let seen = fixed_clocks(&take(&log));
    assert_eq!(seen.first(), Some(&(651, 11.0)));
    assert_eq!(seen.len(), 60);
    assert_eq!(p.clock().simulation_tick, 710);
    assert_eq!(p.clock().simulation_time, 12.0);
    assert_eq!(p.stepper().simulation_time(), Flicks(12 * 705_600_000));

    // A new physics world is the one thing that restarts it; frame time and
    // the frame index go on.
    let frames = p.clock().frame_index;
    let mut world = World::new();
    world.spawn(probe_object(&log, 1, 0, Actions::default()));
    p.load_session(world, Box::new(StandIn::new(&log)), 7);
    assert_eq!(p.clock().simulation_tick, 0);
    assert_eq!(p.clock().simulation_time, 0.0);
    assert_eq!(p.clock().frame_index, frames);
    take(&log);
    p.step_frame(TICK);
    assert_eq!(fixed_clocks(&take(&log)), vec![(1, 0.0)]);
}
