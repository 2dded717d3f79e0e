//! Attached, every panel works as it does for the editor's own session
//! (docs/editor.md, "Attach to a running game"): a past tick of the game
//! shows the game's committed state at that tick in the clock and the
//! inspector, Resume from here rewinds the game there, a plotted watch's
//! lane is filled from the game's history and follows it live, and Fork
//! here runs branch B in the game beside it, parting where B is edited.
//!
//! The game is a player started as `stepframe run SCENE --debug --headless`
//! (the binary cargo built), paced by the wall clock: its frames have no
//! fixed length, but its ticks do, so every tick's committed state is a
//! headless run's of the same scene with frames of exactly one tick
//! (docs/player.md, "Why replays match"). That run is what every value is
//! checked against. Every wait is bounded.

use std::collections::BTreeMap;
use std::time::Duration;

use egui_kittest::Harness;
use stepframe_app::editor::protocol::{Run, WatchCommand};
use stepframe_app::editor::shared::Action;
use stepframe_app::editor::{Command, Editor, Pane};
use stepframe_core::ObjectId;

use crate::attach::{Game, attach, editor};
use crate::support::editor::{
    DT, clock_field, clock_tick, headless_at, label_starting, latest_live, parse_pose, same_bits,
    show, status, step_until_within,
};

/// A bound on a hang, not on speed.
const BOUND: Duration = Duration::from_secs(120);
/// Between UI frames, as a display would.
const NAP: Duration = Duration::from_millis(5);
/// The demo's player.
const PLAYER: ObjectId = ObjectId(20);

fn demo() -> std::path::PathBuf {
    std::path::absolute(stepframe_app::default_scene()).expect("an absolute path")
}

fn live_tick(h: &Harness<'_, Editor>) -> u64 {
    latest_live(h).expect("a live view").clock.simulation_tick
}

fn suspended(h: &Harness<'_, Editor>) -> bool {
    latest_live(h).is_some_and(|v| v.suspension.is_some())
}

/// The editor attached to a headless player, the player selected, and
/// the game past tick `past`.
fn attached_past(past: u64) -> (Game, Harness<'static, Editor>) {
    let game = Game::player();
    let mut h = editor();
    attach(&mut h, &game.line);
    h.state_mut().send(Command::Select(Some(PLAYER)));
    step_until_within(&mut h, "the selection and the ticks", BOUND, NAP, |h| {
        latest_live(h).is_some_and(|v| {
            v.selected.as_ref().map(|s| s.id) == Some(PLAYER) && v.clock.simulation_tick > past
        })
    });
    (game, h)
}

/// The player's committed pose in a headless pipeline.
fn player_pose(p: &stepframe_core::Pipeline) -> stepframe_core::Pose {
    p.world()
        .physics_simulation_pose(PLAYER)
        .expect("the player's pose")
}

#[test]
fn attached_a_past_tick_shows_the_games_state_there_and_resume_from_here_rewinds_the_game() {
    let (_game, mut h) = attached_past(120);
    // The timeline's click on a frame: every panel shows tick 60, and the
    // game is paused for the visit.
    h.state_mut().act(Action::ViewTick(60));
    step_until_within(&mut h, "the past view of tick 60", BOUND, NAP, |h| {
        suspended(h)
            && h.state()
                .published()
                .past
                .as_ref()
                .is_some_and(|p| p.at_tick == Some(60))
    });
    let headless = headless_at(&demo(), 60);
    let past = h.state().published().past.clone().expect("the past view");
    assert_eq!(past.state_hash, headless.state_hash(), "tick 60's state");
    assert_eq!(past.clock.simulation_tick, 60);
    // The Clock tab and the inspector read it.
    show(&mut h, Pane::Clock);
    h.run_steps(2);
    assert_eq!(clock_tick(&h), 60);
    assert_eq!(
        clock_field(&h, "simulation_time", "s"),
        format!("{:.6}", headless.clock().simulation_time)
    );
    show(&mut h, Pane::Inspector);
    h.run_steps(2);
    let shown = parse_pose(&label_starting(&h, "committed pose: "));
    let want = player_pose(&headless);
    assert!(same_bits(shown, want), "{shown:?} vs {want:?}");
    assert!(
        status(&h).starts_with("viewing tick 60 (frame "),
        "{}",
        status(&h)
    );

    // Enter, "Resume from here": the game's live session goes back to the
    // end of tick 60, suspended there; F10 steps it to 61.
    h.state_mut().act(Action::ResumeFromCursor);
    step_until_within(&mut h, "the rewind to tick 60", BOUND, NAP, |h| {
        h.state().cursor().is_none() && suspended(h) && live_tick(h) == 60
    });
    let live = latest_live(&h).expect("a live view");
    assert_eq!(live.state_hash, headless.state_hash(), "rewound to tick 60");
    h.key_press(egui::Key::F10);
    step_until_within(&mut h, "the step to 61", BOUND, NAP, |h| {
        suspended(h) && live_tick(h) == 61
    });
    assert_eq!(
        latest_live(&h).expect("a live view").state_hash,
        headless_at(&demo(), 61).state_hash(),
        "one tick on from the rewind"
    );
    // And it plays on from there.
    h.key_press(egui::Key::F5);
    step_until_within(&mut h, "play after the rewind", BOUND, NAP, |h| {
        !suspended(h) && live_tick(h) > 70
    });
}

#[test]
fn attached_a_plotted_watch_is_filled_from_the_games_history_and_follows_it_live() {
    let (_game, mut h) = attached_past(60);
    let expr = "obj(20).y";
    // What the inspector's "plot y" sends.
    h.state_mut()
        .send(Command::Watches(WatchCommand::Plot(expr.to_string())));
    let added_at = live_tick(&h);
    let lane = |h: &Harness<'_, Editor>| -> BTreeMap<u64, f64> {
        h.state()
            .timeline()
            .watch_lanes()
            .values_of(expr)
            .map(|v| v.iter().copied().collect())
            .unwrap_or_default()
    };
    step_until_within(
        &mut h,
        "the lane's fill and 30 live ticks",
        BOUND,
        NAP,
        |h| {
            let filled = h
                .state()
                .timeline()
                .watch_lanes()
                .fill_of(expr)
                .is_some_and(|f| f.done);
            filled
                && lane(h)
                    .last_key_value()
                    .is_some_and(|(t, _)| *t > added_at + 30)
        },
    );
    let fill = h
        .state()
        .timeline()
        .watch_lanes()
        .fill_of(expr)
        .expect("a fill");
    assert_eq!(fill.from_tick, 0, "filled back to the game's start");
    h.state_mut().send(Command::Run(Run::Pause));
    step_until_within(&mut h, "the pause", BOUND, NAP, suspended);
    let values = lane(&h);
    let last = *values.keys().last().expect("values");
    // Every tick from 1 on has the value a headless run has there.
    let mut p = headless_at(&demo(), 0);
    for tick in 1..=last {
        p.step_frame(DT);
        let got = values
            .get(&tick)
            .unwrap_or_else(|| panic!("no value at tick {tick} (added at {added_at})"));
        let want = f64::from(player_pose(&p).y);
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "tick {tick}: lane {got}, headless {want}"
        );
    }
}

#[test]
fn attached_fork_here_runs_b_in_the_game_and_an_edit_of_b_parts_the_branches() {
    let (_game, mut h) = attached_past(30);
    h.state_mut().send(Command::Run(Run::Pause));
    step_until_within(&mut h, "the pause", BOUND, NAP, suspended);
    let at = live_tick(&h);
    // Fork here (the timeline's button; Ctrl+Shift+F).
    h.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::F,
    );
    step_until_within(&mut h, "the fork", BOUND, NAP, |h| {
        h.state().reading().fork() == Some(at)
    });
    // B jumps five ticks later: the Input tab's edit, applied to B.
    show(&mut h, Pane::Input);
    crate::support::editor::set_insert_tick(&mut h, at + 5);
    crate::support::editor::click_shown(&mut h, "Insert");
    crate::support::editor::click_shown(&mut h, "Apply to B");
    h.key_press(egui::Key::F5);
    let first = |h: &Harness<'_, Editor>| h.state().reading().run_b().and_then(|c| c.about.first);
    step_until_within(&mut h, "A and B to part", BOUND, NAP, |h| {
        first(h).is_some()
    });
    let first = first(&h).expect("parted");
    assert_eq!((first.tick, first.first_object), (at + 5, Some(20)));
    // The live session (A) received no jump: it is the unforked run.
    h.state_mut().send(Command::Run(Run::Pause));
    step_until_within(&mut h, "the pause", BOUND, NAP, suspended);
    let live = latest_live(&h).expect("a live view").clone();
    assert!(live.clock.simulation_tick >= at + 5);
    assert_eq!(
        live.state_hash,
        headless_at(&demo(), live.clock.simulation_tick).state_hash(),
        "A is the game's own run"
    );
    assert!(h.state().published().recording.events.is_empty());
}
