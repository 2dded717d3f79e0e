//! Determinism through the command line: the demo recording's trace at every
//! pacing and under both step strategies, the sync test, and a recording
//! written back.

use stepframe_core::Recording;

use crate::support::{
    assert_contains, code, path_str, root, scratch, stderr, stdout, stepframe, stepframe_saying,
};
use crate::{DEMO, DEMO_INPUT, DEMO_TICKS, STRESS, demo_trace, without_frame};

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
