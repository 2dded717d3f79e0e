//! The example game (app/examples/platformer) through its own entry point:
//! `play` and `check` of its scene through `Game::run_from`, its timing
//! concerns (coyote time and the jump buffer in simulation milliseconds),
//! an unknown behaviour's error listing the game's names, a FixedUpdate
//! breakpoint in its own behaviour through the editor's worker, with the
//! committed pose and the behaviour's rows in the view, and the level's
//! mid-step built-ins (a one-way platform, a conveyor) as the recording
//! uses them, read from the trace.
//!
//! The guide's game (app/examples/guide.rs, a dasher): docs/embedding.md
//! is that file word for word, and a behaviour written as the page shows
//! takes a parameter edit at the next tick, while a refused edit is
//! reported as refused and nothing else.

#[path = "../examples/platformer/game.rs"]
#[allow(dead_code)]
mod game;

#[path = "../examples/guide.rs"]
#[allow(dead_code)]
mod guide;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use stepframe_app::editor::protocol::{BreakpointCommand, SceneCommand};

use egui_kittest::kittest::Queryable;
use stepframe_app::editor::protocol::{
    Command, DisplayRate, EditCommand, Event, Notice, Run, Target,
};
use stepframe_app::editor::words;
use stepframe_app::editor::worker::{self, Worker};
use stepframe_app::editor::{Editor, EditorConfig};
use stepframe_core::{
    Edit, FieldValue, History, HookKind, Hooks, InputEvent, InputSource, ObjectId, Pipeline,
    RecordedEvent, Recording, Registry, Replay, Scene, Session, SuspendReason,
};

const DT: f64 = 1.0 / 60.0;

/// The player is object 2 of platformer.ron; the hazard 4; coins 5, 6, 7.
const PLAYER: ObjectId = ObjectId(2);
const COINS: [u64; 3] = [5, 6, 7];
/// The player's radius, m.
const RADIUS: f64 = 0.4;
/// The one-way platform ("Cloud", object 8): x span, bottom and top faces.
const CLOUD: (f64, f64, f64, f64) = (-10.5, -6.5, 1.5, 1.7);
/// The one-way platform's id.
const CLOUD_ID: ObjectId = ObjectId(8);
/// The conveyor ("Belt", object 9): x span and top face; 2 m/s (default).
const BELT: (f64, f64, f64) = (-11.5, -9.0, 0.05);

fn scene() -> PathBuf {
    PathBuf::from(game::SCENE)
}

fn recording_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/recordings/platformer.ron")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stepframe-platformer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    dir.join(name)
}

fn run(args: &[&str]) -> ExitCode {
    let mut line = vec!["platformer"];
    line.extend_from_slice(args);
    game::build().run_from(line)
}

#[test]
fn play_runs_the_game_headless_and_its_recording_picks_up_every_coin() {
    let trace = temp("play.jsonl");
    let code = run(&[
        "play",
        game::SCENE,
        "--input",
        recording_path().to_str().expect("utf-8"),
        "--trace",
        trace.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, ExitCode::SUCCESS);
    let text = std::fs::read_to_string(&trace).expect("the trace was written");
    let last: serde_json::Value =
        serde_json::from_str(text.lines().last().expect("a tick")).expect("a JSON line");
    // 600 ticks (the recording's length); the Collector removed every coin,
    // and the hazard's respawn put the player back near x = -8 (the
    // recording walks it left into the hazard's swing from tick 360; from
    // there it rides the belt and jumps onto the one-way platform above the
    // start, at x = -7.4).
    assert_eq!(last["tick"], 600);
    let poses = last["poses"].as_array().expect("poses");
    let ids: Vec<u64> = poses.iter().filter_map(|p| p["id"].as_u64()).collect();
    for coin in COINS {
        assert!(!ids.contains(&coin), "coin {coin} still there: {ids:?}");
    }
    let player = poses
        .iter()
        .find(|p| p["id"] == PLAYER.0)
        .expect("the player");
    let x = player["x"].as_f64().expect("x");
    assert!(x < -7.0, "sent back to the start, x = {x}");
}

/// The player's `(tick, x, y, vx)` of every tick of a traced `play` of the
/// scene with its recording.
fn player_track() -> Vec<(u64, f64, f64, f64)> {
    let trace = temp("track.jsonl");
    let code = run(&[
        "play",
        game::SCENE,
        "--input",
        recording_path().to_str().expect("utf-8"),
        "--trace",
        trace.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, ExitCode::SUCCESS);
    let text = std::fs::read_to_string(&trace).expect("the trace was written");
    text.lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let p = v["poses"]
                .as_array()
                .expect("poses")
                .iter()
                .find(|p| p["id"] == PLAYER.0)
                .expect("the player");
            let f = |k: &str| p[k].as_f64().expect("a number");
            (v["tick"].as_u64().expect("a tick"), f("x"), f("y"), f("vx"))
        })
        .collect()
}

#[test]
fn the_recording_rides_the_belt_jumps_up_through_the_one_way_platform_and_lands_on_it() {
    let track = player_track();
    let over = |x: f64, (from, to): (f64, f64)| x > from && x < to;
    let on_belt = |&(_, x, y, _): &(u64, f64, f64, f64)| {
        over(x, (BELT.0, BELT.1)) && (y - (BELT.2 + RADIUS)).abs() < 0.01
    };
    // Riding: ticks the player stands on the belt with no key held (the
    // recording lets go of left at 480) and is carried right, up to the
    // belt's 2 m/s.
    let ride: Vec<_> = track
        .iter()
        .filter(|t| t.0 > 481 && on_belt(t))
        .copied()
        .collect();
    assert!(ride.len() >= 10, "rode the belt: {ride:?}");
    let (first, last) = (ride[0], ride[ride.len() - 1]);
    assert!(
        last.1 - first.1 > 0.3,
        "carried right: {first:?} -> {last:?}"
    );
    assert!(last.3 > 1.5, "near the belt's 2 m/s: {last:?}");

    // Up through the platform from below: under its bottom face, then with
    // its feet above its top face, over the platform all along.
    let under = track
        .iter()
        .position(|&(t, x, y, _)| t > last.0 && over(x, (CLOUD.0, CLOUD.1)) && y + RADIUS < CLOUD.2)
        .expect("under the platform after the ride");
    let above = track[under..]
        .iter()
        .position(|&(_, x, y, _)| over(x, (CLOUD.0, CLOUD.1)) && y - RADIUS > CLOUD.3)
        .map(|k| under + k)
        .expect("then above it");
    let climb = &track[under..=above];
    assert!(
        climb
            .iter()
            .all(|&(_, x, _, _)| over(x, (CLOUD.0, CLOUD.1))),
        "it went through the platform, not round it: {climb:?}"
    );
    // Then it stands on it: the last 30 ticks at one radius above the top
    // face (friction stops the belt's speed it kept in the air: at rest for
    // the last 10).
    let rest = &track[track.len() - 30..];
    for &(t, x, y, _) in rest {
        assert!(
            over(x, (CLOUD.0, CLOUD.1)),
            "tick {t}: on the platform, x = {x}"
        );
        assert!(
            (y - (CLOUD.3 + RADIUS)).abs() < 0.01,
            "tick {t}: standing on its top, y = {y}"
        );
    }
    for &(t, _, _, vx) in &rest[20..] {
        assert!(vx.abs() < 0.01, "tick {t}: at rest, vx = {vx}");
    }
}

#[test]
fn check_finds_the_games_fixed_logic_frame_rate_independent() {
    let code = run(&[
        "check",
        game::SCENE,
        "--input",
        recording_path().to_str().expect("utf-8"),
    ]);
    assert_eq!(code, ExitCode::SUCCESS);
}

#[test]
fn a_scene_naming_an_unknown_behaviour_lists_the_games_behaviours_too() {
    let text = "(objects: [(id: 1, name: \"A\", behaviours: [(name: \"Jumpr\")])])";
    let registry = game::behaviours().registry_for_scene(Path::new("x.ron"));
    let err = Scene::parse(text, Path::new("x.ron"), &registry).expect_err("unknown");
    for name in [
        "Collector",
        "Jumper",
        "Shuttle",
        "PlayerController",
        "Script",
    ] {
        assert!(err.message.contains(name), "{name} in {}", err.message);
    }
    // The plain stepframe binary has none of them.
    let built_in = stepframe_app::player::registry(Path::new("x.ron"));
    let err = Scene::parse(text, Path::new("x.ron"), &built_in).expect_err("unknown");
    assert!(!err.message.contains("Jumper"), "{}", err.message);
}

#[test]
fn the_games_scene_round_trips_through_save_with_the_games_registry() {
    let registry = game::behaviours().registry_for_scene(&scene());
    let loaded = Scene::load(&scene(), &registry).expect("the scene loads");
    let text = loaded.to_ron().expect("it saves");
    let again = Scene::parse(&text, &scene(), &registry).expect("the saved text loads");
    assert_eq!(again, loaded);
}

// ----- coyote time and the jump buffer ---------------------------------------

/// The repository's recording with its coyote press (ticks 148/150) and
/// buffered press (237/238) replaced by `presses` (one-tick taps).
fn recording_with(presses: &[u64]) -> Recording {
    let text = std::fs::read_to_string(recording_path()).expect("the recording");
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| {
            !["(tick: 148,", "(tick: 150,", "(tick: 237,", "(tick: 238,"]
                .iter()
                .any(|t| l.contains(t))
        })
        .collect();
    let mut recording =
        Recording::parse(&kept.join("\n"), Path::new("edited.ron")).expect("a valid recording");
    for &tick in presses {
        for (at, value) in [(tick, 1.0), (tick + 1, 0.0)] {
            recording.insert(RecordedEvent {
                tick: at,
                source: InputSource::Key("Space".into()),
                value,
            });
        }
    }
    recording
}

/// The session of the scene replaying `recording`, at 60 Hz (one tick per
/// frame).
fn session(recording: Recording) -> Pipeline {
    let registry = game::behaviours().registry_for_scene(&scene());
    let scene = Scene::load(&scene(), &registry).expect("the scene loads");
    let mut p = Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry).expect("it instantiates");
    p.set_tick_input(Some(Box::new(Replay::new(recording))));
    p
}

fn field(p: &Pipeline, path: &str) -> FieldValue {
    p.behaviour_field(PLAYER, path)
        .unwrap_or_else(|| panic!("no {path}"))
}

/// Runs to tick `until`; the `Jumper.grounded` of every tick, from tick 1.
fn grounded_by_tick(p: &mut Pipeline, until: u64) -> Vec<bool> {
    (0..until)
        .map(|_| {
            p.step_frame(DT);
            field(p, "Jumper.grounded") == FieldValue::Bool(true)
        })
        .collect()
}

/// The first tick after `from` whose FixedUpdate saw the player `grounded`.
fn first(grounded: &[bool], from: u64, want: bool) -> u64 {
    (from..grounded.len() as u64)
        .find(|&t| grounded[t as usize - 1] == want)
        .expect("it happens")
}

fn jumps_after(presses: &[u64], ticks: u64) -> FieldValue {
    let mut p = session(recording_with(presses));
    for _ in 0..ticks {
        p.step_frame(DT);
    }
    field(&p, "Jumper.jumps")
}

#[test]
fn a_jump_pressed_within_100_ms_of_leaving_the_ledge_still_jumps_and_later_does_not() {
    // Without the late press: the player lands on the ledge (first jump,
    // tick 66) and walks off its far end. `left` is the first tick whose
    // FixedUpdate no longer sees ground; the last grounded tick is before it.
    let mut p = session(recording_with(&[]));
    let grounded = grounded_by_tick(&mut p, 200);
    let landed = first(&grounded, 90, true);
    let left = first(&grounded, landed, false);
    assert_eq!(field(&p, "Jumper.jumps"), FieldValue::UInt(1));
    // A press at `left + 3` is 4 ticks = 66.7 ms after the last grounded
    // tick: inside 100 ms. At `left + 6`, 7 ticks = 116.7 ms: outside.
    assert_eq!(jumps_after(&[left + 3], 200), FieldValue::UInt(2));
    assert_eq!(jumps_after(&[left + 6], 200), FieldValue::UInt(1));
}

#[test]
fn a_jump_pressed_within_120_ms_before_landing_jumps_on_landing_and_earlier_does_not() {
    // The coyote jump of the repository's recording, no buffered press:
    // `landing` is the first tick that sees ground again.
    let coyote = 148;
    let mut p = session(recording_with(&[coyote]));
    let grounded = grounded_by_tick(&mut p, 300);
    let landing = first(&grounded, coyote + 5, true);
    assert_eq!(field(&p, "Jumper.jumps"), FieldValue::UInt(2));
    // Pressed 5 ticks (83.3 ms) before the landing tick: 120 - 83.3 ms of
    // buffer are left when it lands, so it jumps. 8 ticks (133.3 ms): the
    // buffer ran out in the air.
    assert_eq!(
        jumps_after(&[coyote, landing - 5], 300),
        FieldValue::UInt(3)
    );
    assert_eq!(
        jumps_after(&[coyote, landing - 8], 300),
        FieldValue::UInt(2)
    );
}

// ----- the editor's worker ---------------------------------------------------

#[test]
fn f9_on_the_player_stops_at_the_end_of_its_fixed_update_tick_with_the_committed_pose_in_the_view()
{
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, DisplayRate::Hz(60), game::behaviours().registries());
    let send = |c| ui.send(c);
    send(Command::Scene(SceneCommand::Load {
        path: scene(),
        play: true,
    }));
    send(Command::Select(Some(PLAYER)));
    for _ in 0..30 {
        assert!(w.pump(DT));
        ui.take();
    }
    send(Command::Breakpoints(BreakpointCommand::ToggleFixed(PLAYER)));
    let mut stopped = None;
    for _ in 0..3 {
        assert!(w.pump(DT));
        // Taking the view lets the host send the next: each pump's is new.
        if let Some(v) = ui.take().live
            && v.world.suspension.is_some()
        {
            stopped = Some(v.world);
            break;
        }
    }
    let view = stopped.expect("the breakpoint stopped the session");
    let s = view.suspension.as_ref().expect("suspended");
    let SuspendReason::Breakpoint(hit) = &s.reason else {
        panic!("not a breakpoint: {:?}", s.reason);
    };
    assert_eq!((hit.object, hit.hook), (PLAYER, HookKind::FixedUpdate));
    assert_eq!(hit.behaviour, "Jumper", "the game's own FixedUpdate");
    assert!(
        s.end_of_tick,
        "a fixed breakpoint stops at the end of its tick"
    );
    assert_eq!(view.clock.simulation_tick, s.tick);

    // The view shows the tick's committed pose, exactly the pipeline's.
    let selected = view.selected.as_ref().expect("the player is selected");
    let object = view
        .objects
        .iter()
        .find(|o| o.id == PLAYER)
        .expect("the player is in the view");
    assert_eq!(object.committed, selected.committed);
    let mut reference = session(Recording::new(60));
    for _ in 0..s.tick {
        reference.step_frame(DT);
    }
    let want = reference
        .world()
        .physics_simulation_pose(PLAYER)
        .expect("the player has a pose");
    assert_eq!(selected.committed, want);
    // And the game's behaviour reads as rows.
    let jumper = selected
        .states
        .iter()
        .find(|b| b.name == "Jumper")
        .expect("the Jumper's state");
    let coyote = jumper
        .fields
        .iter()
        .find(|f| f.path == "Jumper.coyote_ms")
        .expect("its coyote_ms row");
    assert_eq!(
        (&coyote.value, coyote.unit.as_deref(), coyote.param),
        (&FieldValue::F64(100.0), Some("ms"), true)
    );
}

#[test]
fn f9_on_the_one_way_platform_arms_its_mid_step_hook_and_a_jump_through_it_stops_at_the_end_of_the_tick()
 {
    // The Cloud has only a mid-step hook, so F9 arms that one. The player
    // stands under it; a jump takes it up through the platform, and the
    // first mid-step call stops the session at the end of that tick.
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, DisplayRate::Hz(60), game::behaviours().registries());
    let send = |c| ui.send(c);
    send(Command::Scene(SceneCommand::Load {
        path: scene(),
        play: true,
    }));
    for _ in 0..30 {
        assert!(w.pump(DT));
        ui.take();
    }
    send(Command::Breakpoints(BreakpointCommand::ToggleFixed(
        CLOUD_ID,
    )));
    send(Command::Run(Run::Input(InputEvent::press(
        InputSource::Key("Space".into()),
    ))));
    let mut stopped = None;
    for _ in 0..60 {
        assert!(w.pump(DT));
        if let Some(v) = ui.take().live
            && v.world.suspension.is_some()
        {
            stopped = Some(v.world);
            break;
        }
    }
    let view = stopped.expect("the mid-step breakpoint stopped the session");
    let s = view.suspension.as_ref().expect("suspended");
    let SuspendReason::Breakpoint(hit) = &s.reason else {
        panic!("not a breakpoint: {:?}", s.reason);
    };
    assert_eq!(
        (hit.object, hit.hook, hit.behaviour.as_str()),
        (CLOUD_ID, HookKind::MidStep, "OneWayPlatform")
    );
    assert!(
        s.end_of_tick,
        "a mid-step breakpoint stops at the end of its tick"
    );
    assert_eq!((hit.tick, view.clock.simulation_tick), (s.tick, s.tick));
    // Its behaviour lists the hook, as the inspector shows it.
    let cloud = view
        .objects
        .iter()
        .find(|o| o.id == CLOUD_ID)
        .expect("the platform is in the view");
    assert_eq!(cloud.name, "Cloud");
    let mut p = session(Recording::new(60));
    p.step_frame(DT);
    assert_eq!(p.hooks_of(CLOUD_ID), Hooks::MID_STEP);
}

#[test]
fn the_inspector_lists_the_platforms_mid_step_hook() {
    let mut h = egui_kittest::Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_step_dt(DT as f32)
        .with_accessibility_check(false)
        .build_eframe(|cc| {
            let config = EditorConfig {
                behaviours: game::behaviours(),
                ..EditorConfig::driven(scene(), DT)
            };
            Editor::new(cc, config).expect("the editor starts")
        });
    h.run_steps(3);
    h.get_by_label("Cloud").click();
    h.run_steps(3);
    h.get_by_label("hooks: MidStep");
}

#[test]
fn the_editor_opens_the_games_scene_with_the_games_behaviours() {
    // The editor app itself (its synchronous test driver: one worker frame
    // of 1/60 s per UI frame), given the game's set as `Game::run` gives it.
    let mut h = egui_kittest::Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_step_dt(DT as f32)
        .with_accessibility_check(false)
        .build_eframe(|cc| {
            let config = EditorConfig {
                behaviours: game::behaviours(),
                ..EditorConfig::driven(scene(), DT)
            };
            Editor::new(cc, config).expect("the editor starts")
        });
    h.run_steps(10);
    assert_eq!(h.state().feedback().error, None);
    let live = &h
        .state()
        .published()
        .live
        .as_ref()
        .expect("a live view")
        .world;
    assert!(live.clock.simulation_tick >= 5, "playing: {:?}", live.clock);
    let player = live
        .objects
        .iter()
        .find(|o| o.id == PLAYER)
        .expect("the game's player is in the view");
    assert_eq!(player.name, "Player");
}

// ----- the guide --------------------------------------------------------------

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The text of every fenced block of `language` in the guide, in order.
fn guide_blocks(language: &str) -> Vec<String> {
    let guide = std::fs::read_to_string(repository().join("docs/embedding.md")).expect("the guide");
    guide
        .split(&format!("```{language}\n"))
        .skip(1)
        .map(|rest| {
            rest.split("```")
                .next()
                .expect("a closed block")
                .to_string()
        })
        .collect()
}

#[test]
fn the_embedding_guide_is_the_guide_example_word_for_word() {
    // The page's Rust blocks, one after the other, are the whole file a
    // reader ends up with; `cargo test` builds that file as the example
    // `guide`, so the page is what compiles.
    let example =
        std::fs::read_to_string(repository().join("app/examples/guide.rs")).expect("the example");
    let blocks = guide_blocks("rust");
    assert!(blocks.len() >= 5, "the guide shows the code in parts");
    assert_eq!(
        blocks.join("\n"),
        example,
        "docs/embedding.md's rust blocks, joined, are not app/examples/guide.rs"
    );
    let scene = std::fs::read_to_string(guide_scene()).expect("the scene");
    assert_eq!(
        guide_blocks("ron").concat(),
        scene,
        "docs/embedding.md's scene is not assets/scenes/dasher.ron"
    );
}

// ----- the guide's game ----------------------------------------------------------

/// The player of dasher.ron.
const DASHER: ObjectId = ObjectId(3);

fn guide_scene() -> PathBuf {
    repository().join("assets/scenes/dasher.ron")
}

/// The guide's scene loaded with the guide's behaviours, and that registry.
fn dasher_session() -> (Pipeline, Registry) {
    let registry = guide::behaviours().registry_for_scene(&guide_scene());
    let scene = Scene::load(&guide_scene(), &registry).expect("the guide's scene loads");
    let mut p = Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry).expect("it instantiates");
    (p, registry)
}

fn dasher_field(p: &Pipeline, name: &str) -> FieldValue {
    let path = format!("Dasher.{name}");
    p.behaviour_field(DASHER, &path)
        .unwrap_or_else(|| panic!("no {path}"))
}

/// A tap of the left shift key: the scene binds `dash` to `Key("Shift")`.
fn shift(pressed: bool) -> Vec<InputEvent> {
    let key = InputSource::Key("ShiftLeft".into());
    vec![if pressed {
        InputEvent::press(key)
    } else {
        InputEvent::release(key)
    }]
}

#[test]
fn a_parameter_edit_of_the_guides_dasher_applies_at_the_next_tick_and_keeps_its_state() {
    let (p, registry) = dasher_session();
    let mut h = Session::new(p, History::new(10_000, 100_000));
    for _ in 0..10 {
        h.step_frame(DT, &[]);
    }
    // Dash at tick 11: 800 ms of cooldown (the scene's).
    h.step_frame(DT, &shift(true));
    h.step_frame(DT, &shift(false));
    assert_eq!(dasher_field(h.pipeline(), "dashes"), FieldValue::UInt(1));
    for _ in 0..8 {
        h.step_frame(DT, &[]);
    }
    h.pause();
    let tick = h.pipeline().clock().simulation_tick;
    let left_before = dasher_field(h.pipeline(), "cooldown_left_ms");

    // The inspector's Apply: an edit of the whole parameter text through
    // the history, as the editor's worker makes it.
    let edit = Edit::Params {
        object: DASHER,
        index: 0,
        behaviour: "Dasher".into(),
        params: "(dash_speed: 14.0, cooldown_ms: 300.0)".into(),
    };
    let prepared = edit.prepare(&registry).expect("the text is valid");
    h.edit(prepared)
        .expect("a behaviour written as the guide shows takes new parameters");
    // It runs with them from the next tick; what it keeps is untouched.
    assert_eq!(
        dasher_field(h.pipeline(), "cooldown_ms"),
        FieldValue::F64(300.0)
    );
    assert_eq!(dasher_field(h.pipeline(), "cooldown_left_ms"), left_before);
    assert_eq!(dasher_field(h.pipeline(), "dashes"), FieldValue::UInt(1));

    // The next dash (once the cooldown under way has run out) is held off
    // for 300 ms, not the 800 it started with.
    h.resume(&[]);
    while dasher_field(h.pipeline(), "cooldown_left_ms") != FieldValue::F64(0.0) {
        h.step_frame(DT, &[]);
        assert!(
            h.pipeline().clock().simulation_tick < tick + 60,
            "the cooldown runs out"
        );
    }
    h.step_frame(DT, &shift(true));
    assert_eq!(dasher_field(h.pipeline(), "dashes"), FieldValue::UInt(2));
    assert_eq!(
        dasher_field(h.pipeline(), "cooldown_left_ms"),
        FieldValue::F64(300.0)
    );
}

#[test]
fn a_refused_parameter_edit_is_reported_and_never_said_to_run() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, DisplayRate::Hz(60), guide::behaviours().registries());
    let send = |c| ui.send(c);
    send(Command::Scene(SceneCommand::Load {
        path: guide_scene(),
        play: true,
    }));
    for _ in 0..10 {
        assert!(w.pump(DT));
    }
    send(Command::Run(Run::Pause));
    assert!(w.pump(DT));
    let _ = ui.take();
    let edit = |params: &str| Command::Edit {
        target: Target::Live,
        edit: EditCommand::Params {
            object: DASHER,
            index: 0,
            params: params.to_string(),
        },
    };

    // The constructor refuses a negative cooldown: an error, and no notice.
    send(edit("(cooldown_ms: -5.0)"));
    assert!(w.pump(DT));
    let events: Vec<Event> = ui.take().events;
    let errors: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Error(m) => Some(words::error(m)),
            _ => None,
        })
        .collect();
    assert!(
        errors
            .iter()
            .any(|m| m.contains("cooldown_ms must be >= 0 ms")),
        "the refusal says why: {errors:?}"
    );
    let said_to_run = |events: &[Event]| {
        events
            .iter()
            .any(|e| matches!(e, Event::Notice(Notice::ParamsApplied { .. })))
    };
    assert!(
        !said_to_run(&events),
        "a refused edit is followed by a notice that it runs: {events:?}"
    );

    // An accepted one says so, and only that.
    send(edit("(cooldown_ms: 300.0)"));
    assert!(w.pump(DT));
    let events: Vec<Event> = ui.take().events;
    assert!(said_to_run(&events), "{events:?}");
    assert!(
        !events.iter().any(|e| matches!(e, Event::Error(_))),
        "{events:?}"
    );
}
