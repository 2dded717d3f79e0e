//! Moving a body by dragging it in the viewport. While
//! the session is suspended, a drag that starts on a body moves it by the
//! dragged world distance (screen points over the zoom, y up), as one pose
//! edit of the session's history; while it runs, the same drag pans.

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use stepframe_app::editor::Editor;
use stepframe_app::editor::protocol::ObjectView;
use stepframe_core::{Edit, ObjectId, Pose};

use crate::support::editor::{click, editor};

/// The player of demo.ron: a ball of radius 0.4 m.
const PLAYER: ObjectId = ObjectId(20);

/// The player's pose as the live view has it now.
fn player_pose(h: &Harness<'_, Editor>) -> Pose {
    live_player(h).committed
}

/// The player as the live view has it.
fn live_player(h: &Harness<'_, Editor>) -> ObjectView {
    let reading = h.state().reading();
    let live = reading.live().expect("a live view");
    live.world
        .objects
        .iter()
        .find(|o| o.id == PLAYER)
        .cloned()
        .expect("the player")
}

/// The editor's edits recorded so far.
fn edits(h: &Harness<'_, Editor>) -> Vec<Edit> {
    let recording = &h.state().published().recording;
    recording.edits.iter().map(|e| e.edit.clone()).collect()
}

/// Presses at `from`, moves to `to` in four steps, releases there.
fn drag(h: &mut Harness<'_, Editor>, from: egui::Pos2, to: egui::Pos2) {
    h.event(egui::Event::PointerMoved(from));
    h.run_steps(1);
    h.event(egui::Event::PointerButton {
        pos: from,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    h.run_steps(1);
    for k in 1..=4 {
        let t = k as f32 / 4.0;
        h.event(egui::Event::PointerMoved(from + (to - from) * t));
        h.run_steps(1);
    }
    h.event(egui::Event::PointerButton {
        pos: to,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    h.run_steps(3);
}

/// Where the player's centre is on screen now, and the zoom (px per m).
fn player_on_screen(h: &Harness<'_, Editor>) -> (egui::Pos2, f32) {
    let camera = h.state().viewport_camera().expect("drawn");
    let p = player_pose(h);
    let (x, y) = camera.to_screen(p.position());
    (egui::pos2(x, y), camera.zoom)
}

#[test]
fn dragging_a_body_while_paused_moves_it_by_the_dragged_distance_as_one_edit() {
    let mut h = editor();
    h.run_steps(10);
    click(&mut h, "⏸ Pause");
    h.run_steps(2);
    let before = player_pose(&h);
    let edits_before = edits(&h).len();
    let (start, zoom) = player_on_screen(&h);
    // 80 points right and 40 up on screen: 80/zoom m right, 40/zoom m up.
    let end = start + egui::vec2(80.0, -40.0);
    drag(&mut h, start, end);

    let made = edits(&h);
    assert_eq!(made.len(), edits_before + 1, "one edit: {made:?}");
    let Some(Edit::Pose { object, pose }) = made.last() else {
        panic!("a pose edit: {made:?}");
    };
    assert_eq!(*object, PLAYER);
    let (dx, dy) = (80.0 / zoom, 40.0 / zoom);
    assert!(
        (pose.x - (before.x + dx)).abs() < 1e-4,
        "{pose:?} from {before:?}"
    );
    assert!(
        (pose.y - (before.y + dy)).abs() < 1e-4,
        "{pose:?} from {before:?}"
    );
    assert_eq!(pose.angle, before.angle, "the angle is kept");
    // Until the next tick reconciles it, the view says where it lands; the
    // committed pose is still the tick's own.
    let player = live_player(&h);
    assert_eq!(player.moved_to, Some(*pose));
    assert_eq!(player.committed, before);
    assert_eq!(
        h.state().reading().selection(),
        Some(PLAYER),
        "the dragged body is selected"
    );

    // One tick later the body is there: the teleport keeps its velocity,
    // so it has moved on by v·dt since (under 0.1 m at the few m/s a
    // landing player has), while the drag took it metres away.
    let dropped = *pose;
    click(&mut h, "Step tick");
    h.run_steps(2);
    let after = player_pose(&h);
    let near = |a: Pose, b: Pose| (a.x - b.x).hypot(a.y - b.y);
    assert!(near(after, dropped) < 0.1, "{after:?} vs {dropped:?}");
    assert!(near(after, before) > 1.0, "{after:?} vs {before:?}");
    let player = live_player(&h);
    assert_eq!(player.moved_to, None, "reconciled");
}

#[test]
fn dragging_while_running_pans_and_edits_nothing() {
    let mut h = editor();
    h.run_steps(10);
    let edits_before = edits(&h).len();
    let center = |h: &Harness<'_, Editor>| h.state().viewport_camera().expect("drawn").center;
    let center_before = center(&h);
    let (start, _) = player_on_screen(&h);
    drag(&mut h, start, start + egui::vec2(80.0, -40.0));
    assert_eq!(edits(&h).len(), edits_before, "no edit while running");
    assert_eq!(
        h.get_by_label("Follow camera").accesskit_node().toggled(),
        Some(egui::accesskit::Toggled::False),
        "panning turns following off"
    );
    assert_ne!(center(&h), center_before, "the view panned");
}

#[test]
fn hovering_a_body_names_it() {
    let mut h = editor();
    h.run_steps(20);
    click(&mut h, "⏸ Pause");
    h.run_steps(2);
    let (at, _) = player_on_screen(&h);
    h.hover_at(at);
    // A tooltip shows once the pointer has rested a moment.
    let mut named = Vec::new();
    for _ in 0..120 {
        h.run_steps(1);
        named = crate::support::labels_starting(&h, "Player #20: click to select it");
        if !named.is_empty() {
            break;
        }
    }
    assert_eq!(
        named.len(),
        1,
        "the tooltip names the body under the pointer"
    );
}
