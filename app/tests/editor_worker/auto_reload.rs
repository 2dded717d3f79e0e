//! Auto-reload: the open scene's file changed on disk
//! reloads as Ctrl+R does, with a notice; a change that does not load keeps
//! the running session and reports where; the editor's own Save is no
//! reload. Each change sets the file's modification time explicitly, so
//! the worker sees it whatever the filesystem's timestamp granularity.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};
use stepframe_app::editor::protocol::{
    EditCommand, Notice, Outbound, RewindCommand, Run, SceneCommand, Target, TimeSetting,
};

use super::*;

/// A ball at `(0, y)` with nothing under it, gravity 10 m/s², at 60 Hz.
fn ball_scene(y: &str) -> String {
    format!(
        r#"#![enable(implicit_some)]
(
    settings: (
        gravity: (x: 0.0, y: -10.0),
        time: (fixed_hz: 60, max_delta: 0.25, max_steps: 4, time_scale: 1.0, substeps: 1, strategy: Accumulator),
        seed: 1,
    ),
    objects: [
        (id: 1, name: "Ball", transform: (x: 0.0, y: {y}), body: (shapes: [Circle(radius: 0.25)])),
    ],
)
"#
    )
}

/// A fresh folder for one test, holding the ball scene at y = 1.
fn scene_in(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("auto-reload-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let scene = dir.join("ball.ron");
    std::fs::write(&scene, ball_scene("1.0")).expect("write the scene");
    scene
}

/// Writes `text` over `path` as another program would, then sets its
/// modification time to `second` seconds after 2023-11-14 (distinct for
/// every write of a test, so the change is seen on any filesystem).
fn write_elsewhere(path: &Path, text: &str, second: u64) {
    std::fs::write(path, text).expect("write the scene");
    let when = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + second);
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(when))
        .expect("set the modification time");
}

/// Pumps (at most `pumps` times) until an event satisfies `done`; returns
/// every event seen.
fn pump_until(h: &mut Host, pumps: usize, done: impl Fn(&Event) -> bool) -> Vec<Event> {
    let mut events = Vec::new();
    for _ in 0..pumps {
        h.pump(DT);
        let new: Vec<Event> = h.events();
        let found = new.iter().any(&done);
        events.extend(new);
        if found {
            return events;
        }
    }
    panic!("nothing satisfied the wait in {pumps} pumps: {events:?}");
}

/// The notices among `events`, as the host sent them.
fn typed_notices(events: &[Event]) -> Vec<&Notice> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Notice(n) => Some(n),
            _ => None,
        })
        .collect()
}

fn loads(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::Loaded { .. }))
        .count()
}

/// The notice of ball.ron reloaded because it changed on disk.
fn reloaded() -> Notice {
    Notice::SceneReloadedFromDisk("ball.ron".to_string())
}

/// What the editor says of it.
const RELOADED: &str = "ball.ron changed on disk: reloaded, keeping the time settings (as Ctrl+R)";

/// The ball's committed pose in the newest live view.
fn ball(h: &Host) -> (stepframe_app::editor::WorldView, stepframe_core::Pose) {
    let view = h.view().clone();
    let pose = view
        .objects
        .iter()
        .find(|o| o.id == ObjectId(1))
        .expect("the ball")
        .committed;
    (view, pose)
}

#[test]
fn a_previewed_scene_changed_on_disk_reloads_with_a_notice_keeping_time_settings_and_pause() {
    let scene = scene_in("preview");
    // A preview (suspended at tick 0), at 30 Hz and 144 Hz pacing where the
    // file says 60 Hz.
    let mut h = Host::loading(DisplayRate::Hz(60), &scene, false);
    h.send(Command::Run(Run::Set(TimeSetting::FixedRate(30))));
    h.send(Command::Run(Run::SetDisplayRate(DisplayRate::Hz(144))));
    pump(&mut h, 3);
    assert_no_errors(&h.events());

    write_elsewhere(&scene, &ball_scene("5.0"), 1);
    let events = pump_until(&mut h, 5, |e| matches!(e, Event::Notice(_)));
    assert_eq!(typed_notices(&events), vec![&reloaded()]);
    assert_eq!(notices(&events), vec![RELOADED]);
    assert_eq!(loads(&events), 1, "one reload");
    assert_no_errors(&events);
    let (view, pose) = ball(&h);
    assert_eq!(pose.y, 5.0, "the ball where the file puts it now");
    assert_eq!(view.clock.simulation_tick, 0);
    assert!(view.suspension.is_some(), "still a preview");
    assert_eq!(
        view.settings.fixed_hz, 30,
        "the toolbar's rate, not the file's"
    );
    assert_eq!(h.live().display_rate, DisplayRate::Hz(144));

    // Nothing changed since: no second reload, however long it looks.
    pump(&mut h, 5);
    let later = h.events();
    assert_eq!(loads(&later), 0, "{later:?}");
    assert!(notices(&later).is_empty(), "{later:?}");
}

#[test]
fn a_broken_or_half_written_change_keeps_the_running_session_and_reports_line_and_column() {
    let scene = scene_in("broken");
    let mut h = playing(scene.clone());
    pump(&mut h, 10);
    h.events();

    // The object line lacks the comma after `id: 1`.
    let broken = ball_scene("5.0").replace("(id: 1, name:", "(id: 1 name:");
    let (line, text_of_line) = broken
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("(id: 1 name:"))
        .expect("the broken line");
    let column = text_of_line.find("name").expect("name") + 1;
    write_elsewhere(&scene, &broken, 1);
    let events = pump_until(&mut h, 5, |e| matches!(e, Event::Error(_)));
    let error = errors(&events);
    assert_eq!(error.len(), 1, "{events:?}");
    let place = format!("{}:{}:{column}:", scene.display(), line + 1);
    assert!(
        error[0].starts_with(&place),
        "{:?} starts with {place}",
        error[0]
    );
    assert!(error[0].ends_with("Expected comma"), "{:?}", error[0]);
    assert_eq!(loads(&events), 0, "nothing reloaded");
    assert!(
        typed_notices(&events).contains(&&Notice::SceneChangedBroken("ball.ron".to_string())),
        "{events:?}"
    );
    assert!(
        notices(&events)
            .iter()
            .any(|n| n.contains("does not load") && n.contains("the running session goes on")),
        "{events:?}"
    );
    // The session runs on from where it was, the ball still falling from 1 m.
    let (view, pose) = ball(&h);
    assert!(view.suspension.is_none(), "still running");
    let tick = view.clock.simulation_tick;
    assert!(tick > 10, "tick {tick}: not restarted");
    assert!(pose.y < 1.0, "the old session's ball: y = {}", pose.y);

    // The broken version is reported once, not at every look.
    pump(&mut h, 5);
    let later = h.events();
    assert!(errors(&later).is_empty(), "{later:?}");

    // A tool writing the fixed file in two pieces: the first half does not
    // load (the session goes on), the whole file reloads.
    let fixed = ball_scene("5.0");
    write_elsewhere(&scene, &fixed[..fixed.len() / 2], 2);
    let events = pump_until(&mut h, 5, |e| matches!(e, Event::Error(_)));
    assert_eq!(loads(&events), 0);
    assert!(ball(&h).0.clock.simulation_tick > tick, "still running on");
    write_elsewhere(&scene, &fixed, 3);
    let events = pump_until(&mut h, 5, |e| matches!(e, Event::Notice(_)));
    assert_eq!(typed_notices(&events), vec![&reloaded()]);
    assert_eq!(loads(&events), 1);
    let (view, pose) = ball(&h);
    assert!(
        view.suspension.is_none(),
        "a running session runs on after a reload"
    );
    assert!(
        view.clock.simulation_tick < 5,
        "restarted with the new world"
    );
    assert!(
        pose.y > 4.9 && pose.y <= 5.0,
        "the new ball: y = {}",
        pose.y
    );
}

#[test]
fn the_editors_own_save_is_no_reload() {
    let scene = scene_in("save");
    let mut h = playing(scene.clone());
    h.send(Command::Run(Run::Set(TimeSetting::TimeScale(0.5))));
    pump(&mut h, 10);
    h.events();
    let tick_before = h.tick();
    let before = std::fs::read_to_string(&scene).expect("the scene");
    // Save over the file (hand-written: confirmed, as the dialog's Save anyway).
    h.send(Command::Scene(SceneCommand::Save {
        replace: true,
        reviewed: true,
    }));
    let mut events = pump_until(&mut h, 2, |e| matches!(e, Event::Saved(_)));
    let after = std::fs::read_to_string(&scene).expect("the scene");
    assert_ne!(after, before, "Save wrote the file");
    assert!(after.contains("time_scale: 0.5"), "{after}");
    pump(&mut h, 10);
    events.extend(h.events());
    assert_eq!(loads(&events), 0, "{events:?}");
    assert!(
        notices(&events)
            .iter()
            .all(|n| !n.contains("changed on disk")),
        "{events:?}"
    );
    assert_no_errors(&events);
    // Eleven frames at half speed since: five ticks or more on, not a new
    // session's first few.
    let view = h.view();
    assert!(
        view.clock.simulation_tick >= tick_before + 5,
        "the session was not restarted: tick {} after {tick_before}",
        view.clock.simulation_tick
    );
}

#[test]
fn a_suspended_worker_thread_looks_at_the_file_without_being_asked() {
    let scene = scene_in("thread");
    let (ui, end) = worker::channels();
    let registries = stepframe_app::Behaviours::built_in().registries();
    let build = move || Worker::new(end, DisplayRate::Hz(60), registries);
    let thread = worker::spawn(build, ui.commands.clone(), None).expect("a thread");
    ui.send(Command::Scene(SceneCommand::Load {
        path: scene.clone(),
        play: false,
    }));
    // What the host sends next, waiting at most a minute: an event, or a
    // live view (taken, so the host may send the next).
    let next = |what: &str, t0: Instant| {
        let left = Duration::from_secs(60).saturating_sub(t0.elapsed());
        let message = ui
            .inbound
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no {what} within 60 s"));
        if matches!(message, Outbound::Live(_)) {
            ui.send(Command::ViewTaken);
        }
        message
    };
    let wait_for = |what: &str, pick: &dyn Fn(&Event) -> bool| {
        let t0 = Instant::now();
        loop {
            if let Outbound::Event(e) = next(what, t0)
                && pick(&e)
            {
                return *e;
            }
        }
    };
    wait_for("load", &|e| matches!(e, Event::Loaded { .. }));
    // The preview blocks on its command channel; no command comes (but the
    // acknowledgements of the views taken).
    write_elsewhere(&scene, &ball_scene("5.0"), 1);
    let notice = wait_for("notice", &|e| matches!(e, Event::Notice(_)));
    assert_eq!(notice, Event::Notice(reloaded()));
    // The reload's view follows its events.
    let t0 = Instant::now();
    let view = loop {
        if let Outbound::Live(view) = next("view of the reload", t0)
            && view.world.objects.iter().any(|o| o.committed.y == 5.0)
        {
            break view.world;
        }
    };
    assert!(view.suspension.is_some(), "still a preview");
    assert_eq!(view.clock.simulation_tick, 0);
    drop(thread);
}

/// Writes the ball at y = 5 over `scene` as another program would, and
/// checks that the session, which has one unsaved edit, is not reloaded and
/// says why.
fn changed_elsewhere_and_kept(scene: &Path, h: &mut Host) {
    write_elsewhere(scene, &ball_scene("5.0"), 1);
    let events = pump_until(h, 5, |e| matches!(e, Event::Notice(_)));
    assert_eq!(
        typed_notices(&events),
        vec![&Notice::SceneChangedKept {
            file: "ball.ron".to_string(),
            unsaved: 1
        }]
    );
    assert_eq!(
        notices(&events),
        vec![
            "ball.ron changed on disk: not reloaded, the session has 1 unsaved edit the file \
             does not (Ctrl+R reloads and drops them; Save asks before writing over the file)"
        ]
    );
    assert_eq!(loads(&events), 0, "the edited session goes on");
}

#[test]
fn a_change_on_disk_never_drops_unsaved_edits_and_reloads_again_once_they_are_saved() {
    let scene = scene_in("unsaved");
    let mut h = preview(&scene);
    // A move made in the editor, not saved.
    h.send(Command::Edit {
        target: Target::Live,
        edit: EditCommand::Pose(ObjectId(1), stepframe_core::Pose::new(2.0, 1.0, 0.0)),
    });
    pump(&mut h, 3);
    h.events();

    changed_elsewhere_and_kept(&scene, &mut h);
    let edits = h.recording.edits.len();
    assert_eq!(edits, 1, "the move is still the session's");

    // Ctrl+R is the user's choice to drop it: the file's ball, no edits.
    h.send(Command::Scene(SceneCommand::Reload));
    let events = pump_until(&mut h, 5, |e| matches!(e, Event::Loaded { .. }));
    assert_no_errors(&events);
    let (_, pose) = ball(&h);
    assert_eq!(pose.y, 5.0);
    assert!(h.recording.edits.is_empty());

    // With nothing unsaved, the next change reloads by itself.
    write_elsewhere(&scene, &ball_scene("7.0"), 2);
    let events = pump_until(&mut h, 5, |e| matches!(e, Event::Notice(_)));
    assert_eq!(typed_notices(&events), vec![&reloaded()]);
    assert_eq!(ball(&h).1.y, 7.0);
}

/// After Save, Undo and a new edit the session has as many edits as the
/// file holds, but not the same ones: the new move is unsaved, and a change
/// on disk must not drop it (the check compared counts).
#[test]
fn a_new_edit_after_save_and_undo_is_unsaved_though_the_count_is_the_same() {
    let scene = scene_in("save-undo");
    let mut h = preview(&scene);
    let move_to = |x: f32| Command::Edit {
        target: Target::Live,
        edit: EditCommand::Pose(ObjectId(1), stepframe_core::Pose::new(x, 1.0, 0.0)),
    };
    h.send(move_to(2.0));
    h.pump(DT);
    h.send(Command::Scene(SceneCommand::Save {
        replace: true,
        reviewed: true,
    }));
    let events = pump_until(&mut h, 3, |e| matches!(e, Event::Saved(_)));
    assert_no_errors(&events);
    let saved = std::fs::read_to_string(&scene).expect("the scene");
    assert!(saved.contains("x: 2.0"), "Save wrote the move: {saved}");
    h.send(Command::Rewind(RewindCommand::Undo));
    h.pump(DT);
    h.send(move_to(3.0));
    pump(&mut h, 3);
    h.events();
    // One edit, as many as the file holds, but not the one it holds.
    let moved_to = |h: &Host| {
        let edits = h.recording.edits.clone();
        assert_eq!(edits.len(), 1, "{edits:?}");
        match &edits[0].edit {
            stepframe_core::Edit::Pose { pose, .. } => pose.x,
            other => panic!("a move, not {other:?}"),
        }
    };
    assert_eq!(moved_to(&h), 3.0, "the new move is the session's");

    changed_elsewhere_and_kept(&scene, &mut h);
    // A suspended worker publishes after a command: any will do.
    h.send(Command::Select(None));
    h.pump(DT);
    assert_eq!(moved_to(&h), 3.0, "the new move is still the session's");
}
