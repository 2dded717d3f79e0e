//! The time cursor every panel follows (kittest, headless): a click on a
//! frame shows that tick everywhere exactly as a headless run has it, the
//! arrow keys move it a frame or a tick, and Resume from here restores the
//! tick and continues bit for bit.

use std::collections::BTreeMap;
use stepframe_app::editor::protocol::Run;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use stepframe_app::editor::timeline::{LaneId, XAxis};
use stepframe_app::editor::{Command, Editor};

use crate::support::editor::{
    click, clock_field, clock_tick, demo, editor, headless_at, label_starting, parse_pose,
    same_bits, status,
};
use crate::support::labels_starting;
use crate::{frames, lane_rect, timeline};

/// The viewed-tick banner's text.
fn banner(h: &Harness<'_, Editor>) -> String {
    let found: Vec<String> = labels_starting(h, "viewing tick ")
        .into_iter()
        .filter(|l| l.contains("Esc: back to live"))
        .collect();
    assert_eq!(found.len(), 1, "one banner: {found:?}");
    found[0].clone()
}

/// Clicks the timeline's dt lane at `fraction` of its width and returns the
/// tick the banner says every panel now shows.
fn click_lane_at(h: &mut Harness<'_, Editor>, fraction: f32) -> u64 {
    let r = lane_rect(h, LaneId::Dt);
    let p = egui::pos2(r.left() + r.width() * fraction, r.center().y);
    h.hover_at(p);
    h.run_steps(1);
    h.event(egui::Event::PointerButton {
        pos: p,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    h.run_steps(1);
    h.event(egui::Event::PointerButton {
        pos: p,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    h.run_steps(4);
    let banner = banner(h);
    banner["viewing tick ".len()..]
        .split(' ')
        .next()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{banner}"))
}

#[test]
fn clicking_a_frame_shows_that_tick_in_every_panel_exactly_as_a_headless_run_has_it() {
    let mut h = editor();
    click(&mut h, "Player");
    h.run_steps(80);
    let live = clock_tick(&h);
    let t = click_lane_at(&mut h, 0.4);
    assert!(t > 0 && t < live, "viewing tick {t}, live {live}");
    let banner = banner(&h);
    assert!(
        banner.contains("Esc: back to live") && banner.contains("Enter: resume from here"),
        "{banner}"
    );
    let live_now = h
        .state()
        .published()
        .live
        .as_ref()
        .map(|v| v.world.clock.simulation_tick);
    assert!(
        banner.contains(&format!("live is at tick {}", live_now.unwrap_or(0))),
        "{banner}"
    );
    assert!(
        status(&h).starts_with(&format!("viewing tick {t} (frame ")),
        "{}",
        status(&h)
    );

    // The clock panel: that tick's fields, as a headless run has them at the
    // end of tick t.
    let headless = headless_at(&demo(), t);
    let c = headless.clock();
    assert_eq!(clock_tick(&h), t);
    assert_eq!(
        clock_field(&h, "frame_index", "frames"),
        c.frame_index.to_string()
    );
    assert_eq!(
        clock_field(&h, "simulation_time", "s"),
        format!("{:.6}", c.simulation_time)
    );
    assert_eq!(
        clock_field(&h, "frame_time", "s"),
        format!("{:.6}", c.frame_time)
    );
    assert_eq!(
        clock_field(&h, "accumulator", "ms"),
        format!("{:.3}", c.accumulator * 1000.0)
    );
    let alpha = c.accumulator / c.fixed_delta_time;
    assert_eq!(
        clock_field(&h, "interpolation_alpha", "(of a tick)"),
        format!("{alpha:.4}"),
        "suspended, alpha is the accumulator over the fixed dt"
    );
    // The inspector: committed and previous pose and velocity at t, exactly.
    let id = headless
        .world()
        .objects()
        .find(|o| o.name == "Player")
        .map(|o| o.id)
        .expect("the player");
    let body = headless
        .world()
        .get(id)
        .and_then(|o| o.body.as_ref())
        .expect("a body");
    let shown = parse_pose(&label_starting(&h, "committed pose: "));
    assert!(
        same_bits(shown, body.committed),
        "{shown:?} vs {:?}",
        body.committed
    );
    let prev = parse_pose(&label_starting(&h, "previous pose: "));
    assert!(
        same_bits(prev, body.previous),
        "{prev:?} vs {:?}",
        body.previous
    );
    let v = label_starting(&h, "velocity: ");
    assert_eq!(
        v,
        format!(
            "velocity: ({:?}, {:?}) m/s, {:?} rad/s",
            body.velocity.linear.x, body.velocity.linear.y, body.velocity.angular
        )
    );
    assert!(!labels_starting(&h, &format!("at the end of tick {t} (viewing the past)")).is_empty());
    // The hierarchy lists the objects alive at t.
    let alive = headless.world().objects().count();
    assert_eq!(
        labels_starting(&h, &format!("{alive} objects alive at tick {t}")).len(),
        1
    );

    // Esc: every panel back to live, and the session the click paused plays
    // again, from where it waited.
    h.key_press(egui::Key::Escape);
    h.run_steps(3);
    assert!(
        labels_starting(&h, "viewing tick ").is_empty(),
        "banner and status are live"
    );
    assert_eq!(status(&h), "running");
    assert!(
        Some(clock_tick(&h)) > live_now,
        "it plays on from {live_now:?}"
    );
    // A session paused before the click stays paused after Esc.
    click(&mut h, "⏸ Pause");
    let paused_at = clock_tick(&h);
    click_lane_at(&mut h, 0.4);
    h.key_press(egui::Key::Escape);
    h.run_steps(3);
    assert_eq!(clock_tick(&h), paused_at);
    assert!(
        status(&h).starts_with("suspended at tick "),
        "{}",
        status(&h)
    );

    // Viewing again, then Play: the live session moves on and the panels
    // follow it (no stale read-out of the old cursor).
    let t2 = click_lane_at(&mut h, 0.3);
    assert_eq!(clock_tick(&h), t2);
    click(&mut h, "▶ Play");
    h.run_steps(3);
    assert!(labels_starting(&h, "viewing tick ").is_empty());
    assert_eq!(status(&h), "running");
    assert!(clock_tick(&h) > live_now.unwrap_or(0));
}

#[test]
fn arrow_keys_move_the_cursor_one_frame_or_one_tick() {
    let mut h = editor();
    h.run_steps(60);
    let t = click_lane_at(&mut h, 0.5);
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(3);
    assert_eq!(
        clock_tick(&h),
        t + 1,
        "one frame of one tick on the frame axis"
    );
    h.key_press(egui::Key::ArrowLeft);
    h.key_press(egui::Key::ArrowLeft);
    h.run_steps(3);
    assert_eq!(clock_tick(&h), t - 1);
    // The tick axis, picked in the tab bar; Ctrl+T gives the lanes the
    // keyboard back.
    let axis_box = h.get_by_value("x: frames").rect();
    h.hover_at(axis_box.center());
    h.run_steps(1);
    crate::support::editor::press_release(&mut h, axis_box.center());
    h.run_steps(2);
    // "ticks" in the list the box opened (the nearest of the labels
    // "ticks" on screen).
    let option = h
        .get_all_by_label("ticks")
        .map(|n| n.rect())
        .min_by(|a, b| {
            let d = |r: &egui::Rect| r.center().distance(axis_box.center());
            d(a).total_cmp(&d(b))
        })
        .expect("the option");
    crate::support::editor::press_release(&mut h, option.center());
    h.run_steps(2);
    assert_eq!(timeline(&h).axis(), XAxis::Tick);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::T);
    h.run_steps(2);
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(3);
    assert_eq!(clock_tick(&h), t, "one tick on the tick axis");
}

/// Tick → state hash of every live view published while running.
fn hashes(h: &mut Harness<'static, Editor>, steps: usize, out: &mut BTreeMap<u64, u64>) {
    for _ in 0..steps {
        h.step();
        if let Some(v) = h.state().published().live.as_ref().map(|l| &l.world)
            && v.clock.simulation_tick > 0
        {
            out.insert(v.clock.simulation_tick, v.state_hash);
        }
    }
}

#[test]
fn resume_from_here_restores_the_tick_and_continues_bit_identically() {
    let mut h = editor();
    let mut original = BTreeMap::new();
    hashes(&mut h, 200, &mut original);
    let t = click_lane_at(&mut h, 0.5);
    assert!(original.contains_key(&t));
    // Enter: resume from here.
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    let view = &h.state().published().live.as_ref().expect("a view").world;
    assert!(view.suspension.is_some(), "left suspended at the tick");
    assert_eq!(view.clock.simulation_tick, t);
    assert_eq!(view.state_hash, original[&t]);
    assert!(
        labels_starting(&h, "viewing tick ").is_empty(),
        "live again"
    );
    // The timeline dropped the abandoned branch.
    let last = frames(&h).newest().copied();
    assert_eq!(last.map(|r| r.simulation_tick), Some(t));
    // Play continues from t with the same (empty) input: same hashes.
    h.state_mut().send(Command::Run(Run::Play));
    let mut continued = BTreeMap::new();
    hashes(&mut h, 60, &mut continued);
    let compared: Vec<u64> = continued.keys().copied().filter(|k| *k > t).collect();
    assert!(
        compared.len() >= 50,
        "{} ticks after the rewind",
        compared.len()
    );
    for tick in compared {
        if let Some(h0) = original.get(&tick) {
            assert_eq!(continued[&tick], *h0, "tick {tick}");
        }
    }
}

/// Find previous (or a bookmark, or any panel) put the cursor on a tick far
/// outside the frames the lanes showed, and the lanes stayed where they
/// were: no cursor in sight. A cursor set from elsewhere is brought into
/// view; one set inside the view moves nothing.
#[test]
fn a_cursor_set_from_elsewhere_outside_the_view_is_brought_into_it() {
    let mut h = crate::support::editor::editor();
    h.run_steps(700);
    click(&mut h, "⏸ Pause");
    h.run_steps(2);
    assert!(
        timeline(&h).follow_live(),
        "following live: the last 600 frames"
    );
    h.state_mut()
        .act(stepframe_app::editor::Action::ViewTick(20));
    h.run_steps(3);
    let t = timeline(&h);
    let (lo, hi) = t.range().expect("a range");
    // One tick a frame here: tick 20 ran in frame 20.
    assert!((lo..=hi).contains(&20.0), "frame 20 in the view {lo}..{hi}");
    // A second cursor inside that view leaves it where it is.
    h.state_mut()
        .act(stepframe_app::editor::Action::ViewTick(25));
    h.run_steps(3);
    assert_eq!(timeline(&h).range(), Some((lo, hi)));
}
