//! Breakpoints: add one on a hook kind, an object and/or a priority, or on
//! the clock (a frame that ran N ticks, dropped time, a long delta, alpha
//! crossing a threshold, a slow priority group or physics step), with a tick
//! condition and a hit count; enable, disable, remove; the list of hits (a
//! click selects the object). F9 toggles a FixedUpdate breakpoint on the
//! selected object (handled with the other shortcuts).

pub(crate) mod clock_form;
mod form;

use crate::editor::protocol::BreakpointCommand;
use crate::editor::shared::Panel;
use stepframe_core::{Breakpoint, BreakpointId, ClockBreakpoint, Condition, HitCount, ObjectId};

pub use form::BreakpointForm;
use form::form_ui;

use crate::editor::panels::breakpoints::clock_form::ClockChoice;
use crate::editor::protocol::{Command, LiveView};
use crate::editor::shared::{Commands, Reading};

/// One line describing a breakpoint.
pub fn describe(b: &Breakpoint, name: impl Fn(ObjectId) -> String) -> String {
    let mut s = format!(
        "{} on {}",
        b.hook.map(|h| h.name()).unwrap_or("any hook"),
        b.object.map(name).unwrap_or_else(|| "any object".into())
    );
    if let Some(p) = b.priority {
        s.push_str(&format!(", priority {p}"));
    }
    s.push_str(&describe_filters(&b.condition, b.hit_count, b.matches));
    s
}

/// `2nd`, `3rd`, `11th`, `21st`: "every 2nd hit", not "every 2th".
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// One line describing a clock breakpoint.
pub fn describe_clock(b: &ClockBreakpoint) -> String {
    let mut s = b.rule.describe();
    s.push_str(&describe_filters(&b.condition, b.hit_count, b.matches));
    s
}

/// The condition, hit count and match count, as both kinds list them.
fn describe_filters(condition: &Condition, hit_count: HitCount, matches: u64) -> String {
    let mut s = String::new();
    if let Some((a, z)) = condition.ticks {
        if z == u64::MAX {
            s.push_str(&format!(", ticks ≥ {a}"));
        } else {
            s.push_str(&format!(", ticks {a}..={z}"));
        }
    }
    match condition.every_ticks {
        Some(1) => s.push_str(", every tick"),
        Some(n) => s.push_str(&format!(", every {n} ticks")),
        None => {}
    }
    match hit_count {
        HitCount::Always => {}
        HitCount::Equals(n) => s.push_str(&format!(", hit {n} only")),
        HitCount::AtLeast(n) => s.push_str(&format!(", hits ≥ {n}")),
        HitCount::Multiple(1) => s.push_str(", every hit"),
        HitCount::Multiple(n) => s.push_str(&format!(", every {} hit", ordinal(n))),
    }
    s.push_str(&format!(
        " — {}",
        crate::editor::words::count(matches, "match", "matches")
    ));
    s
}

impl Panel for BreakpointForm {
    /// Draws the breakpoints panel (this form is its own state).
    fn ui(&mut self, ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
        breakpoints_ui(ui, reading, cmd, self);
    }
}

/// Draws the breakpoints panel.
fn breakpoints_ui(
    ui: &mut egui::Ui,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    form: &mut BreakpointForm,
) {
    // One scroll area for the whole tab: at the default window size the tab
    // is shorter than the form, and the Add button must stay reachable.
    egui::ScrollArea::vertical()
        .id_salt("breakpoints_scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            form_ui(ui, reading, cmd, form);
            ui.separator();
            if let Some(live) = reading.live() {
                list_ui(ui, reading, cmd, live);
            }
        });
}

/// The breakpoints, then their hits (newest first).
fn list_ui(ui: &mut egui::Ui, shown: &Reading<'_>, cmd: &mut Commands, view: &LiveView) {
    if view.breakpoints.is_empty() && view.clock_breakpoints.is_empty() {
        ui.weak("No breakpoints. Select an object and press F9 for a FixedUpdate breakpoint.");
    }
    for row in &view.breakpoints {
        let b = &row.breakpoint;
        let mut text = describe(b, |id| {
            row.object
                .as_ref()
                .map_or_else(|| shown.object_name(id), |(name, _)| name.clone())
        });
        let mut hover = "Fixed hooks suspend at the end of the tick; others before the hook";
        if row.object.as_ref().is_some_and(|(_, here)| !here) {
            text.push_str(" (not in this scene)");
            hover = "Its object (this id with this name) is not in the open scene: it stays \
                     disabled, and never stops on another object with the same id";
        }
        breakpoint_row(ui, cmd, (b.id, b.enabled), &text, hover);
    }
    for b in &view.clock_breakpoints {
        let hover = ClockChoice::of(&b.rule).hint();
        breakpoint_row(ui, cmd, (b.id, b.enabled), &describe_clock(b), hover);
    }
    ui.strong("Hits");
    if view.hits.is_empty() {
        ui.weak("none yet");
    }
    for hit in view.hits.iter().rev().take(200) {
        let Some((object, name)) = &hit.object else {
            // A clock breakpoint's hit: no object to select.
            ui.label(format!(
                "tick {} frame {}: {}",
                hit.tick, hit.frame, hit.what
            ));
            continue;
        };
        let text = format!(
            "tick {} frame {}: #{} {name} {}",
            hit.tick, hit.frame, hit.breakpoint.0, hit.what
        );
        // Selecting goes to the object only while it is the one that hit.
        let here = view
            .world
            .objects
            .iter()
            .any(|o| o.id == *object && format!("{} {}", o.name, o.id) == *name);
        let row = ui.add_enabled(
            here,
            egui::Button::selectable(shown.selection() == Some(*object), text).truncate(),
        );
        if row
            .on_hover_text("Click to select the object")
            .on_disabled_hover_text("Its object is not in the open scene")
            .clicked()
        {
            cmd.select(Some(*object));
        }
    }
}

/// One breakpoint of the list: enable, remove, what it is.
fn breakpoint_row(
    ui: &mut egui::Ui,
    cmd: &mut Commands,
    (id, enabled): (BreakpointId, bool),
    text: &str,
    hover: &str,
) {
    ui.horizontal(|ui| {
        let mut on = enabled;
        if ui
            .checkbox(&mut on, format!("#{}", id.0))
            .on_hover_text(
                "Enable or disable this breakpoint (disabled ones neither count nor suspend)",
            )
            .changed()
        {
            cmd.send(Command::Breakpoints(BreakpointCommand::Enable(id, on)));
        }
        // Remove before the text: a long description (or a match count
        // growing a digit) never pushes it off the tile or from under the
        // pointer; the text is cut to the tile and whole on hover.
        if ui
            .small_button("Remove")
            .on_hover_text("Delete this breakpoint")
            .clicked()
        {
            cmd.send(Command::Breakpoints(BreakpointCommand::Remove(id)));
        }
        ui.add(egui::Label::new(text).truncate())
            .on_hover_text(format!("{text}\n{hover}"));
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use stepframe_core::HookKind;

    #[test]
    fn descriptions_count_in_words_that_agree() {
        let mut b = Breakpoint::on(HookKind::FixedUpdate, ObjectId(7));
        b.matches = 1;
        b.hit_count = HitCount::Multiple(2);
        b.condition.every_ticks = Some(1);
        assert_eq!(
            describe(&b, |id| format!("Player {id}")),
            "FixedUpdate on Player #7, every tick, every 2nd hit — 1 match"
        );
        let ordinals: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            ordinals,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
                "111th"
            ]
        );
    }
}
