//! The editor when its session host misbehaves (docs/reliability.md, "The
//! editor's worker"): a host that dies of a bug of its own is shown in a red
//! banner, and Restart starts a new host that does the session's journal
//! again (every frame with its dt, every command and edit since the scene
//! was loaded), so the session stands, suspended, exactly where the dead one
//! was; a host stuck in a slow tick never freezes the UI.
//!
//! Most tests here run the real editor, host thread included, through
//! egui_kittest without a display, and look widgets up by their labels. None
//! waits on the wall clock: the slow tick lasts until the test lets it go,
//! and every wait is for an event (with a timeout that only bounds a hang).

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::protocol::{
    Command, DisplayRate, EditCommand, Event, JournalEntry, Run, Target,
};
use stepframe_app::editor::worker;
use stepframe_app::editor::{Editor, EditorConfig, WorldView};
use stepframe_core::{Edit, ObjectId, Pose, SuspendReason};

#[path = "../support/mod.rs"]
mod support;

mod attach;
mod attach_panels;
mod process;
use support::editor::{harness_for, headless_at, latest_live, step_until_within};
use support::held::{self, HeldFlags, Release, Wait, held_scene};
use support::host::Host;
use support::{labels_starting, scratch};

/// Seconds per frame of the driven editor and of the synchronous host.
const DT: f64 = 1.0 / 60.0;

/// The tick whose FixedUpdate the `Hold` behaviour holds the host in.
const HOLD_TICK: u64 = 60;

/// UI frames drawn while the host is held.
const HELD_FRAMES: usize = 30;

/// The player of the demo.
const PLAYER: ObjectId = ObjectId(20);

/// Where the tests lift the player to, while suspended.
fn lifted() -> Pose {
    Pose::new(-12.0, 3.0, 0.0)
}

/// The pose edit that lifts the player.
fn lift() -> Command {
    Command::Edit {
        target: Target::Live,
        edit: EditCommand::Pose(PLAYER, lifted()),
    }
}

/// What the dead host's banner says (`DebugCrash`'s panic message).
const CRASH: &str = "DebugCrash: deliberate fault injection (a bug in the host itself)";

fn demo() -> PathBuf {
    stepframe_app::default_scene()
}

fn log_has(h: &Harness<'_, Editor>, text: &str) -> bool {
    h.state().feedback().log.contains(text)
}

/// The pose edits in a session recording, by object.
fn pose_edits(recording: &stepframe_core::Recording) -> Vec<(ObjectId, Pose)> {
    recording
        .edits
        .iter()
        .filter_map(|e| match &e.edit {
            Edit::Pose { object, pose } => Some((*object, *pose)),
            _ => None,
        })
        .collect()
}

/// Every object's committed pose, bit for bit, by id.
fn committed_bits(view: &WorldView) -> Vec<(ObjectId, [u32; 3])> {
    view.objects
        .iter()
        .map(|o| {
            let p = o.committed;
            (o.id, [p.x.to_bits(), p.y.to_bits(), p.angle.to_bits()])
        })
        .collect()
}

/// Loads the demo playing, runs 30 frames, pauses, selects and lifts the
/// player, and plays 30 frames more: the session both hosts of the
/// bit-for-bit test are given.
fn lifted_session(h: &mut Host) {
    h.pump_n(30, DT);
    h.send(Command::Run(Run::Pause));
    h.pump(DT);
    h.send(Command::Select(Some(PLAYER)));
    h.send(lift());
    h.send(Command::Run(Run::Play));
    h.pump_n(30, DT);
}

#[test]
fn a_new_host_doing_the_journal_of_a_crashed_one_continues_bit_for_bit_with_its_edits() {
    // Two hosts given the same session: one dies of a bug of its own, the
    // other runs on uninterrupted.
    let mut crashed = Host::loading(DisplayRate::Hz(60), &demo(), true);
    let mut uninterrupted = Host::loading(DisplayRate::Hz(60), &demo(), true);
    lifted_session(&mut crashed);
    lifted_session(&mut uninterrupted);
    let at = uninterrupted.tick();
    assert_eq!(at, 60, "one tick a frame, none while paused");
    assert_eq!(crashed.tick(), at);

    // A bug in the host itself: its command handling panics (the thread
    // or the driven editor catches it at the top).
    crashed.send(Command::DebugCrash);
    let died = std::panic::catch_unwind(AssertUnwindSafe(|| crashed.pump(DT)));
    let payload = died.expect_err("the host died");
    assert_eq!(worker::panic_text(payload.as_ref()), CRASH);
    // What it sent before it died is what a front end has: the journal.
    crashed.take();
    let journal = crashed.journal.clone();
    drop(crashed);
    assert!(
        matches!(journal.first(), Some(JournalEntry::Start(s)) if s.path == demo() && s.play),
        "the journal starts with the scene as loaded"
    );
    let frames = journal
        .iter()
        .filter(|e| matches!(e, JournalEntry::Frame { .. }))
        .count();
    assert_eq!(frames, 60, "every frame the dead host ran");

    // A new host does it again and stands, suspended, where the dead one was.
    let mut restarted = Host::new(DisplayRate::Hz(60));
    restarted.send(Command::Restore {
        journal,
        stop_after: None,
        fresh_files: false,
    });
    restarted.pump(DT);
    // The views built while the journal was done again went one at a time;
    // the newest comes once the front end took the last one.
    restarted.pump(DT);
    let events = restarted.events();
    assert!(
        events.contains(&Event::Restored {
            tick: at,
            asked: None
        }),
        "{:?}",
        events
            .iter()
            .filter(|e| matches!(e, Event::Restored { .. } | Event::Error(_)))
            .collect::<Vec<_>>()
    );
    assert!(
        events.iter().all(|e| !matches!(e, Event::Error(_))),
        "no step of the journal was refused"
    );
    let view = restarted.view().clone();
    assert_eq!(view.clock.simulation_tick, at);
    assert!(matches!(
        view.suspension.as_ref().map(|s| &s.reason),
        Some(SuspendReason::Pause)
    ));
    assert_eq!(
        restarted.live().scene_path,
        Some(demo()),
        "the same scene file"
    );
    // Bit for bit the uninterrupted session at that tick, the selection and
    // the edit made before the crash included.
    let reference = uninterrupted.view().clone();
    assert_ne!(reference.state_hash, 0);
    assert_eq!(view.state_hash, reference.state_hash);
    assert_eq!(committed_bits(&view), committed_bits(&reference));
    assert_eq!(view.selected.as_ref().map(|s| s.id), Some(PLAYER));
    assert_eq!(pose_edits(&restarted.recording), vec![(PLAYER, lifted())]);
    assert_eq!(restarted.recording.edits, uninterrupted.recording.edits);

    // Both play on: the same ticks, bit for bit.
    restarted.send(Command::Run(Run::Play));
    restarted.pump_n(60, DT);
    uninterrupted.pump_n(60, DT);
    let (a, b) = (restarted.view(), uninterrupted.view());
    assert_eq!(a.clock.simulation_tick, 120);
    assert_eq!(b.clock.simulation_tick, 120);
    assert_eq!(a.state_hash, b.state_hash);
    assert_eq!(committed_bits(a), committed_bits(b));
    // And the edit is what made them what they are: without it, tick 120
    // is another state.
    assert_ne!(headless_at(&demo(), 120).state_hash(), a.state_hash);
}

#[test]
fn a_dead_host_thread_shows_a_banner_and_restart_does_the_session_again_up_to_where_it_died() {
    let mut h = harness_for(EditorConfig::threaded(demo()));
    let nap = Duration::from_millis(10);
    let wait = Duration::from_secs(30);
    step_until_within(&mut h, "the first ticks", wait, nap, |h| {
        latest_live(h).is_some_and(|v| v.clock.simulation_tick > 0)
    });
    assert_eq!(labels_starting(&h, "running"), vec!["running".to_string()]);
    // The player selected and lifted while paused, then the session plays
    // on: the restart must bring back both, and every frame since.
    h.state_mut().send(Command::Select(Some(PLAYER)));
    h.get_by_label("⏸ Pause").click();
    step_until_within(&mut h, "the pause", wait, nap, |h| {
        latest_live(h).is_some_and(|v| v.suspension.is_some())
    });
    h.state_mut().send(lift());
    h.get_by_label("▶ Play").click();
    let lifted_at = latest_live(&h).expect("a view").clock.simulation_tick;
    step_until_within(&mut h, "ten ticks after the lift", wait, nap, |h| {
        latest_live(h)
            .is_some_and(|v| v.suspension.is_none() && v.clock.simulation_tick > lifted_at + 10)
    });

    // A bug in the host itself: the thread dies.
    h.state_mut().send(Command::DebugCrash);
    step_until_within(&mut h, "the banner", Duration::from_secs(10), nap, |h| {
        !labels_starting(h, "The session host stopped: ").is_empty()
    });
    assert_eq!(
        labels_starting(&h, "The session host stopped: "),
        vec![format!("The session host stopped: {CRASH}")]
    );
    assert_eq!(labels_starting(&h, "host stopped").len(), 1, "status");
    // A dead host runs nothing: the play controls wait for Restart, and
    // the viewport's readout says so over the last view it left.
    for control in ["⏸ Pause", "Step tick", "Step frame"] {
        assert!(
            h.get_by_label(control).accesskit_node().is_disabled(),
            "{control} while the host is dead"
        );
    }
    assert_eq!(
        labels_starting(&h, "Host stopped · tick ").len(),
        1,
        "readout"
    );
    assert!(log_has(&h, &format!("the session host stopped: {CRASH}")));
    // Nothing runs: the view stays where the dead host left it.
    let last = latest_live(&h).expect("a view").clock.simulation_tick;
    for _ in 0..5 {
        h.step();
        std::thread::sleep(nap);
    }
    assert_eq!(latest_live(&h).expect("a view").clock.simulation_tick, last);
    // Where it died: the end of the last frame it ran (the timeline's
    // newest record; every frame's record arrived before it died).
    let died_at = h
        .state()
        .published()
        .frames
        .newest()
        .expect("frames ran")
        .simulation_tick;
    assert!(died_at >= last && died_at > lifted_at + 10);

    h.get_by_label("Restart").click();
    step_until_within(&mut h, "the new host's view", wait, nap, |h| {
        latest_live(h).is_some_and(|v| {
            v.suspension.is_some()
                && v.clock.simulation_tick == died_at
                && v.selected.as_ref().is_some_and(|s| s.id == PLAYER)
        })
    });
    assert!(labels_starting(&h, "The session host stopped").is_empty());
    assert!(!h.get_by_label("▶ Play").accesskit_node().is_disabled());
    assert!(labels_starting(&h, "Host stopped").is_empty());
    assert_eq!(
        labels_starting(&h, "suspended at tick "),
        vec![format!("suspended at tick {died_at}: paused")]
    );
    assert!(log_has(
        &h,
        &format!(
            "a new session host did the session again and stands at tick {died_at}, \
             suspended: Play continues"
        )
    ));
    assert!(h.state().feedback().error.is_none());
    // The edit made before the crash is the new session's too.
    assert_eq!(
        pose_edits(&h.state().published().recording),
        vec![(PLAYER, lifted())]
    );
    // The new host journals what it did again: a second death restarts
    // from there, to the same tick.
    assert!(
        h.state()
            .published()
            .journal
            .iter()
            .any(|e| matches!(e, JournalEntry::Start(s) if s.path == demo()))
    );
    let hash = latest_live(&h).expect("a view").state_hash;
    h.state_mut().send(Command::DebugCrash);
    step_until_within(&mut h, "the second banner", wait, nap, |h| {
        !labels_starting(h, "The session host stopped: ").is_empty()
    });
    h.get_by_label("Restart").click();
    step_until_within(&mut h, "the third host's view", wait, nap, |h| {
        latest_live(h).is_some_and(|v| {
            labels_starting(h, "The session host stopped").is_empty()
                && v.suspension.is_some()
                && v.clock.simulation_tick == died_at
        })
    });
    assert_eq!(latest_live(&h).expect("a view").state_hash, hash);

    // The new host steps and plays.
    h.get_by_label("Step tick").click();
    step_until_within(&mut h, "a step", wait, nap, |h| {
        latest_live(h).is_some_and(|v| v.clock.simulation_tick == died_at + 1)
    });
    h.get_by_label("▶ Play").click();
    step_until_within(&mut h, "play", Duration::from_secs(20), nap, |h| {
        latest_live(h)
            .is_some_and(|v| v.suspension.is_none() && v.clock.simulation_tick > died_at + 10)
    });
}

/// The driven editor on the demo, 10 frames in, paused, the player selected
/// and lifted, then 5 frames of play: the session both editors of the
/// driven test run.
fn driven_lifted() -> Harness<'static, Editor> {
    let mut h = harness_for(EditorConfig::driven(demo(), DT));
    h.run_steps(10);
    h.state_mut().send(Command::Run(Run::Pause));
    h.step();
    h.state_mut().send(Command::Select(Some(PLAYER)));
    h.state_mut().send(lift());
    h.state_mut().send(Command::Run(Run::Play));
    h.run_steps(5);
    h
}

#[test]
fn a_driven_host_that_dies_is_caught_and_restarted_the_same_way() {
    let mut h = driven_lifted();
    let mut uninterrupted = driven_lifted();
    let before = latest_live(&h).expect("a view").clone();
    let tick = before.clock.simulation_tick;
    assert_eq!(
        latest_live(&uninterrupted).map(|v| (v.clock.simulation_tick, v.state_hash)),
        Some((tick, before.state_hash))
    );
    h.state_mut().send(Command::DebugCrash);
    h.step();
    assert_eq!(
        labels_starting(&h, "The session host stopped: "),
        vec![format!("The session host stopped: {CRASH}")],
        "the banner"
    );
    h.run_steps(3);
    assert_eq!(
        latest_live(&h).expect("a view").clock.simulation_tick,
        tick,
        "nothing runs"
    );
    h.get_by_label("Restart").click();
    // A frame for the click, one for the new host to do the journal again,
    // one for its newest view (views go one at a time).
    h.run_steps(3);
    assert_eq!(
        labels_starting(&h, "suspended at tick "),
        vec![format!("suspended at tick {tick}: paused")]
    );
    // Where the dead host stood, bit for bit, with the selection and the edit.
    let restored = latest_live(&h).expect("a view").clone();
    assert_eq!(restored.state_hash, before.state_hash);
    assert_eq!(committed_bits(&restored), committed_bits(&before));
    assert_eq!(restored.selected.as_ref().map(|s| s.id), Some(PLAYER));
    assert_eq!(
        pose_edits(&h.state().published().recording),
        vec![(PLAYER, lifted())]
    );
    // One step on, it is the uninterrupted session's next tick.
    h.get_by_label("Step tick").click();
    h.run_steps(2);
    uninterrupted.step();
    let (a, b) = (
        latest_live(&h).expect("a view"),
        latest_live(&uninterrupted).expect("a view"),
    );
    assert_eq!(a.clock.simulation_tick, tick + 1, "one driven step");
    assert_eq!(b.clock.simulation_tick, tick + 1);
    assert_eq!(a.state_hash, b.state_hash);
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
