//! forks and run B.

use super::*;
use stepframe_app::compare::poses::{TickDivergence, TracedTick};
use stepframe_app::editor::WorldView;
use stepframe_app::editor::protocol::{
    BranchCommand, BranchEvent, EditCommand, Notice, RecordingCommand, RewindCommand, Run,
    SceneCommand, Target,
};

/// The demo run headless at 60 Hz to `tick`, with `tape` as its tick input.
fn headless_with(tape: Recording, tick: u64) -> stepframe_core::Pipeline {
    let registry = stepframe_app::player::registry(&demo());
    let scene = stepframe_core::Scene::load(&demo(), &registry).expect("demo");
    let mut p = stepframe_core::Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry).expect("session");
    p.set_tick_input(Some(Box::new(stepframe_core::Replay::new(tape))));
    while p.stepper().completed_ticks() < tick {
        p.step_frame(DT);
    }
    p
}

/// A tap of Space (press and release) in tick `tick`.
fn tap_at(tick: u64) -> Recording {
    let mut tape = Recording::new(60);
    for value in [1.0, 0.0] {
        tape.insert(RecordedEvent {
            tick,
            source: InputSource::Key("Space".into()),
            value,
        });
    }
    tape
}

/// Every divergence sample the worker sent among `events`, in order.
fn divergences_in(events: &[Event]) -> Vec<TickDivergence> {
    batches_in(events, |e| match e {
        Event::BranchB(BranchEvent::Measured(d)) => Some(d),
        _ => None,
    })
}

/// The first measured tick where A and B differ.
fn first_parting(events: &[Event]) -> TickDivergence {
    divergences_in(events)
        .into_iter()
        .find(|d| d.objects > 0)
        .expect("the branches part")
}

/// The past view of `tick`, asked for and answered in one pump of `dt`
/// (the session is paused: the pump runs no frame).
fn past_at(h: &mut Host, tick: u64, dt: f64) -> WorldView {
    h.send(Command::Rewind(RewindCommand::ViewTick(tick)));
    h.pump(dt);
    let past = h.take_past().expect("a past view");
    assert_eq!(past.at_tick, Some(tick));
    past
}

/// B's record of `tick`, as the past view of that tick shows it.
fn b_at(h: &mut Host, tick: u64, dt: f64) -> TracedTick {
    let b = past_at(h, tick, dt)
        .b
        .unwrap_or_else(|| panic!("B holds tick {tick}"));
    assert_eq!(b.tick, tick);
    b
}

/// Pumps frames of `dt` until the live view is at `tick` or beyond.
fn run_to(h: &mut Host, tick: u64, dt: f64) {
    while h.tick() < tick {
        h.pump(dt);
    }
}

/// Forks the demo at tick 100 at one worker pacing, gives branch B a tap of
/// Space at tick 110, plays A and B side by side to tick 160 or beyond, and
/// returns the divergences and the host, paused.
fn fork_run(rate: DisplayRate, dt: f64) -> (Vec<TickDivergence>, Host) {
    let mut h = playing_paced(demo(), rate);
    run_to(&mut h, 130, dt);
    h.send(Command::Run(Run::Pause));
    h.send(Command::BranchB(BranchCommand::ForkHere(100)));
    h.send(Command::Edit {
        target: Target::B,
        edit: EditCommand::Tape {
            tape: tap_at(110),
            recorded_to: 100,
        },
    });
    h.send(Command::Run(Run::Play));
    run_to(&mut h, 160, dt);
    h.send(Command::Run(Run::Pause));
    h.pump(dt);
    let events: Vec<Event> = h.events();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::BranchB(BranchEvent::Forked(100)))),
        "forked"
    );
    (divergences_in(&events), h)
}

#[test]
fn a_fork_given_a_jump_at_tick_110_parts_from_the_live_session_there_and_adopts_exactly() {
    let with_tap = headless_with(tap_at(110), 160);
    let without = headless_with(Recording::new(60), 160);
    let player = |p: &stepframe_core::Pipeline| {
        p.world()
            .physics_simulation_pose(ObjectId(20))
            .expect("the player")
    };
    assert_ne!(
        player(&with_tap),
        player(&without),
        "the tap moves the player"
    );
    for (pacing, dt) in [
        (DisplayRate::Hz(60), 1.0 / 60.0),
        (DisplayRate::Hz(144), 1.0 / 144.0),
    ] {
        let (divergences, mut h) = fork_run(pacing, dt);
        // A and B agree up to tick 109; the player parts at 110.
        let first = divergences
            .iter()
            .find(|d| d.objects > 0)
            .expect("the branches part");
        assert_eq!(first.tick, 110, "{pacing:?}");
        assert_eq!(first.first_object, Some(20), "{pacing:?}");
        assert!(
            divergences
                .iter()
                .filter(|d| d.tick < 110)
                .all(|d| d.objects == 0)
        );
        assert_eq!(
            divergences.iter().filter(|d| d.tick == 101).count(),
            1,
            "each tick once"
        );
        // B's tick 160 is a headless run's with the tap; A's, one without.
        let past = past_at(&mut h, 160, dt);
        let b160 = past.b.as_ref().expect("B ran tick 160");
        assert_eq!(b160.tick, 160);
        let p = player(&with_tap);
        assert_eq!(
            b160.object(20).map(|f| [f[0], f[1], f[2]]),
            Some([p.x, p.y, p.angle]),
            "{pacing:?}"
        );
        assert_eq!(
            past.state_hash,
            without.state_hash(),
            "A unchanged, {pacing:?}"
        );
        // Adopted, B is the live session: exactly the headless run with the
        // tap at the tick it stands at.
        h.send(Command::BranchB(BranchCommand::Adopt));
        h.pump(dt);
        let live = h.view();
        let at = live.clock.simulation_tick;
        assert_eq!(
            live.state_hash,
            headless_with(tap_at(110), at).state_hash(),
            "{pacing:?}"
        );
    }
}

/// Collects every tick's record of a headless run.
struct Traced(std::sync::Arc<std::sync::Mutex<Vec<TracedTick>>>);

impl stepframe_core::TickObserver for Traced {
    fn on_tick(&mut self, record: &stepframe_core::TickRecord<'_>) {
        self.0
            .lock()
            .expect("one thread")
            .push(stepframe_app::compare::poses::traced_tick(
                record.clock.simulation_tick,
                record.clock.frame_index,
                record.world,
            ));
    }
}

/// The demo's player parameters as the scene authors them, and with a jump
/// impulse of 13 N·s instead of 6.5: literal text, so the expected runs do
/// not come from the code under test.
const PLAYER_PARAMS: &str =
    "(move_force: 25.0, max_speed: 7.0, jump_impulse: 6.5, charge_impulse_per_second: 6.0)";
const PLAYER_PARAMS_HIGH: &str =
    "(move_force: 25.0, max_speed: 7.0, jump_impulse: 13.0, charge_impulse_per_second: 6.0)";

/// A headless 60 Hz run of `scene_text` (the demo's file, maybe edited) with
/// a tap of Space at tick 110, to tick 170: every tick's record and the
/// state hash at every tick from 100 on. With `params_at_100`, the player's
/// behaviour is given those parameters at the end of tick 100 through
/// [`stepframe_core::Pipeline::set_behaviour_params`].
fn headless_jump(
    scene_text: &str,
    params_at_100: Option<&str>,
) -> (Vec<TracedTick>, std::collections::BTreeMap<u64, u64>) {
    let registry = stepframe_app::player::registry(&demo());
    let scene = stepframe_core::Scene::parse(scene_text, &demo(), &registry).expect("the demo");
    let mut p = stepframe_core::Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry).expect("session");
    p.set_tick_input(Some(Box::new(stepframe_core::Replay::new(tap_at(110)))));
    let records = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    p.set_tick_observer(Some(Box::new(Traced(records.clone()))));
    let mut hashes = std::collections::BTreeMap::new();
    for tick in 100..=170 {
        run_to_end_of(&mut p, tick);
        hashes.insert(tick, p.state_hash());
        if tick == 100
            && let Some(params) = params_at_100
        {
            p.set_behaviour_params(ObjectId(20), 0, params, &registry)
                .expect("the player takes new parameters");
        }
    }
    let records = records.lock().expect("one thread").clone();
    (records, hashes)
}

/// Runs 60 Hz frames until the end of `tick`, stopping there even inside a
/// frame (the pipeline is then suspended at that tick's end).
fn run_to_end_of(p: &mut stepframe_core::Pipeline, tick: u64) {
    p.set_stop_after_tick(Some(tick));
    while p.stepper().completed_ticks() < tick {
        if p.suspension().is_some() {
            p.resume();
        } else {
            p.step_frame(DT);
        }
    }
}

/// A tick and its objects' fields.
type TickFields = (u64, Vec<(u64, stepframe_app::compare::poses::TracedFields)>);

/// The first tick whose records differ, and how many objects differ there.
fn first_difference(a: &[TickFields], b: &[TickFields]) -> Option<(u64, usize)> {
    a.iter().zip(b).find(|(x, y)| x != y).map(|(x, y)| {
        let differ = x.1.iter().zip(&y.1).filter(|(p, q)| p != q).count();
        (x.0, differ)
    })
}

#[test]
fn a_fork_with_a_higher_jump_impulse_parts_at_the_jump_and_leaves_the_live_session_exact() {
    let demo_text = std::fs::read_to_string(demo()).expect("the demo file");
    assert!(demo_text.contains(PLAYER_PARAMS), "the demo authors these");
    let edited = demo_text.replace(PLAYER_PARAMS, PLAYER_PARAMS_HIGH);
    // A: the demo as authored with the tap; B: the same, its player built
    // with the higher impulse (no jump before tick 110, so loading it at
    // the start or at tick 100 is the same run).
    let (a_records, a_hashes) = headless_jump(&demo_text, None);
    let (b_records, _) = headless_jump(&edited, None);
    let (b_loaded_at_100, _) = headless_jump(&demo_text, Some(PLAYER_PARAMS_HIGH));
    let from_101 = |r: &[TracedTick]| -> Vec<_> {
        r.iter()
            .filter(|t| t.tick > 100)
            .map(|t| (t.tick, t.objects.clone()))
            .collect()
    };
    assert_eq!(
        first_difference(&from_101(&b_loaded_at_100), &from_101(&b_records)),
        None,
        "the parameters set at tick 100 are a run loaded with them"
    );
    let player_y = |r: &[TracedTick], tick: u64| {
        r.iter()
            .find(|t| t.tick == tick)
            .and_then(|t| t.object(20))
            .map(|f| f[1])
    };
    assert!(
        player_y(&b_records, 130) > player_y(&a_records, 130),
        "the higher impulse jumps higher"
    );

    for (pacing, dt) in [
        (DisplayRate::Hz(60), 1.0 / 60.0),
        (DisplayRate::Hz(144), 1.0 / 144.0),
    ] {
        let mut h = playing_paced(demo(), pacing);
        run_to(&mut h, 120, dt);
        h.send(Command::Run(Run::Pause));
        // A's future gets the tap at 110; B forks at 100 and gets the same
        // input with the higher impulse.
        h.send(Command::Recording(RecordingCommand::Apply {
            tape: tap_at(110),
            from: 100,
        }));
        fork_with_params(&h, 100, ObjectId(20), PLAYER_PARAMS_HIGH);
        run_to(&mut h, 170, dt);
        h.send(Command::Run(Run::Pause));
        h.pump(dt);
        let events: Vec<Event> = h.events();
        assert_no_errors(&events);
        // B's record of the fork tick itself is A's state there.
        let (fork_tick, a_at_fork) = (b_at(&mut h, 100, dt), past_at(&mut h, 100, dt));
        let a_player = a_at_fork
            .objects
            .iter()
            .find(|o| o.id == ObjectId(20))
            .expect("A's player")
            .committed;
        assert_eq!(
            fork_tick.object(20).map(|f| [f[0], f[1], f[2]]),
            Some([a_player.x, a_player.y, a_player.angle]),
            "{pacing:?}"
        );
        // B's records after the fork, as the past views of A's ticks show
        // them, up to where the session stands.
        let last = h.tick();
        let b: Vec<TracedTick> = (101..=last).map(|t| b_at(&mut h, t, dt)).collect();
        // B, tick for tick, is the run loaded with the higher impulse.
        assert_eq!(b.first().map(|t| t.tick), Some(101), "{pacing:?}");
        let expected: Vec<_> = from_101(&b_records)
            .into_iter()
            .filter(|(t, _)| *t <= b.last().map_or(0, |l| l.tick))
            .collect();
        assert_eq!(b.len(), expected.len(), "{pacing:?}");
        assert_eq!(
            first_difference(&from_101(&b), &expected),
            None,
            "{pacing:?}"
        );
        assert!(b.last().is_some_and(|l| l.tick >= 170), "{pacing:?}");
        // The branches part at the jump, on the player first.
        let first = first_parting(&events);
        assert_eq!(
            (first.tick, first.first_object),
            (110, Some(20)),
            "{pacing:?}"
        );
        // A, tick for tick, is the unforked run.
        for t in 100..=170 {
            let past = past_at(&mut h, t, dt);
            assert_eq!(past.state_hash, a_hashes[&t], "A at tick {t}, {pacing:?}");
        }
    }
}

#[test]
fn a_script_run_in_b_reaches_b_only_and_the_file_stays_as_it_was() {
    let scene = scripts_scene();
    let patrol_file = scene
        .parent()
        .and_then(|d| d.parent())
        .expect("assets/")
        .join("scripts/patrol.rhai");
    let original = std::fs::read_to_string(&patrol_file).expect("patrol.rhai");
    // Headless references: A as authored; B given the fast text at the end
    // of tick 60 through a host of its own.
    let headless = |fast_at_60: bool| {
        let host = stepframe_plugins::ScriptHost::new();
        let registry = stepframe_plugins::registry_for(&host, scene.parent().expect("scenes/"));
        let s = stepframe_core::Scene::load(&scene, &registry).expect("scripts.ron");
        let mut p = stepframe_core::Pipeline::new(s.settings.time);
        p.load_scene(&s, &registry).expect("session");
        let mut hashes = std::collections::BTreeMap::new();
        let mut guard_x = std::collections::BTreeMap::new();
        for tick in 60..=90 {
            run_to_end_of(&mut p, tick);
            hashes.insert(tick, p.state_hash());
            let x = p
                .world()
                .physics_simulation_pose(ObjectId(3))
                .expect("the guard")
                .x;
            guard_x.insert(tick, x);
            if tick == 60 && fast_at_60 {
                host.reload_text(&patrol_file, &fast_patrol(&original))
                    .expect("the fast patrol compiles");
            }
        }
        (hashes, guard_x)
    };
    let (a_hashes, a_x) = headless(false);
    let (_, b_x) = headless(true);
    // The edit doubles the guard's pace (independent of the code: 20 ticks
    // at 0.025 m against 0.05 m).
    assert!(((a_x[&80] - a_x[&60]) - 0.5).abs() < 1e-4, "{a_x:?}");
    assert!(((b_x[&80] - b_x[&60]) - 1.0).abs() < 1e-4, "{b_x:?}");

    let mut h = playing(scene.clone());
    run_to(&mut h, 70, DT);
    let key = h
        .scripts
        .loaded
        .iter()
        .find(|s| s.key.ends_with("patrol.rhai"))
        .map(|s| s.key.clone())
        .expect("the scene runs patrol.rhai");
    h.send(Command::Run(Run::Pause));
    h.send(Command::BranchB(BranchCommand::ForkHere(60)));
    h.send(Command::Edit {
        target: Target::B,
        edit: EditCommand::Script {
            key: key.clone(),
            text: fast_patrol(&original),
        },
    });
    h.send(Command::Run(Run::Play));
    run_to(&mut h, 90, DT);
    h.send(Command::Run(Run::Pause));
    h.pump(DT);
    let events: Vec<Event> = h.events();
    assert_no_errors(&events);
    // B's guard walks the fast text's path, A's the file's.
    for tick in 61..=90 {
        let x = b_at(&mut h, tick, DT).object(3).expect("B's guard")[0];
        assert_eq!(x, b_x[&tick], "B's guard at tick {tick}");
    }
    for t in [61, 75, 90] {
        let past = past_at(&mut h, t, DT);
        assert_eq!(past.state_hash, a_hashes[&t], "A at tick {t}");
    }
    assert_eq!(
        std::fs::read_to_string(&patrol_file).ok(),
        Some(original.clone()),
        "the file is not written"
    );
    // Adopted, the session runs the fast text, and the code pane shows it.
    h.send(Command::BranchB(BranchCommand::Adopt));
    h.pump(DT);
    let shown = h
        .scripts
        .loaded
        .iter()
        .find(|s| s.key == key)
        .map(|s| s.text.to_string());
    assert_eq!(shown, Some(fast_patrol(&original)));
}

#[test]
fn parameters_set_in_b_and_adopted_are_what_save_writes() {
    // push.ron and its script in a scratch assets/ layout.
    let dir = std::env::temp_dir().join(format!("stepframe-adopt-save-{}", std::process::id()));
    let assets = demo()
        .parent()
        .and_then(|d| d.parent())
        .expect("assets/")
        .to_path_buf();
    for (sub, file) in [("scenes", "push.ron"), ("scripts", "push.rhai")] {
        std::fs::create_dir_all(dir.join(sub)).expect("scratch");
        std::fs::copy(assets.join(sub).join(file), dir.join(sub).join(file)).expect("copy");
    }
    let scene = dir.join("scenes/push.ron");
    let fixed = r#"(path: "scripts/push.rhai", vars: {"force": 1.0, "per_frame": false})"#;

    // At 144 Hz the authored script pushes 2.4 times a tick; B, set to push
    // once per tick, parts from A at the first tick after the fork.
    let mut h = playing_paced(scene.clone(), DisplayRate::Hz(144));
    run_to(&mut h, 30, 1.0 / 144.0);
    h.send(Command::Run(Run::Pause));
    fork_with_params(&h, 10, ObjectId(2), fixed);
    run_to(&mut h, 40, 1.0 / 144.0);
    h.send(Command::Run(Run::Pause));
    h.send(Command::BranchB(BranchCommand::Adopt));
    h.pump(1.0 / 144.0);
    let events: Vec<Event> = h.events();
    let first = first_parting(&events);
    assert_eq!((first.tick, first.first_object), (11, Some(2)));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Notice(Notice::BParamsInScene))),
        "the user is told"
    );
    assert!(
        notices(&events)
            .iter()
            .any(|n| n.contains("Save writes them")),
        "{:?}",
        notices(&events)
    );

    // Save writes B's parameters into push.ron in place, without asking:
    // the behaviour's `params` value is the only text that changes, and
    // every comment stays.
    let original = std::fs::read_to_string(&scene).expect("the copy");
    h.send(Command::Scene(SceneCommand::Save {
        replace: false,
        reviewed: true,
    }));
    h.pump(1.0 / 144.0);
    let events: Vec<Event> = h.events();
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::ConfirmSave { .. })),
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| matches!(e, Event::Saved(_))),
        "{events:?}"
    );
    let written = std::fs::read_to_string(&scene).expect("the saved file");
    let old_line = format!(
        "            behaviours: [(name: \"Script\", params: {})],",
        fixed.replace("false", "true")
    );
    let new_line = format!("            behaviours: [(name: \"Script\", params: {fixed})],");
    assert!(original.contains(&old_line), "push.ron's behaviour line");
    assert_eq!(written, original.replace(&old_line, &new_line));
    let registry = stepframe_app::player::registry(&scene);
    let saved = stepframe_core::Scene::load(&scene, &registry).expect("the saved scene loads");
    let params = &saved.find(2).expect("the ball").behaviours[0].params;
    assert_eq!(params, fixed);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_scene_just_opened_can_be_forked_and_resumed_from_tick_0() {
    let scene = demo().with_file_name("push.ron");
    // Opened, shown at tick 0 and suspended: no frame has run, so the
    // history holds no keyframe yet.
    let mut h = Host::loading(DisplayRate::Hz(144), &scene, false);
    h.pump(1.0 / 144.0);
    h.send(Command::Rewind(RewindCommand::RewindTo(0)));
    h.send(Command::BranchB(BranchCommand::ForkHere(0)));
    h.send(Command::Edit {
        target: Target::B,
        edit: EditCommand::Params {
            object: ObjectId(2),
            index: 0,
            params: r#"(path: "scripts/push.rhai", vars: {"force": 1.0, "per_frame": false})"#
                .to_string(),
        },
    });
    h.send(Command::Run(Run::Play));
    run_to(&mut h, 20, 1.0 / 144.0);
    let events: Vec<Event> = h.events();
    assert_no_errors(&events);
    assert!(events.iter().any(|e| matches!(e, Event::Rewound(0))));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::BranchB(BranchEvent::Forked(0))))
    );
    // Pushed per frame (A) against once per tick (B): apart from tick 1.
    let first = first_parting(&events);
    assert_eq!((first.tick, first.first_object), (1, Some(2)));
}

/// Forks B at `tick` with `params` for the first behaviour of `object`, and
/// plays on.
fn fork_with_params(h: &Host, tick: u64, object: ObjectId, params: &str) {
    h.send(Command::BranchB(BranchCommand::ForkHere(tick)));
    h.send(Command::Edit {
        target: Target::B,
        edit: EditCommand::Params {
            object,
            index: 0,
            params: params.to_string(),
        },
    });
    h.send(Command::Run(Run::Play));
}
