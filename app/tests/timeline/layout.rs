//! The timeline's geometry through the real editor (kittest, headless), at
//! the default window (1280×800) and maximised (1920×1040): every lane on one
//! x axis (the markers lane and a plotted field's lane too, whose click
//! seeks as any lane's does), every lane header inside the tile without
//! scrolling, y labels inside their own lane, divergence captions inside their
//! label column, and a marker at the live edge drawn whole.

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::protocol::{BranchCommand, WatchCommand};
use stepframe_app::editor::timeline::LaneId;
use stepframe_app::editor::{Command, Editor, Pane};

use crate::support::editor::{
    DEFAULT_SIZE, click, clock_tick, demo, demo_copy, editor_sized, press_release, step_until,
};
use crate::support::scratch;
use crate::{frames, lane_rect, timeline};

/// The editor maximised on a 1920×1080 screen.
const MAXIMISED: egui::Vec2 = egui::vec2(1920.0, 1040.0);

fn tile(h: &Harness<'_, Editor>) -> egui::Rect {
    h.state()
        .workspace()
        .rect(Pane::Timeline)
        .expect("the timeline tile is laid out")
}

/// Opens `lanes` (and only them), as clicks on their headers do.
fn open_only(h: &mut Harness<'_, Editor>, lanes: &[LaneId]) {
    for lane in LaneId::ALL {
        crate::support::editor::set_lane_expanded(h, lane, lanes.contains(&lane));
    }
    h.run_steps(3);
}

/// Scrolls the lane area until `lane`'s plot is in view.
fn scroll_to(h: &mut Harness<'_, Editor>, lane: LaneId) {
    h.get_by_label(&format!("lane {}", lane.title()))
        .scroll_to_me();
    // Scrolling is animated: let it settle.
    h.run_steps(10);
}

/// The record under the pointer at `p`.
fn hovered_at(h: &mut Harness<'_, Editor>, p: egui::Pos2) -> Option<u64> {
    h.hover_at(p);
    h.run_steps(2);
    timeline(h).hover_seq()
}

/// The lane of a plotted field (an inspector plot button's watch).
const PLOTTED: &str = "lane Player #20 · y (m)";
/// A plotted behaviour field with a long path.
const LONG_EXPR: &str = "field(20, \"PlayerController.charge_impulse_per_second\")";
/// Its lane.
const LONG: &str = "lane Player #20 · PlayerController.charge_impulse_per_second (N·s/s)";

#[test]
fn every_lane_shares_one_x_axis_the_markers_lane_and_a_plotted_field_too() {
    for size in [DEFAULT_SIZE, MAXIMISED] {
        let mut h = editor_sized(demo(), size);
        h.run_steps(40);
        click(&mut h, "⏸ Pause");
        open_only(&mut h, &LaneId::ALL);
        // A plotted field, as the inspector's "plot y" adds it.
        h.state_mut().send(Command::Watches(WatchCommand::Plot(
            "obj(20).y".to_string(),
        )));
        // And a behaviour field, whose title is wider than the label column
        // and whose values (hundreds of milliseconds) need wide y labels.
        h.state_mut()
            .send(Command::Watches(WatchCommand::Plot(LONG_EXPR.to_string())));
        h.run_steps(3);
        let dt = lane_rect(&h, LaneId::Dt);
        let mut rects: Vec<(String, egui::Rect)> = LaneId::ALL
            .into_iter()
            .map(|l| (format!("{l:?}"), lane_rect(&h, l)))
            .collect();
        rects.push((PLOTTED.to_string(), h.get_by_label(PLOTTED).rect()));
        rects.push((LONG.to_string(), h.get_by_label(LONG).rect()));
        for (lane, r) in rects {
            assert!(
                (r.left() - dt.left()).abs() <= 0.5 && (r.right() - dt.right()).abs() <= 0.5,
                "{size:?}: the {lane} plot spans x {}..{}, the dt plot {}..{}",
                r.left(),
                r.right(),
                dt.left(),
                dt.right()
            );
        }
        // The same screen x over any lane is the same frame, so the hover
        // line every lane draws at that frame crosses them all at one x.
        for fraction in [0.05, 0.5, 0.95] {
            let x = dt.left() + dt.width() * fraction;
            let mut seen = Vec::new();
            for lane in [LaneId::Dt, LaneId::Physics, LaneId::Markers] {
                scroll_to(&mut h, lane);
                let r = lane_rect(&h, lane);
                seen.push((
                    format!("{lane:?}"),
                    hovered_at(&mut h, egui::pos2(x, r.center().y)),
                ));
            }
            h.get_by_label(PLOTTED).scroll_to_me();
            h.run_steps(10);
            let r = h.get_by_label(PLOTTED).rect();
            seen.push((
                PLOTTED.to_string(),
                hovered_at(&mut h, egui::pos2(x, r.center().y)),
            ));
            assert!(seen[0].1.is_some(), "{size:?}: a frame under x {x}");
            assert!(
                seen.iter().all(|(_, s)| *s == seen[0].1),
                "{size:?}: at x {x} the lanes hover different frames: {seen:?}"
            );
        }
        // A click on the plotted lane seeks like a click on any lane: the
        // cursor goes to the tick of the frame under the pointer.
        let r = h.get_by_label(PLOTTED).rect();
        let at = egui::pos2(r.left() + r.width() * 0.5, r.center().y);
        let seq = hovered_at(&mut h, at).expect("a frame under the pointer");
        let tick = frames(&h).record(seq).expect("its record").simulation_tick;
        press_release(&mut h, at);
        h.run_steps(3);
        assert_eq!(h.state().cursor(), Some(tick), "{size:?}");
    }
}

/// Every lane's header: "⏵ name" collapsed, "⏷ name" open.
fn header_rect(h: &Harness<'_, Editor>, lane: LaneId) -> egui::Rect {
    let headers: Vec<egui::Rect> = h
        .query_all_by(|n| {
            n.label().is_some_and(|l| {
                (l.starts_with("⏵ ") || l.starts_with("⏷ "))
                    && l[4..].split(" (").next() == Some(lane.title())
            })
        })
        .map(|n| n.rect())
        .collect();
    assert_eq!(headers.len(), 1, "one header for {lane:?}: {headers:?}");
    headers[0]
}

#[test]
fn at_the_default_size_every_lane_header_lies_inside_the_timeline_tile() {
    for size in [DEFAULT_SIZE, MAXIMISED] {
        let mut h = editor_sized(demo(), size);
        h.run_steps(30);
        let tile = tile(&h);
        for lane in LaneId::ALL {
            let r = header_rect(&h, lane);
            assert!(
                tile.contains_rect(r),
                "{size:?}: the {lane:?} header at {r:?} lies outside the tile {tile:?}"
            );
        }
        for lane in LaneId::ALL.into_iter().filter(|l| l.expanded_by_default()) {
            let r = lane_rect(&h, lane);
            assert!(
                tile.contains_rect(r),
                "{size:?}: the {lane:?} plot at {r:?} lies outside the tile {tile:?}"
            );
        }
    }
}

/// Where value `v` sits on a lane's y axis, in screen points.
fn screen_y(h: &Harness<'_, Editor>, lane: LaneId, v: f64) -> f32 {
    let r = lane_rect(h, lane);
    let (lo, hi) = timeline(h).lane(lane).shown_y.expect("the lane was drawn");
    r.bottom() - ((v - lo) / (hi - lo)) as f32 * r.height()
}

#[test]
fn at_the_minimum_lane_height_every_y_label_lies_inside_its_own_lane() {
    let mut h = editor_sized(demo(), DEFAULT_SIZE);
    h.run_steps(30);
    click(&mut h, "⏸ Pause");
    // All eight open: each at the 56-point minimum, the lane area scrolls.
    open_only(&mut h, &LaneId::ALL);
    // The y labels are 11-point text, centred on their marks.
    let half = h
        .ctx
        .fonts_mut(|f| f.row_height(&egui::FontId::proportional(11.0)))
        / 2.0;
    // The marks at each lane's ends that the demo always has: "0" at the
    // bottom of every value lane, and the top each lane always includes
    // (1 tick, an alpha of 1, 0.02 s of dropped time while none is dropped).
    let mut marks: Vec<(LaneId, f64)> = LaneId::ALL
        .into_iter()
        .filter(|l| *l != LaneId::Markers)
        .map(|l| (l, 0.0))
        .collect();
    marks.extend([
        (LaneId::Ticks, 1.0),
        (LaneId::Alpha, 1.0),
        (LaneId::Dropped, 0.02),
    ]);
    for (lane, v) in marks {
        let r = lane_rect(&h, lane);
        assert!(r.height() >= 55.5, "{lane:?} is {} points tall", r.height());
        let y = screen_y(&h, lane, v);
        assert!(
            y - half >= r.top() - 0.5 && y + half <= r.bottom() + 0.5,
            "the {lane:?} label at {v} spans y {}..{}, outside its plot {}..{}",
            y - half,
            y + half,
            r.top(),
            r.bottom()
        );
    }
    // "0 ticks" and the dropped lane's "0.02 s" below it are a line apart.
    let ticks_zero = screen_y(&h, LaneId::Ticks, 0.0);
    let dropped_top = screen_y(&h, LaneId::Dropped, 0.02);
    assert!(
        dropped_top - ticks_zero >= 2.0 * half,
        "\"0 ticks\" at y {ticks_zero} and \"0.02 s\" at y {dropped_top} overlap"
    );
}

#[test]
fn the_divergence_lanes_captions_lie_inside_their_label_column() {
    let mut h = editor_sized(demo(), DEFAULT_SIZE);
    h.run_steps(20);
    click(&mut h, "⏸ Pause");
    let at = clock_tick(&h);
    h.state_mut()
        .send(Command::BranchB(BranchCommand::ForkHere(at)));
    h.run_steps(2);
    click(&mut h, "▶ Play");
    step_until(&mut h, 60, "the divergence lanes", |h| {
        h.query_by_label("lane divergence: objects").is_some()
    });
    h.run_steps(10);
    click(&mut h, "⏸ Pause");
    let tile = tile(&h);
    let style = h.ctx.global_style();
    let natural_width = |text: &str, style_of_text: egui::TextStyle| {
        let font = style_of_text.resolve(&style);
        h.ctx.fonts_mut(|f| {
            let row = f.row_height(&font);
            let width = f
                .layout_no_wrap(text.to_string(), font, egui::Color32::WHITE)
                .size()
                .x;
            (width, row)
        })
    };
    for (title, detail) in [
        ("divergence: objects", "B: "),
        ("divergence: distance (m)", "largest "),
    ] {
        let plot = h.get_by_label(&format!("lane {title}")).rect();
        let column = egui::Rect::from_min_max(
            egui::pos2(tile.left(), plot.top()),
            egui::pos2(plot.left(), plot.bottom()),
        );
        let caption = h.get_by_label(title).rect();
        let second: Vec<(String, egui::Rect)> = h
            .query_all_by(|n| crate::support::shown_text(n).is_some_and(|t| t.starts_with(detail)))
            .map(|n| {
                let text = crate::support::shown_text(&n.accesskit_node()).unwrap_or_default();
                (text, n.rect())
            })
            .filter(|(_, r)| r.intersects(column))
            .collect();
        assert_eq!(
            second.len(),
            1,
            "the {title} lane's second line: {second:?}"
        );
        let (text, line) = second[0].clone();
        for (what, r) in [("title", caption), ("second line", line)] {
            assert!(
                column.expand(0.5).contains_rect(r),
                "the {title} lane's {what} at {r:?} spills out of its label column {column:?}"
            );
        }
        assert!(
            caption.bottom() <= line.top() + 0.5,
            "the {title} lane's two lines overlap: {caption:?} and {line:?}"
        );
        // Shown whole: on one line as wide as the text, or wrapped onto more
        // (never cut short with an ellipsis).
        for (shown, r, text_style) in [
            (title.to_string(), caption, egui::TextStyle::Body),
            (text, line, egui::TextStyle::Small),
        ] {
            let (width, row) = natural_width(&shown, text_style);
            assert!(
                width <= r.width() + 1.0 || r.height() >= 1.5 * row,
                "{shown:?} needs {width} points on one line and is shown cut to {r:?}"
            );
        }
    }
}

#[test]
fn a_bookmark_at_the_live_edge_is_drawn_whole() {
    let dir = scratch("live-edge-bookmark");
    let scene = demo_copy(&dir);
    let mut h = editor_sized(scene, DEFAULT_SIZE);
    h.run_steps(40);
    click(&mut h, "⏸ Pause");
    let tick = clock_tick(&h);
    click(&mut h, "Bookmarks");
    click(&mut h, &format!("Bookmark tick {tick}"));
    assert_eq!(
        h.state().reading().bookmarks().list().len(),
        1,
        "the bookmark the marker lane draws"
    );
    open_only(&mut h, &[LaneId::Dt, LaneId::Markers]);
    scroll_to(&mut h, LaneId::Markers);
    let r = lane_rect(&h, LaneId::Markers);
    let y = r.center().y;
    // The newest frame (it ran the bookmarked tick) and the one before it.
    let records = frames(&h).records();
    assert_eq!(records.back().map(|r| r.simulation_tick), Some(tick));
    let last = frames(&h).telemetry().pushed() - 1;
    // The first screen x nearer `seq` than the frame before it: half-way
    // between the two frames (found by halving, one pixel at a time).
    let boundary = |h: &mut Harness<'_, Editor>, seq: u64| {
        let (mut lo, mut hi) = (r.left() + r.width() / 2.0, r.right() - 0.5);
        while hi - lo > 0.25 {
            let mid = (lo + hi) / 2.0;
            if hovered_at(h, egui::pos2(mid, y)).is_some_and(|s| s >= seq) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    };
    let b_last = boundary(&mut h, last);
    let b_before = boundary(&mut h, last - 1);
    let x_last = b_last + (b_last - b_before) / 2.0;
    // A diamond of radius 4 around the frame's x.
    assert!(
        x_last + 4.0 <= r.right() + 0.5,
        "the newest frame sits at x {x_last}: its bookmark's diamond runs past the plot's \
         right edge at {}",
        r.right()
    );
}

/// A plot button's lane once landed below the fold at the default
/// size, so the user had to scroll to find what they just added. The lane
/// area now scrolls each new lane into view, at both sizes, with every clock
/// lane open above it.
#[test]
fn a_lane_just_plotted_is_scrolled_into_view() {
    for size in [DEFAULT_SIZE, MAXIMISED] {
        let mut h = editor_sized(demo(), size);
        h.run_steps(40);
        click(&mut h, "⏸ Pause");
        open_only(&mut h, &LaneId::ALL);
        for (expr, lane) in [
            ("obj(20).y", "lane Player #20 · y (m)"),
            ("obj(20).x", "lane Player #20 · x (m)"),
            ("obj(60).angle", "lane Guard #60 · angle (rad)"),
        ] {
            h.state_mut()
                .send(Command::Watches(WatchCommand::Plot(expr.to_string())));
            // Scrolling is animated: let it settle.
            h.run_steps(12);
            let tile = tile(&h);
            let r = h.get_by_label(lane).rect();
            assert!(
                tile.contains_rect(r),
                "{size:?}: {lane} at {r:?}, outside the timeline tile {tile:?}"
            );
        }
    }
}

/// A fork made while the lane area was scrolled down put its divergence
/// lanes (first in the area) and their "first at tick" link above the
/// fold. A new comparison or fork starts the area at its top.
#[test]
fn a_fork_shows_its_divergence_lanes_even_from_a_lane_area_scrolled_down() {
    let mut h = editor_sized(demo(), DEFAULT_SIZE);
    h.run_steps(40);
    click(&mut h, "⏸ Pause");
    open_only(&mut h, &LaneId::ALL);
    scroll_to(&mut h, LaneId::Markers);
    let tick = crate::support::editor::live_tick(&h);
    h.state_mut()
        .send(Command::BranchB(BranchCommand::ForkHere(tick)));
    h.run_steps(12);
    let lane = h.get_by_label("lane divergence: objects").rect();
    let tile = tile(&h);
    assert!(
        tile.contains_rect(lane),
        "the divergence lane {lane:?} in the timeline tile {tile:?}"
    );
}
