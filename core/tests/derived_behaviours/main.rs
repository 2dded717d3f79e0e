//! `#[stepframe_core::behaviour]` and `#[derive(Inspect)]`, through the
//! public `Pipeline` API: a behaviour's hook set is the methods its `impl`
//! block defines, so it is never called, timed or hit by a breakpoint in a
//! hook it has no code for; and its state reads as rows with stable paths.
//!
//! Each defect test runs the same code without the attribute too (the
//! default `Hooks::ALL`), and checks that the defect then shows: the test
//! can tell the two apart.
//!
//! `state` holds the other derived facts: the state hash over every field,
//! the adoption of edited parameters and the registered name.

mod state;

use stepframe_core::{
    Behaviour, BodyDesc, BodyKind, Breakpoint, Ctx, FieldValue, Fields, HookKind, Hooks, Inspect,
    ObjectDesc, ObjectId, Pipeline, Pose, Priority, RapierStage, Shape, SuspendReason,
    TimeSettings, Vec2, World,
};

/// Counts its ticks, in FixedUpdate only.
#[derive(Clone, Debug, Inspect)]
struct FixedOnly {
    /// FixedUpdate calls so far.
    ticks: u64,
}

#[stepframe_core::behaviour]
impl Behaviour for FixedOnly {
    fn name(&self) -> &str {
        "FixedOnly"
    }
    fn fixed_update(&mut self, _ctx: &mut Ctx, _dt: f64) {
        self.ticks += 1;
    }
}

/// The same code with no attribute: it gets the default, every hook.
#[derive(Clone, Debug)]
struct Undeclared {
    ticks: u64,
}

impl Behaviour for Undeclared {
    fn name(&self) -> &str {
        "Undeclared"
    }
    fn fixed_update(&mut self, _ctx: &mut Ctx, _dt: f64) {
        self.ticks += 1;
    }
}

/// Update only, derived.
#[derive(Clone, Debug, Inspect)]
struct UpdateOnly;

#[stepframe_core::behaviour]
impl Behaviour for UpdateOnly {
    fn name(&self) -> &str {
        "UpdateOnly"
    }
    fn update(&mut self, _ctx: &mut Ctx, _dt: f64) {}
}

/// Update only, not derived (every hook).
#[derive(Clone, Debug)]
struct UpdateUndeclared;

impl Behaviour for UpdateUndeclared {
    fn name(&self) -> &str {
        "UpdateUndeclared"
    }
    fn update(&mut self, _ctx: &mut Ctx, _dt: f64) {}
}

/// A 1 m ball dropped from 1.5 m onto a fixed floor whose top is at y = 0:
/// it touches within the first second, so contact hooks are due. The ball
/// carries `behaviour`; the floor is object 1, the ball object 2.
fn ball_on_floor(behaviour: Box<dyn Behaviour>) -> (Pipeline, ObjectId) {
    let mut world = World::new();
    world.spawn(
        ObjectDesc::new("floor", Pose::new(0.0, -0.5, 0.0)).with_body(BodyDesc::with_kind(
            BodyKind::Fixed,
            Shape::Cuboid { hx: 10.0, hy: 0.5 },
        )),
    );
    let ball = world.spawn(
        ObjectDesc::new("ball", Pose::new(0.0, 1.5, 0.0))
            .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.5 }))
            .with_behaviour(behaviour, Priority(0)),
    );
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(world, Box::new(RapierStage::new(Vec2::new(0.0, -10.0))), 1);
    (p, ball)
}

/// The hooks every breakpoint hit of `object` named in 120 frames at 60 Hz
/// with breakpoints on `hooks` of it, resuming after each suspension.
fn hit_hooks(p: &mut Pipeline, object: ObjectId, hooks: &[HookKind]) -> Vec<HookKind> {
    for &hook in hooks {
        p.add_breakpoint(Breakpoint::on(hook, object));
    }
    let mut hit = Vec::new();
    for _ in 0..120 {
        let report = p.step_frame(1.0 / 60.0);
        if let Some(s) = report.suspended {
            if let SuspendReason::Breakpoint(b) = &s.reason {
                hit.push(b.hook);
            }
            p.resume();
        }
    }
    hit.sort();
    hit.dedup();
    hit
}

/// The hooks other than FixedUpdate that breakpoints can stop in (the
/// presentation phase takes none: it is not simulation code; whether a
/// Present call is due is `hooks_of`, checked below).
const NOT_FIXED: [HookKind; 4] = [
    HookKind::Start,
    HookKind::Update,
    HookKind::FlowTick,
    HookKind::Contact,
];

#[test]
fn a_fixed_update_only_behaviour_is_hit_by_no_breakpoint_of_another_hook() {
    let (mut p, ball) = ball_on_floor(Box::new(FixedOnly { ticks: 0 }));
    assert_eq!(hit_hooks(&mut p, ball, &NOT_FIXED), Vec::<HookKind>::new());
    // The ball did land: a contact was due, and nothing of it stopped.
    let y = p.world().physics_simulation_pose(ball).expect("the ball").y;
    assert!((y - 0.5).abs() < 0.05, "resting on the floor, y = {y}");
    let hits: Vec<_> = p.debugger().hits().collect();
    assert!(hits.is_empty(), "no hit recorded: {hits:?}");

    // Without the attribute the same code shows every one of them.
    let (mut p, ball) = ball_on_floor(Box::new(Undeclared { ticks: 0 }));
    assert_eq!(hit_hooks(&mut p, ball, &NOT_FIXED), NOT_FIXED.to_vec());
}

#[test]
fn its_fixed_update_breakpoint_still_stops_at_the_end_of_tick_one() {
    let (mut p, ball) = ball_on_floor(Box::new(FixedOnly { ticks: 0 }));
    p.add_breakpoint(Breakpoint::on(HookKind::FixedUpdate, ball));
    let report = p.step_frame(1.0 / 60.0);
    let s = report.suspended.expect("it stops");
    assert!(s.end_of_tick);
    assert_eq!(s.tick, 1);
    let states = p.behaviour_states(ball);
    assert_eq!(states[0].fields[0].value, FieldValue::UInt(1));
}

#[test]
fn the_pipeline_reports_the_derived_set_as_the_objects_hooks() {
    let (p, ball) = ball_on_floor(Box::new(FixedOnly { ticks: 0 }));
    assert_eq!(p.hooks_of(ball), Hooks::FIXED_UPDATE);
    assert_eq!(p.behaviour_states(ball)[0].hooks, Hooks::FIXED_UPDATE);
    let (p, ball) = ball_on_floor(Box::new(Undeclared { ticks: 0 }));
    assert_eq!(p.hooks_of(ball), Hooks::ALL);
}

/// The priorities FixedUpdate was timed at in one frame of a session with
/// a derived FixedUpdate-only behaviour at priority 3 and `other` at 9.
fn timed_priorities(other: Box<dyn Behaviour>) -> Vec<Priority> {
    let mut world = World::new();
    world.spawn(
        ObjectDesc::new("a", Pose::default())
            .with_behaviour(Box::new(FixedOnly { ticks: 0 }), Priority(3)),
    );
    world.spawn(ObjectDesc::new("b", Pose::default()).with_behaviour(other, Priority(9)));
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(world, Box::new(RapierStage::new(Vec2::ZERO)), 1);
    let report = p.step_frame(1.0 / 60.0);
    assert_eq!(report.ticks, 1);
    report
        .timing
        .fixed_by_priority
        .iter()
        .map(|(p, _)| p)
        .collect()
}

#[test]
fn an_update_only_behaviour_gets_no_fixed_update_timing_entry() {
    assert_eq!(timed_priorities(Box::new(UpdateOnly)), vec![Priority(3)]);
    // Undeclared, its empty FixedUpdate is called and timed at its priority.
    assert_eq!(
        timed_priorities(Box::new(UpdateUndeclared)),
        vec![Priority(3), Priority(9)]
    );
}

/// Every hook method but FixedUpdate, and a routine (which has no bit).
#[derive(Clone, Debug, Inspect)]
struct Many;

#[stepframe_core::behaviour]
impl Behaviour for Many {
    fn name(&self) -> &str {
        "Many"
    }
    fn start(&mut self, _ctx: &mut Ctx) {}
    fn update(&mut self, _ctx: &mut Ctx, _dt: f64) {}
    fn flow_tick(&mut self, _ctx: &mut Ctx, _dt: f64) {}
    fn on_tear(&mut self, _ctx: &mut Ctx, _tear: &stepframe_core::SoftTear) {}
    fn present(&mut self, _ctx: &mut Ctx) {}
    fn routine(&mut self, _ctx: &mut Ctx, _name: &str) -> stepframe_core::Wait {
        stepframe_core::Wait::Done
    }
}

/// No hook at all: a behaviour that only carries state.
#[derive(Clone, Debug, Inspect)]
struct Inert;

#[stepframe_core::behaviour]
impl Behaviour for Inert {
    fn name(&self) -> &str {
        "Inert"
    }
}

#[test]
fn each_hook_method_gives_its_bit_and_on_tear_counts_as_contact() {
    let want = Hooks::START
        .and(Hooks::UPDATE)
        .and(Hooks::FLOW_TICK)
        .and(Hooks::CONTACT)
        .and(Hooks::PRESENT);
    assert_eq!(Many.hooks(), want);
    assert_eq!(Inert.hooks(), Hooks::NONE);
}

// ----- the inspector's rows -------------------------------------------------

/// A parameter struct, flattened into its behaviour's rows.
#[derive(Clone, Debug, Inspect)]
struct JumpParams {
    /// Take-off speed.
    #[inspect(unit = "m/s")]
    jump_speed: f32,
    /// Grace after leaving a ledge.
    #[inspect(unit = "ms")]
    coyote_ms: f64,
}

/// Which way it faces.
#[derive(Clone, Copy, Debug, Inspect)]
enum Facing {
    Left,
}

/// Something that is not `Inspect`.
#[derive(Clone, Debug)]
#[allow(dead_code)] // read through its Debug text only
struct Opaque(u8);

/// One field of each kind the derive handles.
#[derive(Clone, Debug, Inspect)]
struct Jumper {
    #[inspect(params)]
    params: JumpParams,
    /// Where it took off.
    #[inspect(unit = "m")]
    take_off: Option<Vec2>,
    /// Landing not seen yet.
    landed: Option<u64>,
    /// Objects it stands on.
    standing_on: Vec<ObjectId>,
    facing: Facing,
    #[inspect(debug)]
    opaque: Opaque,
    #[inspect(skip)]
    #[allow(dead_code)]
    scratch: Vec<f32>,
}

#[stepframe_core::behaviour]
impl Behaviour for Jumper {
    fn name(&self) -> &str {
        "Jumper"
    }
    fn fixed_update(&mut self, _ctx: &mut Ctx, _dt: f64) {}
}

fn jumper() -> Jumper {
    Jumper {
        params: JumpParams {
            jump_speed: 0.1,
            coyote_ms: 100.0,
        },
        take_off: Some(Vec2::new(1.5, -2.0)),
        landed: None,
        standing_on: vec![ObjectId(7)],
        facing: Facing::Left,
        opaque: Opaque(3),
        scratch: vec![1.0],
    }
}

#[test]
fn the_derived_rows_have_paths_units_docs_and_the_parameter_mark() {
    let mut out = Fields::new("Jumper");
    jumper().inspect(&mut out);
    let fields = out.into_rows();
    let rows: Vec<_> = fields
        .iter()
        .map(|f| {
            let unit = f.unit.as_deref();
            (f.path.clone(), f.value.clone(), unit, &*f.doc, f.param)
        })
        .collect();
    let text = |s: &str| FieldValue::Text(s.to_string());
    assert_eq!(
        rows,
        vec![
            (
                "Jumper.jump_speed".to_string(),
                FieldValue::F32(0.1),
                Some("m/s"),
                "Take-off speed.",
                true
            ),
            (
                "Jumper.coyote_ms".into(),
                FieldValue::F64(100.0),
                Some("ms"),
                "Grace after leaving a ledge.",
                true
            ),
            (
                "Jumper.take_off.x".into(),
                FieldValue::F32(1.5),
                Some("m"),
                "Where it took off.",
                false
            ),
            (
                "Jumper.take_off.y".into(),
                FieldValue::F32(-2.0),
                Some("m"),
                "Where it took off.",
                false
            ),
            (
                "Jumper.landed".into(),
                FieldValue::None,
                None,
                "Landing not seen yet.",
                false
            ),
            (
                "Jumper.standing_on.len".into(),
                FieldValue::UInt(1),
                None,
                "Objects it stands on.",
                false
            ),
            (
                "Jumper.standing_on[0]".into(),
                FieldValue::UInt(7),
                None,
                "Objects it stands on.",
                false
            ),
            ("Jumper.facing".into(), text("Left"), None, "", false),
            ("Jumper.opaque".into(), text("Opaque(3)"), None, "", false),
        ]
    );
}

#[test]
fn a_row_prints_an_f32_as_the_f32_it_is() {
    assert_eq!(FieldValue::F32(0.1).to_string(), "0.1");
    assert_eq!(FieldValue::F32(0.1).as_f64(), Some(f64::from(0.1f32)));
    assert_eq!(FieldValue::Bool(true).as_f64(), Some(1.0));
    assert_eq!(FieldValue::Text("x".into()).as_f64(), None);
}

#[test]
fn the_pipeline_names_two_behaviours_of_one_name_apart_and_reads_one_field_by_path() {
    let mut world = World::new();
    let id = world.spawn(
        ObjectDesc::new("counter", Pose::default())
            .with_behaviour(Box::new(FixedOnly { ticks: 0 }), Priority(0))
            .with_behaviour(Box::new(FixedOnly { ticks: 0 }), Priority(1)),
    );
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(world, Box::new(RapierStage::new(Vec2::ZERO)), 1);
    for _ in 0..3 {
        p.step_frame(1.0 / 60.0);
    }
    let states = p.behaviour_states(id);
    let paths: Vec<&str> = states
        .iter()
        .flat_map(|s| s.fields.iter().map(|f| f.path.as_str()))
        .collect();
    assert_eq!(paths, ["FixedOnly.ticks", "FixedOnly[1].ticks"]);
    assert_eq!(states[0].fields[0].doc, "FixedUpdate calls so far.");
    assert_eq!(
        p.behaviour_field(id, "FixedOnly[1].ticks"),
        Some(FieldValue::UInt(3))
    );
    assert_eq!(
        p.behaviour_field(id, "FixedOnly.ticks"),
        Some(FieldValue::UInt(3))
    );
    assert_eq!(p.behaviour_field(id, "FixedOnly.nothing"), None);
    assert_eq!(p.behaviour_field(id, "Other.ticks"), None);
    assert_eq!(p.behaviour_field(ObjectId(99), "FixedOnly.ticks"), None);
}

#[test]
fn a_behaviour_without_inspect_has_no_rows_and_keeps_its_debug_text() {
    let (p, ball) = ball_on_floor(Box::new(Undeclared { ticks: 0 }));
    let state = &p.behaviour_states(ball)[0];
    assert!(state.fields.is_empty());
    assert!(state.state.contains("ticks: 0"), "{}", state.state);
}
