//! The built-in behaviours as the inspector reads them: every one has a
//! derived hook set narrower than "every hook", a table of rows with
//! stable paths, units and parameter marks, the name it is registered
//! under, and takes an edit of its parameters; a script's variables are
//! rows too, with their live values.

use std::path::{Path, PathBuf};

use stepframe_core::{Field, FieldValue, Hooks, ObjectId, Pipeline, Scene, TimeSettings};

fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes")
}

fn load(name: &str) -> Pipeline {
    let path = scenes_dir().join(name);
    let registry =
        stepframe_plugins::registry_for(&stepframe_plugins::ScriptHost::new(), &scenes_dir());
    let scene = Scene::load(&path, &registry).expect("the bundled scene loads");
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, &registry).expect("it instantiates");
    p
}

fn row<'a>(fields: &'a [Field], path: &str) -> &'a Field {
    fields
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no row {path} in {:?}", paths(fields)))
}

fn paths(fields: &[Field]) -> Vec<&str> {
    fields.iter().map(|f| f.path.as_str()).collect()
}

#[test]
fn every_built_in_has_rows_and_none_is_in_every_hook_list() {
    let registry =
        stepframe_plugins::registry_for(&stepframe_plugins::ScriptHost::new(), &scenes_dir());
    for name in registry.names() {
        let params = registry.default_params(name).expect("a default");
        let behaviour = registry
            .create(name, params)
            .unwrap_or_else(|e| panic!("{name} from its defaults: {e}"));
        assert_ne!(behaviour.hooks(), Hooks::ALL, "{name} declares every hook");
        let mut out = stepframe_core::Fields::new(name);
        behaviour.inspect(&mut out);
        let rows = out.into_rows();
        assert!(!rows.is_empty(), "{name} shows no rows");
        for r in &rows {
            assert!(
                r.path.starts_with(&format!("{name}.")),
                "{name}: {}",
                r.path
            );
        }
    }
}

#[test]
fn every_built_in_is_named_as_registered_and_takes_an_edit_of_its_parameters() {
    let registry =
        stepframe_plugins::registry_for(&stepframe_plugins::ScriptHost::new(), &scenes_dir());
    for name in registry.names() {
        let params = registry.default_params(name).expect("a default");
        let mut running = registry
            .create(name, params)
            .unwrap_or_else(|e| panic!("{name} from its defaults: {e}"));
        assert_eq!(running.name(), name);
        let fresh = registry.create(name, params).expect("again");
        assert!(
            running.adopt_params(fresh.as_ref()),
            "{name} refuses new parameters"
        );
    }
}

#[test]
fn the_player_controller_lists_its_parameters_flat_with_units_and_its_state_after() {
    let registry = stepframe_plugins::registry();
    let b = registry
        .create("PlayerController", "(jump_impulse: 4.0)")
        .expect("valid params");
    let mut out = stepframe_core::Fields::new("PlayerController");
    b.inspect(&mut out);
    let rows = out.into_rows();
    let jump = row(&rows, "PlayerController.jump_impulse");
    assert_eq!(
        (&jump.value, jump.unit.as_deref(), jump.param),
        (&FieldValue::F32(4.0), Some("N·s"), true)
    );
    assert_eq!(jump.doc, "Upward impulse of a jump, N·s.");
    let charge = row(&rows, "PlayerController.charge_ms");
    assert_eq!(
        (&charge.value, charge.unit.as_deref(), charge.param),
        (&FieldValue::F64(0.0), Some("ms"), false)
    );
    assert_eq!(
        row(&rows, "PlayerController.touching.len").value,
        FieldValue::UInt(0)
    );
    assert_eq!(
        row(&rows, "PlayerController.left").value,
        FieldValue::Text("left".into())
    );
}

/// The scripts scene's guard: object 3 in scripts.ron runs patrol.rhai
/// with `left: -6.0, right: 1.0, speed: 1.5` from the scene.
const GUARD: ObjectId = ObjectId(3);

#[test]
fn a_scripts_variables_are_rows_with_live_values_and_scene_vars_marked_as_parameters() {
    let mut p = load("scripts.ron");
    let id = GUARD;
    for _ in 0..10 {
        p.step_frame(1.0 / 60.0);
    }
    let state = p
        .behaviour_states(id)
        .into_iter()
        .find(|s| s.name == "Script")
        .expect("the patrol is a Script");
    let rows = &state.fields;
    let file = row(rows, "Script.file");
    assert!(
        matches!(&file.value, FieldValue::Text(t) if t.ends_with("patrol.rhai")),
        "{file:?}"
    );
    assert!(file.param);
    let speed = row(rows, "Script.vars.speed");
    assert_eq!((&speed.value, speed.param), (&FieldValue::F64(1.5), true));
    let started = row(rows, "Script.vars.started");
    assert_eq!(
        (&started.value, started.param),
        (&FieldValue::Bool(true), false)
    );
    // Ten ticks at 1.5 m/s from where it started, 0.025 m a tick: the live
    // value, not the top level's 0.0 (the typed path keeps it in a register).
    let FieldValue::F64(x) = row(rows, "Script.vars.x").value else {
        panic!("x is a float");
    };
    assert_eq!(
        p.behaviour_field(id, "Script.vars.x"),
        Some(FieldValue::F64(x))
    );
    assert_ne!(x, 0.0);
    assert_eq!(
        p.behaviour_field(id, "Script.vars.legs"),
        Some(FieldValue::Int(0))
    );
}

#[test]
fn every_built_in_says_what_each_parameter_is_for_typed_widgets() {
    use stepframe_core::scene::ParamKind;
    let registry =
        stepframe_plugins::registry_for(&stepframe_plugins::ScriptHost::new(), &scenes_dir());
    for name in registry.names() {
        assert!(
            registry.param_kinds(name).is_some(),
            "{name}'s parameter type cannot be read for kinds"
        );
    }
    let kinds = |name: &str| registry.param_kinds(name).expect("kinds").clone();
    let expected: stepframe_core::scene::ParamKinds = [
        ("waypoints[].x", ParamKind::F32),
        ("waypoints[].y", ParamKind::F32),
        ("speed", ParamKind::F32),
        (
            "mode",
            ParamKind::Choice(vec!["Loop".into(), "PingPong".into(), "Once".into()]),
        ),
        ("relative", ParamKind::Bool),
    ]
    .into_iter()
    .map(|(p, k)| (p.to_string(), k))
    .collect();
    assert_eq!(kinds("KinematicMover"), expected);
    let player = kinds("PlayerController");
    assert_eq!(player.get("left"), Some(&ParamKind::Text));
    assert_eq!(player.get("max_charge_ms"), Some(&ParamKind::F64));
    assert_eq!(player.get("require_ground"), Some(&ParamKind::Bool));
    let hooks = [
        "Start",
        "Update",
        "FlowTick",
        "FixedUpdate",
        "Contact",
        "Routine",
        "Present",
    ];
    assert_eq!(
        kinds("Faulty").get("hook"),
        Some(&ParamKind::Choice(hooks.map(String::from).to_vec()))
    );
    assert_eq!(
        kinds("Spawner").get("burst"),
        Some(&ParamKind::Int {
            min: 0,
            max: u64::from(u32::MAX)
        })
    );
    // A list of shapes with content is no choice: its RON is what edits it.
    assert!(!kinds("Spawner").keys().any(|p| p.starts_with("shapes")));
}
