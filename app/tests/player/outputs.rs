//! What `play` writes besides its summary: telemetry (JSON Lines, CSV) and a
//! Chrome trace.

use crate::CONTRACT;
use crate::support::{code, path_str, scratch, stderr, stepframe, stepframe_writing};

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
