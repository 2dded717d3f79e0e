//! A scene instantiated, loaded into a session and reloaded; the registry.

use super::*;

#[test]
fn instantiate_keeps_ids_sets_parents_and_composes_body_poses() {
    let registry = registry();
    let scene = Scene::parse(FULL, Path::new("full.ron"), &registry).unwrap();
    let world = scene.instantiate(&registry).unwrap();
    let ids: Vec<u64> = world.objects().map(|o| o.id.0).collect();
    assert_eq!(ids, vec![3, 10, 20, 30]);
    let child = world.get(ObjectId(3)).unwrap();
    assert_eq!(child.parent, Some(ObjectId(10)));
    assert!(!child.is_enabled());
    // Root at (10, 0) with no rotation, child at local (1, 0): world (11, 0).
    assert_eq!(
        world.physics_simulation_pose(ObjectId(3)),
        Some(Pose::new(11.0, 0.0, 0.0))
    );
    // Adopted: parent (10, 0), local (0, 2) rotated by nothing: (10, 2), angle 0.5.
    assert_eq!(
        world.physics_simulation_pose(ObjectId(20)),
        Some(Pose::new(10.0, 2.0, 0.5))
    );
    let adopted = world.get(ObjectId(20)).unwrap();
    let names: Vec<&str> = adopted.behaviours.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, vec!["Probe", "Noop", "Probe"]);
    assert_eq!(adopted.behaviours[2].params, "(speed: 0.1e1)");
    assert_eq!(adopted.behaviours[0].priority, Priority(-50));
}

#[test]
fn instantiate_checks_a_scene_edited_in_memory() {
    let registry = registry();
    let mut scene = Scene::parse(FULL, Path::new("full.ron"), &registry).unwrap();
    scene.objects[1].behaviours[0].params = "(speed: -2.0)".into();
    let err = scene.instantiate(&registry).unwrap_err();
    assert!(
        err.message.contains("object 20 `Adopted`"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("speed must be >= 0"),
        "{}",
        err.message
    );

    let mut scene = Scene::parse(FULL, Path::new("full.ron"), &registry).unwrap();
    scene.objects[2].id = 10;
    let err = scene.instantiate(&registry).unwrap_err();
    assert!(err.message.contains("duplicate id 10"), "{}", err.message);
}

const SESSION_A: &str = "(
    settings: (time: (fixed_hz: 60), seed: 5),
    actions: (actions: [(name: \"jump\", sources: [Key(\"Space\")])]),
    objects: [
        (id: 1, name: \"Floor\", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 5.0, hy: 0.5)])),
        (id: 2, name: \"Ball\", transform: (x: 0.0, y: 3.0), body: (shapes: [Circle(radius: 0.5)])),
    ],
)";

const SESSION_B: &str = "(
    settings: (time: (fixed_hz: 60), seed: 5),
    objects: [
        (id: 7, name: \"Only\", transform: (x: 0.0, y: 3.0), body: (shapes: [Circle(radius: 0.5)])),
    ],
)";

#[test]
fn load_scene_starts_a_session_with_the_scene_settings() {
    let registry = registry();
    let mut text = SESSION_A.replace("fixed_hz: 60", "fixed_hz: 50");
    text = text.replace("seed: 5", "seed: 6");
    let scene = Scene::parse(&text, Path::new("a.ron"), &registry).unwrap();
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline.load_scene(&scene, &registry).unwrap();
    assert_eq!(pipeline.world().len(), 2);
    assert_eq!(pipeline.input().map(), &scene.actions);
    // Settings apply at the next frame boundary: 0.05 s is 2 ticks at 50 Hz
    // (it would be 3 at the previous 60 Hz).
    let report = pipeline.step_frame(0.05);
    assert_eq!(pipeline.settings().fixed_hz, 50);
    assert_eq!(report.ticks, 2);
    // Gravity acts (rapier stage): the ball fell.
    let y = pipeline
        .world()
        .physics_simulation_pose(ObjectId(2))
        .unwrap()
        .y;
    assert!(y < 3.0, "ball at {y}");
}

#[test]
fn reload_with_a_broken_file_changes_nothing_and_a_good_one_restarts_simulation_time() {
    let registry = registry();
    let dir = temp_dir("reload");
    let path = dir.join("level.ron");
    std::fs::write(&path, SESSION_A).unwrap();
    let scene = Scene::load(&path, &registry).unwrap();
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline.load_scene(&scene, &registry).unwrap();
    for _ in 0..30 {
        pipeline.step_frame(1.0 / 60.0);
    }
    // The toolbar changes the timing: 120 Hz, taking effect next frame.
    let toolbar = TimeSettings {
        fixed_hz: 120,
        ..TimeSettings::default()
    };
    pipeline.set_settings(toolbar).unwrap();
    pipeline.step_frame(1.0 / 60.0);
    assert_eq!(*pipeline.settings(), toolbar);

    // Broken file: error with position, session untouched.
    std::fs::write(
        &path,
        "(\n    objects: [\n        (id: 1, nme: \"x\"),\n    ],\n)",
    )
    .unwrap();
    let tick = pipeline.clock().simulation_tick;
    let frame_time = pipeline.clock().frame_time;
    let hash = pipeline.state_hash();
    let err = pipeline.reload_scene(&path, &registry).unwrap_err();
    assert_eq!((err.line, err.column), (3, 17), "{err}");
    assert_eq!(err.file, path);
    assert_eq!(pipeline.clock().simulation_tick, tick);
    assert_eq!(pipeline.state_hash(), hash);
    assert_eq!(pipeline.world().len(), 2);
    assert!(pipeline.world().get(ObjectId(2)).is_some());
    // ...and it keeps running.
    pipeline.step_frame(1.0 / 60.0);
    assert_eq!(pipeline.clock().simulation_tick, tick + 2);

    // Good file: new world, simulation time from zero, frame time goes on, the
    // toolbar's settings stay (the file says 60 Hz).
    std::fs::write(&path, SESSION_B).unwrap();
    let frame_time = frame_time + 1.0 / 60.0;
    let loaded = pipeline.reload_scene(&path, &registry).unwrap();
    assert_eq!(loaded.objects.len(), 1);
    assert_eq!(pipeline.clock().simulation_tick, 0);
    assert_eq!(pipeline.clock().simulation_time, 0.0);
    assert!((pipeline.clock().frame_time - frame_time).abs() < 1e-9);
    let ids: Vec<u64> = pipeline.world().objects().map(|o| o.id.0).collect();
    assert_eq!(ids, vec![7]);
    // 1/60 s at the kept 120 Hz is 2 ticks.
    let report = pipeline.step_frame(1.0 / 60.0);
    assert_eq!(report.ticks, 2);
    assert_eq!(*pipeline.settings(), toolbar);
    assert!(pipeline.clock().frame_time > frame_time);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn registry_names_are_sorted_and_defaults_parse() {
    let registry = registry();
    assert_eq!(registry.names(), vec!["Noop", "Probe"]);
    assert!(registry.contains("Probe") && !registry.contains("probe"));
    let defaults = registry.default_params("Probe").unwrap();
    assert!(registry.create("Probe", defaults).is_ok(), "{defaults}");
    assert!(registry.create("Probe", "()").is_ok());
}
