//! The inspector: the selected object's committed pose
//! (`physics_simulation_pose`), presentation pose, velocity, body and
//! behaviours. Editable while suspended: an edit becomes a body command the
//! worker queues, reconciled before the next tick, so the committed pose shown
//! stays the completed tick's until that tick runs.
//!
//! Numbers print with Rust's shortest round-trip formatting of `f32` (`{:?}`,
//! which switches to an exponent for tiny values such as `1e-45`): the text
//! parses back to the exact committed bits, so what you read is the state.

use stepframe_core::{Pose, Velocity};

use super::app::{EditBuffers, EditorState};
use super::protocol::{Command, SelectedView};

/// "x 1.25 m, y -0.5 m, angle 0.1 rad", exact.
pub fn pose_text(p: Pose) -> String {
    format!("x {:?} m, y {:?} m, angle {:?} rad", p.x, p.y, p.angle)
}

/// "(1.5, -2.0) m/s, 0.25 rad/s", exact.
pub fn velocity_text(v: Velocity) -> String {
    format!(
        "({:?}, {:?}) m/s, {:?} rad/s",
        v.linear.x, v.linear.y, v.angular
    )
}

/// Draws the inspector.
pub fn inspector_ui(ui: &mut egui::Ui, state: &mut EditorState) {
    ui.heading("Inspector");
    let Some(sel) = state.view.as_ref().and_then(|v| v.selected.clone()) else {
        ui.weak("Select an object in the viewport or the hierarchy.");
        return;
    };
    if state.selected != Some(sel.id) {
        // The worker's selection is a frame behind a new click.
        ui.weak("…");
        return;
    }
    let suspended = state.is_suspended();
    ui.strong(format!("{} ({})", sel.name, sel.id));
    ui.label(format!(
        "enabled: {}",
        if sel.enabled { "yes" } else { "no" }
    ))
    .on_hover_text("Disabled objects get no callback (toggle in the hierarchy)");
    let exact = if suspended {
        "The committed pose of the completed tick, exactly (suspended)"
    } else {
        "The committed pose of the last completed tick (physics_simulation_pose)"
    };
    ui.label(format!("committed pose: {}", pose_text(sel.committed)))
        .on_hover_text(exact);
    ui.label(format!("presentation pose: {}", pose_text(sel.presentation)))
        .on_hover_text("What the viewport draws: interpolated by interpolation_alpha while running, the committed pose while suspended");
    if let Some(prev) = sel.previous {
        ui.label(format!("previous pose: {}", pose_text(prev)))
            .on_hover_text("Committed pose of the tick before: where interpolation starts");
    }
    if let Some(v) = sel.velocity {
        ui.label(format!("velocity: {}", velocity_text(v)))
            .on_hover_text("Velocity at the end of the completed tick");
    }
    match &sel.body {
        Some(b) => {
            ui.label(format!("body type: {:?}", b.kind))
                .on_hover_text("Dynamic, kinematic or fixed");
            ui.label(format!(
                "density {} kg/m², friction {}, restitution {}, gravity scale {}, {:?}{}{}",
                b.density,
                b.friction,
                b.restitution,
                b.gravity_scale,
                b.interpolation,
                if b.ccd { ", CCD" } else { "" },
                if b.sensor { ", sensor" } else { "" },
            ))
            .on_hover_text("The authored body description");
            for shape in &b.shapes {
                ui.monospace(format!("{shape:?}"))
                    .on_hover_text("A collision shape in the body's frame (metres)");
            }
        }
        None => {
            ui.label("body type: none")
                .on_hover_text("A bodyless object follows its physics parent's committed pose");
        }
    }

    ui.separator();
    ui.strong("Behaviours");
    if sel.behaviours.is_empty() {
        ui.weak("none");
    }
    for b in &sel.behaviours {
        egui::CollapsingHeader::new(format!("{} (priority {})", b.name, b.priority))
            .id_salt(("behaviour", sel.id, &b.name))
            .default_open(true)
            .show(ui, |ui| {
                if b.params.trim().is_empty() {
                    ui.weak("no parameters");
                } else {
                    ui.monospace(&b.params)
                        .on_hover_text("Parameters as authored in the scene (RON)");
                }
            })
            .header_response
            .on_hover_text("A behaviour: registered name, dispatch priority (lower runs first) and its parameters");
    }

    if sel.body.is_some() {
        ui.separator();
        edit_ui(ui, state, &sel, suspended);
    }
}

fn edit_ui(ui: &mut egui::Ui, state: &mut EditorState, sel: &SelectedView, suspended: bool) {
    let tick = state
        .view
        .as_ref()
        .map(|v| v.clock.simulation_tick)
        .unwrap_or(0);
    let key = (sel.id, tick);
    if state.edits.key != Some(key) {
        state.edits = EditBuffers {
            key: Some(key),
            pose: sel.committed,
            velocity: sel.velocity.unwrap_or_default(),
        };
    }
    ui.strong("Edit");
    if !suspended {
        ui.weak("Pause (or stop at a breakpoint) to edit; an edit applies before the next tick.");
    }
    ui.add_enabled_ui(suspended, |ui| {
        let edits = &mut state.edits;
        egui::Grid::new(("edit_grid", sel.id))
            .num_columns(4)
            .show(ui, |ui| {
                ui.label("pose");
                ui.add(
                    egui::DragValue::new(&mut edits.pose.x)
                        .speed(0.01)
                        .suffix(" m"),
                )
                .on_hover_text("New x, metres");
                ui.add(
                    egui::DragValue::new(&mut edits.pose.y)
                        .speed(0.01)
                        .suffix(" m"),
                )
                .on_hover_text("New y, metres");
                ui.add(
                    egui::DragValue::new(&mut edits.pose.angle)
                        .speed(0.01)
                        .suffix(" rad"),
                )
                .on_hover_text("New angle, radians");
                ui.end_row();
                ui.label("velocity");
                ui.add(
                    egui::DragValue::new(&mut edits.velocity.linear.x)
                        .speed(0.05)
                        .suffix(" m/s"),
                )
                .on_hover_text("New horizontal velocity, m/s");
                ui.add(
                    egui::DragValue::new(&mut edits.velocity.linear.y)
                        .speed(0.05)
                        .suffix(" m/s"),
                )
                .on_hover_text("New vertical velocity, m/s");
                ui.add(
                    egui::DragValue::new(&mut edits.velocity.angular)
                        .speed(0.05)
                        .suffix(" rad/s"),
                )
                .on_hover_text("New angular velocity, rad/s");
                ui.end_row();
            });
        ui.horizontal(|ui| {
            if ui
                .button("Apply pose")
                .on_hover_text("Queue a SetPose body command, reconciled before the next tick")
                .clicked()
            {
                let pose = state.edits.pose;
                state.send(Command::EditPose(sel.id, pose));
            }
            if ui
                .button("Apply velocity")
                .on_hover_text("Queue a SetVelocity body command, reconciled before the next tick")
                .clicked()
            {
                let velocity = state.edits.velocity;
                state.send(Command::EditVelocity(sel.id, velocity));
            }
            if ui
                .button("Revert")
                .on_hover_text("Reset the fields to the committed state")
                .clicked()
            {
                state.edits.key = None;
            }
        });
    });
    for edit in &sel.pending_edits {
        ui.label(format!("queued: {edit}"))
            .on_hover_text("Applied by the physics reconcile of the next tick; the committed pose above is still the completed tick's");
    }
}
