//! A steady-state tick makes zero heap allocations (scheduler and pipeline,
//! physics excluded: the stand-in here is `NoPhysics`). A counting global
//! allocator, in a test binary of its own so no other test's allocations count.

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

#[test]
fn a_steady_state_tick_makes_zero_heap_allocations() {
    let mut world = World::new();
    for i in 0..200u64 {
        world.spawn(
            ObjectDesc::new(format!("w{i}"), Pose::new(i as f32, 0.0, 0.0))
                .with_id(ObjectId(i + 1))
                .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.5 }))
                .with_behaviour(Box::new(Worker { sum: 0.0 }), Priority((i % 8) as i32 * 10)),
        );
    }
    let mut p = Pipeline::new(TimeSettings::default());
    p.set_action_map(ActionMap {
        actions: vec![ActionBinding {
            name: "jump".into(),
            sources: vec![InputSource::Key("Space".into())],
        }],
    });
    p.load_session(world, Box::new(NoPhysics), 1);
    // Warm up: buffers reach their steady capacity.
    for i in 0..200 {
        p.step_frame(if i % 3 == 0 { 2.0 / 60.0 } else { 1.0 / 60.0 });
    }
    let (ticks, allocations) = stepframe_tests::count_allocations(|| {
        let mut ticks = 0;
        for i in 0..1000 {
            ticks += p
                .step_frame(if i % 3 == 0 { 2.0 / 60.0 } else { 1.0 / 60.0 })
                .ticks;
        }
        ticks
    });
    assert!(ticks >= 1000, "the loop really ran ticks ({ticks})");
    assert_eq!(allocations, 0, "{allocations} allocations in {ticks} ticks");
    // And the counter counts: one boxed value is one allocation.
    let (_, one) = stepframe_tests::count_allocations(|| std::hint::black_box(Box::new(7u64)));
    assert_eq!(one, 1, "the counting allocator is installed");
}
