//! The timeline panel: decimation, scrubbing through the editor UI (kittest,
//! logic only) and "resume from here" through the UI command path.

use std::collections::BTreeMap;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::timeline::{decimate, readout};
use stepframe_app::editor::{Command, EditorApp, EditorConfig};

/// Seconds per UI frame (= per worker frame): one fixed tick at 60 Hz.
const DT: f64 = 1.0 / 60.0;

const TARGET: u64 = 100;

fn editor() -> Harness<'static, EditorApp> {
    let path = stepframe_app::default_scene();
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
