//! Export (kittest, headless): each format has its own path and the full
//! path written is reported; a Shift-drag selects a range and export then
//! writes only it.

use stepframe_app::editor::timeline::LaneId;

use crate::support::editor::{click, editor, label_starting, type_path_over};
use crate::support::{labels_starting, scratch};
use crate::{drag, frames, lane_rect, timeline};

#[test]
fn each_export_format_has_its_own_path_and_the_full_path_written_is_reported() {
    let dir = scratch("export");
    let mut h = editor();
    h.run_steps(30);
    click(&mut h, "⏸ Pause");
    click(&mut h, "Export…");
    h.run_steps(1);
    let json = dir.join("run");
    let csv = dir.join("frames.csv");
    for (label, path) in [("Chrome trace (.json)", &json), ("CSV (.csv)", &csv)] {
        type_path_over(&mut h, label, path);
    }
    click(&mut h, "Export csv");
    h.key_press(egui::Key::Escape);
    h.run_steps(1);
    let notice = label_starting(&h, "exported ");
    assert!(notice.ends_with(&csv.display().to_string()), "{notice}");
    let text = std::fs::read_to_string(&csv).expect("the CSV was written");
    assert!(text.lines().count() > 10 && text.contains(','));
    click(&mut h, "Export…");
    h.run_steps(1);
    click(&mut h, "Export json");
    // The path without an extension got the format's.
    let written = dir.join("run.json");
    let body = std::fs::read_to_string(&written).expect("the trace was written");
    assert!(body.trim_start().starts_with('{') || body.trim_start().starts_with('['));
    assert!(
        h.state()
            .feedback()
            .log
            .contains(&written.display().to_string())
    );
    assert!(!json.exists(), "nothing written without the extension");
}

#[test]
fn shift_drag_selects_a_range_and_export_writes_only_it() {
    let dir = scratch("export-selection");
    let mut h = editor();
    h.run_steps(120);
    click(&mut h, "⏸ Pause");
    let r = lane_rect(&h, LaneId::Dt);
    let a = egui::pos2(r.left() + r.width() * 0.25, r.center().y);
    let b = egui::pos2(r.left() + r.width() * 0.5, r.center().y);
    drag(&mut h, a, b, egui::Modifiers::SHIFT);
    let (lo, hi) = timeline(&h).selection().expect("a selection");
    assert!(hi > lo);
    let selected = frames(&h)
        .records()
        .iter()
        .filter(|rec| (lo..=hi).contains(&(rec.frame_index as f64)))
        .count();
    assert!(selected > 10 && selected < frames(&h).records().len());
    assert!(
        labels_starting(&h, "viewing tick ").is_empty(),
        "a selection is no click"
    );
    click(&mut h, "Export…");
    h.run_steps(1);
    let csv = dir.join("selection.csv");
    type_path_over(&mut h, "CSV (.csv)", &csv);
    assert!(labels_starting(&h, "Writes the selection").len() == 1);
    click(&mut h, "Export csv");
    let text = std::fs::read_to_string(&csv).expect("written");
    assert_eq!(
        text.lines().count(),
        selected + 1,
        "a header and the selected frames"
    );
}
