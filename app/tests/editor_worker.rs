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
    // A frozen UI: nothing is read until the worker has run 36 frames (0.6 s
    // at 60 Hz on an idle machine; a loaded one takes longer, which changes
    // nothing here). The test only looks at how much is waiting in the
    // ordered channel, so the worker is never answered meanwhile.
    let t0 = Instant::now();
    while ui.events.len() < 40 {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the worker stopped with {} messages waiting for the UI",
            ui.events.len()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let frames = frames_of(&ui.events.try_iter().collect::<Vec<_>>());
    let views: Vec<_> = ui.views.try_iter().collect();
    assert_eq!(views.len(), 1, "latest wins: one view waiting");
    // Every frame so far is in the telemetry, and the last view is at most a
    // frame or two older than the last telemetry frame.
    let last = frames.last().map(|f| f.clock.frame_index).unwrap_or(0);
    assert_eq!(frames.len() as u64, last, "no frame lost");
    assert!(views[0].clock.frame_index <= last);
    // A worker blocked on the UI would have run at most one frame.
    assert!(last >= 30, "only {last} frames");
    // Paced at 60 Hz, never faster: frame k runs no earlier than its
    // deadline, (k - 1) periods after the first, however fast the machine.
    // (A late frame only moves later deadlines later.)
    let period = 1.0 / 60.0;
    let paced: f64 = frames[1..].iter().map(|f| f.real_dt).sum();
    assert!(
        paced >= (frames.len() - 1) as f64 * period * 0.99,
        "{} frames after the first in {paced} s: faster than 60 Hz",
        frames.len() - 1
    );
    // Pause is applied promptly and no frame runs after it.
    ui.commands.send(Command::Pause).expect("alive");
    let t0 = Instant::now();
    let paused = loop {
        if let Ok(Event::Suspended(s)) = ui.events.recv_timeout(Duration::from_secs(30)) {
            break s;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "no suspension event"
        );
    };
    assert!(matches!(paused.reason, SuspendReason::Pause));
    // A negative check needs a window; a slow machine only makes it stricter
    // (no frame may run in it), so it cannot fail for want of speed.
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

#[test]
fn a_rewind_before_a_time_scale_change_brings_the_old_scale_back_to_the_toolbar() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(demo()));
    for _ in 0..30 {
        w.pump(DT);
    }
    send(Command::SetTimeScale(0.5));
    for _ in 0..30 {
        w.pump(DT);
    }
    send(Command::Pause);
    w.pump(DT);
    assert_eq!(latest_view(&ui).expect("a view").settings.time_scale, 0.5);
    // Tick 20 ran at scale 1, and the session rewound there runs on at it.
    send(Command::RewindTo(20));
    w.pump(DT);
    let view = latest_view(&ui).expect("a view");
    assert_eq!(view.clock.simulation_tick, 20);
    assert_eq!(
        view.settings.time_scale, 1.0,
        "the toolbar shows tick 20's scale"
    );
    send(Command::Play);
    for _ in 0..10 {
        w.pump(DT);
    }
    let view = latest_view(&ui).expect("a view");
    assert_eq!(
        view.clock.simulation_tick, 30,
        "ten frames at scale 1, ten ticks"
    );
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

/// What the events of one kind carried, flattened in order: `pick` says
/// which event kind and gives its batch.
fn batches_in<'e, T: Clone + 'e>(
    events: &'e [Event],
    pick: impl Fn(&'e Event) -> Option<&'e Vec<T>>,
) -> Vec<T> {
    events.iter().filter_map(pick).flatten().cloned().collect()
}

/// Every divergence sample the worker sent among `events`, in order.
fn divergences_in(events: &[Event]) -> Vec<stepframe_app::tools::trace_poses::TickDivergence> {
    batches_in(events, |e| match e {
        Event::Divergence(d) => Some(d),
        _ => None,
    })
}

/// The first measured tick where A and B differ.
fn first_parting(events: &[Event]) -> stepframe_app::tools::trace_poses::TickDivergence {
    divergences_in(events)
        .into_iter()
        .find(|d| d.objects > 0)
        .expect("the branches part")
}

/// Branch B's records among `events`, in order.
fn fork_ticks_in(events: &[Event]) -> Vec<stepframe_app::tools::trace_poses::TracedTick> {
    batches_in(events, |e| match e {
        Event::ForkTicks(t) => Some(t),
        _ => None,
    })
}

/// No request among them was refused.
fn assert_no_errors(events: &[Event]) {
    let errors: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::Error(_)))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
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
    (divergences_in(&events), fork_ticks_in(&events), w, ui)
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

/// Collects every tick's record of a headless run.
struct Traced(std::sync::Arc<std::sync::Mutex<Vec<stepframe_app::tools::trace_poses::TracedTick>>>);

impl stepframe_core::TickObserver for Traced {
    fn on_tick(&mut self, record: &stepframe_core::TickRecord<'_>) {
        self.0
            .lock()
            .expect("one thread")
            .push(stepframe_app::tools::trace_poses::traced_tick(
                record.clock.simulation_tick,
                record.clock.frame_index,
                record.world,
            ));
    }
}

/// The demo's player parameters as the scene authors them, and with a jump
/// impulse of 13 N·s instead of 6.5: literal text, so the expected runs do
/// not come from the code under test.
const PLAYER_PARAMS: &str =
    "(move_force: 25.0, max_speed: 7.0, jump_impulse: 6.5, charge_impulse_per_second: 6.0)";
const PLAYER_PARAMS_HIGH: &str =
    "(move_force: 25.0, max_speed: 7.0, jump_impulse: 13.0, charge_impulse_per_second: 6.0)";

/// A headless 60 Hz run of `scene_text` (the demo's file, maybe edited) with
/// a tap of Space at tick 110, to tick 170: every tick's record and the
/// state hash at every tick from 100 on. With `params_at_100`, the player's
/// behaviour is given those parameters at the end of tick 100 through
/// [`stepframe_core::Pipeline::set_behaviour_params`].
fn headless_jump(
    scene_text: &str,
    params_at_100: Option<&str>,
) -> (
    Vec<stepframe_app::tools::trace_poses::TracedTick>,
    std::collections::BTreeMap<u64, u64>,
) {
    let registry = stepframe_app::player::registry(&demo());
    let scene = stepframe_core::Scene::parse(scene_text, &demo(), &registry).expect("the demo");
    let mut p = stepframe_core::Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry).expect("session");
    p.set_tick_input(Some(Box::new(stepframe_core::Replay::new(tap_at(110)))));
    let records = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    p.set_tick_observer(Some(Box::new(Traced(records.clone()))));
    let mut hashes = std::collections::BTreeMap::new();
    for tick in 100..=170 {
        run_to_end_of(&mut p, tick);
        hashes.insert(tick, p.state_hash());
        if tick == 100
            && let Some(params) = params_at_100
        {
            p.set_behaviour_params(ObjectId(20), 0, params, &registry)
                .expect("the player takes new parameters");
        }
    }
    let records = records.lock().expect("one thread").clone();
    (records, hashes)
}

/// Runs 60 Hz frames until the end of `tick`, stopping there even inside a
/// frame (the pipeline is then suspended at that tick's end).
fn run_to_end_of(p: &mut stepframe_core::Pipeline, tick: u64) {
    p.set_stop_after_tick(Some(tick));
    while p.stepper().completed_ticks() < tick {
        if p.suspension().is_some() {
            p.resume();
        } else {
            p.step_frame(DT);
        }
    }
}

/// A tick and its objects' fields.
type TickFields = (u64, Vec<(u64, stepframe_app::tools::trace_poses::Fields)>);

/// The first tick whose records differ, and how many objects differ there.
fn first_difference(a: &[TickFields], b: &[TickFields]) -> Option<(u64, usize)> {
    a.iter().zip(b).find(|(x, y)| x != y).map(|(x, y)| {
        let differ = x.1.iter().zip(&y.1).filter(|(p, q)| p != q).count();
        (x.0, differ)
    })
}

#[test]
fn a_fork_with_a_higher_jump_impulse_parts_at_the_jump_and_leaves_the_live_session_exact() {
    let demo_text = std::fs::read_to_string(demo()).expect("the demo file");
    assert!(demo_text.contains(PLAYER_PARAMS), "the demo authors these");
    let edited = demo_text.replace(PLAYER_PARAMS, PLAYER_PARAMS_HIGH);
    // A: the demo as authored with the tap; B: the same, its player built
    // with the higher impulse (no jump before tick 110, so loading it at
    // the start or at tick 100 is the same run).
    let (a_records, a_hashes) = headless_jump(&demo_text, None);
    let (b_records, _) = headless_jump(&edited, None);
    let (b_loaded_at_100, _) = headless_jump(&demo_text, Some(PLAYER_PARAMS_HIGH));
    let from_101 = |r: &[stepframe_app::tools::trace_poses::TracedTick]| -> Vec<_> {
        r.iter()
            .filter(|t| t.tick > 100)
            .map(|t| (t.tick, t.objects.clone()))
            .collect()
    };
    assert_eq!(
        first_difference(&from_101(&b_loaded_at_100), &from_101(&b_records)),
        None,
        "the parameters set at tick 100 are a run loaded with them"
    );
    let player_y = |r: &[stepframe_app::tools::trace_poses::TracedTick], tick: u64| {
        r.iter()
            .find(|t| t.tick == tick)
            .and_then(|t| t.object(20))
            .map(|f| f[1])
    };
    assert!(
        player_y(&b_records, 130) > player_y(&a_records, 130),
        "the higher impulse jumps higher"
    );

    for (pacing, dt) in [(Pacing::Hz(60), 1.0 / 60.0), (Pacing::Hz(144), 1.0 / 144.0)] {
        let (ui, end) = worker::channels();
        let mut w = Worker::new(end, pacing, None);
        let send = |c| ui.commands.send(c).expect("the worker end is alive");
        send(Command::LoadAndPlay(demo()));
        let mut last = 0;
        let mut tick = |w: &mut Worker, ui: &worker::UiEnd| {
            w.pump(dt);
            if let Some(v) = latest_view(ui) {
                last = v.clock.simulation_tick;
            }
            last
        };
        while tick(&mut w, &ui) < 120 {}
        send(Command::Pause);
        // A's future gets the tap at 110; B forks at 100 and gets the same
        // input with the higher impulse.
        send(Command::ApplyTape {
            tape: tap_at(110),
            from: 100,
        });
        send(Command::ForkHere(100));
        send(Command::ForkParams {
            object: ObjectId(20),
            index: 0,
            params: PLAYER_PARAMS_HIGH.to_string(),
        });
        send(Command::Play);
        while tick(&mut w, &ui) < 170 {}
        send(Command::Pause);
        w.pump(dt);
        let events: Vec<Event> = ui.events.try_iter().collect();
        assert_no_errors(&events);
        let all = fork_ticks_in(&events);
        // B's first record is the fork tick itself (A's state there).
        assert_eq!(all.first().map(|t| t.tick), Some(100), "{pacing:?}");
        let b: Vec<_> = all
            .into_iter()
            .filter(|t| t.tick > 100 && t.tick <= 170)
            .collect();
        // B, tick for tick, is the run loaded with the higher impulse.
        assert_eq!(b.first().map(|t| t.tick), Some(101), "{pacing:?}");
        let expected: Vec<_> = from_101(&b_records)
            .into_iter()
            .filter(|(t, _)| *t <= b.last().map_or(0, |l| l.tick))
            .collect();
        assert_eq!(b.len(), expected.len(), "{pacing:?}");
        assert_eq!(
            first_difference(&from_101(&b), &expected),
            None,
            "{pacing:?}"
        );
        assert!(b.last().is_some_and(|l| l.tick >= 170), "{pacing:?}");
        // The branches part at the jump, on the player first.
        let first = first_parting(&events);
        assert_eq!(
            (first.tick, first.first_object),
            (110, Some(20)),
            "{pacing:?}"
        );
        // A, tick for tick, is the unforked run.
        for t in 100..=170 {
            send(Command::ViewTick(t));
            w.pump(dt);
            let past = ui.past_views.try_iter().last().expect("a past view");
            assert_eq!(past.at_tick, Some(t));
            assert_eq!(past.state_hash, a_hashes[&t], "A at tick {t}, {pacing:?}");
        }
    }
}

/// The bundled scripts scene: a guard (object 3) walks right at 1.5 m/s
/// from x = -2 (0.025 m a tick at 60 Hz) under `patrol.rhai`.
fn scripts_scene() -> std::path::PathBuf {
    demo().with_file_name("scripts.ron")
}

/// `patrol.rhai` walking at twice its speed.
fn fast_patrol(text: &str) -> String {
    let line = "let next = x + dir * speed * dt;";
    assert!(text.contains(line), "patrol.rhai has its step line");
    text.replace(line, "let next = x + dir * speed * 2.0 * dt;")
}

#[test]
fn a_script_run_in_b_reaches_b_only_and_the_file_stays_as_it_was() {
    let scene = scripts_scene();
    let patrol_file = scene
        .parent()
        .and_then(|d| d.parent())
        .expect("assets/")
        .join("scripts/patrol.rhai");
    let original = std::fs::read_to_string(&patrol_file).expect("patrol.rhai");
    // Headless references: A as authored; B given the fast text at the end
    // of tick 60 through a host of its own.
    let headless = |fast_at_60: bool| {
        let host = stepframe_plugins::ScriptHost::new();
        let registry = stepframe_plugins::registry_for(&host, scene.parent().expect("scenes/"));
        let s = stepframe_core::Scene::load(&scene, &registry).expect("scripts.ron");
        let mut p = stepframe_core::Pipeline::new(s.settings.time);
        p.load_scene(&s, &registry).expect("session");
        let mut hashes = std::collections::BTreeMap::new();
        let mut guard_x = std::collections::BTreeMap::new();
        for tick in 60..=90 {
            run_to_end_of(&mut p, tick);
            hashes.insert(tick, p.state_hash());
            let x = p
                .world()
                .physics_simulation_pose(ObjectId(3))
                .expect("the guard")
                .x;
            guard_x.insert(tick, x);
            if tick == 60 && fast_at_60 {
                host.reload_text(&patrol_file, &fast_patrol(&original))
                    .expect("the fast patrol compiles");
            }
        }
        (hashes, guard_x)
    };
    let (a_hashes, a_x) = headless(false);
    let (_, b_x) = headless(true);
    // The edit doubles the guard's pace (independent of the code: 20 ticks
    // at 0.025 m against 0.05 m).
    assert!(((a_x[&80] - a_x[&60]) - 0.5).abs() < 1e-4, "{a_x:?}");
    assert!(((b_x[&80] - b_x[&60]) - 1.0).abs() < 1e-4, "{b_x:?}");

    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(scene.clone()));
    let mut last = 0;
    let mut key = None;
    while last < 70 {
        w.pump(DT);
        if let Some(v) = latest_view(&ui) {
            last = v.clock.simulation_tick;
            key = key.or_else(|| {
                v.scripts
                    .loaded
                    .iter()
                    .find(|s| s.key.ends_with("patrol.rhai"))
                    .map(|s| s.key.clone())
            });
        }
    }
    let key = key.expect("the scene runs patrol.rhai");
    send(Command::Pause);
    send(Command::ForkHere(60));
    send(Command::ForkScript {
        key: key.clone(),
        text: fast_patrol(&original),
    });
    send(Command::Play);
    while last < 90 {
        w.pump(DT);
        if let Some(v) = latest_view(&ui) {
            last = v.clock.simulation_tick;
        }
    }
    send(Command::Pause);
    w.pump(DT);
    let events: Vec<Event> = ui.events.try_iter().collect();
    assert_no_errors(&events);
    // B's guard walks the fast text's path, A's the file's.
    let b_guard: std::collections::BTreeMap<u64, f32> = fork_ticks_in(&events)
        .into_iter()
        .filter(|t| t.tick > 60 && t.tick <= 90)
        .filter_map(|t| Some((t.tick, t.object(3)?[0])))
        .collect();
    assert_eq!(b_guard.keys().next(), Some(&61));
    for (tick, x) in &b_guard {
        assert_eq!(*x, b_x[tick], "B's guard at tick {tick}");
    }
    for t in [61, 75, 90] {
        send(Command::ViewTick(t));
        w.pump(DT);
        let past = ui.past_views.try_iter().last().expect("a past view");
        assert_eq!(past.state_hash, a_hashes[&t], "A at tick {t}");
    }
    assert_eq!(
        std::fs::read_to_string(&patrol_file).ok(),
        Some(original.clone()),
        "the file is not written"
    );
    // Adopted, the session runs the fast text, and the code pane shows it.
    send(Command::AdoptFork);
    w.pump(DT);
    let v = latest_view(&ui).expect("a view");
    let shown = v
        .scripts
        .loaded
        .iter()
        .find(|s| s.key == key)
        .map(|s| s.text.to_string());
    assert_eq!(shown, Some(fast_patrol(&original)));
}

#[test]
fn parameters_set_in_b_and_adopted_are_what_save_writes() {
    // push.ron and its script in a scratch assets/ layout.
    let dir = std::env::temp_dir().join(format!("stepframe-adopt-save-{}", std::process::id()));
    let assets = demo()
        .parent()
        .and_then(|d| d.parent())
        .expect("assets/")
        .to_path_buf();
    for (sub, file) in [("scenes", "push.ron"), ("scripts", "push.rhai")] {
        std::fs::create_dir_all(dir.join(sub)).expect("scratch");
        std::fs::copy(assets.join(sub).join(file), dir.join(sub).join(file)).expect("copy");
    }
    let scene = dir.join("scenes/push.ron");
    let fixed = r#"(path: "scripts/push.rhai", vars: {"force": 1.0, "per_frame": false})"#;

    // At 144 Hz the authored script pushes 2.4 times a tick; B, set to push
    // once per tick, parts from A at the first tick after the fork.
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(144), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(scene.clone()));
    let mut last = 0;
    let mut run_to = |w: &mut Worker, tick: u64| {
        while last < tick {
            w.pump(1.0 / 144.0);
            if let Some(v) = latest_view(&ui) {
                last = v.clock.simulation_tick;
            }
        }
    };
    run_to(&mut w, 30);
    send(Command::Pause);
    send(Command::ForkHere(10));
    send(Command::ForkParams {
        object: ObjectId(2),
        index: 0,
        params: fixed.to_string(),
    });
    send(Command::Play);
    run_to(&mut w, 40);
    send(Command::Pause);
    send(Command::AdoptFork);
    w.pump(1.0 / 144.0);
    let events: Vec<Event> = ui.events.try_iter().collect();
    let first = first_parting(&events);
    assert_eq!((first.tick, first.first_object), (11, Some(2)));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Notice(n) if n.contains("Save writes them"))),
        "the user is told"
    );

    // Save asks first (push.ron is hand-written), then writes B's parameters.
    send(Command::Save { replace: false });
    w.pump(1.0 / 144.0);
    let asked = ui
        .events
        .try_iter()
        .any(|e| matches!(e, Event::ConfirmSave { .. }));
    assert!(asked, "a hand-written file is only replaced when confirmed");
    send(Command::Save { replace: true });
    w.pump(1.0 / 144.0);
    let registry = stepframe_app::player::registry(&scene);
    let saved = stepframe_core::Scene::load(&scene, &registry).expect("the saved scene loads");
    let params = &saved.find(2).expect("the ball").behaviours[0].params;
    assert!(params.contains(r#""per_frame": false"#), "{params}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_scene_just_opened_can_be_forked_and_resumed_from_tick_0() {
    let scene = demo().with_file_name("push.ron");
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(144), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    // Opened, shown at tick 0 and suspended: no frame has run, so the
    // history holds no keyframe yet.
    send(Command::Load(scene));
    w.pump(1.0 / 144.0);
    send(Command::RewindTo(0));
    send(Command::ForkHere(0));
    send(Command::ForkParams {
        object: ObjectId(2),
        index: 0,
        params: r#"(path: "scripts/push.rhai", vars: {"force": 1.0, "per_frame": false})"#
            .to_string(),
    });
    send(Command::Play);
    let mut last = 0;
    while last < 20 {
        w.pump(1.0 / 144.0);
        if let Some(v) = latest_view(&ui) {
            last = v.clock.simulation_tick;
        }
    }
    let events: Vec<Event> = ui.events.try_iter().collect();
    assert_no_errors(&events);
    assert!(events.iter().any(|e| matches!(e, Event::Rewound(0))));
    assert!(events.iter().any(|e| matches!(e, Event::Forked(0))));
    // Pushed per frame (A) against once per tick (B): apart from tick 1.
    let first = first_parting(&events);
    assert_eq!((first.tick, first.first_object), (1, Some(2)));
}

#[test]
fn the_editors_own_commands_never_step_the_session_around_its_history() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    let space = |value| {
        Command::Input(InputEvent {
            source: InputSource::Key("Space".into()),
            value,
        })
    };
    send(Command::LoadAndPlay(demo()));
    let pump = |w: &mut Worker, frames: usize| {
        for _ in 0..frames {
            w.pump(DT);
        }
    };
    pump(&mut w, 30);
    for command in [
        space(1.0),
        Command::SetTimeScale(0.5),
        Command::Pause,
        Command::StepTick,
        space(0.0),
        Command::StepFrame,
        Command::SetFixedRate(30),
        Command::Play,
    ] {
        send(command);
        pump(&mut w, 5);
    }
    send(Command::Pause);
    send(Command::RewindTo(20));
    send(Command::ForkHere(15));
    pump(&mut w, 2);
    send(Command::Play);
    pump(&mut w, 10);
    send(Command::AdoptFork);
    send(Command::Play);
    pump(&mut w, 10);
    send(Command::Reload);
    pump(&mut w, 10);
    let warnings: Vec<String> = ui
        .events
        .try_iter()
        .filter_map(|e| match e {
            Event::Log(lines) => Some(lines),
            _ => None,
        })
        .flatten()
        .map(|l| l.message)
        .filter(|m| m.contains("around its history"))
        .collect();
    assert!(warnings.is_empty(), "{warnings:?}");
}

// ----- One source of truth: what the worker shows happened ------------------

/// Pumps until the live view reaches `tick` (or `frames` pumps ran) and
/// returns the newest live view.
fn pump_to(
    w: &mut Worker,
    ui: &worker::UiEnd,
    tick: u64,
    frames: usize,
) -> stepframe_app::editor::WorldView {
    let mut live = None;
    for _ in 0..frames {
        w.pump(DT);
        live = latest_view(ui).or(live);
        if live
            .as_ref()
            .is_some_and(|v| v.clock.simulation_tick >= tick)
        {
            break;
        }
    }
    live.expect("a view")
}

/// Every event's log line text.
fn log_lines(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Log(lines) => Some(lines.iter().map(|l| l.message.clone())),
            _ => None,
        })
        .flatten()
        .collect()
}

/// Every tick's hash, as a headless run's observer saw it.
#[derive(Clone, Default)]
struct Seen(std::sync::Arc<std::sync::Mutex<std::collections::BTreeMap<u64, u64>>>);

impl stepframe_core::TickObserver for Seen {
    fn on_tick(&mut self, r: &stepframe_core::TickRecord<'_>) {
        self.0
            .lock()
            .expect("lock")
            .insert(r.clock.simulation_tick, r.hash);
    }
}

impl Seen {
    fn hashes(&self) -> std::collections::BTreeMap<u64, u64> {
        self.0.lock().expect("lock").clone()
    }
}

/// The per-tick hashes of the demo run headless in frames of 1/60 s, its
/// fixed rate set to 50 Hz after the first `frames_at_60` frames.
fn headless_rate_change(frames_at_60: u64, ticks: u64) -> std::collections::BTreeMap<u64, u64> {
    let registry = stepframe_app::player::registry(&demo());
    let scene = stepframe_core::Scene::load(&demo(), &registry).expect("demo");
    let mut p = stepframe_core::Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry).expect("session");
    let seen = Seen::default();
    p.set_tick_observer(Some(Box::new(seen.clone())));
    let mut frames = 0;
    while p.stepper().completed_ticks() < ticks {
        if frames == frames_at_60 {
            let mut s = *p.settings();
            s.fixed_hz = 50;
            p.set_settings(s).expect("valid");
        }
        p.step_frame(DT);
        frames += 1;
    }
    seen.hashes()
}

#[test]
fn a_fixed_rate_change_keeps_the_tick_count_and_rewinds_work_on_both_sides() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(demo()));
    let at_600 = pump_to(&mut w, &ui, 600, 700);
    assert_eq!(at_600.clock.simulation_tick, 600);
    let frames_at_60 = at_600.clock.frame_index;
    send(Command::SetFixedRate(50));
    let live = pump_to(&mut w, &ui, 900, 1000);
    assert_eq!(
        live.clock.simulation_tick, 900,
        "the tick counter goes on across the change"
    );
    // 600 ticks of 1/60 s and 300 of 1/50 s: 10 s + 6 s.
    assert_eq!(live.clock.simulation_time, 16.0);
    let events: Vec<Event> = ui.events.try_iter().collect();
    assert!(
        log_lines(&events).contains(&"fixed rate 60 → 50 Hz at tick 600".to_string()),
        "{:?}",
        log_lines(&events)
    );

    // Both sides of the change, as a headless run with the same change at
    // the same frame has them.
    let headless = headless_rate_change(frames_at_60, 900);
    for tick in [300u64, 900, 700] {
        send(Command::RewindTo(tick));
        w.pump(DT);
        let events: Vec<Event> = ui.events.try_iter().collect();
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::Rewound(t) if *t == tick)),
            "rewound to {tick}: {events:?}"
        );
        let view = latest_view(&ui).expect("a view");
        assert_eq!(view.clock.simulation_tick, tick);
        assert_eq!(view.state_hash, headless[&tick], "tick {tick}");
        let hz = if tick > 600 { 50.0 } else { 60.0 };
        assert_eq!(view.clock.fixed_delta_time, 1.0 / hz, "tick {tick}");
    }
}

#[test]
fn a_past_view_after_an_inspector_edit_shows_the_edit() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(demo()));
    pump_to(&mut w, &ui, 120, 200);
    send(Command::Pause);
    send(Command::Select(Some(ObjectId(20))));
    w.pump(DT);
    let paused = latest_view(&ui).expect("a view");
    let edited_at = paused.clock.simulation_tick;
    let mut pose = paused.selected.as_ref().expect("the player").committed;
    pose.y = 3.0;
    send(Command::EditPose(ObjectId(20), pose));
    // Ball 203 disabled from the hierarchy at the same moment.
    send(Command::SetEnabled(ObjectId(203), false));
    let mut live_at = Vec::new();
    for _ in 0..5 {
        send(Command::StepTick);
        w.pump(DT);
        let v = latest_view(&ui).expect("a view");
        live_at.push((
            v.clock.simulation_tick,
            v.selected.as_ref().expect("the player").committed,
            v.state_hash,
        ));
    }
    let (_, last_pose, _) = live_at[4];
    assert!(last_pose.y > 2.9, "the player was lifted: {last_pose:?}");
    for (tick, committed, hash) in live_at {
        assert!(tick > edited_at);
        send(Command::ViewTick(tick));
        w.pump(DT);
        let past = ui.past_views.try_iter().last().expect("a past view");
        assert_eq!(past.at_tick, Some(tick));
        let shown = past.selected.as_ref().expect("the player").committed;
        assert_eq!(
            shown, committed,
            "the past view of tick {tick} shows the edit"
        );
        assert_eq!(past.state_hash, hash, "tick {tick}");
        let ball = past
            .objects
            .iter()
            .find(|o| o.id == ObjectId(203))
            .expect("ball 203");
        assert!(!ball.enabled, "tick {tick}: ball 203 is disabled");
    }
}

/// Per-tick hashes of the demo replaying `recording` headless in frames of
/// `dt` until tick `ticks`.
fn replayed_hashes(
    recording: &Recording,
    dt: f64,
    ticks: u64,
) -> std::collections::BTreeMap<u64, u64> {
    let registry = stepframe_app::player::registry(&demo());
    let scene = stepframe_core::Scene::load(&demo(), &registry).expect("demo");
    let mut p = stepframe_core::Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry).expect("session");
    let replay =
        stepframe_core::Replay::with_registry(recording.clone(), &registry).expect("edits fit");
    p.set_tick_input(Some(Box::new(replay)));
    let seen = Seen::default();
    p.set_tick_observer(Some(Box::new(seen.clone())));
    while p.stepper().completed_ticks() < ticks {
        p.step_frame(dt);
    }
    seen.hashes()
}

#[test]
fn a_saved_session_recording_replays_the_editors_ticks_bit_for_bit_at_30_60_and_144_hz() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(demo()));
    // Paused at tick 121: the edits apply before tick 122, which a 30 Hz
    // replay runs second in its frame (mid-frame).
    pump_to(&mut w, &ui, 121, 200);
    // Paused at tick 121: the player lifted to y = 3 and given a stronger
    // jump, ball 203 disabled.
    send(Command::Pause);
    send(Command::Select(Some(ObjectId(20))));
    w.pump(DT);
    let view = latest_view(&ui).expect("a view");
    let mut pose = view.selected.as_ref().expect("the player").committed;
    pose.y = 3.0;
    send(Command::EditPose(ObjectId(20), pose));
    send(Command::EditParams {
        object: ObjectId(20),
        index: 0,
        params: "(move_force: 25.0, max_speed: 7.0, jump_impulse: 9.0, \
                 charge_impulse_per_second: 6.0)"
            .into(),
    });
    send(Command::SetEnabled(ObjectId(203), false));
    send(Command::Play);
    pump_to(&mut w, &ui, 200, 200);
    // A jump, to feel the new impulse; then the fixed rate goes to 50 Hz.
    send(Command::Input(InputEvent::press(InputSource::Key(
        "Space".into(),
    ))));
    w.pump(DT);
    send(Command::Input(InputEvent::release(InputSource::Key(
        "Space".into(),
    ))));
    // The rate change takes effect before tick 302: mid-frame at 30 Hz too.
    pump_to(&mut w, &ui, 301, 200);
    send(Command::SetFixedRate(50));
    let last = pump_to(&mut w, &ui, 420, 300).clock.simulation_tick;
    send(Command::Pause);
    w.pump(DT);

    let dir = std::env::temp_dir().join(format!("stepframe-session-rec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let path = dir.join("bug.ron");
    send(Command::SaveRecording {
        path: path.clone(),
        overwrite: false,
    });
    w.pump(DT);
    let events: Vec<Event> = ui.events.try_iter().collect();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Done(t) if t.contains("session recording"))),
        "{events:?}"
    );
    let recording = Recording::load(&path).expect("the file loads");
    let kinds: Vec<String> = recording
        .edits
        .iter()
        .map(|e| {
            format!("{} {:?}", e.tick, e.edit)
                .chars()
                .take(40)
                .collect()
        })
        .collect();
    assert_eq!(recording.edits.len(), 4, "{kinds:?}");
    assert!(
        recording.edits[..3].iter().all(|e| e.tick == 122),
        "{kinds:?}"
    );
    assert!(
        matches!(recording.edits[3].edit, stepframe_core::Edit::Settings(s) if s.fixed_hz == 50),
        "{kinds:?}"
    );
    assert_eq!(recording.edits[3].tick, 302, "{kinds:?}");
    assert_eq!(recording.ticks, last);

    // The editor's own past views of these ticks...
    let ticks = [121u64, 122, 123, 150, 210, 260, 301, 302, 303, 350, last];
    let mut editor = Vec::new();
    for tick in ticks {
        send(Command::ViewTick(tick));
        w.pump(DT);
        let past = ui.past_views.try_iter().last().expect("a past view");
        assert_eq!(past.at_tick, Some(tick));
        editor.push(past.state_hash);
    }
    // ... are what the recording gives headless, at every display rate.
    for dt in [1.0 / 30.0, 1.0 / 60.0, 1.0 / 144.0] {
        let headless = replayed_hashes(&recording, dt, last);
        let got: Vec<u64> = ticks.iter().map(|t| headless[t]).collect();
        assert_eq!(got, editor, "frames of {dt} s");
    }
    // And without the edits the session is another one.
    let mut input_only = recording.clone();
    input_only.edits.clear();
    let plain = replayed_hashes(&input_only, DT, last);
    assert_ne!(plain[&150], editor[3]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn right_after_fork_here_b_has_the_fork_tick_and_after_adopt_the_history_starts_there() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(demo()));
    pump_to(&mut w, &ui, 310, 400);
    send(Command::Pause);
    send(Command::Select(Some(ObjectId(20))));
    send(Command::ForkHere(303));
    w.pump(DT);
    let events: Vec<Event> = ui.events.try_iter().collect();
    assert_no_errors(&events);
    let b = fork_ticks_in(&events);
    let first = b.first().expect("B's record of the fork tick");
    assert_eq!(first.tick, 303);
    // It is A's state at 303: the inspector's B column equals A's.
    let a = latest_view(&ui).expect("a view");
    assert_eq!(a.clock.simulation_tick, 303);
    let player = a.selected.as_ref().expect("the player").committed;
    let fields = first.object(20).expect("the player in B");
    assert_eq!((fields[0], fields[1]), (player.x, player.y));

    send(Command::AdoptFork);
    w.pump(DT);
    let events: Vec<Event> = ui.events.try_iter().collect();
    let notice = events
        .iter()
        .find_map(|e| match e {
            Event::Notice(t) if t.contains("branch B") => Some(t.clone()),
            _ => None,
        })
        .expect("the adopt notice");
    assert!(
        notice.contains("history holds 0 s (from tick 303)"),
        "{notice}"
    );
    let view = latest_view(&ui).expect("a view");
    assert_eq!(
        view.rewind.held_text(),
        "history holds 0 s (from tick 303)",
        "the Clock tab says what the notice says"
    );
}

/// A copy of `scripts.ron` and its scripts in a directory of its own, so a
/// test can change a script file: (scene, patrol.rhai, the dir to remove).
fn scripts_scene_copy(tag: &str) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("stepframe-{tag}-{}", std::process::id()));
    let assets = scripts_scene()
        .parent()
        .and_then(|d| d.parent())
        .expect("assets/")
        .to_path_buf();
    for sub in ["scenes", "scripts"] {
        std::fs::create_dir_all(dir.join(sub)).expect("a temp dir");
    }
    std::fs::copy(scripts_scene(), dir.join("scenes/scripts.ron")).expect("scene copied");
    for script in ["patrol.rhai", "pickup.rhai"] {
        std::fs::copy(
            assets.join("scripts").join(script),
            dir.join("scripts").join(script),
        )
        .expect("script copied");
    }
    (
        dir.join("scenes/scripts.ron"),
        dir.join("scripts/patrol.rhai"),
        dir,
    )
}

#[test]
fn a_script_reload_is_an_edit_past_views_and_a_saved_recording_replay_at_its_tick() {
    let (scene, patrol, dir) = scripts_scene_copy("script-reload");
    let original = std::fs::read_to_string(&patrol).expect("patrol.rhai");
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(scene.clone()));
    // Live hashes and guard positions of every tick, as the views show them.
    let mut live = std::collections::BTreeMap::new();
    let run_to =
        |w: &mut Worker, live: &mut std::collections::BTreeMap<u64, (u64, f32)>, tick: u64| {
            for _ in 0..400 {
                w.pump(DT);
                if let Some(v) = latest_view(&ui) {
                    let x = v
                        .objects
                        .iter()
                        .find(|o| o.id == ObjectId(3))
                        .expect("the guard")
                        .committed
                        .x;
                    live.insert(v.clock.simulation_tick, (v.state_hash, x));
                    if v.clock.simulation_tick >= tick {
                        return;
                    }
                }
            }
            panic!("tick {tick} never came");
        };
    run_to(&mut w, &mut live, 60);
    let reloaded_after = *live.keys().last().expect("a tick");
    std::fs::write(&patrol, fast_patrol(&original)).expect("patrol.rhai written");
    send(Command::ReloadScript(patrol.clone()));
    run_to(&mut w, &mut live, 100);
    send(Command::Pause);
    w.pump(DT);
    let events: Vec<Event> = ui.events.try_iter().collect();
    assert_no_errors(&events);
    assert!(
        events.iter().any(|e| matches!(e, Event::ScriptReloaded(_))),
        "{events:?}"
    );
    // Live, the guard walks 0.025 m a tick before the reload and 0.05 after.
    let step = |t: u64| live[&t].1 - live[&(t - 1)].1;
    assert!((step(reloaded_after) - 0.025).abs() < 1e-4, "{live:?}");
    assert!((step(reloaded_after + 5) - 0.05).abs() < 1e-4, "{live:?}");

    // Past views run each tick with the version it ran live: before the
    // reload the old text, after it the new one.
    let ticks = [
        10,
        reloaded_after - 1,
        reloaded_after,
        reloaded_after + 1,
        reloaded_after + 2,
        90,
        100,
    ];
    for tick in ticks {
        send(Command::ViewTick(tick));
        w.pump(DT);
        let past = ui.past_views.try_iter().last().expect("a past view");
        assert_eq!(past.at_tick, Some(tick));
        assert_eq!(
            past.state_hash, live[&tick].0,
            "the past view of tick {tick}"
        );
    }

    // The saved session recording carries the reload; replayed headless
    // (from the file's authored text, which is the session's start
    // version) it gives the same ticks at every display rate.
    let path = dir.join("bug.ron");
    send(Command::SaveRecording {
        path: path.clone(),
        overwrite: false,
    });
    w.pump(DT);
    let recording = Recording::load(&path).expect("the file loads");
    assert_eq!(recording.edits.len(), 1, "{:?}", recording.edits);
    assert_eq!(recording.edits[0].tick, reloaded_after + 1);
    std::fs::write(&patrol, &original).expect("patrol.rhai as authored");
    for dt in [1.0 / 30.0, 1.0 / 60.0, 1.0 / 144.0] {
        let host = stepframe_plugins::ScriptHost::new();
        let registry = stepframe_plugins::registry_for(&host, scene.parent().expect("scenes/"));
        let s = stepframe_core::Scene::load(&scene, &registry).expect("scripts.ron");
        let mut p = stepframe_core::Pipeline::new(s.settings.time);
        p.load_scene(&s, &registry).expect("session");
        let replay =
            stepframe_core::Replay::with_registry(recording.clone(), &registry).expect("edits fit");
        p.set_tick_input(Some(Box::new(replay)));
        let seen = Seen::default();
        p.set_tick_observer(Some(Box::new(seen.clone())));
        while p.stepper().completed_ticks() < 100 {
            p.step_frame(dt);
        }
        let hashes = seen.hashes();
        for tick in ticks {
            assert_eq!(
                hashes[&tick], live[&tick].0,
                "tick {tick} in frames of {dt} s"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn resume_from_a_tick_before_an_edit_drops_it_and_says_how_many() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(demo()));
    pump_to(&mut w, &ui, 120, 200);
    send(Command::Pause);
    send(Command::Select(Some(ObjectId(20))));
    w.pump(DT);
    let paused = latest_view(&ui).expect("a view");
    let edited_at = paused.clock.simulation_tick;
    let mut pose = paused.selected.as_ref().expect("the player").committed;
    pose.y = 3.0;
    send(Command::EditPose(ObjectId(20), pose));
    send(Command::SetEnabled(ObjectId(203), false));
    send(Command::Play);
    pump_to(&mut w, &ui, 200, 200);
    send(Command::Pause);
    w.pump(DT);
    let _: Vec<Event> = ui.events.try_iter().collect();

    // Resume from a tick before the two edits: a new future without them.
    let from = edited_at - 20;
    send(Command::ResumeFrom(from));
    w.pump(DT);
    let events: Vec<Event> = ui.events.try_iter().collect();
    let notices: Vec<&String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Notice(t) => Some(t),
            _ => None,
        })
        .collect();
    assert!(
        notices
            .iter()
            .any(|t| t.contains(&format!("resumed from tick {from}")) && t.contains("2 edits")),
        "{notices:?}"
    );
    send(Command::Play);
    let ticks = edited_at + 30;
    pump_to(&mut w, &ui, ticks, 300);
    send(Command::Pause);
    w.pump(DT);
    // The new future is the demo as authored: no lift, ball 203 enabled.
    let plain = headless_rate_change(u64::MAX, ticks);
    for tick in [from + 1, edited_at + 1, edited_at + 10, ticks] {
        send(Command::ViewTick(tick));
        w.pump(DT);
        let past = ui.past_views.try_iter().last().expect("a past view");
        assert_eq!(past.at_tick, Some(tick));
        assert_eq!(past.state_hash, plain[&tick], "tick {tick} has no edit");
        let ball = past
            .objects
            .iter()
            .find(|o| o.id == ObjectId(203))
            .expect("ball 203");
        assert!(ball.enabled, "tick {tick}: ball 203 is enabled again");
    }
    // And the saved session recording holds no edit.
    let dir = std::env::temp_dir().join(format!("stepframe-resume-drop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let path = dir.join("after.ron");
    send(Command::SaveRecording {
        path: path.clone(),
        overwrite: false,
    });
    w.pump(DT);
    let recording = Recording::load(&path).expect("the file loads");
    assert!(recording.edits.is_empty(), "{:?}", recording.edits);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_rate_change_while_suspended_applies_to_the_next_stepped_tick_and_is_marked() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::LoadAndPlay(demo()));
    pump_to(&mut w, &ui, 120, 200);
    send(Command::Pause);
    w.pump(DT);
    let at = latest_view(&ui).expect("a view").clock.simulation_tick;
    let _: Vec<Event> = ui.events.try_iter().collect();
    send(Command::SetFixedRate(50));
    w.pump(DT);
    for _ in 0..3 {
        send(Command::StepTick);
        w.pump(DT);
    }
    let view = latest_view(&ui).expect("a view");
    assert_eq!(view.clock.simulation_tick, at + 3);
    // The three stepped ticks ran at 20 ms: the toolbar's rate is the one
    // the clock shows.
    assert_eq!(view.clock.fixed_delta_time, 0.02);
    let exact = at as f64 / 60.0 + 3.0 * 0.02;
    assert!(
        (view.clock.simulation_time - exact).abs() < 1e-12,
        "{} against {exact}",
        view.clock.simulation_time
    );
    let events: Vec<Event> = ui.events.try_iter().collect();
    let changes: Vec<String> = frames_of(&events)
        .iter()
        .filter_map(|f| f.report.clock_change.map(|c| c.to_string()))
        .collect();
    assert_eq!(
        changes,
        vec![format!("fixed rate 60 → 50 Hz at tick {at}")],
        "one marker, on the first stepped tick's report"
    );
    assert!(
        log_lines(&events)
            .iter()
            .any(|l| l.contains(&format!("fixed rate 60 → 50 Hz at tick {at}"))),
        "{:?}",
        log_lines(&events)
    );
    // A past view of a stepped tick is the headless run given the change
    // before that tick.
    let dir = std::env::temp_dir().join(format!("stepframe-rate-susp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let path = dir.join("rate.ron");
    send(Command::SaveRecording {
        path: path.clone(),
        overwrite: false,
    });
    w.pump(DT);
    let recording = Recording::load(&path).expect("the file loads");
    assert_eq!(recording.edits.len(), 1, "{:?}", recording.edits);
    assert_eq!(recording.edits[0].tick, at + 1);
    let headless = replayed_hashes(&recording, 1.0 / 30.0, at + 3);
    for tick in [at, at + 1, at + 3] {
        send(Command::ViewTick(tick));
        w.pump(DT);
        let past = ui.past_views.try_iter().last().expect("a past view");
        assert_eq!(past.state_hash, headless[&tick], "tick {tick}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
