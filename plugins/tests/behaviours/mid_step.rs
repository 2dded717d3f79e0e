//! The built-in mid-step behaviours, `OneWayPlatform` and `Conveyor`, in
//! scenes that use them with no parameters at all: a platform you jump up
//! through and land on, and a belt that carries what rests on it.
//!
//! Numbers by hand: a ball of radius 0.25 m and density 1 weighs
//! π × 0.0625 = 0.196 kg; under g = 10 m/s² a launch at 8 m/s rises
//! 8² / 20 = 3.2 m, so from y = 0.25 it clears a platform whose top is at
//! y = 2.1 with more than a metre to spare, and falls back onto it.

use std::path::Path;

use stepframe_core::{Hooks, Pipeline, Scene};

use super::{DT, position, velocity};

/// The scene in `text` with its own time settings (its substeps), unlike
/// [`super::session`]'s defaults.
fn session(text: &str) -> Pipeline {
    let registry = stepframe_plugins::registry();
    let scene =
        Scene::parse(text, Path::new("mid_step.ron"), &registry).unwrap_or_else(|e| panic!("{e}"));
    let mut p = Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry)
        .unwrap_or_else(|e| panic!("{e}"));
    p
}

/// A floor, a one-way platform (no parameters) 2 m up with its top at
/// y = 2.1, and a ball under it shot straight up at `launch` m/s.
fn platform_scene(launch: f32, substeps: u32) -> String {
    format!(
        r#"(
    settings: (gravity: (x: 0.0, y: -10.0), time: (substeps: {substeps})),
    objects: [
        (id: 1, name: "Floor", transform: (x: 0.0, y: -0.5),
         body: (kind: Fixed, shapes: [Cuboid(hx: 10.0, hy: 0.5)])),
        (id: 2, name: "Platform", transform: (x: 0.0, y: 2.0),
         body: (kind: Fixed, shapes: [Cuboid(hx: 2.0, hy: 0.1)]),
         behaviours: [(name: "OneWayPlatform")]),
        (id: 3, name: "Ball", transform: (x: 0.0, y: 0.25),
         body: (shapes: [Circle(radius: 0.25)], velocity: (linear: (x: 0.0, y: {launch})), can_sleep: false)),
    ],
)"#
    )
}

#[test]
fn a_ball_jumps_up_through_a_one_way_platform_and_lands_on_it() {
    for substeps in [1, 4] {
        let mut p = session(&platform_scene(8.0, substeps));
        let mut top = f32::MIN;
        for _ in 0..120 {
            p.step_frame(DT);
            top = top.max(position(&p, 3).1);
        }
        // It rose past the platform (top face 2.1) from below...
        assert!(top > 3.0, "{substeps} substeps: it went through, top {top}");
        // ...and rests on it: centre one radius above the top face.
        let (_, y) = position(&p, 3);
        assert!(
            (y - 2.35).abs() < 0.02,
            "{substeps} substeps: resting on the platform, y = {y}"
        );
        assert!(velocity(&p, 3).1.abs() < 0.05);
    }
}

#[test]
fn without_the_behaviour_the_platform_is_solid_from_below() {
    let text = platform_scene(8.0, 1).replace(r#"behaviours: [(name: "OneWayPlatform")]"#, "");
    let mut p = session(&text);
    let mut top = f32::MIN;
    for _ in 0..120 {
        p.step_frame(DT);
        top = top.max(position(&p, 3).1);
    }
    assert!(top < 1.9, "the ball hit the underside: top {top}");
}

#[test]
fn a_ball_too_slow_to_clear_the_platform_falls_back_down_through_it() {
    // 6 m/s rises 1.8 m: its centre reaches y = 2.05, inside the platform
    // (1.9 to 2.1) and 0.3 m deep, so it is never a landing.
    let mut p = session(&platform_scene(6.0, 1));
    for _ in 0..120 {
        p.step_frame(DT);
    }
    let (_, y) = position(&p, 3);
    assert!((y - 0.25).abs() < 0.02, "back on the floor, y = {y}");
}

/// A floor, a conveyor belt (no parameters) whose top is at y = 0.2, and a
/// crate dropped onto it.
const BELT: &str = r#"(
    settings: (gravity: (x: 0.0, y: -10.0)),
    objects: [
        (id: 1, name: "Floor", transform: (x: 0.0, y: -0.5),
         body: (kind: Fixed, shapes: [Cuboid(hx: 20.0, hy: 0.5)])),
        (id: 2, name: "Belt", transform: (x: 0.0, y: 0.1),
         body: (kind: Fixed, shapes: [Cuboid(hx: 8.0, hy: 0.1)]),
         behaviours: [(name: "Conveyor")]),
        (id: 3, name: "Crate", transform: (x: -6.0, y: 0.7),
         body: (shapes: [Cuboid(hx: 0.25, hy: 0.25)], can_sleep: false)),
    ],
)"#;

#[test]
fn a_conveyor_with_no_parameters_carries_a_crate_at_two_metres_a_second() {
    let mut p = session(BELT);
    for _ in 0..60 {
        p.step_frame(DT);
    }
    // Dropped 0.25 m, it lands in about 0.22 s and friction (0.5 × 10 =
    // 5 m/s²) brings it to the belt's 2 m/s in another 0.4 s.
    let (vx, _) = velocity(&p, 3);
    assert!((vx - 2.0).abs() < 0.01, "at the belt's speed: {vx}");
    let x0 = position(&p, 3).0;
    for _ in 0..60 {
        p.step_frame(DT);
    }
    let x1 = position(&p, 3).0;
    assert!(
        (x1 - x0 - 2.0).abs() < 0.02,
        "2 m in a second: {x0} -> {x1}"
    );
}

#[test]
fn a_negative_speed_runs_the_belt_the_other_way() {
    let mut p = session(&BELT.replace(
        r#"(name: "Conveyor")"#,
        r#"(name: "Conveyor", params: (speed: -1.0))"#,
    ));
    for _ in 0..60 {
        p.step_frame(DT);
    }
    let (vx, _) = velocity(&p, 3);
    assert!((vx + 1.0).abs() < 0.01, "{vx}");
}

#[test]
fn both_have_only_the_mid_step_hook_and_check_their_parameters() {
    let registry = stepframe_plugins::registry();
    for name in ["OneWayPlatform", "Conveyor"] {
        let b = registry.create(name, "()").expect("defaults");
        assert_eq!(b.hooks(), Hooks::MID_STEP, "{name}");
    }
    for (name, params, says) in [
        ("OneWayPlatform", "(normal: (x: 0.0, y: 0.0))", "normal"),
        ("OneWayPlatform", "(tolerance: -1.0)", "tolerance"),
        ("OneWayPlatform", "(depth: -0.5)", "depth"),
        ("Conveyor", "(speed: inf)", "speed"),
    ] {
        let err = registry
            .create(name, params)
            .expect_err("refused parameters");
        assert!(err.to_string().contains(says), "{name} {params}: {err}");
    }
}
