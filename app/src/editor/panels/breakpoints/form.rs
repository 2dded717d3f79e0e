//! The Breakpoints tab's form: what a new breakpoint stops on (a hook of an
//! object, or the clock), its tick condition and hit count, kept as the
//! typed text and checked when Add is pressed.

use stepframe_core::{
    Breakpoint, ClockBreakpoint, Condition, HitCount, HookKind, NamedPriority, ObjectId, Priority,
};

use super::clock_form::{ClockChoice, FormError};
use crate::editor::protocol::{BreakpointCommand, Command};
use crate::editor::shared::{Commands, Reading};

/// Which object a new breakpoint filters on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TargetChoice {
    /// The object selected when "Add" is pressed.
    #[default]
    Selected,
    /// Any object.
    Any,
}

/// How the hit count field is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HitRule {
    /// Every match suspends.
    #[default]
    Always,
    /// Only the n-th match.
    Equals,
    /// The n-th match and later.
    AtLeast,
    /// Every n-th match.
    Multiple,
}

impl HitRule {
    const ALL: [HitRule; 4] = [
        HitRule::Always,
        HitRule::Equals,
        HitRule::AtLeast,
        HitRule::Multiple,
    ];

    fn label(self) -> &'static str {
        match self {
            HitRule::Always => "every hit",
            HitRule::Equals => "hit = n",
            HitRule::AtLeast => "hit ≥ n",
            HitRule::Multiple => "every n-th hit",
        }
    }
}

/// What a new breakpoint stops on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FormKind {
    /// A hook call.
    #[default]
    Hook,
    /// The shape of a frame or a tick.
    Clock,
}

/// The fields of the "add breakpoint" form, kept as typed text.
#[derive(Clone, Debug, PartialEq)]
pub struct BreakpointForm {
    /// Hook or clock breakpoint.
    pub kind: FormKind,
    /// The clock rule (clock breakpoints).
    pub clock: ClockChoice,
    /// The clock rule's value: ticks, ms or a threshold.
    pub clock_value: String,
    /// Hook kind (`None` = any hook).
    pub hook: Option<HookKind>,
    /// Object filter.
    pub target: TargetChoice,
    /// Priority filter: empty for any, a number, or a name (`Early`).
    pub priority: String,
    /// First tick, empty for none.
    pub from_tick: String,
    /// Last tick, empty for none.
    pub to_tick: String,
    /// Only ticks divisible by this, empty for every tick.
    pub every: String,
    /// Hit count rule.
    pub hit_rule: HitRule,
    /// The n of the hit count rule.
    pub hit_n: String,
    /// Why the last "Add" was refused.
    pub error: Option<FormError>,
}

impl Default for BreakpointForm {
    fn default() -> BreakpointForm {
        BreakpointForm {
            kind: FormKind::Hook,
            clock: ClockChoice::TicksAtLeast,
            clock_value: "2".to_string(),
            hook: Some(HookKind::FixedUpdate),
            target: TargetChoice::Selected,
            priority: String::new(),
            from_tick: String::new(),
            to_tick: String::new(),
            every: String::new(),
            hit_rule: HitRule::Always,
            hit_n: String::new(),
            error: None,
        }
    }
}

fn parse_opt_u64(text: &str, field: &'static str) -> Result<Option<u64>, FormError> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    t.parse::<u64>().map(Some).map_err(|_| FormError::NotWhole {
        field,
        text: t.to_string(),
    })
}

fn parse_priority(text: &str) -> Result<Option<Priority>, FormError> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    if let Ok(n) = t.parse::<i32>() {
        return Ok(Some(Priority(n)));
    }
    NamedPriority::ALL
        .into_iter()
        .find(|n| format!("{n:?}").eq_ignore_ascii_case(t))
        .map(|n| Some(n.into()))
        .ok_or_else(|| FormError::Priority(t.to_string()))
}

impl BreakpointForm {
    /// The breakpoint the form describes, or why it cannot be built.
    pub fn build(&self, selected: Option<ObjectId>) -> Result<Breakpoint, FormError> {
        let object = match self.target {
            TargetChoice::Any => None,
            TargetChoice::Selected => Some(selected.ok_or(FormError::NoSelection)?),
        };
        let priority = parse_priority(&self.priority)?;
        let (condition, hit_count) = self.condition_and_hit_count()?;
        Ok(Breakpoint {
            enabled: true,
            hook: self.hook,
            object,
            priority,
            condition,
            hit_count,
            ..Breakpoint::default()
        })
    }

    /// The clock breakpoint the form describes, or why it cannot be built.
    pub fn build_clock(&self) -> Result<ClockBreakpoint, FormError> {
        let priority = parse_priority(&self.priority)?;
        let rule = self.clock.build(&self.clock_value, priority)?;
        let (condition, hit_count) = self.condition_and_hit_count()?;
        let mut b = ClockBreakpoint::on(rule);
        b.condition = condition;
        b.hit_count = hit_count;
        Ok(b)
    }

    /// The tick condition and hit count, shared by both kinds.
    fn condition_and_hit_count(&self) -> Result<(Condition, HitCount), FormError> {
        let from = parse_opt_u64(&self.from_tick, "from tick")?;
        let to = parse_opt_u64(&self.to_tick, "to tick")?;
        let ticks = match (from, to) {
            (None, None) => None,
            (a, b) => {
                let (a, b) = (a.unwrap_or(0), b.unwrap_or(u64::MAX));
                if a > b {
                    return Err(FormError::EmptyRange(a, b));
                }
                Some((a, b))
            }
        };
        let every_ticks = parse_opt_u64(&self.every, "every N ticks")?;
        if every_ticks == Some(0) {
            return Err(FormError::EveryZero);
        }
        let n = parse_opt_u64(&self.hit_n, "hit count n")?;
        let hit_count = match (self.hit_rule, n) {
            (HitRule::Always, _) => HitCount::Always,
            (_, None) | (_, Some(0)) => {
                return Err(FormError::NoHitCount);
            }
            (HitRule::Equals, Some(n)) => HitCount::Equals(n),
            (HitRule::AtLeast, Some(n)) => HitCount::AtLeast(n),
            (HitRule::Multiple, Some(n)) => HitCount::Multiple(n),
        };
        let condition = Condition {
            ticks,
            every_ticks,
            frames: None,
        };
        Ok((condition, hit_count))
    }
}

/// The form: its fields, two a row so it fits the tab at the default size, and Add.
pub(super) fn form_ui(
    ui: &mut egui::Ui,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    form: &mut BreakpointForm,
) {
    let selection = reading.selection();
    let selected_name = selection.map(|id| reading.object_name(id));
    egui::Grid::new("breakpoint_form")
        .num_columns(2)
        .spacing([6.0, 4.0])
        .show(ui, |ui| {
            let label = ui.label("Stop on");
            ui.horizontal(|ui| {
                ui.selectable_value(&mut form.kind, FormKind::Hook, "a hook")
                    .on_hover_text("Stop when a hook of an object is called");
                ui.selectable_value(&mut form.kind, FormKind::Clock, "the clock")
                    .on_hover_text(
                        "Stop where the loop itself misbehaves: a catch-up frame, dropped time, a long delta, alpha crossing a value, a slow priority or physics step",
                    );
            })
            .response
            .labelled_by(label.id);
            ui.end_row();
            if form.kind == FormKind::Clock {
                clock_rows(ui, form);
            } else {
                hook_rows(ui, form, selected_name.as_deref());
            }
            // Two fields a row, so the whole form (and its Add button) fits
            // the tab at the default window size.
            let from_tick = Field {
                name: "From tick",
                text: &mut form.from_tick,
                hover: "First tick that can hit (empty: from the start)",
            };
            from_tick.row_ui(ui, |ui| {
                Field {
                    name: "To tick",
                    text: &mut form.to_tick,
                    hover: "Last tick that can hit (empty: no end)",
                }
                .ui(ui);
            });
            let every = Field {
                name: "Every N ticks",
                text: &mut form.every,
                hover: "Only every N-th tick, counted from From tick (from 10, every 5: ticks 10, 15, 20…; without From tick, from tick 0); empty: every tick",
            };
            every.row_ui(ui, |ui| {
                if form.kind == FormKind::Hook || form.clock.needs_priority() {
                    Field {
                        name: "Priority",
                        text: &mut form.priority,
                        hover: "Only behaviours at this priority. Empty for any; a number or a name (Early, Default…)",
                    }
                    .ui(ui);
                }
            });
            hit_count_row(ui, form);
        });
    ui.horizontal(|ui| {
        if ui
            .button("Add breakpoint")
            .on_hover_text("Add a breakpoint with these filters (F9 toggles a plain FixedUpdate breakpoint on the selection)")
            .clicked()
        {
            let command = match form.kind {
                FormKind::Hook => form
                    .build(selection)
                    .map(|b| Command::Breakpoints(BreakpointCommand::Add(b))),
                FormKind::Clock => form
                    .build_clock()
                    .map(|b| Command::Breakpoints(BreakpointCommand::AddClock(b))),
            };
            match command {
                Ok(c) => {
                    form.error = None;
                    cmd.send(c);
                }
                Err(e) => form.error = Some(e),
            }
        }
        if let Some(e) = &form.error {
            ui.colored_label(ui.visuals().error_fg_color, e.to_string());
        }
    });
}

/// The clock rule and its value.
fn clock_rows(ui: &mut egui::Ui, form: &mut BreakpointForm) {
    let label = ui.label("Rule");
    egui::ComboBox::from_id_salt("bp_clock_rule")
        .selected_text(form.clock.label())
        .show_ui(ui, |ui| {
            for c in ClockChoice::ALL {
                ui.selectable_value(&mut form.clock, c, c.label())
                    .on_hover_text(c.hint());
            }
        })
        .response
        .labelled_by(label.id)
        .on_hover_text(form.clock.hint());
    ui.end_row();
    // The value's row is always there (greyed out for a rule without
    // one), so the rows below never jump when the rule changes.
    match form.clock.value_label() {
        Some(what) => Field {
            name: what,
            text: &mut form.clock_value,
            hover: form.clock.hint(),
        }
        .ui(ui),
        None => {
            let label = ui.weak("Value");
            let mut none = String::new();
            ui.add_enabled(
                false,
                egui::TextEdit::singleline(&mut none)
                    .hint_text("none for this rule")
                    .desired_width(FIELD_WIDTH),
            )
            .labelled_by(label.id);
        }
    }
    ui.end_row();
}

/// The hook kind and the object filter.
fn hook_rows(ui: &mut egui::Ui, form: &mut BreakpointForm, selected_name: Option<&str>) {
    let label = ui.label("Hook");
    egui::ComboBox::from_id_salt("bp_hook")
        .selected_text(form.hook.map(|h| h.name()).unwrap_or("any hook"))
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut form.hook, None, "any hook");
            for h in HookKind::ALL {
                ui.selectable_value(&mut form.hook, Some(h), h.name());
            }
        })
        .response
        .labelled_by(label.id)
        .on_hover_text(
            "Which hook kind; FixedUpdate, MidStep and Contact suspend at the end of the tick",
        );
    ui.end_row();
    let selected_text = match (&form.target, selected_name) {
        (TargetChoice::Selected, Some(n)) => format!("selected: {n}"),
        (TargetChoice::Selected, None) => "selected (none)".to_string(),
        (TargetChoice::Any, _) => "any object".to_string(),
    };
    let label = ui.label("Object");
    egui::ComboBox::from_id_salt("bp_object")
        .selected_text(selected_text)
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut form.target, TargetChoice::Selected, "selected object");
            ui.selectable_value(&mut form.target, TargetChoice::Any, "any object");
        })
        .response
        .labelled_by(label.id)
        .on_hover_text("Filter on the selected object, or match any object");
    ui.end_row();
}

/// The hit count rule and its n, on one row.
fn hit_count_row(ui: &mut egui::Ui, form: &mut BreakpointForm) {
    let label = ui.label("Hit count");
    ui.horizontal(|ui| {
        egui::ComboBox::from_id_salt("bp_hit_count")
            .selected_text(form.hit_rule.label())
            .width(110.0)
            .show_ui(ui, |ui| {
                for r in HitRule::ALL {
                    ui.selectable_value(&mut form.hit_rule, r, r.label());
                }
            })
            .response
            .labelled_by(label.id)
            .on_hover_text("Which matches suspend, counted after the condition");
        let always = form.hit_rule == HitRule::Always;
        let label = ui.label("n");
        ui.add_enabled(
            !always,
            egui::TextEdit::singleline(&mut form.hit_n).desired_width(FIELD_WIDTH),
        )
        .labelled_by(label.id)
        .on_hover_text("The n of the hit count rule")
        .on_disabled_hover_text("Choose a hit count rule other than \"every hit\"");
    });
    ui.end_row();
}

/// Width of the form's number fields: ticks and counts fit in it.
const FIELD_WIDTH: f32 = 60.0;

/// A number field of the form: its label, its text and its hover text.
struct Field<'a> {
    /// The label before the field (it names the field for AccessKit too).
    name: &'a str,
    /// What the user typed.
    text: &'a mut String,
    /// What the field means.
    hover: &'a str,
}

impl Field<'_> {
    /// The label, then the field, in the current layout.
    fn ui(self, ui: &mut egui::Ui) {
        let label = ui.label(self.name);
        self.field_ui(ui, label.id);
    }

    /// A grid row: the label in the first column; the field, then what
    /// `beside` draws, in the second (two fields a row, so the whole form
    /// fits the tab).
    fn row_ui(self, ui: &mut egui::Ui, beside: impl FnOnce(&mut egui::Ui)) {
        let label = ui.label(self.name);
        ui.horizontal(|ui| {
            self.field_ui(ui, label.id);
            beside(ui);
        });
        ui.end_row();
    }

    /// The field alone, labelled by `label`.
    fn field_ui(self, ui: &mut egui::Ui, label: egui::Id) {
        ui.add(egui::TextEdit::singleline(self.text).desired_width(FIELD_WIDTH))
            .labelled_by(label)
            .on_hover_text(self.hover);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_builds_a_conditioned_breakpoint_on_the_selection() {
        let form = BreakpointForm {
            from_tick: "20".into(),
            every: "5".into(),
            hit_rule: HitRule::AtLeast,
            hit_n: "2".into(),
            priority: "early".into(),
            ..BreakpointForm::default()
        };
        let b = form.build(Some(ObjectId(7))).unwrap();
        assert_eq!(b.hook, Some(HookKind::FixedUpdate));
        assert_eq!(b.object, Some(ObjectId(7)));
        assert_eq!(b.priority, Some(Priority(-100)));
        assert_eq!(b.condition.ticks, Some((20, u64::MAX)));
        assert_eq!(b.condition.every_ticks, Some(5));
        assert_eq!(b.hit_count, HitCount::AtLeast(2));
        assert!(b.enabled);
    }

    #[test]
    fn form_refuses_what_cannot_hit() {
        let form = BreakpointForm::default();
        assert_eq!(form.build(None).unwrap_err(), FormError::NoSelection);
        let form = BreakpointForm {
            from_tick: "9".into(),
            to_tick: "3".into(),
            ..BreakpointForm::default()
        };
        assert_eq!(
            form.build(Some(ObjectId(1))).unwrap_err(),
            FormError::EmptyRange(9, 3)
        );
        let form = BreakpointForm {
            hit_rule: HitRule::Equals,
            ..BreakpointForm::default()
        };
        assert_eq!(
            form.build(Some(ObjectId(1))).unwrap_err(),
            FormError::NoHitCount
        );
    }
}
