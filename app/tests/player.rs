//! The headless tools through their command line: `stepframe play` and
//! `stepframe trace-diff`, run as a user runs them (`check.rs` has `stepframe
//! check`, `divergence.rs` the field-level report and the subsystem hashes).
//!
//! Determinism rule used throughout: a replay run stops once the recording's
//! 900 ticks are complete; a frame may complete a few ticks more, so traces are
//! compared on ticks 1..=900, each line without its `frame` member (the only
//! field that depends on pacing), byte for byte.

use std::path::Path;

use stepframe_core::Recording;

mod support;
use support::{
    assert_contains, code, path_str, root, scratch, stderr, stdout, stepframe, stepframe_saying,
    stepframe_writing,
};

const DEMO: &str = "assets/scenes/demo.ron";
const DEMO_INPUT: &str = "assets/recordings/demo.ron";
const CONTRACT: &str = "assets/scenes/contract.ron";
const STRESS: &str = "assets/scenes/stress.ron";
/// Length of the demo recording, ticks (15 s at 60 Hz).
const DEMO_TICKS: usize = 900;

/// Ticks 1..=n of a trace, `frame` removed from every line.
fn without_frame(trace: &str, n: usize) -> Vec<String> {
    trace
        .lines()
        .take(n)
        .map(|line| {
            let at = line.find(",\"frame\":").expect("every line has a frame");
            let rest = &line[at + 9..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            format!("{}{}", &line[..at], &rest[digits..])
        })
        .collect()
}

/// Plays the demo recording with extra arguments and returns its trace.
fn demo_trace(dir: &Path, name: &str, extra: &[&str]) -> String {
    let trace = dir.join(format!("{name}.jsonl"));
    let mut args = vec![
        "play",
        DEMO,
        "--input",
        DEMO_INPUT,
        "--trace",
        path_str(&trace),
    ];
    args.extend_from_slice(extra);
    let out = stepframe(&args);
    assert_eq!(code(&out), 0, "{name}: {}", stderr(&out));
    std::fs::read_to_string(&trace).expect("trace written")
}

#[test]
fn play_runs_a_scene_headless_and_prints_a_summary() {
    let out = stepframe(&["play", CONTRACT, "--frames", "60"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let s = stdout(&out);
    // 60 frames of 1/60 s at 60 Hz: one tick each, nothing dropped.
    assert_contains(
        &s,
        "60 frames, 60 ticks (1 s simulated), dropped 0 s, final hash ",
    );
    assert_contains(&s, "errors: none");
}

#[test]
fn seconds_and_pacing_files_set_the_run_length() {
    // One second of 30 Hz frames: 30 frames, two 60 Hz ticks each.
    let out = stepframe(&["play", CONTRACT, "--seconds", "1", "--pacing", "30"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("30 frames, 60 ticks (1 s simulated)"));

    // Frames of 50, 50 and 100 ms owe 3, 3 and 6 ticks; the cap of 4 runs 4 of
    // the last 6 and drops 2 (1/30 s): 10 ticks in 3 frames.
    let dir = scratch("dt-file");
    let dts = dir.join("dts.txt");
    std::fs::write(&dts, "# a hitch at the end\n0.05\n0.05\n0.1\n").expect("write");
    let pacing = format!("file:{}", path_str(&dts));
    let out = stepframe(&["play", CONTRACT, "--pacing", &pacing]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "3 frames, 10 ticks (0.16666666666666666 s simulated), dropped 0.03333333333333333 s"
        ),
        "{}",
        stdout(&out)
    );
}

#[test]
fn the_demo_recording_gives_identical_traces_at_every_pacing() {
    let dir = scratch("pacings");
    let reference = demo_trace(&dir, "60", &[]);
    let expected = without_frame(&reference, DEMO_TICKS);
    assert_eq!(expected.len(), DEMO_TICKS);
    // The recording is really replayed: the tap at tick 170 is two edges.
    assert!(
        reference
            .lines()
            .nth(169)
            .expect("tick 170")
            .contains(r#""inputs":[{"key":"Space","value":1.0},{"key":"Space","value":0.0}]"#)
    );
    let runs: Vec<(String, Vec<&str>)> = vec![
        ("30 Hz".into(), vec!["--pacing", "30"]),
        ("144 Hz".into(), vec!["--pacing", "144"]),
        ("irregular:1".into(), vec!["--pacing", "irregular:1"]),
        ("irregular:2".into(), vec!["--pacing", "irregular:2"]),
        ("irregular:3".into(), vec!["--pacing", "irregular:3"]),
        ("irregular:4".into(), vec!["--pacing", "irregular:4"]),
        ("irregular:5".into(), vec!["--pacing", "irregular:5"]),
        ("1 s stall".into(), vec!["--stall", "100:1.0"]),
        ("5 s stall".into(), vec!["--stall", "100:5.0"]),
        (
            "stalls and irregular pacing".into(),
            vec![
                "--pacing",
                "irregular:9",
                "--stall",
                "50:1",
                "--stall",
                "400:5",
            ],
        ),
    ];
    for (i, (name, args)) in runs.iter().enumerate() {
        let trace = demo_trace(&dir, &format!("run{i}"), args);
        let got = without_frame(&trace, DEMO_TICKS);
        assert_eq!(got.len(), DEMO_TICKS, "{name}: every run reaches tick 900");
        if let Some(k) = (0..DEMO_TICKS).find(|&k| got[k] != expected[k]) {
            panic!(
                "{name}: tick {} differs\n  {}\n  {}",
                k + 1,
                expected[k],
                got[k]
            );
        }
    }
}

#[test]
fn accumulator_and_step_counting_give_identical_traces() {
    let dir = scratch("strategies");
    for pacing in ["60", "144", "irregular:3"] {
        let a = demo_trace(
            &dir,
            &format!("acc-{pacing}"),
            &["--pacing", pacing, "--strategy", "accumulator"],
        );
        let b = demo_trace(
            &dir,
            &format!("sc-{pacing}"),
            &["--pacing", pacing, "--strategy", "step-counting"],
        );
        // Same pacing, same tick sequence: even the frame fields agree.
        assert!(a == b, "pacing {pacing}: strategies differ");
    }
}

#[test]
fn trace_diff_ignores_frame_and_names_the_first_differing_tick_and_field() {
    let dir = scratch("trace-diff");
    let at60 = dir.join("60.jsonl");
    let at144 = dir.join("144.jsonl");
    std::fs::write(&at60, demo_trace(&dir, "a", &[])).expect("write");
    std::fs::write(&at144, demo_trace(&dir, "b", &["--pacing", "144"])).expect("write");
    // 900 ticks at 144 Hz end exactly on frame 2160 (2160 × 4.9M = 900 × 11.76M flicks).
    let out = stepframe(&["trace-diff", path_str(&at60), path_str(&at144)]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(stdout(&out).trim(), "identical (900 ticks)");

    // Change the player's x (object 20) on tick 120, and the hash of tick 300.
    let text = std::fs::read_to_string(&at144).expect("read");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let line = &lines[119];
    let at = line.find(r#"{"id":20,"x":"#).expect("player pose") + r#"{"id":20,"x":"#.len();
    let end = at + line[at..].find(',').expect("x ends");
    let old_x = line[at..end].to_string();
    lines[119] = format!("{}12345.5{}", &line[..at], &line[end..]);
    let h = lines[299].rfind(r#""hash":""#).expect("hash") + 8;
    lines[299].replace_range(h..h + 16, "0123456789abcdef");
    let modified = dir.join("modified.jsonl");
    std::fs::write(&modified, lines.join("\n") + "\n").expect("write");
    let out = stepframe(&["trace-diff", path_str(&at60), path_str(&modified)]);
    assert_eq!(code(&out), 1);
    // The distance in f32 steps, counted here from the bit patterns: the
    // player is left of the origin, so from its x up to -0.0 (the bits of its
    // magnitude), one step to 0.0, and up to 12345.5 (that value's bits).
    let old: f32 = old_x.parse().expect("an f32");
    assert!(old < 0.0, "the player stands left of the origin: {old}");
    let ulps = u64::from((-old).to_bits()) + 1 + u64::from(12345.5f32.to_bits());
    let report = stdout(&out);
    let report: Vec<&str> = report.lines().collect();
    assert_eq!(
        report[..2],
        [
            format!(
                "first difference at tick 120 (line 120): #20.x {old_x} vs 12345.5 ({ulps} ulps)"
            ),
            format!("  #20: x {old_x} vs 12345.5 ({ulps} ulps)"),
        ]
    );

    // Only the hash differs: the report names it.
    let mut only_hash: Vec<String> = text.lines().map(str::to_string).collect();
    only_hash[299] = lines[299].clone();
    std::fs::write(&modified, only_hash.join("\n") + "\n").expect("write");
    let out = stepframe(&["trace-diff", path_str(&at60), path_str(&modified)]);
    assert_eq!(code(&out), 1);
    let first = stdout(&out).lines().next().unwrap_or_default().to_string();
    assert!(
        first.starts_with("first difference at tick 300 (line 300): hash \""), // value follows
        "{first}"
    );
    assert!(first.ends_with("vs \"0123456789abcdef\""), "{first}");

    // A prefix: same ticks as far as it goes, then the lengths differ.
    let short = dir.join("short.jsonl");
    let first_500: Vec<&str> = text.lines().take(500).collect();
    std::fs::write(&short, first_500.join("\n") + "\n").expect("write");
    let out = stepframe(&["trace-diff", path_str(&at60), path_str(&short)]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stdout(&out).trim(),
        "identical for the first 500 ticks, then the lengths differ: 900 ticks vs 500 ticks"
    );

    // Not a trace: exit 2 with file, line and column.
    let junk = dir.join("junk.jsonl");
    std::fs::write(&junk, "{\"tick\":1,\n").expect("write");
    let out = stepframe(&["trace-diff", path_str(&at60), path_str(&junk)]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("junk.jsonl:1:"), "{}", stderr(&out));
}

#[test]
fn sync_test_8_passes_on_the_demo_and_stress_scenes() {
    let out = stepframe(&[
        "play",
        DEMO,
        "--input",
        DEMO_INPUT,
        "--frames",
        "400",
        "--pacing",
        "irregular:2",
        "--sync-test",
        "8",
    ]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("sync test: rolled back 8 ticks every frame"));
    // 2,160 bodies: keep CI quick with 20 frames (each re-simulates >= 8 ticks).
    let out = stepframe(&["play", STRESS, "--frames", "20", "--sync-test", "8"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let s = stdout(&out);
    // Frame f re-simulates min(f, 8) ticks at one tick per frame:
    // 1 + 2 + ... + 8 + 12 × 8 = 132.
    assert_contains(&s, "132 re-simulated ticks matched");
}

#[test]
fn the_sync_test_passes_on_the_soft_body_scene() {
    // Rolling back 8 ticks every frame re-simulates jellies in contact and a
    // loaded rope bridge: every particle must come out the same.
    stepframe_saying(
        &[
            "play",
            "assets/scenes/soft.ron",
            "--frames",
            "120",
            "--pacing",
            "irregular:3",
            "--sync-test",
            "8",
        ],
        "re-simulated ticks matched",
    );
}

#[test]
fn record_input_writes_back_the_ticks_it_replayed() {
    let dir = scratch("record");
    let out_path = dir.join("rec.ron");
    let out = stepframe(&[
        "play",
        DEMO,
        "--input",
        DEMO_INPUT,
        "--pacing",
        "irregular:4",
        "--record-input",
        path_str(&out_path),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let original = Recording::load(&root().join(DEMO_INPUT)).expect("demo recording");
    let recorded = Recording::load(&out_path).expect("recorded file loads");
    assert_eq!(recorded.events, original.events);
    assert_eq!(recorded.fixed_hz, 60);
    // The run stops at the first frame boundary at or after tick 900.
    assert!(
        recorded.ticks >= 900 && recorded.ticks < 904,
        "{}",
        recorded.ticks
    );
}

#[test]
fn telemetry_is_written_as_json_lines_and_csv() {
    let dir = scratch("telemetry");
    let jsonl = dir.join("t.jsonl");
    let csv = dir.join("t.csv");
    for path in [&jsonl, &csv] {
        let out = stepframe(&[
            "play",
            CONTRACT,
            "--frames",
            "6",
            "--fixed-hz",
            "50",
            "--telemetry",
            path_str(path),
        ]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    // 60 Hz frames (11,760,000 flicks) against a 50 Hz tick (14,112,000):
    // frame 1 runs no tick and leaves 11,760,000; frame 2 runs one and leaves
    // 9,408,000; then 7,056,000, 4,704,000, 2,352,000, 0.
    let flicks = 705_600_000.0_f64;
    let left = [
        11_760_000.0,
        9_408_000.0,
        7_056_000.0,
        4_704_000.0,
        2_352_000.0,
        0.0,
    ];
    let text = std::fs::read_to_string(&jsonl).expect("telemetry");
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(rows.len(), 6);
    for (i, row) in rows.iter().enumerate() {
        let frame = i as u64 + 1;
        let ticks = u64::from(frame > 1);
        assert_eq!(row["frame"], frame);
        assert_eq!(row["ticks"], ticks);
        assert_eq!(row["simulation_tick"], frame - 1);
        assert_eq!(row["delta_time"], 11_760_000.0 / flicks);
        assert_eq!(row["accumulator"], left[i] / flicks);
        assert_eq!(row["interpolation_alpha"], left[i] / 14_112_000.0);
        assert_eq!(row["dropped_time"], 0.0);
        assert!(row["fixed_ms_by_priority"].is_object());
        for phase in [
            "physics_ms",
            "update_ms",
            "fixed_ms",
            "flow_ms",
            "present_ms",
        ] {
            assert!(row[phase].as_f64().expect("number") >= 0.0, "{phase}");
        }
    }
    // Keys in the documented order.
    let first = text.lines().next().expect("a line");
    let keys = [
        "frame",
        "delta_time",
        "frame_time",
        "ticks",
        "simulation_tick",
        "simulation_time",
        "accumulator",
        "interpolation_alpha",
        "dropped_time",
        "fixed_ms_by_priority",
        "physics_ms",
        "update_ms",
        "fixed_ms",
        "flow_ms",
        "present_ms",
    ];
    let positions: Vec<usize> = keys
        .iter()
        .map(|k| first.find(&format!("\"{k}\":")).expect("key present"))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{first}");

    let table = std::fs::read_to_string(&csv).expect("csv");
    let mut lines = table.lines();
    assert_eq!(lines.next(), Some(keys.join(",").as_str()));
    let second: Vec<&str> = lines.nth(1).expect("frame 2").split(',').collect();
    assert_eq!(second.len(), keys.len());
    assert_eq!(
        &second[..5],
        &["2", "0.016666666666666666", "0.03333333333333333", "1", "1"]
    );
}

#[test]
fn realtime_follows_the_wall_clock() {
    let started = std::time::Instant::now();
    let out = stepframe(&["play", CONTRACT, "--frames", "12", "--realtime"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // Frame k starts (k - 1)/60 s after the first: the 12th at 11/60 s.
    assert!(started.elapsed().as_secs_f64() >= 11.0 / 60.0);
}

#[test]
fn bad_arguments_and_bad_files_exit_2_with_line_and_column() {
    let dir = scratch("bad");
    for args in [
        vec!["play", CONTRACT, "--pacing", "fast"],
        vec!["play", CONTRACT, "--stall", "0:1"],
        vec!["play", CONTRACT, "--frames", "10", "--seconds", "1"],
        vec!["play", CONTRACT, "--strategy", "sometimes"],
        vec!["play", CONTRACT, "--fixed-hz", "0"],
        vec!["play", "assets/scenes/does-not-exist.ron"],
        vec!["check", "assets/scenes/does-not-exist.ron"],
    ] {
        let out = stepframe(&args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).is_empty(), "{args:?}: a message on stderr");
    }

    // A scene with an unknown field on line 3.
    let scene = dir.join("broken.ron");
    std::fs::write(
        &scene,
        "(\n    objects: [\n        (id: 1, name: \"A\", colour: 3),\n    ],\n)\n",
    )
    .expect("write");
    let out = stepframe(&["play", path_str(&scene), "--frames", "1"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("broken.ron:3:"),
        "line of the bad field: {}",
        stderr(&out)
    );

    // A recording whose second event has a misspelt field on line 4.
    let rec = dir.join("broken-rec.ron");
    std::fs::write(
        &rec,
        "(fixed_hz: 60, ticks: 10, events: [\n  (tick: 1, source: Key(\"A\"), value: 1.0),\n\n  (tick: 2, sorce: Key(\"A\"), value: 0.0),\n])\n",
    )
    .expect("write");
    let out = stepframe(&["play", CONTRACT, "--input", path_str(&rec)]);
    assert_eq!(code(&out), 2);
    assert_contains(&stderr(&out), "broken-rec.ron:4:");

    // A pacing file with a bad third line, the word starting in column 3.
    let dts = dir.join("dts.txt");
    std::fs::write(&dts, "0.016\n0.02\n  slow\n").expect("write");
    let pacing = format!("file:{}", path_str(&dts));
    let out = stepframe(&["play", CONTRACT, "--pacing", &pacing]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("dts.txt:3:3:"), "{}", stderr(&out));
}

#[test]
fn a_failing_hook_is_a_runtime_failure_with_object_hook_and_tick() {
    let dir = scratch("failing");
    let script = dir.join("boom.rhai");
    std::fs::write(
        &script,
        "fn fixed_update(dt) { if clock().simulation_tick == 10 { throw \"boom\"; } }\n",
    )
    .expect("write");
    let scene = dir.join("failing.ron");
    std::fs::write(
        &scene,
        format!(
            r#"(objects: [(id: 7, name: "Bomb", behaviours: [(name: "Script", params: (path: "{}"))])])"#,
            path_str(&script)
        ),
    )
    .expect("write");
    let out = stepframe(&["play", path_str(&scene), "--frames", "20"]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    let s = stdout(&out);
    assert_contains(&s, "errors: 1");
    // The throw happened during tick 10, run by frame 10 at 60 Hz.
    assert_contains(&s, "error: tick 10 (frame 10) #7 FixedUpdate: ");
    assert!(stderr(&out).contains("1 error(s) logged during the run"));
}

#[test]
fn faults_injected_by_faulty_behaviours_are_reported_but_expected() {
    let dir = scratch("faulty");
    let scene = dir.join("faulty.ron");
    std::fs::write(
        &scene,
        r#"(objects: [(id: 7, name: "Bomb", behaviours: [(name: "Faulty", params: (hook: FixedUpdate, tick: 10, fault: Panic))])])"#,
    )
    .expect("write");
    let out = stepframe(&["play", path_str(&scene), "--frames", "20"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    let s = stdout(&out);
    assert_contains(&s, "errors: 1");
    assert_contains(&s, "error: tick 10 (frame 10) #7 FixedUpdate: ");
    assert_contains(&s, "injected faults: 1");
}

#[test]
fn chrome_trace_writes_the_runs_frames_as_perfetto_json() {
    let dir = scratch("chrome");
    let out = dir.join("run.json");
    let text = stepframe_writing(
        &[
            "play",
            "assets/scenes/demo.ron",
            "--frames",
            "90",
            "--pacing",
            "30",
            "--chrome-trace",
            path_str(&out),
        ],
        &out,
    );
    let json: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let events = json["traceEvents"].as_array().expect("traceEvents");
    let frames = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["name"].as_str().is_some_and(|n| n.starts_with("frame")))
        .count();
    assert_eq!(frames, 90, "one frame slice per played frame");
    // 30 Hz frames run two 60 Hz ticks each: physics slices inside every frame.
    assert!(
        events
            .iter()
            .any(|e| e["ph"] == "X" && e["name"] == "physics")
    );
    assert!(events.iter().any(|e| e["ph"] == "C"), "clock counters");
    // The flame zones the pipeline recorded: each of the 180 ticks is one
    // slice with its physics and contacts inside, at their measured times.
    let named = |name: &str| {
        events
            .iter()
            .filter(|e| e["ph"] == "X" && e["name"] == name)
            .collect::<Vec<_>>()
    };
    let ticks = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["name"].as_str().is_some_and(|n| n.starts_with("tick ")))
        .count();
    assert_eq!(ticks, 180, "two ticks a frame");
    for name in ["physics", "contacts"] {
        let slices = named(name);
        assert_eq!(slices.len(), 180, "{name}: one a tick");
        assert!(
            slices.iter().all(|e| e["args"]["zones"] == "recorded"),
            "{name} slices come from the recorded zones"
        );
    }
}

/// A scene of one dynamic ball (id 7) running the script `source`.
fn scripted_ball(dir: &Path, name: &str, source: &str) -> std::path::PathBuf {
    let script = dir.join(format!("{name}.rhai"));
    std::fs::write(&script, source).expect("write");
    let scene = dir.join(format!("{name}.ron"));
    std::fs::write(
        &scene,
        format!(
            r#"#![enable(implicit_some)]
(
    settings: (gravity: (x: 0.0, y: 0.0)),
    objects: [(id: 7, name: "Ball", body: (shapes: [Circle(radius: 0.5)]),
               behaviours: [(name: "Script", params: (path: "{}"))])],
)
"#,
            path_str(&script)
        ),
    )
    .expect("write");
    scene
}

#[test]
fn a_flat_out_session_keeps_the_scripts_it_loaded_and_a_live_one_follows_their_files() {
    // `play` without `--realtime`, `check`, `soak` and `bench` load with
    // `registry_for_scene`: a script saved during the run changes nothing,
    // so the run is the same whenever the save lands. `play --realtime`
    // loads with `registry_for_live_scene`, whose Scripts adopt the saved
    // text at the next frame, as before.
    let dir = scratch("batch-reload");
    let v1 = "fn update(dt) { log(\"v1\"); }\n";
    let scene = scripted_ball(&dir, "say", v1);
    let script = dir.join("say.rhai");
    let behaviours = stepframe_app::Behaviours::built_in();
    for (live, expected) in [(false, "v1"), (true, "version two")] {
        std::fs::write(&script, v1).expect("write v1");
        let registry = if live {
            behaviours.registry_for_live_scene(&scene)
        } else {
            behaviours.registry_for_scene(&scene)
        };
        let loaded = stepframe_core::Scene::load(&scene, &registry).expect("the scene loads");
        let mut pipeline = stepframe_core::Pipeline::new(loaded.settings.time);
        pipeline.load_scene(&loaded, &registry).expect("it loads");
        pipeline.step_frame(1.0 / 60.0);
        pipeline.drain_log();
        // Longer, so the file's length tells the change even within the
        // filesystem's timestamp granularity.
        std::fs::write(&script, "fn update(dt) { log(\"version two\"); }\n").expect("write v2");
        pipeline.step_frame(1.0 / 60.0);
        let said: Vec<String> = pipeline
            .drain_log()
            .into_iter()
            .filter(|l| !l.message.ends_with("reloaded"))
            .map(|l| l.message)
            .collect();
        assert_eq!(said, vec![expected.to_string()], "live: {live}");
    }
}

#[test]
fn a_warning_raised_during_reconcile_carries_the_frame_its_tick_ran_in() {
    // A kinematic target for a dynamic body is refused by the physics stage at
    // the reconcile of tick 10. At 30 Hz, two ticks a frame, tick 10 runs in
    // frame 5: the line says so (it used to say frame 0).
    let dir = scratch("reconcile-stamp");
    let scene = scripted_ball(
        &dir,
        "target",
        "fn fixed_update(dt) { if tick() == 10 { set_kinematic_target(1.0, 0.0, 0.0); } }\n",
    );
    let out = stepframe(&["play", path_str(&scene), "--frames", "8", "--pacing", "30"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "warning: tick 10 (frame 5) #7: kinematic target ignored: #7 is not kinematic"
        ),
        "{err}"
    );
}

#[test]
fn log_info_shows_the_log_lines_of_scripts_and_warn_is_the_default() {
    let dir = scratch("log-level");
    let scene = scripted_ball(
        &dir,
        "talk",
        "fn update(dt) { if frame() == 3 { log(\"hello from frame 3\"); warn(\"careful\"); } }\n",
    );
    let scene = path_str(&scene);
    let line = "info: tick 2 (frame 3) #7 Update: hello from frame 3";
    let warning = "warning: tick 2 (frame 3) #7 Update: careful";
    let info = stepframe(&["play", scene, "--frames", "5", "--log", "info"]);
    assert_eq!(code(&info), 0, "{}", stderr(&info));
    assert!(stderr(&info).contains(line), "{}", stderr(&info));
    assert!(stderr(&info).contains(warning), "{}", stderr(&info));
    let default = stepframe(&["play", scene, "--frames", "5"]);
    assert_eq!(code(&default), 0, "{}", stderr(&default));
    assert!(!stderr(&default).contains("hello"), "{}", stderr(&default));
    assert!(stderr(&default).contains(warning), "{}", stderr(&default));
    let errors_only = stepframe(&["play", scene, "--frames", "5", "--log", "error"]);
    assert_eq!(code(&errors_only), 0, "{}", stderr(&errors_only));
    assert!(
        !stderr(&errors_only).contains("careful"),
        "{}",
        stderr(&errors_only)
    );
    let bad = stepframe(&["play", scene, "--log", "loud"]);
    assert_eq!(code(&bad), 2);
}

#[test]
fn runs_that_could_never_end_are_refused_with_exit_2_and_the_reason() {
    // Each of these used to run forever: display time (or simulation time)
    // never advances, so the end condition is never met.
    let dir = scratch("never-ends");
    let zeros = dir.join("zeros.txt");
    std::fs::write(&zeros, "0.0\n0\n1e-12\n").expect("write");
    let zeros = format!("file:{}", path_str(&zeros));
    let rec = dir.join("rec.ron");
    std::fs::write(&rec, "(fixed_hz: 60, ticks: 10, events: [])\n").expect("write");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["play", CONTRACT, "--seconds", "1", "--pacing", &zeros],
            "shorter than one flick",
        ),
        // 1/10^10 s is 0.07 flicks: every frame rounds to 0.
        (
            vec!["play", CONTRACT, "--pacing", "10000000000"],
            "shorter than one flick",
        ),
        (
            vec![
                "play",
                CONTRACT,
                "--input",
                path_str(&rec),
                "--pacing",
                &zeros,
            ],
            "tick 10 is never reached",
        ),
        (
            vec![
                "play",
                CONTRACT,
                "--input",
                path_str(&rec),
                "--time-scale",
                "1e-12",
            ],
            "tick 10 is never reached",
        ),
        (
            vec!["play", CONTRACT, "--seconds", "1e300"],
            "more display time than the clock counts",
        ),
    ];
    for (args, why) in cases {
        let out = support::stepframe_within(&args, 60)
            .unwrap_or_else(|| panic!("{args:?} did not end within a minute"));
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("refusing a run that could never end")
                && stderr(&out).contains(why),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // A zero-delta pacing that ends by frame count is a finite run.
    let out = stepframe(&["play", CONTRACT, "--frames", "5", "--pacing", &zeros]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_contains(&stdout(&out), "5 frames, 0 ticks");
}

#[test]
fn a_seconds_run_whose_display_time_stops_advancing_gives_up() {
    // 150,000 frames of no time, then one of 0.1 s, over and over: 1 s of
    // display time would take 1.5 million frames. The guard gives up after
    // 100,000 frames in a row without display time.
    let dir = scratch("no-progress");
    let dts = dir.join("mostly-zero.txt");
    let mut text = "0\n".repeat(150_000);
    text.push_str("0.1\n");
    std::fs::write(&dts, text).expect("write");
    let pacing = format!("file:{}", path_str(&dts));
    let empty = dir.join("empty.ron");
    std::fs::write(&empty, "(objects: [])\n").expect("write");
    let out = support::stepframe_within(
        &[
            "play",
            path_str(&empty),
            "--seconds",
            "1",
            "--pacing",
            &pacing,
        ],
        120,
    )
    .expect("the run ends");
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert_contains(
        &stderr(&out),
        "no progress: 100000 frames in a row without display time",
    );
}

#[test]
fn check_refuses_each_run_of_a_scene_that_can_never_tick() {
    // `check` shares the player's run function: a time scale of 0 can never
    // reach tick 10, so every run is refused at once with the reason instead
    // of spinning 100,000 frames first.
    let dir = scratch("check-frozen");
    let scene = dir.join("frozen.ron");
    std::fs::write(
        &scene,
        "(settings: (time: (time_scale: 0.0)), objects: [(id: 1, name: \"A\")])\n",
    )
    .expect("write");
    let out = stepframe(&["check", path_str(&scene), "--ticks", "10"]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    let s = stdout(&out);
    assert_eq!(
        s.matches("FAILED: the run could never end: no frame of")
            .count(),
        18,
        "{s}"
    );
    assert_contains(&s, "so tick 10 is never reached");
}

#[test]
fn scripts_start_timed_routines_on_their_objects_time_group() {
    // The same script on two objects: from its first FixedUpdate it starts
    // `ping` 0.5 s later, and `ping` asks to run once more 0.25 s after that.
    // Object 1 keeps the default time group (the frame clock), object 2 says
    // `time_group: Fixed`. A 1 s stall at frame 5 (clamped to 0.25 s, 4 ticks
    // run and 11 dropped) pulls the two clocks apart.
    let dir = scratch("script-routines");
    let script = dir.join("routines.rhai");
    std::fs::write(
        &script,
        "let pings = 0;\n\
         fn fixed_update(dt) { if tick() == 1 { start_routine(\"ping\", 0.5); } }\n\
         fn ping() {\n\
         \x20   pings += 1;\n\
         \x20   log(`ping ${pings} (${hook()}) at frame ${frame()}, tick ${tick()}`);\n\
         \x20   if pings < 2 { 0.25 }\n\
         }\n",
    )
    .expect("write");
    let scene = dir.join("routines.ron");
    let behaviour = format!(
        r#"behaviours: [(name: "Script", params: (path: "{}"))]"#,
        path_str(&script)
    );
    std::fs::write(
        &scene,
        format!(
            "(objects: [\n    (id: 1, name: \"Frame clock\", {behaviour}),\n    (id: 2, name: \"Fixed clock\", time_group: Fixed, {behaviour}),\n])\n"
        ),
    )
    .expect("write");
    let scene = path_str(&scene);
    let out = stepframe(&[
        "play", scene, "--frames", "50", "--stall", "5:1.0", "--log", "info",
    ]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let err = stderr(&out);
    let pings: Vec<&str> = err.lines().filter(|l| l.contains(": ping ")).collect();
    // Object 1, frame clock, although started from FixedUpdate: started at a
    // frame time of 1/60 s, due at 31/60. Frame k >= 5 ends at (k + 14)/60
    // (frames 1-4: 1/60 each, frame 5: 0.25 s), so frame 17's update phase
    // runs it, 19 ticks in; then 46/60: frame 32, 34 ticks in.
    // Object 2, fixed clock: started in tick 1 (which starts at 0), due at
    // simulation time 0.5 = the start of tick 31, run by frame 28 (frame 5
    // ran ticks 5-8, frame k >= 6 runs tick k + 3); then tick 46, frame 43.
    assert_eq!(
        pings,
        [
            "info: tick 19 (frame 17) #1 Routine: ping 1 (Routine) at frame 17, tick 19",
            "info: tick 31 (frame 28) #2 Routine: ping 1 (Routine) at frame 28, tick 31",
            "info: tick 34 (frame 32) #1 Routine: ping 2 (Routine) at frame 32, tick 34",
            "info: tick 46 (frame 43) #2 Routine: ping 2 (Routine) at frame 43, tick 46",
        ],
        "{err}"
    );
    // Routines and the script state they change are in every snapshot: the
    // sync test rolls back over them and re-simulates identically.
    stepframe_saying(
        &[
            "play",
            scene,
            "--frames",
            "50",
            "--stall",
            "5:1.0",
            "--sync-test",
            "8",
        ],
        "re-simulated ticks matched",
    );
}
