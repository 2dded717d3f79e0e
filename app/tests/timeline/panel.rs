//! The timeline panel through the real editor (kittest, headless): lanes a
//! person can read at the default window size, the tooltip, a wheel that
//! never moves an axis, the time cursor every panel follows, resume from
//! here, markers on the frames they belong to, the session boundary after
//! Open, and export.

use std::collections::BTreeMap;
use std::path::PathBuf;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::timeline::{
    LaneId, MarkerKind, TimelineState, XAxis, decimate, synthetic_record,
};
use stepframe_app::editor::{Command, EditorApp, Event, Pane};
use stepframe_core::{LogEntry, LogLevel, ObjectId};

use crate::support::editor::{
    DEFAULT_SIZE, click, clock_field, clock_tick, demo, editor, editor_sized, headless_at,
    label_starting, open_scene, parse_pose, same_bits, status, step_until, type_path_over,
};
use crate::support::{labels_starting, scratch};

/// The smallest plot height an expanded lane may have.
const MIN_LANE: f32 = 56.0;

fn timeline<'a>(h: &'a Harness<'_, EditorApp>) -> &'a TimelineState {
    &h.state().panels().timeline
}

/// The data rectangle of a lane's plot.
fn lane_rect(h: &Harness<'_, EditorApp>, lane: LaneId) -> egui::Rect {
    h.get_by_label(&format!("lane {}", lane.title())).rect()
}

#[test]
fn decimation_keeps_every_columns_min_and_max() {
    // A saw-tooth with spikes: 1000 points over x 0..1000, 7 columns.
    let xs: Vec<f64> = (0..1000).map(f64::from).collect();
    let ys: Vec<f64> = (0..1000)
        .map(|i| if i % 97 == 0 { 50.0 } else { f64::from(i % 13) })
        .collect();
    let columns = 7;
    let out = decimate(&xs, &ys, (0.0, 1000.0), columns);
    assert!(out.len() <= 2 * columns, "{} points", out.len());
    let width = 1000.0 / columns as f64;
    for c in 0..columns {
        let lo = c as f64 * width;
        let hi = lo + width;
        let in_col = |x: f64| x >= lo && (x < hi || c == columns - 1);
        let kept: Vec<f64> = out.iter().filter(|p| in_col(p[0])).map(|p| p[1]).collect();
        // Every column here holds a spike (97 < 142) and a zero (13 < 142).
        assert!(
            kept.contains(&50.0) && kept.contains(&0.0),
            "column {c}: {kept:?}"
        );
    }
    assert!(out.windows(2).all(|w| w[0][0] <= w[1][0]));
}

#[test]
fn at_the_default_size_the_first_lanes_fit_the_tile_and_every_lane_can_be_opened_to_56_points() {
    let mut h = editor();
    h.run_steps(30);
    let tile = h
        .state()
        .workspace()
        .rect(Pane::Timeline)
        .expect("the timeline tile is laid out");
    assert!(
        tile.height() >= DEFAULT_SIZE.y / 3.0,
        "the timeline gets a third of the window: {tile:?}"
    );
    for lane in [LaneId::Dt, LaneId::Ticks, LaneId::FixedUpdate] {
        let r = lane_rect(&h, lane);
        assert!(
            r.height() >= MIN_LANE,
            "{lane:?} is {} points tall",
            r.height()
        );
        assert!(
            tile.contains_rect(r) && r.bottom() <= DEFAULT_SIZE.y,
            "{lane:?} at {r:?} is inside the tile {tile:?}, no scrolling needed"
        );
    }
    // The others start collapsed, each a header one click from open.
    for lane in [
        LaneId::Accumulator,
        LaneId::Alpha,
        LaneId::Dropped,
        LaneId::Physics,
        LaneId::Markers,
    ] {
        assert!(
            h.query_by_label(&format!("lane {}", lane.title()))
                .is_none()
        );
        let is_header = |n: &egui_kittest::Node<'_>| {
            n.accesskit_node()
                .label()
                .is_some_and(|l| l.starts_with("⏵"))
        };
        let header = h
            .query_all_by_label_contains(lane.title())
            .find(is_header)
            .unwrap_or_else(|| panic!("{lane:?} has a header"));
        header.scroll_to_me();
        h.run_steps(1);
        h.query_all_by_label_contains(lane.title())
            .find(is_header)
            .expect("the header")
            .click();
        h.run_steps(3);
        let name = format!("lane {}", lane.title());
        h.get_by_label(&name).scroll_to_me();
        h.run_steps(2);
        let r = lane_rect(&h, lane);
        assert!(
            r.height() >= MIN_LANE,
            "{lane:?} opened to {} points",
            r.height()
        );
    }
    // With all eight open they no longer fit: the lane area scrolls, and no
    // lane is squeezed under 56 points.
    for lane in LaneId::ALL {
        assert!(timeline(&h).lane(lane).expanded, "{lane:?}");
    }
}

#[test]
fn the_wheel_over_a_lane_scrolls_the_lanes_and_never_moves_a_lane_axis() {
    let mut h = editor();
    h.run_steps(40);
    click(&mut h, "⏸ Pause");
    // Open every lane, so the lane area has something to scroll.
    for lane in LaneId::ALL {
        h.state_mut().panels_mut().timeline.lane_mut(lane).expanded = true;
    }
    h.run_steps(3);
    let dt = lane_rect(&h, LaneId::Dt);
    let y_before = timeline(&h).lane(LaneId::Dt).shown_y.expect("drawn");
    let x_before = timeline(&h).range;
    h.hover_at(dt.center());
    h.run_steps(1);
    for _ in 0..5 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -40.0),
            modifiers: egui::Modifiers::NONE,
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
        });
        h.run_steps(1);
    }
    h.run_steps(5);
    let t = timeline(&h);
    assert_eq!(
        t.lane(LaneId::Dt).shown_y,
        Some(y_before),
        "the y axis stayed"
    );
    assert_eq!(t.lane(LaneId::Dt).y_range, None);
    assert_eq!(t.range, x_before, "time did not move either");
    let moved = lane_rect(&h, LaneId::Dt);
    assert!(
        moved.top() < dt.top(),
        "the lanes scrolled: {dt:?} → {moved:?}"
    );
}

#[test]
fn the_frame_under_the_pointer_has_a_tooltip_with_every_clock_field() {
    let mut h = editor();
    h.run_steps(60);
    click(&mut h, "⏸ Pause");
    let r = lane_rect(&h, LaneId::Dt);
    h.hover_at(r.center());
    // A tooltip shows once the pointer has rested a moment.
    step_until(&mut h, 120, "the tooltip", |h| {
        !labels_starting(h, "frame ").is_empty()
    });
    let seq = timeline(&h).hover_seq.expect("a frame under the pointer");
    let record = *timeline(&h).record(seq).expect("kept");
    let head = label_starting(&h, &format!("frame {} · tick ", record.frame_index));
    assert!(
        head.contains(&format!("tick {}", record.simulation_tick)),
        "{head}"
    );
    // Every clock field, each with its unit; none dumped as raw floats.
    // The clock panel shows rows of the same names: a tooltip row is the one
    // with the unit this check expects.
    let row = |name: &str, unit: &str| -> String {
        labels_starting(&h, name)
            .into_iter()
            .find(|l| l[name.len()..].starts_with(' ') && l.ends_with(unit))
            .unwrap_or_else(|| panic!("no tooltip row {name} ending in {unit}"))
    };
    for (name, unit) in [
        ("delta_time", "ms"),
        ("frame_time", "s"),
        ("frame_index", "frames"),
        ("simulation_tick", "ticks"),
        ("simulation_time", "s"),
        ("fixed_delta_time", "ms"),
        ("interpolation_alpha", "(of a tick)"),
        ("dropped_time", "s"),
        ("accumulator", "after"),
    ] {
        let text = row(name, unit);
        assert!(!text.contains("e-") && !text.contains("e+"), "{text:?}");
    }
    // Four significant figures: the frame's delta in ms (16.666… at 60 Hz)
    // reads 16.67.
    let dt_ms = record.delta_time * 1000.0;
    let decimals = (3 - dt_ms.log10().floor() as i32).max(0) as usize;
    let expected = format!("delta_time           {dt_ms:.decimals$} ms");
    assert!(
        labels_starting(&h, "delta_time").contains(&expected),
        "{expected:?} in {:?}",
        labels_starting(&h, "delta_time")
    );
}

/// The viewed-tick banner's text.
fn banner(h: &Harness<'_, EditorApp>) -> String {
    let found: Vec<String> = labels_starting(h, "viewing tick ")
        .into_iter()
        .filter(|l| l.contains("Esc: back to live"))
        .collect();
    assert_eq!(found.len(), 1, "one banner: {found:?}");
    found[0].clone()
}

/// Clicks the timeline's dt lane at `fraction` of its width and returns the
/// tick the banner says every panel now shows.
fn click_lane_at(h: &mut Harness<'_, EditorApp>, fraction: f32) -> u64 {
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
        .map(|v| v.clock.simulation_tick);
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
    h.state_mut().panels_mut().timeline.axis = XAxis::Tick;
    h.run_steps(2);
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(3);
    assert_eq!(clock_tick(&h), t, "one tick on the tick axis");
}

/// Tick → state hash of every live view published while running.
fn hashes(h: &mut Harness<'static, EditorApp>, steps: usize, out: &mut BTreeMap<u64, u64>) {
    for _ in 0..steps {
        h.step();
        if let Some(v) = h.state().published().live.as_ref()
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
    let view = h.state().published().live.as_ref().expect("a view");
    assert!(view.suspension.is_some(), "left suspended at the tick");
    assert_eq!(view.clock.simulation_tick, t);
    assert_eq!(view.state_hash, original[&t]);
    assert!(
        labels_starting(&h, "viewing tick ").is_empty(),
        "live again"
    );
    // The timeline dropped the abandoned branch.
    let last = timeline(&h).telemetry.records().back().copied();
    assert_eq!(last.map(|r| r.simulation_tick), Some(t));
    // Play continues from t with the same (empty) input: same hashes.
    h.state_mut().send(Command::Play);
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

#[test]
fn the_timeline_bench_draws_headless_and_reports_a_cost() {
    // Small in debug builds; `stepframe bench` runs it with 216,000 frames.
    let ms = stepframe_app::editor::timeline::bench_timeline_ms(3_000);
    assert!(ms.is_finite() && ms > 0.0, "{ms}");
}

/// `(frame_index, text)` of every marker of a kind whose frame is kept.
fn markers_of(t: &TimelineState, kind: MarkerKind) -> Vec<(u64, String)> {
    t.markers
        .iter()
        .filter(|m| m.kind == kind)
        .map(|m| (m.frame, m.text.clone()))
        .collect()
}

#[test]
fn every_fault_of_faults_ron_is_an_error_marker_on_its_frame() {
    // A caught hook panic or a rejected non-finite write goes to
    // the log and to the timeline. faults.ron injects 11 (see its header and
    // app/tests/reliability.rs): panics in every hook kind at frames 1, 6,
    // 10, 15, 21, 25, 70 and on the first contact, NaN force, pose and
    // velocity at frames 30, 40, 51.
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/faults.ron");
    let mut h = editor_sized(scene, DEFAULT_SIZE);
    h.run_steps(90);
    // The log's error lines: "error: tick T (frame F) #id Hook: message".
    let logged: Vec<(u64, String)> = h
        .state()
        .feedback()
        .log
        .lines
        .iter()
        .filter(|l| l.level == LogLevel::Error)
        .map(|l| {
            let frame = l
                .text
                .split("(frame ")
                .nth(1)
                .and_then(|f| f.split(')').next())
                .and_then(|f| f.parse().ok())
                .unwrap_or_else(|| panic!("a frame number in {}", l.text));
            let message = l.text.splitn(3, ": ").nth(2).expect("a message");
            (frame, message.to_string())
        })
        .collect();
    assert_eq!(logged.len(), 11, "{logged:#?}");
    for frame in [1, 6, 10, 15, 21, 25, 30, 40, 51, 70] {
        assert!(
            logged.iter().any(|(f, _)| *f == frame),
            "frame {frame}: {logged:#?}"
        );
    }
    let marked = markers_of(timeline(&h), MarkerKind::Error);
    assert_eq!(marked.len(), logged.len(), "{marked:#?}");
    for (frame, message) in &logged {
        assert!(
            marked
                .iter()
                .any(|(f, text)| f == frame && text.ends_with(message.as_str())),
            "no error marker on frame {frame} for `{message}` in {marked:#?}"
        );
    }
}

fn log_entry(level: LogLevel, frame: u64, message: &str) -> LogEntry {
    LogEntry {
        level,
        object: Some(ObjectId(7)),
        hook: None,
        tick: frame,
        frame,
        message: message.to_string(),
    }
}

#[test]
fn a_new_physics_world_starts_a_new_ring_whose_first_frame_is_marked() {
    let loaded = |frame_index| Event::Loaded {
        path: PathBuf::from("faults.ron"),
        objects: 1,
        frame_index,
        frame_time: frame_index as f64 / 60.0,
    };
    let frames = |t: &TimelineState| -> Vec<u64> {
        t.telemetry
            .records()
            .iter()
            .map(|r| r.frame_index)
            .collect()
    };
    let mut t = TimelineState::with_capacity(100);
    t.on_event(&loaded(0));
    for i in 1..=50 {
        t.ingest(synthetic_record(i));
    }
    // Errors are marked on the frame they name, warnings are not.
    t.on_event(&Event::Log(vec![
        log_entry(LogLevel::Error, 4, "an earlier frame"),
        log_entry(LogLevel::Warning, 5, "a warning is no marker"),
    ]));
    assert_eq!(
        markers_of(&t, MarkerKind::Error),
        vec![(4, "tick 4: an earlier frame".to_string())]
    );
    // Reload after frame 50: the old frames go, the marker waits for frame 51.
    t.follow_live = false;
    t.range = Some((3.0, 9.0));
    t.on_event(&loaded(50));
    assert!(frames(&t).is_empty());
    assert!(
        t.follow_live && t.range.is_none(),
        "the view follows the new session"
    );
    let session = markers_of(&t, MarkerKind::Session);
    assert_eq!(session.len(), 1);
    assert_eq!(session[0].0, 51);
    assert!(
        session[0].1.contains("simulation time restarts at 0")
            && session[0].1.contains("frame time continues"),
        "{}",
        session[0].1
    );
    t.ingest(synthetic_record(51));
    assert_eq!(frames(&t), vec![51]);
}

#[test]
fn after_open_the_timeline_follows_the_new_session_and_marks_where_it_began() {
    let mut h = editor();
    h.run_steps(120);
    // The user looks at an old stretch, not following live.
    {
        let t = &mut h.state_mut().panels_mut().timeline;
        t.follow_live = false;
        t.range = Some((10.0, 30.0));
    }
    let frame_before = h
        .state()
        .published()
        .live
        .as_ref()
        .map(|v| v.clock.frame_index)
        .unwrap_or(0);
    open_scene(&mut h, &demo().canonicalize().expect("demo"));
    click(&mut h, "▶ Play");
    h.run_steps(20);
    let t = timeline(&h);
    assert!(t.follow_live, "the view follows the new session");
    let first = t
        .telemetry
        .records()
        .front()
        .expect("new frames")
        .frame_index;
    assert!(
        first > frame_before,
        "only the new session's frames: {first} > {frame_before}"
    );
    let session = markers_of(t, MarkerKind::Session);
    assert_eq!(session.len(), 1, "{session:?}");
    assert!(
        session[0].1.starts_with("new physics world (demo.ron)"),
        "{}",
        session[0].1
    );
    // Simulation time restarted with the new world.
    assert!(clock_tick(&h) < 40, "{}", clock_tick(&h));
}

#[test]
fn each_export_format_has_its_own_path_and_the_full_path_written_is_reported() {
    let dir = scratch("export");
    let mut h = editor();
    h.run_steps(30);
    click(&mut h, "⏸ Pause");
    click(&mut h, "Export…");
    h.run_steps(1);
    let json = dir.join("run");
    let csv = dir.join("frames.csv");
    for (label, path) in [("Chrome trace (.json)", &json), ("CSV (.csv)", &csv)] {
        type_path_over(&mut h, label, path);
    }
    click(&mut h, "Export csv");
    h.key_press(egui::Key::Escape);
    h.run_steps(1);
    let notice = label_starting(&h, "exported ");
    assert!(notice.ends_with(&csv.display().to_string()), "{notice}");
    let text = std::fs::read_to_string(&csv).expect("the CSV was written");
    assert!(text.lines().count() > 10 && text.contains(','));
    click(&mut h, "Export…");
    h.run_steps(1);
    click(&mut h, "Export json");
    // The path without an extension got the format's.
    let written = dir.join("run.json");
    let body = std::fs::read_to_string(&written).expect("the trace was written");
    assert!(body.trim_start().starts_with('{') || body.trim_start().starts_with('['));
    assert!(
        h.state()
            .feedback()
            .log
            .contains(&written.display().to_string())
    );
    assert!(!json.exists(), "nothing written without the extension");
}

/// A wheel event over the pointer with `modifiers` held down across the
/// frames that follow, as a hand holds them (the harness's `event_modifiers`
/// releases them within the same frame), long enough for egui's smoothed
/// scrolling to settle.
fn wheel(h: &mut Harness<'_, EditorApp>, dy: f32, modifiers: egui::Modifiers) {
    h.event(egui::Event::ModifiersChanged(modifiers));
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, dy),
        modifiers,
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
    });
    h.run_steps(20);
    h.event(egui::Event::ModifiersChanged(egui::Modifiers::NONE));
    h.run_steps(1);
}

/// A press at `from`, moves to `to`, a release, with `modifiers` held down
/// throughout.
fn drag(
    h: &mut Harness<'_, EditorApp>,
    from: egui::Pos2,
    to: egui::Pos2,
    modifiers: egui::Modifiers,
) {
    h.event(egui::Event::ModifiersChanged(modifiers));
    h.hover_at(from);
    h.run_steps(1);
    h.event(egui::Event::PointerButton {
        pos: from,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers,
    });
    h.run_steps(1);
    for k in 1..=5 {
        let p = from + (to - from) * (k as f32 / 5.0);
        h.event(egui::Event::PointerMoved(p));
        h.run_steps(1);
    }
    h.event(egui::Event::PointerButton {
        pos: to,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers,
    });
    h.run_steps(1);
    h.event(egui::Event::ModifiersChanged(egui::Modifiers::NONE));
    h.run_steps(1);
}

#[test]
fn time_pans_and_zooms_a_lanes_y_zooms_only_with_alt_and_double_click_or_fit_all_resets_it() {
    let mut h = editor();
    h.run_steps(200);
    click(&mut h, "⏸ Pause");
    let r = lane_rect(&h, LaneId::Dt);
    let (lo, hi) = timeline(&h).range.expect("the live window");
    // Ctrl+wheel zooms time around the pointer.
    h.hover_at(r.center());
    h.run_steps(1);
    wheel(&mut h, 60.0, egui::Modifiers::COMMAND);
    let (zlo, zhi) = timeline(&h).range.expect("a range");
    assert!(zhi - zlo < hi - lo, "zoomed in: {lo}..{hi} -> {zlo}..{zhi}");
    assert!(
        !timeline(&h).follow_live,
        "zooming time stops following live"
    );
    // A drag pans time to the right's past: the range moves left.
    drag(
        &mut h,
        r.center(),
        r.center() + egui::vec2(200.0, 0.0),
        egui::Modifiers::NONE,
    );
    let (plo, phi) = timeline(&h).range.expect("a range");
    assert!(
        plo < zlo && ((phi - plo) - (zhi - zlo)).abs() < 1e-6,
        "panned: {zlo}..{zhi} -> {plo}..{phi}"
    );
    // Alt+wheel zooms this lane's y, nothing else's.
    let before = timeline(&h).lane(LaneId::Dt).shown_y.expect("drawn");
    h.hover_at(r.center());
    h.run_steps(1);
    wheel(&mut h, 80.0, egui::Modifiers::ALT);
    h.run_steps(2);
    let zoomed = timeline(&h).lane(LaneId::Dt).y_range.expect("a y zoom");
    assert!(
        zoomed.1 - zoomed.0 < before.1 - before.0,
        "{before:?} -> {zoomed:?}"
    );
    assert_eq!(timeline(&h).lane(LaneId::Ticks).y_range, None);
    // Double-click fits it again.
    crate::support::editor::press_release(&mut h, r.center());
    h.run_steps(1);
    crate::support::editor::press_release(&mut h, r.center());
    h.run_steps(3);
    assert_eq!(
        timeline(&h).lane(LaneId::Dt).y_range,
        None,
        "double-click fits y"
    );
    // Fit all: every frame in view, every lane fitted.
    h.hover_at(r.center());
    h.run_steps(1);
    wheel(&mut h, 80.0, egui::Modifiers::ALT);
    h.key_press(egui::Key::Escape);
    h.run_steps(1);
    click(&mut h, "Fit all");
    h.run_steps(1);
    let t = timeline(&h);
    assert!(LaneId::ALL.iter().all(|l| t.lane(*l).y_range.is_none()));
    let first = t.telemetry.records().front().expect("frames").frame_index as f64;
    let (flo, _) = t.range.unwrap_or((first, first));
    assert!(flo <= first, "every frame in view");
}

#[test]
fn shift_drag_selects_a_range_and_export_writes_only_it() {
    let dir = scratch("export-selection");
    let mut h = editor();
    h.run_steps(120);
    click(&mut h, "⏸ Pause");
    let r = lane_rect(&h, LaneId::Dt);
    let a = egui::pos2(r.left() + r.width() * 0.25, r.center().y);
    let b = egui::pos2(r.left() + r.width() * 0.5, r.center().y);
    drag(&mut h, a, b, egui::Modifiers::SHIFT);
    let (lo, hi) = timeline(&h).selection.expect("a selection");
    assert!(hi > lo);
    let selected = timeline(&h)
        .telemetry
        .records()
        .iter()
        .filter(|rec| (lo..=hi).contains(&(rec.frame_index as f64)))
        .count();
    assert!(selected > 10 && selected < timeline(&h).telemetry.len());
    assert!(
        labels_starting(&h, "viewing tick ").is_empty(),
        "a selection is no click"
    );
    click(&mut h, "Export…");
    h.run_steps(1);
    let csv = dir.join("selection.csv");
    type_path_over(&mut h, "CSV (.csv)", &csv);
    assert!(labels_starting(&h, "Writes the selection").len() == 1);
    click(&mut h, "Export csv");
    let text = std::fs::read_to_string(&csv).expect("written");
    assert_eq!(
        text.lines().count(),
        selected + 1,
        "a header and the selected frames"
    );
}
