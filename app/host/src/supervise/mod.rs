//! Supervising a session in a child process: the faults nothing inside a
//! process survives, named from outside it.
//!
//! A hook that panics is caught where it runs. Four faults are not: an
//! abort, a stack overflow, an allocation that fails (Rust aborts on all
//! three) and a hook that never returns (nothing stops a thread). So a
//! session that must survive them, or at least say what happened, runs in a
//! child process of the same executable (for a game built with
//! `stepframe_app::Game`, the game's own binary, so the child has the
//! game's behaviours), and its supervisor names the fault:
//!
//! 1. [`FaultMarker::create`]: a temporary file with a
//!    [`stepframe_core::HookBeacon`] in it. [`configure`] puts its path in
//!    the child's environment ([`MARKER_ENV`]) and the memory limit on the
//!    child; the child maps it ([`child_beacon`]) and installs it in its
//!    pipeline (`Pipeline::set_hook_beacon`), which then marks every hook
//!    call: object, behaviour, hook, tick, and the scene the session came
//!    from.
//! 2. [`supervise`] runs the child, relays its stderr and looks at the
//!    marker every 50 ms ([`StuckWatch`], timed on an injectable clock): a
//!    call that stays the same for [`Limits::stuck_after`] gets the child
//!    killed. A child that dies by a signal is read the same way: the marker
//!    says which call was running, and its last words on stderr what killed
//!    it ([`ChildSaid`]: "has overflowed its stack", "memory allocation of
//!    N bytes failed").
//! 3. The result is a [`Fault`] with a [`Display`](std::fmt::Display):
//!    [`Fault::name_with`] turns ids into names from whatever the front end
//!    has ([`SceneNames`] loads the marker's scene afresh; the editor has its
//!    last view), an object the scene does not have being "spawned at run
//!    time".
//!
//! # The memory limit: `RLIMIT_DATA`, not `RLIMIT_AS`
//!
//! `RLIMIT_AS` caps the address space, which counts every reservation,
//! touched or not: glibc reserves 64 MiB for each malloc arena (up to eight
//! per core), each thread its stack, the executable and its libraries
//! their mappings. Measured on `stepframe play demo.ron` (Linux, 2 cores):
//! VmSize 1,000 MiB against VmData 175 MiB and VmRSS 40 MiB: a limit on the
//! address space would have to be set far above what the session uses, and
//! would fail a run that starts more threads without using more memory.
//! `RLIMIT_DATA` (Linux 4.7 and later) caps private writable mappings and
//! the heap: what `malloc` and a growing `Vec` really ask for, reservations
//! left out. A behaviour that allocates without end meets it within its
//! block size of the limit, and Rust's handler says "memory allocation of N
//! bytes failed" before the process aborts, which is what names the fault.
//! [`DEFAULT_MEMORY_MIB`] says how the default was chosen.
//!
//! | module | what |
//! |---|---|
//! | `marker` | [`FaultMarker`], [`child_beacon`], [`MARKER_ENV`]: the shared file, both sides |
//! | `child` | [`configure`], [`supervise`], [`ChildSaid`], [`Ended`]: running and watching the child |
//! | `watch` | [`StuckWatch`]: when a call counts as stuck |
//! | `fault` | [`Fault`], [`FaultKind`], [`ObjectName`], [`Names`], [`SceneNames`]: what happened, in words |

mod child;
mod fault;
mod marker;
mod watch;

use std::time::Duration;

pub use child::{ChildSaid, Ended, LOOK_EVERY, configure, supervise};
pub use fault::{Fault, FaultKind, Names, ObjectName, SceneNames};
pub use marker::{FaultMarker, MARKER_ENV, child_beacon};
pub use watch::StuckWatch;

/// Default stuck-hook limit. A healthy hook call takes microseconds and a
/// frame milliseconds; the editor calls a call stuck after 3 s of a user
/// watching it. A headless run on a loaded 2-core CI machine can be
/// descheduled for a second or more, and `Faulty`'s `BusyWait` faults of up
/// to a few seconds are deliberate hitches a run sits out: 10 s stops an
/// endless loop within a CI job's patience and trips on nothing real.
pub const DEFAULT_STUCK_AFTER: Duration = Duration::from_secs(10);

/// Default memory limit of a supervised run, MiB. Measured peaks of the
/// data segment (VmData at its largest): `play demo.ron` 175 MiB, a million
/// ticks of `soak demo.ron` (every editor buffer full) 420 MiB, the whole
/// `bench` 1.4 GiB (the 10,000-body rewind figures). 4 GiB leaves that
/// bench more than twice its room and still stops a runaway allocation at
/// a sixth of a 24 GiB machine, long before the system's out-of-memory
/// killer picks a victim (which might not be this process).
pub const DEFAULT_MEMORY_MIB: u64 = 4096;

/// What a supervised child may do before it is stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// How long one hook call may run ([`StuckWatch`]).
    pub stuck_after: Duration,
    /// Bytes of private data the child may map (`RLIMIT_DATA`, module
    /// docs); `None`: no limit.
    pub memory_bytes: Option<u64>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            stuck_after: DEFAULT_STUCK_AFTER,
            memory_bytes: Some(DEFAULT_MEMORY_MIB << 20),
        }
    }
}

/// Why supervision could not be set up or carried on (not a fault of the
/// child: those are [`Fault`]s).
#[derive(Debug, thiserror::Error)]
pub enum SuperviseError {
    /// The marker file could not be created, mapped or opened.
    #[error("fault marker: {0}")]
    Marker(std::io::Error),
    /// [`MARKER_ENV`] does not say `<pid>:<path>`.
    #[error("{0}")]
    Env(String),
    /// The child (or the thread relaying its stderr) could not be started.
    #[error("cannot start the supervised process: {0}")]
    Spawn(std::io::Error),
    /// Waiting for the child failed.
    #[error("cannot wait for the supervised process: {0}")]
    Wait(std::io::Error),
}
