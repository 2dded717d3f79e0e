//! The object tree, with enabled toggles; a click selects; a row's context
//! menu duplicates or deletes its object (each an edit through the session's
//! history, so past views and rewinds repeat it). Parents fold (groups of
//! more than `rows::OPEN_UP_TO` children start folded, so a pyramid of 36
//! boxes does not push the player off the panel).
//!
//! It scales: the tree is flattened into lines first (`rows`), and only the
//! lines on screen are laid out (`ScrollArea::show_rows`, every line one
//! fixed height), so a world of 10,000 objects lays out a screenful of rows,
//! about 25, not 10,000 (`hierarchy_ui_ms` in `stepframe bench`). The
//! **Filter** field above the tree narrows it to the objects whose name, id
//! or behaviour name contains the text, in any case ("3 of 95 objects").
//!
//! | module | what |
//! |---|---|
//! | this one | [`HierarchyPanel`]: the filter field, the lines on screen, a row's widgets |
//! | `rows` | the lines: the tree as unfolded, or the filter's matches |
//! | [`bench`] | `hierarchy_ui_ms`: the panel's CPU per frame at 10,000 objects |

pub mod bench;
mod rows;

use crate::editor::protocol::{EditCommand, Target};
use crate::editor::shared::Panel;
use std::collections::BTreeMap;

use std::path::Path;

use egui::{Align, Layout, Sense, UiBuilder};
use serde::{Deserialize, Serialize};
use stepframe_core::ObjectId;

use crate::editor::protocol::{Command, Event, ObjectView};
use crate::editor::shared::{Commands, Reading, Shortcut};
use rows::{Line, Tree};

/// The hierarchy's own state: the filter typed, the folds, and which
/// selection it last brought into view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HierarchyPanel {
    /// The selection last revealed (unfolded to and scrolled to); a new one
    /// made elsewhere (viewport, log) is revealed once.
    revealed: Option<ObjectId>,
    /// The Filter field's text: an empty one (or only spaces) shows the tree.
    filter: String,
    /// Parents the user folded (`false`) or unfolded (`true`); any other
    /// parent follows `rows::OPEN_UP_TO`.
    folds: BTreeMap<ObjectId, bool>,
    /// The scene file `folds` belong to.
    scene: Option<String>,
    /// The folds of every other scene opened, by file: a scene opens folded
    /// as the user left it, this session or the last (they persist with the
    /// layout), and one scene's ids never fold another's objects.
    others: BTreeMap<String, Vec<(u64, bool)>>,
    /// Ctrl+F asked for the Filter field's keyboard focus (taken at the
    /// next draw).
    focus_filter: bool,
}

impl HierarchyPanel {
    /// Gives the Filter field the keyboard at the next draw (Ctrl+F).
    fn focus_filter(&mut self) {
        self.focus_filter = true;
    }
}

/// What the hierarchy keeps across runs: each scene's folds, by scene file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HierarchySettings {
    /// Scene file → `(object id, open)` for the parents the user folded or
    /// unfolded.
    pub folds: BTreeMap<String, Vec<(u64, bool)>>,
}

/// The key a scene's folds are kept under: its canonical path when it has
/// one, so `./assets/scenes/demo.ron` and the absolute path are one scene.
fn scene_key(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

impl HierarchyPanel {
    /// A scene was loaded from `path` (opened, reloaded, or the start-up
    /// scene): its own folds come back, the previous scene's are kept.
    fn on_loaded(&mut self, path: &Path) {
        let key = scene_key(path);
        if self.scene.as_deref() == Some(key.as_str()) {
            return;
        }
        if let Some(old) = self.scene.take() {
            let folds = std::mem::take(&mut self.folds);
            self.others.insert(
                old,
                folds.into_iter().map(|(id, open)| (id.0, open)).collect(),
            );
        }
        self.folds = self
            .others
            .remove(&key)
            .unwrap_or_default()
            .into_iter()
            .map(|(id, open)| (ObjectId(id), open))
            .collect();
        self.scene = Some(key);
        self.revealed = None;
    }

    /// What the stored layout keeps.
    pub fn settings(&self) -> HierarchySettings {
        let mut folds = self.others.clone();
        if let Some(scene) = &self.scene {
            folds.insert(
                scene.clone(),
                self.folds.iter().map(|(id, open)| (id.0, *open)).collect(),
            );
        }
        folds.retain(|_, f| !f.is_empty());
        HierarchySettings { folds }
    }

    /// Takes the stored layout's folds (at start, before any scene loads).
    pub fn apply_settings(&mut self, settings: HierarchySettings) {
        self.others = settings.folds;
    }

    /// Whether the parent `id` is folded by the user (`Some(false)`),
    /// unfolded (`Some(true)`), or as its size says (`None`).
    pub fn fold_of(&self, id: ObjectId) -> Option<bool> {
        self.folds.get(&id).copied()
    }
}

impl Panel for HierarchyPanel {
    /// Ctrl+F: the filter takes the keyboard.
    fn on_shortcut(&mut self, shortcut: Shortcut, _reading: &Reading<'_>, _cmd: &mut Commands) {
        if shortcut == Shortcut::Find {
            self.focus_filter();
        }
    }

    fn on_event(&mut self, event: &Event, _reading: &Reading<'_>, _cmd: &mut Commands) {
        if let Event::Loaded { path, .. } = event {
            self.on_loaded(path);
        }
    }

    /// Draws the hierarchy.
    fn ui(&mut self, ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
        let Some(world) = reading.shown() else {
            ui.weak("no scene");
            return;
        };
        let typed = ui.horizontal(|ui| {
            let label = ui.label("Filter");
            let field = ui
                .add(
                    egui::TextEdit::singleline(&mut self.filter)
                        .hint_text("name, #id or behaviour")
                        .desired_width(f32::INFINITY),
                )
                .labelled_by(label.id)
                .on_hover_text(
                    "Show only the objects whose name, id or behaviour name contains this \
                     (any case); Ctrl+F",
                );
            if std::mem::take(&mut self.focus_filter) {
                field.request_focus();
            }
            field.changed()
        });
        let objects = &world.objects;
        if objects.is_empty() {
            ui.weak("the world is empty");
            return;
        }
        let filter = self.filter.trim().to_lowercase();
        let tree = Tree::new(objects);
        let reveal = reading.selection().filter(|s| Some(*s) != self.revealed);
        if let Some(selected) = reveal
            && filter.is_empty()
        {
            // Unfold every ancestor of a selection made elsewhere (viewport, log).
            for a in tree.ancestors(selected) {
                self.folds.insert(a, true);
            }
        }
        let lines = if filter.is_empty() {
            tree.lines(&self.folds)
        } else {
            rows::matching(objects, &filter)
        };
        let total = crate::editor::words::count(objects.len() as u64, "object", "objects");
        let shown = if filter.is_empty() {
            total
        } else {
            format!("{} of {total}", lines.len())
        };
        match world.at_tick {
            Some(tick) => ui.weak(format!("{shown} alive at tick {tick}")),
            None => ui.weak(shown),
        };
        let height = ui.spacing().interact_size.y;
        let mut area = egui::ScrollArea::vertical()
            .id_salt("hierarchy_scroll")
            .auto_shrink([false, false]);
        if typed.inner {
            // New matches are read from the top.
            area = area.vertical_scroll_offset(0.0);
        } else if let Some(selected) = reveal
            && let Some(at) = lines.iter().position(|l| objects[l.index].id == selected)
        {
            // Centre the revealed line (egui clamps past the end).
            let pitch = height + ui.spacing().item_spacing.y;
            let offset = at as f32 * pitch - (ui.available_height() - pitch) / 2.0;
            area = area.vertical_scroll_offset(offset.max(0.0));
        }
        let mut row = Row {
            reading,
            cmd,
            clicked: None,
            toggled: None,
        };
        area.show_rows(ui, height, lines.len(), |ui, range| {
            for line in &lines[range] {
                line_ui(ui, &mut row, &objects[line.index], *line, height);
            }
        });
        if let Some((id, open)) = row.toggled {
            self.folds.insert(id, open);
        }
        // A click here needs no scrolling; one elsewhere is revealed once.
        self.revealed = row.clicked.or(reading.selection());
    }
}

/// What a row draws with and what it reports.
struct Row<'v, 'c> {
    /// The session as shown.
    reading: &'v Reading<'v>,
    /// How the row asks.
    cmd: &'c mut Commands,
    /// The object clicked this frame.
    clicked: Option<ObjectId>,
    /// A parent folded or unfolded this frame, and whether it is open now.
    toggled: Option<(ObjectId, bool)>,
}

/// One line, exactly `height` tall (what `show_rows` counts on): the indent,
/// the fold arrow of a parent, then the row's widgets.
fn line_ui(ui: &mut egui::Ui, row: &mut Row<'_, '_>, object: &ObjectView, line: Line, height: f32) {
    let (rect, _) =
        ui.allocate_exact_size(egui::vec2(ui.available_width(), height), Sense::hover());
    let mut ui = ui.new_child(
        UiBuilder::new()
            .id_salt(("hierarchy_row", object.id))
            .max_rect(rect)
            .layout(Layout::left_to_right(Align::Center)),
    );
    ui.add_space(line.depth as f32 * ui.spacing().indent);
    let arrow = egui::vec2(ui.spacing().icon_width, height);
    if line.kids > 0 {
        let (_, response) = ui.allocate_exact_size(arrow, Sense::click());
        let what = if line.open { "Fold" } else { "Unfold" };
        response.widget_info(|| {
            egui::WidgetInfo::labeled(egui::Role::Button, true, format!("{what} {}", object.name))
        });
        egui::collapsing_header::paint_default_icon(
            &mut ui,
            if line.open { 1.0 } else { 0.0 },
            &response,
        );
        if response
            .on_hover_text(format!("{what} its {} children", line.kids))
            .clicked()
        {
            row.toggled = Some((object.id, !line.open));
        }
    } else {
        ui.add_space(arrow.x);
    }
    row_ui(&mut ui, row, object);
    if line.kids > 0 {
        ui.weak(format!("({})", line.kids));
    }
}

fn row_ui(ui: &mut egui::Ui, row: &mut Row<'_, '_>, object: &ObjectView) {
    let mut enabled = object.enabled;
    let live = !row.reading.viewing_past();
    if ui
        .add_enabled(live, egui::Checkbox::without_text(&mut enabled))
        .on_hover_text(format!(
            "Enable or disable {} (a disabled object gets no callback; an edit the rewind \
             history repeats)",
            object.name
        ))
        .on_disabled_hover_text("Showing a past tick: back to live (Esc) to enable or disable")
        .changed()
    {
        row.cmd.send(Command::Edit {
            target: Target::Live,
            edit: EditCommand::Enabled(object.id, enabled),
        });
    }
    // The id before the name: a long name at the panel's edge is cut, never
    // the id that tells two objects of one name apart.
    ui.weak(object.id.to_string());
    let selected = row.reading.selection() == Some(object.id);
    let kind = match &object.body {
        Some(b) => format!("{:?} body", b.kind),
        None => "no body".to_string(),
    };
    // The name takes what is left of the row and is cut with "…" there.
    let response = ui
        .add(egui::Button::selectable(selected, object.name.as_str()).truncate())
        .on_hover_text(format!(
            "{} {}: {kind}; click to inspect, right-click to duplicate or delete",
            object.name, object.id
        ));
    if response.clicked() {
        row.cmd.select(Some(object.id));
        row.clicked = Some(object.id);
    }
    response.context_menu(|ui| {
        if !live {
            ui.weak("Showing a past tick: back to live (Esc) to change the world");
            return;
        }
        if ui
            .button("Duplicate")
            .on_hover_text("A copy half a metre to the right, with the next free id")
            .clicked()
        {
            row.cmd.send(Command::Edit {
                target: Target::Live,
                edit: EditCommand::Duplicate(object.id),
            });
            ui.close();
        }
        if ui
            .button("Delete")
            .on_hover_text("Remove the object and its children")
            .clicked()
        {
            row.cmd.send(Command::Edit {
                target: Target::Live,
                edit: EditCommand::Remove(object.id),
            });
            ui.close();
        }
    });
}
