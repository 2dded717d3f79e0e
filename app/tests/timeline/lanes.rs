//! The timeline's lanes as a person reads them (kittest, headless): the
//! decimation that keeps every column's extremes, lanes that fit the tile
//! at the default window size, a wheel that scrolls the lanes and never
//! moves an axis, the tooltip of the frame under the pointer, panning and
//! zooming, and the bench's headless frame.

use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::Pane;
use stepframe_app::editor::timeline::{LaneId, decimate};

use crate::support::editor::{DEFAULT_SIZE, click, editor, label_starting, step_until};
use crate::support::labels_starting;
use crate::{drag, frames, lane_rect, timeline, wheel};

/// The smallest plot height an expanded lane may have.
const MIN_LANE: f32 = 56.0;

#[test]
fn decimation_keeps_every_columns_min_and_max() {
    // A saw-tooth with spikes: 1000 points over x 0..1000, 7 columns.
    let xs: Vec<f64> = (0..1000).map(f64::from).collect();
    let ys: Vec<f64> = (0..1000)
        .map(|i| if i % 97 == 0 { 50.0 } else { f64::from(i % 13) })
        .collect();
    let columns = 7;
    let out = decimate(&xs, &ys, (0.0, 1000.0), columns);
    assert!(out.len() <= 2 * columns, "{} points", out.len());
    let width = 1000.0 / columns as f64;
    for c in 0..columns {
        let lo = c as f64 * width;
        let hi = lo + width;
        let in_col = |x: f64| x >= lo && (x < hi || c == columns - 1);
        let kept: Vec<f64> = out.iter().filter(|p| in_col(p[0])).map(|p| p[1]).collect();
        // Every column here holds a spike (97 < 142) and a zero (13 < 142).
        assert!(
            kept.contains(&50.0) && kept.contains(&0.0),
            "column {c}: {kept:?}"
        );
    }
    assert!(out.windows(2).all(|w| w[0][0] <= w[1][0]));
}

#[test]
fn at_the_default_size_the_first_lanes_fit_the_tile_and_every_lane_can_be_opened_to_56_points() {
    let mut h = editor();
    h.run_steps(30);
    let tile = h
        .state()
        .workspace()
        .rect(Pane::Timeline)
        .expect("the timeline tile is laid out");
    assert!(
        tile.height() >= DEFAULT_SIZE.y / 3.0,
        "the timeline gets a third of the window: {tile:?}"
    );
    for lane in [LaneId::Dt, LaneId::Ticks, LaneId::FixedUpdate] {
        let r = lane_rect(&h, lane);
        assert!(
            r.height() >= MIN_LANE,
            "{lane:?} is {} points tall",
            r.height()
        );
        assert!(
            tile.contains_rect(r) && r.bottom() <= DEFAULT_SIZE.y,
            "{lane:?} at {r:?} is inside the tile {tile:?}, no scrolling needed"
        );
    }
    // The others start collapsed, each a header one click from open.
    for lane in [
        LaneId::Accumulator,
        LaneId::Alpha,
        LaneId::Dropped,
        LaneId::Physics,
        LaneId::Markers,
    ] {
        assert!(
            h.query_by_label(&format!("lane {}", lane.title()))
                .is_none()
        );
        let is_header = |n: &egui_kittest::Node<'_>| {
            n.accesskit_node()
                .label()
                .is_some_and(|l| l.starts_with("⏵"))
        };
        let header = h
            .query_all_by_label_contains(lane.title())
            .find(is_header)
            .unwrap_or_else(|| panic!("{lane:?} has a header"));
        header.scroll_to_me();
        h.run_steps(1);
        h.query_all_by_label_contains(lane.title())
            .find(is_header)
            .expect("the header")
            .click();
        h.run_steps(3);
        let name = format!("lane {}", lane.title());
        h.get_by_label(&name).scroll_to_me();
        h.run_steps(2);
        let r = lane_rect(&h, lane);
        assert!(
            r.height() >= MIN_LANE,
            "{lane:?} opened to {} points",
            r.height()
        );
    }
    // With all eight open they no longer fit: the lane area scrolls, and no
    // lane is squeezed under 56 points.
    for lane in LaneId::ALL {
        assert!(timeline(&h).lane(lane).expanded, "{lane:?}");
    }
}

#[test]
fn the_wheel_over_a_lane_scrolls_the_lanes_and_never_moves_a_lane_axis() {
    let mut h = editor();
    h.run_steps(40);
    click(&mut h, "⏸ Pause");
    // Open every lane, so the lane area has something to scroll.
    for lane in LaneId::ALL {
        crate::support::editor::set_lane_expanded(&mut h, lane, true);
    }
    h.run_steps(3);
    let dt = lane_rect(&h, LaneId::Dt);
    let y_before = timeline(&h).lane(LaneId::Dt).shown_y.expect("drawn");
    let x_before = timeline(&h).range();
    h.hover_at(dt.center());
    h.run_steps(1);
    for _ in 0..5 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -40.0),
            modifiers: egui::Modifiers::NONE,
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
        });
        h.run_steps(1);
    }
    h.run_steps(5);
    let t = timeline(&h);
    assert_eq!(
        t.lane(LaneId::Dt).shown_y,
        Some(y_before),
        "the y axis stayed"
    );
    assert_eq!(t.lane(LaneId::Dt).y_range, None);
    assert_eq!(t.range(), x_before, "time did not move either");
    let moved = lane_rect(&h, LaneId::Dt);
    assert!(
        moved.top() < dt.top(),
        "the lanes scrolled: {dt:?} → {moved:?}"
    );
}

#[test]
fn the_frame_under_the_pointer_has_a_tooltip_with_every_clock_field() {
    let mut h = editor();
    h.run_steps(60);
    click(&mut h, "⏸ Pause");
    let r = lane_rect(&h, LaneId::Dt);
    h.hover_at(r.center());
    // A tooltip shows once the pointer has rested a moment.
    step_until(&mut h, 120, "the tooltip", |h| {
        !labels_starting(h, "frame ").is_empty()
    });
    let seq = timeline(&h).hover_seq().expect("a frame under the pointer");
    let record = *frames(&h).record(seq).expect("kept");
    let head = label_starting(&h, &format!("frame {} · tick ", record.frame_index));
    assert!(
        head.contains(&format!("tick {}", record.simulation_tick)),
        "{head}"
    );
    // Every clock field, each with its unit; none dumped as raw floats.
    // The clock panel shows rows of the same names: a tooltip row is the one
    // with the unit this check expects.
    let row = |name: &str, unit: &str| -> String {
        labels_starting(&h, name)
            .into_iter()
            .find(|l| l[name.len()..].starts_with(' ') && l.ends_with(unit))
            .unwrap_or_else(|| panic!("no tooltip row {name} ending in {unit}"))
    };
    for (name, unit) in [
        ("delta_time", "ms"),
        ("frame_time", "s"),
        ("frame_index", "frames"),
        ("simulation_tick", "ticks"),
        ("simulation_time", "s"),
        ("fixed_delta_time", "ms"),
        ("interpolation_alpha", "(of a tick)"),
        ("dropped_time", "s"),
        ("accumulator", "after"),
    ] {
        let text = row(name, unit);
        assert!(!text.contains("e-") && !text.contains("e+"), "{text:?}");
    }
    // Four significant figures: the frame's delta in ms (16.666… at 60 Hz)
    // reads 16.67.
    let dt_ms = record.delta_time * 1000.0;
    let decimals = (3 - dt_ms.log10().floor() as i32).max(0) as usize;
    let expected = format!("delta_time           {dt_ms:.decimals$} ms");
    assert!(
        labels_starting(&h, "delta_time").contains(&expected),
        "{expected:?} in {:?}",
        labels_starting(&h, "delta_time")
    );
}

#[test]
fn time_pans_and_zooms_a_lanes_y_zooms_only_with_alt_and_double_click_or_fit_all_resets_it() {
    let mut h = editor();
    h.run_steps(200);
    click(&mut h, "⏸ Pause");
    let r = lane_rect(&h, LaneId::Dt);
    let (lo, hi) = timeline(&h).range().expect("the live window");
    // Ctrl+wheel zooms time around the pointer.
    h.hover_at(r.center());
    h.run_steps(1);
    wheel(&mut h, 60.0, egui::Modifiers::COMMAND);
    let (zlo, zhi) = timeline(&h).range().expect("a range");
    assert!(zhi - zlo < hi - lo, "zoomed in: {lo}..{hi} -> {zlo}..{zhi}");
    assert!(
        !timeline(&h).follow_live(),
        "zooming time stops following live"
    );
    // A drag pans time to the right's past: the range moves left.
    drag(
        &mut h,
        r.center(),
        r.center() + egui::vec2(200.0, 0.0),
        egui::Modifiers::NONE,
    );
    let (plo, phi) = timeline(&h).range().expect("a range");
    assert!(
        plo < zlo && ((phi - plo) - (zhi - zlo)).abs() < 1e-6,
        "panned: {zlo}..{zhi} -> {plo}..{phi}"
    );
    // Alt+wheel zooms this lane's y, nothing else's.
    let before = timeline(&h).lane(LaneId::Dt).shown_y.expect("drawn");
    h.hover_at(r.center());
    h.run_steps(1);
    wheel(&mut h, 80.0, egui::Modifiers::ALT);
    h.run_steps(2);
    let zoomed = timeline(&h).lane(LaneId::Dt).y_range.expect("a y zoom");
    assert!(
        zoomed.1 - zoomed.0 < before.1 - before.0,
        "{before:?} -> {zoomed:?}"
    );
    assert_eq!(timeline(&h).lane(LaneId::Ticks).y_range, None);
    // Double-click fits it again.
    crate::support::editor::press_release(&mut h, r.center());
    h.run_steps(1);
    crate::support::editor::press_release(&mut h, r.center());
    h.run_steps(3);
    assert_eq!(
        timeline(&h).lane(LaneId::Dt).y_range,
        None,
        "double-click fits y"
    );
    // Fit all: every frame in view, every lane fitted.
    h.hover_at(r.center());
    h.run_steps(1);
    wheel(&mut h, 80.0, egui::Modifiers::ALT);
    h.key_press(egui::Key::Escape);
    h.run_steps(1);
    click(&mut h, "Fit all");
    h.run_steps(1);
    let t = timeline(&h);
    assert!(LaneId::ALL.iter().all(|l| t.lane(*l).y_range.is_none()));
    let first = frames(&h).records().front().expect("frames").frame_index as f64;
    let (flo, _) = t.range().unwrap_or((first, first));
    assert!(flo <= first, "every frame in view");
}

#[test]
fn the_timeline_bench_draws_headless_and_reports_a_cost() {
    // Small in debug builds; `stepframe bench` runs it with 216,000 frames.
    let ms = stepframe_app::editor::timeline::bench_timeline_ms(3_000);
    assert!(ms.is_finite() && ms > 0.0, "{ms}");
}
