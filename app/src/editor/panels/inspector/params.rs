//! A behaviour's parameters as typed widgets over their RON text: numbers
//! as drag values in their units, flags as checkboxes, enums as combo boxes
//! of their variants, strings as text, each named by its path with its doc
//! on hover. The RON text stays, collapsed under "Edit as RON", and is all
//! that shows for parameters no widget can hold.
//!
//! **One buffer, two views.** What is edited is the parameter text itself
//! (`EditBuffers::params`, one per behaviour and run); a widget reads its
//! value from the text and writes its change back into the text, replacing
//! that one value where it stands ([`ParamsText`]). Apply sends that text,
//! exactly as the RON field did, as one `EditCommand::Params`: the host
//! checks it as a scene load does, the history repeats it, the journal and
//! Save keep it. So a field the user did not touch keeps its bytes, and
//! with them its exact bits (`0.7853982` stays `0.7853982`, not the
//! `0.79` a drag value shows at two decimals), comments and layout stay,
//! and the defaults the author left out stay out. A changed float is
//! written as its shortest round-trip text (`{:?}`: 1.5 as `1.5`), so the
//! `f32` the widget holds is the `f32` the behaviour runs with.
//!
//! **Which parameter gets which widget.** Two facts meet: the behaviour's
//! rows (`#[derive(Inspect)]`, the ones under `#[inspect(params)]`) give
//! each parameter's path, unit, doc and running value; the host's registry,
//! which holds the parameter type, says what each path is
//! (`SelectedView::param_kinds`, read from the type's deserializer, so a
//! variant offered is spelt as serde reads it). A row gets a widget when
//! its path has a kind and the text writes it, or can add it to a struct it
//! writes:
//!
//! | kind | widget | written |
//! |---|---|---|
//! | `f32`, `f64` | drag value, unit as suffix | `1.5` |
//! | integer | drag value in the type's range | `12` |
//! | `bool` | checkbox | `true` |
//! | string | one-line text | `"left"` |
//! | enum of bare variants | combo box of the variants | `PingPong` |
//!
//! The rest (a list's length, a shape with fields, an empty `Option`, a
//! behaviour without rows or whose type cannot say) is the RON field's.
//! A drag moves a value by half a percent of itself per pixel
//! ([`drag_speed`]): 100 pixels move 1.0 m/s by 0.5 and 300 ms by 150 ms.

use egui::RichText;
use stepframe_core::behaviour::{readable_f32, readable_f64};
use stepframe_core::scene::{ParamKind, ParamKinds, ParamsText};
use stepframe_core::{BehaviourState, Field, FieldValue, ObjectId};

use super::EditBuffers;
use crate::editor::protocol::{Command, EditCommand, Target};
use crate::editor::shared::Commands;

/// Whose parameters a field edits: the live session's, or a what-if fork's
/// branch B's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ParamsRun {
    /// The live session: Apply is an edit through the history, from the
    /// next hook call on.
    Live,
    /// Branch B: Set in B changes B's copy only, from B's next tick.
    B,
}

/// The words of a parameters field: all that tells one run's from the
/// other's.
struct ParamsField {
    /// The label on the button's row, which names the field.
    label: String,
    /// The button's text.
    button: &'static str,
    /// Whether the button can be clicked.
    enabled: bool,
    /// What the button does, on hover.
    button_hover: &'static str,
    /// What the field holds, on hover.
    field_hover: &'static str,
    /// The header the RON field folds under when widgets show.
    ron_header: &'static str,
    /// The field's id, with the object and the behaviour's index.
    salt: &'static str,
}

/// What one behaviour's parameter editor is given: the object and the
/// behaviour's index (`key`), its state now, what its parameters are and
/// the text it runs with.
pub(super) struct ParamsSource<'a> {
    /// The object and the behaviour's index.
    pub key: (ObjectId, usize),
    /// The behaviour now: its rows.
    pub state: &'a BehaviourState,
    /// What each of its parameters is, when its type says.
    pub kinds: Option<&'a ParamKinds>,
    /// The parameter text it runs with.
    pub authored: &'a str,
}

/// One behaviour's parameters for `run`: a label and a button on one row,
/// the widgets, then the RON field (folded when widgets show); all edit
/// one text, kept in `edits` between frames, which the button sends.
pub(super) fn params_ui(
    ui: &mut egui::Ui,
    cmd: &mut Commands,
    edits: &mut EditBuffers,
    source: &ParamsSource<'_>,
    run: ParamsRun,
) {
    let buffers = match run {
        ParamsRun::Live => &mut edits.params,
        ParamsRun::B => &mut edits.params_b,
    };
    let key = source.key;
    let text = buffers
        .entry(key)
        .or_insert_with(|| source.authored.to_string());
    let field = match run {
        ParamsRun::Live => ParamsField {
            label: "edit params".to_string(),
            button: "Apply parameters",
            enabled: text.trim() != source.authored,
            button_hover: "The behaviour runs with these parameters from its next hook call and \
                           keeps its state; an edit the rewind history repeats",
            field_hover: "The parameters, RON, checked as a scene load checks them",
            ron_header: "Edit as RON",
            salt: "params",
        },
        ParamsRun::B => ParamsField {
            label: format!("B params of {}", source.state.name),
            button: "Set in B",
            enabled: true,
            button_hover: "B runs with these parameters from its next tick; A is unchanged",
            field_hover: "What-if: the parameters branch B's copy of this behaviour runs with \
                          (RON, checked as a scene load checks it); its state carries over",
            ron_header: "Edit B as RON",
            salt: "params_b",
        },
    };
    let (object, index) = key;
    let label = ui.horizontal(|ui| {
        let label = ui.label(field.label);
        if ui
            .add_enabled(field.enabled, egui::Button::new(field.button))
            .on_hover_text(field.button_hover)
            .clicked()
        {
            let target = match run {
                ParamsRun::Live => Target::Live,
                ParamsRun::B => Target::B,
            };
            cmd.send(Command::Edit {
                target,
                edit: EditCommand::Params {
                    object,
                    index,
                    params: text.clone(),
                },
            });
        }
        label
    });
    let rows = widget_rows(&source.state.fields, source.kinds);
    let widgets = !rows.is_empty() && widgets_ui(ui, text, &rows, (field.salt, object, index));
    // Multi-line and wrapped: a behaviour's parameters are often longer
    // than the inspector is wide.
    let ron_ui = |ui: &mut egui::Ui, text: &mut String| {
        ui.add(
            egui::TextEdit::multiline(text)
                .code_editor()
                .desired_rows(2)
                .desired_width(f32::INFINITY)
                .id_salt((field.salt, object, index)),
        )
        .labelled_by(label.inner.id)
        .on_hover_text(field.field_hover);
    };
    if widgets {
        egui::CollapsingHeader::new(field.ron_header)
            .id_salt(("ron", field.salt, object, index))
            .default_open(false)
            .show(ui, |ui| ron_ui(ui, text));
    } else {
        ron_ui(ui, text);
    }
}

/// A parameter row that has a kind: its path below the behaviour's name
/// (`speed`, `waypoints[1].x`).
struct ParamRow<'a> {
    /// The path in the parameter text.
    path: &'a str,
    /// What it is.
    kind: &'a ParamKind,
    /// The behaviour's row: unit, doc, running value.
    field: &'a Field,
}

/// The behaviour's parameter rows whose path `kinds` has (list items by
/// their `[]` entry), in the rows' order.
fn widget_rows<'a>(fields: &'a [Field], kinds: Option<&'a ParamKinds>) -> Vec<ParamRow<'a>> {
    let Some(kinds) = kinds else {
        return Vec::new();
    };
    fields
        .iter()
        .filter(|f| f.param)
        .filter_map(|field| {
            let (_, path) = field.path.split_once('.')?;
            let kind = kinds.get(&any_item(path))?;
            Some(ParamRow { path, kind, field })
        })
        .collect()
}

/// `waypoints[1].x` as its kind's path, `waypoints[].x`.
fn any_item(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push('[');
            }
            ']' => {
                in_index = false;
                out.push(']');
            }
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    out
}

/// The widgets of `rows` over `text`, in a grid; a change rewrites `text`.
/// False when none can show (the text does not read, or writes none of
/// them), with a line saying why when the text does not read.
fn widgets_ui(
    ui: &mut egui::Ui,
    text: &mut String,
    rows: &[ParamRow<'_>],
    salt: (&str, ObjectId, usize),
) -> bool {
    let parsed = match ParamsText::parse(text) {
        Ok(p) => p,
        Err(e) => {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("{e}: the fields return once it does"),
            );
            return false;
        }
    };
    let shown: Vec<(&ParamRow<'_>, Value)> = rows
        .iter()
        .filter(|r| parsed.can_set(r.path))
        .filter_map(|r| Some((r, current(&parsed, r)?)))
        .collect();
    if shown.is_empty() {
        return false;
    }
    let mut changed: Option<String> = None;
    egui::Grid::new(("param_widgets", salt))
        .num_columns(2)
        .spacing([8.0, 2.0])
        .show(ui, |ui| {
            for (row, value) in shown {
                let mut hover = row.path.to_string();
                if !row.field.doc.is_empty() {
                    hover = format!("{}\n{hover}", row.field.doc);
                }
                let label = ui
                    .label(RichText::new(row.path).monospace())
                    .on_hover_text(&hover);
                let unit = row.field.unit.as_deref();
                let id = (salt, row.path);
                if let Some(edited) = value_ui(ui, value, row.kind, unit, id, label.id, &hover) {
                    changed = parsed.set(row.path, &edited.literal()).ok();
                }
                ui.end_row();
            }
        });
    if let Some(new) = changed {
        *text = new;
    }
    true
}

/// A parameter's value as a widget holds it.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    /// A flag.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An integer of an unsigned type.
    UInt(u64),
    /// An `f32`, exactly.
    F32(f32),
    /// An `f64`, exactly.
    F64(f64),
    /// A string.
    Text(String),
    /// One of an enum's variants, by name.
    Variant(String),
}

impl Value {
    /// The value as RON writes it: a float as its shortest round-trip text,
    /// a string quoted and escaped, a variant bare.
    fn literal(&self) -> String {
        match self {
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::UInt(u) => u.to_string(),
            Value::F32(x) => format!("{x:?}"),
            Value::F64(x) => format!("{x:?}"),
            Value::Text(s) => ron::to_string(s).unwrap_or_else(|_| format!("{s:?}")),
            Value::Variant(v) => v.clone(),
        }
    }

    /// The same value, floats bit for bit (a NaN is itself; 0.0 is not
    /// -0.0).
    fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::F32(a), Value::F32(b)) => a.to_bits() == b.to_bits(),
            (Value::F64(a), Value::F64(b)) => a.to_bits() == b.to_bits(),
            _ => self == other,
        }
    }

    /// `literal`, as written in a parameter text, read as a `kind` (an
    /// optional value's `Some(...)` unwrapped).
    fn read(literal: &str, kind: &ParamKind) -> Option<Value> {
        let literal = literal
            .strip_prefix("Some(")
            .and_then(|l| l.strip_suffix(')'))
            .map_or(literal, str::trim);
        Some(match kind {
            ParamKind::Bool => Value::Bool(literal.parse().ok()?),
            ParamKind::Int { min, .. } if *min < 0 => Value::Int(literal.parse().ok()?),
            ParamKind::Int { .. } => Value::UInt(literal.parse().ok()?),
            ParamKind::F32 => Value::F32(literal.parse().ok()?),
            ParamKind::F64 => Value::F64(literal.parse().ok()?),
            ParamKind::Text => Value::Text(ron::from_str(literal).ok()?),
            ParamKind::Choice(names) => {
                Value::Variant(names.iter().find(|n| *n == literal)?.clone())
            }
        })
    }

    /// A running value (a row's) as a `kind`.
    fn of(value: &FieldValue, kind: &ParamKind) -> Option<Value> {
        Some(match (kind, value) {
            (ParamKind::Bool, FieldValue::Bool(b)) => Value::Bool(*b),
            (ParamKind::Int { min, .. }, FieldValue::Int(i)) if *min < 0 => Value::Int(*i),
            (ParamKind::Int { min, .. }, FieldValue::UInt(u)) if *min < 0 => {
                Value::Int(i64::try_from(*u).ok()?)
            }
            (ParamKind::Int { .. }, FieldValue::Int(i)) => Value::UInt(u64::try_from(*i).ok()?),
            (ParamKind::Int { .. }, FieldValue::UInt(u)) => Value::UInt(*u),
            (ParamKind::F32, FieldValue::F32(x)) => Value::F32(*x),
            (ParamKind::F64, FieldValue::F64(x)) => Value::F64(*x),
            (ParamKind::Text, FieldValue::Text(s)) => Value::Text(s.clone()),
            (ParamKind::Choice(names), FieldValue::Text(s)) => {
                Value::Variant(names.iter().find(|n| *n == s)?.clone())
            }
            _ => return None,
        })
    }
}

/// The value a row's widget shows: what the text writes, else (a field the
/// text leaves to its default) the running value.
fn current(text: &ParamsText<'_>, row: &ParamRow<'_>) -> Option<Value> {
    match text.literal(row.path) {
        Some(literal) => Value::read(literal, row.kind),
        None => Value::of(&row.field.value, row.kind),
    }
}

/// How far a drag of one pixel moves `value`: half a percent of it, at
/// least `floor` so that a zero can move (0.01 for a float; 0.05 for an
/// integer, 20 pixels a step).
fn drag_speed(value: f64, floor: f64) -> f64 {
    (value.abs() * 0.005).max(floor)
}

/// One widget for `value`, labelled by `label`; the new value when the
/// user changed it.
fn value_ui(
    ui: &mut egui::Ui,
    value: Value,
    kind: &ParamKind,
    unit: Option<&str>,
    id: impl egui::AsIdSalt,
    label: egui::Id,
    hover: &str,
) -> Option<Value> {
    let suffix = unit.map(|u| format!(" {u}")).unwrap_or_default();
    let before = value.clone();
    let (response, new) = match (value, kind) {
        (Value::Bool(mut b), _) => {
            let r = ui.checkbox(&mut b, "");
            (r, Value::Bool(b))
        }
        (Value::Int(mut i), ParamKind::Int { min, max }) => {
            let speed = drag_speed(i as f64, 0.05);
            let top = i64::try_from(*max).unwrap_or(i64::MAX);
            let r = ui.add(
                egui::DragValue::new(&mut i)
                    .speed(speed)
                    .range(*min..=top)
                    .suffix(suffix),
            );
            (r, Value::Int(i))
        }
        (Value::UInt(mut u), ParamKind::Int { max, .. }) => {
            let speed = drag_speed(u as f64, 0.05);
            let r = ui.add(
                egui::DragValue::new(&mut u)
                    .speed(speed)
                    .range(0..=*max)
                    .suffix(suffix),
            );
            (r, Value::UInt(u))
        }
        (Value::F32(mut x), _) => {
            let speed = drag_speed(f64::from(x), 0.01);
            // Shown and typed as the f32 itself: `0.1`, not the widened
            // 0.10000000149011612, nor 0.10 at two decimals.
            let r = ui.add(
                egui::DragValue::new(&mut x)
                    .speed(speed)
                    .custom_formatter(|n, _| readable_f32(n as f32))
                    .custom_parser(|s| s.trim().parse::<f32>().ok().map(f64::from))
                    .suffix(suffix),
            );
            (r, Value::F32(x))
        }
        (Value::F64(mut x), _) => {
            let speed = drag_speed(x, 0.01);
            let r = ui.add(
                egui::DragValue::new(&mut x)
                    .speed(speed)
                    .custom_formatter(|n, _| readable_f64(n))
                    .suffix(suffix),
            );
            (r, Value::F64(x))
        }
        (Value::Text(mut s), _) => {
            let r = ui.add(egui::TextEdit::singleline(&mut s).desired_width(140.0));
            (r, Value::Text(s))
        }
        (Value::Variant(mut v), ParamKind::Choice(names)) => {
            let r = egui::ComboBox::from_id_salt(id)
                .selected_text(v.as_str())
                .show_ui(ui, |ui| {
                    for name in names {
                        ui.selectable_value(&mut v, name.clone(), name.as_str());
                    }
                })
                .response;
            (r, Value::Variant(v))
        }
        (other, _) => {
            ui.weak(other.literal());
            return None;
        }
    };
    response.labelled_by(label).on_hover_text(hover);
    // Compared, not read from the response: a combo box's choice arrives
    // from its popup, not as a change of its button.
    (!new.same(&before)).then_some(new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_float_is_written_as_text_that_reads_back_to_its_exact_bits() {
        let f32s = [
            0.1f32,
            2.5,
            -0.0,
            std::f32::consts::FRAC_PI_4,
            1e-7,
            3.402_823_5e38,
            16.666_666,
        ];
        for x in f32s {
            let text = Value::F32(x).literal();
            let back = Value::read(&text, &ParamKind::F32);
            assert!(
                back.is_some_and(|b| b.same(&Value::F32(x))),
                "{x:?} written {text}"
            );
            let ron: f32 = ron::from_str(&text).expect("ron reads it");
            assert_eq!(ron.to_bits(), x.to_bits(), "{x:?} written {text}");
        }
        for x in [
            0.1f64,
            150.000_000_000_000_43,
            -1e-300,
            16.666_666_666_666_668,
        ] {
            let text = Value::F64(x).literal();
            let ron: f64 = ron::from_str(&text).expect("ron reads it");
            assert_eq!(ron.to_bits(), x.to_bits(), "{x:?} written {text}");
        }
        assert_eq!(Value::F32(0.1).literal(), "0.1");
        assert_eq!(Value::F32(2.0).literal(), "2.0");
    }

    #[test]
    fn strings_are_quoted_variants_bare_and_each_reads_back_as_its_kind() {
        let quoted = Value::Text("say \"hi\"".into()).literal();
        assert_eq!(quoted, r#""say \"hi\"""#);
        assert_eq!(
            Value::read(&quoted, &ParamKind::Text),
            Some(Value::Text("say \"hi\"".into()))
        );
        let modes = ParamKind::Choice(vec!["Loop".into(), "PingPong".into(), "Once".into()]);
        assert_eq!(Value::Variant("Once".into()).literal(), "Once");
        assert_eq!(
            Value::read("PingPong", &modes),
            Some(Value::Variant("PingPong".into()))
        );
        assert_eq!(
            Value::read("Bounce", &modes),
            None,
            "not one of the variants"
        );
        let byte = ParamKind::Int { min: 0, max: 255 };
        assert_eq!(Value::read("Some(12)", &byte), Some(Value::UInt(12)));
        assert_eq!(Value::read("-1", &byte), None);
    }

    #[test]
    fn a_list_items_path_finds_its_kind_at_the_any_item_path() {
        assert_eq!(any_item("waypoints[1].x"), "waypoints[].x");
        assert_eq!(any_item("respawn[12]"), "respawn[]");
        assert_eq!(any_item("speed"), "speed");
    }

    #[test]
    fn text_the_widgets_write_is_what_the_registry_reads_with_untouched_values_exact() {
        let authored =
            "(waypoints: [(x: 0.1, y: 0.0), (x: 2.0, y: 0.0)], speed: 1.0, mode: PingPong)";
        let mut text = authored.to_string();
        for (path, value) in [
            ("speed", Value::F32(2.300_000_2)),
            ("mode", Value::Variant("Once".into())),
            ("relative", Value::Bool(false)),
        ] {
            text = ParamsText::parse(&text)
                .expect("reads")
                .set(path, &value.literal())
                .expect("placed");
        }
        assert_eq!(
            text,
            "(waypoints: [(x: 0.1, y: 0.0), (x: 2.0, y: 0.0)], speed: 2.3000002, mode: Once, relative: false)"
        );
        let registry = stepframe_plugins::registry();
        let made = registry
            .create("KinematicMover", &text)
            .expect("the registry reads it");
        let mut out = stepframe_core::Fields::new("KinematicMover");
        made.inspect(&mut out);
        let rows = out.into_rows();
        let value = |path: &str| {
            rows.iter()
                .find(|f| f.path == path)
                .map(|f| f.value.clone())
        };
        assert_eq!(
            value("KinematicMover.speed"),
            Some(FieldValue::F32(2.300_000_2))
        );
        assert_eq!(
            value("KinematicMover.waypoints[0].x"),
            Some(FieldValue::F32(0.1))
        );
        assert_eq!(
            value("KinematicMover.mode"),
            Some(FieldValue::Text("Once".into()))
        );
        assert_eq!(
            value("KinematicMover.relative"),
            Some(FieldValue::Bool(false))
        );
    }
}
