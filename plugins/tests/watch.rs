//! Watch queries over committed state: a falling ball is below 0 first at the
//! tick worked out by hand, Find previous lands where a forward scan does, a
//! plot's history fill gives what the run committed, and `field` and
//! `.particles` read what the scenes author.

use std::path::Path;

use stepframe_core::{
    BodyDesc, BodyKind, History, ObjectDesc, ObjectId, Pipeline, Pose, RapierStage, Scene, Session,
    Shape, SuspendReason, TimeSettings, Vec2, World,
};
use stepframe_plugins::watch::{PlotSpan, find_previous, plot_history, plot_history_spans};
use stepframe_plugins::{WatchAction, WatchError, WatchEvent, WatchSet, WatchSpec};

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
    let forward = WatchSet::new(&[spec(expr, WatchAction::Mark)]).expect("compiles");
    let events = forward.events();
    let mut history = Session::new(falling_ball(), History::new(10, 10_000));
    history.set_tick_watch(Some(Box::new(forward)));
    for _ in 0..100 {
        history.step_frame(1.0 / 60.0, &[]);
    }
    history.set_tick_watch(None);
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
    let mut scratch = Pipeline::new(TimeSettings::default());
    for before in [100, 20, 18, 16, 14, 13, 11] {
        let found = find_previous(&history, &mut scratch, expr, before).expect("replays");
        let expected = held.iter().copied().filter(|&t| t < before).max();
        assert_eq!(found, expected, "before {before}");
    }
    assert_eq!(
        find_previous(&history, &mut scratch, "obj(20).y > 5.0", 100).expect("replays"),
        None
    );
}

#[test]
fn plot_history_gives_every_kept_tick_newest_span_first_as_the_run_had_it() {
    // A history with a keyframe every 10 frames over 35 one-tick frames:
    // spans 30..=35, 20..=29, 10..=19, 0..=9, then nothing older.
    let mut history = Session::new(falling_ball(), History::new(10, 10_000));
    let mut y_after = vec![1.0f32];
    for _ in 0..35 {
        history.step_frame(1.0 / 60.0, &[]);
        y_after.push(
            history
                .pipeline()
                .world()
                .physics_simulation_pose(ObjectId(20))
                .expect("a body")
                .y,
        );
    }
    let live = history.pipeline().stepper().completed_ticks();
    assert_eq!(live, 35);
    let exprs = vec!["obj(20).y".to_string(), "obj(20).vy".to_string()];
    let mut scratch = Pipeline::new(TimeSettings::default());
    let mut newest = live;
    let mut spans = Vec::new();
    while let Some(span) = plot_history(&history, &mut scratch, &exprs, newest).expect("replays") {
        assert_eq!(span.to, newest);
        spans.push((span.from, span.to));
        // Every tick of the span, in order, y as the run committed it.
        let ticks: Vec<u64> = span.values[0].iter().map(|v| v.0).collect();
        assert_eq!(ticks, (span.from..=span.to).collect::<Vec<u64>>());
        for &(tick, frame, y) in &span.values[0] {
            assert_eq!(frame, tick, "one tick per frame");
            assert_eq!(y, f64::from(y_after[tick as usize]), "y at tick {tick}");
        }
        // vy = -m/6 after m ticks (symplectic Euler at G = 10).
        for &(tick, _, vy) in &span.values[1] {
            assert!((vy + tick as f64 / 6.0).abs() < 1e-4, "vy {vy} at {tick}");
        }
        if span.from == 0 {
            break;
        }
        newest = span.from - 1;
    }
    assert_eq!(spans, vec![(30, 35), (20, 29), (10, 19), (0, 9)]);
}

#[test]
fn spans_replayed_at_once_give_the_values_one_span_at_a_time_gives() {
    // The same 35 one-tick frames with a keyframe every 10; the demo's
    // player for a world with behaviours, contacts and a script.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes");
    let registry = stepframe_plugins::registry_for(&stepframe_plugins::ScriptHost::new(), &dir);
    let scene = Scene::load(&dir.join("demo.ron"), &registry).expect("demo loads");
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, &registry).expect("it instantiates");
    let mut history = Session::new(p, History::new(10, 10_000));
    let y = |h: &Session| {
        f64::from(
            h.pipeline()
                .world()
                .physics_simulation_pose(ObjectId(20))
                .expect("the player")
                .y,
        )
    };
    let mut y_after = vec![y(&history)];
    for _ in 0..35 {
        history.step_frame(1.0 / 60.0, &[]);
        y_after.push(y(&history));
    }
    let exprs = vec![
        "obj(20).y".to_string(),
        "obj(60).x".to_string(),
        "field(60, \"Script.vars.x\")".to_string(),
    ];
    let mut one = Pipeline::new(TimeSettings::default());
    let mut singly = Vec::new();
    let mut newest = 35;
    while let Some(span) = plot_history(&history, &mut one, &exprs, newest).expect("replays") {
        let from = span.from;
        singly.push(span);
        if from == 0 {
            break;
        }
        newest = from - 1;
    }
    let mut scratches: Vec<Pipeline> = (0..3)
        .map(|_| Pipeline::new(TimeSettings::default()))
        .collect();
    let first = plot_history_spans(&history, &mut scratches, &exprs, 35, 1).expect("replays");
    assert_eq!(
        first.iter().map(|s| (s.from, s.to)).collect::<Vec<_>>(),
        vec![(30, 35), (20, 29), (10, 19)]
    );
    let rest = plot_history_spans(&history, &mut scratches, &exprs, 9, 1).expect("replays");
    assert_eq!(
        rest.iter().map(|s| (s.from, s.to)).collect::<Vec<_>>(),
        vec![(0, 9)],
        "fewer spans where the history ends"
    );
    let at_once: Vec<PlotSpan> = first.into_iter().chain(rest).collect();
    assert_eq!(at_once, singly);
    // And both as the run committed them.
    for span in &at_once {
        for &(tick, _, v) in &span.values[0] {
            assert_eq!(
                v.to_bits(),
                y_after[tick as usize].to_bits(),
                "y at tick {tick}"
            );
        }
    }
    assert!(
        at_once
            .iter()
            .all(|s| s.values.iter().all(|v| !v.is_empty())),
        "every expression has values in every span"
    );
    // Runs of two spans, each replayed from its oldest keyframe in one go:
    // the same values, tick by tick, as the spans one at a time.
    let mut two = Vec::new();
    let mut newest = 35;
    loop {
        let runs =
            plot_history_spans(&history, &mut scratches[..2], &exprs, newest, 2).expect("replays");
        let Some(oldest) = runs.last().map(|r| r.from) else {
            break;
        };
        two.extend(runs);
        if oldest == 0 {
            break;
        }
        newest = oldest - 1;
    }
    assert_eq!(
        two.iter().map(|s| (s.from, s.to)).collect::<Vec<_>>(),
        vec![(20, 35), (0, 19)],
        "two spans a run, two runs at once"
    );
    let by_tick = |spans: &[PlotSpan]| {
        let mut v: Vec<Vec<(u64, u64, u64)>> = vec![Vec::new(); exprs.len()];
        for span in spans {
            for (e, values) in span.values.iter().enumerate() {
                v[e].extend(values.iter().map(|&(t, f, x)| (t, f, x.to_bits())));
            }
        }
        v.iter_mut().for_each(|v| v.sort_unstable());
        v
    };
    assert_eq!(by_tick(&two), by_tick(&at_once));
}

#[test]
fn field_reads_a_behaviour_field_by_its_path_and_particles_count_a_soft_body() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes");
    let registry = stepframe_plugins::registry_for(&stepframe_plugins::ScriptHost::new(), &dir);
    let scene = Scene::load(&dir.join("demo.ron"), &registry).expect("demo loads");
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, &registry).expect("it instantiates");
    let set = WatchSet::new(&[
        // demo.ron: the player's `jump_impulse: 6.5`; the guard (60)
        // patrols at `speed: 1.5`, its script keeps `x`.
        spec(
            "field(20, \"PlayerController.jump_impulse\")",
            WatchAction::Plot,
        ),
        spec("field(60, \"Script.vars.x\")", WatchAction::Plot),
        spec(
            "field(60, \"Script.vars.speed\") * 2.0 + field(20, \"PlayerController.jump_impulse\")",
            WatchAction::Plot,
        ),
        spec("field(20, \"PlayerController.nothing\")", WatchAction::Plot),
    ])
    .expect("compiles");
    let events = set.events();
    p.set_tick_watch(Some(Box::new(set)));
    let mut xs = Vec::new();
    for _ in 0..3 {
        p.step_frame(1.0 / 60.0);
        match p.behaviour_field(ObjectId(60), "Script.vars.x") {
            Some(stepframe_core::FieldValue::F64(x)) => xs.push(x),
            other => panic!("x: {other:?}"),
        }
    }
    let events = events.lock().expect("not poisoned");
    let values = |watch: usize| -> Vec<f64> {
        events
            .iter()
            .filter_map(|e| match e {
                WatchEvent::Value {
                    watch: w, value, ..
                } if *w == watch => Some(*value),
                _ => None,
            })
            .collect()
    };
    assert_eq!(values(0), vec![f64::from(6.5f32); 3]);
    assert_eq!(values(1), xs);
    assert_eq!(values(2), vec![1.5 * 2.0 + f64::from(6.5f32); 3]);
    assert!(values(3).is_empty());
    let failures: Vec<&WatchEvent> = events
        .iter()
        .filter(|e| matches!(e, WatchEvent::Failed { .. }))
        .collect();
    assert_eq!(failures.len(), 1, "reported once: {failures:?}");
    assert!(
        matches!(failures[0], WatchEvent::Failed { watch: 3, message, .. }
            if message.contains("PlayerController.nothing")),
        "{failures:?}"
    );

    // soft.ron's bridge (4) is a rope of 17 particles; its ground (1) is rigid.
    let scene = Scene::load(&dir.join("soft.ron"), &registry).expect("soft loads");
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, &registry).expect("it instantiates");
    p.step_frame(1.0 / 60.0);
    let mut set = WatchSet::new(&[
        spec("obj(4).particles", WatchAction::Plot),
        spec("obj(4).pieces", WatchAction::Plot),
        spec("obj(1).particles", WatchAction::Plot),
    ])
    .expect("compiles");
    assert_eq!(set.value(0, &p), Ok(17.0));
    assert_eq!(set.value(1, &p), Ok(1.0));
    assert!(
        matches!(set.value(2, &p), Err(WatchError::NotABool { .. })),
        "a rigid body has no particle count"
    );
}

/// A ball at y = 1 m over a fixed box whose top is at y = 0, and a second
/// ball beside it, so a contact comes and the two balls differ.
fn ball_over_ground() -> Pipeline {
    let mut w = World::new();
    w.spawn(
        ObjectDesc::new("ground", Pose::new(0.0, -0.5, 0.0))
            .with_id(ObjectId(1))
            .with_body(BodyDesc::with_kind(
                BodyKind::Fixed,
                Shape::Cuboid { hx: 5.0, hy: 0.5 },
            )),
    );
    for (id, x, y) in [(20, 0.0, 1.0), (21, 3.0, 2.0)] {
        w.spawn(
            ObjectDesc::new("ball", Pose::new(x, y, 0.0))
                .with_id(ObjectId(id))
                .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.25 })),
        );
    }
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(w, Box::new(RapierStage::new(Vec2::new(0.0, -G))), 1);
    p
}

#[test]
fn obj_and_contact_read_the_committed_state_of_every_tick_whatever_was_read_before() {
    // A watch set copies only what its expressions read before; this one
    // starts reading a contact and two more objects at once, late, and a
    // missing object throughout. Each value is checked against the world
    // and the engine's touching pairs read directly after the same tick.
    let mut p = ball_over_ground();
    let set = WatchSet::new(&[
        spec("obj(20).y", WatchAction::Plot),
        spec(
            "if tick < 40 { 0.0 } else if contact(1, 20) { obj(21).y - obj(1).y } else { -1.0 }",
            WatchAction::Plot,
        ),
        spec("obj(99).y", WatchAction::Plot),
    ])
    .expect("compiles");
    let events = set.events();
    p.set_tick_watch(Some(Box::new(set)));
    let mut landed = None;
    for _ in 0..90 {
        p.step_frame(1.0 / 60.0);
        let tick = p.clock().simulation_tick;
        let pose = |id| {
            p.world()
                .physics_simulation_pose(ObjectId(id))
                .expect("a body")
        };
        let mut pairs = Vec::new();
        p.physics().touching_pairs(&mut pairs);
        let touching = pairs.contains(&(ObjectId(1), ObjectId(20)));
        if touching && landed.is_none() {
            landed = Some(tick);
        }
        let mut events = events.lock().expect("not poisoned");
        let values: Vec<(usize, f64)> = events
            .drain(..)
            .filter_map(|e| match e {
                WatchEvent::Value { watch, value, .. } => Some((watch, value)),
                _ => None,
            })
            .collect();
        let second = if tick < 40 {
            0.0
        } else if touching {
            f64::from(pose(21).y) - f64::from(pose(1).y)
        } else {
            -1.0
        };
        assert_eq!(
            values,
            vec![(0, f64::from(pose(20).y)), (1, second)],
            "tick {tick}"
        );
    }
    let landed = landed.expect("the ball lands within 1.5 s");
    assert!(
        landed > 20 && landed < 90,
        "a fall of 0.75 m takes ~23 ticks: {landed}"
    );
}
