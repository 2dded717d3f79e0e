//! The clock: the contract's eight fields plus the accumulator, live, with
//! units, as of the end of the last call (completed-tick values). Also the
//! state hash of the last tick and the worker's measured frame rate.

use super::app::EditorState;

/// One row: a field name padded so the values line up in monospace.
fn row(name: &str, value: String) -> String {
    format!("{name:<20}{value}")
}

/// Milliseconds with three decimals.
fn ms(seconds: f64) -> String {
    format!("{:.3} ms", seconds * 1000.0)
}

/// Draws the clock panel.
pub fn clock_panel_ui(ui: &mut egui::Ui, state: &mut EditorState) {
    ui.heading("Clock");
    let Some(view) = &state.view else {
        ui.weak("no session");
        return;
    };
    let c = &view.clock;
    let rows: [(&str, String, &str); 9] = [
        (
            "delta_time",
            ms(c.delta_time),
            "This outer frame's clamped, scaled delta",
        ),
        (
            "frame_time",
            format!("{:.6} s", c.frame_time),
            "Sum of every active frame's delta_time",
        ),
        (
            "frame_index",
            format!("{} frames", c.frame_index),
            "One-based index of the last active outer frame",
        ),
        (
            "simulation_time",
            format!("{:.6} s", c.simulation_time),
            "End time of the completed tick: simulation_tick × fixed_delta_time",
        ),
        (
            "simulation_tick",
            format!("{} ticks", c.simulation_tick),
            "Completed fixed ticks",
        ),
        (
            "fixed_delta_time",
            ms(c.fixed_delta_time),
            "Length of one fixed tick",
        ),
        (
            "interpolation_alpha",
            format!("{:.4} (of a tick)", c.interpolation_alpha),
            "accumulator / fixed_delta_time at the last presentation phase",
        ),
        (
            "dropped_time",
            format!("{:.6} s", c.dropped_time),
            "Backlog discarded by the max-steps cap, cumulative",
        ),
        (
            "accumulator",
            ms(c.accumulator),
            "Time waiting in the stepper that no tick has consumed yet",
        ),
    ];
    for (name, value, hover) in rows {
        ui.monospace(row(name, value)).on_hover_text(hover);
    }
    ui.monospace(row("state hash", format!("{:016x}", view.state_hash)))
        .on_hover_text(
            "Stable hash of the committed state after the last tick: equal hashes, equal runs",
        );
    // The worker's own rate, from the real dt of its recent frames.
    let recent: Vec<f64> = state
        .telemetry
        .iter()
        .rev()
        .take(60)
        .map(|t| t.real_dt)
        .filter(|dt| *dt > 0.0)
        .collect();
    if !recent.is_empty() {
        let mean = recent.iter().sum::<f64>() / recent.len() as f64;
        ui.monospace(row("worker rate", format!("{:.1} fps", 1.0 / mean)))
            .on_hover_text("Frames per second the worker ran over its last 60 frames (independent of this window's repaints)");
    }
}
