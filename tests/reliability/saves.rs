//! saves.

use super::*;

/// A fresh directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "stepframe-reliability-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A scene of `n` balls, `variant` moving every one of them: big enough that
/// a save takes a while, and two variants differ everywhere.
fn big_scene(n: u64, variant: u64) -> Scene {
    let mut scene = Scene::default();
    scene.settings.seed = variant;
    for i in 0..n {
        let x = (i % 100) as f32 * 0.7 + variant as f32;
        let y = (i / 100) as f32 * 0.7;
        scene.objects.push(
            SceneObject::new(
                i + 1,
                format!("Ball {i} of variant {variant}"),
                Pose::new(x, y, 0.0),
            )
            .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.3 })),
        );
    }
    scene
}

#[test]
fn a_save_that_fails_part_way_leaves_the_old_file_byte_for_byte() {
    let registry = stepframe_plugins::registry();
    let dir = temp_dir("io-failure");
    let path = dir.join("level.ron");
    let old = big_scene(50, 1);
    old.save(&path).expect("first save");
    let old_bytes = std::fs::read(&path).expect("read");

    // Inject an I/O failure: the temporary file `Scene::save` writes first
    // (`.level.ron.<pid>.tmp` beside the target) cannot be created, because a
    // directory already has its name. Root or not, that create fails.
    let tmp = dir.join(format!(".level.ron.{}.tmp", std::process::id()));
    std::fs::create_dir(&tmp).expect("blocker");
    let new = big_scene(50, 2);
    let err = new.save(&path).expect_err("the save must fail");
    assert!(err.to_string().contains("cannot save the scene"), "{err}");
    assert!(err.to_string().contains("level.ron"), "{err}");
    assert_eq!(
        std::fs::read(&path).expect("read"),
        old_bytes,
        "old file intact"
    );
    assert_eq!(Scene::load(&path, &registry).expect("still loads"), old);

    // Without the blocker the same save goes through and leaves no temp file.
    std::fs::remove_dir(&tmp).expect("unblock");
    new.save(&path).expect("second save");
    assert_eq!(Scene::load(&path, &registry).expect("loads"), new);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .expect("list")
        .filter_map(Result::ok)
        .filter(|e| e.file_name() != "level.ron")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn killing_a_process_mid_save_never_leaves_a_half_written_scene() {
    // The child saves two scenes over the target in turn (`b` first, since
    // the target starts as `a`). `STEPFRAME_SAVE_PAUSE` stops one of its
    // saves at a named point (core's `atomic_file`, `test-hooks` feature);
    // the child says `paused <point>` and waits, and is killed with SIGKILL
    // exactly there. Every point of a save is covered, in the first save and
    // in later ones, with no sleep and no race.
    let registry = stepframe_plugins::registry();
    let dir = temp_dir("kill");
    let target = dir.join("level.ron");
    let a = big_scene(50, 1);
    let b = big_scene(50, 2);
    let (a_path, b_path) = (dir.join("a.ron"), dir.join("b.ron"));
    a.save(&a_path).expect("a");
    b.save(&b_path).expect("b");
    let a_bytes = std::fs::read(&a_path).expect("a bytes");
    let b_bytes = std::fs::read(&b_path).expect("b bytes");
    assert_ne!(a_bytes, b_bytes);
    let half = b_bytes.len() / 2;
    let last = b_bytes.len() - 1;
    // (where the save stops, what the target must hold, what the temporary
    // file holds if it is still there)
    type Case<'a> = (String, &'a [u8], Option<&'a [u8]>);
    let cases: Vec<Case> = vec![
        ("created".into(), &a_bytes, Some(&[])),
        ("bytes:1".into(), &a_bytes, Some(&b_bytes[..1])),
        (format!("bytes:{half}"), &a_bytes, Some(&b_bytes[..half])),
        (format!("bytes:{last}"), &a_bytes, Some(&b_bytes[..last])),
        ("written".into(), &a_bytes, Some(&b_bytes)),
        ("synced".into(), &a_bytes, Some(&b_bytes)),
        ("renamed".into(), &b_bytes, None),
        // The second save writes `a` over `b`; the third `b` over `a`.
        ("renamed@2".into(), &a_bytes, None),
        ("synced@3".into(), &a_bytes, Some(&b_bytes)),
    ];
    for (point, expected, tmp_holds) in cases {
        std::fs::copy(&a_path, &target).expect("the old file");
        let mut child = Command::new(env!("CARGO_BIN_EXE_stepframe-save-loop"))
            .arg(&target)
            .arg(&a_path)
            .arg(&b_path)
            .env("STEPFRAME_SAVE_PAUSE", &point)
            .stdout(Stdio::piped())
            .spawn()
            .expect("the save loop starts");
        let tmp = dir.join(format!(".level.ron.{}.tmp", child.id()));
        let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        let mut line = || lines.next().expect("a line").expect("readable");
        assert_eq!(line(), "saving", "{point}: the child's first line");
        let shown = point.split('@').next().unwrap_or_default();
        assert_eq!(
            line(),
            format!("paused {shown}"),
            "{point}: where it stopped"
        );
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");

        let bytes = std::fs::read(&target).expect("the target always exists");
        assert!(
            bytes == expected,
            "{point}: the target is not the scene it should be ({} bytes)",
            bytes.len()
        );
        let scene = Scene::load(&target, &registry).expect("the target always parses");
        assert!(scene == a || scene == b, "{point}");
        match tmp_holds {
            Some(held) => {
                let left = std::fs::read(&tmp).expect("the temporary file is left");
                assert!(
                    left == held,
                    "{point}: the temporary file holds {} bytes",
                    left.len()
                );
                std::fs::remove_file(&tmp).expect("clean up");
            }
            None => assert!(!tmp.exists(), "{point}: renamed away"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes finite but absurd values (3e38, near `f32::MAX`) at tick 10: a
/// force on the ball (2), a velocity on box A (3), a teleport of box B (4).
#[derive(Clone, Debug)]
struct Brute;

impl Behaviour for Brute {
    fn name(&self) -> &str {
        "Brute"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.clock().simulation_tick == 10 {
            let huge = 3e38;
            assert!(ctx.apply_force(ObjectId(2), Vec2::new(huge, huge)));
            let linear = Vec2::new(huge, -huge);
            let velocity = Velocity {
                linear,
                angular: huge,
            };
            assert!(ctx.set_velocity(ObjectId(3), velocity));
            assert!(ctx.set_pose(ObjectId(4), Pose::new(huge, huge, huge)));
        }
    }
}

#[test]
fn huge_finite_writes_never_commit_a_non_finite_value() {
    // Each number is finite, so each write is queued. 3e38 N on the 0.79 kg
    // ball for 1/60 s would be 6.4e36 m/s, whose square is infinite (rapier
    // would stop the ball dead, for good): refused at the reconcile, like the
    // velocity of 3e38 m/s. The teleport to 3e38 m is a finite result and is
    // applied. No infinity or NaN comes back out of rapier, and the ball goes
    // on falling under gravity.
    let mut registry = stepframe_plugins::registry();
    registry.register("Brute", "()", |_: &str| {
        Ok(Box::new(Brute) as Box<dyn Behaviour>)
    });
    let r = run(
        &scene_text(&bodyless(r#"(name: "Brute")"#)),
        &registry,
        FRAMES,
        FaultPolicy::Disable,
    );
    assert_eq!(r.rows.len(), FRAMES as usize);
    assert_all_finite(&r.rows);
    let refused: Vec<(Option<ObjectId>, Option<HookKind>, u64)> = r
        .errors()
        .iter()
        .map(|e| (e.object, e.hook, e.tick))
        .collect();
    let fixed = Some(HookKind::FixedUpdate);
    assert_eq!(
        refused,
        [
            (Some(ObjectId(2)), fixed, 10),
            (Some(ObjectId(3)), fixed, 10)
        ]
    );
    let at = |tick: u64, id: u64| r.body(tick, id);
    assert!(at(30, 2)[1] < at(10, 2)[1], "the ball falls on");
    assert_eq!(at(10, 4)[0], 3e38, "the teleport is applied");
}
