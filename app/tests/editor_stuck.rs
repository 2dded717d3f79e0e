//! A hook that never returns (docs/reliability.md, "A stuck hook"): the
//! editor names it in a banner and walks away from it, into a new worker
//! from the last recovery point, which plays on.
//!
//! The spinning behaviour is the test's own (a game's behaviour, registered
//! through `Behaviours`), so it shares flags with the test: it says when it
//! has started spinning, spins only once (the restarted session's copy runs
//! on), and stops when the test ends, so a failing test never leaves the
//! harness joining a thread that spins for ever. Both clocks the editor reads
//! here are manual: the watchdog's (when a call counts as stuck) and the
//! recovery cadence's (when a point is taken). The test waits on what it
//! expects, never on a duration.
//!
//! In its own test binary: the abandoned thread keeps a core busy until the
//! test releases it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use serde::{Deserialize, Serialize};
use stepframe_app::Behaviours;
use stepframe_app::editor::app::Watchdog;
use stepframe_app::editor::{EditorApp, EditorConfig, WorldView};
use stepframe_core::{Behaviour, Ctx, HookKind, Hooks, ManualTime, ObjectId};

mod support;
use support::{labels_starting, scratch};

/// Seconds per UI frame.
const DT: f32 = 1.0 / 60.0;

/// How long one hook call may run before the watchdog flags it.
const STUCK_AFTER: Duration = Duration::from_secs(5);

/// Flags the spinner shares with the test.
#[derive(Debug, Default)]
struct Flags {
    /// Spin once: the first call at the tick takes it.
    armed: AtomicBool,
    /// Set as the spinning begins.
    entered: AtomicBool,
    /// Set by the test at its end: the loop returns.
    released: AtomicBool,
}

/// Releases the spinner when dropped (declared after the harness, so it is
/// dropped first, even when an assertion fails).
struct Release(Arc<Flags>);

impl Drop for Release {
    fn drop(&mut self) {
        self.0.released.store(true, Ordering::SeqCst);
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct SpinParams {
    /// The tick whose FixedUpdate spins.
    tick: u64,
}

/// A behaviour with an endless loop in its FixedUpdate at one tick.
#[derive(Clone, Debug)]
struct Spinner {
    tick: u64,
    flags: Arc<Flags>,
}

impl Behaviour for Spinner {
    fn hooks(&self) -> Hooks {
        Hooks::FIXED_UPDATE
    }

    fn name(&self) -> &str {
        "Spinner"
    }

    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick == self.tick
            && self.flags.armed.swap(false, Ordering::SeqCst)
        {
            self.flags.entered.store(true, Ordering::SeqCst);
            while !self.flags.released.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        }
    }
}

fn spin_scene(dir: &Path) -> PathBuf {
    let path = dir.join("spin.ron");
    let text = r#"#![enable(implicit_some)]
(
    settings: (
        gravity: (x: 0.0, y: -9.81),
        time: (fixed_hz: 60, max_delta: 0.25, max_steps: 4, time_scale: 1.0, substeps: 1, strategy: Accumulator),
        seed: 1,
    ),
    objects: [
        (id: 1, name: "Ground", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 8.0, hy: 0.5)])),
        (id: 2, name: "Ball", transform: (x: 0.0, y: 4.0), body: (shapes: [Circle(radius: 0.5)], restitution: 0.5)),
        (id: 3, name: "Endless Loop", transform: (x: 3.0, y: 3.0), behaviours: [(name: "Spinner", params: (tick: 120))]),
    ],
)
"#;
    std::fs::write(&path, text).expect("scene written");
    path
}

fn view<'a>(h: &'a Harness<'_, EditorApp>) -> Option<&'a WorldView> {
    h.state().published().live.as_ref()
}

/// Runs UI frames until `done` holds; panics with `what` after a generous
/// real timeout (a bound on a hang, not on speed).
fn step_until(
    h: &mut Harness<'_, EditorApp>,
    what: &str,
    mut done: impl FnMut(&Harness<'_, EditorApp>) -> bool,
) {
    let t0 = Instant::now();
    loop {
        h.step();
        if done(h) {
            return;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_hook_stuck_in_an_endless_loop_is_named_and_abandoned_for_a_fresh_worker() {
    let dir = scratch("stuck");
    let flags = Arc::new(Flags::default());
    flags.armed.store(true, Ordering::SeqCst);
    let shared = flags.clone();
    let behaviours = Behaviours::built_in().behaviour("Spinner", move |p: SpinParams| {
        Ok::<_, std::io::Error>(Spinner {
            tick: p.tick,
            flags: shared.clone(),
        })
    });
    let watch_time = ManualTime::new();
    let recovery_time = ManualTime::new();
    let mut config = EditorConfig::threaded(spin_scene(&dir));
    config.behaviours = behaviours;
    config.watchdog = Watchdog {
        after: STUCK_AFTER,
        clock: watch_time.clock(),
    };
    config.recovery_clock = recovery_time.clock();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_step_dt(DT)
        .build_eframe(move |cc| EditorApp::new(cc, config).expect("the editor starts"));
    let _release = Release(flags.clone());

    // A second of running has passed for the recovery cadence: the next
    // frame that ends sends a point (before tick 120 unless the worker got
    // there first; either point is a valid one to restart from).
    step_until(&mut h, "the first ticks", |h| {
        view(h).is_some_and(|v| v.clock.simulation_tick > 0)
    });
    recovery_time.advance(Duration::from_secs(1));
    step_until(&mut h, "the spin", |_| flags.entered.load(Ordering::SeqCst));
    // The UI sees the call; for the watchdog no time has passed yet.
    h.step();
    watch_time.advance(STUCK_AFTER - Duration::from_millis(100));
    h.step();
    assert!(
        h.state().published().worker_stuck.is_none(),
        "flagged before its time"
    );
    assert!(labels_starting(&h, "Worker stuck").is_empty());
    watch_time.advance(Duration::from_millis(100));
    h.step();

    let stuck = h
        .state()
        .published()
        .worker_stuck
        .clone()
        .expect("the stuck hook is flagged");
    assert_eq!(stuck.object, ObjectId(3));
    assert_eq!(stuck.object_name, "Endless Loop");
    assert_eq!(stuck.behaviour.as_deref(), Some("Spinner"));
    assert_eq!(stuck.hook, HookKind::FixedUpdate);
    assert_eq!(stuck.running_for, STUCK_AFTER);
    let banner = labels_starting(&h, "Worker stuck for ");
    assert_eq!(banner.len(), 1, "{banner:?}");
    assert!(
        banner[0].starts_with(
            "Worker stuck for 5 s in FixedUpdate of #3 `Endless Loop` (Spinner): the hook has \
             not returned; its thread keeps "
        ),
        "{}",
        banner[0]
    );
    assert!(banner[0].ends_with("% of a core busy"), "{}", banner[0]);
    // The thread really burns its core: its CPU time grows with real time.
    step_until(&mut h, "the stuck thread's CPU share", |h| {
        h.state()
            .published()
            .worker_stuck
            .as_ref()
            .and_then(|s| s.cpu_share)
            .is_some_and(|share| share > 0.25)
    });

    let tick = h
        .state()
        .published()
        .recovery
        .as_ref()
        .expect("a recovery point")
        .tick();
    assert!(tick < 120, "the point {tick} predates the stuck tick");
    h.get_by_label(&format!("Abandon and restart from tick {tick}"))
        .click();
    step_until(&mut h, "the new worker at the point's tick", |h| {
        view(h).is_some_and(|v| v.suspension.is_some() && v.clock.simulation_tick == tick)
    });
    assert!(h.state().published().worker_stuck.is_none());
    assert!(labels_starting(&h, "Worker stuck").is_empty());
    let log = &h.state().feedback().log;
    assert!(log.contains(
        "worker stuck: FixedUpdate of #3 `Endless Loop` (Spinner) has not returned for 5.0 s"
    ));
    assert!(log.contains(
        "abandoned the worker stuck in FixedUpdate of #3 `Endless Loop` (Spinner) after 5.0 s"
    ));
    assert!(log.contains(&format!(
        "worker restarted from the snapshot at tick {tick} "
    )));

    // The new worker plays on, through the tick the old one is stuck in
    // (the spinner spins once), while the old thread still spins.
    h.get_by_label("▶ Play").click();
    step_until(&mut h, "play past the stuck tick", |h| {
        view(h).is_some_and(|v| v.suspension.is_none() && v.clock.simulation_tick > 130)
    });
    assert!(!flags.released.load(Ordering::SeqCst));
    assert!(h.state().published().worker_stuck.is_none());
    let _ = std::fs::remove_dir_all(&dir);
}
