//! The editor, driven headless through egui_kittest: widgets are found by
//! their labels, clicked and typed into, and what the panels show is read back
//! from their labels. The app runs in its synchronous test driver: one worker
//! frame of exactly 1/60 s per UI frame, the same worker code the thread runs.
//! At 60 Hz 1/60 s is exactly 11,760,000 flicks, so every running UI frame is
//! one fixed tick.

use egui_kittest::kittest::Queryable;
use stepframe_app::editor::Pane;
use stepframe_core::Scene;

mod support;
use support::editor::{
    add_frame_delta_over_10_ms_from, click, click_enabled, click_shown, clock_tick, demo, editor,
    headless_pose_at, label_starting, live_tick, live_view, parse_pose, paused_comparing_from,
    same_bits, show, status, status_once_suspended, step_until, suspended_tick, type_into,
    type_over,
};
use support::labels_starting;

#[test]
fn step_tick_advances_exactly_one_tick_and_the_clock_panel_shows_it() {
    let mut h = editor();
    h.run_steps(5);
    assert_eq!(status(&h), "running");
    click(&mut h, "⏸ Pause");
    let t0 = clock_tick(&h);
    assert_eq!(status(&h), format!("suspended at tick {t0}: paused"));
    h.run_steps(5);
    assert_eq!(clock_tick(&h), t0, "paused: no tick runs");

    click(&mut h, "Step tick");
    assert_eq!(clock_tick(&h), t0 + 1);
    assert_eq!(
        status(&h),
        format!("suspended at tick {}: step tick", t0 + 1)
    );
    h.run_steps(5);
    assert_eq!(clock_tick(&h), t0 + 1, "still suspended after the step");

    // The shortcut does the same (F10).
    h.key_press(egui::Key::F10);
    h.run_steps(2);
    assert_eq!(clock_tick(&h), t0 + 2);
    // And the clock shows the completed tick's time: tick × 1/60 s.
    let time_row = label_starting(&h, "simulation_time");
    assert!(
        time_row.ends_with(&format!("{:.6} s", (t0 + 2) as f64 / 60.0)),
        "{time_row:?}"
    );
}

/// The tick the breakpoint test stops at: 0.25 s in, while the player (a ball
/// dropped from 0.6 m above its resting height) is still falling: it needs
/// √(2 × 0.6 / 9.81) ≈ 0.35 s, about 21 ticks, to land. So the pose differs
/// from tick to tick and an off-by-one tick cannot pass.
const BREAK_TICK: u64 = 15;

#[test]
fn fixed_update_breakpoint_on_the_player_stops_at_the_end_of_its_tick_with_the_exact_pose() {
    let mut h = editor();
    click(&mut h, "⏸ Pause");
    let paused_at = clock_tick(&h);
    assert!(paused_at < BREAK_TICK, "paused at {paused_at}");
    // Select the player in the hierarchy.
    click(&mut h, "Player");
    assert!(label_starting(&h, "Player (#").starts_with("Player (#"));
    // A FixedUpdate breakpoint on the selected object (the form's defaults),
    // from BREAK_TICK on: typed into the form of the Breakpoints tab.
    click(&mut h, "Breakpoints");
    type_into(&mut h, "From tick", &BREAK_TICK.to_string());
    click(&mut h, "Add breakpoint");
    let listed = labels_starting(&h, "FixedUpdate on Player");
    assert_eq!(listed.len(), 1, "the breakpoint is listed: {listed:?}");

    // Play until the status reads suspended.
    click(&mut h, "▶ Play");
    let s = status_once_suspended(&mut h, 200, "the breakpoint hit");
    assert_eq!(suspended_tick(&s), Some(BREAK_TICK), "{s}");
    assert!(
        s.contains("breakpoint 1 on Player #")
            && s.contains("FixedUpdate (PlayerController), end of tick"),
        "{s}"
    );
    // The hit is listed once: the player's FollowCamera has no FixedUpdate.
    let hits = labels_starting(&h, &format!("tick {BREAK_TICK} frame "));
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert!(hits[0].contains("Player #") && hits[0].contains("PlayerController"));
    click(&mut h, "Clock");
    assert_eq!(clock_tick(&h), BREAK_TICK);
    // It stays there: suspended frames run nothing.
    h.run_steps(5);
    assert_eq!(clock_tick(&h), BREAK_TICK);

    // The inspector's committed pose is, bit for bit, the pose at the end of
    // that tick in a plain headless run, and not the tick before or after.
    let shown = parse_pose(&label_starting(&h, "committed pose: "));
    let expected = headless_pose_at(&demo(), "Player", BREAK_TICK);
    assert!(
        same_bits(shown, expected),
        "inspector {shown:?} vs headless {expected:?}"
    );
    for other in [BREAK_TICK - 1, BREAK_TICK + 1] {
        let p = headless_pose_at(&demo(), "Player", other);
        assert!(
            !same_bits(shown, p),
            "tick {other} has the same pose: test too weak"
        );
    }
    // Suspended, the viewport draws the committed pose too.
    let presented = parse_pose(&label_starting(&h, "presentation pose: "));
    assert!(same_bits(presented, expected), "{presented:?}");

    // Step one tick: the breakpoint (every tick from BREAK_TICK) hits again,
    // one tick later, with that tick's exact pose.
    click(&mut h, "Step tick");
    assert_eq!(clock_tick(&h), BREAK_TICK + 1);
    let next = headless_pose_at(&demo(), "Player", BREAK_TICK + 1);
    let shown = parse_pose(&label_starting(&h, "committed pose: "));
    assert!(same_bits(shown, next), "{shown:?} vs {next:?}");
}

#[test]
fn a_fixed_update_breakpoint_on_the_player_hits_once_per_tick_so_hit_3_stops_at_the_third_tick() {
    // The player has PlayerController (FixedUpdate) and FollowCamera
    // (presentation only). Every built-in declares its hooks, so only the
    // controller is called, and hit = 3 means the third tick after From.
    let mut h = editor();
    click(&mut h, "⏸ Pause");
    let paused_at = clock_tick(&h);
    let from = paused_at + 5;
    click(&mut h, "Player");
    click(&mut h, "Breakpoints");
    type_into(&mut h, "From tick", &from.to_string());
    h.get_by_label("Hit count").click();
    h.run_steps(2);
    click(&mut h, "hit = n");
    type_into(&mut h, "n", "3");
    click(&mut h, "Add breakpoint");
    assert_eq!(labels_starting(&h, "FixedUpdate on Player").len(), 1);
    click(&mut h, "▶ Play");
    let s = status_once_suspended(&mut h, 200, "the breakpoint hit");
    assert_eq!(suspended_tick(&s), Some(from + 2), "{s}");
    let listed = label_starting(&h, "FixedUpdate on Player");
    assert!(listed.ends_with("— 3 matches"), "{listed}");
}

#[test]
fn a_clock_breakpoint_from_the_panel_stops_at_the_end_of_the_frame_it_names_with_a_marker() {
    // One tick per UI frame of 1/60 s: every frame's delta is 16.667 ms, so
    // "delta > 10 ms from tick T" holds first at the end of the frame that
    // completes tick T.
    let mut h = editor();
    click(&mut h, "⏸ Pause");
    let from = clock_tick(&h) + 4;
    click(&mut h, "Breakpoints");
    add_frame_delta_over_10_ms_from(&mut h, from);
    assert_eq!(labels_starting(&h, "frame delta > 10 ms").len(), 1);
    click(&mut h, "▶ Play");
    let s = status_once_suspended(&mut h, 100, "the clock breakpoint hit");
    assert_eq!(suspended_tick(&s), Some(from), "{s}");
    assert!(s.contains("frame delta > 10 ms"), "{s}");
    assert!(s.ends_with("end of frame"), "{s}");
    let timeline = &h.state().timeline();
    let marked: Vec<_> = timeline
        .markers()
        .iter()
        .filter(|m| m.kind == stepframe_app::editor::timeline::MarkerKind::Clock)
        .collect();
    assert_eq!(marked.len(), 1, "{marked:?}");
    let listed = label_starting(&h, "frame delta > 10 ms");
    assert!(listed.ends_with("— 1 match"), "{listed}");
}

#[test]
fn f9_on_an_object_without_fixed_update_says_so_and_arms_nothing() {
    let mut h = editor();
    click(&mut h, "⏸ Pause");
    click(&mut h, "Ground West");
    h.key_press(egui::Key::F9);
    h.run_steps(3);
    let notice = labels_starting(&h, "F9: Ground West #2 has no FixedUpdate hook");
    assert_eq!(notice.len(), 1, "{notice:?}");
    show(&mut h, Pane::Breakpoints);
    assert!(labels_starting(&h, "FixedUpdate on Ground West").is_empty());
    assert!(
        !labels_starting(&h, "No breakpoints.").is_empty(),
        "the list stays empty"
    );
}

#[test]
fn pause_stops_the_clock_and_resume_continues_it() {
    let mut h = editor();
    h.run_steps(4);
    let before = clock_tick(&h);
    h.run_steps(4);
    assert!(clock_tick(&h) > before, "running: ticks advance");

    click(&mut h, "⏸ Pause");
    let paused_at = clock_tick(&h);
    assert_eq!(status(&h), format!("suspended at tick {paused_at}: paused"));
    h.run_steps(10);
    assert_eq!(clock_tick(&h), paused_at, "no tick while paused");

    click(&mut h, "▶ Play");
    assert_eq!(status(&h), "running");
    let resumed = clock_tick(&h);
    h.run_steps(10);
    // One tick per running UI frame at 60 Hz with 1/60 s frames.
    assert_eq!(clock_tick(&h), resumed + 10);

    // Space toggles too, when no text field or viewport has the keyboard.
    h.key_press(egui::Key::Space);
    h.run_steps(2);
    assert!(
        status(&h).starts_with("suspended at tick "),
        "{}",
        status(&h)
    );
    h.key_press(egui::Key::Space);
    h.run_steps(2);
    assert_eq!(status(&h), "running");
}

#[test]
fn keys_go_to_the_game_while_the_viewport_has_focus() {
    let mut h = editor();
    click(&mut h, "Player");
    let x0 = parse_pose(&label_starting(&h, "committed pose: ")).x;
    // Give the game the keyboard and hold the right arrow for one second.
    h.get_by_role_and_label(egui::accesskit::Role::Canvas, "Viewport")
        .click();
    h.run_steps(2);
    h.key_down(egui::Key::ArrowRight);
    h.run_steps(60);
    h.key_up(egui::Key::ArrowRight);
    h.run_steps(2);
    let x1 = parse_pose(&label_starting(&h, "committed pose: ")).x;
    assert!(x1 > x0 + 1.0, "the player ran right: from {x0} to {x1}");
}

#[test]
fn an_opened_scene_is_previewed_at_tick_0_and_f9_toggles_a_breakpoint() {
    let mut h = editor();
    h.run_steps(10);
    assert!(clock_tick(&h) > 0);
    // Open the demo again with File → Open: a fresh session, suspended at
    // tick 0, poses as authored.
    let path = demo().canonicalize().expect("the demo exists");
    support::editor::open_scene(&mut h, &path);
    assert_eq!(status(&h), "suspended at tick 0: paused");
    assert_eq!(clock_tick(&h), 0);
    h.run_steps(5);
    assert_eq!(clock_tick(&h), 0, "a preview runs nothing");

    // The player stands where the scene file puts it.
    let registry = stepframe_app::player::registry(&path);
    let authored = Scene::load(&path, &registry)
        .expect("the scene loads")
        .all_objects()
        .iter()
        .find(|o| o.name == "Player")
        .map(|o| o.transform)
        .expect("the demo has a player");
    click(&mut h, "Player");
    let shown = parse_pose(&label_starting(&h, "committed pose: "));
    assert!(same_bits(shown, authored), "{shown:?} vs {authored:?}");

    // F9 adds a FixedUpdate breakpoint on the selection, F9 again removes it.
    show(&mut h, Pane::Breakpoints);
    h.key_press(egui::Key::F9);
    h.run_steps(2);
    assert_eq!(labels_starting(&h, "FixedUpdate on Player #").len(), 1);
    h.key_press(egui::Key::F9);
    h.run_steps(2);
    assert!(labels_starting(&h, "FixedUpdate on Player #").is_empty());
}

/// A ball at y = 1 m with nothing under it, gravity 10 m/s², 60 Hz.
const FALLING_BALL: &str =
    r#"(id: 1, name: "Ball", transform: (x: 0.0, y: 1.0), body: (shapes: [Circle(radius: 0.25)]))"#;

/// The editor on [`FALLING_BALL`] (written to the scratch directory
/// `scratch_name`), paused, with `watch` typed into the Watches tab's field.
fn falling_ball_watch(
    scratch_name: &str,
    watch: &str,
) -> egui_kittest::Harness<'static, stepframe_app::editor::Editor> {
    let scene = support::scratch(scratch_name).join("falling.ron");
    std::fs::write(&scene, support::scene_text("-10.0", &[FALLING_BALL])).expect("write the scene");
    let mut h = support::editor::editor_sized(scene, support::editor::DEFAULT_SIZE);
    click(&mut h, "⏸ Pause");
    click(&mut h, "Watches");
    type_into(&mut h, "Watch", watch);
    h
}

#[test]
fn run_to_first_stops_where_the_ball_falls_below_0_and_find_previous_goes_back_to_a_held_tick() {
    // After m ticks of 1/60 s: y = 1 - 10·m(m+1)/7200 (below 0 first at
    // m = 27: 756 > 720 > 702) and vy = -m/6 (between -2.95 and -2.05 for
    // m = 13..=17).
    let mut h = falling_ball_watch("watches", "obj(1).y < 0");
    click(&mut h, "Add watch");
    click(&mut h, "Run to first");
    let s = status_once_suspended(&mut h, 100, "the watch held");
    assert_eq!(suspended_tick(&s), Some(27), "{s}");
    assert!(s.contains("obj(1).y < 0"), "{s}");
    // A second watch, marking, added after the ticks it holds on went by:
    // Find previous searches the history, not what was seen live.
    type_into(&mut h, "Watch", "obj(1).vy < -2.05 && obj(1).vy > -2.95");
    h.get_by_label("Action").click();
    h.run_steps(2);
    click(&mut h, "mark");
    click(&mut h, "Add watch");
    let finds = h.get_all_by_label("Find previous").collect::<Vec<_>>();
    assert_eq!(finds.len(), 2);
    finds[1].click();
    step_until(&mut h, 20, "the cursor moved", |h| {
        h.state().cursor().is_some()
    });
    assert_eq!(h.state().cursor(), Some(17));
    h.run_steps(3);
    assert!(status(&h).starts_with("viewing tick 17"), "{}", status(&h));
    let timeline = &h.state().timeline();
    let watch_markers = timeline
        .markers()
        .iter()
        .filter(|m| m.kind == stepframe_app::editor::timeline::MarkerKind::Watch)
        .count();
    assert_eq!(watch_markers, 1, "the break watch held once");
}

#[test]
fn a_soft_body_is_drawn_from_its_particles_selected_by_a_click_inside_and_listed_in_the_inspector()
{
    // soft.ron's jellies: the viewport's view carries their particles and
    // outline; a click at a jelly's committed centroid selects it, and the
    // inspector reads its particle count and whether it tore.
    let scene =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/soft.ron");
    let mut h = support::editor::editor_sized(scene, support::editor::DEFAULT_SIZE);
    h.run_steps(30);
    click(&mut h, "⏸ Pause");
    h.run_steps(2);
    let view = h.state().published().live.clone().expect("a view").world;
    let (id, soft) = view
        .objects
        .iter()
        .find_map(|o| {
            let soft = o.body.as_ref()?.soft.clone()?;
            soft.outlines
                .iter()
                .any(|(_, closed)| *closed)
                .then_some((o.id, soft))
        })
        .expect("a jelly in soft.ron");
    assert!(soft.particles.len() > 3);
    assert_eq!(
        soft.particles, soft.committed,
        "suspended: the committed particles are drawn"
    );
    // The centroid of the drawn particles lies inside the outline: click there.
    let n = soft.committed.len() as f32;
    let c = soft
        .committed
        .iter()
        .fold((0.0, 0.0), |(x, y), p| (x + p.x / n, y + p.y / n));
    let camera = h.state().viewport_camera().expect("drawn");
    let (sx, sy) = camera.to_screen(stepframe_core::Vec2::new(c.0, c.1));
    h.hover_at(egui::pos2(sx, sy));
    h.run_steps(1);
    support::editor::press_release(&mut h, egui::pos2(sx, sy));
    h.run_steps(3);
    assert_eq!(h.state().reading().selection(), Some(id));
    let listed = label_starting(&h, "soft body: ");
    assert_eq!(
        listed,
        format!(
            "soft body: {} particles of radius {} m",
            soft.committed.len(),
            soft.radius
        )
    );
    assert_eq!(label_starting(&h, "torn: "), "torn: no");
    // The jelly disk's script reads its particles in FixedUpdate: F9 on it
    // stops at the end of a tick, where the inspector reads its committed
    // centroid pose.
    click(&mut h, "JellyDisk");
    h.key_press(egui::Key::F9);
    h.run_steps(2);
    click(&mut h, "▶ Play");
    let s = status_once_suspended(&mut h, 50, "the breakpoint hit");
    assert!(
        s.contains("on JellyDisk") && s.contains("FixedUpdate (Script), end of tick"),
        "{s}"
    );
    assert!(label_starting(&h, "committed pose: ").contains(" m, y "));
}

#[test]
fn a_plotted_watch_gets_a_timeline_lane_with_its_value_every_frame() {
    // The falling ball's vy after m ticks is -m/6 m/s; one tick per frame.
    let mut h = falling_ball_watch("watch-lane", "obj(1).vy");
    h.get_by_label("Action").click();
    h.run_steps(2);
    click(&mut h, "show value");
    click(&mut h, "Add watch");
    click(&mut h, "▶ Play");
    h.run_steps(20);
    click(&mut h, "⏸ Pause");
    // The Watches tab covers the Clock tab: read the tick from the live view.
    let tick = live_tick(&h);
    assert_eq!(
        stepframe_app::editor::timeline::plotted(h.state().reading().live()),
        vec![(0, "obj(1).vy")],
        "the host's list plots it"
    );
    let lanes = h.state().timeline().watch_lanes();
    let values = lanes.values_of("obj(1).vy").expect("values");
    assert!(values.len() >= 15, "{}", values.len());
    let (_, last) = *values.back().expect("a value");
    assert!(
        (last + tick as f64 / 6.0).abs() < 1e-4,
        "vy {last} at tick {tick}"
    );
    // It reads one field of one object: titled after them, as the
    // inspector's plot buttons' lanes are.
    let lane = h.get_by_label("lane Ball #1 · vy (m/s)").rect();
    assert!(lane.height() >= 56.0, "{lane:?}");
    // The Watches tab writes the f32 the field is, not its widened digits.
    assert_eq!(
        label_starting(&h, "= "),
        format!("= {} at tick {tick}", last as f32)
    );
}

#[test]
fn a_press_inserted_in_the_input_tab_replays_at_its_tick_after_resume_from_here() {
    let dir = support::scratch("tape-tab");
    let mut h = editor();
    h.run_steps(20);
    click(&mut h, "⏸ Pause");
    let paused_at = clock_tick(&h);
    show(&mut h, Pane::Input);
    assert!(
        label_starting(&h, "0 edges").contains("recorded as the ticks ran"),
        "nothing typed yet"
    );
    // "What if I had pressed jump ten ticks from now": a press of Space (the
    // form's default key, bound to jump) and its release three ticks later.
    let press_at = paused_at + 10;
    support::editor::set_insert_tick(&mut h, press_at);
    click_shown(&mut h, "Insert");
    support::editor::set_insert_tick(&mut h, press_at + 3);
    click_shown(&mut h, "release");
    click_shown(&mut h, "Insert");
    assert_eq!(
        label_starting(&h, "edited: "),
        format!(
            "edited: first change at tick {press_at}; Resume from here replays from tick {}",
            paused_at + 1
        )
    );
    assert_eq!(
        labels_starting(&h, &format!("tick {press_at}: ")),
        vec![format!("tick {press_at}: press Space (to come)")]
    );

    // Saved beside the scene as a recording; a second Save asks first.
    let file = dir.join("what-if.tape.ron");
    support::editor::type_tape_path(&mut h, &file);
    click_shown(&mut h, "Save");
    let saved = stepframe_core::Recording::load(&file).expect("a valid recording");
    let stamps: Vec<(u64, f32)> = saved.events.iter().map(|e| (e.tick, e.value)).collect();
    assert_eq!(stamps, vec![(press_at, 1.0), (press_at + 3, 0.0)]);
    std::fs::write(&file, "kept").expect("write");
    click_shown(&mut h, "Save");
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        "kept",
        "not replaced unasked"
    );
    click_shown(&mut h, "Cancel");

    click_enabled(&mut h, "Resume from here");
    assert!(
        h.state().published().tape_draft.is_none(),
        "the draft was replayed and dropped"
    );
    click(&mut h, "▶ Play");
    step_until(&mut h, 40, "the run passed the release", |h| {
        clock_tick(h) > press_at + 3
    });
    click(&mut h, "⏸ Pause");
    let tape = h.state().published().recording.clone();
    let received: Vec<(u64, f32)> = tape.events.iter().map(|e| (e.tick, e.value)).collect();
    assert_eq!(received, stamps, "the ticks received the edited tape");
    assert_eq!(
        labels_starting(&h, &format!("tick {press_at}: ")),
        vec![format!("tick {press_at}: press Space")]
    );
    assert!(h.query_by_label("Stop tape").is_some());
}

#[test]
fn compare_with_a_trace_that_parts_at_tick_200_marks_it_and_shows_a_and_b() {
    let mut h = paused_comparing_from("compare", 260, 200, 230);
    let c = h.state().reading().run_b().expect("comparing");
    let first = c.about.first.expect("a divergence");
    assert_eq!(
        (first.tick, first.objects, first.first_object),
        (200, 1, Some(20))
    );
    assert!((first.distance - 0.25).abs() < 1e-6, "{}", first.distance);
    assert!(
        c.samples[&199].objects == 0,
        "tick 199 is the same in A and B"
    );
    // The marker lane holds the divergence marker at tick 200's frame (one
    // tick per frame at 60 Hz: frame 200 of the lanes' x axis). A click on
    // it puts the cursor on tick 200.
    click_shown(&mut h, "⏵ markers");
    h.get_by_label("lane markers").scroll_to_me();
    h.run_steps(10);
    let lane = h.get_by_label("lane markers").rect();
    let range = h.state().timeline().range().expect("a range");
    let x = lane.left() + ((200.0 - range.0) / (range.1 - range.0)) as f32 * lane.width();
    // The divergence row is the lowest of the marker lane.
    let y = lane.bottom() - lane.height() / 16.0;
    h.hover_at(egui::pos2(x, y));
    h.run_steps(1);
    support::editor::press_release(&mut h, egui::pos2(x, y));
    h.run_steps(3);
    assert_eq!(h.state().cursor(), Some(200));
    // The player selected: A and B side by side, x differing by 0.25 m.
    click(&mut h, "Player");
    h.run_steps(3);
    assert_eq!(label_starting(&h, "A / B at tick"), "A / B at tick 200");
    let a = h
        .state()
        .reading()
        .shown()
        .and_then(|v| v.selected.clone())
        .expect("the player at 200");
    // B at the tick shown comes with the past view of tick 200.
    let b = h
        .state()
        .reading()
        .shown()
        .and_then(|v| v.b.as_ref())
        .filter(|t| t.tick == 200)
        .and_then(|t| t.object(20))
        .expect("B has the player");
    assert_eq!(b[0], a.committed.x + 0.25);
    assert!(h.query_by_label(&format!("{:?}", a.committed.x)).is_some());
    assert!(h.query_by_label(&format!("{:?}", b[0])).is_some());
    // The divergence lane's link goes back to tick 200 from elsewhere.
    h.state_mut()
        .act(stepframe_app::editor::Action::ViewTick(150));
    h.run_steps(3);
    click_shown(&mut h, "first at tick 200");
    assert_eq!(h.state().cursor(), Some(200));
}

/// Plays until A and B part (within 60 frames) and returns where.
fn play_until_the_branches_part(
    h: &mut egui_kittest::Harness<'_, stepframe_app::editor::Editor>,
) -> stepframe_app::compare::poses::TickDivergence {
    let first = |h: &egui_kittest::Harness<'_, stepframe_app::editor::Editor>| {
        h.state().reading().run_b().and_then(|c| c.about.first)
    };
    click(h, "▶ Play");
    step_until(h, 60, "A and B part", |h| first(h).is_some());
    first(h).expect("parted")
}

#[test]
fn fork_here_then_a_jump_applied_to_b_parts_the_branches_and_discard_drops_b() {
    let mut h = editor();
    h.run_steps(20);
    click(&mut h, "⏸ Pause");
    let at = clock_tick(&h);
    click_shown(&mut h, "Fork here");
    h.run_steps(2);
    assert_eq!(h.state().reading().fork(), Some(at));
    assert!(
        h.query_by_label(&format!("B forked at tick {at}"))
            .is_some()
    );
    // B jumps five ticks later: the Input tab's edit goes to B.
    show(&mut h, Pane::Input);
    support::editor::set_insert_tick(&mut h, at + 5);
    click_shown(&mut h, "Insert");
    click_shown(&mut h, "Apply to B");
    let first = play_until_the_branches_part(&mut h);
    assert_eq!((first.tick, first.first_object), (at + 5, Some(20)));
    assert!(h.query_by_label("divergence: objects").is_some());
    // The live session received no jump: its tape is still empty.
    let recording = &h.state().published().recording;
    assert!(recording.events.is_empty(), "A kept its own input");
    click_shown(&mut h, "Discard B");
    h.run_steps(2);
    assert_eq!(h.state().reading().fork(), None);
    assert!(h.state().reading().run_b().is_none());
}

#[test]
fn the_clock_tab_says_how_far_rewind_reaches_and_sets_the_history_budget() {
    let mut h = editor();
    h.run_steps(30);
    show(&mut h, Pane::Clock);
    // What the history holds, and how far the budget reaches at this rate.
    let held = label_starting(&h, "history holds ");
    assert!(held.ends_with("(from tick 0)"), "{held}");
    let reach = label_starting(&h, "budget reaches ≈ ");
    assert!(reach.ends_with(" at this rate (256 MiB)"), "{reach}");
    let live = h.state().published().live.as_ref().expect("a view").rewind;
    assert_eq!(
        live.budget,
        Some(256 << 20),
        "the persisted default reached the worker"
    );
    h.get_by_label("history budget").scroll_to_me();
    h.run_steps(10);
    click(&mut h, "history budget");
    click(&mut h, "64 MiB");
    h.run_steps(3);
    let live = h.state().published().live.as_ref().expect("a view").rewind;
    assert_eq!(live.budget, Some(64 << 20));
    assert!(label_starting(&h, "budget reaches ≈ ").ends_with(" at this rate (64 MiB)"));
    assert_eq!(
        h.state()
            .published()
            .live
            .as_ref()
            .and_then(|v| v.rewind.budget),
        Some(64 << 20),
        "the worker's budget, which the editor saves"
    );
}

#[test]
fn a_parameter_typed_for_b_in_the_inspector_speeds_b_up_and_leaves_a_alone() {
    let mut h = editor();
    h.run_steps(20);
    click(&mut h, "⏸ Pause");
    let at = clock_tick(&h);
    click_shown(&mut h, "Fork here");
    h.run_steps(2);
    assert_eq!(h.state().reading().fork(), Some(at));
    click(&mut h, "Sliding Platform");
    h.run_steps(3);
    // The RON field, folded under the typed widgets.
    click_shown(&mut h, "Edit B as RON");
    let field = "B params of KinematicMover";
    h.get_by_label(field).scroll_to_me();
    h.run_steps(3);
    type_over(
        &mut h,
        field,
        "(waypoints: [(x: 0.0, y: 0.0), (x: 2.0, y: 0.0)], speed: 3.0, mode: PingPong)",
    );
    click_shown(&mut h, "Set in B");
    h.run_steps(2);
    let first = play_until_the_branches_part(&mut h);
    // The platform moves faster from B's next tick; nothing else differs
    // before it.
    assert_eq!((first.tick, first.first_object), (at + 1, Some(12)));
    let a = live_view(&h)
        .objects
        .iter()
        .find(|o| o.id == stepframe_core::ObjectId(12))
        .map(|o| o.committed.x);
    let tick = clock_tick(&h);
    let headless = support::editor::headless_at(&support::editor::demo(), tick);
    assert_eq!(
        a,
        headless
            .world()
            .physics_simulation_pose(stepframe_core::ObjectId(12))
            .map(|p| p.x),
        "A's platform is the unforked run's"
    );
}

/// The editor a new user starts (the first-run hint on), on `storage`.
fn first_run_editor(
    storage: &std::path::Path,
) -> egui_kittest::Harness<'static, stepframe_app::editor::Editor> {
    let file: &'static support::storage::FileStorage =
        Box::leak(Box::new(support::storage::FileStorage::open(storage)));
    let mut h = egui_kittest::Harness::builder()
        .with_size(support::editor::DEFAULT_SIZE)
        .with_step_dt(support::editor::DT as f32)
        .build_eframe(move |cc| {
            cc.storage = Some(file);
            let config = stepframe_app::editor::EditorConfig {
                welcome: true,
                ..stepframe_app::editor::EditorConfig::driven(
                    support::editor::demo(),
                    support::editor::DT,
                )
            };
            stepframe_app::editor::Editor::new(cc, config).expect("the editor starts")
        });
    h.run_steps(3);
    h
}

#[test]
fn the_demo_tells_a_new_user_what_to_try_until_dismissed_and_the_dismissal_persists() {
    let dir = support::scratch("first-run");
    let storage = dir.join("storage.ron");
    let mut h = first_run_editor(&storage);
    assert!(
        h.query_by_label("Welcome to stepframe").is_some(),
        "the hint"
    );
    assert_eq!(
        labels_starting(&h, "1. Click the Player (the labelled circle) and press F9").len(),
        1
    );
    click(&mut h, "Got it");
    h.run_steps(2);
    assert!(
        h.query_by_label("Welcome to stepframe").is_none(),
        "dismissed"
    );
    support::storage::save_settings(&mut h, &storage);
    // The next start remembers.
    let h = first_run_editor(&storage);
    assert!(
        h.query_by_label("Welcome to stepframe").is_none(),
        "not shown again after a dismissal"
    );
}
