//! Synthetic frame records and the `timeline_ui_ms` measurement that
//! `stepframe bench` reports.

use stepframe_core::FrameRecord;

use super::{TimelineState, lanes};
use crate::editor::frames::Frames;

/// A plausible synthetic record of frame `i` (1-based) at 60 Hz, with a stall
/// every 64 frames: for the bench and tests.
pub fn synthetic_record(i: u64) -> FrameRecord {
    let stall = i.is_multiple_of(64);
    let dt = if stall {
        0.15
    } else {
        0.004 + (i * 7919 % 36) as f64 / 1000.0
    };
    let fixed = 1.0 / 60.0;
    let ticks = if stall {
        4
    } else {
        ((dt / fixed) as u16).min(4)
    };
    let mut by_priority = [(0i32, 0f32); stepframe_core::telemetry::RECORD_PRIORITIES];
    by_priority[0] = (-100, 0.05 + (i % 13) as f32 / 100.0);
    by_priority[1] = (0, 0.1 + (i % 7) as f32 / 50.0);
    by_priority[2] = (100, 0.02);
    FrameRecord {
        frame_index: i,
        simulation_tick: i,
        delta_time: dt,
        frame_time: i as f64 / 60.0,
        simulation_time: i as f64 / 60.0,
        fixed_delta_time: fixed,
        dropped_time: (i / 64) as f64 * 0.083,
        accumulator_before: dt % fixed + fixed,
        accumulator_after: dt % fixed,
        interpolation_alpha: ((dt % fixed) / fixed) as f32,
        dropped_this_frame: if stall { 0.083 } else { 0.0 },
        update_ms: 0.2,
        fixed_ms: 0.5,
        physics_ms: 0.3 + (i % 5) as f32 / 10.0,
        present_ms: 0.1,
        by_priority,
        priorities: 3,
        ticks,
        ..FrameRecord::default()
    }
}

/// CPU ms per UI frame of the timeline's lanes over `frames` synthetic
/// records, drawn headless (`Context::run` + `tessellate`) at 1600×900 with
/// **every lane expanded** (the worst case; by default five of the eight are
/// collapsed), over the whole range zoomed out (every record visible), one
/// new record per UI frame so no caching can help (the view slides and the
/// lanes are reduced again every frame). The best of the rounds' means; the
/// first round also pays the one-off summary of the whole ring (~15 ms).
pub fn bench_timeline_ms(frames: usize) -> f64 {
    bench_timeline_ms_with(frames, frames, 1600.0)
}

/// [`bench_timeline_ms`] with `frames` records in a ring holding `capacity`
/// (more: a ring still filling, whose view grows by a frame every UI frame)
/// and a panel `width` points wide (more pixel columns, so more points).
pub fn bench_timeline_ms_with(frames: usize, capacity: usize, width: f32) -> f64 {
    let mut state = TimelineState::new();
    let mut ring = Frames::with_capacity(capacity.max(frames).max(1));
    for lane in &mut state.lanes {
        lane.expanded = true;
    }
    for i in 1..=frames as u64 {
        ring.push(synthetic_record(i));
    }
    state.follow_live = false;
    let ctx = egui::Context::default();
    let mut next = frames as u64 + 1;
    let mut best = f64::INFINITY;
    for _round in 0..3 {
        let rounds = 10;
        let t0 = std::time::Instant::now();
        for _ in 0..rounds {
            ring.push(synthetic_record(next));
            next += 1;
            let (lo, hi) = (state.axis.of(&ring.records()[0]), next as f64);
            state.range = Some((lo, hi));
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(width, 900.0),
                )),
                ..Default::default()
            };
            let out = ctx.run_ui(input, |ui| {
                egui::CentralPanel::default().show(ui, |ui| {
                    lanes::lanes_ui(
                        ui,
                        &mut state,
                        super::watch_lanes::LaneData::frames_only(&ring),
                    )
                });
            });
            let mut out = out;
            // Nobody uploads textures headless: mark the font atlas handled.
            out.textures_delta.clear();
            let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
        }
        best = best.min(t0.elapsed().as_secs_f64() * 1000.0 / f64::from(rounds));
    }
    best
}
