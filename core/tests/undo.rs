//! Undo and redo of edits through the history: an undone
//! edit is gone from the log, so the session, a past view, a rewind and the
//! future are bit for bit those of a session that never had it.

mod support;

use stepframe_core::{
    BodyDesc, Breakpoint, Condition, Edit, History, HookKind, ObjectDesc, ObjectId, Pipeline, Pose,
    Priority, RapierStage, Session, Shape, SuspendReason, TimeSettings, UndoError, Vec2, World,
};
use support::{Hashes, Nudger};

const DT: f64 = 1.0 / 60.0;

/// Ground, and twelve balls in a pile (ids 10 to 21), every third nudged.
fn pipeline() -> Pipeline {
    let mut w = World::new();
    w.spawn(support::ground(20.0));
    for i in 0..12u64 {
        let x = (i % 4) as f32 * 1.1 - 2.0;
        let y = 1.0 + (i / 4) as f32 * 1.1;
        let mut o = ObjectDesc::new(format!("ball{i}"), Pose::new(x, y, 0.0))
            .with_id(ObjectId(10 + i))
            .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.5 }));
        if i % 3 == 0 {
            o = o.with_behaviour(Box::new(Nudger { most: 3.0 }), Priority::DEFAULT);
        }
        w.spawn(o);
    }
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(w, Box::new(RapierStage::new(Vec2::new(0.0, -9.81))), 7);
    p
}

/// One keyframe, at the start: every past view and rewind then replays the
/// log across the tick of the edits (a later keyframe would be taken after
/// them, and a replay from it could not tell whether they are in the log).
const KEYFRAME_EVERY: u64 = 10_000;

/// A session with an observer, run `frames` frames of 1/60 s (one tick
/// each) through its history, then paused.
fn paused_after(frames: usize) -> (Session, Hashes) {
    let mut p = pipeline();
    let seen = Hashes::default();
    p.set_tick_observer(Some(Box::new(seen.clone())));
    let mut s = Session::new(p, History::new(KEYFRAME_EVERY, 100_000));
    for _ in 0..frames {
        s.step_frame(DT, &[]);
    }
    s.pause();
    (s, seen)
}

/// Resumes and runs `frames` more frames.
fn play_on(s: &mut Session, frames: usize) {
    s.resume(&[]);
    for _ in 0..frames {
        s.step_frame(DT, &[]);
    }
}

/// Ball 10 lifted to y = 8 m.
fn lift() -> Edit {
    Edit::Pose {
        object: ObjectId(10),
        pose: Pose::new(-2.0, 8.0, 0.0),
    }
}

/// Ball 13 (a nudger) disabled.
fn disable() -> Edit {
    Edit::Enabled {
        object: ObjectId(13),
        enabled: false,
    }
}

/// Ball 15 deleted.
fn delete() -> Edit {
    Edit::Remove {
        object: ObjectId(15),
    }
}

#[test]
fn an_undone_edit_is_gone_from_the_session_its_past_views_rewinds_and_future() {
    // The reference never had an edit: 120 ticks, a pause, 60 more.
    let (mut reference, ref_seen) = paused_after(120);
    play_on(&mut reference, 60);

    let (mut s, seen) = paused_after(120);
    let before = s.pipeline().state_hash();
    assert_eq!(
        before,
        ref_seen.at(120),
        "the two runs agree up to the edit"
    );
    for edit in [lift(), disable(), delete()] {
        s.edit_undoable(edit.into()).expect("the edit applies");
    }
    assert_ne!(
        s.pipeline().state_hash(),
        before,
        "the edits changed the session"
    );
    assert_eq!(s.history().next_undo(), Some(&delete()));

    // Newest first, each one out of the log.
    assert_eq!(s.undo().expect("undo the delete"), delete());
    assert!(
        s.pipeline().world().get(ObjectId(15)).is_some(),
        "ball 15 is back"
    );
    assert_eq!(s.undo().expect("undo the disable"), disable());
    assert_eq!(s.undo().expect("undo the lift"), lift());
    assert_eq!(
        s.pipeline().state_hash(),
        before,
        "bit for bit the session before the edits"
    );
    assert!(matches!(s.undo(), Err(UndoError::NothingToUndo)));
    assert_eq!(
        s.pipeline().suspension().map(|x| &x.reason),
        Some(&SuspendReason::Pause),
        "still paused where the edits were made"
    );

    // The future is the reference's, tick for tick.
    play_on(&mut s, 60);
    for tick in 121..=180 {
        assert_eq!(seen.at(tick), ref_seen.at(tick), "live tick {tick}");
    }
    // A past view of a tick after the edits replays the log: they are not in it.
    for tick in [121u64, 122, 150, 180] {
        let mut scratch = Pipeline::new(TimeSettings::default());
        s.replay_into(&mut scratch, tick).expect("a kept tick");
        assert_eq!(
            scratch.state_hash(),
            ref_seen.at(tick),
            "past view of {tick}"
        );
    }
    // Nor in a rewind to before them and forward again across their tick.
    s.rewind_to_tick(100).expect("rewind back");
    assert_eq!(s.pipeline().state_hash(), ref_seen.at(100));
    s.rewind_to_tick(170).expect("rewind forward");
    assert_eq!(s.pipeline().state_hash(), ref_seen.at(170));
}

#[test]
fn redo_applies_the_undone_edit_again_and_a_new_edit_clears_the_redo_stack() {
    // What the lift does when it stays: the run to compare against.
    let (mut kept, kept_seen) = paused_after(120);
    kept.edit_undoable(lift().into()).expect("the lift applies");
    let lifted = kept.pipeline().state_hash();
    play_on(&mut kept, 30);
    let (mut plain, plain_seen) = paused_after(120);
    play_on(&mut plain, 30);
    assert_ne!(
        kept_seen.at(150),
        plain_seen.at(150),
        "the lift changes the future"
    );

    let (mut s, seen) = paused_after(120);
    s.edit_undoable(lift().into()).expect("the lift applies");
    s.undo().expect("undo");
    assert_eq!(s.history().next_redo(), Some(&lift()));
    assert_eq!(s.redo().expect("redo"), lift());
    assert_eq!(s.pipeline().state_hash(), lifted, "as after the first lift");
    assert!(matches!(s.redo(), Err(UndoError::NothingToRedo)));
    // Undone and redone, the lift is in the log once: the future is the kept run's.
    play_on(&mut s, 30);
    for tick in 121..=150 {
        assert_eq!(seen.at(tick), kept_seen.at(tick), "tick {tick}");
    }

    // Paused again: undo the disable, then a new edit; the disable can no
    // longer be redone.
    s.pause();
    s.edit_undoable(disable().into()).expect("disable");
    s.undo().expect("undo the disable");
    assert_eq!(s.history().next_redo(), Some(&disable()));
    s.edit_undoable(delete().into()).expect("delete");
    assert_eq!(s.history().next_redo(), None);
    assert!(matches!(s.redo(), Err(UndoError::NothingToRedo)));
    assert_eq!(s.history().next_undo(), Some(&delete()));
}

#[test]
fn undo_refuses_an_edit_the_session_ran_past_and_changes_nothing() {
    let (mut s, _) = paused_after(120);
    s.edit_undoable(lift().into()).expect("the lift applies");
    s.step_tick(&[]);
    let now = s.pipeline().state_hash();
    match s.undo() {
        Err(UndoError::RanOn {
            edit,
            made_at,
            now: at,
        }) => {
            assert_eq!((*edit, made_at, at), (lift(), 120, 121));
        }
        other => panic!("expected RanOn, got {other:?}"),
    }
    assert_eq!(
        s.pipeline().state_hash(),
        now,
        "a refused undo changes nothing"
    );
    assert_eq!(s.pipeline().stepper().completed_ticks(), 121);
    assert!(matches!(s.redo(), Err(UndoError::NothingToRedo)));
}

#[test]
fn an_edit_undone_at_a_breakpoint_inside_a_frame_resumes_that_frame_as_without_it() {
    // Frames of 1/20 s run three ticks each; a breakpoint stops at the end of
    // tick 149, the second tick of the frame that runs 148 to 150.
    let run = |edit_and_undo: bool| {
        let mut p = pipeline();
        let seen = Hashes::default();
        p.set_tick_observer(Some(Box::new(seen.clone())));
        p.add_breakpoint(Breakpoint {
            condition: Condition {
                ticks: Some((149, 149)),
                ..Condition::default()
            },
            ..Breakpoint::on(HookKind::FixedUpdate, ObjectId(10))
        });
        let mut s = Session::new(p, History::new(KEYFRAME_EVERY, 100_000));
        while s.pipeline().suspension().is_none() {
            s.step_frame(1.0 / 20.0, &[]);
        }
        assert_eq!(
            s.pipeline().stepper().completed_ticks(),
            149,
            "stopped mid-frame"
        );
        let before = s.pipeline().state_hash();
        let stop = s.pipeline().suspension().cloned();
        assert!(
            matches!(
                stop.as_ref().map(|s| &s.reason),
                Some(SuspendReason::Breakpoint(_))
            ),
            "{stop:?}"
        );
        if edit_and_undo {
            s.edit_undoable(disable().into()).expect("disable");
            assert_ne!(s.pipeline().state_hash(), before);
            s.undo().expect("undo");
            assert_eq!(s.pipeline().state_hash(), before);
            // Still stopped at the breakpoint, not turned into a pause.
            assert_eq!(s.pipeline().suspension(), stop.as_ref());
        }
        // Resume finishes the frame (tick 150), then on to tick 180.
        s.resume(&[]);
        assert_eq!(
            s.pipeline().stepper().completed_ticks(),
            150,
            "the frame's last tick"
        );
        while s.pipeline().stepper().completed_ticks() < 180 {
            s.step_frame(1.0 / 20.0, &[]);
        }
        seen
    };
    let (undone, plain) = (run(true), run(false));
    for tick in 150..=180 {
        assert_eq!(undone.at(tick), plain.at(tick), "tick {tick}");
    }
}
