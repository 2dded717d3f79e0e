//! Undo and redo through the worker: every kind of the
//! editor's object edits, the session recording losing what was undone, and
//! the refusal once the session ran on.

use stepframe_app::editor::LiveView;
use stepframe_app::editor::protocol::{
    EditCommand, EditKind, EditLabel, Notice, RecordingCommand, RewindCommand, Run, Target,
};
use stepframe_core::{Edit, Pose, Vec2, Velocity};

use super::*;

/// Pumps until the live view reaches `tick`, then pauses there; returns the
/// host and the paused view.
fn paused_at(tick: u64) -> (Host, LiveView) {
    let mut h = playing(demo());
    pump(&mut h, tick as usize);
    h.send(Command::Run(Run::Pause));
    h.pump(DT);
    let view = h.live().clone();
    assert_eq!(view.world.clock.simulation_tick, tick, "one tick a frame");
    h.events();
    (h, view)
}

/// Sends `command`, pumps once, returns the events and the newest live view.
fn apply(h: &mut Host, command: Command) -> (Vec<Event>, LiveView) {
    h.send(command);
    h.pump(DT);
    (h.events(), h.live().clone())
}

/// The notices among `events`, in the editor's words.
fn said(events: &[Event]) -> Vec<String> {
    notices(events)
}

/// What the Edit menu names an edit by.
fn label(edit: &Option<EditLabel>) -> Option<String> {
    edit.as_ref().map(words::edit_label)
}

/// The player lifted, pushed, given new parameters, ball 203 disabled, ball
/// 204 duplicated and ball 205 deleted, in that order.
fn six_edits() -> [Command; 6] {
    let player = ObjectId(20);
    [
        Command::Edit {
            target: Target::Live,
            edit: EditCommand::Pose(player, Pose::new(-12.0, 3.0, 0.0)),
        },
        Command::Edit {
            target: Target::Live,
            edit: EditCommand::Velocity(
                player,
                Velocity {
                    linear: Vec2::new(2.0, 0.0),
                    angular: 0.0,
                },
            ),
        },
        Command::Edit {
            target: Target::Live,
            edit: EditCommand::Params {
                object: player,
                index: 0,
                params: "(move_force: 25.0, max_speed: 7.0, jump_impulse: 9.0, \
                     charge_impulse_per_second: 6.0)"
                    .into(),
            },
        },
        Command::Edit {
            target: Target::Live,
            edit: EditCommand::Enabled(ObjectId(203), false),
        },
        Command::Edit {
            target: Target::Live,
            edit: EditCommand::Duplicate(ObjectId(204)),
        },
        Command::Edit {
            target: Target::Live,
            edit: EditCommand::Remove(ObjectId(205)),
        },
    ]
}

#[test]
fn every_object_edit_undoes_and_redoes_and_the_session_recording_keeps_only_those_in_force() {
    let (mut h, before) = paused_at(120);
    // The copy takes the next free id (the spawners' projectiles have ids
    // past the scene's).
    let copy = ObjectId(
        before
            .world
            .objects
            .iter()
            .map(|o| o.id.0)
            .max()
            .expect("objects")
            + 1,
    );
    let mut view = before.clone();
    for command in six_edits() {
        let events;
        (events, view) = apply(&mut h, command);
        assert_no_errors(&events);
    }
    // The duplicate added one object, the delete took one.
    assert_eq!(view.world.objects.len(), before.world.objects.len());
    assert!(view.world.objects.iter().any(|o| o.id == copy));
    assert_eq!(
        view.undo.undo,
        Some(EditLabel {
            kind: EditKind::Delete,
            object: Some((ObjectId(205), "Ball 205".to_string()))
        })
    );
    assert_eq!(
        label(&view.undo.undo).as_deref(),
        Some("deletion of Ball 205 (#205)")
    );
    assert_eq!(h.recording.edits.len(), 6, "six edits recorded");

    // Undo the last three, newest first.
    let expected = [
        "undid deletion of Ball 205 (#205) (before tick 121)".to_string(),
        format!("undid duplicate Ball 204 copy ({copy}) (before tick 121)"),
        "undid disabling Ball 203 (#203) (before tick 121)".to_string(),
    ];
    for text in &expected {
        let events;
        (events, view) = apply(&mut h, Command::Rewind(RewindCommand::Undo));
        assert_no_errors(&events);
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::Notice(Notice::Undone { before: 121, .. }))),
            "{events:?}"
        );
        assert!(
            said(&events).iter().any(|t| t.starts_with(text)),
            "{:?}",
            said(&events)
        );
    }
    assert!(
        view.world.objects.iter().any(|o| o.id == ObjectId(205)),
        "ball 205 back"
    );
    assert!(view.world.objects.iter().all(|o| o.id != copy), "no copy");
    let ball_203 = |v: &LiveView| {
        v.world
            .objects
            .iter()
            .find(|o| o.id == ObjectId(203))
            .map(|o| o.enabled)
    };
    assert_eq!(ball_203(&view), Some(true));
    assert_eq!(
        label(&view.undo.undo).as_deref(),
        Some("PlayerController parameters of Player (#20)")
    );
    assert_eq!(
        label(&view.undo.redo).as_deref(),
        Some("disabling Ball 203 (#203)")
    );

    // Redo the disable.
    let (_, view) = apply(&mut h, Command::Rewind(RewindCommand::Redo));
    assert_eq!(ball_203(&view), Some(false));
    assert_eq!(
        label(&view.undo.redo),
        Some(format!("duplicate Ball 204 copy ({copy})"))
    );

    // The session recording holds the four edits in force, in order.
    let dir = std::env::temp_dir().join(format!("stepframe-undo-rec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let path = dir.join("undo.ron");
    let (events, _) = apply(
        &mut h,
        Command::Recording(RecordingCommand::Save {
            path: path.clone(),
            overwrite: true,
        }),
    );
    assert_no_errors(&events);
    let saved = Recording::load(&path).expect("the recording reads");
    let kinds: Vec<&str> = saved
        .edits
        .iter()
        .map(|e| match &e.edit {
            Edit::Pose { .. } => "pose",
            Edit::Velocity { .. } => "velocity",
            Edit::Params { .. } => "params",
            Edit::Enabled { .. } => "enabled",
            Edit::Spawn(_) => "spawn",
            Edit::Remove { .. } => "remove",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["pose", "velocity", "params", "enabled"]);
    assert!(saved.edits.iter().all(|e| e.tick == 121));
    let _ = std::fs::remove_dir_all(&dir);

    // The next tick is, bit for bit, that of a session that only ever made
    // those four edits.
    let (_, stepped) = apply(&mut h, Command::Run(Run::StepTick));
    let (mut h2, _) = paused_at(120);
    for command in six_edits().into_iter().take(4) {
        apply(&mut h2, command);
    }
    let (_, reference) = apply(&mut h2, Command::Run(Run::StepTick));
    assert_eq!(stepped.world.clock.simulation_tick, 121);
    assert_eq!(reference.world.clock.simulation_tick, 121);
    assert_eq!(stepped.world.state_hash, reference.world.state_hash);
    assert_eq!(stepped.world.objects, reference.world.objects);
}

#[test]
fn undo_after_the_session_ran_on_changes_nothing_and_says_how_to_go_back() {
    let (mut h, _) = paused_at(120);
    apply(
        &mut h,
        Command::Edit {
            target: Target::Live,
            edit: EditCommand::Enabled(ObjectId(203), false),
        },
    );
    let (_, stepped) = apply(&mut h, Command::Run(Run::StepTick));
    assert_eq!(stepped.world.clock.simulation_tick, 121);
    assert_eq!(stepped.undo.undo, None, "nothing the menu could undo");
    let (events, view) = apply(&mut h, Command::Rewind(RewindCommand::Undo));
    assert_eq!(
        said(&events),
        vec![
            "nothing undone: the last edit (disabling Ball 203 (#203)) was made at tick 120 and \
             the session has run on to tick 121. Undo works at the tick of an edit; to go back \
             before it, resume from tick 120 (the timeline), where the future runs without it"
                .to_string()
        ]
    );
    assert_eq!(view.world.state_hash, stepped.world.state_hash, "unchanged");
    assert!(
        view.world
            .objects
            .iter()
            .find(|o| o.id == ObjectId(203))
            .is_some_and(|o| !o.enabled)
    );
    // While running, Undo waits for a pause.
    apply(&mut h, Command::Run(Run::Play));
    let (events, _) = apply(&mut h, Command::Rewind(RewindCommand::Undo));
    assert_eq!(
        said(&events),
        vec!["Undo works while suspended: pause (or stop at a breakpoint) first".to_string()]
    );
}
