//! Every field read; load, save, load is lossless; a save is atomic.

use super::*;

#[test]
fn a_full_scene_reads_every_field() {
    let scene = Scene::parse(FULL, Path::new("full.ron"), &registry()).unwrap();
    assert_eq!(scene.settings.gravity, Vec2::new(0.5, -3.25));
    assert_eq!(scene.settings.seed, 99);
    let t = scene.settings.time;
    assert_eq!((t.fixed_hz, t.max_steps, t.substeps), (120, 6, 2));
    assert_eq!((t.max_delta, t.time_scale), (0.1, 0.5));
    assert_eq!(t.strategy, stepframe_core::StepStrategy::StepCounting);
    assert_eq!(scene.actions.actions.len(), 2);
    let child = scene.find(3).unwrap();
    assert_eq!(
        child.parent,
        Some(10),
        "the loader sets a nested child's parent"
    );
    assert!(!child.enabled, "a scene object's flag is a plain field");
    let body = child.body.as_ref().unwrap();
    assert_eq!(body.shapes.len(), 2);
    assert!(body.ccd);
    assert_eq!(
        (body.density, body.restitution, body.friction),
        (2.0, 0.5, 0.5)
    );
    let adopted = scene.find(20).unwrap();
    assert_eq!(adopted.parent, Some(10));
    assert_eq!(adopted.behaviours[0].priority, Priority(-50));
    assert_eq!(adopted.behaviours[1].priority, Priority(100));
    assert_eq!(
        adopted.behaviours[1].params, "()",
        "left-out params are `()`"
    );
    assert!(adopted.behaviours[0].params.contains("// a comment"));
    let order: Vec<u64> = scene.all_objects().iter().map(|o| o.id).collect();
    assert_eq!(order, vec![10, 3, 20, 30]);
}

#[test]
fn load_save_load_is_lossless() {
    let registry = registry();
    let scene = Scene::parse(FULL, Path::new("full.ron"), &registry).unwrap();
    let text = scene.to_ron().unwrap();
    let again = Scene::parse(&text, Path::new("saved.ron"), &registry).unwrap();
    assert_eq!(scene, again);
    assert_eq!(text, again.to_ron().unwrap(), "saving is a fixed point");

    let dir = temp_dir("roundtrip");
    let path = dir.join("full.ron");
    scene.save(&path).unwrap();
    assert_eq!(Scene::load(&path, &registry).unwrap(), scene);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_scene_built_in_code_round_trips() {
    let registry = registry();
    let scene = Scene {
        objects: vec![
            SceneObject::new(1, "Floor", Pose::new(0.0, -1.0, 0.0)).with_body(BodyDesc::with_kind(
                stepframe_core::BodyKind::Fixed,
                Shape::Cuboid { hx: 5.0, hy: 1.0 },
            )),
            SceneObject::new(2, "Mover", Pose::new(0.1, 0.2, 0.3))
                .with_body(BodyDesc::dynamic(Shape::Circle { radius: 1.0 / 3.0 }))
                .with_behaviour(SceneBehaviour::new("Probe", Priority(7), "(speed: 1.5)"))
                .with_child(SceneObject::new(5, "Tip", Pose::new(0.0, 1.0, 0.0))),
        ],
        ..Scene::default()
    };
    let text = scene.to_ron().unwrap();
    let again = Scene::parse(&text, Path::new("code.ron"), &registry).unwrap();
    assert_eq!(scene, again);
}

#[test]
fn save_is_atomic_and_leaves_no_temporary_file() {
    let registry = registry();
    let scene = Scene::parse(FULL, Path::new("full.ron"), &registry).unwrap();
    let dir = temp_dir("atomic");
    let path = dir.join("level.ron");
    std::fs::write(&path, "old content\n").unwrap();

    // A scene that cannot be written (its parameters are not RON) fails before
    // anything touches the disk: the old file stays byte-identical.
    let mut broken = scene.clone();
    broken.objects[1].behaviours[0].params = "(speed: ".into();
    assert!(broken.save(&path).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), b"old content\n");

    // The rename fails (the target is a non-empty directory): no temp file left.
    let blocker = dir.join("taken.ron");
    std::fs::create_dir_all(blocker.join("inside")).unwrap();
    let err = scene.save(&blocker).unwrap_err();
    assert_eq!(err.file, blocker);
    assert!(blocker.join("inside").is_dir());

    // A directory that does not exist: an error naming the file, nothing created.
    let nowhere = dir.join("missing").join("level.ron");
    assert!(scene.save(&nowhere).is_err());
    assert!(!dir.join("missing").exists());

    // A good save replaces the old file whole.
    scene.save(&path).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        scene.to_ron().unwrap()
    );

    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        vec!["level.ron", "taken.ron"],
        "no temporary file remains"
    );
    std::fs::remove_dir_all(&dir).ok();
}
