//! The Watches tab: expressions over committed state asked after every tick
//! (`obj(20).y < 0`, `contact(20, 61)`, `tick > 600 && obj(40).vx == 0`; the
//! language is in `stepframe_plugins::watch`). Each watch breaks, marks the
//! timeline, or shows its value (and gets a timeline lane); **Run to first** plays until it first holds,
//! **Find previous** searches the rewind history backward from the tick on
//! screen and puts the time cursor there. The list persists with the layout.
//! The inspector's plot buttons add "show value" watches here
//! ([`WatchCommand::Plot`]): a plotted field is a watch like any other.

use crate::editor::protocol::{BranchEvent, Run, WatchCommand};
use crate::editor::shared::Panel;
use stepframe_core::LogLevel;
use stepframe_plugins::{WatchAction, WatchEvent, WatchSet, WatchSpec};

use crate::editor::protocol::{Command, Event};
use crate::editor::shared::{Action, Commands, Reading};

/// The tab's own state: the fields being typed and what each watch last
/// reported. The list itself is the host's (the live view's `watches`):
/// the tab shows it and every change is a command, so the tab, the
/// timeline's lanes and the host never hold two lists.
#[derive(Debug, Default)]
pub struct WatchesState {
    /// The expression field.
    pub expr: String,
    /// The action for the next Add.
    pub action: WatchAction,
    /// Why the last Add was refused.
    pub error: Option<String>,
    /// Per watch of the host's list: the last failure, the last tick it
    /// held, the last value.
    pub status: Vec<WatchStatus>,
}

/// What one watch last reported.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WatchStatus {
    /// Its last failure, until it evaluates again.
    pub failed: Option<String>,
    /// The last tick it held.
    pub held: Option<u64>,
    /// The last plotted value and its tick.
    pub value: Option<(u64, f64)>,
}

fn action_label(a: WatchAction) -> &'static str {
    match a {
        WatchAction::Break => "break",
        WatchAction::Mark => "mark",
        WatchAction::Plot => "show value",
    }
}

impl WatchesState {
    /// Takes a host event: what the watches of the host's list `specs`
    /// did, or a Find previous answer.
    fn take_event(&mut self, event: &Event, specs: &[WatchSpec], cmd: &mut Commands) {
        if self.status.len() < specs.len() {
            self.status.resize(specs.len(), WatchStatus::default());
        }
        match event {
            Event::Watch(batch) => {
                for e in batch {
                    let i = match e {
                        WatchEvent::Held { watch, .. }
                        | WatchEvent::Value { watch, .. }
                        | WatchEvent::Failed { watch, .. } => *watch,
                    };
                    // A watch just added reports before the view that
                    // lists it arrives (the ordered stream comes first).
                    if i >= self.status.len() {
                        self.status.resize(i + 1, WatchStatus::default());
                    }
                    let Some(s) = self.status.get_mut(i) else {
                        continue;
                    };
                    match e {
                        WatchEvent::Held { tick, .. } => {
                            s.held = Some(*tick);
                            s.failed = None;
                        }
                        WatchEvent::Value { tick, value, .. } => {
                            s.value = Some((*tick, *value));
                            s.failed = None;
                        }
                        WatchEvent::Failed { message, .. } => s.failed = Some(message.clone()),
                    }
                }
            }
            Event::WatchFound {
                watch,
                before,
                tick,
            } => {
                let expr = specs.get(*watch).map_or("?", |s| s.expr.as_str());
                match tick {
                    Some(t) => {
                        cmd.act(Action::Log(
                            LogLevel::Info,
                            format!("`{expr}` last held at tick {t} before tick {before}"),
                        ));
                        cmd.view_tick(*t);
                    }
                    None => cmd.notify(
                        LogLevel::Info,
                        format!("`{expr}` holds at no kept tick before tick {before}"),
                    ),
                }
            }
            // What the watches saw belongs to a world that is gone: a new
            // one has asked them nothing yet.
            Event::Loaded { .. } => self.status.fill(WatchStatus::default()),
            // Ticks after `tick` are an abandoned future (after Adopt B, A's
            // ticks after the fork: B's are the session's now). A failure
            // carries no tick, so it goes too; the next tick asks again.
            Event::Rewound(tick)
            | Event::Restored { tick, .. }
            | Event::BranchB(BranchEvent::Adopted {
                forked_at: tick, ..
            }) => {
                for s in &mut self.status {
                    s.failed = None;
                    s.held = s.held.filter(|t| t <= tick);
                    s.value = s.value.filter(|(t, _)| t <= tick);
                }
            }
            _ => {}
        }
    }
}

/// A watch's value as a person reads it, as the inspector writes its
/// fields: an `obj()` field is an `f32` widened to the watch's `f64`, shown
/// as the `f32` it is (`0.6320443`, not `0.6320443153381348`); any other
/// number with the noise of its last digits trimmed.
fn value_text(v: f64) -> String {
    let narrow = v as f32;
    if f64::from(narrow) == v {
        stepframe_core::behaviour::readable_f32(narrow)
    } else {
        stepframe_core::behaviour::readable_f64(v)
    }
}

impl Panel for WatchesState {
    fn on_event(&mut self, event: &Event, reading: &Reading<'_>, cmd: &mut Commands) {
        let specs = reading.live().map_or(&[][..], |l| &l.watches);
        self.take_event(event, specs, cmd);
    }

    /// Draws the Watches tab.
    fn ui(&mut self, ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
        watches_ui(ui, reading, cmd, self);
    }
}

fn watches_ui(
    ui: &mut egui::Ui,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    state: &mut WatchesState,
) {
    // The host's list, edited as a copy that goes back as one command.
    let mut specs: Vec<WatchSpec> = reading
        .live()
        .map(|l| l.watches.clone())
        .unwrap_or_default();
    // Grown, never cut here: a watch just added reports its value before
    // the view that lists it arrives (Remove drops its own entry).
    if state.status.len() < specs.len() {
        state.status.resize(specs.len(), WatchStatus::default());
    }
    let set = |specs: Vec<WatchSpec>, cmd: &mut Commands| {
        cmd.send(Command::Watches(WatchCommand::Set(specs)));
    };
    // Two rows, so the tab's default width (a third of the right column)
    // holds them whole.
    ui.horizontal(|ui| {
        let label = ui.label("Watch");
        ui.add(
            egui::TextEdit::singleline(&mut state.expr)
                .hint_text("obj(20).y < 0")
                .desired_width(ui.available_width())
                .font(egui::TextStyle::Monospace),
        )
        .labelled_by(label.id)
        .on_hover_text(
            "A rhai expression over the committed state after each tick: obj(id).x/.y/.angle/.vx/.vy/.w/.enabled (a soft body's .particles/.pieces), field(id, \"Behaviour.path\"), contact(a, b), state(id), tick, frame, sim_time, alpha, accumulator, dropped_time…",
        );
    });
    ui.horizontal(|ui| {
        let label = ui.label("Action");
        egui::ComboBox::from_id_salt("watch_action")
            .selected_text(action_label(state.action))
            .width(90.0)
            .show_ui(ui, |ui| {
                for a in [WatchAction::Break, WatchAction::Mark, WatchAction::Plot] {
                    ui.selectable_value(&mut state.action, a, action_label(a));
                }
            })
            .response
            .labelled_by(label.id)
            .on_hover_text("break: stop at the end of the tick where it holds; mark: a marker on the timeline; show value: its value after every tick");
        if ui.button("Add watch").clicked() {
            let expr = state.expr.trim().to_string();
            match WatchSet::check(&expr) {
                Ok(()) => {
                    let mut with = specs.clone();
                    with.push(WatchSpec {
                        expr,
                        action: state.action,
                        enabled: true,
                    });
                    state.expr.clear();
                    state.error = None;
                    set(with, cmd);
                }
                Err(e) => state.error = Some(e.to_string()),
            }
        }
    });
    if let Some(e) = &state.error {
        ui.colored_label(ui.visuals().error_fg_color, e);
    }
    ui.separator();
    if specs.is_empty() {
        ui.weak(
            "No watches. Try obj(20).y < 0 (the player below 0) with break, then Run to first.",
        );
        return;
    }
    let before = reading
        .cursor()
        .or_else(|| reading.live().map(|v| v.world.clock.simulation_tick));
    let mut changed = false;
    let mut remove = None;
    let mut run_to_first = None;
    egui::ScrollArea::vertical()
        .id_salt("watches_scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (i, spec) in specs.iter_mut().enumerate() {
                let status = state.status.get(i).cloned().unwrap_or_default();
                ui.horizontal(|ui| {
                    changed |= ui
                        .checkbox(&mut spec.enabled, format!("#{}", i + 1))
                        .on_hover_text("Enable or disable this watch")
                        .changed();
                    ui.monospace(&spec.expr);
                    ui.weak(action_label(spec.action));
                });
                ui.horizontal(|ui| {
                    ui.add_space(18.0);
                    if ui
                        .small_button("Run to first")
                        .on_hover_text("Play until this watch first holds (it becomes a break watch)")
                        .clicked()
                    {
                        run_to_first = Some(i);
                    }
                    let find = ui
                        .add_enabled(before.is_some(), egui::Button::new("Find previous").small())
                        .on_hover_text("The last tick before the one on screen where it holds, searched in the rewind history: every panel shows it");
                    if find.clicked()
                        && let Some(b) = before
                    {
                        cmd.send(Command::Watches(WatchCommand::FindPrevious {
                            watch: i,
                            before: b,
                        }));
                    }
                    if ui.small_button("Remove").clicked() {
                        remove = Some(i);
                    }
                });
                let line = match (&status.failed, spec.action, status.value, status.held) {
                    (Some(f), ..) => Some((f.clone(), true)),
                    (None, WatchAction::Plot, Some((t, v)), _) => {
                        Some((format!("= {} at tick {t}", value_text(v)), false))
                    }
                    (None, _, _, Some(t)) => Some((format!("last held at tick {t}"), false)),
                    _ => None,
                };
                if let Some((text, failed)) = line {
                    if failed {
                        ui.colored_label(ui.visuals().error_fg_color, text);
                    } else {
                        ui.weak(text);
                    }
                }
            }
        });
    if let Some(i) = run_to_first {
        if let Some(spec) = specs.get_mut(i) {
            spec.action = WatchAction::Break;
            spec.enabled = true;
        }
        set(specs, cmd);
        cmd.back_to_live();
        cmd.send(Command::Run(Run::Play));
        return;
    }
    if let Some(i) = remove {
        specs.remove(i);
        if i < state.status.len() {
            state.status.remove(i);
        }
        changed = true;
    }
    if changed {
        set(specs, cmd);
    }
}
