//! The Flame tab. A click on a frame of the timeline
//! pauses there; the Flame tab then shows that frame's live zones (Update,
//! the tick the frame ran, FixedUpdate by priority, physics) with their
//! milliseconds on hover, and the same frame replayed from the history
//! with a zone per hook call, labelled replayed and naming the demo's
//! behaviours. Expected names come from demo.ron (the Player, id 20, runs
//! PlayerController at priority Early = -100); expected times from the
//! timeline's own record of the frame (the phase timings the pipeline
//! reported, which the zones must agree with).

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use stepframe_app::editor::timeline::LaneId;
use stepframe_app::editor::{Editor, Pane};

use crate::support::editor::{editor, label_starting, press_release, show, step_until};
use crate::support::labels_starting;

/// Clicks the timeline's dt lane at `fraction` of its width; returns the
/// tick the cursor is on then.
fn click_frame_at(h: &mut Harness<'_, Editor>, fraction: f32) -> u64 {
    let r = h
        .get_by_label(&format!("lane {}", LaneId::Dt.title()))
        .rect();
    let p = egui::pos2(r.left() + r.width() * fraction, r.center().y);
    h.hover_at(p);
    h.run_steps(1);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: p,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        h.run_steps(1);
    }
    h.run_steps(3);
    h.state()
        .cursor()
        .expect("the click put the cursor on a tick")
}

/// Milliseconds from a duration as the flame writes it: `0.123 ms`,
/// `4.5 µs`, `850 ns`.
fn ms_of(text: &str) -> f64 {
    let (number, unit) = text
        .split_once(' ')
        .unwrap_or_else(|| panic!("a duration: {text:?}"));
    let value: f64 = number
        .parse()
        .unwrap_or_else(|_| panic!("a number in {text:?}"));
    match unit {
        "ms" => value,
        "µs" => value / 1e3,
        "ns" => value / 1e6,
        other => panic!("a unit of time, not {other:?}"),
    }
}

/// The milliseconds a zone's hover text gives: "physics: 0.123 ms (live)".
fn hover_ms(h: &mut Harness<'_, Editor>, zone: &str, source: &str) -> f64 {
    let at = h.get_by_label(zone).rect().center();
    h.hover_at(at);
    // A tooltip shows once the pointer has rested a moment.
    let head = format!("{zone}: ");
    step_until(h, 120, "the zone's tooltip", |h| {
        !labels_starting(h, &head).is_empty()
    });
    let tip = label_starting(h, &head);
    let suffix = format!(" ({source})");
    assert!(tip.ends_with(&suffix), "{tip}");
    ms_of(&tip[zone.len() + 2..tip.len() - suffix.len()])
}

#[test]
fn a_clicked_frame_shows_its_live_zones_and_a_replay_naming_each_behaviour() {
    let mut h = editor();
    h.run_steps(90);
    let tick = click_frame_at(&mut h, 0.5);
    let record = *h
        .state()
        .reading()
        .cursor_record()
        .expect("the cursor's frame");
    // The driven editor runs one 1/60 s frame a step at 60 Hz: one tick.
    assert_eq!((record.simulation_tick, record.ticks), (tick, 1));
    show(&mut h, Pane::Flame);
    step_until(&mut h, 30, "the replay arrived", |h| {
        h.query_by_label("replayed Update").is_some()
    });
    assert!(
        labels_starting(&h, &format!("Frame {}: 1 tick · ", record.frame_index)).len() == 1,
        "the header names the cursor's frame"
    );

    // Live zones: the phases, the frame's one tick, and inside it the
    // player's priority group and physics.
    for zone in [
        "Update".to_string(),
        "Fixed".into(),
        format!("tick {tick}"),
        "FixedUpdate priority Early".into(),
        "physics".into(),
        "contacts".into(),
        "Flow Tick".into(),
        "presentation".into(),
    ] {
        assert!(h.query_by_label(&zone).is_some(), "a live zone {zone:?}");
    }
    // Hovering gives the zone's ms: the pipeline's own physics time for
    // the frame (the record keeps it as f32; the hover rounds to µs).
    let physics = hover_ms(&mut h, "physics", "live");
    assert!(
        (physics - f64::from(record.physics_ms)).abs() <= 0.0015,
        "physics {physics} ms, the frame's record {} ms",
        record.physics_ms
    );
    let fixed = hover_ms(&mut h, "Fixed", "live");
    assert!(
        (fixed - f64::from(record.fixed_ms)).abs() <= 0.0015,
        "fixed {fixed} ms, the frame's record {} ms",
        record.fixed_ms
    );
    let player_group = hover_ms(&mut h, "FixedUpdate priority Early", "live");
    let recorded = record
        .priorities()
        .iter()
        .find(|(p, _)| *p == -100)
        .map(|(_, ms)| f64::from(*ms))
        .expect("the record times priority Early (-100)");
    assert!(
        (player_group - recorded).abs() <= 0.0015,
        "{player_group} vs {recorded}"
    );

    // The replay: labelled replayed, one zone per call, naming the object
    // and the behaviour.
    assert_eq!(
        labels_starting(&h, "Replayed frame ").len(),
        1,
        "the replay has its heading"
    );
    let call = "replayed FixedUpdate PlayerController on Player #20";
    assert!(h.query_by_label(call).is_some(), "the player's call");
    assert!(h.query_by_label(&format!("replayed tick {tick}")).is_some());
    // The replayed flame is under the live one: scroll down to it with the
    // wheel, as a user scrolls a tab taller than its tile.
    let tile = h.state().workspace().rect(Pane::Flame).expect("laid out");
    h.hover_at(tile.center());
    h.run_steps(1);
    for _ in 0..10 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -60.0),
            modifiers: egui::Modifiers::NONE,
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
        });
        h.run_steps(1);
    }
    h.run_steps(10);
    let at = h.get_by_label(call).rect().center();
    assert!(
        tile.contains(at),
        "the player's call {at:?} is in view in {tile:?}"
    );
    h.hover_at(at);
    let head = format!("{call}: ");
    step_until(&mut h, 120, "the call's tooltip", |h| {
        !labels_starting(h, &head).is_empty()
    });
    let tip = label_starting(&h, &head);
    assert!(tip.ends_with(" (replayed)"), "{tip}");
    // One call takes well under a millisecond: its time is still read in
    // digits that are not all zero (µs or ns).
    let took = ms_of(&tip[head.len()..tip.len() - " (replayed)".len()]);
    assert!(took > 0.0, "a call's own time: {tip}");
    for line in [
        "hook: FixedUpdate",
        "object: Player #20",
        "behaviour: PlayerController",
    ] {
        assert!(h.query_by_label(line).is_some(), "the hover names {line:?}");
    }
    // The slowest zones are listed beside each flame.
    assert_eq!(h.get_all_by_label("Slowest zones").count(), 2);
    let listed = labels_starting(&h, "");
    assert!(
        listed.iter().any(|l| l.contains(" · replayed ")),
        "replayed zones are listed: {listed:?}"
    );
}

/// Sends a mouse wheel turn at the pointer and lets the smoothing finish.
fn wheel(h: &mut Harness<'_, Editor>, at: egui::Pos2, lines: f32) {
    h.hover_at(at);
    h.run_steps(1);
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Line,
        delta: egui::vec2(0.0, lines),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: egui::Modifiers::NONE,
    });
    h.run_steps(20);
}

/// Tracy's zoom: the wheel over a flame zooms it
/// around the pointer, so a zone under the pointer grows and stays under
/// it; a drag pans; a double click shows the whole frame again.
#[test]
fn the_wheel_zooms_a_flame_around_the_pointer_a_drag_pans_a_double_click_resets() {
    let mut h = editor();
    h.run_steps(90);
    click_frame_at(&mut h, 0.5);
    show(&mut h, Pane::Flame);
    h.run_steps(3);
    let flame = h.get_by_label("flame flame-live").rect();
    let before = h.get_by_label("FixedUpdate priority Early").rect();
    assert!(flame.contains_rect(before), "{before:?} in {flame:?}");
    let at = before.center();
    wheel(&mut h, at, 3.0);
    let zoomed = h.get_by_label("FixedUpdate priority Early").rect();
    assert!(
        zoomed.width() > before.width() * 1.5,
        "zoomed in: {} → {} wide",
        before.width(),
        zoomed.width()
    );
    assert!(
        zoomed.left() <= at.x + 1.0 && zoomed.right() >= at.x - 1.0,
        "the zone under the pointer stays under it: {zoomed:?} at x {}",
        at.x
    );
    assert!(labels_starting(&h, "zoomed: double-click").len() <= 1);

    // A drag to the left shows later time: the zone moves left with the
    // pointer. At most half the way from its right end to the tab's left
    // side, so it stays in view: its place comes from the frame's real
    // timings, and this hook's zone can sit near the left (60 px pushed it
    // out of the tab in about one run in five).
    let d = 60f32.min((zoomed.right() - flame.left()) / 2.0);
    assert!(d >= 10.0, "room to pan: {zoomed:?} in {flame:?}");
    let start = egui::pos2(flame.center().x, flame.bottom() - 4.0);
    h.drag_at(start);
    h.run_steps(1);
    let end = start - egui::vec2(d, 0.0);
    h.hover_at(end);
    h.run_steps(1);
    h.drop_at(end);
    h.run_steps(2);
    let panned = h.get_by_label("FixedUpdate priority Early").rect();
    assert!(
        // Its right end: zoomed in, its start may lie left of the tab.
        (zoomed.right() - panned.right() - d).abs() <= 2.0,
        "panned left with the pointer: {zoomed:?} → {panned:?}"
    );

    // A double click: the whole frame, as before the zoom.
    let p = egui::pos2(flame.center().x, flame.bottom() - 4.0);
    h.hover_at(p);
    h.run_steps(1);
    // Two press-and-releases a frame apart: a double click.
    for _ in 0..2 {
        press_release(&mut h, p);
        h.run_steps(1);
    }
    h.run_steps(2);
    let reset = h.get_by_label("FixedUpdate priority Early").rect();
    assert!(
        (reset.width() - before.width()).abs() <= 0.5
            && (reset.left() - before.left()).abs() <= 0.5,
        "the whole frame again: {before:?}, now {reset:?}"
    );
}
