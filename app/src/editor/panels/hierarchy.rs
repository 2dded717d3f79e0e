//! The object tree, with enabled toggles; a click selects; a row's context
//! menu duplicates or deletes its object (each an edit through the session's
//! history, so past views and rewinds repeat it). Parents fold (groups of
//! more than [`OPEN_UP_TO`] children start folded, so a pyramid of 36 boxes
//! does not push the player off the panel).

use std::collections::BTreeMap;

use egui::collapsing_header::CollapsingState;
use stepframe_core::ObjectId;

use crate::editor::protocol::{Command, ObjectView};
use crate::editor::shared::{Commands, View};

/// Parents with at most this many children start unfolded.
const OPEN_UP_TO: usize = 10;

/// Deepest nesting drawn (a chain deeper than this is cut off, never looped).
const MAX_DEPTH: usize = 16;

/// The hierarchy's own state: which selection it last brought into view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HierarchyPanel {
    /// The selection last revealed (unfolded to and scrolled to); a new one
    /// made elsewhere (viewport, log) is revealed once.
    revealed: Option<ObjectId>,
}

impl HierarchyPanel {
    /// Draws the hierarchy.
    pub fn ui(&mut self, ui: &mut egui::Ui, view: &View<'_>, cmd: &mut Commands) {
        let mut row = Row {
            view,
            cmd,
            reveal: view.selection().filter(|s| Some(*s) != self.revealed),
            clicked: None,
        };
        hierarchy_ui(ui, &mut row);
        // A click here needs no scrolling; one elsewhere is revealed once.
        self.revealed = row.clicked.or(view.selection());
    }
}

/// What a row draws with and what it reports.
struct Row<'v, 'c> {
    /// The session as shown.
    view: &'v View<'v>,
    /// How the row asks.
    cmd: &'c mut Commands,
    /// A new selection to bring into view, if any.
    reveal: Option<ObjectId>,
    /// The object clicked this frame.
    clicked: Option<ObjectId>,
}

fn hierarchy_ui(ui: &mut egui::Ui, row: &mut Row<'_, '_>) {
    let Some(view) = row.view.shown() else {
        ui.weak("no scene");
        return;
    };
    let objects = view.objects.clone();
    if objects.is_empty() {
        ui.weak("the world is empty");
        return;
    }
    match view.at_tick {
        Some(tick) => ui.weak(format!(
            "{} alive at tick {tick}",
            super::count(objects.len() as u64, "object", "objects")
        )),
        None => ui.weak(super::count(objects.len() as u64, "object", "objects")),
    };
    // Children by parent, in id order; roots have no parent or a missing one.
    let index: BTreeMap<ObjectId, usize> =
        objects.iter().enumerate().map(|(i, o)| (o.id, i)).collect();
    let mut children: BTreeMap<ObjectId, Vec<usize>> = BTreeMap::new();
    let mut roots = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        match o.parent.filter(|p| index.contains_key(p)) {
            Some(p) => children.entry(p).or_default().push(i),
            None => roots.push(i),
        }
    }
    let tree = Tree {
        objects: &objects,
        children: &children,
    };
    if let Some(selected) = row.reveal {
        // Unfold every ancestor of a selection made elsewhere (viewport, log).
        let mut parent = index
            .get(&selected)
            .and_then(|&i| objects[i].parent)
            .filter(|p| index.contains_key(p));
        let mut guard = 0;
        while let Some(p) = parent
            && guard < MAX_DEPTH
        {
            let id = egui::Id::unique(("hierarchy", p));
            let mut folding = CollapsingState::load_with_default_open(ui.ctx(), id, false);
            folding.set_open(true);
            folding.store(ui.ctx());
            parent = index.get(&p).and_then(|&i| objects[i].parent);
            guard += 1;
        }
    }
    egui::ScrollArea::vertical()
        .id_salt("hierarchy_scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for i in roots {
                tree.node_ui(ui, row, i, 0);
            }
        });
}

/// The objects and who is whose child.
struct Tree<'a> {
    /// Live objects in id order.
    objects: &'a [ObjectView],
    /// Indices of each parent's children.
    children: &'a BTreeMap<ObjectId, Vec<usize>>,
}

impl Tree<'_> {
    fn node_ui(&self, ui: &mut egui::Ui, row: &mut Row<'_, '_>, i: usize, depth: usize) {
        let object = &self.objects[i];
        let kids = self
            .children
            .get(&object.id)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        if kids.is_empty() || depth >= MAX_DEPTH {
            ui.horizontal(|ui| row_ui(ui, row, object));
            return;
        }
        let id = egui::Id::unique(("hierarchy", object.id));
        CollapsingState::load_with_default_open(ui.ctx(), id, kids.len() <= OPEN_UP_TO)
            .show_header(ui, |ui| {
                row_ui(ui, row, object);
                ui.weak(format!("({})", kids.len()));
            })
            .body(|ui| {
                for &k in kids {
                    self.node_ui(ui, row, k, depth + 1);
                }
            });
    }
}

fn row_ui(ui: &mut egui::Ui, row: &mut Row<'_, '_>, object: &ObjectView) {
    let mut enabled = object.enabled;
    let live = !row.view.viewing_past();
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
        row.cmd.send(Command::SetEnabled(object.id, enabled));
    }
    let selected = row.view.selection() == Some(object.id);
    let kind = match &object.body {
        Some(b) => format!("{:?} body", b.kind),
        None => "no body".to_string(),
    };
    let response = ui
        .selectable_label(selected, &object.name)
        .on_hover_text(format!(
            "{} {}: {kind}; click to inspect, right-click to duplicate or delete",
            object.name, object.id
        ));
    if row.reveal == Some(object.id) {
        response.scroll_to_me(Some(egui::Align::Center));
    }
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
            row.cmd.send(Command::Duplicate(object.id));
            ui.close();
        }
        if ui
            .button("Delete")
            .on_hover_text("Remove the object and its children")
            .clicked()
        {
            row.cmd.send(Command::Remove(object.id));
            ui.close();
        }
    });
    ui.weak(object.id.to_string());
}
