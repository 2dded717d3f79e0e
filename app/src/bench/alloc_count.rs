//! A global allocator that counts allocations on request, for the
//! "no allocation in a steady frame" checks: the `stepframe bench` binary and
//! the allocation test binaries (which include this file by path) install it. Outside `count_allocations` it
//! costs one relaxed load per allocation.
//!
//! Install it in a binary of its own (so no other test's allocations count):
//! `#[global_allocator] static A: CountingAllocator = CountingAllocator;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Forwards to the system allocator, counting allocations and reallocations
/// while `count_allocations` runs.
pub struct CountingAllocator;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
/// Bytes requested by the allocations counted (a reallocation counts its
/// growth), for measuring what a copy really takes on the heap.
static BYTES: AtomicU64 = AtomicU64::new(0);

fn counted(bytes: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(bytes as u64, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        counted(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        counted(size.saturating_sub(layout.size()));
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, size) }
    }
}

/// Runs `f` and returns its result with the number of allocations (and
/// reallocations) made meanwhile, on every thread, when [`CountingAllocator`]
/// is the global allocator (0 otherwise).
pub fn count_allocations<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let (r, allocations, _) = count_allocated_bytes(f);
    (r, allocations)
}

/// `count_allocations`, also returning the bytes those allocations
/// requested: what `f` put on the heap, if it freed none of it (a snapshot
/// copy), before the allocator's own per-block overhead.
pub fn count_allocated_bytes<R>(f: impl FnOnce() -> R) -> (R, u64, u64) {
    ALLOCATIONS.store(0, Ordering::Relaxed);
    BYTES.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let r = f();
    COUNTING.store(false, Ordering::Relaxed);
    (
        r,
        ALLOCATIONS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    )
}
