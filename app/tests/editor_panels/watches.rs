//! The Watches tab never shows what a watch did in a world that is gone: a
//! value or a "last held" from before a scene load, or from the future a
//! rewind abandoned (the one-source-of-truth rule: the editor shows only
//! states that happened in the session on screen).

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use stepframe_app::editor::protocol::RewindCommand;
use stepframe_app::editor::{Command, Editor};

use crate::support;
use crate::support::editor::{
    DEFAULT_SIZE, click, editor_sized, open_scene, status, suspended_tick, type_into,
};
use crate::support::labels_starting;

/// A ball falling from y = 1 m, nothing under it, 60 Hz.
const FALLING_BALL: &str = r#"#![enable(implicit_some)]
(
    settings: (
        gravity: (x: 0.0, y: -10.0),
        time: (fixed_hz: 60, max_delta: 0.25, max_steps: 4, time_scale: 1.0, substeps: 1, strategy: Accumulator),
        seed: 1,
    ),
    objects: [
        (id: 1, name: "Ball", transform: (x: 0.0, y: 1.0), body: (shapes: [Circle(radius: 0.25)])),
    ],
)
"#;

/// The editor on the falling ball with a "show value" watch of its height
/// and a "mark" watch that holds at every tick, `ticks` ticks after they
/// were added; and the tick it is suspended at.
fn watched_ball(name: &str, ticks: usize) -> (Harness<'static, Editor>, std::path::PathBuf, u64) {
    let dir = support::scratch(name);
    let scene = dir.join("falling.ron");
    std::fs::write(&scene, FALLING_BALL).expect("write the scene");
    let mut h = editor_sized(scene, DEFAULT_SIZE);
    click(&mut h, "⏸ Pause");
    click(&mut h, "Watches");
    type_into(&mut h, "Watch", "obj(1).y");
    h.get_by_label("Action").click();
    h.run_steps(2);
    click(&mut h, "show value");
    click(&mut h, "Add watch");
    type_into(&mut h, "Watch", "obj(1).y < 2");
    h.get_by_label("Action").click();
    h.run_steps(2);
    click(&mut h, "mark");
    click(&mut h, "Add watch");
    for _ in 0..ticks {
        click(&mut h, "Step tick");
    }
    h.run_steps(2);
    let tick = suspended_tick(&status(&h)).expect("suspended");
    (h, dir, tick)
}

#[test]
fn a_watch_keeps_no_value_from_the_scene_before_a_load() {
    let (mut h, dir, tick) = watched_ball("watch-load", 5);
    assert_eq!(
        labels_starting(&h, "= ").len(),
        1,
        "the value line is shown"
    );
    assert_eq!(
        labels_starting(&h, &format!("last held at tick {tick}")).len(),
        1
    );
    // Another scene without the ball's values: a preview at tick 0, where no
    // watch has been asked yet.
    let other = dir.join("other.ron");
    std::fs::write(&other, FALLING_BALL.replace("y: 1.0", "y: 3.0")).expect("write");
    open_scene(&mut h, &other);
    h.run_steps(3);
    assert!(
        status(&h).starts_with("suspended at tick 0"),
        "{}",
        status(&h)
    );
    assert_eq!(
        labels_starting(&h, "= ").len(),
        0,
        "{:?}",
        labels_starting(&h, "= ")
    );
    assert_eq!(labels_starting(&h, "last held").len(), 0);
}

#[test]
fn a_rewind_drops_what_the_watches_saw_after_its_tick() {
    let (mut h, _dir, tick) = watched_ball("watch-rewind", 8);
    let seen = format!("at tick {tick}");
    assert_eq!(labels_starting(&h, &format!("last held {seen}")).len(), 1);
    assert_eq!(labels_starting(&h, "= ").len(), 1);
    h.state_mut()
        .send(Command::Rewind(RewindCommand::RewindTo(tick - 5)));
    h.run_steps(3);
    assert!(
        status(&h).starts_with(&format!("suspended at tick {}", tick - 5)),
        "{}",
        status(&h)
    );
    // The last tick seen is in a future that no longer exists.
    assert_eq!(labels_starting(&h, "last held").len(), 0);
    assert_eq!(labels_starting(&h, "= ").len(), 0);
}

/// A "show value" watch added while paused showed nothing until a tick
/// ran. It shows the value now: the ball at rest at y = 1 before any tick
/// (tick 0), written by hand.
#[test]
fn a_value_watch_added_while_paused_shows_its_value_at_once() {
    let dir = support::scratch("watch-at-once");
    let scene = dir.join("falling.ron");
    std::fs::write(&scene, FALLING_BALL).expect("write the scene");
    let mut h = editor_sized(scene, DEFAULT_SIZE);
    click(&mut h, "⏸ Pause");
    let tick = suspended_tick(&status(&h)).expect("paused");
    click(&mut h, "Watches");
    type_into(&mut h, "Watch", "obj(1).y * 2.0");
    h.get_by_label("Action").click();
    h.run_steps(2);
    click(&mut h, "show value");
    click(&mut h, "Add watch");
    h.run_steps(3);
    assert_eq!(suspended_tick(&status(&h)), Some(tick), "no tick ran");
    let shown = labels_starting(&h, "= ");
    assert_eq!(shown.len(), 1, "{shown:?}");
    if tick == 0 {
        assert_eq!(shown[0], "= 2 at tick 0");
    } else {
        assert!(shown[0].ends_with(&format!(" at tick {tick}")), "{shown:?}");
    }
}

#[test]
fn a_watched_field_shows_as_the_f32_it_is_not_its_widened_digits() {
    // obj(1).y is the ball's committed y, an f32, which the watch carries as
    // an f64: shown widened it was `0.9861111044883728`-like noise.
    let (h, _dir, tick) = watched_ball("watch-digits", 5);
    let y = h
        .state()
        .published()
        .live
        .as_ref()
        .and_then(|l| l.world.objects.iter().find(|o| o.id.0 == 1))
        .expect("the ball")
        .committed
        .y;
    assert_ne!(
        f64::from(y).to_string(),
        y.to_string(),
        "a y whose widened digits differ: {y}"
    );
    assert_eq!(
        labels_starting(&h, "= "),
        vec![format!("= {y} at tick {tick}")]
    );
}
