//! The time readout in the viewport's corner. Its text is
//! checked against the Clock tab's rows (what a user reads there) and the
//! status line, for a running, a paused and a breakpoint-stopped session and
//! for a time cursor in the past; and it sits in the scene's top-left corner,
//! clear of the viewport's controls.

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use stepframe_app::editor::{Action, Editor, Pane};

use crate::support::editor::{
    click, clock_field, clock_tick, editor, label_starting, show, status, step_until,
    suspended_tick,
};

/// The frame index as the Clock tab shows it.
fn clock_frame(h: &Harness<'_, Editor>) -> u64 {
    clock_field(h, "frame_index", "frames")
        .parse()
        .expect("a frame count")
}

#[test]
fn the_readout_says_running_with_the_tick_and_frame_and_follows_them() {
    let mut h = editor();
    h.run_steps(5);
    let (tick, frame) = (clock_tick(&h), clock_frame(&h));
    assert_eq!(
        label_starting(&h, "Running · "),
        format!("Running · tick {tick} · frame {frame}")
    );
    // One tick per frame at 60 Hz: five frames on, five ticks on.
    h.run_steps(5);
    assert_eq!(
        label_starting(&h, "Running · "),
        format!("Running · tick {} · frame {}", tick + 5, frame + 5)
    );
}

#[test]
fn the_readout_says_paused_and_the_viewed_tick_while_the_cursor_is_in_the_past() {
    let mut h = editor();
    h.run_steps(30);
    click(&mut h, "⏸ Pause");
    let (tick, frame) = (clock_tick(&h), clock_frame(&h));
    let paused = format!("Paused · tick {tick} · frame {frame}");
    assert_eq!(label_starting(&h, "Paused · "), paused);
    // The cursor on ten ticks ago: the live session stays where it is and
    // the readout says which tick every panel shows.
    h.state_mut().act(Action::ViewTick(tick - 10));
    h.run_steps(3);
    assert_eq!(
        label_starting(&h, "Paused · "),
        format!("{paused} · viewing tick {}", tick - 10)
    );
    // Esc: back to live (still paused, as the user left it), and the
    // readout with it.
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert_eq!(label_starting(&h, "Paused · "), paused);
}

#[test]
fn the_readout_says_suspended_at_breakpoint_at_the_tick_the_status_line_names() {
    let mut h = editor();
    click(&mut h, "Player");
    h.key_press(egui::Key::F9);
    step_until(&mut h, 120, "the player's breakpoint hit", |h| {
        status(h).starts_with("suspended at tick ")
    });
    let tick = suspended_tick(&status(&h)).expect("a tick");
    show(&mut h, Pane::Clock);
    let frame = clock_frame(&h);
    assert_eq!(
        label_starting(&h, "Suspended at breakpoint · "),
        format!("Suspended at breakpoint · tick {tick} · frame {frame}")
    );
}

#[test]
fn the_readout_sits_in_the_scenes_top_left_corner_clear_of_the_viewport_controls() {
    let mut h = editor();
    h.run_steps(3);
    let readout = h
        .get_by(|n| {
            n.role() == Role::Label && n.value().is_some_and(|v| v.starts_with("Running · "))
        })
        .rect();
    let canvas = h.get_by_role_and_label(Role::Canvas, "Viewport").rect();
    assert!(canvas.contains_rect(readout), "{readout:?} in {canvas:?}");
    assert!(
        readout.left() - canvas.left() < 20.0 && readout.top() - canvas.top() < 20.0,
        "top-left: {readout:?} in {canvas:?}"
    );
    for control in ["Committed poses", "Contacts", "Follow camera", "Fit"] {
        let c = h.get_by_label(control).rect();
        assert!(
            !c.intersects(readout),
            "{control} at {c:?} under {readout:?}"
        );
    }
}

/// The Clock tab's row of `field`, as a user reads it.
fn clock_row(h: &Harness<'_, Editor>, field: &str) -> String {
    let rows = crate::support::labels_starting(h, &format!("{field} "));
    assert_eq!(rows.len(), 1, "one {field} row: {rows:?}");
    rows[0].clone()
}

#[test]
fn a_freshly_opened_scene_shows_no_frame_delta_of_the_old_world() {
    let mut h = editor();
    h.run_steps(30);
    crate::support::editor::open_scene(
        &mut h,
        &crate::support::editor::demo().with_file_name("push.ron"),
    );
    crate::support::editor::show(&mut h, Pane::Clock);
    h.run_steps(2);
    assert_eq!(clock_tick(&h), 0, "the preview at tick 0");
    assert_eq!(
        clock_row(&h, "delta_time"),
        "delta_time          — no frame of this world has run yet"
    );
}

#[test]
fn a_frame_stopped_after_one_of_its_ticks_shows_no_alpha_no_frame_had() {
    let mut h = editor();
    // Four ticks a 1/60 s frame: a breakpoint after the first leaves three.
    h.state_mut().send(stepframe_app::editor::Command::Run(
        stepframe_app::editor::protocol::Run::Set(
            stepframe_app::editor::protocol::TimeSetting::FixedRate(240),
        ),
    ));
    h.run_steps(10);
    h.state_mut()
        .send(stepframe_app::editor::Command::Breakpoints(
            stepframe_app::editor::protocol::BreakpointCommand::ToggleFixed(
                stepframe_core::ObjectId(20),
            ),
        ));
    crate::support::editor::step_until(&mut h, 30, "the breakpoint", |h| {
        crate::support::editor::latest_live(h).is_some_and(|v| v.suspension.is_some())
    });
    crate::support::editor::show(&mut h, Pane::Clock);
    h.run_steps(2);
    let frame = clock_frame(&h);
    assert_eq!(
        clock_row(&h, "interpolation_alpha"),
        format!(
            "interpolation_alpha — frame {frame} interrupted: 3 ticks still to run, nothing presented"
        )
    );
}

#[test]
fn after_stepped_ticks_the_frame_fields_say_whose_they_are() {
    let mut h = editor();
    h.run_steps(20);
    click(&mut h, "⏸ Pause");
    h.run_steps(2);
    crate::support::editor::show(&mut h, Pane::Clock);
    h.run_steps(1);
    let frame = clock_frame(&h);
    for _ in 0..5 {
        h.key_press(egui::Key::F10);
        h.run_steps(2);
    }
    assert_eq!(clock_frame(&h), frame, "stepped ticks run no frame");
    let delta = clock_row(&h, "delta_time");
    assert!(delta.ends_with(" *"), "{delta}");
    let accumulator = clock_row(&h, "accumulator");
    assert!(accumulator.ends_with(" *"), "{accumulator}");
    assert_eq!(
        label_starting(&h, "* frame "),
        format!("* frame {frame}'s; 5 ticks stepped since")
    );
}

#[test]
fn a_past_tick_run_at_60_hz_shows_its_own_fixed_dt_after_the_rate_changed() {
    let mut h = editor();
    h.run_steps(30);
    h.state_mut().send(stepframe_app::editor::Command::Run(
        stepframe_app::editor::protocol::Run::Set(
            stepframe_app::editor::protocol::TimeSetting::FixedRate(50),
        ),
    ));
    h.run_steps(30);
    click(&mut h, "⏸ Pause");
    h.run_steps(2);
    crate::support::editor::show(&mut h, Pane::Clock);
    h.run_steps(1);
    assert_eq!(
        clock_row(&h, "fixed_delta_time"),
        "fixed_delta_time    20.000 ms",
        "live: 50 Hz"
    );
    h.state_mut().act(Action::ViewTick(10));
    h.run_steps(4);
    assert_eq!(clock_tick(&h), 10);
    assert_eq!(
        clock_row(&h, "fixed_delta_time"),
        "fixed_delta_time    16.667 ms",
        "tick 10 ran at 60 Hz"
    );
}

/// At the default window (1280×800) the Clock tab's last rows were cut by
/// the tile's bottom edge: the clock is what a user opens the tool for, so
/// every one of its rows is whole in the tile without scrolling (the rewind
/// section under them may scroll), at both window sizes.
#[test]
fn every_clock_row_is_whole_in_the_clock_tile_at_the_default_size() {
    use crate::support::editor::{DEFAULT_SIZE, demo, editor_sized};
    for size in [DEFAULT_SIZE, egui::vec2(1920.0, 1040.0)] {
        let mut h = editor_sized(demo(), size);
        h.run_steps(10);
        show(&mut h, Pane::Clock);
        let tile = h
            .state()
            .workspace()
            .rect(Pane::Clock)
            .expect("the clock tile is laid out");
        let (mut last, mut gap) = (None, 0.0);
        for name in [
            "delta_time",
            "frame_time",
            "frame_index",
            "simulation_time",
            "simulation_tick",
            "fixed_delta_time",
            "interpolation_alpha",
            "dropped_time",
            "accumulator",
            "state hash",
        ] {
            let row = h
                .query_all_by(|n| {
                    n.value()
                        .is_some_and(|v| v.starts_with(&format!("{name} ")))
                })
                .map(|n| n.rect())
                .reduce(|a, b| a.union(b))
                .unwrap_or_else(|| panic!("no {name} row"));
            assert!(
                tile.contains_rect(row),
                "{size:?}: the {name} row at {row:?} is cut by the clock tile {tile:?}"
            );
            gap = last.map_or(0.0, |l: egui::Rect| row.top() - l.bottom());
            last = Some(row);
        }
        // A session host running on its own clock adds one more row under
        // these ("host rate", which the driven editor here has no use for):
        // there is room for it too.
        let last = last.expect("rows");
        assert!(
            tile.bottom() - last.bottom() >= gap + last.height(),
            "{size:?}: no room under the state hash at {last:?} for the host rate row in {tile:?}"
        );
    }
}

/// A breakpoint stopped a three-tick frame after its first tick; F10 ran
/// the frame's two owed ticks and then three ticks of their own. The frame
/// fields said nothing (`delta_time 43.925 ms`), as if a frame had just
/// run: they are the interrupted frame's, three ticks stepped since.
#[test]
fn after_a_breakpoint_in_a_frame_f10_past_its_owed_ticks_says_whose_fields_they_are() {
    use stepframe_app::editor::EditorConfig;
    let dt = 3.0 / 60.0;
    let config = EditorConfig::driven(crate::support::editor::demo(), dt);
    let mut h = egui_kittest::Harness::builder()
        .with_size(crate::support::editor::DEFAULT_SIZE)
        .with_step_dt(1.0 / 60.0)
        .build_eframe(move |cc| Editor::new(cc, config).expect("the editor starts"));
    h.run_steps(3);
    click(&mut h, "Player");
    h.key_press(egui::Key::F9);
    step_until(&mut h, 120, "the player's breakpoint hit", |h| {
        status(h).starts_with("suspended at tick ")
    });
    // The breakpoint is no longer wanted: F9 again clears it.
    h.key_press(egui::Key::F9);
    h.run_steps(2);
    show(&mut h, Pane::Clock);
    h.run_steps(1);
    let frame = clock_frame(&h);
    let tick = clock_tick(&h);
    // Three ticks a frame: how many this one still owes.
    let owed = 3 - (tick - 1) % 3 - 1;
    for _ in 0..owed + 3 {
        h.key_press(egui::Key::F10);
        h.run_steps(2);
    }
    assert_eq!(clock_tick(&h), tick + owed + 3);
    let delta = clock_row(&h, "delta_time");
    assert!(
        delta.ends_with(" *"),
        "{delta} (stopped at tick {tick} of frame {frame}, {owed} owed)"
    );
    assert_eq!(
        label_starting(&h, "* frame "),
        format!("* frame {frame}'s; 3 ticks stepped since")
    );
}
