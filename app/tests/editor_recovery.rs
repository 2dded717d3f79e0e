//! The editor when its worker misbehaves (docs/reliability.md, "The editor's
//! worker"): a worker that dies of a bug of its own is shown in a red banner
//! and restarted from the last snapshot; a worker stuck in a slow tick never
//! freezes the UI.
//!
//! Most tests here run the real editor, worker thread included, through
//! egui_kittest without a display, and look widgets up by their labels. Their
//! timings are wall-clock, so their bounds are ratios with wide margins (the
//! machine is shared), not tight figures.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use stepframe_app::editor::protocol::{Command, Pacing};
use stepframe_app::editor::worker::{self, RECOVERY_EVERY, Worker};
use stepframe_app::editor::{EditorApp, EditorConfig, WorldView};
use stepframe_core::{ObjectId, SuspendReason};

mod support;
use support::{labels_starting, scratch};

/// Seconds per frame of the driven editor and of the synchronous worker.
const DT: f64 = 1.0 / 60.0;

/// How long the slow tick busy-waits, milliseconds.
const STALL_MS: u64 = 2000;

/// The longest a UI frame may take while the worker is stuck: a tenth of the
/// stall. A UI that waited on the worker would take the whole stall.
const UI_FRAME_BOUND: Duration = Duration::from_millis(STALL_MS / 10);

fn demo() -> PathBuf {
    stepframe_app::default_scene()
}

/// A small level whose `Slow Hook` busy-waits `STALL_MS` in its FixedUpdate of
/// tick 60 (one second in at 60 Hz, once the editor is up), plus a ball to
/// select.
fn slow_scene(dir: &Path) -> PathBuf {
    let path = dir.join("slow.ron");
    let text = format!(
        r#"#![enable(implicit_some)]
(
    settings: (
        gravity: (x: 0.0, y: -9.81),
        time: (fixed_hz: 60, max_delta: 0.25, max_steps: 4, time_scale: 1.0, substeps: 1, strategy: Accumulator),
        seed: 1,
    ),
    objects: [
        (id: 1, name: "Ground", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 8.0, hy: 0.5)])),
        (id: 2, name: "Ball", transform: (x: 0.0, y: 4.0), body: (shapes: [Circle(radius: 0.5)], restitution: 0.5)),
        (id: 3, name: "Slow Hook", transform: (x: 3.0, y: 3.0), behaviours: [(name: "Faulty", params: (hook: FixedUpdate, tick: 60, fault: BusyWait({STALL_MS}.0)))]),
    ],
)
"#
    );
    std::fs::write(&path, text).expect("scene written");
    path
}

fn harness(config: EditorConfig) -> Harness<'static, EditorApp> {
    Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_step_dt(DT as f32)
        .build_eframe(move |cc| EditorApp::new(cc, config).expect("the editor starts"))
}

fn view<'a>(h: &'a Harness<'_, EditorApp>) -> Option<&'a WorldView> {
    h.state().published().live.as_ref()
}

/// Runs UI frames (pausing `nap` between them, as a display would) until
/// `done` holds; panics with `what` after `timeout`.
fn step_until(
    h: &mut Harness<'_, EditorApp>,
    what: &str,
    timeout: Duration,
    nap: Duration,
    mut done: impl FnMut(&Harness<'_, EditorApp>) -> bool,
) {
    let t0 = Instant::now();
    loop {
        h.step();
        if done(h) {
            return;
        }
        assert!(t0.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(nap);
    }
}

fn log_has(h: &Harness<'_, EditorApp>, text: &str) -> bool {
    h.state().feedback().log.contains(text)
}

#[test]
fn a_worker_restarted_from_a_recovery_point_continues_bit_for_bit() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    ui.commands
        .send(Command::LoadAndPlay(demo()))
        .expect("the worker end is alive");
    // The load sends a point at tick 0; running frames send one once
    // RECOVERY_EVERY of wall time has passed.
    for _ in 0..30 {
        assert!(w.pump(DT));
    }
    std::thread::sleep(RECOVERY_EVERY + Duration::from_millis(50));
    assert!(w.pump(DT));
    let point = ui.recovery.try_iter().last().expect("a recovery point");
    assert_eq!((point.tick(), point.frame()), (31, 31));
    assert_eq!(point.scene_path(), Some(demo().as_path()));
    for _ in 31..120 {
        assert!(w.pump(DT));
    }
    let original = ui.views.try_iter().last().expect("a view");
    assert_eq!(original.clock.simulation_tick, 120);

    // A new worker from the point: paused at tick 31, then the same 89 frames.
    let (ui2, end2) = worker::channels();
    let mut w2 = Worker::restart(end2, Pacing::Hz(60), None, point);
    assert!(w2.pump(DT));
    let paused = ui2.views.try_iter().last().expect("a view");
    assert_eq!(paused.clock.simulation_tick, 31);
    assert!(matches!(
        paused.suspension.as_ref().map(|s| &s.reason),
        Some(SuspendReason::Pause)
    ));
    assert_eq!(paused.scene_path, Some(demo()));
    ui2.commands.send(Command::Play).expect("alive");
    for _ in 31..120 {
        assert!(w2.pump(DT));
    }
    let restarted = ui2.views.try_iter().last().expect("a view");
    assert_eq!(restarted.clock.simulation_tick, 120);
    assert_ne!(original.state_hash, 0);
    assert_eq!(restarted.state_hash, original.state_hash);
    assert_eq!(restarted.objects.len(), original.objects.len());
    for (a, b) in restarted.objects.iter().zip(&original.objects) {
        assert_eq!(a.id, b.id);
        assert_eq!(
            (a.committed.x.to_bits(), a.committed.y.to_bits()),
            (b.committed.x.to_bits(), b.committed.y.to_bits()),
            "{} at tick 120",
            a.name
        );
    }
}

#[test]
fn a_dead_worker_thread_shows_a_banner_and_restarts_from_the_last_snapshot() {
    let mut h = harness(EditorConfig::threaded(demo()));
    let nap = Duration::from_millis(10);
    // Run until the worker has sent a point taken while running (past tick 0).
    step_until(
        &mut h,
        "a recovery point past tick 0",
        Duration::from_secs(30),
        nap,
        |h| {
            h.state()
                .published()
                .recovery
                .as_ref()
                .is_some_and(|p| p.tick() > 0)
        },
    );
    assert_eq!(labels_starting(&h, "running"), vec!["running".to_string()]);
    h.state_mut().send(Command::Select(Some(ObjectId(20))));

    // A bug in the worker itself: the thread dies.
    h.state_mut().send(Command::DebugCrashWorker);
    step_until(&mut h, "the banner", Duration::from_secs(10), nap, |h| {
        !labels_starting(h, "Worker thread stopped: ").is_empty()
    });
    let banner = labels_starting(&h, "Worker thread stopped: ");
    assert_eq!(
        banner,
        vec![
            "Worker thread stopped: DebugCrashWorker: deliberate fault injection (a bug in the worker itself)"
                .to_string()
        ]
    );
    assert_eq!(labels_starting(&h, "worker stopped").len(), 1, "status");
    let point = h
        .state()
        .published()
        .recovery
        .clone()
        .expect("a recovery point");
    let tick = point.tick();
    assert!(log_has(&h, "worker thread stopped: DebugCrashWorker"));
    // Nothing runs: the view stays where the dead worker left it.
    let last = view(&h).expect("a view").clock.simulation_tick;
    assert!(last >= tick);
    for _ in 0..5 {
        h.step();
        std::thread::sleep(nap);
    }
    assert_eq!(view(&h).expect("a view").clock.simulation_tick, last);

    h.get_by_label("Restart from last snapshot").click();
    step_until(
        &mut h,
        "the restarted worker's view",
        Duration::from_secs(10),
        nap,
        |h| {
            view(h).is_some_and(|v| {
                v.suspension.is_some()
                    && v.clock.simulation_tick == tick
                    && v.selected.as_ref().is_some_and(|s| s.id == ObjectId(20))
            })
        },
    );
    assert!(labels_starting(&h, "Worker thread stopped").is_empty());
    assert_eq!(
        labels_starting(&h, "suspended at tick "),
        vec![format!("suspended at tick {tick}: paused")]
    );
    assert!(log_has(
        &h,
        &format!("worker restarted from the snapshot at tick {tick} ")
    ));
    assert!(h.state().feedback().error.is_none());
    // The new worker sent its starting point back: a second death restarts here.
    assert_eq!(
        h.state().published().recovery.as_ref().map(|p| p.tick()),
        Some(tick)
    );

    // The new worker steps and plays.
    h.get_by_label("Step tick").click();
    step_until(&mut h, "a step", Duration::from_secs(10), nap, |h| {
        view(h).is_some_and(|v| v.clock.simulation_tick == tick + 1)
    });
    h.get_by_label("▶ Play").click();
    step_until(&mut h, "play", Duration::from_secs(20), nap, |h| {
        view(h).is_some_and(|v| v.suspension.is_none() && v.clock.simulation_tick > tick + 10)
    });
}

#[test]
fn a_driven_worker_that_dies_is_caught_and_restarted_the_same_way() {
    let mut h = harness(EditorConfig::driven(demo(), DT));
    h.run_steps(10);
    let tick = h
        .state()
        .published()
        .recovery
        .as_ref()
        .expect("the load's recovery point")
        .tick();
    h.state_mut().send(Command::DebugCrashWorker);
    h.step();
    assert_eq!(
        labels_starting(&h, "Worker thread stopped: ").len(),
        1,
        "the banner"
    );
    h.get_by_label("Restart from last snapshot").click();
    h.run_steps(2);
    assert_eq!(
        labels_starting(&h, "suspended at tick "),
        vec![format!("suspended at tick {tick}: paused")]
    );
    assert_eq!(
        h.state().published().recovery.as_ref().map(|p| p.tick()),
        Some(tick)
    );
    h.get_by_label("Step tick").click();
    h.run_steps(2);
    assert_eq!(
        view(&h).expect("a view").clock.simulation_tick,
        tick + 1,
        "one driven step"
    );
}

#[test]
fn the_ui_stays_responsive_while_the_worker_is_stuck_in_a_two_second_tick() {
    let dir = scratch("slow-tick");
    let scene = slow_scene(&dir);
    let mut h = harness(EditorConfig::threaded(scene));
    let nap = Duration::from_millis(5);
    // Warm up (fonts, first layout) until the worker's first views arrive.
    step_until(
        &mut h,
        "the first view",
        Duration::from_secs(20),
        nap,
        |h| view(h).is_some_and(|v| v.clock.simulation_tick > 0),
    );

    let t0 = Instant::now();
    let mut longest_frame = Duration::ZERO;
    let mut frames = 0u32;
    // The worker's publishes: a new revision means it got through a frame.
    let mut revision = view(&h).map(|v| v.revision);
    let mut revision_since = Instant::now();
    let mut longest_silence = Duration::ZERO;
    let mut frames_in_silence = 0u32;
    let mut acted_during_stall = false;
    loop {
        let frame_start = Instant::now();
        h.step();
        let took = frame_start.elapsed();
        frames += 1;
        longest_frame = longest_frame.max(took);

        let now_revision = view(&h).map(|v| v.revision);
        if now_revision != revision {
            revision = now_revision;
            revision_since = Instant::now();
        }
        let silence = revision_since.elapsed();
        longest_silence = longest_silence.max(silence);
        // Six worker frames at 60 Hz without a word: the worker is stuck.
        if silence > Duration::from_millis(100) {
            frames_in_silence += 1;
        }

        // Well into the stall: act in the UI while the worker cannot answer.
        if !acted_during_stall && silence > Duration::from_millis(300) {
            let stuck_at = view(&h).expect("a view").clock.simulation_tick;
            assert!(stuck_at < 60, "stuck before the slow tick, at {stuck_at}");
            assert_eq!(labels_starting(&h, "running"), vec!["running".to_string()]);
            h.get_by_label("⏸ Pause").click();
            h.step();
            h.get_by_label("Ball").click();
            h.step();
            // The selection is the worker's: it waits for the worker too,
            // and the UI goes on drawing meanwhile.
            assert_eq!(
                view(&h).map(|v| v.revision),
                revision,
                "the worker answered before the stall ended"
            );
            acted_during_stall = true;
        }
        // Once the worker is back, the queued Pause and selection apply.
        if acted_during_stall
            && view(&h).is_some_and(|v| {
                matches!(
                    v.suspension.as_ref().map(|s| &s.reason),
                    Some(SuspendReason::Pause)
                ) && v.selection == Some(ObjectId(2))
            })
        {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "no pause after the stall: longest silence {longest_silence:?}, acted {acted_during_stall}"
        );
        std::thread::sleep(nap);
    }

    eprintln!(
        "{frames} UI frames, {frames_in_silence} while the worker was silent (longest silence \
         {longest_silence:?}); longest UI frame {longest_frame:?}"
    );
    // The stall really happened while the UI ran: the worker was silent for
    // most of it, and the UI went on drawing frames through the silence.
    let stall = Duration::from_millis(STALL_MS);
    assert!(
        longest_silence >= stall * 3 / 4,
        "the worker was silent for only {longest_silence:?}"
    );
    assert!(
        frames_in_silence >= 20,
        "{frames_in_silence} UI frames during the stall"
    );
    assert!(
        longest_frame < UI_FRAME_BOUND,
        "a UI frame took {longest_frame:?} while the worker stalled {stall:?} ({frames} frames)"
    );
    let v = view(&h).expect("a view");
    assert!(
        v.clock.simulation_tick >= 60,
        "paused at {} before the slow tick completed",
        v.clock.simulation_tick
    );
    step_until(
        &mut h,
        "the worker's selection",
        Duration::from_secs(10),
        nap,
        |h| view(h).is_some_and(|v| v.selected.as_ref().is_some_and(|s| s.id == ObjectId(2))),
    );
    let _ = std::fs::remove_dir_all(&dir);
}
