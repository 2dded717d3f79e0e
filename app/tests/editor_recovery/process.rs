//! The editor's session host in a child process (the editor's default),
//! against faults no process survives: an abort, a stack overflow, memory
//! exhausted and a hook that never returns, each in a game's FixedUpdate at
//! tick 40. For each, the editor stays up, names the fault (kind, object,
//! behaviour, hook, tick) from the child's fault marker, restarts a host
//! that stops at the end of tick 39 (never straight back into the fault),
//! and keeps a pose edit made before the fault: the restarted session has
//! it, and Save writes it into the scene's file.
//!
//! The host is the binary cargo built (`CARGO_BIN_EXE_stepframe`), run as
//! `stepframe host`. Every wait is bounded.

use std::path::{Path, PathBuf};
use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use stepframe_app::editor::protocol::{EditCommand, Run, SceneCommand, Target};
use stepframe_app::editor::shell::{Driver, HostStopped, Watchdog};
use stepframe_app::editor::{Command, Editor, EditorConfig};
use stepframe_core::{ManualTime, ObjectId, Pose};
use stepframe_host::supervise::Limits;

use crate::support::editor::{
    harness_for, latest_live, latest_suspended, latest_tick, step_until_within,
};
use crate::support::{labels_starting, scratch};

/// A bound on a hang, not on speed: a child's start, a load and 40 ticks
/// take well under a second on an idle machine.
const BOUND: Duration = Duration::from_secs(120);
/// Between UI frames, as a display would.
const NAP: Duration = Duration::from_millis(5);
/// The edited ball and where the edit puts it.
const BALL: ObjectId = ObjectId(2);
const MOVED: Pose = Pose {
    x: 3.25,
    y: 7.5,
    angle: 0.0,
};

/// A scene with a fixed ground, a ball to edit, and `Bomb` (#7) whose
/// `Faulty` fires `fault` in FixedUpdate at tick 40.
fn fault_scene(dir: &Path, fault: &str) -> PathBuf {
    let scene = dir.join(format!("{}.ron", fault.to_lowercase()));
    std::fs::write(
        &scene,
        format!(
            "// A ball, and a bomb in FixedUpdate.\n(\n    objects: [\n        (id: 1, name: \"Ground\", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 20.0, hy: 0.5)])),\n        (id: 2, name: \"Ball\", transform: (x: 0.0, y: 4.0), body: (shapes: [Circle(radius: 0.5)])),\n        (id: 7, name: \"Bomb\", behaviours: [(name: \"Faulty\", params: (hook: FixedUpdate, tick: 40, fault: {fault}))]),\n    ],\n)\n"
        ),
    )
    .expect("write the scene");
    scene
}

/// The editor with its host in a child process of the stepframe binary.
fn editor_with_host(
    scene: PathBuf,
    limits: Limits,
    watchdog: Watchdog,
) -> Harness<'static, Editor> {
    let config = EditorConfig {
        driver: Driver::Process {
            program: Some(PathBuf::from(env!("CARGO_BIN_EXE_stepframe"))),
            limits,
        },
        watchdog,
        ..EditorConfig::new(scene)
    };
    harness_for(config)
}

/// Plays to tick 10 or so, pauses, moves the ball, and plays on: the edit
/// is in the session (and its journal) before the fault.
fn edit_before_the_fault(h: &mut Harness<'_, Editor>) {
    step_until_within(h, "the session to play", BOUND, NAP, |h| {
        latest_tick(h).is_some_and(|t| t >= 10)
    });
    h.state_mut().send(Command::Run(Run::Pause));
    step_until_within(h, "the pause", BOUND, NAP, latest_suspended);
    let at = latest_tick(h).expect("a tick");
    assert!(at < 40, "paused before the fault: {at}");
    h.state_mut().send(Command::Edit {
        target: Target::Live,
        edit: EditCommand::Pose(BALL, MOVED),
    });
    step_until_within(h, "the edit to be recorded", BOUND, NAP, |h| {
        !h.state().published().recording.edits.is_empty()
    });
    h.state_mut().send(Command::Run(Run::Play));
}

/// Waits for the host to die, and returns why.
fn host_death(h: &mut Harness<'_, Editor>) -> HostStopped {
    step_until_within(h, "the host to die", BOUND, NAP, |h| {
        h.state().published().worker_stopped.is_some()
    });
    h.state()
        .published()
        .worker_stopped
        .clone()
        .expect("stopped")
}

/// Restarts after the fault and checks where the new host stands: at the
/// end of tick 39, suspended, with the edit; then Save writes the edit.
fn restart_keeps_the_edit_and_save_writes_it(h: &mut Harness<'_, Editor>, scene: &Path) {
    // The banner offers the restart before the faulting tick.
    h.get_by_label("Restart at tick 39").click();
    step_until_within(h, "the restarted host at tick 39", BOUND, NAP, |h| {
        h.state().published().worker_stopped.is_none()
            && h.state().published().replaying.is_none()
            && latest_tick(h) == Some(39)
            && latest_suspended(h)
    });
    let recorded = &h.state().published().recording.edits;
    assert!(
        recorded.iter().any(|e| matches!(
            e.edit,
            stepframe_core::Edit::Pose { object, pose } if object == BALL && pose == MOVED
        )),
        "the new host's session has the edit made before the fault: {recorded:?}"
    );
    let before = std::fs::read_to_string(scene).expect("read");
    h.state_mut().send(Command::Scene(SceneCommand::Save {
        replace: true,
        reviewed: true,
    }));
    step_until_within(h, "the save", BOUND, NAP, |_| {
        std::fs::read_to_string(scene).is_ok_and(|now| now != before)
    });
    let saved = std::fs::read_to_string(scene).expect("read");
    assert!(
        saved.contains("x: 3.25") && saved.contains("y: 7.5"),
        "Save wrote the edit made before the fault:\n{saved}"
    );
    assert!(saved.contains("// A ball"), "in place, the comment kept");
}

/// One fatal fault through the whole path (module docs).
fn survives(fault: &str, limits: Limits, named: &str) {
    let dir = scratch(&format!("process-{}", fault.to_lowercase()));
    let scene = fault_scene(&dir, fault);
    let mut h = editor_with_host(scene.clone(), limits, Watchdog::default());
    edit_before_the_fault(&mut h);
    let stopped = host_death(&mut h);
    let text = stopped.to_string();
    assert!(text.starts_with(named), "named: {text}");
    assert_eq!(stopped.tick(), Some(40));
    let banner = labels_starting(&h, "Your code took the session host down: ");
    assert_eq!(banner.len(), 1, "one banner: {banner:?}");
    assert!(banner[0].contains(named), "{}", banner[0]);
    restart_keeps_the_edit_and_save_writes_it(&mut h, &scene);
}

#[test]
fn an_abort_in_a_fixed_update_leaves_the_editor_standing_and_restarts_before_it() {
    survives(
        "Abort",
        Limits::default(),
        "abort in FixedUpdate of #7 `Bomb` (Faulty) at tick 40",
    );
}

#[test]
fn a_stack_overflow_in_a_fixed_update_leaves_the_editor_standing_and_restarts_before_it() {
    survives(
        "StackOverflow",
        Limits::default(),
        "stack overflow in FixedUpdate of #7 `Bomb` (Faulty) at tick 40",
    );
}

#[test]
fn memory_exhausted_in_a_fixed_update_leaves_the_editor_standing_and_restarts_before_it() {
    let limits = Limits {
        memory_bytes: Some(512 << 20),
        ..Limits::default()
    };
    survives(
        "Allocate",
        limits,
        "out of memory in FixedUpdate of #7 `Bomb` (Faulty) at tick 40",
    );
}

#[test]
fn an_endless_loop_in_a_fixed_update_is_abandoned_the_host_killed_and_restarted_before_it() {
    let dir = scratch("process-spin");
    let scene = fault_scene(&dir, "Spin");
    let clock = ManualTime::new();
    let watchdog = Watchdog {
        after: Duration::from_secs(3),
        clock: clock.clock(),
    };
    let mut h = editor_with_host(scene.clone(), Limits::default(), watchdog);
    edit_before_the_fault(&mut h);
    // The spinning call shows in the marker; then "three seconds" pass.
    step_until_within(&mut h, "the hook to start spinning", BOUND, NAP, |h| {
        h.state().published().worker_stopped.is_none()
            && latest_live(h).is_some_and(|v| v.clock.simulation_tick >= 39)
    });
    step_until_within(&mut h, "the stuck banner", BOUND, NAP, |h| {
        clock.advance(Duration::from_secs(1));
        h.state().published().worker_stuck.is_some()
    });
    let stuck = h.state().published().worker_stuck.clone().expect("stuck");
    assert_eq!(stuck.object, ObjectId(7));
    assert_eq!(stuck.object_name, "Bomb");
    assert_eq!(stuck.behaviour.as_deref(), Some("Faulty"));
    h.get_by_label("Abandon and restart").click();
    // The spinning host is killed; the new one stops before the stuck frame.
    step_until_within(&mut h, "the restarted host", BOUND, NAP, |h| {
        h.state().published().worker_stuck.is_none()
            && h.state().published().replaying.is_none()
            && latest_suspended(h)
            && latest_tick(h).is_some_and(|t| (30..40).contains(&t))
    });
    assert!(
        !h.state().published().recording.edits.is_empty(),
        "the edit is kept"
    );
}
