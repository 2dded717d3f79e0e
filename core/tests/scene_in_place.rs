//! Saving edits into a hand-written scene in place: a session's edits folded
//! into its scene ([`Scene::with_edits`]) and written into the file's own
//! text ([`Scene::rewrite_in_place`]). Each test compares the rewritten
//! text with the original line by line: only the lines named may differ,
//! and within them only the literals named; every comment stays; a reload
//! gives the edited world bit for bit.
//!
//! The expected lines are written out by hand below, from the scene text.

use std::path::Path;

use serde::{Deserialize, Serialize};
use stepframe_core::{
    Edit, InPlace, ObjectId, Pipeline, Pose, PreparedEdit, Registry, Scene, SceneObject,
    TimeSettings,
};

mod support;
use support::Probe;
use support::lines::changed_lines;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct ProbeParams {
    speed: f32,
}

fn registry() -> Registry {
    let mut r = Registry::new();
    r.register_typed::<ProbeParams, _>("Probe", |p| Probe::build(p.speed));
    r
}

/// A hand-written scene with an odd layout: tabs, no spaces after some
/// colons, integers where floats go, comments inside values, a child list
/// opened on its parent's line, no trailing comma after the last field.
const ODD: &str = "// odd.ron: written by hand.
#![enable(implicit_some)]
(
  settings: ( gravity: (x: 0.0, y: -9.81), time: (fixed_hz: 60, /* keep */ substeps: 1) ),
  objects: [
\t// a tab-indented ground
\t(id: 1, name: \"Ground\", transform: (x: 0.0, y: -1.0), body: (kind: Fixed, shapes: [Cuboid(hx: 10.0, hy: 0.5)])),
\t(
\t    id:2,name:\"Ball\",   // no spaces after colons
\t    transform:(x:1,y:  2.5),   // ints for floats
\t    body: (shapes: [Circle(radius: 0.5)]),
\t    behaviours: [(name: \"Probe\", params: (speed: 1.5))]
\t),
\t(id: 3, name: \"Group\", transform: (x: -4.0, y: 0.0), children: [
\t    (id: 4, name: \"Box\", transform: (x: 1.0, y: 0.5), body: (shapes: [Cuboid(hx: 0.25, hy: 0.25)])), // a child
\t]),
  ]
)
";

fn odd() -> Scene {
    Scene::parse(ODD, Path::new("odd.ron"), &registry()).expect("the odd scene loads")
}

/// The original text rewritten for `edits`, which must all be placed.
fn rewritten(edits: &[Edit]) -> String {
    let target = odd().with_edits(edits);
    assert!(target.left_out.is_empty(), "{:?}", target.left_out);
    assert!(target.inexact.is_empty(), "{:?}", target.inexact);
    match Scene::rewrite_in_place(ODD, Path::new("odd.ron"), &target.scene, &registry()) {
        Ok(InPlace::Placed(text)) => text,
        other => panic!("not placed: {other:?}"),
    }
}

/// Every comment of the odd scene, as written.
const COMMENTS: [&str; 6] = [
    "// odd.ron: written by hand.",
    "/* keep */",
    "// a tab-indented ground",
    "// no spaces after colons",
    "// ints for floats",
    "// a child",
];

fn bits(p: Pose) -> [u32; 3] {
    [p.x.to_bits(), p.y.to_bits(), p.angle.to_bits()]
}

#[test]
fn a_move_rewrites_only_its_changed_literal_and_keeps_every_comment() {
    let edit = Edit::Pose {
        object: ObjectId(2),
        pose: Pose::new(3.25, 2.5, 0.0),
    };
    let text = rewritten(&[edit]);
    // Line 10 held `transform:(x:1,y:  2.5)`: only `1` became `3.25` (y is
    // still 2.5, angle still left out).
    assert_eq!(
        changed_lines(ODD, &text),
        vec![(
            10,
            "\t    transform:(x:3.25,y:  2.5),   // ints for floats".to_string()
        )]
    );
    for c in COMMENTS {
        assert!(text.contains(c), "{c} kept");
    }
}

#[test]
fn a_moved_child_gets_the_transform_that_lands_on_its_world_pose_bit_for_bit() {
    // Under Group at x -4: world (-2.75, 0.625, 0.5) is local (1.25, 0.625, 0.5).
    let world = Pose::new(-2.75, 0.625, 0.5);
    let text = rewritten(&[Edit::Pose {
        object: ObjectId(4),
        pose: world,
    }]);
    assert_eq!(
        changed_lines(ODD, &text),
        vec![(
            15,
            "\t    (id: 4, name: \"Box\", transform: (x: 1.25, y: 0.625, angle: 0.5), body: (shapes: \
             [Cuboid(hx: 0.25, hy: 0.25)])), // a child"
                .to_string()
        )]
    );
    let reloaded = Scene::parse(&text, Path::new("odd.ron"), &registry()).expect("loads");
    let world_of_box = reloaded
        .instantiate(&registry())
        .expect("builds")
        .physics_simulation_pose(ObjectId(4))
        .expect("a body");
    assert_eq!(bits(world_of_box), bits(world));
}

#[test]
fn a_float_without_a_short_decimal_round_trips_bit_for_bit_and_the_reload_runs_the_same() {
    // One ulp above 0.1: written as the shortest text that reads back the same.
    let x = f32::from_bits(0.1f32.to_bits() + 1);
    let pose = Pose::new(x, 2.5, -0.3);
    let edit = Edit::Pose {
        object: ObjectId(2),
        pose,
    };
    let text = rewritten(std::slice::from_ref(&edit));
    assert_eq!(
        changed_lines(ODD, &text),
        vec![(
            10,
            "\t    transform:(x:0.10000001,y:  2.5, angle: -0.3),   // ints for floats".to_string()
        )]
    );
    let registry = registry();
    let reloaded = Scene::parse(&text, Path::new("odd.ron"), &registry).expect("loads");
    assert_eq!(
        bits(reloaded.find(2).expect("the ball").transform),
        bits(pose)
    );

    // The live session: the original scene with the move applied at tick 0.
    let mut live = Pipeline::new(TimeSettings::default());
    live.load_scene(&odd(), &registry).expect("loads");
    live.apply_edit(&PreparedEdit::from(edit))
        .expect("the move applies");
    let mut again = Pipeline::new(TimeSettings::default());
    again.load_scene(&reloaded, &registry).expect("loads");
    for tick in 1..=30 {
        live.step_frame(1.0 / 60.0);
        again.step_frame(1.0 / 60.0);
        for id in [1, 2, 4] {
            let (a, b) = (
                live.world().physics_simulation_pose(ObjectId(id)),
                again.world().physics_simulation_pose(ObjectId(id)),
            );
            assert_eq!(a.map(bits), b.map(bits), "object {id} at tick {tick}");
        }
    }
}

#[test]
fn a_duplicate_is_appended_in_the_style_of_the_last_object_and_reloads() {
    let mut copy = SceneObject::new(5, "Box copy", Pose::new(1.5, 0.5, 0.0));
    copy.parent = Some(3);
    copy.body = odd().find(4).and_then(|o| o.body.clone());
    let text = rewritten(&[Edit::Spawn(Box::new(copy.clone()))]);
    let mut expected: Vec<&str> = ODD.lines().collect();
    // After the last object (`]),` on line 16), at its indentation, on one
    // line as it is written, its body written as the original's.
    let added = "\t(id: 5, name: \"Box copy\", transform: (x: 1.5, y: 0.5), parent: 3, body: \
                 (shapes: [Cuboid(hx: 0.25, hy: 0.25)])),";
    expected.insert(16, added);
    assert_eq!(text.lines().collect::<Vec<_>>(), expected);
    let reloaded = Scene::parse(&text, Path::new("odd.ron"), &registry()).expect("loads");
    assert_eq!(reloaded.find(5), Some(&copy));
}

#[test]
fn a_removal_takes_exactly_the_object_text_and_its_lines() {
    let text = rewritten(&[Edit::Remove {
        object: ObjectId(2),
    }]);
    // Lines 8 to 13 held Ball, alone on them.
    let mut expected: Vec<&str> = ODD.lines().collect();
    expected.drain(7..13);
    assert_eq!(text.lines().collect::<Vec<_>>(), expected);
    let reloaded = Scene::parse(&text, Path::new("odd.ron"), &registry()).expect("loads");
    assert!(reloaded.find(2).is_none());
    assert_eq!(reloaded.all_objects().len(), 3);

    // A child sharing its line with a comment: the comment stays.
    let text = rewritten(&[Edit::Remove {
        object: ObjectId(4),
    }]);
    assert_eq!(
        changed_lines(ODD, &text),
        vec![(15, "\t    // a child".to_string())]
    );
}

#[test]
fn the_time_settings_change_field_by_field_and_the_comment_between_them_stays() {
    let settings = TimeSettings {
        fixed_hz: 120,
        substeps: 1,
        ..TimeSettings::default()
    };
    let text = rewritten(&[Edit::Settings(settings)]);
    assert_eq!(
        changed_lines(ODD, &text),
        vec![(
            4,
            "  settings: ( gravity: (x: 0.0, y: -9.81), time: (fixed_hz: 120, /* keep */ \
             substeps: 1) ),"
                .to_string()
        )]
    );
}

#[test]
fn new_parameters_and_disabling_rewrite_the_params_value_and_add_the_enabled_field() {
    let text = rewritten(&[
        Edit::Params {
            object: ObjectId(2),
            index: 0,
            behaviour: "Probe".to_string(),
            params: "(speed: 4.0)".to_string(),
        },
        Edit::Enabled {
            object: ObjectId(1),
            enabled: false,
        },
    ]);
    assert_eq!(
        changed_lines(ODD, &text),
        vec![
            (
                7,
                "\t(id: 1, name: \"Ground\", transform: (x: 0.0, y: -1.0), body: (kind: Fixed, \
                 shapes: [Cuboid(hx: 10.0, hy: 0.5)]), enabled: false),"
                    .to_string()
            ),
            (
                12,
                "\t    behaviours: [(name: \"Probe\", params: (speed: 4.0))]".to_string()
            ),
        ]
    );
}

#[test]
fn a_change_without_a_place_is_named_and_nothing_is_rewritten() {
    let mut target = odd();
    target.objects[1].name = "Renamed".to_string();
    let result = Scene::rewrite_in_place(ODD, Path::new("odd.ron"), &target, &registry())
        .expect("the text reads");
    assert_eq!(
        result,
        InPlace::Unplaced(vec!["object 2 `Ball`: its name changed".to_string()])
    );
}

#[test]
fn a_rewrite_that_would_not_load_is_an_error_naming_why() {
    let target = odd().with_edits(&[Edit::Params {
        object: ObjectId(2),
        index: 0,
        behaviour: "Probe".to_string(),
        params: "(speed: -1.0)".to_string(),
    }]);
    let err = Scene::rewrite_in_place(ODD, Path::new("odd.ron"), &target.scene, &registry())
        .expect_err("the factory refuses a negative speed");
    assert!(
        err.message
            .starts_with("the rewritten scene would not load: "),
        "{err}"
    );
    assert!(err.message.contains("speed must be >= 0"), "{err}");
}

#[test]
fn a_velocity_edit_and_an_edit_of_a_run_time_object_are_left_out_by_name() {
    let folded = odd().with_edits(&[
        Edit::Velocity {
            object: ObjectId(2),
            velocity: Default::default(),
        },
        Edit::Pose {
            object: ObjectId(77),
            pose: Pose::new(1.0, 1.0, 0.0),
        },
    ]);
    assert_eq!(folded.scene, odd());
    assert_eq!(
        folded.left_out,
        vec![
            "a move of object 77: not in the scene (spawned at run time)".to_string(),
            "1 velocity edit: a scene holds no velocity at a later tick".to_string(),
        ]
    );
}

#[test]
fn moving_a_parent_body_keeps_its_body_child_where_it_was() {
    let text = "(objects: [(id: 1, name: \"P\", transform: (x: 1.0, y: 1.0), body: (shapes: \
                [Circle(radius: 0.5)]), children: [(id: 2, name: \"C\", transform: (x: 0.5, y: \
                0.0), body: (shapes: [Circle(radius: 0.25)]))])])";
    let scene = Scene::parse(text, Path::new("p.ron"), &registry()).expect("loads");
    let folded = scene.with_edits(&[Edit::Pose {
        object: ObjectId(1),
        pose: Pose::new(3.0, 1.0, 0.0),
    }]);
    // The child was at world (1.5, 1.0) and stays there: local (-1.5, 0.0).
    let child = folded.scene.find(2).expect("the child");
    assert_eq!(bits(child.transform), bits(Pose::new(-1.5, 0.0, 0.0)));
}

#[test]
fn the_fold_says_which_edits_the_scene_holds_so_a_save_can_say_it_first() {
    let velocity = stepframe_core::Velocity::default();
    let folded = odd().with_edits(&[
        Edit::Pose {
            object: ObjectId(2),
            pose: Pose::new(1.0, 2.0, 0.0),
        },
        Edit::Velocity {
            object: ObjectId(2),
            velocity,
        },
        // An object the scene never had: spawned at run time.
        Edit::Pose {
            object: ObjectId(999),
            pose: Pose::new(0.0, 0.0, 0.0),
        },
        Edit::Enabled {
            object: ObjectId(4),
            enabled: false,
        },
        Edit::Remove {
            object: ObjectId(3),
        },
        // Gone with its parent a moment ago.
        Edit::Enabled {
            object: ObjectId(4),
            enabled: true,
        },
    ]);
    assert_eq!(folded.placed, vec![true, false, false, true, true, false]);
}
