//! bounded physics state under spawn/remove churn.

use super::*;

thread_local! {
    /// Bytes allocated by this thread (frees not subtracted).
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
}

/// Counts the bytes each thread allocates, so a test can measure what one
/// call allocates on its own thread while other tests run on theirs.
struct ThreadCounting;

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counter is a const-initialised thread local (no allocation, no destructor).
unsafe impl GlobalAlloc for ThreadCounting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATED.try_with(|c| c.set(c.get() + layout.size() as u64));
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATED.try_with(|c| c.set(c.get() + new_size as u64));
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: ThreadCounting = ThreadCounting;

/// Bytes a copy of the physics engine state takes (what every rewind
/// keyframe holds).
fn physics_copy_bytes(p: &Pipeline) -> u64 {
    let before = ALLOCATED.with(Cell::get);
    let copy = p.physics().clone_box();
    let bytes = ALLOCATED.with(Cell::get) - before;
    drop(copy);
    bytes
}

#[test]
fn the_physics_state_stays_the_same_size_under_endless_spawn_and_removal() {
    // A spawner over a long floor: a ball every 3 ticks, at most 12 alive
    // (the 13th spawn removes the oldest in the same tick), spread over 70 m
    // so they land on the floor and seldom on each other. After 36 ticks the
    // population is constant: the floor, the spawner and 12 balls. Before the fix
    // in `RapierStage::reconcile` (bodies added before removals), rapier's
    // broad phase kept a stale pair for many of the freed colliders and this
    // copy grew by kilobytes every few thousand ticks (the soak's 160 MiB).
    let text = r#"(settings: (seed: 3), objects: [
        (id: 1, name: "Floor", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 40.0, hy: 0.5)])),
        (id: 4, name: "Tap", transform: (x: 0.0, y: 1.0), behaviours: [(name: "Spawner", params: (interval: 0.05, max_alive: 12, lifetime: 0.0, spread: 35.0, shapes: [Circle(radius: 0.2)]))]),
    ])"#;
    let registry = stepframe_plugins::registry();
    let scene = Scene::parse(text, Path::new("churn.ron"), &registry).expect("scene");
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_scene(&scene, &registry).expect("loads");
    let mut sizes = Vec::new();
    for checkpoint in [1_200u64, 15_000, 30_000, 45_000, 60_000] {
        while p.stepper().completed_ticks() < checkpoint {
            p.step_frame(DT);
        }
        assert_eq!(p.world().len(), 2 + 12, "constant population");
        sizes.push(physics_copy_bytes(&p));
    }
    // The same bodies, colliders and (nearly) the same contacts: the copy may
    // differ by the contact manifolds of a few touching pairs, not grow.
    let first = sizes[0];
    for &s in &sizes[1..] {
        assert!(
            s <= first + first / 20,
            "the physics copy grew from {first} to {s} bytes: {sizes:?}"
        );
    }
}
