//! The editor when its worker misbehaves (docs/reliability.md, "The editor's
//! worker"): a worker that dies of a bug of its own is shown in a red banner
//! and restarted from the last snapshot; a worker stuck in a slow tick never
//! freezes the UI.
//!
//! Most tests here run the real editor, worker thread included, through
//! egui_kittest without a display, and look widgets up by their labels. None
//! waits on the wall clock: the recovery cadence reads a manual time, the
//! slow tick lasts until the test lets it go, and every wait is for an event
//! (with a timeout that only bounds a hang).

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;
use stepframe_app::editor::protocol::{Run, SceneCommand};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use stepframe_app::editor::protocol::{Command, Pacing};
use stepframe_app::editor::worker::{self, RECOVERY_EVERY, Worker};
use stepframe_app::editor::{EditorApp, EditorConfig};
use stepframe_core::{ManualTime, ObjectId, SuspendReason};

mod support;
use support::editor::{harness_for, latest_live, step_until_within};
use support::held::{self, HeldFlags, Release, Wait, held_scene};
use support::{labels_starting, scratch};

/// Seconds per frame of the driven editor and of the synchronous worker.
const DT: f64 = 1.0 / 60.0;

/// The tick whose FixedUpdate the `Hold` behaviour holds the worker in.
const HOLD_TICK: u64 = 60;

/// UI frames drawn while the worker is held.
const HELD_FRAMES: usize = 30;

fn demo() -> PathBuf {
    stepframe_app::default_scene()
}

fn log_has(h: &Harness<'_, EditorApp>, text: &str) -> bool {
    h.state().feedback().log.contains(text)
}

#[test]
fn a_worker_restarted_from_a_recovery_point_continues_bit_for_bit() {
    let (ui, end) = worker::channels();
    let time = ManualTime::new();
    let mut w = Worker::new(end, Pacing::Hz(60), None).with_wall_clock(time.clock());
    ui.commands
        .send(Command::Scene(SceneCommand::Load {
            path: demo(),
            play: true,
        }))
        .expect("the worker end is alive");
    // The load sends a point at tick 0; running frames send one once
    // RECOVERY_EVERY of wall time has passed (here: once the test says so).
    for _ in 0..30 {
        assert!(w.pump(DT));
    }
    time.advance(RECOVERY_EVERY - Duration::from_millis(1));
    assert!(w.pump(DT));
    assert_eq!(
        ui.recovery.try_iter().last().map(|p| p.tick()),
        Some(0),
        "a point before RECOVERY_EVERY"
    );
    time.advance(Duration::from_millis(1));
    for _ in 0..30 {
        assert!(w.pump(DT));
    }
    let point = ui.recovery.try_iter().last().expect("a recovery point");
    assert_eq!((point.tick(), point.frame()), (32, 32));
    assert_eq!(point.scene_path(), Some(demo().as_path()));
    for _ in 61..120 {
        assert!(w.pump(DT));
    }
    let original = ui.views.try_iter().last().expect("a view");
    assert_eq!(original.clock.simulation_tick, 120);

    // A new worker from the point: paused at tick 32, then the same 88 frames.
    let (ui2, end2) = worker::channels();
    let mut w2 = Worker::restart(end2, Pacing::Hz(60), None, point);
    assert!(w2.pump(DT));
    let paused = ui2.views.try_iter().last().expect("a view");
    assert_eq!(paused.clock.simulation_tick, 32);
    assert!(matches!(
        paused.suspension.as_ref().map(|s| &s.reason),
        Some(SuspendReason::Pause)
    ));
    assert_eq!(paused.scene_path, Some(demo()));
    ui2.commands.send(Command::Run(Run::Play)).expect("alive");
    for _ in 32..120 {
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
    let time = ManualTime::new();
    let mut config = EditorConfig::threaded(demo());
    config.recovery_clock = time.clock();
    let mut h = harness_for(config);
    let nap = Duration::from_millis(10);
    // Once the session runs, a second passes for the recovery cadence; run
    // until the worker has sent the point taken then (past tick 0).
    step_until_within(
        &mut h,
        "the first ticks",
        Duration::from_secs(30),
        nap,
        |h| latest_live(h).is_some_and(|v| v.clock.simulation_tick > 0),
    );
    time.advance(RECOVERY_EVERY);
    step_until_within(
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
    h.state_mut().send(Command::DebugCrash);
    step_until_within(&mut h, "the banner", Duration::from_secs(10), nap, |h| {
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
    let last = latest_live(&h).expect("a view").clock.simulation_tick;
    assert!(last >= tick);
    for _ in 0..5 {
        h.step();
        std::thread::sleep(nap);
    }
    assert_eq!(latest_live(&h).expect("a view").clock.simulation_tick, last);

    h.get_by_label("Restart from last snapshot").click();
    step_until_within(
        &mut h,
        "the restarted worker's view",
        Duration::from_secs(10),
        nap,
        |h| {
            latest_live(h).is_some_and(|v| {
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
    step_until_within(&mut h, "a step", Duration::from_secs(10), nap, |h| {
        latest_live(h).is_some_and(|v| v.clock.simulation_tick == tick + 1)
    });
    h.get_by_label("▶ Play").click();
    step_until_within(&mut h, "play", Duration::from_secs(20), nap, |h| {
        latest_live(h)
            .is_some_and(|v| v.suspension.is_none() && v.clock.simulation_tick > tick + 10)
    });
}

#[test]
fn a_driven_worker_that_dies_is_caught_and_restarted_the_same_way() {
    let mut h = harness_for(EditorConfig::driven(demo(), DT));
    h.run_steps(10);
    let tick = h
        .state()
        .published()
        .recovery
        .as_ref()
        .expect("the load's recovery point")
        .tick();
    h.state_mut().send(Command::DebugCrash);
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
        latest_live(&h).expect("a view").clock.simulation_tick,
        tick + 1,
        "one driven step"
    );
}

#[test]
fn the_ui_stays_responsive_while_the_worker_is_held_in_a_tick() {
    let dir = scratch("slow-tick");
    // A small level whose `Slow Hook` holds the worker in its FixedUpdate
    // of `HOLD_TICK` until the test lets it go, plus a ball to select.
    let scene = held_scene(&dir, "slow.ron", "Slow Hook", "Hold", HOLD_TICK);
    let hold = HeldFlags::armed();
    let _release = Release(hold.clone());
    let mut config = EditorConfig::threaded(scene);
    config.behaviours = held::behaviours("Hold", Wait::Block, &hold);
    let mut h = harness_for(config);
    let nap = Duration::from_millis(5);
    step_until_within(&mut h, "the hold", Duration::from_secs(60), nap, |_| {
        hold.entered.load(Ordering::SeqCst)
    });
    // What the worker published last before the hold; it cannot publish
    // again until the test lets it go.
    h.step();
    let revision = latest_live(&h).map(|v| v.revision);
    let held_at = latest_live(&h).expect("a view").clock.simulation_tick;
    assert!(
        held_at < HOLD_TICK,
        "the view of tick {held_at} is older than the hold"
    );
    assert_eq!(labels_starting(&h, "running"), vec!["running".to_string()]);
    h.get_by_label("⏸ Pause").click();
    h.step();
    h.get_by_label("Ball").click();
    // The UI goes on drawing frames while the worker is held: a UI that
    // waited on the worker would never come back from one.
    for _ in 0..HELD_FRAMES {
        h.step();
    }
    assert_eq!(
        latest_live(&h).map(|v| v.revision),
        revision,
        "the worker answered while it was held"
    );
    assert!(!hold.is_released());

    // Once the worker is let go, the queued Pause and selection apply.
    hold.release();
    step_until_within(
        &mut h,
        "the queued pause and selection",
        Duration::from_secs(60),
        nap,
        |h| {
            latest_live(h).is_some_and(|v| {
                matches!(
                    v.suspension.as_ref().map(|s| &s.reason),
                    Some(SuspendReason::Pause)
                ) && v.selected.as_ref().is_some_and(|s| s.id == ObjectId(2))
            })
        },
    );
    let v = latest_live(&h).expect("a view");
    assert!(
        v.clock.simulation_tick >= HOLD_TICK,
        "paused at {} before the held tick completed",
        v.clock.simulation_tick
    );
    let _ = std::fs::remove_dir_all(&dir);
}
