//! A scene played headless: the summary, the run's length (frames, seconds,
//! a pacing file) and `--realtime`.

use crate::CONTRACT;
use crate::support::{assert_contains, code, path_str, scratch, stderr, stdout, stepframe};

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
fn realtime_follows_the_wall_clock() {
    let started = std::time::Instant::now();
    let out = stepframe(&["play", CONTRACT, "--frames", "12", "--realtime"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // Frame k starts (k - 1)/60 s after the first: the 12th at 11/60 s.
    assert!(started.elapsed().as_secs_f64() >= 11.0 / 60.0);
}
