//! The worker and its channels without any UI: latest-wins views, one
//! ordered stream of telemetry and events that loses nothing, and a paced
//! thread that keeps running while nobody reads.

use std::time::{Duration, Instant};

use stepframe_app::editor::protocol::FrameTelemetry;
use stepframe_app::editor::protocol::{Command, Event, Pacing};
use stepframe_app::editor::worker::{self, Worker};
use stepframe_core::{Breakpoint, HookKind, ObjectId, SuspendReason};

/// The telemetry frames among the events.
fn frames_of(events: &[Event]) -> Vec<FrameTelemetry> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Frames(batch) => Some(batch.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

const DT: f64 = 1.0 / 60.0;

fn demo() -> std::path::PathBuf {
    stepframe_app::default_scene()
}

#[test]
fn an_unread_view_is_replaced_but_every_telemetry_frame_arrives() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    ui.commands
        .send(Command::LoadAndPlay(demo()))
        .expect("the worker end is alive");
    // A UI that does not read for 100 frames.
    for _ in 0..100 {
        assert!(w.pump(DT));
    }
    // One view waits: the newest (100 frames of 1/60 s at 60 Hz = tick 100).
    let views: Vec<_> = ui.views.try_iter().collect();
    assert_eq!(views.len(), 1);
    assert_eq!(views[0].clock.frame_index, 100);
    assert_eq!(views[0].clock.simulation_tick, 100);
    // Every frame's telemetry, in order, none lost, after the one load.
    let events: Vec<Event> = ui.events.try_iter().collect();
    let frames = frames_of(&events);
    assert_eq!(frames.len(), 100);
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(f.clock.frame_index, i as u64 + 1);
        assert_eq!(f.report.ticks, 1);
    }
    let loaded: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::Loaded { .. }))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(loaded.len(), 1);
    let first_frames = events
        .iter()
        .position(|e| matches!(e, Event::Frames(_)))
        .expect("frames");
    assert!(
        loaded[0] < first_frames,
        "the load comes before its session's frames"
    );
}

#[test]
fn a_frames_telemetry_comes_before_the_log_lines_and_the_suspension_it_caused() {
    // faults.ron's first fault panics in Start at frame 1: the error line
    // names frame 1, whose record must already have arrived.
    let faults = demo().parent().expect("scenes").join("faults.ron");
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(faults));
    let mut b = Breakpoint::on_hook(HookKind::FixedUpdate);
    b.condition.ticks = Some((3, 3));
    send(Command::AddBreakpoint(b));
    for _ in 0..5 {
        w.pump(DT);
    }
    let events: Vec<Event> = ui.events.try_iter().collect();
    let mut seen_frames = 0u64;
    let mut checked = (0, 0);
    for e in &events {
        match e {
            Event::Frames(batch) => {
                seen_frames = batch.last().map_or(seen_frames, |f| f.report.frame_index)
            }
            Event::Log(lines) => {
                for line in lines {
                    assert!(
                        line.frame <= seen_frames,
                        "log of frame {} before its record (have {seen_frames})",
                        line.frame
                    );
                    checked.0 += 1;
                }
            }
            Event::Suspended(s) => {
                assert!(
                    s.frame <= seen_frames,
                    "suspension before its frame's record"
                );
                checked.1 += 1;
            }
            _ => {}
        }
    }
    assert!(
        checked.0 >= 1 && checked.1 == 1,
        "{checked:?} in {events:#?}"
    );
}

#[test]
fn suspension_and_resume_are_announced_once_each() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(demo()));
    w.pump(DT);
    // The player is object 20 in the demo; break in its FixedUpdate from tick 5.
    let mut b = Breakpoint::on(HookKind::FixedUpdate, ObjectId(20));
    b.condition.ticks = Some((5, 5));
    send(Command::AddBreakpoint(b));
    for _ in 0..10 {
        w.pump(DT);
    }
    send(Command::Play);
    for _ in 0..3 {
        w.pump(DT);
    }
    let events: Vec<Event> = ui
        .events
        .try_iter()
        .filter(|e| matches!(e, Event::Suspended(_) | Event::Resumed))
        .collect();
    // A new worker is paused with nothing loaded; playing the scene resumes
    // it, the breakpoint suspends at the end of tick 5, Play resumes.
    assert_eq!(events.len(), 3, "{events:?}");
    assert!(matches!(events[0], Event::Resumed));
    match &events[1] {
        Event::Suspended(s) => {
            assert_eq!(s.tick, 5);
            assert!(s.end_of_tick);
            assert!(matches!(&s.reason, SuspendReason::Breakpoint(hit)
                if hit.object == ObjectId(20) && hit.hook == HookKind::FixedUpdate && hit.tick == 5));
        }
        other => panic!("expected a suspension, got {other:?}"),
    }
    assert!(matches!(events[2], Event::Resumed));
}

#[test]
fn the_paced_thread_runs_on_while_the_ui_reads_nothing() {
    let (ui, end) = worker::channels();
    let w = Worker::new(end, Pacing::Hz(60), None);
    let thread = worker::spawn(w, ui.commands.clone()).expect("a thread");
    ui.commands
        .send(Command::LoadAndPlay(demo()))
        .expect("the worker is alive");
    // A frozen UI for 0.6 s: the worker must not wait for it.
    std::thread::sleep(Duration::from_millis(600));
    let frames = frames_of(&ui.events.try_iter().collect::<Vec<_>>());
    let views: Vec<_> = ui.views.try_iter().collect();
    assert_eq!(views.len(), 1, "latest wins: one view waiting");
    // Every frame so far is in the telemetry, and the last view is at most a
    // frame or two older than the last telemetry frame.
    let last = frames.last().map(|f| f.clock.frame_index).unwrap_or(0);
    assert_eq!(frames.len() as u64, last, "no frame lost");
    assert!(views[0].clock.frame_index <= last);
    // At 60 Hz for 0.6 s about 36 frames run; a loaded 2-core machine may run
    // fewer, but a worker blocked on the UI would have run at most one.
    assert!(last >= 10, "only {last} frames in 0.6 s");
    assert!(last <= 45, "{last} frames in 0.6 s at 60 Hz");
    // Pause is applied promptly and no frame runs after it.
    ui.commands.send(Command::Pause).expect("alive");
    let t0 = Instant::now();
    let paused = loop {
        if let Ok(Event::Suspended(s)) = ui.events.recv_timeout(Duration::from_secs(2)) {
            break s;
        }
        assert!(t0.elapsed() < Duration::from_secs(2), "no suspension event");
    };
    assert!(matches!(paused.reason, SuspendReason::Pause));
    std::thread::sleep(Duration::from_millis(200));
    let later = frames_of(&ui.events.try_iter().collect::<Vec<_>>()).len();
    assert_eq!(later, 0, "frames ran while paused");
    drop(thread);
}

#[test]
fn save_writes_the_scene_with_the_toolbar_time_settings() {
    let dir = std::env::temp_dir().join(format!("stepframe-worker-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("saved.ron");
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(demo()));
    send(Command::SetTimeScale(0.5));
    send(Command::SaveAs {
        path: out.clone(),
        overwrite: false,
    });
    w.pump(DT);
    let saved = ui
        .events
        .try_iter()
        .any(|e| matches!(&e, Event::Saved(p) if *p == out));
    assert!(saved, "a Saved event");
    let registry = stepframe_app::player::registry(&demo());
    let original = stepframe_core::Scene::load(&demo(), &registry).expect("the demo loads");
    let written = stepframe_core::Scene::load(&out, &registry).expect("the saved scene loads");
    assert_eq!(written.settings.time.time_scale, 0.5);
    assert_eq!(written.objects, original.objects);
    assert_eq!(written.actions, original.actions);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reload_restarts_the_scene_but_keeps_the_chosen_fixed_rate() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(demo()));
    send(Command::SetFixedRate(30));
    for _ in 0..20 {
        w.pump(DT);
    }
    send(Command::Reload);
    w.pump(1.0 / 30.0);
    // Simulation time restarted with the new session: one 1/30 s frame at the
    // kept 30 Hz is exactly one tick.
    for _ in 0..9 {
        w.pump(1.0 / 30.0);
    }
    let view = ui.views.try_iter().last().expect("a view");
    assert_eq!(view.clock.simulation_tick, 10);
    assert_eq!(view.settings.fixed_hz, 30);
    assert!((view.clock.fixed_delta_time - 1.0 / 30.0).abs() < 1e-12);
}
