//! Key, button and axis names in a scene's action map: a name nothing
//! sends is refused where it stands, with the nearest valid names; every
//! name docs/scenes.md lists is one a scene may bind, and the other way
//! round; `Shift` is either shift key.

use super::*;
use stepframe_core::input::keys::{EITHER_SIDE, GAMEPAD_AXES, GAMEPAD_BUTTONS, KEYS};
use stepframe_core::{ActionBinding, ActionMap, InputEvent, InputSource};

/// A scene binding `dash` to `source` (written as in RON), on line 5.
fn dash_bound_to(source: &str) -> String {
    format!(
        "#![enable(implicit_some)]\n(\n    actions: (actions: [\n        (name: \"left\", sources: [Key(\"ArrowLeft\")]),\n        (name: \"dash\", sources: [{source}]),\n    ]),\n)\n"
    )
}

#[test]
fn an_unknown_key_name_is_refused_at_its_line_and_column_with_the_nearest_names() {
    let origin = Path::new("assets/scenes/level.ron");
    let err = Scene::parse(&dash_bound_to("Key(\"LShift\")"), origin, &registry())
        .expect_err("nothing sends `LShift`");
    // Line 5, at the quote that opens the name: 8 blanks and
    // `(name: "dash", sources: [Key(` are 37 characters.
    assert_eq!((err.line, err.column), (5, 38), "{err}");
    assert_eq!(err.kind, SceneErrorKind::Actions);
    assert!(
        err.message
            .starts_with("action `dash`: unknown key name `LShift`; did you mean `Shift`"),
        "{err}"
    );
    // docs/scenes.md shows this very error.
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/scenes.md"))
            .expect("docs/scenes.md");
    assert!(
        docs.contains(&err.to_string()),
        "docs/scenes.md no longer shows `{err}`"
    );

    let err = Scene::parse(
        &dash_bound_to("GamepadButton(\"square\")"),
        origin,
        &registry(),
    )
    .expect_err("not a gamepad button");
    assert_eq!((err.line, err.column), (5, 48), "{err}");
    assert!(
        err.message.contains("unknown gamepad button name `square`"),
        "{err}"
    );
    let err = Scene::parse(
        &dash_bound_to("GamepadAxis(\"LeftStickZ\")"),
        origin,
        &registry(),
    )
    .expect_err("not an axis");
    assert!(err.message.contains("did you mean `LeftStickX`"), "{err}");

    // Names that exist load, the side-less modifiers too.
    for ok in [
        "Key(\"ShiftLeft\")",
        "Key(\"Shift\")",
        "Key(\"Ctrl\")",
        "Key(\"Alt\")",
        "Key(\"Num1\")",
        "GamepadButton(\"West\")",
        "GamepadAxis(\"RightZ\")",
        "MouseButton(1)",
    ] {
        Scene::parse(&dash_bound_to(ok), origin, &registry())
            .unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
}

#[test]
fn a_scene_built_in_code_with_an_unknown_name_is_refused_too() {
    let scene = Scene {
        actions: ActionMap {
            actions: vec![ActionBinding {
                name: "jump".into(),
                sources: vec![InputSource::Key("space".into())],
            }],
        },
        ..Scene::default()
    };
    let err = scene.instantiate(&registry()).expect_err("refused");
    assert!(
        err.message
            .contains("actions: action `jump`: unknown key name `space`; did you mean `Space`"),
        "{err}"
    );
}

/// The backticked names of the lines of `section` in docs/scenes.md that
/// `keep` accepts.
fn names_in_docs(keep: impl Fn(&str) -> bool) -> Vec<String> {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/scenes.md"))
            .expect("docs/scenes.md");
    let section = docs
        .split("### Actions: key and button names")
        .nth(1)
        .and_then(|rest| rest.split("\n### ").next())
        .expect("the key names section");
    section
        .lines()
        .filter(|l| keep(l))
        .flat_map(|l| l.split('`').skip(1).step_by(2).map(str::to_string))
        .collect()
}

#[test]
fn docs_scenes_md_lists_every_name_a_scene_may_bind_and_no_other() {
    // The key table's rows: `| group | names |`.
    let keys = names_in_docs(|l| l.starts_with("| ") && !l.starts_with("| group"));
    assert_eq!(
        keys, KEYS,
        "the key table is not the list core checks against"
    );
    let buttons = names_in_docs(|l| l.starts_with("`South`"));
    assert_eq!(buttons, GAMEPAD_BUTTONS);
    let axes = names_in_docs(|l| l.starts_with("**Gamepad axes**"));
    assert_eq!(&axes[..GAMEPAD_AXES.len()], GAMEPAD_AXES);
    let prose = names_in_docs(|l| l.contains("in a binding"));
    for (either, _) in EITHER_SIDE {
        assert!(
            prose.iter().any(|n| n == either),
            "`{either}` is not documented as either side: {prose:?}"
        );
    }
}

#[test]
fn shift_in_a_scene_is_either_shift_key() {
    let registry = registry();
    let scene = Scene::parse(
        &dash_bound_to("Key(\"Shift\")"),
        Path::new("shift.ron"),
        &registry,
    )
    .expect("it loads");
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, &registry).expect("it instantiates");
    let key = |name: &str| InputSource::Key(name.to_string());
    for side in ["ShiftLeft", "ShiftRight"] {
        p.push_input(InputEvent::press(key(side)));
        p.step_frame(1.0 / 60.0);
        let s = p.input().fixed_snapshot();
        assert!(
            s.pressed("dash") && s.just_pressed("dash"),
            "{side} presses dash"
        );
        p.push_input(InputEvent::release(key(side)));
        p.step_frame(1.0 / 60.0);
        assert!(!p.input().fixed_snapshot().pressed("dash"), "{side} let go");
    }
}
