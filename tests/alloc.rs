//! A steady-state tick makes zero heap allocations (scheduler and pipeline,
//! physics excluded: the stand-in here is `NoPhysics`), and coarse flame
//! zones add none: with zones on, every frame's zones go into the buffer
//! reserved when they were switched on.
//!
//! A counting global allocator, in a test binary of its own so no other
//! test's allocations count. It counts every thread's allocations, so the
//! checks run one after the other in one test: two tests side by side would
//! count each other's.

use stepframe_core::flame::ZoneDetail;
use stepframe_core::{
    ActionBinding, ActionMap, Behaviour, BodyDesc, Ctx, InputSource, NoPhysics, ObjectDesc,
    ObjectId, Pipeline, Pose, Priority, Shape, TimeSettings, Vec2, World,
};

#[global_allocator]
static GLOBAL: stepframe_tests::CountingAllocator = stepframe_tests::CountingAllocator;

/// Does typical fixed work: reads input, reads poses, writes a force.
#[derive(Clone, Debug)]
struct Worker {
    sum: f32,
}

impl Behaviour for Worker {
    fn name(&self) -> &str {
        "Worker"
    }
    fn update(&mut self, ctx: &mut Ctx, dt: f64) {
        self.sum += dt as f32;
        if ctx.input().pressed("jump") {
            self.sum += 1.0;
        }
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if let Some(p) = ctx.physics_simulation_pose(ctx.me()) {
            self.sum += p.x;
        }
        if ctx.input().just_pressed("jump") {
            self.sum += 1.0;
        }
        ctx.apply_force(ctx.me(), Vec2::new(1.0, 0.0));
    }
    fn present(&mut self, ctx: &mut Ctx) {
        self.sum += ctx.clock().interpolation_alpha as f32;
    }
}

/// Does a little work in every hook the zones time.
#[derive(Clone, Debug)]
struct ZonedWorker {
    sum: f32,
}

impl Behaviour for ZonedWorker {
    fn name(&self) -> &str {
        "Worker"
    }
    fn update(&mut self, _ctx: &mut Ctx, dt: f64) {
        self.sum += dt as f32;
    }
    fn fixed_update(&mut self, _ctx: &mut Ctx, dt: f64) {
        self.sum += dt as f32;
    }
    fn flow_tick(&mut self, _ctx: &mut Ctx, dt: f64) {
        self.sum -= dt as f32;
    }
    fn present(&mut self, ctx: &mut Ctx) {
        self.sum += ctx.clock().interpolation_alpha as f32;
    }
}

/// 200 objects (ids 1 to 200, in a row along x), each `desc` with a
/// behaviour from `behaviour`, over eight priorities (0, 10, ... 70).
fn workers(
    desc: impl Fn(ObjectDesc) -> ObjectDesc,
    behaviour: impl Fn() -> Box<dyn Behaviour>,
) -> World {
    let mut world = World::new();
    for i in 0..200u64 {
        let object = ObjectDesc::new(format!("w{i}"), Pose::new(i as f32, 0.0, 0.0))
            .with_id(ObjectId(i + 1));
        world.spawn(desc(object).with_behaviour(behaviour(), Priority((i % 8) as i32 * 10)));
    }
    world
}

/// Frame `i`'s real dt: every third frame runs two ticks, the others one.
fn dt(i: usize) -> f64 {
    if i.is_multiple_of(3) {
        2.0 / 60.0
    } else {
        1.0 / 60.0
    }
}

/// Runs 200 frames (buffers reach their steady capacity), then asserts that
/// the next 1,000 make no allocation.
fn assert_steady_frames_allocate_nothing(p: &mut Pipeline) {
    for i in 0..200 {
        p.step_frame(dt(i));
    }
    let (ticks, allocations) = stepframe_tests::count_allocations(|| {
        let mut ticks = 0;
        for i in 0..1000 {
            ticks += p.step_frame(dt(i)).ticks;
        }
        ticks
    });
    assert!(ticks >= 1000, "the loop really ran ticks ({ticks})");
    assert_eq!(allocations, 0, "{allocations} allocations in {ticks} ticks");
}

/// 200 behaviours over 8 priorities that read input and poses and write
/// forces: a steady frame of one or two ticks allocates nothing.
fn a_steady_state_tick_makes_zero_heap_allocations() {
    let world = workers(
        |o| o.with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.5 })),
        || Box::new(Worker { sum: 0.0 }),
    );
    let mut p = Pipeline::new(TimeSettings::default());
    p.set_action_map(ActionMap {
        actions: vec![ActionBinding {
            name: "jump".into(),
            sources: vec![InputSource::Key("Space".into())],
        }],
    });
    p.load_session(world, Box::new(NoPhysics), 1);
    assert_steady_frames_allocate_nothing(&mut p);
}

/// The same frames with coarse zones on record their zones and still
/// allocate nothing.
fn coarse_zones_add_no_allocation_to_a_steady_tick() {
    let world = workers(|o| o, || Box::new(ZonedWorker { sum: 0.0 }));
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(world, Box::new(NoPhysics), 1);
    p.set_zone_detail(ZoneDetail::Coarse);
    assert_steady_frames_allocate_nothing(&mut p);
    // The zones were recorded: a two-tick frame has its 4 phases, 2 ticks,
    // 8 priority groups in each, and each tick's physics and contacts.
    p.step_frame(2.0 / 60.0);
    let z = p.zones();
    assert_eq!(z.zones().len(), 4 + 2 * (1 + 8 + 2), "{:?}", z.zones());
    assert_eq!(z.dropped(), 0);
}

#[test]
fn steady_state_ticks_make_zero_heap_allocations_with_zones_off_and_on() {
    a_steady_state_tick_makes_zero_heap_allocations();
    coarse_zones_add_no_allocation_to_a_steady_tick();
    // And the counter counts: one boxed value is one allocation.
    let (_, one) = stepframe_tests::count_allocations(|| std::hint::black_box(Box::new(7u64)));
    assert_eq!(one, 1, "the counting allocator is installed");
}
