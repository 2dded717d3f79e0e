//! Plot any field. A click on an inspector plot button
//! adds a lane to the timeline, titled after the object and the field; the
//! lane is filled from the rewind history back to the ticks already played,
//! then follows live; its 🗙 removes it; a restart on the stored layout brings
//! it back. Every value a lane shows is checked against a headless pipeline
//! run of the same scene (frames of 1/60 s, one tick each, as the driven
//! editor runs them), read straight from the world or the behaviour, or
//! against a number written in the scene file.

use std::collections::BTreeMap;
use std::path::Path;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use stepframe_app::editor::timeline::FillProgress;
use stepframe_app::editor::{Editor, Pane};
use stepframe_core::{FieldValue, ObjectId, Pipeline};

use crate::support::editor::{
    DEFAULT_SIZE, DT, click, click_shown, demo, editor, editor_sized, headless_at, live_tick, show,
    step_until, type_into,
};
use crate::support::storage::{editor_with_storage, save};

/// The demo's player and its patrolling guard.
const PLAYER: ObjectId = ObjectId(20);
const GUARD: ObjectId = ObjectId(60);

/// The value of `read` after every tick 0..=`ticks` of a headless run of
/// `scene`: index = tick.
fn headless_series(scene: &Path, ticks: u64, read: impl Fn(&Pipeline) -> f64) -> Vec<f64> {
    let mut p = headless_at(scene, 0);
    let mut out = vec![read(&p)];
    while p.clock().simulation_tick < ticks {
        let report = p.step_frame(DT);
        assert_eq!(report.ticks, 1, "one tick per 1/60 s frame");
        out.push(read(&p));
    }
    out
}

/// A behaviour field of a headless pipeline as a number.
fn field(p: &Pipeline, id: ObjectId, path: &str) -> f64 {
    match p.behaviour_field(id, path) {
        Some(FieldValue::F32(v)) => f64::from(v),
        Some(FieldValue::F64(v)) => v,
        other => panic!("{path} of {id}: {other:?}"),
    }
}

/// The lane of `expr`: its values by tick and its fill's progress.
fn lane_by_tick(h: &Harness<'_, Editor>, expr: &str) -> (BTreeMap<u64, f64>, FillProgress) {
    let lanes = h.state().timeline().watch_lanes();
    let values = lanes
        .values_of(expr)
        .unwrap_or_else(|| panic!("no values for {expr}"))
        .iter()
        .copied()
        .collect();
    let fill = lanes
        .fill_of(expr)
        .unwrap_or_else(|| panic!("no fill for {expr}"));
    (values, fill)
}

/// Waits until the history fill of `expr` is done.
fn fill_done(h: &mut Harness<'_, Editor>, expr: &str) {
    step_until(h, 100, "the lane was filled from the history", |h| {
        h.state()
            .timeline()
            .watch_lanes()
            .fill_of(expr)
            .is_some_and(|f| f.done)
    });
}

/// Every tick from 1 to `to` has a value in `lane`, equal to `want[tick]`.
fn assert_lane(lane: &BTreeMap<u64, f64>, to: u64, want: &[f64], what: &str) {
    for tick in 1..=to {
        let got = lane
            .get(&tick)
            .unwrap_or_else(|| panic!("{what}: no value at tick {tick}"));
        assert_eq!(
            got.to_bits(),
            want[tick as usize].to_bits(),
            "{what} at tick {tick}: lane {got}, headless {}",
            want[tick as usize]
        );
    }
}

/// Plays `frames` frames, pauses (so the inspector's rows stand still under
/// the pointer), selects `object` in the hierarchy and brings the Inspector
/// to the front.
fn inspect_after(h: &mut Harness<'_, Editor>, frames: usize, object: &str) {
    h.run_steps(frames);
    click(h, "⏸ Pause");
    click(h, object);
    show(h, Pane::Inspector);
}

#[test]
fn plotting_a_bodys_y_adds_a_lane_filled_from_the_history_with_its_committed_y() {
    let mut h = editor();
    inspect_after(&mut h, 150, "Player");
    assert!(
        h.query_by_label("lane Player #20 · y (m)").is_none(),
        "no lane before the click"
    );
    click(&mut h, "plot y");
    let added_at = live_tick(&h);
    h.get_by_label("lane Player #20 · y (m)");
    fill_done(&mut h, "obj(20).y");
    // Then live: the ticks after the one it was added at.
    click(&mut h, "▶ Play");
    h.run_steps(20);
    click(&mut h, "⏸ Pause");
    let now = live_tick(&h);
    assert!(now >= added_at + 20, "{now} after {added_at}");
    let (lane, fill) = lane_by_tick(&h, "obj(20).y");
    // Filled back to the session's start (the history keeps every tick of
    // a short run), up to the tick it was added at; later ticks came live.
    assert_eq!(fill.from_tick, 0);
    assert_eq!(fill.to_tick, added_at);
    assert!(added_at >= 150, "{added_at}");
    let want = headless_series(&demo(), now, |p| {
        f64::from(p.world().physics_simulation_pose(PLAYER).expect("a pose").y)
    });
    assert_lane(&lane, now, &want, "Player y");
    // The session's list has it as the "show value" watch it is, and the
    // Watches tab lists that one list.
    let specs = live_watches(&h);
    assert_eq!(specs.len(), 1);
    assert_eq!(specs[0].expr, "obj(20).y");
    assert_eq!(specs[0].action, stepframe_plugins::WatchAction::Plot);
    let shown = |h: &egui_kittest::Harness<'_, _>| h.query_all_by_label("obj(20).y").count();
    let before = shown(&h);
    crate::support::editor::show(&mut h, stepframe_app::editor::Pane::Watches);
    h.run_steps(2);
    assert_eq!(
        shown(&h),
        before + 1,
        "the Watches tab lists the plotted watch once"
    );

    // Its 🗙 removes it: lane and watch.
    click_shown(&mut h, "remove lane Player #20 · y (m)");
    h.run_steps(2);
    assert!(h.query_by_label("lane Player #20 · y (m)").is_none());
    assert!(live_watches(&h).is_empty());
}

/// The session's watch list, as the live view publishes it.
fn live_watches(
    h: &egui_kittest::Harness<'_, stepframe_app::editor::Editor>,
) -> Vec<stepframe_plugins::WatchSpec> {
    h.state()
        .published()
        .live
        .as_ref()
        .map(|l| l.watches.clone())
        .unwrap_or_default()
}

#[test]
fn a_plotted_field_comes_back_with_the_stored_layout() {
    let file = crate::support::scratch("plot-layout").join("storage.json");
    let mut h = editor_with_storage(demo(), &file);
    inspect_after(&mut h, 10, "Player");
    click(&mut h, "plot x");
    h.get_by_label("lane Player #20 · x (m)");
    save(&mut h, &file);
    drop(h);

    let mut h = editor_with_storage(demo(), &file);
    h.run_steps(30);
    h.get_by_label("lane Player #20 · x (m)");
    // The new session plays from tick 0: the lane follows it live.
    let now = live_tick(&h);
    let lane: BTreeMap<u64, f64> = h
        .state()
        .timeline()
        .watch_lanes()
        .values_of("obj(20).x")
        .expect("values")
        .iter()
        .copied()
        .collect();
    let want = headless_series(&demo(), now, |p| {
        f64::from(p.world().physics_simulation_pose(PLAYER).expect("a pose").x)
    });
    assert!(lane.len() >= 25, "{} values", lane.len());
    for (tick, v) in &lane {
        assert_eq!(
            v.to_bits(),
            want[*tick as usize].to_bits(),
            "tick {tick}: {v}"
        );
    }
}

#[test]
fn a_behaviour_parameter_and_a_script_variable_plot_by_their_paths() {
    let mut h = editor();
    inspect_after(&mut h, 90, "Player");
    click_shown(&mut h, "plot PlayerController.jump_impulse");
    let param = "field(20, \"PlayerController.jump_impulse\")";
    fill_done(&mut h, param);
    h.get_by_label("lane Player #20 · PlayerController.jump_impulse (N·s)");
    let now = live_tick(&h);
    let (lane, fill) = lane_by_tick(&h, param);
    assert_eq!(fill.from_tick, 0);
    // demo.ron: `jump_impulse: 6.5`, never edited.
    let want = vec![f64::from(6.5f32); now as usize + 1];
    assert_lane(&lane, now, &want, "jump_impulse");

    // The guard's patrol script keeps `x`, its place along the path. (The
    // hierarchy draws only the rows in view: filter for it.)
    type_into(&mut h, "Filter", "Guard");
    click(&mut h, "Guard");
    show(&mut h, Pane::Inspector);
    click_shown(&mut h, "plot Script.vars.x");
    let var = "field(60, \"Script.vars.x\")";
    fill_done(&mut h, var);
    h.get_by_label("lane Guard #60 · Script.vars.x");
    let now = live_tick(&h);
    let (lane, _) = lane_by_tick(&h, var);
    let want = headless_series(&demo(), now, |p| field(p, GUARD, "Script.vars.x"));
    assert_lane(&lane, now, &want, "Guard Script.vars.x");
    // It moves: the lane is not a flat line that would pass any check.
    assert_ne!(lane[&1], lane[&now]);
}

#[test]
fn a_soft_bodys_particle_count_plots_as_the_scene_authors_it() {
    let scene = crate::support::root().join("assets/scenes/soft.ron");
    let mut h = editor_sized(scene, DEFAULT_SIZE);
    inspect_after(&mut h, 60, "Bridge");
    click_shown(&mut h, "plot particles");
    fill_done(&mut h, "obj(4).particles");
    h.get_by_label("lane Bridge #4 · particles");
    let now = live_tick(&h);
    let (lane, fill) = lane_by_tick(&h, "obj(4).particles");
    assert_eq!(fill.from_tick, 0);
    // soft.ron: the bridge is `Rope(to: (x: 4.0, y: 0.0), particles: 17)`.
    assert_lane(
        &lane,
        now,
        &vec![17.0; now as usize + 1],
        "Bridge particles",
    );
}

/// Ticks stepped with F10 run inside one outer frame (the frame index does
/// not move). A lane kept one value a frame, so twelve stepped ticks were
/// one point: the lane drew a straight line over what the player did in
/// them. It keeps one value a tick.
#[test]
fn every_tick_stepped_with_f10_has_its_own_value_in_a_plotted_lane() {
    let mut h = editor();
    inspect_after(&mut h, 60, "Player");
    click(&mut h, "plot y");
    fill_done(&mut h, "obj(20).y");
    let from = live_tick(&h);
    for _ in 0..12 {
        h.key_press(egui::Key::F10);
        h.run_steps(2);
    }
    let to = live_tick(&h);
    assert_eq!(to, from + 12, "twelve ticks stepped");
    let (lane, _) = lane_by_tick(&h, "obj(20).y");
    let want = headless_series(&demo(), to, |p| {
        f64::from(p.world().physics_simulation_pose(PLAYER).expect("a pose").y)
    });
    for tick in from + 1..=to {
        let got = lane
            .get(&tick)
            .unwrap_or_else(|| panic!("no value at stepped tick {tick}: {lane:?}"));
        assert_eq!(got.to_bits(), want[tick as usize].to_bits(), "tick {tick}");
    }
}

#[test]
fn a_field_plotted_while_the_session_plays_has_a_value_at_every_tick() {
    let mut h = editor();
    h.run_steps(60);
    // What a plot button sends, while the session plays: the watch joins
    // between two frames, and the next frame's tick is its first live
    // value (it used to reach the editor ahead of the view that lists the
    // watch, and the lane had a gap there).
    let expr = "obj(20).y";
    h.state_mut().send(stepframe_app::editor::Command::Watches(
        stepframe_app::editor::protocol::WatchCommand::Plot(expr.to_string()),
    ));
    h.run_steps(30);
    fill_done(&mut h, expr);
    click(&mut h, "⏸ Pause");
    let now = live_tick(&h);
    let (lane, fill) = lane_by_tick(&h, expr);
    assert_eq!(fill.from_tick, 0);
    assert!(
        fill.to_tick > 0 && fill.to_tick + 20 < now,
        "{fill:?}, live {now}"
    );
    let want = headless_series(&demo(), now, |p| {
        f64::from(p.world().physics_simulation_pose(PLAYER).expect("a pose").y)
    });
    assert_lane(&lane, now, &want, "Player y");
}

#[test]
fn a_lane_keeps_its_values_and_takes_every_new_one_when_the_watch_above_it_goes() {
    // The lanes read the host's list: after watch #1 (y) goes, x is watch
    // #1 and its values, numbered so from then on, are still x's.
    let mut h = editor();
    for expr in ["obj(20).y", "obj(20).x"] {
        h.state_mut().send(stepframe_app::editor::Command::Watches(
            stepframe_app::editor::protocol::WatchCommand::Plot(expr.to_string()),
        ));
    }
    h.run_steps(40);
    h.state_mut().send(stepframe_app::editor::Command::Watches(
        stepframe_app::editor::protocol::WatchCommand::Unplot("obj(20).y".to_string()),
    ));
    h.run_steps(40);
    click(&mut h, "⏸ Pause");
    let now = live_tick(&h);
    assert!(now >= 70, "{now}");
    let specs = live_watches(&h);
    assert_eq!(specs.len(), 1);
    assert_eq!(specs[0].expr, "obj(20).x");
    let lanes = h.state().timeline().watch_lanes();
    assert!(lanes.values_of("obj(20).y").is_none(), "y's lane went");
    assert!(h.query_by_label("lane Player #20 · y (m)").is_none());
    h.get_by_label("lane Player #20 · x (m)");
    let lane: BTreeMap<u64, f64> = lanes
        .values_of("obj(20).x")
        .expect("x's values")
        .iter()
        .copied()
        .collect();
    let want = headless_series(&demo(), now, |p| {
        f64::from(p.world().physics_simulation_pose(PLAYER).expect("a pose").x)
    });
    // Every tick the session played is x's, before and after the removal
    // (a tick with a value from the history fill or live alike).
    let first = *lane.keys().next().expect("a value");
    assert!(first <= 2, "from the session's start: {first}");
    assert_lane(&lane, now, &want, "Player x");
}

#[test]
fn a_lane_of_an_object_the_session_does_not_hold_says_so() {
    // A plotted field of another scene's object (watches outlive a scene)
    // draws an empty lane: its label column says why.
    let scene = crate::support::scratch("plot-no-object").join("ball.ron");
    std::fs::write(
        &scene,
        "(\n    objects: [\n        (id: 2, name: \"Ball\", transform: (x: 0.0, y: 4.0), body: (shapes: [Circle(radius: 0.5)])),\n    ],\n)\n",
    )
    .expect("write the scene");
    let mut h = editor_sized(scene, DEFAULT_SIZE);
    for expr in ["obj(20).y", "obj(2).y"] {
        h.state_mut().send(stepframe_app::editor::Command::Watches(
            stepframe_app::editor::protocol::WatchCommand::Plot(expr.to_string()),
        ));
    }
    h.run_steps(20);
    let said = |h: &Harness<'_, Editor>, what: &str| {
        h.query_all_by(|n| {
            n.value()
                .or_else(|| n.label())
                .is_some_and(|t| t.contains(what))
        })
        .count()
    };
    assert!(
        said(&h, "no object #20 in the session now") > 0,
        "the lane says why"
    );
    assert_eq!(said(&h, "no object #2 in"), 0, "the ball is there");
    assert!(
        h.state()
            .timeline()
            .watch_lanes()
            .values_of("obj(20).y")
            .is_none_or(|v| v.is_empty()),
        "no value for a missing object"
    );
}
