//! `stepframe bench --scaling`: how each cost grows with the size of the
//! world, one JSON line per size. Each row says whether it grows linearly:
//! the per-unit cost (ms per 1,000 bodies, ns per callback, µs and bytes per
//! object) at this size within 1.5x of the smallest size's.
//!
//! Worked reading: if the pipeline takes 0.06 ms per tick at 100 bodies
//! (0.6 ms per 1,000) and 7.5 ms at 10,000 (0.75 ms per 1,000), the per-unit
//! cost grew 1.25x over a 100x size: linear. Rapier itself is measured beside
//! it, so a row whose ratio stays flat while both grow faster than linearly
//! is rapier's growth, not the pipeline's.

use std::hint::black_box;
use std::process::ExitCode;

use serde_json::json;
use stepframe_core::Telemetry;

use super::dispatch::dispatch_and_bare_ns;
use super::physics::{awake_pipeline, pipeline_and_raw_ms};
use super::{round, time};

/// Per-unit cost within this factor of the smallest size's: "linear".
const LINEAR_WITHIN: f64 = 1.5;

/// Prints one row.
fn row(series: &str, size: usize, unit_cost: f64, first_unit_cost: f64, fields: serde_json::Value) {
    let growth = unit_cost / first_unit_cost;
    let mut line = json!({
        "scaling": series,
        "size": size,
        "per_unit_vs_smallest": round(growth),
        "linear": growth <= LINEAR_WITHIN,
    });
    if let (Some(line), Some(fields)) = (line.as_object_mut(), fields.as_object()) {
        line.extend(fields.clone());
    }
    println!("{line}");
}

/// Every series; exit 0 (the scaling rows have no targets).
pub(super) fn run(scale: f64) -> ExitCode {
    pipeline_rows(scale);
    dispatch_rows(scale);
    snapshot_rows(scale);
    timeline_row();
    ExitCode::SUCCESS
}

fn pipeline_rows(scale: f64) {
    let mut first = None;
    let mut first_raw = None;
    for balls in [100, 1_000, 5_000, 10_000] {
        // Fewer ticks for bigger worlds, but enough for the balls to land
        // (the first 30 ticks of fall are the warm-up).
        let ticks = ((300_000.0 * scale / balls as f64) as usize).clamp(30, 300);
        let (ours, raw) = pipeline_and_raw_ms(balls, ticks);
        let unit = ours / balls as f64 * 1000.0;
        let first_unit = *first.get_or_insert(unit);
        let raw_unit = raw / balls as f64 * 1000.0;
        let first_raw_unit = *first_raw.get_or_insert(raw_unit);
        row(
            "pipeline_ms_per_tick",
            balls,
            unit,
            first_unit,
            json!({
                "pipeline_ms": round(ours),
                "raw_rapier_ms": round(raw),
                "ratio": round(ours / raw),
                "raw_per_unit_vs_smallest": round(raw_unit / first_raw_unit),
                "ticks": ticks,
            }),
        );
    }
}

fn dispatch_rows(scale: f64) {
    let mut first = None;
    for callbacks in [1_000, 10_000, 100_000] {
        let ticks = ((4_000_000.0 * scale / callbacks as f64) as usize).clamp(10, 4_000);
        let (ours, bare) = dispatch_and_bare_ns(callbacks, ticks, None);
        let first_unit = *first.get_or_insert(ours);
        row(
            "dispatch_ns_per_callback",
            callbacks,
            ours,
            first_unit,
            json!({
                "pipeline_ns": round(ours),
                "bare_loop_ns": round(bare),
                "ratio": round(ours / bare),
                "ticks": ticks,
            }),
        );
    }
}

/// Snapshot and restore µs, and what a default history keeps per simulated
/// minute (a keyframe every 120 frames: 30 a minute at 60 Hz, each counted
/// by `Snapshot::memory_bytes`), on the awake-ball world.
fn snapshot_rows(scale: f64) {
    let mut first = None;
    for balls in [100, 1_000, 10_000] {
        let mut p = awake_pipeline(balls);
        for _ in 0..((60.0 * scale) as usize).max(10) {
            p.step_frame(1.0 / 60.0);
        }
        let reps = (2_000 / balls).clamp(3, 20);
        let mut snap = p.snapshot();
        let s = time(|| {
            for _ in 0..reps {
                snap = black_box(p.snapshot());
            }
        }) / reps as f64
            * 1e6;
        let r = time(|| {
            for _ in 0..reps {
                p.restore(black_box(&snap));
            }
        }) / reps as f64
            * 1e6;
        let bytes = snap.memory_bytes();
        let mib_per_minute = bytes as f64 * 30.0 / (1024.0 * 1024.0);
        let objects = p.world().len();
        let unit = s / objects as f64;
        let first_unit = *first.get_or_insert(unit);
        row(
            "snapshot_restore_and_history",
            objects,
            unit,
            first_unit,
            json!({
                "snapshot_us": round(s),
                "restore_us": round(r),
                "keyframe_kib": round(bytes as f64 / 1024.0),
                "history_mib_per_sim_minute": round(mib_per_minute),
                "bytes_per_object": round(bytes as f64 / objects as f64),
            }),
        );
    }
}

/// The timeline draws from the telemetry ring, which is bounded: 216,000
/// frames (1 h at 60 Hz). At 4 h and 8 h of play it holds the same last hour,
/// so `timeline_ui_ms` there is the 1 h figure (`stepframe bench`).
fn timeline_row() {
    let capacity = Telemetry::default().capacity();
    println!(
        "{}",
        json!({
            "scaling": "timeline_ui_ms",
            "size": capacity,
            "linear": serde_json::Value::Null,
            "note": format!(
                "the telemetry ring is bounded at {capacity} frames ({:.1} h at 60 Hz): after 4 h or 8 h of play it holds the last hour, so the timeline costs what `timeline_ui_ms` reports for 1 h",
                capacity as f64 / 216_000.0
            ),
        })
    );
}
