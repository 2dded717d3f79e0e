//! Watch queries over committed state: a falling ball is below 0 first at the
//! tick worked out by hand, and Find previous lands where a forward scan does.

use stepframe_core::{
    BodyDesc, History, ObjectDesc, ObjectId, Pipeline, Pose, RapierStage, Shape, SuspendReason,
    TimeSettings, Vec2, World,
};
use stepframe_plugins::{WatchAction, WatchEvent, WatchSet, WatchSpec, watch::find_previous};

/// Gravity, m/s² (a round number, so the hand arithmetic below is exact).
const G: f32 = 10.0;

/// A ball at y = 1 m over nothing, at 60 Hz with one substep.
fn falling_ball() -> Pipeline {
    let mut w = World::new();
    w.spawn(
        ObjectDesc::new("ball", Pose::new(0.0, 1.0, 0.0))
            .with_id(ObjectId(20))
            .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.25 })),
    );
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(w, Box::new(RapierStage::new(Vec2::new(0.0, -G))), 1);
    p
}

fn spec(expr: &str, action: WatchAction) -> WatchSpec {
    WatchSpec {
        expr: expr.to_string(),
        action,
        enabled: true,
    }
}

#[test]
fn a_break_watch_on_a_falling_ball_stops_at_the_tick_gravity_gives() {
    // Symplectic Euler: after m ticks of h = 1/60 s, y = 1 - G h² m(m+1)/2,
    // below 0 once m(m+1) > 2·3600/10 = 720: m = 26 gives 702, m = 27 gives 756.
    let mut p = falling_ball();
    let set = WatchSet::new(&[spec("obj(20).y < 0", WatchAction::Break)]).expect("compiles");
    p.set_tick_watch(Some(Box::new(set)));
    let mut stopped = None;
    for _ in 0..60 {
        if let Some(s) = p.step_frame(1.0 / 60.0).suspended {
            stopped = Some(s);
            break;
        }
    }
    let s = stopped.expect("the watch stops the run");
    assert_eq!(s.tick, 27);
    assert!(
        s.end_of_tick,
        "at the end of the tick, with committed state"
    );
    assert!(matches!(&s.reason, SuspendReason::Watch(r) if r.contains("obj(20).y < 0")));
    let y = p
        .world()
        .physics_simulation_pose(ObjectId(20))
        .expect("a body")
        .y;
    assert!(y < 0.0, "{y}");
}

#[test]
fn a_plot_watch_records_its_value_every_tick_and_a_failing_one_reports_once() {
    let mut p = falling_ball();
    let set = WatchSet::new(&[
        spec("obj(20).vy", WatchAction::Plot),
        spec("obj(99).y < 0", WatchAction::Mark),
    ])
    .expect("compiles");
    let events = set.events();
    p.set_tick_watch(Some(Box::new(set)));
    for _ in 0..3 {
        p.step_frame(1.0 / 60.0);
    }
    let events = events.lock().expect("not poisoned");
    let values: Vec<f64> = events
        .iter()
        .filter_map(|e| match e {
            WatchEvent::Value { value, .. } => Some(*value),
            _ => None,
        })
        .collect();
    // v after m ticks is -G·m/60 (computed in f32 by rapier).
    assert_eq!(values.len(), 3);
    for (m, v) in values.iter().enumerate() {
        let expected = -G * (m as f32 + 1.0) / 60.0;
        assert!((*v as f32 - expected).abs() < 1e-5, "tick {}: {v}", m + 1);
    }
    let failures = events
        .iter()
        .filter(|e| matches!(e, WatchEvent::Failed { message, .. } if message.contains("obj(99)")))
        .count();
    assert_eq!(failures, 1, "{events:#?}");
}

#[test]
fn an_expression_that_does_not_parse_is_refused_with_its_position() {
    let err = WatchSet::new(&[spec("obj(20).y <", WatchAction::Break)])
        .expect_err("bad")
        .to_string();
    assert!(err.starts_with("watch 1: `obj(20).y <`"), "{err}");
    assert!(err.contains("(at 1:"), "{err}");
}

#[test]
fn find_previous_lands_on_the_tick_a_forward_scan_finds() {
    // A condition that holds on a run of ticks: vy between -2.95 and -2.05
    // m/s, and v = -m/6 after m ticks, so m = 13..=17 (12/6 and 18/6 are
    // well outside). Then look back through a history with a keyframe every
    // 10 frames, from inside the run, at its edges and past it.
    let expr = "obj(20).vy < -2.05 && obj(20).vy > -2.95";
    let mut p = falling_ball();
    let forward = WatchSet::new(&[spec(expr, WatchAction::Mark)]).expect("compiles");
    let events = forward.events();
    let mut history = History::new(10, 10_000);
    p.set_tick_watch(Some(Box::new(forward)));
    for _ in 0..100 {
        history.step_frame(&mut p, 1.0 / 60.0, &[]);
    }
    p.set_tick_watch(None);
    let held: Vec<u64> = events
        .lock()
        .expect("not poisoned")
        .iter()
        .filter_map(|e| match e {
            WatchEvent::Held { tick, .. } => Some(*tick),
            _ => None,
        })
        .collect();
    assert_eq!(held, (13..=17).collect::<Vec<u64>>(), "by hand: v = -m/6");
    let live = p.stepper().completed_ticks();
    let mut scratch = Pipeline::new(TimeSettings::default());
    for before in [100, 20, 18, 16, 14, 13, 11] {
        let found = find_previous(&history, &mut scratch, live, expr, before).expect("replays");
        let expected = held.iter().copied().filter(|&t| t < before).max();
        assert_eq!(found, expected, "before {before}");
    }
    assert_eq!(
        find_previous(&history, &mut scratch, live, "obj(20).y > 5.0", 100).expect("replays"),
        None
    );
}
