//! A behaviour given new parameters mid-run keeps its state; a refused
//! edit changes nothing.

use super::*;

/// Counts its ticks (state) and pushes with `speed` (a parameter).
#[derive(Clone, Debug)]
struct Counter {
    speed: f32,
    ticks: u64,
}

impl Behaviour for Counter {
    fn name(&self) -> &str {
        "Counter"
    }
    fn fixed_update(&mut self, _ctx: &mut Ctx, _dt: f64) {
        self.ticks += 1;
    }
    fn adopt_params(&mut self, fresh: &dyn Behaviour) -> bool {
        fresh
            .downcast_ref::<Self>()
            .map(|f| self.speed = f.speed)
            .is_some()
    }
}

#[test]
fn a_parameter_edit_keeps_the_behaviours_state_and_a_refused_one_changes_nothing() {
    let mut registry = registry();
    registry.register_typed::<ProbeParams, _>("Counter", |p| {
        if p.speed < 0.0 {
            return Err(ParamsError::new(format!(
                "speed must be >= 0, got {}",
                p.speed
            )));
        }
        Ok(Box::new(Counter {
            speed: p.speed,
            ticks: 0,
        }))
    });
    let scene = Scene::parse(
        "(objects: [(id: 1, name: \"A\", behaviours: [(name: \"Counter\", params: (speed: 1.0)), (name: \"Noop\")])])",
        Path::new("t.ron"),
        &registry,
    )
    .expect("scene");
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, &registry).expect("session");
    for _ in 0..10 {
        p.step_frame(1.0 / 60.0);
    }
    let state = |p: &Pipeline| p.behaviour_states(ObjectId(1))[0].state.clone();
    let authored = |p: &Pipeline| {
        p.world().get(ObjectId(1)).expect("A").behaviours[0]
            .params
            .clone()
    };
    assert!(state(&p).contains("ticks: 10"), "{}", state(&p));

    p.set_behaviour_params(ObjectId(1), 0, "(speed: 2.5)", &registry)
        .expect("Counter adopts parameters");
    let s = state(&p);
    assert!(s.contains("speed: 2.5") && s.contains("ticks: 10"), "{s}");
    assert_eq!(authored(&p), "(speed: 2.5)");
    p.step_frame(1.0 / 60.0);
    assert!(state(&p).contains("ticks: 11"));

    // Refusals: nothing changes.
    let before = (state(&p), authored(&p));
    let e = p
        .set_behaviour_params(ObjectId(1), 0, "(sped: 1.0)", &registry)
        .expect_err("unknown field");
    match &e {
        stepframe_core::ParamsEditError::Create {
            source: stepframe_core::scene::CreateError::Params(params),
            ..
        } => assert_eq!(params.position, Some((1, 2)), "{e}"),
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("sped"), "{e}");
    let e = p
        .set_behaviour_params(ObjectId(1), 0, "(speed: -1.0)", &registry)
        .expect_err("out of range");
    assert!(e.to_string().contains("speed must be >= 0"), "{e}");
    let e = p
        .set_behaviour_params(ObjectId(1), 1, "()", &registry)
        .expect_err("Noop keeps no parameters");
    assert!(
        matches!(e, stepframe_core::ParamsEditError::NotAdjustable(ref n) if n == "Noop"),
        "{e}"
    );
    let e = p
        .set_behaviour_params(ObjectId(1), 2, "()", &registry)
        .expect_err("no third behaviour");
    assert!(
        matches!(
            e,
            stepframe_core::ParamsEditError::NoSuchBehaviour { index: 2, .. }
        ),
        "{e}"
    );
    assert_eq!((state(&p), authored(&p)), before);
}
