//! The editor's panels as a user meets them (issue 28, "The editor, round
//! 2"): what the A/B inspector, the breakpoints tab, the Input tab and the
//! code pane say, and that their widgets stay where the pointer is. Driven
//! headless through egui_kittest in the synchronous driver (one worker frame
//! of 1/60 s per UI frame, one fixed tick at 60 Hz); what a panel shows is
//! read back from its widgets, and every expected value is worked out here
//! from the scene or the trace, not by the code under test.

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::{Action, EditorApp};

mod support;
use support::editor::{click, clock_tick, demo_trace_moved_from, editor, step_until};
use support::shown_text;

/// The texts of the widgets on the same row as the one showing exactly
/// `text`, to its right, left to right: the rest of a grid row.
fn rest_of_row(h: &Harness<'_, EditorApp>, text: &str) -> Vec<String> {
    let anchor = h
        .query_all_by(|n| shown_text(n).is_some_and(|t| t == text))
        .map(|n| n.rect())
        .next()
        .unwrap_or_else(|| panic!("no widget shows {text:?}"));
    let mut row: Vec<(f32, String)> = h
        .query_all_by(|n| {
            n.bounding_box().is_some_and(|b| {
                (b.y0 as f32 - anchor.top()).abs() < 3.0 && b.x0 as f32 > anchor.right() - 1.0
            })
        })
        .filter_map(|n| Some((n.rect().left(), shown_text(&n.accesskit_node())?)))
        .collect();
    row.sort_by(|a, b| a.0.total_cmp(&b.0));
    row.into_iter().map(|(_, t)| t).collect()
}

/// The distance in f32 steps between two values of one sign: the difference
/// of their bit patterns (IEEE 754 orders same-sign floats as their bits).
fn steps_between(a: f32, b: f32) -> u64 {
    assert_eq!(a.is_sign_negative(), b.is_sign_negative(), "{a} and {b}");
    u64::from(a.to_bits().abs_diff(b.to_bits()))
}

#[test]
fn the_ab_inspector_gives_the_ulps_of_every_differing_field() {
    let dir = support::scratch("ulps");
    let trace = dir.join("b.jsonl");
    std::fs::write(&trace, demo_trace_moved_from(230, 200)).expect("write B");
    let mut h = editor();
    click(&mut h, "File");
    click(&mut h, "Compare with trace…");
    h.get_by_label("Trace file").click();
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    h.get_by_label("Trace file")
        .type_text(&trace.display().to_string());
    h.run_steps(1);
    click(&mut h, "Compare");
    step_until(&mut h, 300, "the run passed tick 210", |h| {
        clock_tick(h) >= 210
    });
    click(&mut h, "⏸ Pause");
    h.state_mut().act(Action::ViewTick(205));
    h.run_steps(3);
    click(&mut h, "Player");
    h.run_steps(3);
    let a = h
        .state()
        .view()
        .shown()
        .and_then(|v| v.selected.clone())
        .expect("the player at tick 205");
    let b = h
        .state()
        .view()
        .run_b()
        .and_then(|c| c.streams.trace.at(205).and_then(|t| t.object(20)))
        .expect("B has the player at tick 205");
    // x differs by 0.25 m: a real count of f32 steps, not an empty cell.
    assert_ne!(a.committed.x, b[0]);
    let x_row = rest_of_row(&h, &format!("{:?}", b[0]));
    assert_eq!(
        x_row,
        vec![steps_between(a.committed.x, b[0]).to_string()],
        "the ULPs cell beside B's x"
    );
    // y is the same in A and B: 0 steps.
    assert_eq!(a.committed.y.to_bits(), b[1].to_bits());
    let y_row = rest_of_row(&h, "y");
    assert_eq!(
        y_row,
        vec![
            format!("{:?}", a.committed.y),
            format!("{:?}", b[1]),
            "0".to_string()
        ],
        "the y row: A, B, 0 ULPs"
    );
}
