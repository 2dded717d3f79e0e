//! Hunting a divergence: `trace-diff` names what differs, object by object and
//! field by field, with ULP distances, and subsystem hashes name the state
//! that changed first, in `trace-diff` and in the sync test.
//!
//! The field-level tests compare traces written by hand here, so every
//! expected value (each field, each ULP distance) is worked out in this file,
//! not taken from the code under test. ULPs by hand: between 1 and 2 the f32
//! step is 2^-23, so `1.0` and `1.0000001` are 1 apart; `-0.5` and `-0.25`
//! are one binade apart, 2^23 = 8,388,608 steps; `-0.0` is one step below
//! `0.0`.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Value, json};
use stepframe_app::compare::tick::{ContactsDiff, FieldDiff, ObjectDiff, SubsystemDiff, TickDiff};
use stepframe_app::player::{FramePacer, Pacing, RunFailure, RunLength, RunPlan, run_plan};
use stepframe_app::tools::trace_diff::{DiffOptions, TickRange, diff_traces_with};
use stepframe_app::tools::{Sides, TraceDiff, diff_traces};
use stepframe_core::{
    Behaviour, Ctx, Pipeline, Registry, Scene, StableHasher, TimeSettings, TraceWriter,
};

mod support;
use support::{code, path_str, scratch, stdout, stepframe};

/// Tick 1, the same in both hand-written traces apart from `frame`.
const TICK_1_A: &str = r#"{"tick":1,"sim_time":0.0,"frame":1,"inputs":[],"contacts":[],"poses":[{"id":3,"x":1.0,"y":2.0,"angle":0.0,"vx":0.0,"vy":-0.5,"w":0.0},{"id":5,"x":4.0,"y":0.0,"angle":0.0,"vx":0.0,"vy":0.0,"w":0.0}],"hash":"00000000000000a1"}"#;
const TICK_1_B: &str = r#"{"tick":1,"sim_time":0.0,"frame":3,"inputs":[],"contacts":[],"poses":[{"id":3,"x":1.0,"y":2.0,"angle":0.0,"vx":0.0,"vy":-0.5,"w":0.0},{"id":5,"x":4.0,"y":0.0,"angle":0.0,"vx":0.0,"vy":0.0,"w":0.0}],"hash":"00000000000000a1"}"#;
/// Tick 2 of the first trace: Space pressed, #3 touching #5.
const TICK_2_A: &str = r#"{"tick":2,"sim_time":0.016666666666666666,"frame":2,"inputs":[{"key":"Space","value":1.0}],"contacts":[{"a":3,"b":5,"kind":"started"}],"poses":[{"id":3,"x":1.0,"y":2.0,"angle":0.0,"vx":0.0,"vy":-0.5,"w":0.0},{"id":5,"x":4.0,"y":0.0,"angle":0.0,"vx":0.0,"vy":0.0,"w":0.0}],"hash":"00000000000000aa"}"#;
/// Tick 2 of the second: no input, #3 touching #6 instead of #5; #3's x one
/// step up, its angle -0.0, its vy halved.
const TICK_2_B: &str = r#"{"tick":2,"sim_time":0.016666666666666666,"frame":6,"inputs":[],"contacts":[{"a":3,"b":6,"kind":"started"}],"poses":[{"id":3,"x":1.0000001,"y":2.0,"angle":-0.0,"vx":0.0,"vy":-0.25,"w":0.0},{"id":6,"x":4.0,"y":0.0,"angle":0.0,"vx":0.0,"vy":0.0,"w":0.0}],"hash":"00000000000000bb"}"#;

fn lines(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn field(name: &str, a: Value, b: Value, ulps: Option<u64>) -> FieldDiff {
    FieldDiff {
        field: name.into(),
        a: Some(a),
        b: Some(b),
        ulps,
    }
}

fn differs(d: Result<TraceDiff, impl std::fmt::Debug>) -> TickDiff {
    match d {
        Ok(TraceDiff::Differs(d)) => d.first,
        other => panic!("expected a difference, got {other:?}"),
    }
}

#[test]
fn trace_diff_names_every_differing_object_field_with_both_values_and_ulps() {
    let a = lines(&[TICK_1_A, TICK_2_A]);
    let b = lines(&[TICK_1_B, TICK_2_B]);
    let expected = TickDiff {
        line: 2,
        tick: 2,
        has_subsystems: false,
        subsystems: vec![],
        objects: vec![ObjectDiff {
            id: 3,
            fields: vec![
                field("x", json!(1.0), json!(1.0000001), Some(1)),
                field("angle", json!(0.0), json!(-0.0), Some(1)),
                field("vy", json!(-0.5), json!(-0.25), Some(8_388_608)),
            ],
        }],
        only_in_a: vec![5],
        only_in_b: vec![6],
        inputs: Some([json!([{"key": "Space", "value": 1.0}]), json!([])]),
        contacts: Some(ContactsDiff {
            only_in_a: vec![json!({"a": 3, "b": 5, "kind": "started"})],
            only_in_b: vec![json!({"a": 3, "b": 6, "kind": "started"})],
        }),
        fields: vec![field(
            "hash",
            json!("00000000000000aa"),
            json!("00000000000000bb"),
            None,
        )],
    };
    assert_eq!(differs(diff_traces(&a, &b)), expected);
}

#[test]
fn the_text_report_lists_each_difference_in_trace_order() {
    let dir = scratch("text-report");
    let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    std::fs::write(&a, lines(&[TICK_1_A, TICK_2_A])).expect("write");
    std::fs::write(&b, lines(&[TICK_1_B, TICK_2_B])).expect("write");
    let out = stepframe(&["trace-diff", path_str(&a), path_str(&b)]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    // Inputs come first in the line; 1 + 1 contact group + 3 fields of #3 +
    // #5 + #6 + hash = 8 differences, the first named, 7 more.
    let want = [
        "first difference at tick 2 (line 2): the inputs differ, and 7 more",
        r#"  inputs [{"key":"Space","value":1.0}] vs []"#,
        r#"  contacts only in the first trace: {"a":3,"b":5,"kind":"started"}"#,
        r#"  contacts only in the second trace: {"a":3,"b":6,"kind":"started"}"#,
        "  #3: x 1.0 vs 1.0000001 (1 ulp), angle 0.0 vs -0.0 (1 ulp), vy -0.5 vs -0.25 (8388608 ulps)",
        "  only in the first trace: #5",
        "  only in the second trace: #6",
        r#"  hash "00000000000000aa" vs "00000000000000bb""#,
        "  (no subsystem hashes on both sides: write the traces with `play --trace-subsystems` to see which state changed first)",
    ];
    assert_eq!(stdout(&out).lines().collect::<Vec<_>>(), want);

    // Without inputs and contacts differing, the headline is the first pose field.
    let b2 = TICK_2_A
        .replace(
            r#""vy":-0.5,"w":0.0},{"id":5"#,
            r#""vy":-0.25,"w":0.0},{"id":5"#,
        )
        .replace("00aa", "00bb");
    std::fs::write(&b, lines(&[TICK_1_B, &b2])).expect("write");
    let out = stepframe(&["trace-diff", path_str(&a), path_str(&b)]);
    assert_eq!(
        stdout(&out).lines().next(),
        Some("first difference at tick 2 (line 2): #3.vy -0.5 vs -0.25 (8388608 ulps), and 1 more")
    );
}

/// Subsystem hashes of a hand-written line: `clock`, `input`, behaviours by
/// object, `rng`, `physics`.
fn with_subsystems(line: &str, behaviours: &[(u64, &str)], rng: &str, physics: &str) -> String {
    let behaviours: Vec<String> = behaviours
        .iter()
        .map(|(id, h)| format!(r#"{{"id":{id},"hash":"{h}"}}"#))
        .collect();
    format!(
        r#"{},"subsystems":{{"clock":"00000000000000c1","input":"00000000000000d1","behaviours":[{}],"rng":"{rng}","physics":"{physics}"}}}}"#,
        line.strip_suffix('}').expect("a JSON object"),
        behaviours.join(",")
    )
}

#[test]
fn subsystems_are_reported_in_tick_order_and_the_first_leads() {
    // Tick 1: only the session RNG differs (not part of the tick hash).
    // Tick 2: #3's behaviour state, a behaviour only the second run has (#9),
    // the RNG and the physics world differ.
    let a = lines(&[
        &with_subsystems(
            TICK_1_A,
            &[(3, "0000000000000031")],
            "00000000000000e1",
            "00000000000000f1",
        ),
        &with_subsystems(
            TICK_2_A,
            &[(3, "0000000000000032")],
            "00000000000000e2",
            "00000000000000f2",
        ),
    ]);
    let b = lines(&[
        &with_subsystems(
            TICK_1_B,
            &[(3, "0000000000000031")],
            "00000000000000e9",
            "00000000000000f1",
        ),
        &with_subsystems(
            TICK_2_A,
            &[(3, "0000000000000039"), (9, "0000000000000099")],
            "00000000000000e8",
            "00000000000000f8",
        ),
    ]);
    let first = differs(diff_traces(&a, &b));
    assert_eq!((first.tick, first.has_subsystems), (1, true));
    let rng = |a: &str, b: &str| SubsystemDiff {
        subsystem: "rng".into(),
        object: None,
        a: Some(a.into()),
        b: Some(b.into()),
    };
    assert_eq!(
        first.subsystems,
        vec![rng("00000000000000e1", "00000000000000e9")]
    );
    assert_eq!(first.items(), 1);
    assert_eq!(
        first.headline(Sides::TRACES),
        "first difference at tick 1 (line 1): the session RNG changed first"
    );

    let all = DiffOptions {
        all: true,
        subsystems: true,
    };
    let TraceDiff::Differs(d) = diff_traces_with(&a, &b, all).expect("parses") else {
        panic!("expected a difference");
    };
    let range = &d.ranges[0];
    assert_eq!((range.first_tick, range.last_tick), (1, 2));
    // Only the first line of a range is kept; diff the second on its own.
    let second = differs(diff_traces(
        &lines(&[a.lines().nth(1).expect("tick 2")]),
        &lines(&[b.lines().nth(1).expect("tick 2")]),
    ));
    assert_eq!(
        second.subsystems,
        vec![
            SubsystemDiff {
                subsystem: "behaviours".into(),
                object: Some(3),
                a: Some("0000000000000032".into()),
                b: Some("0000000000000039".into()),
            },
            SubsystemDiff {
                subsystem: "behaviours".into(),
                object: Some(9),
                a: None,
                b: Some("0000000000000099".into()),
            },
            rng("00000000000000e2", "00000000000000e8"),
            SubsystemDiff {
                subsystem: "physics".into(),
                object: None,
                a: Some("00000000000000f2".into()),
                b: Some("00000000000000f8".into()),
            },
        ]
    );
    let report = second.report(Sides::TRACES);
    let report: Vec<&str> = report.lines().collect();
    assert_eq!(
        report[..3],
        [
            "first difference at tick 2 (line 1): behaviour state of #3 changed first, and 3 more",
            "  changed first: behaviour state of #3 (0000000000000032 vs 0000000000000039)",
            "  also changed: behaviour state of #9 ((absent) vs 0000000000000099); the session RNG (00000000000000e2 vs 00000000000000e8); the physics world (00000000000000f2 vs 00000000000000f8)",
        ]
    );

    // A trace with subsystem hashes still matches a default one of the same run.
    let plain = lines(&[TICK_1_A, TICK_2_A]);
    assert_eq!(
        diff_traces(&a, &plain),
        Ok(TraceDiff::Identical { ticks: 2 })
    );
}

#[test]
fn all_lists_every_diverging_range_and_json_writes_the_same() {
    // Six ticks of the first trace; the second differs on ticks 2, 3 and 5 and
    // has a seventh.
    let tick = |n: u64, vy: &str| {
        format!(
            r#"{{"tick":{n},"sim_time":0.0,"frame":{n},"inputs":[],"contacts":[],"poses":[{{"id":3,"x":1.0,"y":2.0,"angle":0.0,"vx":0.0,"vy":{vy},"w":0.0}}],"hash":"00000000000000a1"}}"#
        )
    };
    let a: Vec<String> = (1..=6).map(|n| tick(n, "-0.5")).collect();
    let mut b = a.clone();
    b[1] = tick(2, "-0.25");
    b[2] = tick(3, "-0.25");
    b[4] = tick(5, "-1.0");
    b.push(tick(7, "-0.5"));
    let dir = scratch("all-ranges");
    let (pa, pb) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    std::fs::write(&pa, a.join("\n") + "\n").expect("write");
    std::fs::write(&pb, b.join("\n") + "\n").expect("write");

    let out = stepframe(&["trace-diff", path_str(&pa), path_str(&pb), "--all"]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    let tail: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("diverging"))
        .collect();
    // -0.5 to -1.0: one binade up, 2^23 steps.
    assert_eq!(
        tail,
        [
            "diverging ticks (2 ranges):",
            "  ticks 2..=3 (2 ticks): #3.vy -0.5 vs -0.25 (8388608 ulps)",
            "  tick 5 (1 tick): #3.vy -0.5 vs -1.0 (8388608 ulps)",
            "the lengths differ: 6 ticks vs 7 ticks",
        ]
    );

    let out = stepframe(&[
        "trace-diff",
        path_str(&pa),
        path_str(&pb),
        "--all",
        "--json",
    ]);
    assert_eq!(code(&out), 1);
    let v: Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
    assert_eq!(v["result"], "differs");
    assert_eq!(v["first"]["tick"], 2);
    assert_eq!(
        v["first"]["objects"],
        json!([{"id": 3, "fields": [{"field": "vy", "a": -0.5, "b": -0.25, "ulps": 8388608}]}])
    );
    let ranges: Vec<(u64, u64)> = v["ranges"]
        .as_array()
        .expect("ranges")
        .iter()
        .map(|r| {
            (
                r["first_tick"].as_u64().expect("tick"),
                r["last_tick"].as_u64().expect("tick"),
            )
        })
        .collect();
    assert_eq!(ranges, vec![(2, 3), (5, 5)]);
    assert_eq!(v["lengths"], json!([6, 7]));

    // And for identical traces, the documented line and its JSON twin.
    let out = stepframe(&["trace-diff", path_str(&pa), path_str(&pa)]);
    assert_eq!(
        (code(&out), stdout(&out).trim()),
        (0, "identical (6 ticks)")
    );
    let out = stepframe(&["trace-diff", path_str(&pa), path_str(&pa), "--json"]);
    assert_eq!(code(&out), 0);
    let v: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(v, json!({"result": "identical", "ticks": 6}));
}

#[test]
fn range_structs_carry_lines_and_ticks() {
    // The library form of --all, for tools that link the crate.
    let a = lines(&[TICK_1_A, TICK_2_A]);
    let b = lines(&[TICK_1_B, TICK_2_B]);
    let all = DiffOptions {
        all: true,
        subsystems: true,
    };
    let TraceDiff::Differs(d) = diff_traces_with(&a, &b, all).expect("parses") else {
        panic!("expected a difference");
    };
    assert_eq!(
        d.ranges,
        vec![TickRange {
            first_line: 2,
            last_line: 2,
            first_tick: 2,
            last_tick: 2,
            diff: d.first.clone(),
        }]
    );
    assert_eq!(d.lengths, None);
}

/// Breaks determinism on purpose: from tick 5 on, FixedUpdate stores the
/// wall-clock time since the session began, and the state hash includes it.
/// No two calls read the same nanosecond, so a re-simulated tick (or a second
/// run) disagrees with the first.
#[derive(Clone, Debug)]
struct WallClock {
    since: Instant,
    nanos: u64,
}

impl Behaviour for WallClock {
    fn name(&self) -> &str {
        "WallClock"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick >= 5 {
            self.nanos = self.since.elapsed().as_nanos() as u64;
        }
    }
    fn hash_state(&self, h: &mut StableHasher) {
        h.write_u64(self.nanos);
    }
}

/// The bundled behaviours plus `WallClock`.
fn registry() -> Registry {
    let mut r = stepframe_plugins::registry();
    r.register("WallClock", "()", |_| {
        let b: Box<dyn Behaviour> = Box::new(WallClock {
            since: Instant::now(),
            nanos: 0,
        });
        Ok(b)
    });
    r
}

/// A falling ball (#2) and a bodyless object reading the wall clock (#7).
const WALL_CLOCK_SCENE: &str = r#"#![enable(implicit_some)]
(
    objects: [
        (id: 1, name: "Ground", transform: (x: 0.0, y: -5.0), body: (kind: Fixed, shapes: [Cuboid(hx: 5.0, hy: 0.5)])),
        (id: 2, name: "Ball", body: (shapes: [Circle(radius: 0.5)])),
        (id: 7, name: "Stopwatch", behaviours: [(name: "WallClock", params: ())]),
    ],
)
"#;

fn wall_clock_session(registry: &Registry) -> Pipeline {
    let scene =
        Scene::parse(WALL_CLOCK_SCENE, Path::new("wall-clock.ron"), registry).expect("scene");
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, registry).expect("loads");
    p
}

fn plan(frames: u64, sync_test: Option<u64>) -> RunPlan {
    RunPlan {
        settings: TimeSettings::default(),
        pacer: FramePacer::new(&Pacing::Rate(60.0), &[]).expect("pacer"),
        length: RunLength::Frames(frames),
        realtime: false,
        sync_test,
    }
}

fn the_wall_clock_behaviour(s: &SubsystemDiff) {
    assert_eq!(
        (s.subsystem.as_str(), s.object),
        ("behaviours", Some(7)),
        "{s:?}"
    );
}

#[test]
fn the_sync_test_names_the_object_and_subsystem_that_read_the_wall_clock() {
    let registry = registry();
    let p = wall_clock_session(&registry);
    let err = run_plan(p, plan(20, Some(2)), &mut |_, _| Ok(()), &mut |_| {})
        .expect_err("wall-clock state must be caught");
    let RunFailure::SyncMismatch { tick, report, .. } = &err else {
        panic!("expected a mismatch, got {err}");
    };
    // Frame 5 rolls back to the boundary after tick 3 and re-runs ticks 4
    // (state still 0) and 5 (a new reading): the first mismatch is tick 5.
    assert_eq!(*tick, 5);
    let report = report.as_ref().expect("a field-level report");
    assert_eq!(report.tick, 5);
    the_wall_clock_behaviour(&report.subsystems[0]);
    // The ball falls the same in both runs: only #7's state and the hash part.
    assert!(report.objects.is_empty(), "{report:?}");
    assert_eq!(report.subsystems.len(), 1, "{report:?}");
    let message = err.to_string();
    assert!(
        message
            .contains("first difference at tick 5 (line 5): behaviour state of #7 changed first"),
        "{message}"
    );
    assert!(
        message.contains("changed first: behaviour state of #7 ("),
        "{message}"
    );
}

#[test]
fn trace_diff_names_the_object_and_subsystem_that_read_the_wall_clock() {
    let registry = registry();
    let dir = scratch("wall-clock");
    let mut paths = Vec::new();
    for run in ["a", "b"] {
        let mut p = wall_clock_session(&registry);
        let writer = Arc::new(Mutex::new(
            TraceWriter::new(Vec::<u8>::new()).with_subsystem_hashes(),
        ));
        p.set_tick_observer(Some(Box::new(writer.clone())));
        run_plan(p, plan(10, None), &mut |_, _| Ok(()), &mut |_| {}).expect("runs");
        let trace =
            String::from_utf8(writer.lock().expect("lock").get_ref().clone()).expect("UTF-8");
        let path = dir.join(format!("{run}.jsonl"));
        std::fs::write(&path, trace).expect("write");
        paths.push(path);
    }
    let (a, b) = (
        std::fs::read_to_string(&paths[0]).expect("read"),
        std::fs::read_to_string(&paths[1]).expect("read"),
    );
    let first = differs(diff_traces(&a, &b));
    // Ticks 1 to 4 agree (the state is still 0); tick 5 stores a reading.
    assert_eq!(first.tick, 5);
    the_wall_clock_behaviour(&first.subsystems[0]);
    assert!(first.objects.is_empty(), "{first:?}");

    let out = stepframe(&["trace-diff", path_str(&paths[0]), path_str(&paths[1])]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    assert!(
        text.starts_with(
            "first difference at tick 5 (line 5): behaviour state of #7 changed first, and 1 more\n"
        ),
        "{text}"
    );
    assert!(text.contains("\n  hash \""), "{text}");
}

/// Plays the demo with `--trace-subsystems` and returns the trace.
fn demo_subsystem_trace(dir: &Path, name: &str, extra: &[&str]) -> String {
    let trace = dir.join(format!("{name}.jsonl"));
    let mut args = vec![
        "play",
        "assets/scenes/demo.ron",
        "--trace",
        path_str(&trace),
        "--trace-subsystems",
    ];
    args.extend_from_slice(extra);
    let out = stepframe(&args);
    assert_eq!(
        code(&out),
        0,
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&trace).expect("trace written")
}

#[test]
fn subsystem_hashes_do_not_depend_on_pacing() {
    // The demo replays its recording (input memory, the player's behaviour
    // state, scripts, the RNG and physics all move). 300 frames at 60 Hz and
    // 720 at 144 Hz end on tick 300 exactly (720 × 4.9M = 300 × 11.76M
    // flicks); a 1 s stall at frame 100 runs 4 of its 15 owed ticks, so 300
    // frames then reach tick 303.
    let dir = scratch("subsystems-pacing");
    let rec = ["--input", "assets/recordings/demo.ron"];
    let at60 = demo_subsystem_trace(&dir, "60", &[&rec[..], &["--frames", "300"]].concat());
    assert!(
        at60.lines()
            .all(|l| l.contains(r#","subsystems":{"clock":""#))
    );
    let at144 = demo_subsystem_trace(
        &dir,
        "144",
        &[&rec[..], &["--frames", "720", "--pacing", "144"]].concat(),
    );
    assert_eq!(
        diff_traces(&at60, &at144),
        Ok(TraceDiff::Identical { ticks: 300 })
    );
    let stalled = demo_subsystem_trace(
        &dir,
        "stall",
        &[&rec[..], &["--frames", "300", "--stall", "100:1.0"]].concat(),
    );
    assert_eq!(
        diff_traces(&at60, &stalled),
        Ok(TraceDiff::Length {
            common: 300,
            a_ticks: 300,
            b_ticks: 303
        })
    );
}

#[test]
fn fixed_input_memory_is_named_when_the_input_differs() {
    // The recording's first event presses ArrowRight at tick 30; without it
    // the run is the same up to tick 29.
    let dir = scratch("input-memory");
    let with = demo_subsystem_trace(
        &dir,
        "with",
        &["--input", "assets/recordings/demo.ron", "--frames", "40"],
    );
    let without = demo_subsystem_trace(&dir, "without", &["--frames", "40"]);
    let first = differs(diff_traces(&with, &without));
    assert_eq!(first.tick, 30);
    assert_eq!(first.subsystems[0].subsystem, "input");
    assert_eq!(
        first.inputs,
        Some([json!([{"key": "ArrowRight", "value": 1.0}]), json!([])])
    );
    assert!(
        first.headline(Sides::TRACES).starts_with(
            "first difference at tick 30 (line 30): fixed input memory changed first, and "
        ),
        "{}",
        first.report(Sides::TRACES)
    );
}
