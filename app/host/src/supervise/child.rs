//! A supervised child: the [`Command`] set up for it ([`configure`]), and
//! the watch until it ends ([`supervise`]): its stderr relayed line by line
//! and scanned for what Rust says when it aborts ([`ChildSaid`]), its fault
//! marker looked at every [`LOOK_EVERY`], a stuck hook killed, and the end
//! turned into an exit code or a [`Fault`].

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::RecvTimeoutError;
use stepframe_core::WallClock;

use super::fault::{Fault, FaultKind};
use super::marker::{FaultMarker, MARKER_ENV};
use super::watch::StuckWatch;
use super::{Limits, SuperviseError};

/// How often the supervisor looks at the marker while the child runs. A
/// look is five atomic loads; 50 ms puts a stuck call's verdict at most
/// 50 ms past its limit. The child's exit is not waited for by looking: its
/// stderr closing wakes the supervisor at once.
pub const LOOK_EVERY: Duration = Duration::from_millis(50);

/// How long the supervisor waits, once the child has exited, for the rest
/// of its stderr: a grandchild that inherited the pipe could hold it open
/// for ever.
const RELAY_GRACE: Duration = Duration::from_secs(1);

/// Sets `cmd` up to run supervised by `marker` under `limits`: the marker
/// in [`MARKER_ENV`], the memory limit as the child's `RLIMIT_DATA` (set
/// between fork and exec, so it holds from the child's first instruction;
/// the module docs say why DATA and not AS), and stderr piped, for
/// [`supervise`] to relay and scan. Stdout is left as the caller set it.
///
/// On Linux the child is also killed when the thread that starts it ends
/// (`PR_SET_PDEATHSIG`): a supervisor that is itself killed (a CI job's
/// timeout, a test's) takes its child with it instead of leaving a stuck
/// hook spinning with nobody watching. So start the child from a thread
/// that lives until the child is done, as [`supervise`] does.
pub fn configure(cmd: &mut Command, marker: &FaultMarker, limits: &Limits) {
    use std::os::unix::process::CommandExt;
    cmd.env(MARKER_ENV, marker.env_value());
    cmd.stderr(Stdio::piped());
    let limit = limits.memory_bytes.map(|bytes| rustix::process::Rlimit {
        current: Some(bytes),
        maximum: Some(bytes),
    });
    #[cfg(target_os = "linux")]
    let supervisor = rustix::process::getpid();
    // SAFETY: the closure runs in the forked child before exec, where only
    // async-signal-safe calls are allowed: it makes at most three system
    // calls (prctl, getppid, setrlimit) on values computed before the fork,
    // and allocates nothing (the error it may return is a plain errno).
    unsafe {
        cmd.pre_exec(move || {
            #[cfg(target_os = "linux")]
            {
                let kill = rustix::process::Signal::KILL;
                rustix::process::set_parent_process_death_signal(Some(kill))?;
                // A supervisor that died between the fork and the line
                // above sent no signal: the child has a new parent by now.
                if rustix::process::getppid() != Some(supervisor) {
                    return Err(std::io::Error::from(rustix::io::Errno::SRCH));
                }
            }
            if let Some(limit) = limit {
                rustix::process::setrlimit(rustix::process::Resource::Data, limit)?;
            }
            Ok(())
        });
    }
}

/// What a child said on stderr that names the way it died: the last line
/// Rust's runtime prints before it aborts on a stack overflow or a failed
/// allocation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChildSaid {
    /// "thread 'main' has overflowed its stack".
    pub overflow: Option<String>,
    /// "memory allocation of 16777216 bytes failed", and the bytes.
    pub allocation_failed: Option<(String, Option<u64>)>,
}

impl ChildSaid {
    /// Takes note of one line of the child's stderr. The first of each
    /// kind is kept: with `RUST_BACKTRACE` set, printing the backtrace of a
    /// failed allocation allocates too, and fails again with another size.
    pub fn scan(&mut self, line: &str) {
        let line = line.trim_end();
        if line.contains("has overflowed its stack") {
            self.overflow.get_or_insert_with(|| line.to_string());
        } else if let Some(rest) = line.strip_prefix("memory allocation of ")
            && let Some(n) = rest.strip_suffix(" bytes failed")
        {
            self.allocation_failed
                .get_or_insert_with(|| (line.to_string(), n.parse().ok()));
        }
    }

    /// The fault of a child that ended with `status`, or `None` when it
    /// exited with a code of its own (its verdict, whatever it is).
    pub fn fault_kind(&self, status: ExitStatus, limits: &Limits) -> Option<FaultKind> {
        use std::os::unix::process::ExitStatusExt;
        let signal = status.signal()?;
        Some(match (&self.overflow, &self.allocation_failed) {
            (Some(_), _) => FaultKind::StackOverflow,
            (None, Some((_, bytes))) => FaultKind::OutOfMemory {
                bytes: *bytes,
                limit: limits.memory_bytes,
            },
            (None, None) if signal == 6 => FaultKind::Abort,
            (None, None) => FaultKind::Signal(signal),
        })
    }

    /// The line that goes with `kind` as the fault's detail.
    pub fn detail(&self, kind: &FaultKind) -> Option<String> {
        match kind {
            FaultKind::StackOverflow => self.overflow.clone(),
            FaultKind::OutOfMemory { .. } => self.allocation_failed.as_ref().map(|a| a.0.clone()),
            _ => None,
        }
    }
}

/// How a supervised child ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ended {
    /// It exited with this code: its own verdict.
    Exited(i32),
    /// It died, or was stopped, of this fault (unnamed: see
    /// [`Fault::name_with`]).
    Faulted(Fault),
}

/// Messages from the stderr relay.
enum Relay {
    /// The pipe closed: the child (and whoever shared its stderr) exited.
    Closed,
}

/// Spawns `cmd` (set up with [`configure`] for `marker` and `limits`) and
/// watches it until it ends: every line of its stderr goes to `relay` as it
/// comes (with its newline) and is scanned ([`ChildSaid`]); the marker is
/// looked at every [`LOOK_EVERY`] of real time, and timed on `clock` (the
/// system clock; a manual one in tests), so a call that stays the same for
/// [`Limits::stuck_after`] kills the child (`SIGKILL`). The marker is looked
/// at once before the spawn too, so a test can set it up first.
pub fn supervise(
    mut cmd: Command,
    marker: &FaultMarker,
    limits: &Limits,
    clock: &WallClock,
    mut relay: impl FnMut(&[u8]) + Send + 'static,
) -> Result<Ended, SuperviseError> {
    let mut watch = StuckWatch::new(limits.stuck_after);
    watch.look(marker.beacon().current(), clock.now());
    let mut child = cmd.spawn().map_err(SuperviseError::Spawn)?;
    let said = Arc::new(Mutex::new(ChildSaid::default()));
    let (tx, rx) = crossbeam_channel::bounded::<Relay>(1);
    if let Some(stderr) = child.stderr.take() {
        let said = said.clone();
        std::thread::Builder::new()
            .name("stepframe-relay".into())
            .spawn(move || {
                let mut reader = BufReader::new(stderr);
                let mut line = Vec::new();
                while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                    relay(&line);
                    lock(&said).scan(&String::from_utf8_lossy(&line));
                    line.clear();
                }
                let _ = tx.send(Relay::Closed);
            })
            .map_err(SuperviseError::Spawn)?;
    } else {
        drop(tx);
    }
    let mut closed = false;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(SuperviseError::Wait)? {
            break status;
        }
        if closed {
            std::thread::sleep(LOOK_EVERY);
        } else {
            match rx.recv_timeout(LOOK_EVERY) {
                Ok(Relay::Closed) | Err(RecvTimeoutError::Disconnected) => closed = true,
                Err(RecvTimeoutError::Timeout) => {}
            }
            if closed {
                continue;
            }
        }
        if let Some(call) = watch.look(marker.beacon().current(), clock.now()) {
            stop(&mut child)?;
            let kind = FaultKind::Stuck {
                after: watch.after(),
            };
            return Ok(Ended::Faulted(Fault::at(
                kind,
                Some(call),
                marker.beacon().last_tick(),
            )));
        }
    };
    if !closed {
        // The rest of stderr (the line that says why) arrives before the
        // pipe closes.
        let _ = rx.recv_timeout(RELAY_GRACE);
    }
    let said = lock(&said).clone();
    Ok(match said.fault_kind(status, limits) {
        Some(kind) => {
            let detail = said.detail(&kind);
            let beacon = marker.beacon();
            Ended::Faulted(
                Fault::at(kind, beacon.current(), beacon.last_tick()).with_detail(detail),
            )
        }
        None => Ended::Exited(status.code().unwrap_or(1)),
    })
}

/// Kills a stuck child and reaps it.
fn stop(child: &mut Child) -> Result<(), SuperviseError> {
    // It may have exited between the last look and now: then there is
    // nothing to kill, and the wait below reaps it.
    let _ = child.kill();
    child.wait().map_err(SuperviseError::Wait)?;
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use stepframe_core::{HookKind, ManualTime, ObjectId};

    fn limits(ms: u64) -> Limits {
        Limits {
            stuck_after: Duration::from_millis(ms),
            memory_bytes: None,
        }
    }

    #[test]
    fn rusts_last_words_name_the_fault_of_an_aborted_child() {
        use std::os::unix::process::ExitStatusExt;
        let aborted = ExitStatus::from_raw(6);
        let mut said = ChildSaid::default();
        said.scan("error: tick 4 (frame 4): something else\n");
        assert_eq!(said.fault_kind(aborted, &limits(1)), Some(FaultKind::Abort));
        said.scan("memory allocation of 16777216 bytes failed\n");
        // The backtrace's own allocation failing after it is not the fault.
        said.scan("memory allocation of 5795635 bytes failed\n");
        let oom = Limits {
            memory_bytes: Some(256 << 20),
            ..limits(1)
        };
        assert_eq!(
            said.fault_kind(aborted, &oom),
            Some(FaultKind::OutOfMemory {
                bytes: Some(16_777_216),
                limit: Some(256 << 20)
            })
        );
        said.scan("\nthread 'main' has overflowed its stack\n");
        assert_eq!(
            said.fault_kind(aborted, &oom),
            Some(FaultKind::StackOverflow)
        );
        let exited = ExitStatus::from_raw(3 << 8);
        assert_eq!(
            said.fault_kind(exited, &oom),
            None,
            "an exit code is a verdict"
        );
        let killed = ExitStatus::from_raw(9);
        assert_eq!(
            ChildSaid::default().fault_kind(killed, &oom),
            Some(FaultKind::Signal(9))
        );
    }

    #[test]
    fn a_child_that_exits_gives_its_code_and_its_stderr_is_relayed() {
        let marker = FaultMarker::create().expect("a marker");
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo \"$STEPFRAME_FAULT_MARKER\" >&2; exit 3"]);
        configure(&mut cmd, &marker, &limits(1000));
        let lines = Arc::new(Mutex::new(Vec::<u8>::new()));
        let sink = lines.clone();
        let ended = supervise(
            cmd,
            &marker,
            &limits(1000),
            &WallClock::system(),
            move |l| lock(&sink).extend_from_slice(l),
        )
        .expect("supervised");
        assert_eq!(ended, Ended::Exited(3));
        let said = String::from_utf8(lock(&lines).clone()).expect("text");
        let expected = marker.env_value();
        assert_eq!(said.trim_end(), expected.to_string_lossy());
    }

    #[test]
    fn a_call_that_stays_for_the_limit_on_the_supervisors_clock_stops_the_child() {
        let marker = FaultMarker::create().expect("a marker");
        // As if the child were inside a hook: the marker says so before it starts.
        marker
            .beacon()
            .enter(ObjectId(3), 4, HookKind::FixedUpdate, 120);
        let time = ManualTime::new();
        let mut cmd = Command::new("sh");
        // Says it started, then would sleep a minute: only a kill ends it soon.
        cmd.args(["-c", "echo started >&2; exec sleep 60"]);
        configure(&mut cmd, &marker, &limits(2000));
        let advance = time.clone();
        let relay = move |line: &[u8]| {
            if line.starts_with(b"started") {
                // Two seconds pass on the supervisor's clock.
                advance.advance(Duration::from_secs(2));
            }
        };
        let t0 = std::time::Instant::now();
        let ended =
            supervise(cmd, &marker, &limits(2000), &time.clock(), relay).expect("supervised");
        let Ended::Faulted(fault) = ended else {
            panic!("expected a stuck fault, got {ended:?}");
        };
        assert_eq!(
            fault.kind,
            FaultKind::Stuck {
                after: Duration::from_secs(2)
            }
        );
        assert_eq!(
            (fault.object, fault.seq, fault.hook, fault.tick),
            (Some(ObjectId(3)), 4, Some(HookKind::FixedUpdate), 120)
        );
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "stopped, not waited out"
        );
    }

    #[test]
    fn a_memory_limit_holds_in_the_child() {
        let marker = FaultMarker::create().expect("a marker");
        let mut cmd = Command::new("sh");
        // ulimit -d reports RLIMIT_DATA in KiB.
        cmd.args(["-c", "ulimit -d >&2"]);
        let l = Limits {
            memory_bytes: Some(300 << 20),
            ..limits(1000)
        };
        configure(&mut cmd, &marker, &l);
        let lines = Arc::new(Mutex::new(Vec::<u8>::new()));
        let sink = lines.clone();
        let ended = supervise(cmd, &marker, &l, &WallClock::system(), move |line| {
            lock(&sink).extend_from_slice(line)
        })
        .expect("supervised");
        assert_eq!(ended, Ended::Exited(0));
        let said = String::from_utf8(lock(&lines).clone()).expect("text");
        assert_eq!(said.trim(), (300 * 1024).to_string());
    }
}
