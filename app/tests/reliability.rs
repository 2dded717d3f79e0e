//! Reliability of the app (docs/reliability.md): fault injection from a scene
//! through `stepframe play`, stalls in the player and the editor's worker,
//! 10,000 hook panics through the worker, and the short soaks CI runs.
//!
//! The core-level proofs (every hook kind under each fault policy, non-finite
//! writes, exact dropped time, atomic saves under SIGKILL) are in
//! `tests/reliability.rs`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;
use stepframe_app::editor::log_book::LOG_CAPACITY;
use stepframe_app::editor::protocol::{
    Command as UiCommand, DisplayRate, Event, Run, SceneCommand,
};
use stepframe_app::editor::worker::{self, FrontEnd, Worker};
use stepframe_app::tools::{TraceDiff, diff_traces};
use stepframe_core::{HookKind, LogEntry, LogLevel, Scene, SceneObject, SuspendReason};

mod support;
use support::{path_str, root, scratch, stepframe};

const DT: f64 = 1.0 / 60.0;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The trace with every listed object's poses and contacts taken out, and
/// the `hash` member dropped (behaviour state, `Faulty`'s fire count among
/// it, is in the hash): what "the other objects' trace" means.
fn others_only(trace: &str, excluded: &BTreeSet<u64>) -> String {
    let mut out = String::new();
    for line in trace.lines().filter(|l| !l.trim().is_empty()) {
        let mut v: Value = serde_json::from_str(line).expect("a trace line is JSON");
        let obj = v.as_object_mut().expect("a trace line is an object");
        obj.remove("hash");
        if let Some(Value::Array(poses)) = obj.get_mut("poses") {
            poses.retain(|p| !excluded.contains(&p["id"].as_u64().expect("pose id")));
        }
        if let Some(Value::Array(contacts)) = obj.get_mut("contacts") {
            contacts.retain(|c| {
                !excluded.contains(&c["a"].as_u64().expect("a"))
                    && !excluded.contains(&c["b"].as_u64().expect("b"))
            });
        }
        let _ = writeln!(out, "{v}");
    }
    out
}

/// Ids of the objects that carry a `Faulty` behaviour.
fn faulty_ids(scene: &Scene) -> BTreeSet<u64> {
    scene
        .all_objects()
        .into_iter()
        .filter(|o| o.behaviours.iter().any(|b| b.name == "Faulty"))
        .map(|o| o.id)
        .collect()
}

/// `scene` with its fault-injecting behaviours taken out (every `Faulty`, and
/// the `Script`s running `scripts/fault_*.rhai`); objects and ids stay.
fn without_faulty(scene: &Scene) -> Scene {
    fn strip(o: &mut SceneObject) {
        o.behaviours.retain(|b| {
            b.name != "Faulty" && !(b.name == "Script" && b.params.contains("scripts/fault_"))
        });
        o.children.iter_mut().for_each(strip);
    }
    let mut control = scene.clone();
    control.objects.iter_mut().for_each(strip);
    control
}

#[test]
fn play_faults_ron_exits_0_reports_every_fault_and_the_other_objects_trace_goes_on() {
    let dir = scratch("play-faults");
    let scene_path = root().join("assets/scenes/faults.ron");
    let registry = stepframe_app::player::registry(&scene_path);
    let scene = Scene::load(&scene_path, &registry).expect("faults.ron loads");
    let faulty = faulty_ids(&scene);
    assert_eq!(
        faulty,
        BTreeSet::from([12, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60])
    );
    let control_path = dir.join("control.ron");
    without_faulty(&scene)
        .save(&control_path)
        .expect("control saved");

    let faulty_trace = dir.join("faulty.jsonl");
    let control_trace = dir.join("control.jsonl");
    let out = stepframe(&[
        "play",
        "assets/scenes/faults.ron",
        "--trace",
        path_str(&faulty_trace),
    ]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let control = stepframe(&[
        "play",
        path_str(&control_path),
        "--trace",
        path_str(&control_trace),
    ]);
    assert_eq!(control.status.code(), Some(0), "{}", text(&control.stderr));
    assert!(text(&control.stdout).contains("errors: none"));

    // Every fault on stderr as it happened, with tick, frame, object and hook
    // (ticks and frames derived in tests/reliability.rs; the contact tick is
    // where the control trace has ball 56 land).
    let control_text = std::fs::read_to_string(&control_trace).expect("control trace");
    let landed = control_text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .find(|v| {
            v["contacts"].as_array().is_some_and(|cs| {
                cs.iter()
                    .any(|c| c["kind"] == "started" && (c["a"] == 56 || c["b"] == 56))
            })
        })
        .and_then(|v| v["tick"].as_u64())
        .expect("ball 56 lands");
    let expected = [
        String::from("error: tick 0 (frame 1) #50 Start: Start of #50 `Start Panic` panicked"),
        String::from("error: tick 5 (frame 6) #51 Update: Update of #51 `Update Panic` panicked"),
        String::from(
            "error: tick 10 (frame 10) #52 FlowTick: FlowTick of #52 `Flow Panic` panicked",
        ),
        String::from(
            "error: tick 15 (frame 15) #53 FixedUpdate: FixedUpdate of #53 `Fixed Panic` panicked",
        ),
        String::from(
            "error: tick 20 (frame 21) #54 Routine: Routine of #54 `Routine Panic` panicked",
        ),
        String::from(
            "error: tick 25 (frame 25) #55 Present: Present of #55 `Present Panic` panicked",
        ),
        String::from(
            "error: tick 30 (frame 30) #57 FixedUpdate: rejected non-finite body command: Force",
        ),
        String::from(
            "error: tick 40 (frame 40) #58 FixedUpdate: rejected non-finite body command: SetPose",
        ),
        format!(
            "error: tick {landed} (frame {landed}) #56 Contact: Contact of #56 `Contact Panic` panicked"
        ),
        String::from(
            "error: tick 50 (frame 51) #59 Update: rejected non-finite body command: SetVelocity",
        ),
        String::from(
            "error: tick 70 (frame 70) #12 FixedUpdate: FixedUpdate of #12 `Sliding Platform` panicked",
        ),
        String::from(
            "error: tick 100 (frame 100) #57 FixedUpdate: rejected body command Impulse { target: ObjectId(57), impulse: Vec2 { x: 3e38, y: 0.0 } }: its result is not finite",
        ),
    ];
    let reported: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(reported.len(), expected.len(), "{stderr}");
    for want in &expected {
        assert!(
            reported.iter().any(|l| l.starts_with(want.as_str())),
            "missing `{want}` in:\n{}",
            reported.join("\n")
        );
        // And in the summary on stdout.
        assert!(stdout.contains(want.as_str()), "{stdout}");
    }
    assert!(stdout.contains("errors: 12"), "{stdout}");
    assert!(
        stdout.contains("injected faults: 12 (objects with a Faulty behaviour; expected)"),
        "{stdout}"
    );
    assert!(stdout.contains("600 frames, 600 ticks"), "{stdout}");

    // The other objects' trace, by trace-diff's rule (`frame` aside), is the
    // control's: all 600 ticks, projectiles spawned at run time included.
    let faulty_text = std::fs::read_to_string(&faulty_trace).expect("faulty trace");
    let a = others_only(&faulty_text, &faulty);
    let b = others_only(&control_text, &faulty);
    assert_eq!(
        diff_traces(&a, &b).expect("both parse"),
        TraceDiff::Identical { ticks: 600 }
    );
    // Not vacuous: the level has bodies moving in every tick.
    let last: Value = serde_json::from_str(a.lines().last().expect("600 lines")).expect("JSON");
    assert!(last["poses"].as_array().expect("poses").len() >= 10);
    // The faulty objects' own bodies too (Faulty has no physical effect and
    // every bad write was rejected): the traces differ only in the hash.
    let none = BTreeSet::new();
    assert_eq!(
        diff_traces(
            &others_only(&faulty_text, &none),
            &others_only(&control_text, &none)
        )
        .expect("both parse"),
        TraceDiff::Identical { ticks: 600 }
    );
}

#[test]
fn play_still_fails_on_an_error_no_faulty_behaviour_injected() {
    // A script that throws in Start: a real error on an object without
    // Faulty, so the run exits 1; the injected fault beside it alone would not.
    let dir = scratch("unexpected");
    let script = dir.join("broken.rhai");
    std::fs::write(&script, "fn start() { throw \"not a Faulty fault\"; }\n").expect("write");
    let path = dir.join("broken.ron");
    std::fs::write(
        &path,
        format!(
            r#"(objects: [
            (id: 1, name: "Broken", behaviours: [(name: "Script", params: (path: "{}", hot_reload: false))]),
            (id: 2, name: "Injector", behaviours: [(name: "Faulty", params: (hook: Update, tick: 3, fault: Panic))]),
        ])"#,
            path_str(&script)
        ),
    )
    .expect("write");
    let out = stepframe(&["play", path_str(&path), "--frames", "10"]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("errors: 2"), "{stdout}");
    assert!(stdout.contains("injected faults: 1"), "{stdout}");
    assert!(stderr.contains("#1 Start"), "{stderr}");
    assert!(stderr.contains("not a Faulty fault"), "{stderr}");
    assert!(
        stderr.contains("stepframe play: 1 error(s) logged during the run"),
        "{stderr}"
    );
}

/// What `play` of 60 demo frames with a 10 s hitch at frame 30 (and `more`
/// arguments) prints, once it has exited 0.
fn demo_stalled_at_frame_30(more: &[&str]) -> String {
    let mut args = vec![
        "play",
        "assets/scenes/demo.ron",
        "--frames",
        "60",
        "--stall",
        "30:10",
    ];
    args.extend_from_slice(more);
    let out = stepframe(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn play_reports_the_dropped_time_of_a_ten_second_stall_exactly() {
    // 60 frames at 60 Hz, frame 30 a 10 s hitch. Clamped to 0.25 s = 15
    // ticks: 4 run, 11 dropped = 11/60 s. Ticks: 29 + 4 + 30 = 63.
    let stdout = demo_stalled_at_frame_30(&[]);
    assert!(
        stdout.contains("60 frames, 63 ticks (1.05 s simulated), dropped 0.18333333333333332 s"),
        "{stdout}"
    );
    assert_eq!(format!("{}", 11.0 / 60.0), "0.18333333333333332");

    // With the clamp at 10 s the whole hitch is accepted: 600 ticks owed, 4
    // run, 596 dropped = 9.9333... s; still 63 ticks.
    let stdout = demo_stalled_at_frame_30(&["--max-delta", "10"]);
    assert!(stdout.contains("60 frames, 63 ticks"), "{stdout}");
    let dropped: f64 = stdout
        .split("dropped ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("dropped time printed");
    assert!((dropped - 596.0 / 60.0).abs() < 1e-12, "{dropped}");
}

/// Drains everything the worker published, as the editor's UI does.
#[derive(Default)]
struct Ui {
    /// Log lines kept, as the editor's log panel keeps them (bounded).
    log: VecDeque<LogEntry>,
    /// Every error line received, in order.
    errors: Vec<LogEntry>,
    /// Telemetry frames received: (frame, ticks, dropped this frame).
    frames: Vec<(u64, u32, f64, u64)>,
    /// Events other than log lines.
    events: Vec<Event>,
    /// Views received.
    views: u64,
    /// Objects in the newest view.
    objects: usize,
}

impl Ui {
    fn drain(&mut self, ui: &FrontEnd) {
        let taken = ui.take();
        if let Some(view) = taken.live {
            self.views += 1;
            self.objects = view.world.objects.len();
        }
        for event in taken.events {
            match event {
                Event::Frames(batch) => {
                    for f in batch {
                        self.frames.push((
                            f.clock.frame_index,
                            f.report.ticks,
                            f.report.dropped_time,
                            f.clock.simulation_tick,
                        ));
                    }
                }
                Event::Log(lines) => {
                    for line in lines {
                        if line.level == LogLevel::Error {
                            self.errors.push(line.clone());
                        }
                        if self.log.len() == LOG_CAPACITY {
                            self.log.pop_front();
                        }
                        self.log.push_back(line);
                    }
                }
                other => self.events.push(other),
            }
        }
    }

    fn tick(&self) -> u64 {
        self.frames.last().map_or(0, |f| f.3)
    }
}

#[test]
fn a_ten_second_stall_in_the_worker_runs_max_steps_ticks_and_drops_the_rest() {
    let (ui_end, end) = worker::channels();
    let mut w = Worker::new(
        end,
        DisplayRate::Hz(60),
        stepframe_app::Behaviours::built_in().registries(),
    );
    ui_end.send(UiCommand::Scene(SceneCommand::Load {
        path: stepframe_app::default_scene(),
        play: true,
    }));
    let mut ui = Ui::default();
    for _ in 0..30 {
        assert!(w.pump(DT));
    }
    // The worker measured 10 s since its last frame (a debugger stop, a
    // laptop lid): the same clamp and cap as the player.
    assert!(w.pump(10.0));
    assert!(w.pump(DT));
    ui.drain(&ui_end);
    let stall = ui.frames[30];
    assert_eq!(stall.0, 31);
    assert_eq!((stall.1, stall.2), (4, 11.0 / 60.0));
    assert_eq!(stall.3, 34);
    assert_eq!((ui.frames[31].1, ui.frames[31].2), (1, 0.0));
}

/// The soak scene of 10,000 hook panics: object `i` (1-based) carries one
/// `Faulty` that panics. Objects 1..=100 panic in Start (frame 1); the others
/// cycle through Update, FlowTick, FixedUpdate, Routine and Present, `per_tick`
/// of them from each tick on (`tick = 1 + k / per_tick`), with `repeat: true`,
/// so a behaviour that was not disabled would panic again every call.
fn panic_scene(per_tick: u64) -> String {
    let mut s = String::from("(objects: [\n");
    for i in 1..=10_000u64 {
        let (hook, tick) = panic_of(i, per_tick);
        let _ = writeln!(
            s,
            r#"(id: {i}, name: "P{i}", behaviours: [(name: "Faulty", params: (hook: {hook}, tick: {tick}, fault: Panic, repeat: true))]),"#
        );
    }
    s.push_str("])\n");
    s
}

/// `(hook, tick parameter)` of object `i` in [`panic_scene`].
fn panic_of(i: u64, per_tick: u64) -> (HookKind, u64) {
    const CYCLE: [HookKind; 5] = [
        HookKind::Update,
        HookKind::FlowTick,
        HookKind::FixedUpdate,
        HookKind::Routine,
        HookKind::Present,
    ];
    if i <= 100 {
        return (HookKind::Start, 0);
    }
    let k = i - 101;
    (CYCLE[(k % 5) as usize], 1 + k / per_tick)
}

/// Where object `i`'s panic is stamped, `(tick, frame)`, at one tick per frame:
/// Update and routines of frame f see f - 1 ticks, FixedUpdate pending tick f,
/// Flow Tick (after the fixed phase) and Present f completed ticks (see
/// tests/reliability.rs).
fn stamp_of(i: u64, per_tick: u64) -> (HookKind, u64, u64) {
    let (hook, tick) = panic_of(i, per_tick);
    match hook {
        HookKind::Start => (hook, 0, 1),
        HookKind::FixedUpdate | HookKind::FlowTick | HookKind::Present => (hook, tick, tick),
        _ => (hook, tick, tick + 1),
    }
}

#[test]
fn ten_thousand_hook_panics_through_the_worker_are_all_reported_and_it_keeps_running() {
    let dir = scratch("worker-panics");
    let path = dir.join("panics.ron");
    // 50 panics per tick: the last ones (tick 198) fire in frame 199.
    std::fs::write(&path, panic_scene(50)).expect("scene written");
    let (ui_end, end) = worker::channels();
    let mut w = Worker::new(
        end,
        DisplayRate::Hz(60),
        stepframe_app::Behaviours::built_in().registries(),
    );
    ui_end.send(UiCommand::Scene(SceneCommand::Load {
        path: path.clone(),
        play: true,
    }));
    let mut ui = Ui::default();
    for _ in 0..220 {
        assert!(w.pump(DT), "the worker stopped");
        ui.drain(&ui_end);
    }
    assert!(
        ui.events.iter().all(|e| !matches!(e, Event::Error(_))),
        "{:?}",
        ui.events
    );
    assert!(ui.events.iter().any(|e| matches!(
        e,
        Event::Loaded {
            objects: 10_000,
            ..
        }
    )));
    // The worker never stopped: 220 frames, 220 ticks, a view every frame.
    assert_eq!(ui.frames.len(), 220);
    assert_eq!(ui.tick(), 220);
    assert!(ui.views >= 1);

    // Every panic reached the UI, once, stamped exactly.
    assert_eq!(ui.errors.len(), 10_000);
    let mut seen: BTreeMap<u64, (HookKind, u64, u64)> = BTreeMap::new();
    for e in &ui.errors {
        let id = e.object.expect("an object").0;
        let hook = e.hook.expect("a hook");
        assert!(e.message.contains("panicked"), "{}", e.message);
        assert!(
            seen.insert(id, (hook, e.tick, e.frame)).is_none(),
            "object {id} reported twice: its behaviour was not disabled"
        );
    }
    for i in 1..=10_000u64 {
        assert_eq!(seen.get(&i), Some(&stamp_of(i, 50)), "object {i}");
    }
    // The UI's log stays bounded: the newest LOG_CAPACITY lines are kept.
    assert_eq!(ui.log.len(), LOG_CAPACITY);
    let newest = ui.log.back().expect("lines");
    assert_eq!(newest.object, ui.errors.last().and_then(|e| e.object));

    // Still responsive to commands after 10,000 panics.
    ui_end.send(UiCommand::Run(Run::Pause));
    assert!(w.pump(DT));
    ui.drain(&ui_end);
    ui_end.send(UiCommand::Run(Run::StepTick));
    assert!(w.pump(DT));
    ui.drain(&ui_end);
    let suspensions: Vec<&SuspendReason> = ui
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Suspended(s) => Some(&s.reason),
            _ => None,
        })
        .collect();
    assert!(matches!(
        suspensions.as_slice(),
        [SuspendReason::Pause, SuspendReason::StepTick]
    ));
    assert_eq!(ui.tick(), 221);
    // Policy Disable keeps every object: the newest view still shows 10,000.
    assert_eq!(ui.objects, 10_000);
}

/// The `summary {json}` line of a soak.
fn soak_summary(stdout: &str) -> Value {
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("summary "))
        .expect("a summary line");
    serde_json::from_str(line).expect("summary is JSON")
}

#[test]
fn a_short_soak_of_the_demo_holds_memory_flat_once_every_buffer_is_full() {
    // The CI version of `stepframe soak assets/scenes/demo.ron --ticks 1000000`:
    // the same buffers, made small enough to fill within the run.
    let out = stepframe(&[
        "soak",
        "assets/scenes/demo.ron",
        "--ticks",
        "20000",
        "--telemetry-frames",
        "3000",
        "--keyframe-every",
        "60",
        "--retention-frames",
        "1800",
        "--pose-budget-mib",
        "4",
        "--max-growth-mib",
        "8",
        "--report-every",
        "5000",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    let s = soak_summary(&stdout);
    assert_eq!(s["ticks"], 20_000);
    assert_eq!(s["frames"], 20_000);
    // Warm-up waits until every ring has been written all the way round: the
    // 3,000-frame telemetry ring owns fewer than 6,000 slots (VecDeque
    // doubles), the history's call log of 1,800 + 60 frames is walked after
    // 3,720, and 4 MiB of poses (~150 bodies, ~3.6 KB a tick: ~1,100 ticks)
    // after ~2,200.
    let warm = s["warmup_tick"].as_u64().expect("warm-up tick");
    assert!((3720..6000).contains(&warm), "{warm}");
    assert_eq!(s["telemetry_ring"], 3000);
    assert_eq!(s["keyframes"], 30);
    assert!(s["pose_bytes"].as_u64().expect("bytes") <= 4 << 20);
    assert!(s["growth_kib"].as_u64().expect("growth") <= 8 * 1024, "{s}");
    assert_eq!(s["errors"], 0);
    assert!(stdout.contains("soak: memory flat after warm-up"));
}

#[test]
fn the_generated_panic_scene_panics_once_per_behaviour_where_it_says() {
    // `stepframe soak --generate-panics N --panic-every K --panic-from T`
    // (the documented 10,000-panic worker soak) writes this scene: behaviour
    // j on object j / 10 + 1, in hook j mod 5 of (Update, FlowTick,
    // FixedUpdate, Routine, Present), due at tick T + j K.
    let text = stepframe_app::soak::panic_scene(40, 3, 2);
    let registry = stepframe_app::player::registry(Path::new("panics.ron"));
    let scene = Scene::parse(&text, Path::new("panics.ron"), &registry).expect("parses");
    assert_eq!(scene.objects.len(), 4);
    let mut p = stepframe_core::Pipeline::new(stepframe_core::TimeSettings::default());
    p.load_scene(&scene, &registry).expect("loads");
    let mut errors = Vec::new();
    for _ in 0..130 {
        p.step_frame(DT);
        errors.extend(p.drain_log());
    }
    assert_eq!(errors.len(), 40, "{errors:#?}");
    let hooks = [
        HookKind::Update,
        HookKind::FlowTick,
        HookKind::FixedUpdate,
        HookKind::Routine,
        HookKind::Present,
    ];
    let mut got: Vec<(u64, HookKind, u64)> = errors
        .iter()
        .map(|e| (e.object.expect("object").0, e.hook.expect("hook"), e.tick))
        .collect();
    got.sort_by_key(|g| (g.2, g.0));
    let want: Vec<(u64, HookKind, u64)> = (0..40u64)
        .map(|j| (j / 10 + 1, hooks[(j % 5) as usize], 2 + 3 * j))
        .collect();
    assert_eq!(got, want);
    // Due within a run of T ticks: those with tick < T (the last, tick 119,
    // fires in frame 120 at the latest).
    assert_eq!(stepframe_app::soak::panics_due(40, 3, 2, 120), 40);
    assert_eq!(stepframe_app::soak::panics_due(40, 3, 2, 119), 39);
    assert_eq!(stepframe_app::soak::panics_due(40, 3, 2, 2), 0);
}

#[test]
fn a_soak_that_could_never_reach_its_ticks_is_refused_or_gives_up() {
    let dir = scratch("soak-never-ends");
    let scene = |name: &str, time_scale: &str| {
        let path = dir.join(format!("{name}.ron"));
        std::fs::write(
            &path,
            format!(
                "(settings: (time: (time_scale: {time_scale})), objects: [(id: 1, name: \"A\")])\n"
            ),
        )
        .expect("write");
        path
    };
    // Time scale 0: no frame feeds the stepper, so no tick ever runs. Both
    // modes refuse it before starting (they used to spin forever).
    let frozen = scene("frozen", "0.0");
    for mode in [&[][..], &["--worker"][..]] {
        let mut args = vec!["soak", path_str(&frozen), "--ticks", "100", "--warmup", "1"];
        args.extend_from_slice(mode);
        let out = support::stepframe_within(&args, 60)
            .unwrap_or_else(|| panic!("{args:?} did not end within a minute"));
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains("no tick ever runs"),
            "{}",
            text(&out.stderr)
        );
    }
    // Time scale 1e-7: a 1/60 s frame feeds one flick, and a tick needs
    // 11,760,000 of them. The no-progress guard gives up after 100,000 frames.
    let crawl = scene("crawl", "0.0000001");
    let out = support::stepframe_within(
        &["soak", path_str(&crawl), "--ticks", "100", "--warmup", "1"],
        120,
    )
    .expect("the soak ends");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains("no tick for 100000 frames in a row"),
        "{}",
        text(&out.stderr)
    );
}
