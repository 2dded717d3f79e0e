//! Opening the code pane takes its width from the viewport alone: the
//! hierarchy and the right column keep theirs, so their rows stay under the
//! pointer (at 1280×800 the right column lost a third of its width before,
//! clipping the Input tab's rows).

use egui_kittest::Harness;
use stepframe_app::editor::{Editor, Pane};

use crate::support::editor::{DEFAULT_SIZE, click, demo, editor_sized};

fn width(h: &Harness<'_, Editor>, pane: Pane) -> f32 {
    h.state()
        .workspace()
        .rect(pane)
        .unwrap_or_else(|| panic!("{pane:?} is laid out"))
        .width()
}

#[test]
fn the_code_pane_opens_and_closes_beside_the_viewport_without_narrowing_the_side_columns() {
    let mut h = editor_sized(demo(), DEFAULT_SIZE);
    h.run_steps(3);
    let (left, right, viewport) = (
        width(&h, Pane::Hierarchy),
        width(&h, Pane::Inspector),
        width(&h, Pane::Viewport),
    );
    click(&mut h, "📜 Code");
    h.run_steps(3);
    assert!(h.state().workspace().is_open(Pane::Code));
    let code = width(&h, Pane::Code);
    assert!(
        (width(&h, Pane::Hierarchy) - left).abs() <= 1.0,
        "{left} → {}",
        width(&h, Pane::Hierarchy)
    );
    assert!(
        (width(&h, Pane::Inspector) - right).abs() <= 1.0,
        "{right} → {}",
        width(&h, Pane::Inspector)
    );
    // The viewport and the code pane share what the viewport had (less a
    // separator), half each.
    let shared = width(&h, Pane::Viewport) + code;
    assert!((shared - viewport).abs() <= 12.0, "{viewport} → {shared}");
    assert!(
        (code - viewport / 2.0).abs() <= 12.0,
        "code {code} of {viewport}"
    );
    click(&mut h, "📜 Code");
    h.run_steps(3);
    assert!(!h.state().workspace().is_open(Pane::Code));
    for (pane, before) in [
        (Pane::Hierarchy, left),
        (Pane::Inspector, right),
        (Pane::Viewport, viewport),
    ] {
        let after = width(&h, pane);
        assert!(
            (after - before).abs() <= 1.0,
            "{pane:?}: {before} → {after}"
        );
    }
}
