//! A session a game drives from its own loop, that an editor can attach
//! to: [`Debugger`].
//!
//! A game that owns its main loop and renderer (winit, wgpu, macroquad, an
//! engine of its own) calls one thing once per frame,
//! [`Debugger::frame`]`(raw_dt)`, and draws the newest [`LiveView`]'s
//! presentation poses. That one call is the frame boundary where, as in
//! Bevy's `RemoteLast` schedule or Godot's `EngineDebugger::iteration`,
//! everything from outside is applied:
//!
//! 1. an editor that connected since the last frame is let in;
//! 2. the editor's commands go to the worker, and the worker applies them
//!    (a break, a step, an edit, a rewind) before the frame runs;
//! 3. the frame runs `step_frame` with `raw_dt`, unless the session is
//!    suspended: a paused frame does not call the pipeline, so neither
//!    clock advances (the contract's "paused frames" clause);
//! 4. what the worker published goes out: the caller keeps the newest
//!    live view, and an attached editor gets every event and the newest
//!    view.
//!
//! # Why the worker runs on the caller's thread
//!
//! The game's renderer draws what the session holds, and the contract
//! says the player and the editor share one `step_frame`: a thread of its
//! own would pace the session to its own clock, not to the game's frames.
//! So the worker is [`Worker::pump`]ed once per [`Debugger::frame`], with
//! the game's own dt, exactly like the editor's synchronous driver.
//!
//! # Fan-out, and its cost when nobody is attached
//!
//! The worker has one front end; the Debugger is it, and relays to the
//! editor:
//!
//! | from the worker | to the caller | to an attached editor |
//! |---|---|---|
//! | an event | errors, kept for [`Debugger::take_errors`] | forwarded, in order |
//! | a live view | kept as the newest ([`Debugger::live`]) | the newest, one in flight |
//! | a past view | dropped | forwarded |
//!
//! The editor reads no event before the live view the worker sent ahead
//! of it, as it reads its own host's. Some events only make sense after
//! that view: a newly plotted watch's values and history fill follow the
//! view whose watch list first names the watch, and the editor's lanes
//! drop values of a watch their list does not have (sent ahead of their
//! view, a lane missed its first live tick or never filled). So what the
//! worker sends goes to the editor in bursts: the newest live view first
//! (newer than everything else in the burst), then the events and past
//! views since the last burst, in the worker's order. A burst goes at the
//! first frame after `SEND_INTERVAL` (4 ms) has passed since the last;
//! one with a view the editor has no credit for waits until the editor
//! takes the view before.
//!
//! The Debugger acknowledges each live view to the worker itself (so the
//! caller gets one every frame), and keeps the editor's one-in-flight
//! credit apart: the editor's [`Command::ViewTaken`] updates that credit
//! and is not forwarded. An editor that draws at 20 frames a second while
//! the game runs at 144 gets a view each time it asks, the newest one:
//! no queue of views builds up, and about 7 game frames' events (144 /
//! 20) wait behind each view, in order, as they would have in the
//! connection.
//!
//! Not attached, a frame costs what the worker's pump costs plus one
//! `try_recv` on the listener's channel: nothing is cloned, encoded or
//! sent. Attached, each event is moved into the waiting burst, and a
//! burst (one wake-up of the connection's writer, one copy of the newest
//! view) goes at most 250 times a second: a game running flat out,
//! thousands of frames a second, to an editor that acknowledges at once
//! pays for a burst every dozen frames or so, not for a view every frame.

//! # Listening
//!
//! [`Debugger::listen`] binds 127.0.0.1 on a free port with a fresh random
//! token and prints nothing itself: the caller prints the [`AttachLine`]
//! (`stepframe run --debug` does, as Jupyter prints its URL and token). A
//! thread accepts connections: a wrong token, another protocol version
//! or another release is refused and logged to stderr, and the listener
//! keeps listening. One editor at a time: a second one that connects while
//! one is attached is closed at once.
//!
//! The handshake compares the crate version, not the executable
//! ([`Handshake::same_executable`]): the editor attaching is usually
//! another program than the game (the `stepframe` editor and a game's own
//! binary), built from the same sources.
//!
//! # Detach
//!
//! When the editor closes the connection (Detach, or the editor quits) or
//! sends [`Command::Shutdown`], the game goes on: the Debugger removes the
//! breakpoints the editor set (nobody would be there to resume from them)
//! and plays the session if it was suspended. Another editor may attach
//! later.

use std::net::SocketAddr;
use std::str::FromStr;

use crossbeam_channel::{Receiver, Sender, TryRecvError};

use crate::link::{self, Bridge};
use crate::protocol::{
    BreakpointCommand, Command, DisplayRate, Event, HostError, LiveView, Outbound, Run,
    SceneCommand,
};
use crate::wire::loopback::LoopbackListener;
use crate::wire::{Handshake, Role, Token, WireError};
use crate::worker::{HostEnd, Registries, Worker};

/// Most errors kept for [`Debugger::take_errors`] between two calls: a
/// game that never reads them does not grow without bound.
const MAX_ERRORS: usize = 256;

/// The shortest time between two sends to an editor: 250 a second, more
/// often than any display draws. A game that runs flat out (thousands of
/// frames a second) would otherwise wake the connection's writer for
/// every frame's telemetry, and copy, encode and send a view every frame
/// to an editor that acknowledges at once; what waits goes in one burst
/// at the first frame after the time is up, the newest view first.
const SEND_INTERVAL: std::time::Duration = std::time::Duration::from_millis(4);

/// A session driven once per frame by the caller's loop, that an editor
/// can attach to (module docs).
pub struct Debugger {
    /// The session's only owner, pumped once per frame.
    worker: Worker,
    /// Commands to the worker: the caller's and the editor's.
    commands: Sender<Command>,
    /// Everything the worker sends.
    outbound: Receiver<Outbound>,
    /// The newest live view.
    live: Option<LiveView>,
    /// The last scene loaded, replayed to an editor when it attaches.
    loaded: Option<Event>,
    /// Errors since the caller last took them.
    errors: Vec<HostError>,
    /// The port and the editor, once listening.
    listening: Option<Listening>,
}

impl std::fmt::Debug for Debugger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Debugger")
            .field("worker", &self.worker)
            .field("attached", &self.attached())
            .finish_non_exhaustive()
    }
}

/// The listening port and the editor attached to it.
struct Listening {
    /// Where the editor connects.
    addr: SocketAddr,
    /// What it presents.
    token: Token,
    /// Connections the accept thread let in.
    incoming: Receiver<(HostEnd, Bridge)>,
    /// The editor, while one is attached.
    editor: Option<Attached>,
}

/// An attached editor's end of the relay.
struct Attached {
    /// Its commands.
    commands: Receiver<Command>,
    /// What goes to it.
    out: Sender<Outbound>,
    /// Its bridge threads (held: they end with the connection).
    _bridge: Bridge,
    /// It took the last live view sent to it.
    credit: bool,
    /// The newest live view is one it has not been sent (copied only when
    /// it has credit: an editor slower than the game costs one copy per
    /// view it draws, not one per game frame).
    stale: bool,
    /// What the worker sent since the last send, in order: sent after the
    /// newest view, once the editor has credit for it ([`SEND_INTERVAL`]).
    held: Vec<Outbound>,
    /// When something was last sent to it.
    last_sent: Option<std::time::Instant>,
}

impl Debugger {
    /// A session with nothing loaded, suspended, whose scenes' behaviours
    /// come from `registries`, running at `rate` (what the editor shows as
    /// the display rate; the caller's loop sets the real pace).
    pub fn new(registries: Registries, rate: DisplayRate) -> Debugger {
        let (commands, cmd_rx) = crossbeam_channel::unbounded();
        let (out_tx, outbound) = crossbeam_channel::unbounded();
        let worker = Worker::new(HostEnd::new(cmd_rx, out_tx), rate, registries);
        Debugger {
            worker,
            commands,
            outbound,
            live: None,
            loaded: None,
            errors: Vec::new(),
            listening: None,
        }
    }

    /// Loads the scene file at `path` at the next frame, playing it or
    /// suspended at tick 0.
    pub fn load(&mut self, path: std::path::PathBuf, play: bool) {
        self.send(Command::Scene(SceneCommand::Load { path, play }));
    }

    /// Sends a command to the session, applied at the next frame boundary
    /// (the game's own pause key, its input).
    pub fn send(&self, command: Command) {
        // The receiver is the worker's, which lives as long as `self`.
        let _ = self.commands.send(command);
    }

    /// Binds 127.0.0.1 on a free port with a fresh token, and accepts an
    /// editor on a thread from now on (module docs). Returns what the
    /// editor needs; calling it again returns the same.
    pub fn listen(&mut self) -> Result<AttachLine, WireError> {
        if let Some(l) = &self.listening {
            return Ok(AttachLine {
                addr: l.addr,
                token: l.token.clone(),
            });
        }
        let listener = LoopbackListener::bind(Handshake {
            same_executable: false,
            ..Handshake::new(Role::Host)
        })?;
        let addr = listener.addr()?;
        let token = listener.token().clone();
        let (tx, incoming) = crossbeam_channel::bounded(1);
        std::thread::Builder::new()
            .name("stepframe-debug-accept".into())
            .spawn(move || accept_loop(&listener, &tx))?;
        self.listening = Some(Listening {
            addr,
            token: token.clone(),
            incoming,
            editor: None,
        });
        Ok(AttachLine { addr, token })
    }

    /// Whether an editor is attached now.
    pub fn attached(&self) -> bool {
        self.listening.as_ref().is_some_and(|l| l.editor.is_some())
    }

    /// True while the session is suspended (paused, stepped, at a
    /// breakpoint): [`Debugger::frame`] does not call the pipeline.
    pub fn is_suspended(&self) -> bool {
        self.worker.is_suspended()
    }

    /// The newest live view: the world's presentation poses to draw, the
    /// clock, the suspension.
    pub fn live(&self) -> Option<&LiveView> {
        self.live.as_ref()
    }

    /// The errors the session reported since the last call (a scene that
    /// does not load, an edit refused), oldest first.
    pub fn take_errors(&mut self) -> Vec<HostError> {
        std::mem::take(&mut self.errors)
    }

    /// One frame of the game's loop, `raw_dt` real seconds since the last
    /// (module docs: the frame boundary). Returns false once the session
    /// ended (a [`Command::Shutdown`] the caller sent).
    pub fn frame(&mut self, raw_dt: f64) -> bool {
        // The attached editor's commands first: one that left (its
        // connection closed) is detached before a new one is let in, which
        // would otherwise be refused as a second editor.
        self.relay_editor_commands();
        self.let_editor_in();
        let going = self.worker.pump(raw_dt);
        self.take_outbound();
        going
    }

    /// An editor that connected since the last frame is attached, and
    /// told what it missed: the scene loaded and the newest view.
    fn let_editor_in(&mut self) {
        let Some(l) = &mut self.listening else { return };
        let Ok((end, bridge)) = l.incoming.try_recv() else {
            return;
        };
        if l.editor.is_some() {
            say(format_args!(
                "an editor is attached already; a second one was closed"
            ));
            return;
        }
        let (commands, out) = end.into_parts();
        if let Some(loaded) = &self.loaded {
            let _ = out.send(Outbound::Event(Box::new(loaded.clone())));
        }
        say(format_args!("an editor attached"));
        l.editor = Some(Attached {
            commands,
            out,
            _bridge: bridge,
            credit: true,
            stale: self.live.is_some(),
            held: Vec::new(),
            last_sent: None,
        });
    }

    /// The editor's commands, to the worker (its view credit kept here).
    fn relay_editor_commands(&mut self) {
        let Some(l) = &mut self.listening else { return };
        let Some(editor) = &mut l.editor else { return };
        let mut gone = false;
        loop {
            match editor.commands.try_recv() {
                Ok(Command::ViewTaken) => editor.credit = true,
                Ok(Command::Shutdown) => {
                    gone = true;
                    break;
                }
                Ok(command) => {
                    let _ = self.commands.send(command);
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    gone = true;
                    break;
                }
            }
        }
        if gone {
            self.detach();
        }
    }

    /// The editor left: the game plays on without its breakpoints.
    fn detach(&mut self) {
        let Some(l) = &mut self.listening else { return };
        if l.editor.take().is_none() {
            return;
        }
        say(format_args!("the editor detached; the game goes on"));
        if let Some(live) = &self.live {
            for b in &live.breakpoints {
                self.send(Command::Breakpoints(BreakpointCommand::Remove(
                    b.breakpoint.id,
                )));
            }
            for b in &live.clock_breakpoints {
                self.send(Command::Breakpoints(BreakpointCommand::Remove(b.id)));
            }
        }
        self.send(Command::Run(Run::Play));
    }

    /// What the worker sent this frame: kept, and relayed to the editor.
    fn take_outbound(&mut self) {
        let mut editor = self.listening.as_mut().and_then(|l| l.editor.as_mut());
        let mut took_view = false;
        for message in self.outbound.try_iter() {
            match message {
                Outbound::Event(event) => {
                    match event.as_ref() {
                        Event::Loaded { .. } => self.loaded = Some((*event).clone()),
                        Event::Error(e) if self.errors.len() < MAX_ERRORS => {
                            self.errors.push(e.clone());
                        }
                        _ => {}
                    }
                    if let Some(editor) = &mut editor {
                        editor.held.push(Outbound::Event(event));
                    }
                }
                Outbound::Live(view) => {
                    took_view = true;
                    if let Some(editor) = &mut editor {
                        editor.stale = true;
                    }
                    self.live = Some(*view);
                }
                Outbound::Past(view) => {
                    if let Some(editor) = &mut editor {
                        editor.held.push(Outbound::Past(view));
                    }
                }
            }
        }
        let broken = editor.is_some_and(|editor| editor.flush(self.live.as_ref()));
        if took_view {
            self.send(Command::ViewTaken);
        }
        if broken {
            self.detach();
        }
    }
}

impl Attached {
    /// Sends what waits for the editor, at most every [`SEND_INTERVAL`]:
    /// the newest live view if it has one it was not sent and credit for
    /// it, then what the worker sent, in order (which waits while a view
    /// it has no credit for is the newest: module docs). True if the
    /// connection is gone.
    fn flush(&mut self, newest: Option<&LiveView>) -> bool {
        if self
            .last_sent
            .is_some_and(|at| at.elapsed() < SEND_INTERVAL)
        {
            return false;
        }
        // The newest view goes first if the editor was not sent it; the
        // rest waits behind it while the editor has no credit for it.
        let view = match newest {
            Some(_) if self.stale && !self.credit => return false,
            Some(view) if self.stale => Some(view),
            _ => None,
        };
        if view.is_none() && self.held.is_empty() {
            return false;
        }
        self.last_sent = Some(std::time::Instant::now());
        let mut broken = false;
        if let Some(view) = view {
            self.credit = false;
            self.stale = false;
            broken |= self
                .out
                .send(Outbound::Live(Box::new(view.clone())))
                .is_err();
        }
        for message in self.held.drain(..) {
            broken |= self.out.send(message).is_err();
        }
        broken
    }
}

/// A line on stderr (`stepframe debug: …`) that cannot stop the game: a
/// player the editor started (Run in player) writes to a pipe the editor
/// reads, which is closed once the editor quits, and `eprintln!` panics on
/// a failed write.
fn say(line: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "stepframe debug: {line}");
}

/// Accepts editors until the Debugger is gone: a refused one is logged
/// and the listener goes on.
fn accept_loop(listener: &LoopbackListener, to: &Sender<(HostEnd, Bridge)>) {
    loop {
        match listener.accept() {
            Ok(connection) => match link::serve(connection) {
                Ok(served) => {
                    if to.send(served).is_err() {
                        return;
                    }
                }
                Err(e) => say(format_args!("cannot serve an editor: {e}")),
            },
            Err(e) => say(format_args!("a connection was refused: {e}")),
        }
    }
}

/// Where an editor attaches, as a listening game prints it on one line of
/// its standard output (`attach 127.0.0.1:41873 token 9f0c…`): what a
/// person copies into the editor's Attach… dialog, and what the editor's
/// Run in player reads from the player it started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttachLine {
    /// The loopback address.
    pub addr: SocketAddr,
    /// The per-run token.
    pub token: Token,
}

impl std::fmt::Display for AttachLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "attach {} token {}", self.addr, self.token)
    }
}

/// A line that is not `attach ADDRESS token TOKEN`.
#[derive(Debug, thiserror::Error)]
#[error("not an attach line (`attach 127.0.0.1:PORT token HEX`): {0}")]
pub struct AttachLineError(String);

impl FromStr for AttachLine {
    type Err = AttachLineError;

    fn from_str(line: &str) -> Result<AttachLine, AttachLineError> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let ["attach", addr, "token", token] = words[..] else {
            return Err(AttachLineError(format!("{line:?}")));
        };
        let addr = addr
            .parse()
            .map_err(|e| AttachLineError(format!("address {addr:?}: {e}")))?;
        let token = token
            .parse()
            .map_err(|e| AttachLineError(format!("token: {e}")))?;
        Ok(AttachLine { addr, token })
    }
}
