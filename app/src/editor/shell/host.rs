//! Where the editor's session host runs, and how the editor watches it.
//!
//! | [`Driver`] | the host | reached through |
//! |---|---|---|
//! | `Process` (the editor's default) | a child process of the host program (this executable, or a game's), `stepframe host` | an inherited socket pair, the wire's frames |
//! | `Thread` (`edit --in-process`) | a thread of the editor's own process (one process, for a native debugger) | a socket pair inside the process: the same frames and codec |
//! | `Driven { dt }` (tests) | the UI thread, one host frame per UI frame | the channels directly, each message through the codec once |
//! | `Attach { addr, token }` (File → Attach…, Run in player) | a game in a process of its own, driving its session once per frame (`stepframe run --debug`, or its own loop with `stepframe_host::debug`) | loopback TCP with the game's per-run token |
//!
//! An attached game is not the editor's: the editor neither restarts it
//! nor names a fault from a marker (it has none). When its connection ends
//! the banner says the game is gone and why (its exit status, if the editor
//! started it with Run in player).
//!
//! User code is not trusted to stay up: an abort, a stack overflow or
//! memory exhausted ends the process it runs in, and nothing stops a thread
//! in an endless loop. In a child process all four end the child, never the
//! editor: its window, its last published state and the session's journal
//! stay, and a banner names the fault (kind, object, hook, tick) from the
//! child's fault marker, a shared page the child's pipeline writes at
//! every hook call (`stepframe_host::supervise`). Restart starts a new
//! child that does the journal again up to the tick before the fault,
//! suspended there.
//!
//! What the child prints (a user's `println!`, a panic message) is read
//! from its stdout and stderr and goes to the Log, stamped with the tick.

use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
use stepframe_core::HookCall;
use stepframe_host::link::{self, Bridge};
use stepframe_host::protocol::{Command, DisplayRate};
use stepframe_host::supervise::{ChildSaid, Fault, FaultMarker, Limits};
use stepframe_host::wire::{BuildId, Handshake, Role, WireError, child};
use stepframe_host::worker::{self, FrontEnd, Registries, Waker, Worker, WorkerThread};

pub use crate::editor::shared::HostStopped;

/// Who runs the session host (module docs).
#[derive(Clone, Debug, PartialEq)]
pub enum Driver {
    /// A child process of `program` (`None`: this executable), started as
    /// `program host`, under `limits` (memory, stuck hook).
    Process {
        /// The host program: this executable, or in tests the binary cargo
        /// built.
        program: Option<PathBuf>,
        /// Its memory limit and stuck-hook limit.
        limits: Limits,
    },
    /// A thread of this process, through the same codec.
    Thread,
    /// The UI thread runs exactly one host frame of `dt` seconds per UI
    /// frame (deterministic tests: `Harness::step` = one outer frame).
    Driven {
        /// Real seconds per frame handed to the pipeline.
        dt: f64,
    },
    /// A game listening on loopback (`run --debug`, a game's own loop).
    Attach {
        /// Its address (127.0.0.1).
        addr: std::net::SocketAddr,
        /// Its per-run token.
        token: stepframe_host::wire::Token,
    },
}

/// A line the host process printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Printed {
    /// On stderr (else stdout).
    pub(super) stderr: bool,
    /// The line, without its end.
    pub(super) text: String,
}

/// A host started by the editor.
pub(super) enum Running {
    /// A child process.
    Process {
        /// The process.
        child: HostChild,
        /// The bridge threads to its socket (held: they end with it).
        bridge: Bridge,
        /// The page its pipeline announces every hook call in.
        marker: FaultMarker,
        /// Its limits.
        limits: Limits,
        /// What it printed, line by line, in the order it printed it.
        printed: Receiver<Printed>,
        /// What it said on stderr that names the way it died.
        said: ChildSaid,
        /// Lines read (and scanned) while its exit was being classified,
        /// not yet in the Log.
        held: Vec<Printed>,
    },
    /// A thread of this process (stopped and joined when dropped).
    Thread {
        /// Asked every frame whether it has ended.
        thread: WorkerThread,
        /// The bridge threads (held: they end with it).
        bridges: [Bridge; 2],
    },
    /// Here, one frame per UI frame.
    Driven {
        /// The worker.
        worker: Box<Worker>,
        /// Seconds per frame.
        dt: f64,
        /// The front end's commands, passed on to the worker each frame
        /// once through the codec, as they would cross a process.
        relay: (Receiver<Command>, Sender<Command>),
    },
    /// A game the editor attached to.
    Attached {
        /// The bridge threads to its connection (held: they end with it).
        bridge: Bridge,
        /// The player the editor started for it (Run in player), if it did.
        player: Option<Child>,
        /// What that player printed, line by line.
        printed: Option<Receiver<Printed>>,
        /// Lines it printed before its attach line, not yet in the Log.
        held: Vec<Printed>,
    },
    /// The host died; nothing runs until a restart.
    Stopped,
}

/// Starts a host run by `driver` at `rate`, with `registries`: its
/// channels and who runs it.
pub(super) fn start(
    driver: &Driver,
    rate: DisplayRate,
    registries: &Registries,
    waker: &Waker,
) -> anyhow::Result<(FrontEnd, Running)> {
    use anyhow::Context as _;
    let registries = registries.clone();
    Ok(match driver {
        Driver::Process { program, limits } => {
            let program = match program {
                Some(p) => p.clone(),
                None => std::env::current_exe().context("finding this executable")?,
            };
            let marker = FaultMarker::create().context("creating the fault marker")?;
            let mut cmd = std::process::Command::new(&program);
            cmd.arg("host").stdin(Stdio::null()).stdout(Stdio::piped());
            stepframe_host::supervise::configure(&mut cmd, &marker, limits);
            let (mut child, connection) = child::spawn_host(
                cmd,
                &Handshake::expecting(Role::Editor, BuildId::of_executable(&program)),
            )
            .with_context(|| format!("starting {} host", program.display()))?;
            let printed = relay_output(&mut child)?;
            let (front, bridge) = link::connect(connection, Some(waker.clone()))?;
            front.send(stepframe_host::protocol::Command::Run(
                stepframe_host::protocol::Run::SetDisplayRate(rate),
            ));
            let running = Running::Process {
                child: HostChild(child),
                bridge,
                marker,
                limits: *limits,
                printed,
                said: ChildSaid::default(),
                held: Vec::new(),
            };
            (front, running)
        }
        Driver::Thread => {
            let (front, end, bridges) = link::in_process(Some(waker.clone()))?;
            let end = end.with_waker(waker.clone());
            let build = move || Worker::new(end, rate, registries);
            let thread = worker::spawn(build, front.commands.clone(), Some(waker.clone()))?;
            let running = Running::Thread { thread, bridges };
            (front, running)
        }
        Driver::Driven { dt } => {
            let (front, end) = worker::channels();
            let (ui_commands, relayed) = crossbeam_channel::unbounded();
            let running = Running::Driven {
                worker: Box::new(Worker::new(end, rate, registries)),
                dt: *dt,
                relay: (relayed, front.commands),
            };
            let front = FrontEnd {
                commands: ui_commands,
                inbound: front.inbound,
            };
            (front, running)
        }
        Driver::Attach { addr, token } => attach(*addr, token.clone(), None, waker)?,
    })
}

/// Attaches to the game at `addr` with `token`: `player` is the process
/// the editor started for it (Run in player) with what it printed so far.
pub(super) fn attach(
    addr: std::net::SocketAddr,
    token: stepframe_host::wire::Token,
    player: Option<(Child, Receiver<Printed>, Vec<Printed>)>,
    waker: &Waker,
) -> anyhow::Result<(FrontEnd, Running)> {
    use anyhow::Context as _;
    // Another executable of the same version (the `stepframe` editor and a
    // game's own binary): the handshake compares versions, the token says
    // the user chose this game.
    let ours = Handshake {
        same_executable: false,
        ..Handshake::new(Role::Editor)
    };
    let connected = stepframe_host::wire::loopback::connect_loopback(addr, token, &ours)
        .with_context(|| format!("attaching to {addr}"))
        .and_then(|c| Ok(link::connect(c, Some(waker.clone()))?));
    let (front, bridge) = match connected {
        Ok(connected) => connected,
        Err(e) => {
            // A player started for this attach is not left running alone.
            if let Some((mut child, ..)) = player {
                let _ = child.kill();
                let _ = child.wait();
            }
            return Err(e);
        }
    };
    let (player, printed, held) = match player {
        Some((child, printed, held)) => (Some(child), Some(printed), held),
        None => (None, None, Vec::new()),
    };
    let running = Running::Attached {
        bridge,
        player,
        printed,
        held,
    };
    Ok((front, running))
}

/// Starts `program run SCENE --debug ARGS…` and reads its attach line
/// (waiting at most `within`): the player, its attach line, what it
/// printed.
pub(super) fn start_player(
    program: &std::path::Path,
    scene: &std::path::Path,
    args: &[String],
    within: Duration,
) -> anyhow::Result<(
    Child,
    stepframe_host::debug::AttachLine,
    Receiver<Printed>,
    Vec<Printed>,
)> {
    use anyhow::Context as _;
    let mut child = std::process::Command::new(program)
        .arg("run")
        .arg(scene)
        .arg("--debug")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {} run", program.display()))?;
    let printed = relay_output(&mut child)?;
    let deadline = std::time::Instant::now() + within;
    let mut held = Vec::new();
    loop {
        match printed.recv_deadline(deadline) {
            Ok(line) => {
                if !line.stderr
                    && let Ok(attach) = line.text.parse::<stepframe_host::debug::AttachLine>()
                {
                    return Ok((child, attach, printed, held));
                }
                held.push(line);
            }
            Err(_) => {
                let _ = child.kill();
                let status = child.wait().ok();
                let said: Vec<&str> = held.iter().map(|l| l.text.as_str()).collect();
                anyhow::bail!(
                    "the player printed no attach line within {} s ({}): {}",
                    within.as_secs(),
                    status.map_or_else(|| "still running".to_string(), |s| s.to_string()),
                    said.join(" / ")
                );
            }
        }
    }
}

/// Reads the child's stdout and stderr, line by line, on two threads.
fn relay_output(child: &mut Child) -> std::io::Result<Receiver<Printed>> {
    let (tx, rx) = crossbeam_channel::unbounded();
    let streams: [(bool, Option<Box<dyn std::io::Read + Send>>); 2] = [
        (
            false,
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ),
        (
            true,
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ),
    ];
    for (stderr, stream) in streams {
        let Some(stream) = stream else { continue };
        let tx = tx.clone();
        std::thread::Builder::new()
            .name("stepframe-host-output".into())
            .spawn(move || {
                for line in std::io::BufReader::new(stream).lines() {
                    let Ok(text) = line else { break };
                    if tx.send(Printed { stderr, text }).is_err() {
                        break;
                    }
                }
            })?;
    }
    Ok(rx)
}

impl Running {
    /// Runs the driven host's frame, or asks whether the host has ended.
    /// Returns why it stopped, if it just did. Never waits. `names` names
    /// a fault's object and behaviour (the editor's last view).
    pub(super) fn poll(
        &mut self,
        names: &dyn stepframe_host::supervise::Names,
    ) -> Option<HostStopped> {
        match self {
            Running::Driven { worker, dt, relay } => {
                for command in relay.0.try_iter() {
                    match through_codec(command) {
                        Ok(command) => {
                            let _ = relay.1.send(command);
                        }
                        Err(e) => {
                            return Some(HostStopped::Ended(format!(
                                "a command does not cross the wire: {e}"
                            )));
                        }
                    }
                }
                let dt = *dt;
                // A host bug must not take the UI down.
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| worker.pump(dt)))
                    .err()
                    .map(|payload| HostStopped::Ended(worker::panic_text(payload.as_ref())))
            }
            Running::Thread { thread, bridges } => {
                broken(bridges).or_else(|| thread.stopped().map(HostStopped::Ended))
            }
            Running::Process {
                child,
                marker,
                limits,
                said,
                bridge,
                printed,
                held,
            } => {
                let Some(status) = child.0.try_wait().ok().flatten() else {
                    // A child that sent what cannot be read is stopped (a
                    // connection that ended is the child's exit, read next).
                    return broken(std::slice::from_ref(bridge));
                };
                // What it printed last names how it died (a stack overflow
                // is a SIGABRT like an abort; only its message tells them
                // apart), and may still be in the pipe: read to its end,
                // which comes with the exit (bounded, in case a process it
                // started holds the pipe open).
                let deadline = std::time::Instant::now() + EXIT_WORDS_WAIT;
                while let Ok(line) = printed.recv_deadline(deadline) {
                    if line.stderr {
                        said.scan(&line.text);
                    }
                    held.push(line);
                }
                let kind = said.fault_kind(status, limits);
                let last_tick = marker.beacon().last_tick();
                Some(match kind {
                    Some(kind) => {
                        let call = marker.beacon().current();
                        let detail = said.detail(&kind);
                        let mut fault = Fault::at(kind, call, last_tick)
                            .with_detail(detail)
                            .with_journal_tail(marker.beacon().journal_tail());
                        fault.name_with(names);
                        HostStopped::Fault(fault)
                    }
                    None => HostStopped::Ended(format!(
                        "the session host exited ({status}) without a fault the editor knows"
                    )),
                })
            }
            Running::Attached { bridge, player, .. } => {
                if let Some(status) = player.as_mut().and_then(|p| p.try_wait().ok().flatten()) {
                    return Some(HostStopped::GameGone(format!(
                        "the player exited ({status})"
                    )));
                }
                let why = bridge.ended()?;
                // A player that closed its connection is usually exiting:
                // its status says more than the connection (bounded).
                if let Some(player) = player {
                    let deadline = std::time::Instant::now() + EXIT_WORDS_WAIT;
                    while std::time::Instant::now() < deadline {
                        if let Ok(Some(status)) = player.try_wait() {
                            return Some(HostStopped::GameGone(format!(
                                "the player exited ({status})"
                            )));
                        }
                        std::thread::sleep(Duration::from_millis(5));
                    }
                }
                Some(HostStopped::GameGone(match why {
                    WireError::Closed => {
                        "it closed the connection (it ended, or was stopped)".to_string()
                    }
                    e => format!("the connection broke: {e}"),
                }))
            }
            Running::Stopped => None,
        }
    }

    /// Lets an attached game go on by itself: its connection closes when
    /// the editor drops its front end; a player the editor started is
    /// reaped on a thread of its own when it ends, never killed. What it
    /// prints until then is read and dropped: a pipe nobody reads would
    /// fill, or close and fail the player's next line.
    pub(super) fn let_go(&mut self) {
        if let Running::Attached {
            player: Some(mut child),
            printed,
            ..
        } = std::mem::replace(self, Running::Stopped)
        {
            let _ = std::thread::Builder::new()
                .name("stepframe-player-reaper".into())
                .spawn(move || {
                    if let Some(printed) = printed {
                        // Ends when the player's output does: at its exit.
                        for _ in printed.iter() {}
                    }
                    let _ = child.wait();
                });
        }
    }

    /// The lines the host printed since the last call (a child's; none
    /// for a host in this process, whose prints go to the editor's own).
    pub(super) fn printed(&mut self) -> Vec<Printed> {
        if let Running::Attached {
            printed: Some(printed),
            held,
            ..
        } = self
        {
            let mut lines = std::mem::take(held);
            lines.extend(printed.try_iter());
            return lines;
        }
        let Running::Process {
            printed,
            said,
            held,
            ..
        } = self
        else {
            return Vec::new();
        };
        let fresh: Vec<Printed> = printed.try_iter().collect();
        for line in fresh.iter().filter(|l| l.stderr) {
            said.scan(&line.text);
        }
        let mut lines = std::mem::take(held);
        lines.extend(fresh);
        lines
    }

    /// The hook call the host's session is inside right now, if any.
    pub(super) fn hook_running(&self) -> Option<HookCall> {
        match self {
            Running::Thread { thread, .. } => thread.hook_running(),
            Running::Process { marker, .. } => marker.beacon().current(),
            _ => None,
        }
    }

    /// CPU time the host (its thread, or its process) has used so far.
    pub(super) fn cpu_time(&self) -> Option<Duration> {
        match self {
            Running::Thread { thread, .. } => thread.cpu_time(),
            Running::Process { child, .. } => process_cpu_time(child.0.id()),
            _ => None,
        }
    }

    /// Whether the host is a child process (which can be killed).
    pub(super) fn is_process(&self) -> bool {
        matches!(self, Running::Process { .. })
    }

    /// Whether a host runs that a watchdog can look at.
    pub(super) fn watchable(&self) -> bool {
        matches!(self, Running::Thread { .. } | Running::Process { .. })
    }

    /// Walks away from a stuck host: a child is killed (an endless loop in
    /// a process of its own can be stopped); a thread is detached and left
    /// running, since nothing in a process stops a Rust loop.
    pub(super) fn abandon(&mut self) {
        match std::mem::replace(self, Running::Stopped) {
            // Dropping a process kills it (`Drop`).
            Running::Process { .. }
            | Running::Driven { .. }
            | Running::Attached { .. }
            | Running::Stopped => {}
            Running::Thread { thread, .. } => thread.detach(),
        }
    }
}

/// How long a host process's last words may take to arrive after its
/// exit was seen.
const EXIT_WORDS_WAIT: Duration = Duration::from_millis(500);

/// A host process that is killed when the editor lets go of it: one that
/// ended by itself (its socket closed) is only reaped; one stuck in a hook
/// is not waited for.
pub(super) struct HostChild(Child);

impl Drop for HostChild {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// CPU time of process `pid` (user and system), from `/proc/<pid>/stat`
/// at 100 ticks a second; `None` off Linux.
fn process_cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

/// A message of a driven host, or a command to it, once through the
/// codec, as it would cross a process: what a test editor checks of the
/// protocol at every frame, so nothing that cannot cross the wire reaches
/// the panels or the host.
pub(super) fn through_codec<T: serde::Serialize + serde::de::DeserializeOwned>(
    message: T,
) -> Result<T, WireError> {
    let bytes = stepframe_host::wire::encode(&message, Vec::new())?;
    stepframe_host::wire::decode::<T>(&bytes)
}

/// Why the host stopped, if one of `bridges` met a message it could not
/// carry (not a connection that ended: that is the host's own end, which
/// the host's exit or thread says more about).
fn broken(bridges: &[Bridge]) -> Option<HostStopped> {
    bridges.iter().find_map(|b| match b.ended()? {
        WireError::Closed | WireError::Io(_) | WireError::Truncated { .. } => None,
        e => Some(HostStopped::Ended(format!(
            "the link to the session host broke: {e}"
        ))),
    })
}
