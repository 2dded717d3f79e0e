//! A global allocator that counts allocations on request, for the
//! "no allocation in a steady frame" checks: the `stepframe bench` binary and
//! the allocation test binaries install it. Outside [`count_allocations`] it
//! costs one relaxed load per allocation.
//!
//! Install it in a binary of its own (so no other test's allocations count):
//! `#[global_allocator] static A: CountingAllocator = CountingAllocator;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Forwards to the system allocator, counting allocations and reallocations
/// while [`count_allocations`] runs.
pub struct CountingAllocator;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

fn counted() {
    if COUNTING.load(Ordering::Relaxed) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        counted();
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        counted();
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, size) }
    }
}

/// Runs `f` and returns its result with the number of allocations (and
/// reallocations) made meanwhile, on every thread, when [`CountingAllocator`]
/// is the global allocator (0 otherwise).
pub fn count_allocations<R>(f: impl FnOnce() -> R) -> (R, u64) {
    ALLOCATIONS.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let r = f();
    COUNTING.store(false, Ordering::Relaxed);
    (r, ALLOCATIONS.load(Ordering::Relaxed))
}
