//! The worker and its channels without any UI: latest-wins views, one
//! ordered stream of telemetry and events that loses nothing, and a paced
//! thread that keeps running while nobody reads.

use std::time::{Duration, Instant};

use stepframe_app::editor::protocol::FrameTelemetry;
use stepframe_app::editor::protocol::{Command, Event, Pacing};
use stepframe_app::editor::worker::{self, Worker};
use stepframe_core::{
    Breakpoint, HookKind, InputEvent, InputSource, ObjectId, RecordedEvent, Recording,
    SuspendReason,
};

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

/// The newest live view the worker published.
fn latest_view(ui: &worker::UiEnd) -> Option<stepframe_app::editor::WorldView> {
    ui.views.try_iter().last()
}

#[test]
fn keys_typed_while_suspended_reach_the_tick_f10_steps() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(demo()));
    for _ in 0..30 {
        w.pump(DT);
    }
    send(Command::Pause);
    w.pump(DT);
    // Space typed in the viewport while suspended, then F10: a lone tick,
    // no outer frame begins, and yet tick 31 receives the press.
    send(Command::Input(InputEvent::press(InputSource::Key(
        "Space".into(),
    ))));
    send(Command::StepTick);
    w.pump(DT);
    let view = latest_view(&ui).expect("a view");
    assert_eq!(view.clock.simulation_tick, 31);
    let at31: Vec<f32> = view.tape.events_at(31).iter().map(|e| e.value).collect();
    assert_eq!(at31, vec![1.0], "tick 31 received the press");
}

/// The demo at one worker pacing: play to tick 500, then "Resume from here"
/// with the recorded tape plus a tap of Space at tick 412 (the Input tab's
/// `ApplyTape`), play on to tick 700 and ask for the past view of tick 600.
fn what_if_in_the_worker(pacing: Pacing, dt: f64) -> (u64, Recording) {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, pacing, None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(demo()));
    let mut live = None;
    while live
        .as_ref()
        .is_none_or(|v: &stepframe_app::editor::WorldView| v.clock.simulation_tick < 500)
    {
        w.pump(dt);
        live = latest_view(&ui).or(live);
    }
    let mut tape = (*live.expect("a view").tape).clone();
    for value in [1.0, 0.0] {
        tape.insert(RecordedEvent {
            tick: 412,
            source: InputSource::Key("Space".into()),
            value,
        });
    }
    send(Command::ApplyTape { tape, from: 411 });
    send(Command::Play);
    let mut live = None;
    while live
        .as_ref()
        .is_none_or(|v: &stepframe_app::editor::WorldView| v.clock.simulation_tick < 700)
    {
        w.pump(dt);
        live = latest_view(&ui).or(live);
    }
    let received = (*live.expect("a view").tape).clone();
    send(Command::ViewTick(600));
    w.pump(dt);
    let past = ui
        .past_views
        .try_iter()
        .last()
        .expect("the view of tick 600");
    assert_eq!(past.at_tick, Some(600));
    (past.state_hash, received)
}

#[test]
fn an_edited_tape_applied_in_the_worker_replays_identically_at_30_60_and_144_hz() {
    // No live keys are pressed, so the demo receives only the tap: at every
    // pacing tick 412 gets press and release, and tick 600 is the same state.
    let runs: Vec<(u64, Recording)> = [(30, 1.0 / 30.0), (60, 1.0 / 60.0), (144, 1.0 / 144.0)]
        .into_iter()
        .map(|(hz, dt)| what_if_in_the_worker(Pacing::Hz(hz), dt))
        .collect();
    for (hash, received) in &runs {
        let stamps: Vec<(u64, f32)> = received.events.iter().map(|e| (e.tick, e.value)).collect();
        assert_eq!(stamps, vec![(412, 1.0), (412, 0.0)]);
        assert_eq!(*hash, runs[0].0);
    }
    // The same state as a headless run that gets the tap at tick 412 with
    // no rewind at all.
    let mut tap = Recording::new(60);
    for value in [1.0, 0.0] {
        tap.insert(RecordedEvent {
            tick: 412,
            source: InputSource::Key("Space".into()),
            value,
        });
    }
    let registry = stepframe_app::player::registry(&demo());
    let scene = stepframe_core::Scene::load(&demo(), &registry).expect("demo");
    let mut p = stepframe_core::Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry).expect("session");
    p.set_tick_input(Some(Box::new(stepframe_core::Replay::new(tap))));
    while p.stepper().completed_ticks() < 600 {
        p.step_frame(DT);
    }
    assert_eq!(
        p.state_hash(),
        runs[0].0,
        "the worker's tick 600 is a headless run's"
    );
    let mut untouched = stepframe_core::Pipeline::new(scene.settings.time);
    untouched.load_scene(&scene, &registry).expect("session");
    while untouched.stepper().completed_ticks() < 600 {
        untouched.step_frame(DT);
    }
    assert_ne!(
        untouched.state_hash(),
        runs[0].0,
        "the tap changed tick 600"
    );
}

/// The demo run headless at 60 Hz to `tick`, with `tape` as its tick input.
fn headless_with(tape: Recording, tick: u64) -> stepframe_core::Pipeline {
    let registry = stepframe_app::player::registry(&demo());
    let scene = stepframe_core::Scene::load(&demo(), &registry).expect("demo");
    let mut p = stepframe_core::Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry).expect("session");
    p.set_tick_input(Some(Box::new(stepframe_core::Replay::new(tape))));
    while p.stepper().completed_ticks() < tick {
        p.step_frame(DT);
    }
    p
}

/// A tap of Space (press and release) in tick `tick`.
fn tap_at(tick: u64) -> Recording {
    let mut tape = Recording::new(60);
    for value in [1.0, 0.0] {
        tape.insert(RecordedEvent {
            tick,
            source: InputSource::Key("Space".into()),
            value,
        });
    }
    tape
}

/// Forks the demo at tick 100 at one worker pacing, gives branch B a tap of
/// Space at tick 110, plays A and B side by side to tick 160 or beyond, and
/// returns the divergences, B's records and the worker.
fn fork_run(
    pacing: Pacing,
    dt: f64,
) -> (
    Vec<stepframe_app::tools::trace_poses::TickDivergence>,
    Vec<stepframe_app::tools::trace_poses::TracedTick>,
    Worker,
    worker::UiEnd,
) {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, pacing, None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(demo()));
    let tick = |ui: &worker::UiEnd, last: &mut u64| {
        if let Some(v) = latest_view(ui) {
            *last = v.clock.simulation_tick;
        }
        *last
    };
    let mut last = 0;
    while tick(&ui, &mut last) < 130 {
        w.pump(dt);
    }
    send(Command::Pause);
    send(Command::ForkHere(100));
    send(Command::ForkTape {
        tape: tap_at(110),
        recorded_to: 100,
    });
    send(Command::Play);
    while tick(&ui, &mut last) < 160 {
        w.pump(dt);
    }
    send(Command::Pause);
    w.pump(dt);
    let events: Vec<Event> = ui.events.try_iter().collect();
    assert!(
        events.iter().any(|e| matches!(e, Event::Forked(100))),
        "forked"
    );
    let divergences = events
        .iter()
        .filter_map(|e| match e {
            Event::Divergence(d) => Some(d.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    let b = events
        .iter()
        .filter_map(|e| match e {
            Event::ForkTicks(t) => Some(t.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    (divergences, b, w, ui)
}

#[test]
fn a_fork_given_a_jump_at_tick_110_parts_from_the_live_session_there_and_adopts_exactly() {
    let with_tap = headless_with(tap_at(110), 160);
    let without = headless_with(Recording::new(60), 160);
    let player = |p: &stepframe_core::Pipeline| {
        p.world()
            .physics_simulation_pose(ObjectId(20))
            .expect("the player")
    };
    assert_ne!(
        player(&with_tap),
        player(&without),
        "the tap moves the player"
    );
    for (pacing, dt) in [(Pacing::Hz(60), 1.0 / 60.0), (Pacing::Hz(144), 1.0 / 144.0)] {
        let (divergences, b, mut w, ui) = fork_run(pacing, dt);
        // A and B agree up to tick 109; the player parts at 110.
        let first = divergences
            .iter()
            .find(|d| d.objects > 0)
            .expect("the branches part");
        assert_eq!(first.tick, 110, "{pacing:?}");
        assert_eq!(first.first_object, Some(20), "{pacing:?}");
        assert!(
            divergences
                .iter()
                .filter(|d| d.tick < 110)
                .all(|d| d.objects == 0)
        );
        assert_eq!(
            divergences.iter().filter(|d| d.tick == 101).count(),
            1,
            "each tick once"
        );
        // B's tick 160 is a headless run's with the tap; A's, one without.
        let b160 = b.iter().find(|t| t.tick == 160).expect("B ran tick 160");
        let p = player(&with_tap);
        assert_eq!(
            b160.object(20).map(|f| [f[0], f[1], f[2]]),
            Some([p.x, p.y, p.angle]),
            "{pacing:?}"
        );
        ui.commands.send(Command::ViewTick(160)).expect("alive");
        w.pump(dt);
        let past = ui.past_views.try_iter().last().expect("A at 160");
        assert_eq!(
            past.state_hash,
            without.state_hash(),
            "A unchanged, {pacing:?}"
        );
        // Adopted, B is the live session: exactly the headless run with the
        // tap at the tick it stands at.
        ui.commands.send(Command::AdoptFork).expect("alive");
        w.pump(dt);
        let live = latest_view(&ui).expect("a view");
        let at = live.clock.simulation_tick;
        assert_eq!(
            live.state_hash,
            headless_with(tap_at(110), at).state_hash(),
            "{pacing:?}"
        );
    }
}
