//! The inspector: the selected object's committed pose
//! (`physics_simulation_pose`), previous pose, presentation pose, velocity,
//! body and behaviours with their state, all of one moment: the live session,
//! or the tick the user is viewing on the timeline. Editable while the live
//! session is suspended: an edit becomes a body command the worker queues,
//! reconciled before the next tick, so the committed pose shown stays the
//! completed tick's until that tick runs.
//!
//! **Parameters** (`params`): while suspended, and for a what-if branch B,
//! each behaviour's parameters are typed widgets (drag values in their
//! units, checkboxes, combo boxes of an enum's variants, text) over the
//! parameter text it runs with; a widget rewrites its one value in that
//! text, and Apply sends the text as the same parameter edit a RON field
//! sent, so the history, the journal and Save see nothing new. The RON
//! stays, folded under "Edit as RON", and is all that shows where no
//! widget can hold a value. `params`' module docs say why one text, and
//! which parameter gets which widget.
//!
//! Numbers print with Rust's shortest round-trip formatting of `f32` (`{:?}`,
//! which switches to an exponent for tiny values such as `1e-45`): the text
//! parses back to the exact committed bits, so what you read is the state.
//!
//! **Plot any field** (Rerun's "plot this"): every number of the committed
//! state has a [`PLOT_ICON`] button, "Plot on the timeline", that adds it as a
//! "show value" watch reading that one field: pose `obj(20).x`, `.y`,
//! `.angle`, velocity `.vx`, `.vy`, `.w`, a soft body's `.particles` and
//! `.pieces`, and every numeric behaviour field by its stable path,
//! `field(20, "PlayerController.charge_ms")` (scripts' variables are
//! `Script.vars.<name>`). The timeline draws it as a lane titled after the
//! object and the field, filled from the rewind history back as far as it
//! reaches. Not offered: the previous and presentation poses (the committed
//! pose of the tick before, and an interpolation of the two, not committed
//! state of a tick), the authored body description (constants of the scene),
//! and the state of a behaviour without `Inspect` rows (its `Debug` text has
//! no stable paths).

use crate::editor::protocol::{EditCommand, Target};
use crate::editor::shared::Panel;
use egui::RichText;
use stepframe_core::{HookKind, Hooks, ObjectId, Pose, Velocity};

use crate::editor::protocol::{Command, SelectedView, SoftView};
use crate::editor::shared::{Commands, Reading};

mod ab;
mod params;
mod plot;
mod state;

use params::{ParamsRun, ParamsSource, params_ui};
use plot::{field_expr, plot_button_ui, plot_row_ui};

/// Inspector edit fields, refreshed from the committed state when the
/// selection or the tick changes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EditBuffers {
    /// The object and tick the fields were loaded from.
    pub key: Option<(ObjectId, u64)>,
    /// Pose being edited.
    pub pose: Pose,
    /// Velocity being edited.
    pub velocity: Velocity,
    /// Apply to a what-if branch B instead of the live session.
    pub to_b: bool,
    /// B's parameter text being edited, by object and behaviour place
    /// (kept while B runs, whatever tick is shown).
    pub params_b: std::collections::BTreeMap<(ObjectId, usize), String>,
    /// The live session's parameter text being edited, by object and
    /// behaviour place (refreshed with the other fields).
    pub params: std::collections::BTreeMap<(ObjectId, usize), String>,
}

impl Panel for EditBuffers {
    /// Draws the inspector.
    fn ui(&mut self, ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
        inspector_ui(ui, reading, cmd, self);
    }
}

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

/// The hook names in a set, "FixedUpdate, Contact".
fn hooks_text(hooks: Hooks) -> String {
    let names: Vec<&str> = HookKind::ALL
        .into_iter()
        .filter(|h| Hooks::of(*h) != Hooks::NONE && hooks.contains(Hooks::of(*h)))
        .map(HookKind::name)
        .collect();
    if names.is_empty() {
        "no hooks".to_string()
    } else {
        names.join(", ")
    }
}

/// Draws the inspector.
fn inspector_ui(
    ui: &mut egui::Ui,
    shown: &Reading<'_>,
    cmd: &mut Commands,
    edits: &mut EditBuffers,
) {
    let Some(view) = shown.shown() else {
        ui.weak("no session");
        return;
    };
    let at = view.at_tick;
    let tick = view.clock.simulation_tick;
    let Some(sel) = view.selected.clone() else {
        match (shown.selection(), at) {
            (Some(id), Some(t)) => ui.weak(format!("{id} is not alive at tick {t}.")),
            _ => ui.weak("Select an object in the viewport or the hierarchy."),
        };
        return;
    };
    let suspended = view.suspension.is_some();
    let editable = suspended && at.is_none();
    let soft: Option<SoftView> = view
        .objects
        .iter()
        .find(|o| o.id == sel.id)
        .and_then(|o| o.body.as_ref()?.soft.clone());
    egui::ScrollArea::vertical()
        .id_salt("inspector_scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.strong(format!("{} ({})", sel.name, sel.id));
            match at {
                Some(t) => ui.label(
                    RichText::new(format!("at the end of tick {t} (viewing the past)"))
                        .color(egui::Color32::from_rgb(120, 180, 255)),
                ),
                None if suspended => ui.weak(format!("at the end of tick {tick} (suspended)")),
                None => ui.weak(format!("after tick {tick} (running)")),
            };
            ui.label(format!(
                "enabled: {}",
                if sel.enabled { "yes" } else { "no" }
            ))
            .on_hover_text("Disabled objects get no callback (toggle in the hierarchy)");
            pose_rows_ui(ui, &sel, suspended);
            plot_row_ui(ui, cmd, &sel);
            ab::ab_section_ui(ui, shown);
            body_ui(ui, cmd, &sel, soft.as_ref());
            ui.separator();
            let key = (sel.id, tick);
            if edits.key != Some(key) {
                *edits = EditBuffers {
                    key: Some(key),
                    pose: sel.committed,
                    velocity: sel.velocity.unwrap_or_default(),
                    to_b: edits.to_b,
                    params_b: std::mem::take(&mut edits.params_b),
                    params: Default::default(),
                };
            }
            behaviours_ui(ui, shown, cmd, edits, &sel, editable);
            if sel.body.is_some() {
                ui.separator();
                edit_ui(ui, shown, cmd, edits, &sel, editable);
            }
        });
}

fn pose_rows_ui(ui: &mut egui::Ui, sel: &SelectedView, suspended: bool) {
    let exact = if suspended {
        "The committed pose of the completed tick, exactly (suspended)"
    } else {
        "The committed pose of the last completed tick (physics_simulation_pose)"
    };
    ui.label(format!("committed pose: {}", pose_text(sel.committed)))
        .on_hover_text(exact);
    if let Some(prev) = sel.previous {
        ui.label(format!("previous pose: {}", pose_text(prev)))
            .on_hover_text("Committed pose of the tick before: where interpolation starts");
    }
    ui.label(format!("presentation pose: {}", pose_text(sel.presentation)))
        .on_hover_text("What the viewport draws: interpolated by interpolation_alpha while running, the committed pose while suspended");
    if let Some(v) = sel.velocity {
        ui.label(format!("velocity: {}", velocity_text(v)))
            .on_hover_text("Velocity at the end of the completed tick");
    }
}

fn body_ui(ui: &mut egui::Ui, cmd: &mut Commands, sel: &SelectedView, soft: Option<&SoftView>) {
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
            if let Some(s) = soft {
                soft_ui(ui, cmd, sel.id, b, s);
            }
        }
        None => {
            ui.label("body type: none")
                .on_hover_text("A bodyless object follows its physics parent's committed pose");
        }
    }
}

/// A soft body: its particles, pins, tears and authored material.
fn soft_ui(
    ui: &mut egui::Ui,
    cmd: &mut Commands,
    id: ObjectId,
    b: &stepframe_core::BodyDesc,
    s: &SoftView,
) {
    ui.horizontal(|ui| {
        ui.label(format!(
            "soft body: {} of radius {} m",
            crate::editor::words::count(s.committed.len() as u64, "particle", "particles"),
            s.radius
        ))
        .on_hover_text("The committed pose above is the particle centroid plus the authored-origin offset, turned by the particles' best-fit rotation");
        plot_button_ui(ui, cmd, format!("obj({}).particles", id.0), "particles", "");
    });
    let pinned = if s.pinned.is_empty() {
        "none".to_string()
    } else {
        format!("{:?}", s.pinned)
    };
    ui.label(format!("pinned particles: {pinned}"));
    ui.horizontal(|ui| {
        ui.label(if s.torn {
            format!(
                "torn: yes, {}",
                crate::editor::words::count(s.pieces as u64, "piece", "pieces")
            )
        } else {
            "torn: no".to_string()
        });
        plot_button_ui(ui, cmd, format!("obj({}).pieces", id.0), "pieces", "");
    });
    if let Some(desc) = &b.soft {
        ui.monospace(format!("{:?}", desc.shape))
            .on_hover_text("The rest shape");
        ui.monospace(format!("material: {:?}", desc.material))
            .on_hover_text("The authored material (rapier's SoftBodyMaterial)");
    }
}

fn behaviours_ui(
    ui: &mut egui::Ui,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    edits: &mut EditBuffers,
    sel: &SelectedView,
    editable: bool,
) {
    if reading.fork().is_none() {
        edits.params_b.clear();
    }
    let b_editable = reading.fork().is_some() && !reading.viewing_past();
    ui.strong("Behaviours");
    if sel.states.is_empty() {
        ui.weak("none");
    }
    for (k, state) in sel.states.iter().enumerate() {
        let mut title = format!("{} (priority {})", state.name, state.priority);
        if state.faulted {
            title.push_str(" — disabled after a panic");
        } else if !state.started {
            title.push_str(" — not started yet");
        }
        egui::CollapsingHeader::new(title)
            .id_salt(("behaviour", sel.id, k))
            .default_open(true)
            .show(ui, |ui| {
                ui.label(format!("hooks: {}", hooks_text(state.hooks)))
                    .on_hover_text("The only hooks it is called in (and a breakpoint can hit)");
                let authored = sel
                    .behaviours
                    .iter()
                    .find(|b| b.name == state.name && b.priority == state.priority)
                    .map(|b| b.params.trim())
                    .unwrap_or_default();
                if !authored.is_empty() {
                    ui.label(RichText::new(format!("params: {authored}")).monospace())
                        .on_hover_text("Parameters as the session runs them (RON)");
                }
                let source = ParamsSource {
                    key: (sel.id, k),
                    state,
                    kinds: sel.param_kinds.get(&state.name),
                    authored,
                };
                if editable && !authored.is_empty() {
                    params_ui(ui, cmd, edits, &source, ParamsRun::Live);
                }
                if b_editable {
                    params_ui(ui, cmd, edits, &source, ParamsRun::B);
                }
                if state.fields.is_empty() {
                    state_text_ui(ui, sel.id, k, &state.state);
                } else {
                    fields_ui(ui, cmd, sel.id, k, &state.fields);
                }
            });
    }
}

/// A behaviour's fields as a table: a plot button for each number, name,
/// value, unit; parameters marked.
fn fields_ui(
    ui: &mut egui::Ui,
    cmd: &mut Commands,
    object: ObjectId,
    index: usize,
    fields: &[stepframe_core::Field],
) {
    egui::Grid::new(("fields", object, index))
        .num_columns(4)
        .striped(true)
        .spacing([12.0, 2.0])
        .show(ui, |ui| {
            for f in fields {
                // The path without the behaviour's own name: it heads the
                // section already.
                let name = f.path.split_once('.').map_or(f.path.as_str(), |(_, n)| n);
                let label = if f.param {
                    RichText::new(format!("{name} ⚙")).monospace()
                } else {
                    RichText::new(name).monospace()
                };
                let mut hover = f.path.clone();
                if !f.doc.is_empty() {
                    hover.push('\n');
                    hover.push_str(&f.doc);
                }
                if f.param {
                    hover.push_str("\nA parameter: set by the scene, editable while suspended");
                }
                // First, so a narrow inspector never clips it off the right.
                match field_expr(object, &f.path).filter(|_| f.value.as_f64().is_some()) {
                    Some(expr) => plot_button_ui(ui, cmd, expr, &f.path, ""),
                    None => {
                        ui.label("");
                    }
                }
                ui.label(label).on_hover_text(hover);
                // Readable (`150`), the exact value (`150.00000000000043`) on hover.
                let (shown, exact) = (f.value.readable(), f.value.to_string());
                let value = ui.label(RichText::new(&shown).monospace());
                if shown != exact {
                    value.on_hover_text(format!("exactly {exact}"));
                }
                ui.weak(f.unit.as_deref().unwrap_or(""));
                ui.end_row();
            }
        });
}

/// The state of a behaviour that writes no fields, from its `Debug` text:
/// a table of its fields in the body font (see `state`), or the text as it
/// is when it has no such shape.
fn state_text_ui(ui: &mut egui::Ui, object: ObjectId, index: usize, text: &str) {
    let hover = "Its state at this moment (its Debug text: derive Inspect for units and docs)";
    let Some(rows) = state::state_rows(text) else {
        ui.label(text).on_hover_text(hover);
        return;
    };
    egui::Grid::new(("state", object, index))
        .num_columns(2)
        .striped(true)
        .spacing([12.0, 2.0])
        .show(ui, |ui| {
            for (name, value) in rows {
                ui.label(name).on_hover_text(hover);
                ui.label(value);
                ui.end_row();
            }
        });
}

fn edit_ui(
    ui: &mut egui::Ui,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    edits: &mut EditBuffers,
    sel: &SelectedView,
    editable: bool,
) {
    ui.strong("Edit");
    if reading.viewing_past() {
        ui.weak("Edits apply to the live session: back to live (Esc) to edit.");
    } else if !editable {
        ui.weak("Pause (or stop at a breakpoint) to edit; an edit applies before the next tick.");
    }
    ui.add_enabled_ui(editable, |ui| {
        egui::Grid::new(("edit_grid", sel.id))
            .num_columns(4)
            .show(ui, |ui| {
                ui.label("pose");
                for (value, name, unit) in [
                    (&mut edits.pose.x, "x", " m"),
                    (&mut edits.pose.y, "y", " m"),
                    (&mut edits.pose.angle, "angle", " rad"),
                ] {
                    ui.add(egui::DragValue::new(value).speed(0.01).suffix(unit))
                        .on_hover_text(format!("New {name}"));
                }
                ui.end_row();
                ui.label("velocity");
                for (value, name, unit) in [
                    (&mut edits.velocity.linear.x, "horizontal velocity", " m/s"),
                    (&mut edits.velocity.linear.y, "vertical velocity", " m/s"),
                    (&mut edits.velocity.angular, "angular velocity", " rad/s"),
                ] {
                    ui.add(egui::DragValue::new(value).speed(0.05).suffix(unit))
                        .on_hover_text(format!("New {name}"));
                }
                ui.end_row();
            });
        if reading.fork().is_some() {
            ui.checkbox(&mut edits.to_b, "edit B")
                .on_hover_text("Apply to the what-if branch B instead of the live session");
        }
        let target = if edits.to_b && reading.fork().is_some() {
            Target::B
        } else {
            Target::Live
        };
        ui.horizontal(|ui| {
            if ui
                .button("Apply pose")
                .on_hover_text(
                    "Queue a SetPose body command, reconciled before the next tick: an edit \
                     the rewind history repeats and Save session recording keeps",
                )
                .clicked()
            {
                cmd.send(Command::Edit {
                    target,
                    edit: EditCommand::Pose(sel.id, edits.pose),
                });
            }
            if ui
                .button("Apply velocity")
                .on_hover_text("Queue a SetVelocity body command, reconciled before the next tick")
                .clicked()
            {
                cmd.send(Command::Edit {
                    target,
                    edit: EditCommand::Velocity(sel.id, edits.velocity),
                });
            }
            if ui
                .button("Revert")
                .on_hover_text("Reset the fields to the committed state")
                .clicked()
            {
                edits.key = None;
            }
        });
    });
    for edit in &sel.queued {
        ui.label(format!("queued: {}", crate::editor::words::queued_edit(edit)))
            .on_hover_text("Applied by the physics reconcile of the next tick; the committed pose above is still the completed tick's");
    }
}
