//! One source of truth: what the worker shows happened.

use super::*;
use stepframe_app::editor::WorldView;
use stepframe_app::editor::protocol::{
    BranchCommand, EditCommand, Notice, RecordingCommand, RewindCommand, Run, Target, TimeSetting,
};

/// Pumps until the live view reaches `tick` (or `frames` pumps ran) and
/// returns the newest live view.
fn pump_to(h: &mut Host, tick: u64, frames: usize) -> WorldView {
    for _ in 0..frames {
        h.pump(DT);
        if h.tick() >= tick {
            break;
        }
    }
    h.view().clone()
}

/// The past view of `tick`, asked for and answered in one pump (the
/// session is paused: the pump runs no frame).
fn past_at(h: &mut Host, tick: u64) -> WorldView {
    h.send(Command::Rewind(RewindCommand::ViewTick(tick)));
    h.pump(DT);
    let past = h.take_past().expect("a past view");
    assert_eq!(past.at_tick, Some(tick));
    past
}

/// The demo played to tick 120 and paused, the player (object 20) selected
/// and lifted to y = 3, and ball 203 disabled from the hierarchy at the same
/// moment: the host and the tick the edits were made at.
fn edited_at_120() -> (Host, u64) {
    let mut h = paused_with_the_player_selected(120, 200);
    h.pump(DT);
    let paused = h.view().clone();
    let edited_at = paused.clock.simulation_tick;
    let mut pose = paused.selected.as_ref().expect("the player").committed;
    pose.y = 3.0;
    h.send(Command::Edit {
        target: Target::Live,
        edit: EditCommand::Pose(ObjectId(20), pose),
    });
    h.send(Command::Edit {
        target: Target::Live,
        edit: EditCommand::Enabled(ObjectId(203), false),
    });
    (h, edited_at)
}

/// The demo played to tick `tick` (at most `frames` pumps), then told to
/// pause and select the player (object 20), not yet pumped.
fn paused_with_the_player_selected(tick: u64, frames: usize) -> Host {
    let mut h = playing(demo());
    pump_to(&mut h, tick, frames);
    for c in [
        Command::Run(Run::Pause),
        Command::Select(Some(ObjectId(20))),
    ] {
        h.send(c);
    }
    h
}

/// The session recording saved to `path` (one pump) and loaded back.
fn saved_recording(h: &mut Host, path: &std::path::Path) -> Recording {
    h.send(Command::Recording(RecordingCommand::Save {
        path: path.to_path_buf(),
        overwrite: false,
    }));
    h.pump(DT);
    Recording::load(path).expect("the file loads")
}

/// Every event's log line text.
fn log_lines(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Log(lines) => Some(lines.iter().map(|l| l.message.clone())),
            _ => None,
        })
        .flatten()
        .collect()
}

/// Every tick's hash, as a headless run's observer saw it.
#[derive(Clone, Default)]
struct Seen(std::sync::Arc<std::sync::Mutex<std::collections::BTreeMap<u64, u64>>>);

impl stepframe_core::TickObserver for Seen {
    fn on_tick(&mut self, r: &stepframe_core::TickRecord<'_>) {
        self.0
            .lock()
            .expect("lock")
            .insert(r.clock.simulation_tick, r.hash);
    }
}

impl Seen {
    fn hashes(&self) -> std::collections::BTreeMap<u64, u64> {
        self.0.lock().expect("lock").clone()
    }
}

/// The per-tick hashes of the demo run headless in frames of 1/60 s, its
/// fixed rate set to 50 Hz after the first `frames_at_60` frames.
fn headless_rate_change(frames_at_60: u64, ticks: u64) -> std::collections::BTreeMap<u64, u64> {
    let registry = stepframe_app::player::registry(&demo());
    let scene = stepframe_core::Scene::load(&demo(), &registry).expect("demo");
    let mut p = stepframe_core::Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry).expect("session");
    let seen = Seen::default();
    p.set_tick_observer(Some(Box::new(seen.clone())));
    let mut frames = 0;
    while p.stepper().completed_ticks() < ticks {
        if frames == frames_at_60 {
            let mut s = *p.settings();
            s.fixed_hz = 50;
            p.set_settings(s).expect("valid");
        }
        p.step_frame(DT);
        frames += 1;
    }
    seen.hashes()
}

#[test]
fn a_fixed_rate_change_keeps_the_tick_count_and_rewinds_work_on_both_sides() {
    let mut h = playing(demo());
    let at_600 = pump_to(&mut h, 600, 700);
    assert_eq!(at_600.clock.simulation_tick, 600);
    let frames_at_60 = at_600.clock.frame_index;
    h.send(Command::Run(Run::Set(TimeSetting::FixedRate(50))));
    let live = pump_to(&mut h, 900, 1000);
    assert_eq!(
        live.clock.simulation_tick, 900,
        "the tick counter goes on across the change"
    );
    // 600 ticks of 1/60 s and 300 of 1/50 s: 10 s + 6 s.
    assert_eq!(live.clock.simulation_time, 16.0);
    let events: Vec<Event> = h.events();
    assert!(
        log_lines(&events).contains(&"fixed rate 60 → 50 Hz at tick 600".to_string()),
        "{:?}",
        log_lines(&events)
    );

    // Both sides of the change, as a headless run with the same change at
    // the same frame has them.
    let headless = headless_rate_change(frames_at_60, 900);
    for tick in [300u64, 900, 700] {
        h.send(Command::Rewind(RewindCommand::RewindTo(tick)));
        h.pump(DT);
        let events: Vec<Event> = h.events();
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::Rewound(t) if *t == tick)),
            "rewound to {tick}: {events:?}"
        );
        let view = h.view();
        assert_eq!(view.clock.simulation_tick, tick);
        assert_eq!(view.state_hash, headless[&tick], "tick {tick}");
        let hz = if tick > 600 { 50.0 } else { 60.0 };
        assert_eq!(view.clock.fixed_delta_time, 1.0 / hz, "tick {tick}");
    }
}

#[test]
fn a_past_view_after_an_inspector_edit_shows_the_edit() {
    let (mut h, edited_at) = edited_at_120();
    let mut live_at = Vec::new();
    for _ in 0..5 {
        h.send(Command::Run(Run::StepTick));
        h.pump(DT);
        let v = h.view();
        live_at.push((
            v.clock.simulation_tick,
            v.selected.as_ref().expect("the player").committed,
            v.state_hash,
        ));
    }
    let (_, last_pose, _) = live_at[4];
    assert!(last_pose.y > 2.9, "the player was lifted: {last_pose:?}");
    for (tick, committed, hash) in live_at {
        assert!(tick > edited_at);
        let past = past_at(&mut h, tick);
        let shown = past.selected.as_ref().expect("the player").committed;
        assert_eq!(
            shown, committed,
            "the past view of tick {tick} shows the edit"
        );
        assert_eq!(past.state_hash, hash, "tick {tick}");
        let ball = past
            .objects
            .iter()
            .find(|o| o.id == ObjectId(203))
            .expect("ball 203");
        assert!(!ball.enabled, "tick {tick}: ball 203 is disabled");
    }
}

/// Per-tick hashes of the demo replaying `recording` headless in frames of
/// `dt` until tick `ticks`.
fn replayed_hashes(
    recording: &Recording,
    dt: f64,
    ticks: u64,
) -> std::collections::BTreeMap<u64, u64> {
    let registry = stepframe_app::player::registry(&demo());
    let scene = stepframe_core::Scene::load(&demo(), &registry).expect("demo");
    let mut p = stepframe_core::Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry).expect("session");
    let replay =
        stepframe_core::Replay::with_registry(recording.clone(), &registry).expect("edits fit");
    p.set_tick_input(Some(Box::new(replay)));
    let seen = Seen::default();
    p.set_tick_observer(Some(Box::new(seen.clone())));
    while p.stepper().completed_ticks() < ticks {
        p.step_frame(dt);
    }
    seen.hashes()
}

#[test]
fn a_saved_session_recording_replays_the_editors_ticks_bit_for_bit_at_30_60_and_144_hz() {
    // Paused at tick 121: the edits apply before tick 122, which a 30 Hz
    // replay runs second in its frame (mid-frame).
    let mut h = paused_with_the_player_selected(121, 200);
    // Paused at tick 121: the player lifted to y = 3 and given a stronger
    // jump, ball 203 disabled.
    h.pump(DT);
    let view = h.view().clone();
    let mut pose = view.selected.as_ref().expect("the player").committed;
    pose.y = 3.0;
    h.send(Command::Edit {
        target: Target::Live,
        edit: EditCommand::Pose(ObjectId(20), pose),
    });
    h.send(Command::Edit {
        target: Target::Live,
        edit: EditCommand::Params {
            object: ObjectId(20),
            index: 0,
            params: "(move_force: 25.0, max_speed: 7.0, jump_impulse: 9.0, \
                 charge_impulse_per_second: 6.0)"
                .into(),
        },
    });
    h.send(Command::Edit {
        target: Target::Live,
        edit: EditCommand::Enabled(ObjectId(203), false),
    });
    h.send(Command::Run(Run::Play));
    pump_to(&mut h, 200, 200);
    // A jump, to feel the new impulse; then the fixed rate goes to 50 Hz.
    h.send(Command::Run(Run::Input(InputEvent::press(
        InputSource::Key("Space".into()),
    ))));
    h.pump(DT);
    h.send(Command::Run(Run::Input(InputEvent::release(
        InputSource::Key("Space".into()),
    ))));
    // The rate change takes effect before tick 302: mid-frame at 30 Hz too.
    pump_to(&mut h, 301, 200);
    h.send(Command::Run(Run::Set(TimeSetting::FixedRate(50))));
    let last = pump_to(&mut h, 420, 300).clock.simulation_tick;
    h.send(Command::Run(Run::Pause));
    h.pump(DT);

    let dir = std::env::temp_dir().join(format!("stepframe-session-rec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let path = dir.join("bug.ron");
    h.send(Command::Recording(RecordingCommand::Save {
        path: path.clone(),
        overwrite: false,
    }));
    h.pump(DT);
    let events: Vec<Event> = h.events();
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::Notice(Notice::RecordingSaved { path: p, .. }) if *p == path
        )),
        "{events:?}"
    );
    assert!(
        notices(&events)
            .iter()
            .any(|t| t.contains("session recording")),
        "{events:?}"
    );
    let recording = Recording::load(&path).expect("the file loads");
    let kinds: Vec<String> = recording
        .edits
        .iter()
        .map(|e| {
            format!("{} {:?}", e.tick, e.edit)
                .chars()
                .take(40)
                .collect()
        })
        .collect();
    assert_eq!(recording.edits.len(), 4, "{kinds:?}");
    assert!(
        recording.edits[..3].iter().all(|e| e.tick == 122),
        "{kinds:?}"
    );
    assert!(
        matches!(recording.edits[3].edit, stepframe_core::Edit::Settings(s) if s.fixed_hz == 50),
        "{kinds:?}"
    );
    assert_eq!(recording.edits[3].tick, 302, "{kinds:?}");
    assert_eq!(recording.ticks, last);

    // The editor's own past views of these ticks...
    let ticks = [121u64, 122, 123, 150, 210, 260, 301, 302, 303, 350, last];
    let mut editor = Vec::new();
    for tick in ticks {
        editor.push(past_at(&mut h, tick).state_hash);
    }
    // ... are what the recording gives headless, at every display rate.
    for dt in [1.0 / 30.0, 1.0 / 60.0, 1.0 / 144.0] {
        let headless = replayed_hashes(&recording, dt, last);
        let got: Vec<u64> = ticks.iter().map(|t| headless[t]).collect();
        assert_eq!(got, editor, "frames of {dt} s");
    }
    // And without the edits the session is another one.
    let mut input_only = recording.clone();
    input_only.edits.clear();
    let plain = replayed_hashes(&input_only, DT, last);
    assert_ne!(plain[&150], editor[3]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn right_after_fork_here_b_has_the_fork_tick_and_after_adopt_the_history_starts_there() {
    let mut h = paused_with_the_player_selected(310, 400);
    h.send(Command::BranchB(BranchCommand::ForkHere(303)));
    h.pump(DT);
    let events: Vec<Event> = h.events();
    assert_no_errors(&events);
    // B at the live tick comes with the live view: right after the fork,
    // its record of the fork tick.
    let a = h.view().clone();
    let first = a.b.as_ref().expect("B's record of the fork tick");
    assert_eq!(first.tick, 303);
    // It is A's state at 303: the inspector's B column equals A's.
    assert_eq!(a.clock.simulation_tick, 303);
    let player = a.selected.as_ref().expect("the player").committed;
    let fields = first.object(20).expect("the player in B");
    assert_eq!((fields[0], fields[1]), (player.x, player.y));

    h.send(Command::BranchB(BranchCommand::Adopt));
    h.pump(DT);
    let events: Vec<Event> = h.events();
    let (forked_at, reach) = events
        .iter()
        .find_map(|e| match e {
            Event::Notice(Notice::BAdopted { forked_at, reach }) => Some((*forked_at, *reach)),
            _ => None,
        })
        .expect("the adopt notice");
    assert_eq!(forked_at, 303);
    assert_eq!(reach.held_text(), "history holds 0 s (from tick 303)");
    let notice = notices(&events)
        .into_iter()
        .find(|t| t.contains("branch B"))
        .expect("the adopt notice in words");
    assert!(
        notice.contains("history holds 0 s (from tick 303)"),
        "{notice}"
    );
    assert_eq!(
        h.live().rewind.held_text(),
        "history holds 0 s (from tick 303)",
        "the Clock tab says what the notice says"
    );
}

/// A copy of `scripts.ron` and its scripts in a directory of its own, so a
/// test can change a script file: (scene, patrol.rhai, the dir to remove).
fn scripts_scene_copy(tag: &str) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("stepframe-{tag}-{}", std::process::id()));
    let assets = scripts_scene()
        .parent()
        .and_then(|d| d.parent())
        .expect("assets/")
        .to_path_buf();
    for sub in ["scenes", "scripts"] {
        std::fs::create_dir_all(dir.join(sub)).expect("a temp dir");
    }
    std::fs::copy(scripts_scene(), dir.join("scenes/scripts.ron")).expect("scene copied");
    for script in ["patrol.rhai", "pickup.rhai"] {
        std::fs::copy(
            assets.join("scripts").join(script),
            dir.join("scripts").join(script),
        )
        .expect("script copied");
    }
    (
        dir.join("scenes/scripts.ron"),
        dir.join("scripts/patrol.rhai"),
        dir,
    )
}

#[test]
fn a_script_reload_is_an_edit_past_views_and_a_saved_recording_replay_at_its_tick() {
    let (scene, patrol, dir) = scripts_scene_copy("script-reload");
    let original = std::fs::read_to_string(&patrol).expect("patrol.rhai");
    let mut h = playing(scene.clone());
    // Live hashes and guard positions of every tick, as the views show them.
    let mut live = std::collections::BTreeMap::new();
    let run_to = |h: &mut Host, live: &mut std::collections::BTreeMap<u64, (u64, f32)>, tick| {
        for _ in 0..400 {
            h.pump(DT);
            let v = h.view();
            let x = v
                .objects
                .iter()
                .find(|o| o.id == ObjectId(3))
                .expect("the guard")
                .committed
                .x;
            live.insert(v.clock.simulation_tick, (v.state_hash, x));
            if v.clock.simulation_tick >= tick {
                return;
            }
        }
        panic!("tick {tick} never came");
    };
    run_to(&mut h, &mut live, 60);
    let reloaded_after = *live.keys().last().expect("a tick");
    // The code pane's Save: the file written, then its text sent as the
    // script's new version.
    let key = h
        .scripts
        .loaded
        .iter()
        .find(|s| s.key.ends_with("patrol.rhai"))
        .map(|s| s.key.clone())
        .expect("the scene runs patrol.rhai");
    std::fs::write(&patrol, fast_patrol(&original)).expect("patrol.rhai written");
    let text = std::fs::read_to_string(&patrol).expect("patrol.rhai read back");
    h.send(Command::Edit {
        target: Target::Live,
        edit: EditCommand::Script { key, text },
    });
    run_to(&mut h, &mut live, 100);
    h.send(Command::Run(Run::Pause));
    h.pump(DT);
    let events: Vec<Event> = h.events();
    assert_no_errors(&events);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Notice(Notice::ScriptReloaded(_)))),
        "{events:?}"
    );
    // Live, the guard walks 0.025 m a tick before the reload and 0.05 after.
    let step = |t: u64| live[&t].1 - live[&(t - 1)].1;
    assert!((step(reloaded_after) - 0.025).abs() < 1e-4, "{live:?}");
    assert!((step(reloaded_after + 5) - 0.05).abs() < 1e-4, "{live:?}");

    // Past views run each tick with the version it ran live: before the
    // reload the old text, after it the new one.
    let ticks = [
        10,
        reloaded_after - 1,
        reloaded_after,
        reloaded_after + 1,
        reloaded_after + 2,
        90,
        100,
    ];
    for tick in ticks {
        let past = past_at(&mut h, tick);
        assert_eq!(
            past.state_hash, live[&tick].0,
            "the past view of tick {tick}"
        );
    }

    // The saved session recording carries the reload; replayed headless
    // (from the file's authored text, which is the session's start
    // version) it gives the same ticks at every display rate.
    let path = dir.join("bug.ron");
    let recording = saved_recording(&mut h, &path);
    assert_eq!(recording.edits.len(), 1, "{:?}", recording.edits);
    assert_eq!(recording.edits[0].tick, reloaded_after + 1);
    std::fs::write(&patrol, &original).expect("patrol.rhai as authored");
    for dt in [1.0 / 30.0, 1.0 / 60.0, 1.0 / 144.0] {
        let host = stepframe_plugins::ScriptHost::new();
        let registry = stepframe_plugins::registry_for(&host, scene.parent().expect("scenes/"));
        let s = stepframe_core::Scene::load(&scene, &registry).expect("scripts.ron");
        let mut p = stepframe_core::Pipeline::new(s.settings.time);
        p.load_scene(&s, &registry).expect("session");
        let replay =
            stepframe_core::Replay::with_registry(recording.clone(), &registry).expect("edits fit");
        p.set_tick_input(Some(Box::new(replay)));
        let seen = Seen::default();
        p.set_tick_observer(Some(Box::new(seen.clone())));
        while p.stepper().completed_ticks() < 100 {
            p.step_frame(dt);
        }
        let hashes = seen.hashes();
        for tick in ticks {
            assert_eq!(
                hashes[&tick], live[&tick].0,
                "tick {tick} in frames of {dt} s"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn resume_from_a_tick_before_an_edit_drops_it_and_says_how_many() {
    let (mut h, edited_at) = edited_at_120();
    h.send(Command::Run(Run::Play));
    pump_to(&mut h, 200, 200);
    h.send(Command::Run(Run::Pause));
    h.pump(DT);
    h.events();

    // Resume from a tick before the two edits: a new future without them.
    let from = edited_at - 20;
    h.send(Command::Rewind(RewindCommand::ResumeFrom(from)));
    h.pump(DT);
    let events: Vec<Event> = h.events();
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::Notice(Notice::EditsDropped { tick, edits }) if *tick == from && edits.len() == 2
        )),
        "{events:?}"
    );
    let said = notices(&events);
    assert!(
        said.iter()
            .any(|t| t.contains(&format!("resumed from tick {from}")) && t.contains("2 edits")),
        "{said:?}"
    );
    h.send(Command::Run(Run::Play));
    let ticks = edited_at + 30;
    pump_to(&mut h, ticks, 300);
    h.send(Command::Run(Run::Pause));
    h.pump(DT);
    // The new future is the demo as authored: no lift, ball 203 enabled.
    let plain = headless_rate_change(u64::MAX, ticks);
    for tick in [from + 1, edited_at + 1, edited_at + 10, ticks] {
        let past = past_at(&mut h, tick);
        assert_eq!(past.state_hash, plain[&tick], "tick {tick} has no edit");
        let ball = past
            .objects
            .iter()
            .find(|o| o.id == ObjectId(203))
            .expect("ball 203");
        assert!(ball.enabled, "tick {tick}: ball 203 is enabled again");
    }
    // And the saved session recording holds no edit.
    let dir = std::env::temp_dir().join(format!("stepframe-resume-drop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let path = dir.join("after.ron");
    let recording = saved_recording(&mut h, &path);
    assert!(recording.edits.is_empty(), "{:?}", recording.edits);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_rate_change_while_suspended_applies_to_the_next_stepped_tick_and_is_marked() {
    let mut h = playing(demo());
    pump_to(&mut h, 120, 200);
    h.send(Command::Run(Run::Pause));
    h.pump(DT);
    let at = h.tick();
    h.events();
    h.send(Command::Run(Run::Set(TimeSetting::FixedRate(50))));
    h.pump(DT);
    for _ in 0..3 {
        h.send(Command::Run(Run::StepTick));
        h.pump(DT);
    }
    let view = h.view().clone();
    assert_eq!(view.clock.simulation_tick, at + 3);
    // The three stepped ticks ran at 20 ms: the toolbar's rate is the one
    // the clock shows.
    assert_eq!(view.clock.fixed_delta_time, 0.02);
    let exact = at as f64 / 60.0 + 3.0 * 0.02;
    assert!(
        (view.clock.simulation_time - exact).abs() < 1e-12,
        "{} against {exact}",
        view.clock.simulation_time
    );
    let events: Vec<Event> = h.events();
    let changes: Vec<String> = frames_of(&events)
        .iter()
        .filter_map(|f| f.report.clock_change.map(|c| c.to_string()))
        .collect();
    assert_eq!(
        changes,
        vec![format!("fixed rate 60 → 50 Hz at tick {at}")],
        "one marker, on the first stepped tick's report"
    );
    assert!(
        log_lines(&events)
            .iter()
            .any(|l| l.contains(&format!("fixed rate 60 → 50 Hz at tick {at}"))),
        "{:?}",
        log_lines(&events)
    );
    // A past view of a stepped tick is the headless run given the change
    // before that tick.
    let dir = std::env::temp_dir().join(format!("stepframe-rate-susp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let path = dir.join("rate.ron");
    let recording = saved_recording(&mut h, &path);
    assert_eq!(recording.edits.len(), 1, "{:?}", recording.edits);
    assert_eq!(recording.edits[0].tick, at + 1);
    let headless = replayed_hashes(&recording, 1.0 / 30.0, at + 3);
    for tick in [at, at + 1, at + 3] {
        let past = past_at(&mut h, tick);
        assert_eq!(past.state_hash, headless[&tick], "tick {tick}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A script changed on disk while the session was paused ran its next F10
/// tick with the old text: the file was looked at only when frames ran.
/// A step (a tick, a frame) or Play reloads it first, as a frame does.
#[test]
fn a_script_changed_on_disk_while_paused_is_reloaded_before_the_next_step() {
    let (scene, patrol, dir) = scripts_scene_copy("script-step");
    let original = std::fs::read_to_string(&patrol).expect("patrol.rhai");
    let mut h = playing(scene);
    for _ in 0..30 {
        h.pump(DT);
    }
    h.send(Command::Run(Run::Pause));
    h.pump(DT);
    let guard_x = |h: &Host| {
        h.view()
            .objects
            .iter()
            .find(|o| o.id == ObjectId(3))
            .expect("the guard")
            .committed
            .x
    };
    let before = guard_x(&h);
    // Written with a later modification time than the file had.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&patrol, fast_patrol(&original)).expect("patrol.rhai written");
    h.send(Command::Run(Run::StepTick));
    h.pump(DT);
    let events = h.events();
    assert_no_errors(&events);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Notice(Notice::ScriptReloaded(_)))),
        "the step reloaded the script ({} events)",
        events.len()
    );
    // 1.5 m/s × 2 (the new text) × 1/60 s.
    let step = guard_x(&h) - before;
    assert!(
        (step - 0.05).abs() < 1e-4,
        "the stepped tick walked {step} m"
    );
    let _ = std::fs::remove_dir_all(dir);
}
