//! The editor on a game in a process of its own: File → Attach…, Run in
//! player and Detach (docs/editor.md, "Attach to a running game").
//!
//! Attaching replaces the editor's own session (its host is stopped, as a
//! File → Open replaces a scene): every panel then reads the game's
//! session, streamed from the moment of the attach. Detach closes the
//! connection, so the game goes on by itself (`stepframe_host::debug`
//! removes the editor's breakpoints and plays), and the editor opens the
//! game's scene in a session host of its own, at tick 0, paused, run the
//! way its first host was ([`Editor::home`](super::Editor)).

use std::net::SocketAddr;
use std::time::Duration;

use stepframe_core::LogLevel;
use stepframe_core::{Breakpoint, ClockBreakpoint};
use stepframe_host::protocol::{BreakpointCommand, Command, SceneCommand, WatchCommand};
use stepframe_host::wire::Token;
use stepframe_plugins::WatchSpec;

use super::host::{self, Driver, Printed};
use super::{Editor, Running};
use crossbeam_channel::Receiver;

/// How long Run in player waits for the player to print its attach line:
/// a bound on a hang (a debug build starts in well under a second).
const PLAYER_START_WITHIN: Duration = Duration::from_secs(20);

impl Editor {
    /// File → Attach…: the address and token as typed.
    pub(super) fn attach_typed(&mut self, addr: &str, token: &str) {
        let addr: SocketAddr = match addr.parse() {
            Ok(addr) => addr,
            Err(e) => {
                self.feedback.error(format!(
                    "Attach: the address {addr:?} is not 127.0.0.1:PORT ({e})"
                ));
                return;
            }
        };
        let token: Token = match token.parse() {
            Ok(token) => token,
            Err(e) => {
                self.feedback.error(format!("Attach: {e}"));
                return;
            }
        };
        self.attach_with(addr, token, None);
    }

    /// File → Run in player: the scene in a player window, attached.
    pub(super) fn run_in_player(&mut self) {
        let Some(scene) = self
            .published
            .live
            .as_ref()
            .and_then(|l| l.scene_path.clone())
        else {
            self.feedback
                .error("Run in player: the session has no scene file to run");
            return;
        };
        let program = match &self.home {
            Driver::Process {
                program: Some(program),
                ..
            } => program.clone(),
            _ => match std::env::current_exe() {
                Ok(exe) => exe,
                Err(e) => {
                    self.feedback
                        .error(format!("Run in player: cannot find this executable: {e}"));
                    return;
                }
            },
        };
        match host::start_player(&program, &scene, &self.player_args, PLAYER_START_WITHIN) {
            Ok((child, line, printed, held)) => {
                // The line the player printed, for an Attach… after a
                // Detach (the token is nowhere else to be seen), and its
                // process.
                self.feedback.log.push(
                    LogLevel::Info,
                    None,
                    format!(
                        "Run in player started {} (process {}): {line}",
                        scene.display(),
                        child.id()
                    ),
                );
                self.attach_with(line.addr, line.token, Some((child, printed, held)));
            }
            Err(e) => self.feedback.error(format!("Run in player: {e:#}")),
        }
    }

    /// Attaches to the game at `addr`; on success every panel reads its
    /// session from now on.
    fn attach_with(
        &mut self,
        addr: SocketAddr,
        token: Token,
        player: Option<(std::process::Child, Receiver<Printed>, Vec<Printed>)>,
    ) {
        match host::attach(addr, token.clone(), player, &self.waker) {
            Ok((front, running)) => {
                let mut old = std::mem::replace(&mut self.running, running);
                old.let_go();
                self.front = front;
                self.commands.reconnect(self.front.commands.clone());
                self.driver = Driver::Attach { addr, token };
                self.forget_the_old_session();
                self.published.attached = Some(addr.to_string());
                self.feedback
                    .notify(LogLevel::Info, format!("attached to the game at {addr}"));
                self.follow_live();
            }
            Err(e) => self.feedback.error(format!("cannot attach: {e:#}")),
        }
    }

    /// What the panels held of the session before an attach or a detach:
    /// none of it is the new one's (the first view of the new session
    /// comes on its own; until then a line the game prints names no tick).
    fn forget_the_old_session(&mut self) {
        self.published.attached = None;
        self.published.worker_stopped = None;
        self.published.journal.clear();
        self.published.live = None;
        self.published.past = None;
    }

    /// File → Detach (module docs).
    pub(super) fn detach(&mut self) {
        if self.published.attached.is_none() {
            return;
        }
        let live = self.published.live.as_ref();
        let scene = live.and_then(|l| l.scene_path.clone());
        // The user's breakpoints and watches come along: they were set on
        // this scene's objects, which the editor's own session opens.
        let carried = live.map(|l| Carried {
            breakpoints: l.breakpoints.iter().map(|b| b.breakpoint.clone()).collect(),
            clock: l.clock_breakpoints.clone(),
            watches: l.watches.clone(),
        });
        let started = host::start(
            &self.home,
            self.persisted.display_rate,
            &self.registries,
            &self.waker,
        );
        let (front, running) = match started {
            Ok(started) => started,
            Err(e) => {
                self.feedback
                    .error(format!("Detach: cannot start a session host: {e:#}"));
                return;
            }
        };
        let mut old: Running = std::mem::replace(&mut self.running, running);
        old.let_go();
        // The old front end goes with its last command sender: the
        // connection closes, which is the detach the game sees.
        self.front = front;
        self.commands.reconnect(self.front.commands.clone());
        self.driver = self.home.clone();
        self.forget_the_old_session();
        let mut said = String::from(
            "detached: the game goes on by itself; its scene is open here, paused at tick 0",
        );
        if let Some(path) = scene {
            self.commands
                .send(Command::Scene(SceneCommand::Load { path, play: false }));
            if let Some(carried) = carried.filter(|c| !c.is_empty()) {
                said.push_str(&format!(", with {}", carried.counted()));
                carried.send(|command| self.commands.send(command));
            }
        }
        self.feedback.notify(LogLevel::Info, said);
        self.follow_live();
    }
}

/// The breakpoints and watches a Detach takes from the game's session to
/// the editor's own: the game removes the editor's breakpoints when it is
/// let go, and a new host starts with none.
struct Carried {
    breakpoints: Vec<Breakpoint>,
    clock: Vec<ClockBreakpoint>,
    watches: Vec<WatchSpec>,
}

impl Carried {
    fn is_empty(&self) -> bool {
        self.breakpoints.is_empty() && self.clock.is_empty() && self.watches.is_empty()
    }

    /// "2 breakpoints and 1 watch", for the notice.
    fn counted(&self) -> String {
        let count = |n: usize, one: &str, many: &str| match n {
            0 => None,
            1 => Some(format!("1 {one}")),
            n => Some(format!("{n} {many}")),
        };
        let breakpoints = self.breakpoints.len() + self.clock.len();
        [
            count(breakpoints, "breakpoint", "breakpoints"),
            count(self.watches.len(), "watch", "watches"),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" and ")
    }

    /// The commands that set them in a session that has the scene open:
    /// each keeps whether it is enabled (the ids are the new session's).
    fn send(self, mut send: impl FnMut(Command)) {
        for breakpoint in self.breakpoints {
            send(Command::Breakpoints(BreakpointCommand::Add(breakpoint)));
        }
        for breakpoint in self.clock {
            send(Command::Breakpoints(BreakpointCommand::AddClock(
                breakpoint,
            )));
        }
        if !self.watches.is_empty() {
            send(Command::Watches(WatchCommand::Set(self.watches)));
        }
    }
}
