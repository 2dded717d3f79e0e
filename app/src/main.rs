//! The `stepframe` binary: the editor by default, headless tools as
//! sub-commands. It is [`stepframe_app::Game`] with the built-in behaviours,
//! the same call a game's own binary makes with its behaviours added.

use std::process::ExitCode;

/// Counts allocations while `stepframe bench` measures them (one relaxed load
/// per allocation otherwise). Only in a binary built with the `bench`
/// feature: the shipped one uses the system allocator directly.
#[cfg(feature = "bench")]
#[global_allocator]
static GLOBAL: stepframe_app::bench::CountingAllocator = stepframe_app::bench::CountingAllocator;

fn main() -> ExitCode {
    stepframe_app::Game::new("stepframe").run()
}
