//! Save writes the session's scene edits into the scene
//! file in place. Driven through the worker's commands (the ones the
//! viewport's drag and the hierarchy's Duplicate and Delete send) on a copy
//! of demo.ron, which is full of comments; each test compares the written
//! file with the original line by line, and the expected lines are copied
//! from demo.ron by hand.

use std::path::Path;
use stepframe_app::editor::protocol::{EditCommand, Notice, Run, SaveRisk, SceneCommand, Target};

use stepframe_core::{Pose, Scene};

use super::lines::changed_lines;
use super::support::editor::demo_copy;
use super::support::scratch;
use super::*;

/// The text of `scene` after the `events` of a Save that wrote it at once:
/// no error, and a Saved event for that very file (no question asked).
fn saved_without_asking(events: &[Event], scene: &Path) -> String {
    assert_no_errors(events);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Saved(p) if p == scene)),
        "saved without asking: {events:?}"
    );
    std::fs::read_to_string(scene).expect("the saved file")
}

/// Sends each command, pumps once, and returns the events.
fn run(h: &mut Host, commands: Vec<Command>) -> Vec<Event> {
    for c in commands {
        h.send(c);
    }
    h.pump(DT);
    h.events()
}

/// Every line of `original` holding a comment is in `written`, unchanged.
fn assert_comments_kept(original: &str, written: &str) {
    let kept: Vec<&str> = written.lines().collect();
    let comments: Vec<&str> = original.lines().filter(|l| l.contains("//")).collect();
    assert_eq!(comments.len(), 18, "demo.ron's comment lines");
    for c in comments {
        assert!(kept.contains(&c), "comment line kept: {c}");
    }
}

fn bits(p: Pose) -> [u32; 3] {
    [p.x.to_bits(), p.y.to_bits(), p.angle.to_bits()]
}

#[test]
fn a_moved_body_is_saved_as_its_changed_literals_only_and_reloads_bit_for_bit() {
    let scene = demo_copy(&scratch("save-in-place-move"));
    let original = std::fs::read_to_string(&scene).expect("the copy");
    let mut h = preview(&scene);
    // The player (a root object at -12, 1) and Box 105 (under Box Pyramid
    // at x -4, local 0.93, 0.301), each moved as a drag moves them.
    let player = Pose::new(-11.25, 1.75, 0.0);
    let box_105 = Pose::new(-3.5, 0.75, 0.0);
    let events = run(
        &mut h,
        vec![
            Command::Edit {
                target: Target::Live,
                edit: EditCommand::Pose(ObjectId(20), player),
            },
            Command::Edit {
                target: Target::Live,
                edit: EditCommand::Pose(ObjectId(105), box_105),
            },
            Command::Scene(SceneCommand::Save {
                replace: false,
                reviewed: true,
            }),
        ],
    );
    let written = saved_without_asking(&events, &scene);
    let box_line = "                (id: 105, name: \"Box 105\", transform: (x: 0.5, y: 0.75), \
                    body: (shapes: [Cuboid(hx: 0.3, hy: 0.3)], friction: 0.7)),";
    assert_eq!(
        changed_lines(&original, &written),
        vec![
            (
                90,
                "            transform: (x: -11.25, y: 1.75),".to_string()
            ),
            (127, box_line.to_string()),
        ]
    );
    assert_eq!(
        original.lines().nth(89),
        Some("            transform: (x: -12.0, y: 1.0),"),
        "line 90 held the player's transform"
    );
    assert_comments_kept(&original, &written);

    // The reloaded file spawns both where they were moved, bit for bit, and
    // runs as the edited live session does.
    let registry = stepframe_app::player::registry(&scene);
    let reloaded = Scene::load(&scene, &registry).expect("the saved scene loads");
    let world = reloaded.instantiate(&registry).expect("builds");
    for (id, pose) in [(20, player), (105, box_105)] {
        let at = world.physics_simulation_pose(ObjectId(id)).expect("a body");
        assert_eq!(bits(at), bits(pose), "object {id}");
    }
    // The same worker machinery on the saved file, stepped alongside: the
    // same state hash at every tick. (And not the unedited demo's.)
    let mut h_saved = preview(&scene);
    let unedited = demo_copy(&scratch("save-in-place-move-unedited"));
    let mut h_unedited = preview(&unedited);
    let mut hashes = Vec::new();
    for _ in 0..10 {
        let hash = |h: &mut Host| {
            let events = run(h, vec![Command::Run(Run::StepTick)]);
            assert_no_errors(&events);
            let view = h.view();
            (view.clock.simulation_tick, view.state_hash)
        };
        let live = hash(&mut h);
        let saved = hash(&mut h_saved);
        let plain = hash(&mut h_unedited);
        hashes.push((live, saved, plain));
    }
    for (live, saved, plain) in &hashes {
        assert_eq!(live, saved, "tick {}: {hashes:?}", live.0);
        assert_ne!(live.1, plain.1, "tick {}: the moves are in", live.0);
    }
    assert_eq!(hashes.last().map(|h| h.0.0), Some(10));
    let _ = std::fs::remove_dir_all(unedited.parent().and_then(Path::parent).expect("dir"));
    let _ = std::fs::remove_dir_all(scene.parent().and_then(Path::parent).expect("dir"));
}

#[test]
fn a_duplicate_is_appended_in_the_file_style_and_a_delete_takes_exactly_its_line() {
    let scene = demo_copy(&scratch("save-in-place-duplicate"));
    let original = std::fs::read_to_string(&scene).expect("the copy");
    let mut h = preview(&scene);
    // Coin A (61) duplicated: id 240 (the demo's highest is 239), half a
    // metre to the right; Wall West (4) deleted.
    let events = run(
        &mut h,
        vec![
            Command::Edit {
                target: Target::Live,
                edit: EditCommand::Duplicate(ObjectId(61)),
            },
            Command::Edit {
                target: Target::Live,
                edit: EditCommand::Remove(ObjectId(4)),
            },
            Command::Scene(SceneCommand::Save {
                replace: false,
                reviewed: true,
            }),
        ],
    );
    let written = saved_without_asking(&events, &scene);
    let mut expected: Vec<&str> = original.lines().collect();
    let wall = expected
        .iter()
        .position(|l| l.contains("(id: 4, name: \"Wall West\""))
        .expect("Wall West's line");
    expected.remove(wall);
    // Before the closing `    ],` of the objects list, like the objects
    // above it: a field a line at 12 spaces, trailing commas.
    let close = expected
        .iter()
        .rposition(|l| *l == "    ],")
        .expect("the objects list's end");
    let added = [
        "        (",
        "            id: 240,",
        "            name: \"Coin A copy\",",
        "            transform: (x: -13.5, y: 3.9),",
        "            body: (kind: Fixed, shapes: [Circle(radius: 0.3)], sensor: true),",
        "            behaviours: [(name: \"Script\", params: (path: \"scripts/pickup.rhai\", vars: {\"player\": 20, \"value\": 10}))],",
        "        ),",
    ];
    for (k, line) in added.iter().enumerate() {
        expected.insert(close + k, line);
    }
    assert_eq!(written.lines().collect::<Vec<_>>(), expected);
    assert_comments_kept(&original, &written);

    let registry = stepframe_app::player::registry(&scene);
    let reloaded = Scene::load(&scene, &registry).expect("the saved scene loads");
    assert!(reloaded.find(4).is_none(), "Wall West is gone");
    let copy = reloaded.find(240).expect("the copy is in the file");
    assert_eq!(copy.name, "Coin A copy");
    assert_eq!(
        copy.body,
        reloaded.find(61).and_then(|o| o.body.clone()),
        "the copy's body is Coin A's"
    );

    // A second Save has nothing new to write.
    let events = run(
        &mut h,
        vec![Command::Scene(SceneCommand::Save {
            replace: false,
            reviewed: true,
        })],
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Notice(Notice::NoChangesToSave(p)) if *p == scene)),
        "{events:?}"
    );
    assert!(
        notices(&events)
            .iter()
            .any(|n| n.starts_with("no changes to save")),
        "{events:?}"
    );
    assert_eq!(std::fs::read_to_string(&scene).expect("read"), written);
    let _ = std::fs::remove_dir_all(scene.parent().and_then(Path::parent).expect("dir"));
}

#[test]
fn a_file_changed_on_disk_since_it_was_loaded_is_not_overwritten_without_asking() {
    let scene = demo_copy(&scratch("save-in-place-changed"));
    let mut h = preview(&scene);
    let elsewhere = format!(
        "// edited elsewhere\n{}",
        std::fs::read_to_string(&scene).expect("read")
    );
    std::fs::write(&scene, &elsewhere).expect("an edit from another program");
    let events = run(
        &mut h,
        vec![
            Command::Edit {
                target: Target::Live,
                edit: EditCommand::Pose(ObjectId(20), Pose::new(-11.0, 1.0, 0.0)),
            },
            Command::Scene(SceneCommand::Save {
                replace: false,
                reviewed: true,
            }),
        ],
    );
    let asked = events.iter().any(|e| {
        matches!(
            e,
            Event::ConfirmSave {
                reason: SaveRisk::ChangedOnDisk,
                ..
            }
        )
    });
    assert!(asked, "{events:?}");
    assert_eq!(std::fs::read_to_string(&scene).expect("read"), elsewhere);
    let _ = std::fs::remove_dir_all(scene.parent().and_then(Path::parent).expect("dir"));
}
