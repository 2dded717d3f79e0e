//! forks and run B.

use super::*;

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
fn divergences_in(events: &[Event]) -> Vec<stepframe_app::compare::poses::TickDivergence> {
    batches_in(events, |e| match e {
        Event::Divergence(d) => Some(d),
        _ => None,
    })
}

/// The first measured tick where A and B differ.
fn first_parting(events: &[Event]) -> stepframe_app::compare::poses::TickDivergence {
    divergences_in(events)
        .into_iter()
        .find(|d| d.objects > 0)
        .expect("the branches part")
}

/// Forks the demo at tick 100 at one worker pacing, gives branch B a tap of
/// Space at tick 110, plays A and B side by side to tick 160 or beyond, and
/// returns the divergences, B's records and the worker.
fn fork_run(
    pacing: Pacing,
    dt: f64,
) -> (
    Vec<stepframe_app::compare::poses::TickDivergence>,
    Vec<stepframe_app::compare::poses::TracedTick>,
    Worker,
    worker::UiEnd,
) {
    let (ui, mut w) = playing_paced(demo(), pacing);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    let tick = |ui: &worker::UiEnd, last: &mut u64| {
        if let Some(v) = latest_view(ui) {
            *last = v.clock.simulation_tick;
        }
        *last
    };
    let mut last = 0;
    while tick(&ui, &mut last) < 130 {
        w.pump(dt);
    }
    send(Command::Pause);
    send(Command::ForkHere(100));
    send(Command::ForkTape {
        tape: tap_at(110),
        recorded_to: 100,
    });
    send(Command::Play);
    while tick(&ui, &mut last) < 160 {
        w.pump(dt);
    }
    send(Command::Pause);
    w.pump(dt);
    let events: Vec<Event> = ui.events.try_iter().collect();
    assert!(
        events.iter().any(|e| matches!(e, Event::Forked(100))),
        "forked"
    );
    (divergences_in(&events), fork_ticks_in(&events), w, ui)
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
    for (pacing, dt) in [(Pacing::Hz(60), 1.0 / 60.0), (Pacing::Hz(144), 1.0 / 144.0)] {
        let (divergences, b, mut w, ui) = fork_run(pacing, dt);
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
        let b160 = b.iter().find(|t| t.tick == 160).expect("B ran tick 160");
        let p = player(&with_tap);
        assert_eq!(
            b160.object(20).map(|f| [f[0], f[1], f[2]]),
            Some([p.x, p.y, p.angle]),
            "{pacing:?}"
        );
        ui.commands.send(Command::ViewTick(160)).expect("alive");
        w.pump(dt);
        let past = ui.past_views.try_iter().last().expect("A at 160");
        assert_eq!(
            past.state_hash,
            without.state_hash(),
            "A unchanged, {pacing:?}"
        );
        // Adopted, B is the live session: exactly the headless run with the
        // tap at the tick it stands at.
        ui.commands.send(Command::AdoptFork).expect("alive");
        w.pump(dt);
        let live = latest_view(&ui).expect("a view");
        let at = live.clock.simulation_tick;
        assert_eq!(
            live.state_hash,
            headless_with(tap_at(110), at).state_hash(),
            "{pacing:?}"
        );
    }
}

/// Collects every tick's record of a headless run.
struct Traced(std::sync::Arc<std::sync::Mutex<Vec<stepframe_app::compare::poses::TracedTick>>>);

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
) -> (
    Vec<stepframe_app::compare::poses::TracedTick>,
    std::collections::BTreeMap<u64, u64>,
) {
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
type TickFields = (u64, Vec<(u64, stepframe_app::compare::poses::Fields)>);

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
    let from_101 = |r: &[stepframe_app::compare::poses::TracedTick]| -> Vec<_> {
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
    let player_y = |r: &[stepframe_app::compare::poses::TracedTick], tick: u64| {
        r.iter()
            .find(|t| t.tick == tick)
            .and_then(|t| t.object(20))
            .map(|f| f[1])
    };
    assert!(
        player_y(&b_records, 130) > player_y(&a_records, 130),
        "the higher impulse jumps higher"
    );

    for (pacing, dt) in [(Pacing::Hz(60), 1.0 / 60.0), (Pacing::Hz(144), 1.0 / 144.0)] {
        let (ui, mut w) = playing_paced(demo(), pacing);
        let send = |c| ui.commands.send(c).expect("the worker end is alive");
        let mut last = 0;
        let mut tick = |w: &mut Worker, ui: &worker::UiEnd| {
            w.pump(dt);
            if let Some(v) = latest_view(ui) {
                last = v.clock.simulation_tick;
            }
            last
        };
        while tick(&mut w, &ui) < 120 {}
        send(Command::Pause);
        // A's future gets the tap at 110; B forks at 100 and gets the same
        // input with the higher impulse.
        send(Command::ApplyTape {
            tape: tap_at(110),
            from: 100,
        });
        fork_with_params(&send, 100, ObjectId(20), PLAYER_PARAMS_HIGH);
        while tick(&mut w, &ui) < 170 {}
        send(Command::Pause);
        w.pump(dt);
        let events: Vec<Event> = ui.events.try_iter().collect();
        assert_no_errors(&events);
        let all = fork_ticks_in(&events);
        // B's first record is the fork tick itself (A's state there).
        assert_eq!(all.first().map(|t| t.tick), Some(100), "{pacing:?}");
        let b: Vec<_> = all
            .into_iter()
            .filter(|t| t.tick > 100 && t.tick <= 170)
            .collect();
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
            send(Command::ViewTick(t));
            w.pump(dt);
            let past = ui.past_views.try_iter().last().expect("a past view");
            assert_eq!(past.at_tick, Some(t));
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

    let (ui, mut w) = playing(scene.clone());
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    let mut last = 0;
    let mut key = None;
    while last < 70 {
        w.pump(DT);
        if let Some(v) = latest_view(&ui) {
            last = v.clock.simulation_tick;
            key = key.or_else(|| {
                v.scripts
                    .loaded
                    .iter()
                    .find(|s| s.key.ends_with("patrol.rhai"))
                    .map(|s| s.key.clone())
            });
        }
    }
    let key = key.expect("the scene runs patrol.rhai");
    send(Command::Pause);
    send(Command::ForkHere(60));
    send(Command::ForkScript {
        key: key.clone(),
        text: fast_patrol(&original),
    });
    send(Command::Play);
    while last < 90 {
        w.pump(DT);
        if let Some(v) = latest_view(&ui) {
            last = v.clock.simulation_tick;
        }
    }
    send(Command::Pause);
    w.pump(DT);
    let events: Vec<Event> = ui.events.try_iter().collect();
    assert_no_errors(&events);
    // B's guard walks the fast text's path, A's the file's.
    let b_guard: std::collections::BTreeMap<u64, f32> = fork_ticks_in(&events)
        .into_iter()
        .filter(|t| t.tick > 60 && t.tick <= 90)
        .filter_map(|t| Some((t.tick, t.object(3)?[0])))
        .collect();
    assert_eq!(b_guard.keys().next(), Some(&61));
    for (tick, x) in &b_guard {
        assert_eq!(*x, b_x[tick], "B's guard at tick {tick}");
    }
    for t in [61, 75, 90] {
        send(Command::ViewTick(t));
        w.pump(DT);
        let past = ui.past_views.try_iter().last().expect("a past view");
        assert_eq!(past.state_hash, a_hashes[&t], "A at tick {t}");
    }
    assert_eq!(
        std::fs::read_to_string(&patrol_file).ok(),
        Some(original.clone()),
        "the file is not written"
    );
    // Adopted, the session runs the fast text, and the code pane shows it.
    send(Command::AdoptFork);
    w.pump(DT);
    let v = latest_view(&ui).expect("a view");
    let shown = v
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
    let (ui, mut w) = playing_paced(scene.clone(), Pacing::Hz(144));
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    let mut last = 0;
    let mut run_to = |w: &mut Worker, tick: u64| {
        while last < tick {
            w.pump(1.0 / 144.0);
            if let Some(v) = latest_view(&ui) {
                last = v.clock.simulation_tick;
            }
        }
    };
    run_to(&mut w, 30);
    send(Command::Pause);
    fork_with_params(&send, 10, ObjectId(2), fixed);
    run_to(&mut w, 40);
    send(Command::Pause);
    send(Command::AdoptFork);
    w.pump(1.0 / 144.0);
    let events: Vec<Event> = ui.events.try_iter().collect();
    let first = first_parting(&events);
    assert_eq!((first.tick, first.first_object), (11, Some(2)));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Notice(n) if n.contains("Save writes them"))),
        "the user is told"
    );

    // Save writes B's parameters into push.ron in place, without asking:
    // the behaviour's `params` value is the only text that changes, and
    // every comment stays.
    let original = std::fs::read_to_string(&scene).expect("the copy");
    send(Command::Save { replace: false });
    w.pump(1.0 / 144.0);
    let events: Vec<Event> = ui.events.try_iter().collect();
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
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(144), None);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    // Opened, shown at tick 0 and suspended: no frame has run, so the
    // history holds no keyframe yet.
    send(Command::Load(scene));
    w.pump(1.0 / 144.0);
    send(Command::RewindTo(0));
    send(Command::ForkHere(0));
    send(Command::ForkParams {
        object: ObjectId(2),
        index: 0,
        params: r#"(path: "scripts/push.rhai", vars: {"force": 1.0, "per_frame": false})"#
            .to_string(),
    });
    send(Command::Play);
    let mut last = 0;
    while last < 20 {
        w.pump(1.0 / 144.0);
        if let Some(v) = latest_view(&ui) {
            last = v.clock.simulation_tick;
        }
    }
    let events: Vec<Event> = ui.events.try_iter().collect();
    assert_no_errors(&events);
    assert!(events.iter().any(|e| matches!(e, Event::Rewound(0))));
    assert!(events.iter().any(|e| matches!(e, Event::Forked(0))));
    // Pushed per frame (A) against once per tick (B): apart from tick 1.
    let first = first_parting(&events);
    assert_eq!((first.tick, first.first_object), (1, Some(2)));
}

/// Forks B at `tick` with `params` for the first behaviour of `object`, and
/// plays on.
fn fork_with_params(send: &impl Fn(Command), tick: u64, object: ObjectId, params: &str) {
    send(Command::ForkHere(tick));
    send(Command::ForkParams {
        object,
        index: 0,
        params: params.to_string(),
    });
    send(Command::Play);
}
