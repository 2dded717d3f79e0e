//! The input clauses of the contract, each with frames of 0, 1 and 4 ticks.
//!
//! "Device sources and action maps preserve their existing outer-frame snapshots.
//! Fixed callbacks temporarily read a separate simulation snapshot over the same
//! bindings. Press/release edges survive frames containing zero fixed ticks,
//! appear once on the next fixed tick, and are consumed before a second catch-up
//! tick. A fast press and release remains visible as both edges. Fixed
//! hold/charge/buffer interactions use simulation milliseconds, so debugger/player
//! pauses do not count toward the interaction. A new physics session resets fixed
//! interaction memory."

use stepframe_core::{
    ActionBinding, ActionMap, HookKind, InputEvent, InputSource, Pipeline, TimeSettings, World,
};
use stepframe_tests::{Actions, Event, Log, StandIn, new_log, probe_object, take};

/// A frame of exactly this many ticks at 60 Hz (0 = a quarter tick, nothing runs).
fn frame(p: &mut Pipeline, ticks: u32) -> u32 {
    let dt = if ticks == 0 {
        0.25 / 60.0
    } else {
        f64::from(ticks) / 60.0
    };
    p.step_frame(dt).ticks
}

fn session(log: &Log) -> Pipeline {
    let mut world = World::new();
    world.spawn(probe_object(log, 1, 0, Actions::default()));
    let mut p = Pipeline::new(TimeSettings::default());
    p.set_action_map(ActionMap {
        actions: vec![ActionBinding {
            name: "jump".into(),
            sources: vec![
                InputSource::Key("Space".into()),
                InputSource::GamepadButton("South".into()),
            ],
        }],
    });
    p.load_session(world, Box::new(StandIn::new(log)), 1);
    p
}

fn press() -> InputEvent {
    InputEvent::press(InputSource::Key("Space".into()))
}

fn release() -> InputEvent {
    InputEvent::release(InputSource::Key("Space".into()))
}

/// `(tick, edges)` of every FixedUpdate, and `(frame, edges)` of every Update.
fn seen(events: &[Event], kind: HookKind) -> Vec<(u64, Vec<String>)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Hook {
                hook, clock, edges, ..
            } if *hook == kind => Some((
                if kind == HookKind::FixedUpdate {
                    clock.simulation_tick
                } else {
                    clock.frame_index
                },
                edges.clone(),
            )),
            _ => None,
        })
        .collect()
}

fn fixed_edges(events: &[Event]) -> Vec<(u64, Vec<String>)> {
    seen(events, HookKind::FixedUpdate)
        .into_iter()
        .filter(|(_, e)| !e.is_empty())
        .collect()
}

#[test]
fn an_edge_in_a_frame_with_zero_ticks_survives_and_appears_once_on_the_next_fixed_tick() {
    for next_frame_ticks in [1u32, 4] {
        let log = new_log();
        let mut p = session(&log);
        p.push_input(press());
        assert_eq!(frame(&mut p, 0), 0);
        assert_eq!(frame(&mut p, 0), 0, "a second empty frame: still pending");
        assert_eq!(frame(&mut p, next_frame_ticks), next_frame_ticks);
        let events = take(&log);
        assert_eq!(fixed_edges(&events), vec![(1, vec!["jump+".to_string()])]);
        // Update saw it on the first frame, once.
        let updates = seen(&events, HookKind::Update);
        assert_eq!(updates[0], (1, vec!["jump+".to_string()]));
        assert!(updates[1..].iter().all(|(_, e)| e.is_empty()));
    }
}

#[test]
fn an_edge_is_consumed_before_a_second_catch_up_tick() {
    for ticks in [1u32, 4] {
        let log = new_log();
        let mut p = session(&log);
        p.push_input(press());
        assert_eq!(frame(&mut p, ticks), ticks);
        let all = seen(&take(&log), HookKind::FixedUpdate);
        assert_eq!(all.len(), ticks as usize);
        assert_eq!(all[0], (1, vec!["jump+".to_string()]));
        assert!(all[1..].iter().all(|(_, e)| e.is_empty()), "{all:?}");
    }
}

#[test]
fn a_fast_press_and_release_remains_visible_as_both_edges() {
    for ticks in [0u32, 1, 4] {
        let log = new_log();
        let mut p = session(&log);
        p.push_input(press());
        p.push_input(release());
        frame(&mut p, ticks);
        if ticks == 0 {
            frame(&mut p, 1);
        }
        let events = take(&log);
        let both = vec!["jump+".to_string(), "jump-".to_string()];
        assert_eq!(
            fixed_edges(&events),
            vec![(1, both.clone())],
            "{ticks}-tick frame"
        );
        assert_eq!(seen(&events, HookKind::Update)[0], (1, both));
        assert!(!p.input().fixed_snapshot().pressed("jump"));
    }
}

#[test]
fn fixed_hold_interactions_use_simulation_milliseconds_so_pauses_do_not_count() {
    let log = new_log();
    let mut p = session(&log);
    p.push_input(press());
    assert_eq!(frame(&mut p, 1), 1); // tick 1 sees the press at sim time 0
    assert_eq!(frame(&mut p, 4), 4); // ticks 2..5
    // A long debugger pause: frames are not run, no tick happens.
    p.pause();
    for _ in 0..100 {
        frame(&mut p, 4);
    }
    p.resume();
    assert_eq!(frame(&mut p, 0), 0);
    assert_eq!(frame(&mut p, 1), 1); // tick 6 (a quarter tick was carried)
    let held: Vec<(u64, f64)> = take(&log)
        .into_iter()
        .filter_map(|e| match e {
            Event::Hook {
                hook: HookKind::FixedUpdate,
                clock,
                held_ms,
                ..
            } => Some((clock.simulation_tick, held_ms)),
            _ => None,
        })
        .collect();
    // Held since the start of tick 1 (0 ms); tick n starts at (n - 1) × 1000/60 ms.
    let ms = |ticks: u64| (ticks as f64) * 1000.0 / 60.0;
    let ticks: Vec<u64> = held.iter().map(|(t, _)| *t).collect();
    assert_eq!(ticks, vec![1, 2, 3, 4, 5, 6]);
    for (tick, h) in held {
        let expected = ms(tick - 1);
        assert!(
            (h - expected).abs() < 1e-9,
            "tick {tick}: held {h} ms, expected {expected}"
        );
    }
}

#[test]
fn a_new_physics_session_resets_fixed_interaction_memory() {
    let log = new_log();
    let mut p = session(&log);
    p.push_input(press());
    frame(&mut p, 0); // the press is pending for the next tick
    let mut world = World::new();
    world.spawn(probe_object(&log, 1, 0, Actions::default()));
    p.load_session(world, Box::new(StandIn::new(&log)), 1);
    take(&log);
    frame(&mut p, 4);
    let events = take(&log);
    assert!(fixed_edges(&events).is_empty(), "the pending edge is gone");
    assert!(!p.input().fixed_snapshot().pressed("jump"));
    assert_eq!(p.input().fixed_snapshot().held_ms("jump"), 0.0);
    // The outer-frame side keeps its snapshot: the key is still down for Update.
    assert!(p.input().frame_snapshot().pressed("jump"));
}

#[test]
fn device_sources_and_action_maps_keep_their_outer_frame_snapshot_for_update() {
    let log = new_log();
    let mut p = session(&log);
    p.push_input(InputEvent::press(InputSource::GamepadButton(
        "South".into(),
    )));
    frame(&mut p, 0);
    frame(&mut p, 1);
    p.push_input(InputEvent::release(InputSource::GamepadButton(
        "South".into(),
    )));
    frame(&mut p, 4);
    let events = take(&log);
    let updates = seen(&events, HookKind::Update);
    assert_eq!(
        updates,
        vec![
            (1, vec!["jump+".to_string()]),
            (2, vec![]),
            (3, vec!["jump-".to_string()]),
        ]
    );
    assert_eq!(
        fixed_edges(&events),
        vec![
            (1, vec!["jump+".to_string()]),
            (2, vec!["jump-".to_string()])
        ]
    );
}
