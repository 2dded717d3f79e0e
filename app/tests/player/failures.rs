//! Bad input and runs that fail: exit 2 with file, line and column; a hook
//! that fails (exit 1) or a `Faulty` one (expected); runs that could never
//! end, refused or given up.

use crate::CONTRACT;
use crate::support::{assert_contains, code, path_str, scratch, stderr, stdout, stepframe};

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
        let out = crate::support::stepframe_within(&args, 60)
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
    let out = crate::support::stepframe_within(
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
