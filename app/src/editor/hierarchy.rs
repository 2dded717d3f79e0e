//! The object tree, with enabled toggles; a click selects.

use stepframe_core::ObjectId;

use super::app::EditorState;
use super::protocol::{Command, ObjectView};

/// Draws the hierarchy.
pub fn hierarchy_ui(ui: &mut egui::Ui, state: &mut EditorState) {
    ui.heading("Hierarchy");
    let Some(view) = &state.view else {
        ui.weak("no scene");
        return;
    };
    let objects = view.objects.clone();
    if objects.is_empty() {
        ui.weak("the world is empty");
        return;
    }
    let exists = |id: ObjectId| objects.iter().any(|o| o.id == id);
    // Roots: no parent, or a parent that is gone. Ids keep the order stable.
    let roots: Vec<&ObjectView> = objects
        .iter()
        .filter(|o| o.parent.is_none_or(|p| !exists(p)))
        .collect();
    for root in roots {
        object_row_ui(ui, state, &objects, root, 0);
    }
}

/// Deepest nesting drawn; deeper children are listed at this depth (a cycle
/// written by hand in a scene file cannot recurse forever).
const MAX_DEPTH: usize = 16;

fn object_row_ui(
    ui: &mut egui::Ui,
    state: &mut EditorState,
    objects: &[ObjectView],
    object: &ObjectView,
    depth: usize,
) {
    ui.horizontal(|ui| {
        ui.add_space(depth as f32 * 14.0);
        let mut enabled = object.enabled;
        if ui
            .checkbox(&mut enabled, "")
            .on_hover_text(format!(
                "Enable or disable {} (a disabled object gets no callback)",
                object.name
            ))
            .changed()
        {
            state.send(Command::SetEnabled(object.id, enabled));
        }
        let selected = state.selected == Some(object.id);
        let kind = match &object.body {
            Some(b) => format!("{:?} body", b.kind),
            None => "no body".to_string(),
        };
        if ui
            .selectable_label(selected, &object.name)
            .on_hover_text(format!(
                "{} {}: {kind}; click to inspect",
                object.name, object.id
            ))
            .clicked()
        {
            state.select(Some(object.id));
        }
        ui.weak(object.id.to_string());
    });
    if depth >= MAX_DEPTH {
        return;
    }
    for child in objects.iter().filter(|o| o.parent == Some(object.id)) {
        object_row_ui(ui, state, objects, child, depth + 1);
    }
}
