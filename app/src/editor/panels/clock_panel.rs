//! The clock: the contract's eight fields plus the accumulator, with units,
//! of the moment every panel shows: the live session after its last call
//! (completed-tick values), or the end of the tick the user is viewing. While
//! suspended, interpolation alpha is the accumulator over the fixed dt of the
//! state it stopped in, so the two agree. Also the state hash of that tick and
//! the session host's own frame rate.

use crate::editor::protocol::Command;
use crate::editor::protocol::RewindCommand;
use crate::editor::shared::Panel;
use crate::editor::shared::{Commands, HISTORY_BUDGETS_MIB, Reading, budget_bytes};
use stepframe_core::telemetry::FrameKindCode;

/// One row: a field name padded so the values line up in monospace.
fn row(name: &str, value: String) -> String {
    format!("{name:<20}{value}")
}

/// Milliseconds with three decimals.
fn ms(seconds: f64) -> String {
    format!("{:.3} ms", seconds * 1000.0)
}

/// The clock fields the panel lists, in order, each with what it means
/// (the row's hover text): the contract's eight and the accumulator.
const CLOCK_FIELDS: [(&str, &str); 9] = [
    ("delta_time", "This outer frame's clamped, scaled delta"),
    (
        "frame_time",
        "Sum of every active frame's delta_time. It does not restart when a scene is \
         opened or reloaded: frame time counts active outer pipeline time, while \
         simulation time belongs to its physics world and restarts with it",
    ),
    (
        "frame_index",
        "One-based index of the last active outer frame (it carries on across scenes, like frame_time)",
    ),
    (
        "simulation_time",
        "End time of the completed tick: simulation_tick × fixed_delta_time (restarts at 0 with a new physics world)",
    ),
    (
        "simulation_tick",
        "Completed fixed ticks of this physics world",
    ),
    ("fixed_delta_time", "Length of one fixed tick"),
    (
        "interpolation_alpha",
        "accumulator / fixed_delta_time: where presentation draws between the previous and the committed pose",
    ),
    (
        "dropped_time",
        "Backlog discarded by the max-steps cap, cumulative",
    ),
    (
        "accumulator",
        "Time waiting in the stepper that no tick has consumed yet",
    ),
];

/// What marks a frame field that belongs to a frame ticks were stepped
/// after (the note under the rows says which frame, and how many).
const STEPPED_MARK: &str = "*";

/// The ticks stepped on their own (F10) since the newest outer frame, from
/// the telemetry records (oldest first).
///
/// The records after the newest whole frame are its continuations: the
/// rest of a frame a breakpoint interrupted, then (or at once, for a
/// frame that ended before the first F10) lone ticks, each F10 after the
/// first continuing the last. The frame's own ticks end at the first
/// record whose interpolation alpha is below one tick (the accumulator no
/// longer holds a tick the frame owes); every tick after that record was
/// stepped on its own. Worked example: a three-tick frame stopped by a
/// breakpoint after its first tick (alpha 2.4), five F10s: two owed ticks
/// (alpha 1.4, then 0.4), three stepped: "3 ticks stepped since".
fn stepped_since_frame(records: &std::collections::VecDeque<stepframe_core::FrameRecord>) -> u64 {
    let Some(frame) = records.iter().rposition(|r| r.kind == FrameKindCode::Frame) else {
        return 0;
    };
    let chain: Vec<_> = records.iter().skip(frame).collect();
    match chain.iter().position(|r| r.interpolation_alpha < 1.0) {
        Some(own) => chain[own + 1..].iter().map(|r| u64::from(r.ticks)).sum(),
        None => 0,
    }
}

/// The Clock tab: it keeps nothing of its own (everything it shows is the
/// view's: the clock of the tick shown, the recorded frames, the history).
#[derive(Debug, Default)]
pub struct ClockPanel;

impl Panel for ClockPanel {
    fn ui(&mut self, ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
        clock_panel_ui(ui, reading, cmd);
    }
}

/// Draws the clock panel.
fn clock_panel_ui(ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
    egui::ScrollArea::vertical()
        .id_salt("clock_scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.scope(|ui| {
                // Monospace rows a table's distance apart, not a
                // paragraph's: all of them (host rate too) fit whole in the
                // tab at 1280×800.
                ui.spacing_mut().item_spacing.y = 1.0;
                clock_rows_ui(ui, reading);
            });
            rewind_ui(ui, reading, cmd);
        });
}

/// How far back rewind reaches, and the history's byte budget.
fn rewind_ui(ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
    let Some(live) = reading.live() else {
        return;
    };
    ui.separator();
    let reach = live.rewind;
    let detail = format!(
        "The rewind history holds {:.1} MiB; a keyframe every {} frames (the spacing \
         doubles to stay in the budget, then the oldest keyframes go)",
        reach.bytes as f64 / f64::from(1u32 << 20),
        reach.keyframe_every
    );
    ui.label(reach.held_text())
        .on_hover_text("How far back a rewind or a past view reaches now");
    ui.label(reach.budget_text()).on_hover_text(format!(
        "A projection from the bytes each simulated second costs now: how far back the \
         budget lets rewind reach once the history is full. {detail}"
    ));
    let current = reach
        .budget
        .map_or(0, |b| u32::try_from(b >> 20).unwrap_or(u32::MAX));
    let mut mib = current;
    egui::ComboBox::from_label("history budget")
        .selected_text(format!("{mib} MiB"))
        .show_ui(ui, |ui| {
            for choice in HISTORY_BUDGETS_MIB {
                ui.selectable_value(&mut mib, choice, format!("{choice} MiB"));
            }
        });
    if mib != current {
        cmd.send(Command::Rewind(RewindCommand::SetBudget(Some(
            budget_bytes(mib),
        ))));
    }
}

fn clock_rows_ui(ui: &mut egui::Ui, shown: &Reading<'_>) {
    let Some(view) = shown.shown() else {
        ui.weak("no session");
        return;
    };
    let c = &view.clock;
    match view.at_tick {
        Some(t) => ui.label(
            egui::RichText::new(format!("at the end of tick {t} (viewing the past)"))
                .color(egui::Color32::from_rgb(120, 180, 255)),
        ),
        // A dead host's last view stands still: not a live clock.
        None if shown.worker_stopped().is_some() => {
            ui.weak("the stopped host's last view (Restart to go on)")
        }
        None if view.suspension.is_some() => {
            ui.weak("suspended: the committed clock of the completed tick")
        }
        None => ui.weak("live, after the last frame"),
    };
    // Every value shown belongs to the moment the panel says it shows
    // (docs/timeline.md): a world no frame has run in yet has no frame
    // delta of its own (the last frame was the old world's), and a frame
    // stopped by a breakpoint after one of its ticks has no presentation:
    // its accumulator still holds the ticks it has yet to run, so no
    // presented frame ever had the alpha `accumulator / fixed dt` gives.
    let fresh_world = c.simulation_tick == 0 && view.suspension.is_some();
    // Ticks stepped by themselves (F10) since the last frame: the frame's
    // fields are still that frame's, and say so.
    let stepped = if view.at_tick.is_none() {
        stepped_since_frame(shown.frames().records())
    } else {
        0
    };
    // Marked, and said once under the rows: a note on each row made it
    // too long for the tab at 1280×800, and the rows wrapped.
    let of_frame = |value: String| {
        if stepped > 0 {
            format!("{value} {STEPPED_MARK}")
        } else {
            value
        }
    };
    let delta = if fresh_world {
        "— no frame of this world has run yet".to_string()
    } else {
        of_frame(ms(c.delta_time))
    };
    let alpha = if c.interpolation_alpha >= 1.0 {
        let to_run = (c.interpolation_alpha.floor() as u64).max(1);
        format!(
            "— frame {} interrupted: {} still to run, nothing presented",
            c.frame_index,
            crate::editor::words::count(to_run, "tick", "ticks")
        )
    } else {
        format!("{:.4} (of a tick)", c.interpolation_alpha)
    };
    // In `CLOCK_FIELDS` order.
    let values: [String; 9] = [
        delta,
        format!("{:.6} s", c.frame_time),
        format!("{} frames", c.frame_index),
        format!("{:.6} s", c.simulation_time),
        format!("{} ticks", c.simulation_tick),
        ms(c.fixed_delta_time),
        alpha,
        format!("{:.6} s", c.dropped_time),
        of_frame(ms(c.accumulator)),
    ];
    for ((name, hover), value) in CLOCK_FIELDS.into_iter().zip(values) {
        ui.monospace(row(name, value)).on_hover_text(hover);
    }
    ui.monospace(row("state hash", format!("{:016x}", view.state_hash)))
        .on_hover_text(
            "Stable hash of the committed state after the tick: the trace's hash, equal hashes, equal runs",
        );
    if let Some(fps) = shown.live().and_then(|l| l.host_fps) {
        ui.monospace(row("host rate", format!("{fps:.1} fps")))
            .on_hover_text("Frames per second the session host ran over its last 60 frames (independent of this window's repaints)");
    }
    if stepped > 0 {
        ui.weak(format!(
            "{STEPPED_MARK} frame {}'s; {} stepped since",
            c.frame_index,
            crate::editor::words::count(stepped, "tick", "ticks")
        ))
        .on_hover_text(
            "Ticks stepped on their own (F10) run no outer frame: the frame fields marked are \
             still the last frame's",
        );
    }
    if view.at_tick.is_some()
        && let Some(r) = shown.cursor_record()
        && r.frame_index != c.frame_index
    {
        ui.weak(format!(
            "frame {} ran no tick: the state shown is the end of tick {}, in frame {}",
            r.frame_index, c.simulation_tick, c.frame_index
        ));
    }
}
