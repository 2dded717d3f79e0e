//! The script code pane: a rhai file of the scene with line numbers, gutter
//! breakpoints (conditions, logpoints), the hit that suspended the session
//! (highlighted line, locals, call stack, the object's committed pose), and an
//! edit mode whose Save writes the file atomically and asks the worker to
//! reload it between frames.
//!
//! The breakpoint table and the compiled-script cache belong to the session's
//! script host, which the worker owns: the pane reads them from the latest
//! view ([`ScriptsView`]) and changes them with [`ScriptCommand`]s, applied
//! between frames like every other command. A reload goes through the worker
//! too, so a new version is compiled between two outer frames and adopted at
//! the next frame boundary, as `docs/scripts.md` describes.

use crate::editor::protocol::{EditCommand, Target};
use crate::editor::shared::Panel;
use std::path::{Path, PathBuf};

use egui::{Color32, RichText};
use stepframe_core::{SuspendReason, Suspension};
use stepframe_plugins::script::{self, LineBreakpoint, ScriptError, ScriptHit};

use crate::editor::protocol::{Command, Event, ScriptCommand, ScriptsView};
use crate::editor::shared::{Action, Commands, Reading};
use crate::editor::workspace::Pane;

mod debug;
use debug::{breakpoint_form_ui, breakpoint_row_ui, hit_ui, open_breakpoint_form};

/// Breakpoint dot colour.
const RED: Color32 = Color32::from_rgb(230, 60, 60);
const GREEN: Color32 = Color32::from_rgb(90, 190, 90);
/// Logpoint diamond colour.
const LOGPOINT: Color32 = Color32::from_rgb(230, 160, 40);
/// Background of the line the session stopped at.
const HIT_BACKGROUND: Color32 = Color32::from_rgb(110, 95, 20);
/// Behind the line a hook failed at (run time), as a compiler marks an error.
const FAILED_BACKGROUND: Color32 = Color32::from_rgb(120, 30, 30);

/// A script the pane offers.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptEntry {
    /// File name shown on its button.
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// The script's key in the breakpoint table (resolved, canonical path).
    pub key: String,
    /// True when a `Script` behaviour of the loaded scene uses it.
    pub used: bool,
}

/// What the code pane keeps between UI frames.
#[derive(Clone, Debug, Default)]
pub struct CodePaneState {
    /// The scene the script list was built for.
    scene: Option<PathBuf>,
    /// Scripts of the scene first, then the other files of `assets/scripts/`.
    pub scripts: Vec<ScriptEntry>,
    /// Index into `scripts` of the script shown.
    pub current: Option<usize>,
    /// Edit mode: the text field instead of the read-only view.
    pub editing: bool,
    /// The text being edited.
    pub buffer: String,
    /// The line whose condition / log message the small form edits.
    pub form_line: Option<usize>,
    /// Condition field of the form.
    pub condition_field: String,
    /// Log message field of the form.
    pub message_field: String,
    /// Result of the last Save (written, or why writing failed).
    pub save_status: Option<String>,
    /// The line the session stopped at, in the shown script.
    pub highlight: Option<usize>,
    /// The script breakpoint hit behind the current suspension.
    pub hit: Option<ScriptHit>,
    /// `(tick, frame)` of the suspension `hit` was taken for.
    hit_for: Option<(u64, u64)>,
    /// Scroll the highlighted line into view at the next draw.
    scroll_to_hit: bool,
}

/// A suspension at a script line breakpoint (the pane opens itself for it).
fn is_script_stop(s: &Suspension) -> bool {
    matches!(&s.reason, SuspendReason::Requested { message, .. }
        if message.starts_with("script breakpoint"))
}

impl CodePaneState {
    /// The script shown, if any.
    pub fn current_entry(&self) -> Option<&ScriptEntry> {
        self.current.and_then(|i| self.scripts.get(i))
    }
}

impl Panel for CodePaneState {
    /// The pane opens itself for a stop at a script breakpoint.
    fn on_event(&mut self, event: &Event, _reading: &Reading<'_>, cmd: &mut Commands) {
        if let Event::Suspended(s) = event
            && is_script_stop(s)
        {
            cmd.act(Action::OpenPane(Pane::Code));
        }
    }

    /// Draws the code pane.
    fn ui(&mut self, ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
        code_pane_ui(ui, reading, cmd, self);
    }
}

/// Script paths a scene file mentions (every quoted string ending in `.rhai`),
/// in file order: cheaper than loading the scene again, and the scene loader
/// hands the `Script` behaviour only this text anyway.
fn scene_script_paths(text: &str) -> Vec<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .filter(|s| s.ends_with(".rhai"))
        .map(str::to_string)
        .collect()
}

/// Builds the script list for a scene: its scripts first, then the other
/// `.rhai` files of its `assets/scripts/`, each once.
fn list_scripts(scene: &Path) -> Vec<ScriptEntry> {
    let scene_dir = scene.parent().unwrap_or(Path::new("."));
    let mut out: Vec<ScriptEntry> = Vec::new();
    let push = |path: PathBuf, used: bool, out: &mut Vec<ScriptEntry>| {
        let key = script::script_key(&path);
        if out.iter().any(|e| e.key == key) {
            return;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        out.push(ScriptEntry {
            name,
            path,
            key,
            used,
        });
    };
    if let Ok(text) = std::fs::read_to_string(scene) {
        for p in scene_script_paths(&text) {
            push(script::resolve_in(scene_dir, Path::new(&p)), true, &mut out);
        }
    }
    if let Ok(entries) = std::fs::read_dir(script::assets_dir(scene_dir).join("scripts")) {
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "rhai"))
            .collect();
        files.sort();
        for f in files {
            push(f, false, &mut out);
        }
    }
    out
}

/// Keeps the script list, the shown script and the hit in step with the
/// latest view: a new scene rebuilds the list, a script-breakpoint
/// suspension shows its script and line, a resume clears the highlight.
fn sync(reading: &Reading<'_>, code: &mut CodePaneState) {
    let scene = reading.live().and_then(|v| v.scene_path.clone());
    if scene != code.scene {
        code.scripts = scene.as_deref().map(list_scripts).unwrap_or_default();
        code.current = if code.scripts.is_empty() {
            None
        } else {
            Some(0)
        };
        code.scene = scene;
        code.editing = false;
        code.form_line = None;
    }
    let last_hit = reading.published().scripts.last_hit.clone();
    let suspension = reading.live().and_then(|v| v.world.suspension.clone());
    let script_stop = suspension.filter(is_script_stop);
    match script_stop {
        Some(s) => {
            if code.hit_for != Some((s.tick, s.frame)) {
                code.hit_for = Some((s.tick, s.frame));
                code.hit = last_hit;
                if let Some(hit) = &code.hit {
                    let index = match code.scripts.iter().position(|e| e.key == hit.path) {
                        Some(i) => i,
                        None => {
                            let path = PathBuf::from(&hit.path);
                            code.scripts.push(ScriptEntry {
                                name: path
                                    .file_name()
                                    .map(|n| n.to_string_lossy().into_owned())
                                    .unwrap_or_else(|| hit.path.clone()),
                                key: hit.path.clone(),
                                path,
                                used: true,
                            });
                            code.scripts.len() - 1
                        }
                    };
                    code.current = Some(index);
                    code.scroll_to_hit = true;
                }
            }
        }
        None => {
            code.hit_for = None;
            code.hit = None;
        }
    }
    code.highlight = match (&code.hit, code.current_entry()) {
        (Some(hit), Some(entry)) if hit.path == entry.key => Some(hit.line),
        _ => None,
    };
}

/// The pane itself: script choice, code with gutter, breakpoint form, the
/// hit, edit mode.
fn code_pane_ui(
    ui: &mut egui::Ui,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    code: &mut CodePaneState,
) {
    sync(reading, code);
    let scripts = reading.published().scripts.clone();
    ui.horizontal_wrapped(|ui| {
        ui.strong("Script");
        let mut chosen = None;
        for (i, entry) in code.scripts.iter().enumerate() {
            let tip = if entry.used {
                format!("{} (used by the scene)", entry.path.display())
            } else {
                format!(
                    "{} (in assets/scripts, not used by the scene)",
                    entry.path.display()
                )
            };
            let text = if entry.used {
                RichText::new(&entry.name).strong()
            } else {
                RichText::new(&entry.name)
            };
            if ui
                .selectable_label(code.current == Some(i), text)
                .on_hover_text(tip)
                .clicked()
            {
                chosen = Some(i);
            }
        }
        if let Some(i) = chosen
            && code.current != Some(i)
        {
            code.current = Some(i);
            code.editing = false;
            code.form_line = None;
            code.save_status = None;
        }
    });
    let Some(entry) = code.current_entry().cloned() else {
        ui.label("No script: the scene has no Script behaviour and assets/scripts/ is empty.");
        return;
    };

    ui.horizontal(|ui| {
        let was_editing = code.editing;
        ui.toggle_value(&mut code.editing, "✏ Edit")
            .on_hover_text("Edit the file; Save writes it and the script reloads at the next frame");
        if code.editing && !was_editing {
            code.buffer = std::fs::read_to_string(&entry.path)
                .ok()
                .or_else(|| scripts.script(&entry.key).map(|s| s.text.to_string()))
                .unwrap_or_default();
            code.save_status = None;
        }
        if code.editing {
            if ui
                .button("💾 Save")
                .on_hover_text("Write the file (atomically) and hot-reload it between frames; a syntax error keeps the old version running")
                .clicked()
            {
                save(cmd, code, &entry);
            }
            if reading.fork().is_some()
                && ui
                    .button("▶ Run in B")
                    .on_hover_text(
                        "What-if: branch B runs this text from its next frame; the file is \
                         not written and the live session A runs on unchanged",
                    )
                    .clicked()
            {
                cmd.send(Command::Edit { target: Target::B, edit: EditCommand::Script {
                    key: entry.key.clone(),
                    text: code.buffer.clone(),
                } });
                code.save_status = Some("sent to branch B (the file is unchanged)".to_string());
            }
            if ui
                .button("Revert")
                .on_hover_text("Discard the edits: reload the text from the file")
                .clicked()
            {
                code.buffer = std::fs::read_to_string(&entry.path).unwrap_or_default();
            }
        }
        // What the last Save or reload says, in the rest of this row.
        let failure = scripts
            .script(&entry.key)
            .and_then(|s| s.failure.as_ref())
            .map(|f| failure_text(f, reading));
        status_ui(ui, code, &scripts, &entry, failure.as_deref());
    });

    // Rows that are there whatever they say, so the code below them never
    // moves when a notice comes or goes or a breakpoint is toggled.
    engines_ui(ui, &scripts, &entry);
    breakpoint_row_ui(ui, code, &scripts, &entry);
    // The hit goes under the code, which gives up rows at its bottom for
    // it, never at its top.
    // At most half the pane, its own rows scrolling, resizable by its
    // edge: at 1280×800 a hit's locals and stack once took the pane's
    // height and covered the very line it stopped at.
    if code.hit.is_some() {
        let half = (ui.available_height() * 0.5).max(80.0);
        egui::Panel::bottom("code_pane_hit")
            .resizable(true)
            .default_size(half)
            .max_size(half)
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("code_pane_hit_scroll")
                    .auto_shrink([false, true])
                    .show(ui, |ui| hit_ui(ui, reading, cmd, code));
            });
    }
    // Where the code starts: the breakpoint form's place when its line is
    // not on screen.
    let code_area = ui.available_rect_before_wrap();
    let mut form_anchor = None;

    if code.editing {
        let label = ui.label("Script text");
        egui::ScrollArea::vertical()
            .id_salt("code_edit_scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| edit_ui(ui, code, label.id));
    } else {
        // The program in force when the session runs it, else the file.
        let source = match scripts.script(&entry.key) {
            Some(s) => s.text.to_string(),
            None => std::fs::read_to_string(&entry.path)
                .unwrap_or_else(|e| format!("// cannot read {}: {e}", entry.path.display())),
        };
        let failed = scripts
            .script(&entry.key)
            .and_then(|s| s.failure.as_ref())
            .map(|f| (f.line, failure_text(f, reading)));
        form_anchor = code_view_ui(
            ui,
            cmd,
            code,
            (scripts.lines(&entry.key), failed),
            &entry,
            &source,
        );
    }
    // The form floats over the code just under its line (over it when
    // there is no room below): opening it moves no line, and the line it is
    // about stays in sight.
    if code.form_line.is_some() {
        let id = ui.scope_id().with("code_bp_form");
        let height = ui
            .ctx()
            .memory(|m| m.area_rect(id))
            .map_or(0.0, |r| r.height());
        let (at, pivot) = match form_anchor {
            Some(r) if r.bottom() + height > code_area.bottom() => {
                (r.left_top(), egui::Align2::LEFT_BOTTOM)
            }
            Some(r) => (r.left_bottom(), egui::Align2::LEFT_TOP),
            None => (code_area.left_top(), egui::Align2::LEFT_TOP),
        };
        egui::Area::new(id)
            .order(egui::Order::Foreground)
            .fixed_pos(at)
            .pivot(pivot)
            .constrain_to(code_area)
            .show(ui.ctx(), |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    breakpoint_form_ui(ui, cmd, code, &scripts, &entry);
                });
            });
    }
}

/// The edit mode's text with its gutter: the number of each source line
/// beside the first row it is laid out on, and nothing beside the rows a
/// long line wraps into, so an error's line:column is found at a glance at
/// any width. The gutter is laid out from the field's own rows (its galley),
/// after the field, in the space kept for it on the left.
fn edit_ui(ui: &mut egui::Ui, code: &mut CodePaneState, label: egui::Id) {
    ui.horizontal_top(|ui| {
        let font = egui::TextStyle::Monospace.resolve(ui.style());
        let digit = ui.fonts_mut(|f| f.glyph_width(&font, '0'));
        let (gutter, _) =
            ui.allocate_exact_size(egui::vec2(digit * GUTTER_DIGITS, 0.0), egui::Sense::hover());
        let edit = egui::TextEdit::multiline(&mut code.buffer)
            .code_editor()
            .desired_width(f32::INFINITY)
            .desired_rows(30)
            .show(ui);
        edit.response.response.labelled_by(label);
        let mut line = 1;
        let mut starts_line = true;
        for row in &edit.galley.rows {
            if starts_line {
                let top = edit.galley_pos.y + row.pos.y;
                let rect = egui::Rect::from_min_size(
                    egui::pos2(gutter.left(), top),
                    egui::vec2(gutter.width(), row.size.y),
                );
                let number = RichText::new(line.to_string()).monospace().weak();
                ui.scope_builder(
                    egui::UiBuilder::new()
                        .max_rect(rect)
                        .layout(egui::Layout::right_to_left(egui::Align::Min)),
                    |ui| {
                        ui.add_space(digit);
                        ui.add(egui::Label::new(number).selectable(false))
                            .on_hover_text("Line numbers, as in error messages (line:column)");
                    },
                );
            }
            starts_line = row.ends_with_newline;
            if starts_line {
                line += 1;
            }
        }
    });
}

/// Digits' widths the edit gutter keeps: four digits and a space.
const GUTTER_DIGITS: f32 = 5.0;

/// What the last Save or reload says, cut to the room left in its row
/// (whole on hover): a syntax error (red), else a hook that failed at run
/// time (`failure`, red: the program in force failed, whatever the last
/// save said), over the save's outcome. It has a row of its own to share,
/// so it never pushes the code down.
fn status_ui(
    ui: &mut egui::Ui,
    code: &CodePaneState,
    scripts: &ScriptsView,
    entry: &ScriptEntry,
    failure: Option<&str>,
) {
    let compile_error = scripts
        .script(&entry.key)
        .and_then(|s| s.compile_error.clone());
    let saved = code.save_status.clone().unwrap_or_default();
    match (&compile_error, failure) {
        (Some(e), _) => {
            let text = syntax_error_text(e);
            ui.add(egui::Label::new(RichText::new(&text).color(RED)).truncate())
                .on_hover_text(format!("{text}\n{}\n{saved}", e.path));
        }
        (None, Some(text)) => {
            ui.add(egui::Label::new(RichText::new(text).color(RED)).truncate())
                .on_hover_text(format!("{text}\n{saved}"));
        }
        (None, None) if !saved.is_empty() => {
            ui.add(egui::Label::new(&saved).truncate())
                .on_hover_text(&saved);
        }
        (None, None) => {}
    }
}

/// `fixed_update failed at 7:20 on Guard #60, tick 6: …; its hooks stop
/// until the script is saved again` for the pane: where, on which object
/// (named as the live world names it), and what brings it back.
fn failure_text(f: &script::ScriptFailure, reading: &Reading<'_>) -> String {
    let name = reading
        .live()
        .and_then(|l| l.world.objects.iter().find(|o| o.id == f.object))
        .map(|o| format!("{} {}", o.name, o.id))
        .unwrap_or_else(|| f.object.to_string());
    format!(
        "{} failed at {}:{} on {name}, tick {}: {}; its hooks stop until the script is saved again",
        f.function, f.line, f.column, f.tick, f.message
    )
}

/// Which engine each hook function runs on: `⚡ fixed_update` (compiled), or
/// `on_contact: rhai` with the reason on hover. Script writers see at a glance
/// which functions cost rhai's price and which line keeps them there.
fn engines_ui(ui: &mut egui::Ui, scripts: &ScriptsView, entry: &ScriptEntry) {
    let engines = scripts
        .script(&entry.key)
        .map(|s| s.engines.as_slice())
        .unwrap_or_default();
    ui.horizontal(|ui| {
        ui.label("Runs:");
        if engines.is_empty() {
            ui.weak("— (the scene does not run this file)");
        }
        for e in engines {
            if e.compiled {
                ui.label(RichText::new(format!("⚡ {}", e.hook)).color(GREEN))
                    .on_hover_text(
                        "compiled: typed register code, same results as rhai \
                         (while a line breakpoint is set in this file, it runs on rhai)",
                    );
            } else {
                let why = e
                    .why_not
                    .as_deref()
                    .unwrap_or("outside the compiled subset");
                ui.label(format!("{}: rhai", e.hook))
                    .on_hover_text(format!("runs on rhai: {why} (see docs/scripts.md, Cost)"));
            }
        }
    });
}

/// `syntax error at line:column: message` for the pane.
fn syntax_error_text(e: &ScriptError) -> String {
    format!(
        "syntax error at {}:{}: {} (the previous version keeps running)",
        e.line, e.column, e.message
    )
}

fn save(cmd: &mut Commands, code: &mut CodePaneState, entry: &ScriptEntry) {
    match stepframe_core::atomic_file::write(&entry.path, code.buffer.as_bytes()) {
        Ok(()) => {
            code.save_status = Some(format!(
                "saved {}: reloads at the next frame",
                entry.path.display()
            ));
            cmd.send(Command::Edit {
                target: Target::Live,
                edit: EditCommand::Script {
                    key: stepframe_plugins::script::script_key(&entry.path),
                    text: code.buffer.clone(),
                },
            });
        }
        Err(e) => {
            code.save_status = Some(format!("cannot write {}: {e}", entry.path.display()));
        }
    }
}

/// The read-only code with its gutter; returns where the breakpoint form's
/// line is on screen, if it is.
/// The program's lines with their gutter; `(lines, failed)`: its line
/// breakpoints, and the line a hook failed at with what the status says of
/// it (marked in red, the words on hover).
fn code_view_ui(
    ui: &mut egui::Ui,
    cmd: &mut Commands,
    code: &mut CodePaneState,
    (lines, failed): (&[LineBreakpoint], Option<(usize, String)>),
    entry: &ScriptEntry,
    source: &str,
) -> Option<egui::Rect> {
    let mut form_row = None;
    let highlight = code.highlight;
    let scroll = std::mem::take(&mut code.scroll_to_hit);
    let mut toggle = None;
    let mut open_form = None;
    egui::ScrollArea::both()
        .id_salt("code_view_scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            egui::Grid::new("code_grid")
                .num_columns(2)
                .spacing([6.0, 0.0])
                .show(ui, |ui| {
                    for (i, text) in source.lines().enumerate() {
                        let line = i + 1;
                        let bp = lines.iter().find(|b| b.line == line);
                        let (marker, color) = match bp {
                            Some(b) if !b.enabled => ("○", RED),
                            Some(b) if b.is_logpoint() => ("◆", LOGPOINT),
                            Some(_) => ("●", RED),
                            None => (" ", ui.visuals().weak_text_color()),
                        };
                        let gutter = ui
                            .add(
                                egui::Button::new(
                                    RichText::new(format!("{marker}{line:>4}"))
                                        .monospace()
                                        .color(color),
                                )
                                .frame(false),
                            )
                            .on_hover_text(
                                "Click: toggle a breakpoint on this line. Right-click: edit its condition or log message",
                            );
                        if gutter.clicked() {
                            toggle = Some(line);
                        }
                        if gutter.secondary_clicked() {
                            open_form = Some(line);
                        }
                        if code.form_line == Some(line) && ui.is_rect_visible(gutter.rect) {
                            form_row = Some(gutter.rect);
                        }
                        let mut rich = RichText::new(text).monospace();
                        let failed_here = failed.as_ref().filter(|(l, _)| *l == line);
                        if highlight == Some(line) {
                            rich = rich.background_color(HIT_BACKGROUND).color(Color32::WHITE);
                        } else if failed_here.is_some() {
                            rich = rich.background_color(FAILED_BACKGROUND).color(Color32::WHITE);
                        }
                        let mut row = ui.label(rich);
                        if highlight == Some(line) {
                            // Shown by its colour alone otherwise: a screen
                            // reader names it.
                            row.widget_info(|| {
                                egui::WidgetInfo::labeled(
                                    egui::Role::Label,
                                    true,
                                    format!("stopped line {line}: {text}"),
                                )
                            });
                        }
                        if let Some((_, why)) = failed_here {
                            row = row.on_hover_text(why);
                            row.widget_info(|| {
                                egui::WidgetInfo::labeled(
                                    egui::Role::Label,
                                    true,
                                    format!("failed line {line}: {text}"),
                                )
                            });
                        }
                        if scroll && highlight == Some(line) {
                            row.scroll_to_me(Some(egui::Align::Center));
                        }
                        ui.end_row();
                    }
                });
        });
    if let Some(line) = toggle {
        cmd.send(Command::Scripts(ScriptCommand::Toggle {
            key: entry.key.clone(),
            line,
        }));
    }
    if let Some(line) = open_form {
        open_breakpoint_form(code, lines, line);
    }
    form_row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scene_script_paths_finds_quoted_rhai_strings_in_order() {
        let text = r#"(path: "scripts/a.rhai", name: "x"), (path: "/abs/b.rhai")"#;
        assert_eq!(
            scene_script_paths(text),
            vec!["scripts/a.rhai", "/abs/b.rhai"]
        );
    }
}
