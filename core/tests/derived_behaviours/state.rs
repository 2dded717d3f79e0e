//! The state hash, parameter adoption and the registered name, derived by
//! `#[derive(Inspect)]` and `#[stepframe_core::behaviour]`: a field
//! FixedUpdate changes is in the hash without anyone listing it, so a
//! frame-rate bug in it shows at its first tick (a hand-written hash that
//! forgets it sees nothing); an edit takes the marked parameters and keeps
//! the rest; and the name a scene uses is the type's, refused at the
//! scene's behaviour name when a hand-written one disagrees.

use std::collections::BTreeMap;
use std::path::Path;

use stepframe_core::behaviour::{AdoptParams, HashState};
use stepframe_core::hash::StableHasher;
use stepframe_core::scene::{CreateError, ParamsError};
use stepframe_core::{
    Behaviour, Ctx, Inspect, Named, ObjectDesc, ObjectId, Pipeline, Pose, Priority, RapierStage,
    Registry, Scene, SceneErrorKind, TimeSettings, Vec2, World,
};

// ----- the hash --------------------------------------------------------------

/// A cooldown counted down by the *frame's* delta in FixedUpdate: a
/// frame-rate bug (30 Hz frames take twice as much off each tick as 60 Hz
/// ones), in a field nothing else depends on. Hash derived.
#[derive(Clone, Debug, Inspect)]
struct FrameCooldown {
    /// Time left, counted (wrongly) in frame time.
    #[inspect(unit = "ms")]
    cooldown_left_ms: f64,
    /// Dashes made: the same in every run.
    dashes: u64,
}

#[stepframe_core::behaviour]
impl Behaviour for FrameCooldown {
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let frame_ms = ctx.clock().delta_time * 1000.0;
        self.cooldown_left_ms = (self.cooldown_left_ms - frame_ms).max(0.0);
    }
}

/// The same code with a hand-written hash that forgets the cooldown.
#[derive(Clone, Debug, Inspect)]
struct ForgetfulCooldown {
    /// Time left, counted (wrongly) in frame time.
    #[inspect(unit = "ms")]
    cooldown_left_ms: f64,
    /// Dashes made.
    dashes: u64,
}

#[stepframe_core::behaviour]
impl Behaviour for ForgetfulCooldown {
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let frame_ms = ctx.clock().delta_time * 1000.0;
        self.cooldown_left_ms = (self.cooldown_left_ms - frame_ms).max(0.0);
    }

    fn hash_state(&self, hasher: &mut StableHasher) {
        hasher.write_u64(self.dashes);
    }
}

/// The state hash and the behaviour's field `path` after every tick of
/// `frames` frames of `dt`, by tick (`check` compares runs the same way:
/// tick by tick, across display rates).
fn run(
    behaviour: Box<dyn Behaviour>,
    dt: f64,
    frames: usize,
    path: &str,
) -> BTreeMap<u64, (u64, String)> {
    let mut world = World::new();
    let id = world
        .spawn(ObjectDesc::new("dasher", Pose::default()).with_behaviour(behaviour, Priority(0)));
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(world, Box::new(RapierStage::new(Vec2::ZERO)), 1);
    let mut by_tick = BTreeMap::new();
    for _ in 0..frames {
        p.step_frame(dt);
        let field = p
            .behaviour_field(id, path)
            .map(|v| v.to_string())
            .unwrap_or_default();
        by_tick.insert(p.clock().simulation_tick, (p.state_hash(), field));
    }
    by_tick
}

/// The first tick both runs reached whose hashes differ, and whether the
/// field differed by then.
fn first_hash_difference(
    a: &BTreeMap<u64, (u64, String)>,
    b: &BTreeMap<u64, (u64, String)>,
) -> Option<u64> {
    a.iter()
        .filter_map(|(tick, (hash, _))| b.get(tick).map(|(other, _)| (tick, hash != other)))
        .find(|(_, differs)| *differs)
        .map(|(tick, _)| *tick)
}

#[test]
fn a_field_fixed_update_changes_is_in_the_derived_hash_so_a_frame_rate_bug_shows_at_its_first_tick()
{
    let derived = || {
        Box::new(FrameCooldown {
            cooldown_left_ms: 300.0,
            dashes: 1,
        })
    };
    let path = "FrameCooldown.cooldown_left_ms";
    let at_60 = run(derived(), 1.0 / 60.0, 20, path);
    let at_30 = run(derived(), 1.0 / 30.0, 10, path);
    // Tick 2 is the first both runs end a frame on: 300 - 2 × 16.67 ms
    // at 60 Hz, 300 - 2 × 33.33 ms at 30 Hz.
    assert_ne!(at_60[&2].1, at_30[&2].1, "the bug is there");
    assert_eq!(first_hash_difference(&at_60, &at_30), Some(2));

    // A hand-written hash that leaves the field out is blind to it.
    let forgetful = || {
        Box::new(ForgetfulCooldown {
            cooldown_left_ms: 300.0,
            dashes: 1,
        })
    };
    let path = "ForgetfulCooldown.cooldown_left_ms";
    let at_60 = run(forgetful(), 1.0 / 60.0, 20, path);
    let at_30 = run(forgetful(), 1.0 / 30.0, 10, path);
    assert_ne!(at_60[&2].1, at_30[&2].1, "the same bug");
    assert_eq!(first_hash_difference(&at_60, &at_30), None);
}

/// What a value feeds into a fresh hasher.
fn hash(value: &impl HashState) -> u64 {
    let mut h = StableHasher::new();
    value.hash_into(&mut h);
    h.finish()
}

/// One field hashed, one shown but left out with a reason, one not state.
#[derive(Clone, Debug, Inspect)]
struct Mixed {
    /// In the hash.
    kept: u64,
    /// Shown, not hashed.
    #[inspect(skip_hash = "recomputed from `kept` at the start of every tick")]
    derived: u64,
    /// Neither shown nor hashed: a cache.
    #[inspect(skip)]
    cache: Vec<u8>,
}

/// An enum's variants hash apart even with equal payloads.
#[derive(Clone, Debug, Inspect)]
enum Mode {
    Walk(f32),
    Run(f32),
    Idle,
}

#[test]
fn every_field_is_hashed_but_those_left_out_and_an_enum_hashes_its_variant() {
    let base = Mixed {
        kept: 1,
        derived: 2,
        cache: vec![3],
    };
    let changed = |f: fn(&mut Mixed)| {
        let mut m = base.clone();
        f(&mut m);
        hash(&m) != hash(&base)
    };
    assert!(changed(|m| m.kept = 9));
    assert!(!changed(|m| m.derived = 9), "skip_hash leaves it out");
    assert!(!changed(|m| m.cache.push(9)), "skip leaves it out");
    // The rows still show the skip_hash field.
    let mut rows = stepframe_core::Fields::new("Mixed");
    base.inspect_into(&mut rows);
    let paths: Vec<String> = rows.into_rows().into_iter().map(|f| f.path).collect();
    assert_eq!(paths, ["Mixed.kept", "Mixed.derived"]);

    assert_ne!(hash(&Mode::Walk(1.0)), hash(&Mode::Run(1.0)));
    assert_ne!(hash(&Mode::Walk(1.0)), hash(&Mode::Walk(2.0)));
    assert_ne!(hash(&Mode::Idle), hash(&Mode::Walk(0.0)));
}

// ----- parameter adoption ----------------------------------------------------

/// Parameters, as the guide writes them.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, Inspect)]
#[serde(deny_unknown_fields, default)]
struct DashParams {
    /// Time between dashes.
    #[inspect(unit = "ms")]
    cooldown_ms: f64,
}

/// A behaviour with a parameter struct, a single parameter field and state.
#[derive(Clone, Debug, Inspect)]
struct Dash {
    #[inspect(params)]
    params: DashParams,
    /// A parameter of its own, outside the struct.
    #[inspect(param)]
    label: String,
    /// State: kept by an edit.
    dashes: u64,
}

#[stepframe_core::behaviour]
impl Behaviour for Dash {
    fn fixed_update(&mut self, _ctx: &mut Ctx, _dt: f64) {
        self.dashes += 1;
    }
}

/// State only: nothing an edit could change.
#[derive(Clone, Debug, Inspect)]
struct Counter {
    count: u64,
}

#[stepframe_core::behaviour]
impl Behaviour for Counter {}

/// Adoption written by hand: it is used instead of the derived one.
#[derive(Clone, Debug, Inspect)]
struct Picky {
    #[inspect(params)]
    params: DashParams,
}

#[stepframe_core::behaviour]
impl Behaviour for Picky {
    fn adopt_params(&mut self, fresh: &dyn Behaviour) -> bool {
        // Takes only shorter cooldowns.
        match fresh.downcast_ref::<Picky>() {
            Some(f) if f.params.cooldown_ms < self.params.cooldown_ms => {
                self.params = f.params.clone();
                true
            }
            _ => false,
        }
    }
}

fn dash(cooldown_ms: f64, label: &str, dashes: u64) -> Dash {
    Dash {
        params: DashParams { cooldown_ms },
        label: label.to_string(),
        dashes,
    }
}

#[test]
fn an_edit_takes_the_marked_parameters_and_keeps_the_state() {
    let mut running = dash(800.0, "old", 5);
    let fresh = dash(300.0, "new", 0);
    assert!(running.adopt_params(&fresh));
    assert_eq!(running.params.cooldown_ms, 300.0);
    assert_eq!(running.label, "new");
    assert_eq!(running.dashes, 5, "state stays");
    // Another type's parameters are none of its business.
    assert!(!running.adopt_params(&Counter { count: 1 }));
    // Nothing marked: refused, not reported as taken.
    let mut counter = Counter { count: 3 };
    assert!(!counter.adopt_params(&Counter { count: 0 }));
    assert!(!counter.adopt_params_from(&Counter { count: 0 }));
    assert_eq!(counter.count, 3);
    // Written by hand: the hand-written rule holds.
    let mut picky = Picky {
        params: DashParams { cooldown_ms: 500.0 },
    };
    let longer = Picky {
        params: DashParams { cooldown_ms: 900.0 },
    };
    assert!(!picky.adopt_params(&longer));
    let shorter = Picky {
        params: DashParams { cooldown_ms: 100.0 },
    };
    assert!(picky.adopt_params(&shorter));
    assert_eq!(picky.params.cooldown_ms, 100.0);
}

#[test]
fn a_parameter_edit_through_the_pipeline_reaches_a_derived_behaviour() {
    let mut registry = Registry::new();
    registry.register_behaviour(|p: DashParams| {
        Ok::<_, ParamsError>(Dash {
            params: p,
            label: String::new(),
            dashes: 0,
        })
    });
    let text = "(objects: [(id: 1, name: \"D\", behaviours: [(name: \"Dash\", params: (cooldown_ms: 800.0))])])";
    let scene = Scene::parse(text, Path::new("dash.ron"), &registry).expect("it loads");
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, &registry).expect("it instantiates");
    for _ in 0..3 {
        p.step_frame(1.0 / 60.0);
    }
    p.set_behaviour_params(ObjectId(1), 0, "(cooldown_ms: 300.0)", &registry)
        .expect("a derived behaviour takes new parameters");
    let field = |path: &str| p.behaviour_field(ObjectId(1), path);
    assert_eq!(
        field("Dash.cooldown_ms"),
        Some(stepframe_core::FieldValue::F64(300.0))
    );
    assert_eq!(
        field("Dash.dashes"),
        Some(stepframe_core::FieldValue::UInt(3))
    );
}

// ----- the name ----------------------------------------------------------------

/// Named by a hand-written literal, unlike its type.
#[derive(Clone, Debug, Inspect)]
struct Internal;

#[stepframe_core::behaviour]
impl Behaviour for Internal {
    fn name(&self) -> &str {
        "Public"
    }
}

/// A hand-written behaviour whose `name()` is not the name it is
/// registered under.
#[derive(Clone, Debug)]
struct Liar;

impl Behaviour for Liar {
    fn name(&self) -> &str {
        "Truth"
    }
}

#[test]
fn the_registered_name_is_the_types_and_a_disagreeing_name_is_refused_where_the_scene_names_it() {
    assert_eq!(<Dash as Named>::NAME, "Dash");
    assert_eq!(dash(1.0, "", 0).name(), "Dash");
    assert_eq!(<Internal as Named>::NAME, "Public");
    assert_eq!(Internal.name(), "Public");

    let mut registry = Registry::new();
    registry.register_behaviour(|()| Ok::<_, ParamsError>(Internal));
    assert_eq!(registry.names(), ["Public"]);

    registry.register("Lie", "()", |_| Ok(Box::new(Liar)));
    let err = registry.create("Lie", "()").expect_err("refused");
    assert!(
        matches!(&err, CreateError::Misnamed { registered, says } if registered == "Lie" && says == "Truth"),
        "{err:?}"
    );
    let text = "(objects: [\n  (id: 1, name: \"A\", behaviours: [(name: \"Lie\")]),\n])";
    let err = Scene::parse(text, Path::new("lie.ron"), &registry).expect_err("refused");
    assert_eq!(err.kind, SceneErrorKind::UnknownBehaviour);
    assert_eq!((err.line, err.column), (2, 42), "{err}");
    assert!(
        err.message
            .contains("registered as `Lie` calls itself `Truth`"),
        "{err}"
    );
}
