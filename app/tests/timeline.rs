//! The timeline panel: decimation, scrubbing through the editor UI (kittest,
//! logic only), "resume from here" through the UI command path, and error
//! markers for the faults the pipeline reports.

use std::collections::BTreeMap;
use std::path::PathBuf;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::timeline::{
    MarkerKind, TimelineState, decimate, readout, synthetic_record,
};
use stepframe_app::editor::{Command, EditorApp, EditorConfig, Event};
use stepframe_core::{LogEntry, LogLevel, ObjectId};

/// Seconds per UI frame (= per worker frame): one fixed tick at 60 Hz.
const DT: f64 = 1.0 / 60.0;

const TARGET: u64 = 100;

fn editor() -> Harness<'static, EditorApp> {
    editor_on(stepframe_app::default_scene())
}

fn editor_on(path: PathBuf) -> Harness<'static, EditorApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1600.0, 1200.0))
        .with_step_dt(DT as f32)
        .build_eframe(move |cc| {
            EditorApp::new(cc, EditorConfig::driven(path, DT)).expect("the editor starts")
        });
    h.run_steps(3);
    h
}

fn shown_text(n: &egui_kittest::kittest::AccessKitNode<'_>) -> Option<String> {
    if n.role() == egui::accesskit::Role::Label {
        n.value()
    } else {
        None
    }
}

fn labels_starting(h: &Harness<'_, EditorApp>, prefix: &str) -> Vec<String> {
    h.query_all_by(|n| shown_text(n).is_some_and(|t| t.starts_with(prefix)))
        .filter_map(|n| shown_text(&n.accesskit_node()))
        .collect()
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
        let orig: Vec<f64> = xs
            .iter()
            .zip(&ys)
            .filter(|(x, _)| in_col(**x))
            .map(|(_, y)| *y)
            .collect();
        let kept: Vec<f64> = out.iter().filter(|p| in_col(p[0])).map(|p| p[1]).collect();
        let max = orig.iter().copied().fold(f64::MIN, f64::max);
        let min = orig.iter().copied().fold(f64::MAX, f64::min);
        // Every column here holds a spike (97 < 142) and a zero (13 < 142).
        assert_eq!(max, 50.0);
        assert_eq!(min, 0.0);
        assert!(
            kept.contains(&max) && kept.contains(&min),
            "column {c}: {kept:?}"
        );
    }
    // x order is preserved.
    assert!(out.windows(2).all(|w| w[0][0] <= w[1][0]));
}

#[test]
fn scrubbing_pauses_and_shows_the_recorded_clock_fields_and_poses() {
    let mut h = editor();
    h.run_steps(40);
    let t = &h.state().state().timeline;
    assert!(t.telemetry.len() >= 30, "{} frames", t.telemetry.len());
    // The record of the 20th frame kept (the same action a click sends).
    let seq = t.telemetry.pushed() - t.telemetry.len() as u64 + 19;
    let record = *t.record(seq).expect("record kept");
    h.state_mut().state_mut().timeline.scrub_to(seq, false);
    // The UI sends the pause when it draws: at most the frame of that UI
    // frame runs, none after it.
    h.run_steps(1);
    let frames_paused = h.state().state().timeline.telemetry.pushed();
    h.run_steps(3);
    assert!(
        h.state().state().is_suspended(),
        "a scrub pauses the live view"
    );
    assert_eq!(h.state().state().timeline.telemetry.pushed(), frames_paused);
    // Every read-out row shown equals the record's field, printed exactly.
    for row in readout(&record) {
        let name: String = row.split(' ').take(2).collect::<Vec<_>>().join(" ");
        let shown = labels_starting(&h, &format!("{name} "));
        assert_eq!(shown, vec![row.clone()], "{name}");
    }
    let field = |name: &str| -> f64 {
        let shown = labels_starting(&h, &format!("at {name} "));
        shown[0]
            .rsplit(' ')
            .next()
            .and_then(|v| v.parse().ok())
            .expect("a number")
    };
    assert_eq!(field("simulation_tick"), record.simulation_tick as f64);
    assert_eq!(field("frame_time"), record.frame_time);
    assert_eq!(field("accumulator_after"), record.accumulator_after);
    // The worker answered with that tick's committed poses; the viewport's
    // objects show them.
    let scrub = h
        .state()
        .state()
        .timeline
        .scrub
        .clone()
        .expect("poses of the tick");
    assert_eq!(scrub.tick, record.simulation_tick);
    assert!(!scrub.poses.is_empty());
    let view = h.state().state().view.as_ref().expect("a view");
    for (id, pose) in &scrub.poses {
        let o = view.objects.iter().find(|o| o.id == *id).expect("object");
        assert_eq!(o.presentation, *pose);
        assert_eq!(o.committed, *pose);
    }
}

/// Tick → state hash of every view published while running.
fn hashes(h: &mut Harness<'static, EditorApp>, steps: usize, out: &mut BTreeMap<u64, u64>) {
    for _ in 0..steps {
        h.step();
        if let Some(v) = h.state().state().view.as_ref()
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
    let latest = *original.keys().last().expect("ticks ran");
    assert!(latest >= 190, "latest tick {latest}");
    // Scrub to the frame that ended at tick 100, then "Resume from here".
    let t = &h.state().state().timeline;
    let first = t.telemetry.pushed() - t.telemetry.len() as u64;
    let seq = (0..t.telemetry.len() as u64)
        .map(|i| first + i)
        .find(|s| t.record(*s).is_some_and(|r| r.simulation_tick == TARGET))
        .expect("a frame ended at tick 100");
    h.state_mut().state_mut().timeline.scrub_to(seq, false);
    h.run_steps(2);
    h.state_mut().state_mut().timeline.resume_from_cursor();
    h.run_steps(2);
    let view = h.state().state().view.as_ref().expect("a view");
    assert!(view.suspension.is_some(), "left suspended at the tick");
    assert_eq!(view.clock.simulation_tick, TARGET);
    let near: Vec<(u64, u64)> = (97..104).map(|t| (t, original[&t])).collect();
    assert_eq!(view.state_hash, original[&TARGET], "near: {near:?}");
    // The timeline dropped the abandoned branch.
    let last = h
        .state()
        .state()
        .timeline
        .telemetry
        .records()
        .back()
        .copied();
    assert_eq!(last.map(|r| r.simulation_tick), Some(TARGET));
    // Play continues from tick 100 with the same (empty) input: same hashes.
    h.state_mut().state_mut().send(Command::Play);
    let mut continued = BTreeMap::new();
    hashes(&mut h, 60, &mut continued);
    let compared: Vec<u64> = continued.keys().copied().filter(|t| *t > TARGET).collect();
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
    let frames = std::env::var("STEPFRAME_TIMELINE_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3_000);
    let ms = stepframe_app::editor::timeline::bench_timeline_ms(frames);
    println!("timeline_ui_ms with {frames} frames: {ms:.3}");
    assert!(ms.is_finite() && ms > 0.0, "{ms}");
}

/// `(frame_index of the marked record, text)` of every error marker.
fn error_markers(t: &TimelineState) -> Vec<(u64, String)> {
    t.markers
        .iter()
        .filter(|m| m.kind == MarkerKind::Error)
        .map(|m| {
            let r = t.record(m.seq).expect("the marked record is kept");
            (r.frame_index, m.text.clone())
        })
        .collect()
}

#[test]
fn every_fault_of_faults_ron_is_an_error_marker_on_its_frame() {
    // Issue #8: a caught hook panic or a rejected non-finite write goes to
    // the log and to the timeline. faults.ron injects 11 (see its header and
    // app/tests/reliability.rs): panics in every hook kind at frames 1, 6,
    // 10, 15, 21, 25, 70 and on the first contact, NaN force, pose and
    // velocity at frames 30, 40, 51.
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/faults.ron");
    let mut h = editor_on(scene);
    h.run_steps(90);
    let state = h.state().state();
    // The log panel's error lines: "tick T frame F #id Hook: message".
    let logged: Vec<(u64, String)> = state
        .log
        .iter()
        .filter(|l| l.level == LogLevel::Error)
        .map(|l| {
            let frame = l
                .text
                .split(' ')
                .nth(3)
                .and_then(|f| f.parse().ok())
                .expect("a frame number");
            let message = l.text.split_once(": ").expect("a message").1;
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
    let marked = error_markers(&state.timeline);
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
fn an_error_logged_before_its_frames_record_arrives_is_marked_when_it_does() {
    // The worker publishes a frame's log lines before its telemetry, and the
    // UI may read them in either order.
    let mut t = TimelineState::with_capacity(100);
    for i in 1..=10 {
        t.ingest(synthetic_record(i));
    }
    t.on_event(&Event::Log(vec![
        log_entry(LogLevel::Error, 4, "an earlier frame"),
        log_entry(LogLevel::Warning, 5, "a warning is no marker"),
        log_entry(LogLevel::Info, 6, "nor is an info line"),
        log_entry(LogLevel::Error, 12, "a frame not received yet"),
    ]));
    assert_eq!(
        error_markers(&t),
        vec![(4, "tick 4: an earlier frame".to_string())]
    );
    t.ingest(synthetic_record(11));
    assert_eq!(error_markers(&t).len(), 1, "frame 12 has not arrived");
    t.ingest(synthetic_record(12));
    assert_eq!(
        error_markers(&t),
        vec![
            (4, "tick 4: an earlier frame".to_string()),
            (12, "tick 12: a frame not received yet".to_string()),
        ]
    );
}

#[test]
fn a_loaded_session_keeps_its_frames_that_arrived_before_the_loaded_event() {
    // The app drains telemetry before events: a reload's first frames can be
    // in the ring when `Loaded` comes; they stay, the old session's go.
    let loaded = Event::Loaded {
        path: PathBuf::from("faults.ron"),
        objects: 1,
    };
    let frames = |t: &TimelineState| -> Vec<u64> {
        t.telemetry
            .records()
            .iter()
            .map(|r| r.frame_index)
            .collect()
    };
    let mut t = TimelineState::with_capacity(100);
    t.on_event(&loaded);
    for i in 1..=50 {
        t.ingest(synthetic_record(i));
    }
    for i in 1..=3 {
        t.ingest(synthetic_record(i));
    }
    t.on_event(&loaded);
    assert_eq!(frames(&t), vec![1, 2, 3]);
    t.on_event(&Event::Log(vec![log_entry(
        LogLevel::Error,
        1,
        "Start panicked",
    )]));
    assert_eq!(
        error_markers(&t),
        vec![(1, "tick 1: Start panicked".to_string())]
    );
    let reload = t.markers.iter().find(|m| m.kind == MarkerKind::Reload);
    let reload = reload.and_then(|m| t.record(m.seq)).map(|r| r.frame_index);
    assert_eq!(
        reload,
        Some(1),
        "the reload marker is on the new first frame"
    );
    // `Loaded` before the new session's frames: the old ones go at once.
    t.on_event(&loaded);
    assert!(frames(&t).is_empty());
    t.ingest(synthetic_record(1));
    assert_eq!(frames(&t), vec![1]);
}
