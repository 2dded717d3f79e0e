//! Coarse flame zones cost a steady tick no allocation: the same world as
//! `alloc.rs` (200 behaviours over eight priorities, frames of one and two
//! ticks) with zones on records every frame's zones into the buffer
//! reserved when they were switched on. A counting global allocator, in a
//! test binary of its own so no other test's allocations count.

use stepframe_core::flame::ZoneDetail;
use stepframe_core::{
    Behaviour, Ctx, NoPhysics, ObjectDesc, ObjectId, Pipeline, Pose, Priority, TimeSettings, World,
};

#[global_allocator]
static GLOBAL: stepframe_tests::CountingAllocator = stepframe_tests::CountingAllocator;

/// Does a little work in every hook the zones time.
#[derive(Clone, Debug)]
struct Worker {
    sum: f32,
}

impl Behaviour for Worker {
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

#[test]
fn coarse_zones_add_no_allocation_to_a_steady_tick() {
    let mut world = World::new();
    for i in 0..200u64 {
        world.spawn(
            ObjectDesc::new(format!("w{i}"), Pose::new(i as f32, 0.0, 0.0))
                .with_id(ObjectId(i + 1))
                .with_behaviour(Box::new(Worker { sum: 0.0 }), Priority((i % 8) as i32 * 10)),
        );
    }
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(world, Box::new(NoPhysics), 1);
    p.set_zone_detail(ZoneDetail::Coarse);
    let dt = |i: usize| {
        if i.is_multiple_of(3) {
            2.0 / 60.0
        } else {
            1.0 / 60.0
        }
    };
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
    // The zones were recorded: a two-tick frame has its 4 phases, 2 ticks,
    // 8 priority groups in each, and each tick's physics and contacts.
    p.step_frame(2.0 / 60.0);
    let z = p.zones();
    assert_eq!(z.zones().len(), 4 + 2 * (1 + 8 + 2), "{:?}", z.zones());
    assert_eq!(z.dropped(), 0);
    let (_, one) = stepframe_tests::count_allocations(|| std::hint::black_box(Box::new(7u64)));
    assert_eq!(one, 1, "the counting allocator is installed");
}
