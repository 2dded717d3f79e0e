//! A hook that never returns (docs/reliability.md, "A stuck hook"): the
//! editor names it in a banner and walks away from it, into a new session
//! host that does the session's journal again up to the last tick that
//! completed (before the frame that got stuck), and plays on from there.
//!
//! The spinning behaviour is the test's own (a game's behaviour, registered
//! through `Behaviours`), so it shares flags with the test: it says when it
//! has started spinning, spins only once (the restarted session's copy runs
//! on), and stops when the test ends, so a failing test never leaves the
//! harness joining a thread that spins for ever. The watchdog's clock (when
//! a call counts as stuck) is manual. The test waits on what it expects,
//! never on a duration.
//!
//! In its own test binary: the abandoned thread keeps a core busy until the
//! test releases it.

use std::sync::atomic::Ordering;
use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use stepframe_app::editor::shell::Watchdog;
use stepframe_app::editor::{Editor, EditorConfig};
use stepframe_core::{HookKind, ManualTime, ObjectId};

mod support;
use support::editor::{harness_for, latest_live, step_until_within};
use support::held::{self, HeldFlags, Release, Wait, held_scene};
use support::{labels_starting, scratch};

/// How long one hook call may run before the watchdog flags it.
const STUCK_AFTER: Duration = Duration::from_secs(5);

/// Runs UI frames until `done` holds; panics with `what` after a generous
/// real timeout (a bound on a hang, not on speed).
fn step_until(
    h: &mut Harness<'_, Editor>,
    what: &str,
    done: impl FnMut(&Harness<'_, Editor>) -> bool,
) {
    let (timeout, nap) = (Duration::from_secs(60), Duration::from_millis(5));
    step_until_within(h, what, timeout, nap, done);
}

#[test]
fn a_hook_stuck_in_an_endless_loop_is_named_and_abandoned_for_a_fresh_worker() {
    let dir = scratch("stuck");
    let flags = HeldFlags::armed();
    let behaviours = held::behaviours("Spinner", Wait::Spin, &flags);
    let watch_time = ManualTime::new();
    let scene = held_scene(&dir, "spin.ron", "Endless Loop", "Spinner", 120);
    let mut config = EditorConfig::threaded(scene);
    config.behaviours = behaviours;
    config.watchdog = Watchdog {
        after: STUCK_AFTER,
        clock: watch_time.clock(),
    };
    let mut h = harness_for(config);
    let _release = Release(flags.clone());

    step_until(&mut h, "the first ticks", |h| {
        latest_live(h).is_some_and(|v| v.clock.simulation_tick > 0)
    });
    step_until(&mut h, "the spin", |_| flags.entered.load(Ordering::SeqCst));
    // The UI sees the call; for the watchdog no time has passed yet.
    h.step();
    watch_time.advance(STUCK_AFTER - Duration::from_millis(100));
    h.step();
    assert!(
        h.state().published().worker_stuck.is_none(),
        "flagged before its time"
    );
    assert!(labels_starting(&h, "Session host stuck").is_empty());
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
    let banner = labels_starting(&h, "Session host stuck for ");
    assert_eq!(banner.len(), 1, "{banner:?}");
    assert!(
        banner[0].starts_with(
            "Session host stuck for 5 s in FixedUpdate of #3 `Endless Loop` (Spinner) at tick 120: the \
             hook has not returned; its thread keeps "
        ),
        "{}",
        banner[0]
    );
    assert!(banner[0].ends_with("% of a core busy"), "{}", banner[0]);
    // The status line and the viewport's readout say so too: the last view
    // is from before the call that has not returned, not a running session.
    assert_eq!(
        labels_starting(&h, "host stuck in a hook").len(),
        1,
        "status"
    );
    assert_eq!(
        labels_starting(&h, "Stuck in a hook · tick ").len(),
        1,
        "readout"
    );
    assert!(labels_starting(&h, "Running · tick").is_empty());
    // The thread really burns its core: its CPU time grows with real time.
    step_until(&mut h, "the stuck thread's CPU share", |h| {
        h.state()
            .published()
            .worker_stuck
            .as_ref()
            .and_then(|s| s.cpu_share)
            .is_some_and(|share| share > 0.25)
    });

    // The last tick that completed: the timeline's newest record. The
    // stuck frame never ended, so its ticks are not in it.
    let tick = h
        .state()
        .published()
        .frames
        .newest()
        .expect("frames ran")
        .simulation_tick;
    assert!(tick < 120, "tick {tick} predates the stuck tick");
    h.get_by_label("Abandon and restart").click();
    step_until(&mut h, "the new host at the last completed tick", |h| {
        latest_live(h).is_some_and(|v| v.suspension.is_some() && v.clock.simulation_tick == tick)
    });
    assert!(h.state().published().worker_stuck.is_none());
    assert!(labels_starting(&h, "Session host stuck").is_empty());
    assert!(labels_starting(&h, "Stuck in a hook").is_empty());
    let log = &h.state().feedback().log;
    assert!(log.contains(
        "session host stuck: FixedUpdate of #3 `Endless Loop` (Spinner) at tick 120 has not returned \
         for 5.0 s"
    ));
    assert!(log.contains(
        "abandoned the session host stuck in FixedUpdate of #3 `Endless Loop` (Spinner) at tick 120 \
         after 5.0 s: its thread is left running"
    ));
    assert!(log.contains(&format!(
        "a new session host did the session again up to tick {tick} and stands there, \
         suspended: Play continues"
    )));

    // The new worker plays on, through the tick the old one is stuck in
    // (the spinner spins once), while the old thread still spins.
    h.get_by_label("▶ Play").click();
    step_until(&mut h, "play past the stuck tick", |h| {
        latest_live(h).is_some_and(|v| v.suspension.is_none() && v.clock.simulation_tick > 130)
    });
    assert!(!flags.is_released());
    assert!(h.state().published().worker_stuck.is_none());
    let _ = std::fs::remove_dir_all(&dir);
}
