//! Headless runs under a supervisor: `play`, `check`, `soak` and `bench`
//! run their session in a child process of this executable, so an abort, a
//! stack overflow, an allocation that fails or a hook that never returns
//! ends the run with its object, behaviour, hook and tick named, instead of
//! killing or hanging it without a word (`stepframe_host::supervise` does
//! the supervising; this module is the sub-commands' side of it).
//!
//! # Who runs what
//!
//! [`crate::Game::run`] (the binary's `main`) sees whether this process is
//! the child of a supervisor (its fault marker is in the environment) and
//! hands each sub-command a [`Launch`]:
//!
//! - [`Launch::Supervise`]: this process is the one the user started. `play`,
//!   `soak` and `bench` run their own command line again in a child
//!   ([`run_supervised`]) and end as it does; `check` starts one child per
//!   run of its matrix, so one run's abort fails that run alone.
//! - [`Launch::Here`]: run the sub-command in this process, with the
//!   supervisor's beacon when there is one (the child), without when
//!   `--in-process` asked for it or [`crate::Game::run_from`] drives the
//!   sub-command from a test (whose executable is the test harness, not the
//!   game: it has no sub-commands to run again).
//!
//! The child inherits stdout; its stderr is relayed line by line. A child
//! that ends with an exit code ends the supervisor with the same code. A
//! fault ends it with [`EXIT_STUCK`] (a hook stopped after the stuck-hook
//! limit) or [`EXIT_DIED`] (abort, stack overflow, out of memory, another
//! signal) and one line naming it, the scene loaded afresh for the names.
//! Outputs the child was writing (a trace, telemetry) stop where it died.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Duration;

use stepframe_core::{HookBeacon, WallClock};
use stepframe_host::supervise::{
    DEFAULT_MEMORY_MIB, DEFAULT_STUCK_AFTER, Ended, Fault, FaultMarker, Limits, SceneNames,
    configure, supervise,
};

use crate::Behaviours;

/// Exit code of a run whose hook did not return within the stuck-hook limit.
pub const EXIT_STUCK: u8 = 3;

/// Exit code of a run that died: an abort, a stack overflow, an allocation
/// that failed, or another signal.
pub const EXIT_DIED: u8 = 4;

/// The supervision options every headless sub-command shares (module docs).
#[derive(clap::Args, Debug, Clone, PartialEq)]
pub struct Isolation {
    /// Seconds one hook call may run before the run is stopped and the hook
    /// named (exit 3): an endless loop in a behaviour ends the run instead of
    /// hanging it.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_STUCK_AFTER.as_secs_f64(),
          value_parser = positive_seconds)]
    pub stuck_hook_limit: f64,
    /// Memory the run may allocate, MiB (its data segment, `RLIMIT_DATA`;
    /// 0 for no limit). A behaviour that allocates without end fails at the
    /// limit, and the run ends naming it (exit 4).
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_MEMORY_MIB)]
    pub memory_limit_mib: u64,
    /// Run in this process, with no supervising parent: for a native
    /// debugger. An abort or a stack overflow then ends the process without
    /// naming the hook, and a hook that never returns hangs the run.
    #[arg(long)]
    pub in_process: bool,
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("`{s}`: expected a number of seconds"))?;
    if v.is_finite() && v > 0.0 && v <= 86_400.0 {
        Ok(v)
    } else {
        Err(format!(
            "`{s}`: expected more than 0 and at most 86400 seconds"
        ))
    }
}

impl Isolation {
    /// The limits of a child.
    pub fn limits(&self) -> Limits {
        Limits {
            stuck_after: Duration::from_secs_f64(self.stuck_hook_limit),
            memory_bytes: (self.memory_limit_mib > 0)
                .then_some(self.memory_limit_mib.saturating_mul(1 << 20)),
        }
    }
}

impl Default for Isolation {
    fn default() -> Isolation {
        Isolation {
            stuck_hook_limit: DEFAULT_STUCK_AFTER.as_secs_f64(),
            memory_limit_mib: DEFAULT_MEMORY_MIB,
            in_process: false,
        }
    }
}

/// How this process came to run a headless sub-command (module docs).
#[derive(Clone, Debug)]
pub enum Launch {
    /// Run it in this process, announcing hook calls on the supervisor's
    /// beacon when this is a supervised child.
    Here(Option<HookBeacon>),
    /// Supervise: this is the process's command line (program first), to
    /// run again in a child.
    Supervise(Vec<OsString>),
}

impl Launch {
    /// Where a sub-command with `isolation` runs: `--in-process` keeps it here.
    pub fn resolve(&self, isolation: &Isolation) -> Launch {
        match self {
            Launch::Supervise(_) if isolation.in_process => Launch::Here(None),
            other => other.clone(),
        }
    }

    /// The beacon to install in a session run here.
    pub fn beacon(&self) -> Option<&HookBeacon> {
        match self {
            Launch::Here(beacon) => beacon.as_ref(),
            Launch::Supervise(_) => None,
        }
    }
}

/// Installs `beacon` (if any) in `pipeline`, and names `scene` as the
/// session it runs: after `load_scene`, which clears the name.
pub fn watch_session(
    pipeline: &mut stepframe_core::Pipeline,
    beacon: Option<&HookBeacon>,
    scene: Option<&Path>,
) {
    if let Some(b) = beacon {
        pipeline.set_hook_beacon(Some(b.clone()));
        b.announce_session(&scene.map(|s| s.to_string_lossy()).unwrap_or_default());
    }
}

/// Names `fault`'s object and behaviour from the scene its session
/// announced, loaded afresh with `behaviours` (left unnamed when there is
/// none, or it no longer loads).
pub fn name_fault(fault: &mut Fault, scene: Option<String>, behaviours: &Behaviours) {
    let Some(scene) = scene else { return };
    let path = Path::new(&scene);
    if let Ok(names) = SceneNames::load(path, &behaviours.registry_for_scene(path)) {
        fault.name_with(&names);
    }
}

/// The exit code a fault ends a supervisor with.
pub fn fault_exit(fault: &Fault) -> u8 {
    if fault.was_stopped() {
        EXIT_STUCK
    } else {
        EXIT_DIED
    }
}

/// Writes a child's stderr line to this process's stderr.
pub fn relay_to_stderr(line: &[u8]) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(line);
}

/// A command for this executable with `args` (no program name).
pub fn this_executable(args: &[OsString]) -> std::io::Result<Command> {
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.args(args);
    Ok(cmd)
}

/// Runs `command_line` (this process's own: the program, the sub-command
/// and its arguments) again in a supervised child under `isolation`'s
/// limits, and ends as it ends (module docs): its exit code, or the fault
/// named on stderr as `stepframe <what>: <fault>` with [`EXIT_STUCK`] or
/// [`EXIT_DIED`].
pub fn run_supervised(
    what: &str,
    command_line: &[OsString],
    isolation: &Isolation,
    behaviours: &Behaviours,
) -> ExitCode {
    let cannot = |e: &dyn std::fmt::Display| {
        eprintln!(
            "stepframe {what}: cannot supervise the run ({e}); --in-process runs it without a supervisor"
        );
        ExitCode::from(1)
    };
    let marker = match FaultMarker::create() {
        Ok(m) => m,
        Err(e) => return cannot(&e),
    };
    let mut cmd = match this_executable(command_line.get(1..).unwrap_or_default()) {
        Ok(c) => c,
        Err(e) => return cannot(&e),
    };
    let limits = isolation.limits();
    configure(&mut cmd, &marker, &limits);
    match supervise(cmd, &marker, &limits, &WallClock::system(), relay_to_stderr) {
        Ok(Ended::Exited(code)) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Ok(Ended::Faulted(mut fault)) => {
            name_fault(&mut fault, marker.beacon().session(), behaviours);
            eprintln!("stepframe {what}: {fault}");
            ExitCode::from(fault_exit(&fault))
        }
        Err(e) => cannot(&e),
    }
}
