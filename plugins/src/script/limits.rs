//! How much memory a script may take, and where that is enforced: every
//! rhai engine that runs user text (hook scripts, breakpoint conditions and
//! logpoints, watches) gets the same size limits, and script hooks also get
//! a budget for all their variables together.
//!
//! # Why limits are needed at all
//!
//! rhai stops a runaway loop after [`MAX_OPERATIONS`](super::MAX_OPERATIONS)
//! operations, but operations are not bytes: `for i in 0..40 { s += s; }`
//! is about 120 operations and asks for 2^40 bytes. Without a limit the
//! allocation fails and Rust aborts the process (measured: `stepframe play`
//! under a 3 GiB address-space limit died with "memory allocation of
//! 3087007744 bytes failed", SIGABRT, after 31 doublings of a two-byte
//! string). A limit turns that into an error at the operation that would
//! pass it, before the allocation: the hook stops with `path:line:column`,
//! and the object and the session go on.
//!
//! # The numbers
//!
//! | limit | value | a game script needs | worst one value can take |
//! |---|---|---|---|
//! | [`MAX_STRING_BYTES`] | 64 KiB | a log line is under 200 bytes; 64 KiB is 300 such lines, or a 256 × 256 map of characters | 64 KiB |
//! | [`MAX_ARRAY_LEN`] | 65,536 | a 256 × 256 grid of cells, a path of 65,536 waypoints | 1 MiB of slots (16 bytes each), nested arrays, maps and strings counted in |
//! | [`MAX_MAP_LEN`] | 16,384 | a dictionary of every cell of a 128 × 128 grid | 16,384 entries, nested ones counted in |
//! | [`MAX_VARIABLES`] | 1,024 | a script's state is a few dozen variables | 1,024 live variables, all call levels together |
//! | [`MAX_CALL_LEVELS`] | 64 | recursion a few levels deep | 64 nested calls, well inside a 2 MiB thread stack |
//! | [`MAX_EXPR_DEPTH`], [`MAX_FUNCTION_EXPR_DEPTH`] | 64, 32 | `a + (b * (c - d))` is 3 | parser recursion bounded the same in debug and release builds (rhai's own defaults differ: 32/16 in a debug build) |
//! | [`MAX_SCRIPT_MEMORY`] | 64 MiB | a few KiB | all the variables of one hook's scope together |
//!
//! rhai counts strings, arrays and maps value by value, nested values
//! included, and checks before it builds a string or an array that would be
//! too long. Two things it does not count: the bytes of a map's **keys**, and
//! a key added by `m[key] = v` (the map's size is checked only when the map
//! is next assigned, passed or returned). So `for i in 0..200000 { m[s + i] = 0; }`
//! with a 64 KiB `s` would build 12 GiB of keys within the operation limit.
//! [`MAX_SCRIPT_MEMORY`] closes that: the variables of the running hook
//! (keys counted) are measured after every hook call, and during a call
//! every [`SAMPLE_LOOKUPS`] variable reads, so such a loop is stopped
//! within 4,096 of its steps (at most 256 MiB of keys past the budget).
//! The sampling counts reads of the call only, so where a script is stopped
//! depends on nothing but the script and its state: a replay stops it at the
//! same tick.
//!
//! What a hook may hand to the session is bounded too: at most
//! [`MAX_COMMANDS`] commands (body commands, spawns, removals, log lines,
//! routines, breaks) and [`MAX_TEXT_BYTES`] of log and break text per call;
//! past that the call fails (`log` in a loop would otherwise copy a 64 KiB
//! string a hundred thousand times into the log).
//!
//! The typed path (`ir.rs`) needs none of this: it holds only numbers,
//! booleans and two fixed-size records, and has no loops, so one call queues
//! at most one command per call in its source.

use std::cell::Cell;

use rhai::{Dynamic, Engine, EvalAltResult, Position, Scope};

/// Most rhai operations one hook call may take before it is stopped as runaway
/// (about 10 ms of script on this machine; a patrol tick takes about 30).
pub const MAX_OPERATIONS: u64 = 1_000_000;

/// Longest string a script may build, bytes (see the module docs).
pub const MAX_STRING_BYTES: usize = 64 * 1024;
/// Most elements an array may hold, nested arrays' elements included.
pub const MAX_ARRAY_LEN: usize = 65_536;
/// Most entries an object map may hold, nested maps' entries included.
pub const MAX_MAP_LEN: usize = 16_384;
/// Most variables alive at once in one call, every call level together.
pub const MAX_VARIABLES: usize = 1_024;
/// Deepest nesting of script function calls.
pub const MAX_CALL_LEVELS: usize = 64;
/// Deepest nesting of expressions at a script's top level.
pub const MAX_EXPR_DEPTH: usize = 64;
/// Deepest nesting of expressions inside a function.
pub const MAX_FUNCTION_EXPR_DEPTH: usize = 32;
/// What all the variables of one hook's scope may take together, bytes, as
/// `memory_of` estimates them.
pub const MAX_SCRIPT_MEMORY: usize = 64 * 1024 * 1024;
/// Variable reads between two measurements of the running hook's variables.
pub const SAMPLE_LOOKUPS: u32 = 4_096;
/// Most commands one hook call may queue.
pub const MAX_COMMANDS: usize = 10_000;
/// Most bytes of log and break text one hook call may queue.
pub const MAX_TEXT_BYTES: usize = 1024 * 1024;

/// Bytes [`memory_of`] counts for an array slot or a map entry besides what
/// it holds (a `Dynamic` is 16 bytes; a map entry adds its key's header and
/// the tree's share, about 48).
const SLOT_BYTES: usize = 16;
const ENTRY_BYTES: usize = 64;

/// Sets every size limit of the module docs on `engine`.
pub(crate) fn apply(engine: &mut Engine) {
    engine.set_max_string_size(MAX_STRING_BYTES);
    engine.set_max_array_size(MAX_ARRAY_LEN);
    engine.set_max_map_size(MAX_MAP_LEN);
    engine.set_max_variables(MAX_VARIABLES);
    engine.set_max_call_levels(MAX_CALL_LEVELS);
    engine.set_max_expr_depths(MAX_EXPR_DEPTH, MAX_FUNCTION_EXPR_DEPTH);
}

thread_local! {
    /// Variable reads of the hook call running on this thread since its last
    /// measurement; [`start_call`] resets it, so it depends on that call only.
    static LOOKUPS: Cell<u32> = const { Cell::new(0) };
}

/// A hook call starts: its reads are counted from zero.
pub(crate) fn start_call() {
    LOOKUPS.set(0);
}

/// Also measures the running hook's variables every [`SAMPLE_LOOKUPS`] reads
/// (rhai's variable resolver, which sees the scope, is the one callback that
/// runs inside every loop that names a variable).
pub(crate) fn sample_during_calls(engine: &mut Engine) {
    #[allow(deprecated)]
    engine.on_var(|_, _, ctx| {
        let n = LOOKUPS.get() + 1;
        if n < SAMPLE_LOOKUPS {
            LOOKUPS.set(n);
            return Ok(None);
        }
        LOOKUPS.set(0);
        check_scope(ctx.scope())?;
        Ok(None)
    });
}

/// An error when the variables of `scope` take more than
/// [`MAX_SCRIPT_MEMORY`]. rhai's own size errors are of the same kind
/// (`ErrorDataTooLarge`), which a script's `try` cannot catch.
pub(crate) fn check_scope(scope: &Scope) -> Result<(), Box<EvalAltResult>> {
    let mut total = 0usize;
    for (_, _, value) in scope.iter_raw() {
        total = total.saturating_add(memory_of(value));
        if total > MAX_SCRIPT_MEMORY {
            return Err(EvalAltResult::ErrorDataTooLarge(
                format!(
                    "Memory of the script's variables (more than {} MiB)",
                    MAX_SCRIPT_MEMORY >> 20
                ),
                Position::NONE,
            )
            .into());
        }
    }
    Ok(())
}

/// Heap bytes a value holds, estimated: string bytes, 16 per array slot, 64
/// per map entry plus its key's bytes (which rhai's own limits leave out).
/// Scalars hold none.
pub(crate) fn memory_of(value: &Dynamic) -> usize {
    if value.is_string() {
        return value
            .read_lock::<rhai::ImmutableString>()
            .map_or(0, |s| s.len());
    }
    if value.is_array() {
        return value.read_lock::<rhai::Array>().map_or(0, |a| {
            a.iter().fold(a.len() * SLOT_BYTES, |sum, v| {
                sum.saturating_add(memory_of(v))
            })
        });
    }
    if value.is_blob() {
        return value.read_lock::<rhai::Blob>().map_or(0, |b| b.len());
    }
    if value.is_map() {
        return value.read_lock::<rhai::Map>().map_or(0, |m| {
            m.iter().fold(0usize, |sum, (k, v)| {
                sum.saturating_add(ENTRY_BYTES + k.len() + memory_of(v))
            })
        });
    }
    0
}
