//! Fix, rebuild, replay: the session again with a new build of the game,
//! to the same tick, beside the old build's.
//!
//! Rust has no hot reload, but a session is a deterministic recording. The
//! session host runs in a child process started from the game's executable
//! on disk, so after a `cargo build` a new host can be started from the new
//! file while the old one still runs:
//!
//! 1. **Noticing.** Twice a second the editor looks at the program's file
//!    (length and modification time, [`BuildId::of_executable`]). A file
//!    that differs from the running host's build and then stays the same
//!    for [`SETTLED_FOR`] (a linker writes it in pieces) is a new build:
//!    the editor says "a new build of mygame is ready" and offers **Replay
//!    with the new build** (Ctrl+Shift+R), or does it at once when the
//!    setting says so.
//! 2. **Replaying.** A new host is started from the file and sent the
//!    session's journal with `fresh_files` (the scene and scripts read again
//!    from their files, so new parameters and defaults take effect): it does
//!    the session again to where the old one stands, suspended there, and
//!    a past tick on screen stays on screen (the new build's history shows
//!    it). The old host goes on meanwhile and everything it shows stays; the toolbar
//!    shows the new host's progress in ticks per second, and Esc cancels.
//!    What the new host sends is held until it stands at the tick.
//! 3. **Refusing.** A build that fails its handshake (another protocol
//!    version), a scene that no longer loads, an edit that no longer applies
//!    (its object or parameter gone) or a host that dies on the way: the
//!    new host is stopped, the error names the file and line or the tick,
//!    and the old session stays as it was. That build is not offered (nor
//!    replayed automatically) again; the next one is.
//! 4. **Swapping.** Once the new host stands at the tick, it becomes the
//!    session (the old process ends), its held messages are taken in order
//!    (the timeline is rebuilt from its frames and marked "new build"), and
//!    the old build's run up to that tick, which the old host sent
//!    meanwhile (`BranchCommand::SendRun`), becomes branch B: the divergence
//!    lanes show where the builds first differ at the same input, the
//!    inspector's A/B table names the fields, and *Discard B* drops it.
//!
//! Breakpoints, watches and the selection come back from the journal;
//! bookmarks, the layout and the panels are the editor's and never left.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use stepframe_core::LogLevel;
use stepframe_host::protocol::{BranchCommand, Command, Event, Outbound, RUN_BATCH_TICKS};
use stepframe_host::traced::TracedTick;
use stepframe_host::wire::BuildId;
use stepframe_host::worker::FrontEnd;

use super::Editor;
use super::host::{self, Running};
use super::intake::ViewNames;
use crate::editor::shared::{NewBuild, RebuildProgress};
use crate::editor::words;

/// How often the program's file is looked at.
pub const LOOK_EVERY: Duration = Duration::from_millis(500);

/// How long a changed file must stay the same to count as a build: a
/// linker writes the file in pieces, and a half-written executable must
/// not be started.
pub const SETTLED_FOR: Duration = Duration::from_millis(1_000);

/// The host program's file, watched for a new build.
#[derive(Debug)]
pub(super) struct BuildWatch {
    /// The file.
    program: PathBuf,
    /// The build the running host was started from.
    running: BuildId,
    /// A different file, and when it was first seen as it is now.
    seen: Option<(BuildId, Instant)>,
    /// When the file was last looked at.
    looked: Option<Instant>,
    /// A settled new build, not yet used.
    ready: Option<BuildId>,
    /// A build that could not do the session: not offered again (nor
    /// tried again automatically) until the file changes once more.
    refused: Option<BuildId>,
}

impl BuildWatch {
    /// Watches `program`, whose build the host now running was started from.
    pub(super) fn new(program: PathBuf) -> BuildWatch {
        let running = BuildId::of_executable(&program);
        BuildWatch {
            program,
            running,
            seen: None,
            looked: None,
            ready: None,
            refused: None,
        }
    }

    /// The program's file name, as the user calls the game.
    fn name(&self) -> String {
        self.program.file_name().map_or_else(
            || self.program.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    /// Looks at the file (at most every [`LOOK_EVERY`]); true when a new
    /// build has just settled.
    fn look(&mut self, now: Instant) -> bool {
        if self
            .looked
            .is_some_and(|t| now.duration_since(t) < LOOK_EVERY)
        {
            return false;
        }
        self.looked = Some(now);
        let on_disk = BuildId::of_executable(&self.program);
        // A file being written, or gone for a moment, is not a build.
        if on_disk.exe_bytes == 0 || on_disk == self.running {
            self.seen = None;
            return false;
        }
        if self.ready.as_ref() == Some(&on_disk) || self.refused.as_ref() == Some(&on_disk) {
            return false;
        }
        match &self.seen {
            Some((id, since)) if *id == on_disk => {
                if now.duration_since(*since) >= SETTLED_FOR {
                    self.ready = Some(on_disk);
                    self.seen = None;
                    return true;
                }
                false
            }
            _ => {
                self.seen = Some((on_disk, now));
                false
            }
        }
    }
}

/// A replay of the session with a new build, while it runs (module docs).
pub(super) struct Rebuild {
    /// The new host's channels.
    front: FrontEnd,
    /// The new host.
    running: Running,
    /// The build it runs.
    build: BuildId,
    /// What it sent, held until it stands at the tick.
    held: Vec<Outbound>,
    /// The tick it replays to: the old session's live tick.
    target: u64,
    /// The past tick on screen when it began, shown again at the end.
    viewing: Option<u64>,
    /// When it was started.
    started: Instant,
    /// The completed tick it has reached.
    reached: u64,
    /// What went wrong on the way, tick first.
    problems: Vec<String>,
    /// It stands at the tick.
    restored: bool,
    /// A live view of where it stands came after that (the one shown at
    /// the swap, so no panel shows its empty start for a frame).
    shown: bool,
    /// The old build's run, as the old host sent it.
    old_run: Vec<TracedTick>,
    /// All of the old build's run has come (or none will: its host is gone).
    old_run_complete: bool,
}

impl Editor {
    /// Each frame: looks at the program's file for a new build, and moves a
    /// replay with one on. Never waits.
    pub(super) fn watch_build(&mut self, ctx: &egui::Context) {
        let Some(watch) = &mut self.build_watch else {
            return;
        };
        // Look again even when nothing else asks for a frame.
        ctx.request_repaint_after(LOOK_EVERY);
        if watch.look(Instant::now()) {
            let name = watch.name();
            self.feedback.notify(
                LogLevel::Info,
                format!("a new build of {name} is ready: Ctrl+Shift+R replays the session with it"),
            );
            if self.persisted.replay_new_builds {
                self.replay_new_build();
            }
        }
        self.poll_rebuild();
        let watch = self.build_watch.as_ref();
        self.published.new_build = watch
            .filter(|w| w.ready.is_some() && self.rebuild.is_none())
            .map(|w| NewBuild {
                program: w.name(),
                automatic: self.persisted.replay_new_builds,
            });
    }

    /// Starts replaying the session with the new build (module docs).
    pub(super) fn replay_new_build(&mut self) {
        if self.rebuild.is_some() {
            return;
        }
        let Some(watch) = &self.build_watch else {
            return;
        };
        let Some(build) = watch.ready.clone() else {
            self.feedback
                .notify(LogLevel::Info, "no new build of the game to replay with");
            return;
        };
        let name = watch.name();
        let live = self.published.live.as_ref();
        let Some(target) = live.map(|l| l.world.clock.simulation_tick) else {
            return;
        };
        let rate = live.map_or(self.persisted.display_rate, |v| v.display_rate);
        let (front, running) = match host::start(&self.driver, rate, &self.registries, &self.waker)
        {
            Ok(started) => started,
            Err(e) => {
                self.feedback.error(format!(
                    "the new build of {name} cannot be used: {e:#}; the session stays with the \
                     build it runs"
                ));
                if let Some(w) = &mut self.build_watch {
                    w.refused = w.ready.take();
                }
                return;
            }
        };
        // The whole journal: the new session stands where the old one
        // stood, and a past tick on screen stays on screen (`finish`).
        front.send(Command::Restore {
            journal: self.published.journal.clone(),
            stop_after: None,
            fresh_files: true,
        });
        // The old build's run, for B: only a host that still runs has it.
        let old_alive = !matches!(self.running, Running::Stopped);
        if old_alive {
            self.commands
                .send(Command::BranchB(BranchCommand::SendRun { upto: target }));
        }
        self.feedback.log.push(
            LogLevel::Info,
            None,
            format!(
                "replaying the session with the new build of {name} up to tick {target}; the \
                 old build's session stays until it is there"
            ),
        );
        self.rebuild = Some(Rebuild {
            front,
            running,
            build,
            held: Vec::new(),
            target,
            viewing: self.cursor.tick,
            started: Instant::now(),
            reached: 0,
            problems: Vec::new(),
            restored: false,
            shown: false,
            old_run: Vec::new(),
            old_run_complete: !old_alive,
        });
        self.published.rebuild = Some(RebuildProgress {
            tick: 0,
            target,
            ticks_per_s: 0.0,
        });
    }

    /// A batch of the old build's run, from the old host.
    pub(super) fn on_old_run(&mut self, ticks: Vec<TracedTick>, last: bool) {
        if let Some(r) = &mut self.rebuild {
            r.old_run.extend(ticks);
            r.old_run_complete |= last;
        }
    }

    /// Takes what the new host sent, and swaps it in once it stands at the
    /// tick (or gives up on it).
    fn poll_rebuild(&mut self) {
        let Some(r) = &mut self.rebuild else {
            return;
        };
        let names = ViewNames(self.published.live.as_ref());
        let stopped = r.running.poll(&names);
        for line in r.running.printed() {
            let stream = if line.stderr { "stderr" } else { "stdout" };
            self.feedback.log.push(
                LogLevel::Info,
                None,
                format!("new build's host {stream}: {}", line.text),
            );
        }
        while let Ok(message) = r.front.inbound.try_recv() {
            if let Outbound::Live(_) = &message {
                // Held views are taken: the host may send the next, so the
                // view of where it stands is here at the swap.
                r.front.send(Command::ViewTaken);
                r.shown |= r.restored;
            }
            if let Outbound::Event(event) = &message {
                match &**event {
                    Event::Replaying { tick, .. } => r.reached = *tick,
                    Event::ReplayError { tick, error } => r
                        .problems
                        .push(format!("at tick {tick}: {}", words::error(error))),
                    Event::Restored { tick, .. } => {
                        r.reached = *tick;
                        r.restored = true;
                    }
                    _ => {}
                }
            }
            r.held.push(message);
        }
        let seconds = r.started.elapsed().as_secs_f64();
        self.published.rebuild = Some(RebuildProgress {
            tick: r.reached,
            target: r.target,
            ticks_per_s: if seconds > 0.0 {
                r.reached as f64 / seconds
            } else {
                0.0
            },
        });
        if let Some(first) = r.problems.first().cloned() {
            self.cancel_rebuild(&format!(
                "the new build cannot do the session again: {first}"
            ));
        } else if let Some(stopped) = stopped {
            self.cancel_rebuild(&format!("the new build's session host stopped: {stopped}"));
        } else if r.restored
            && r.shown
            && (r.old_run_complete || matches!(self.running, Running::Stopped))
        {
            self.finish_rebuild();
        }
    }

    /// Gives up on the replay: the new host stops and the old session stays.
    pub(super) fn cancel_rebuild(&mut self, why: &str) {
        // Dropping the host stops it (a child is killed).
        let Some(r) = self.rebuild.take() else {
            return;
        };
        // A build that failed is not offered again until the next one; a
        // replay the user cancelled can be asked for again.
        if why != "cancelled"
            && let Some(w) = &mut self.build_watch
            && w.ready.as_ref() == Some(&r.build)
        {
            w.refused = w.ready.take();
        }
        drop(r);
        self.published.rebuild = None;
        let text =
            format!("replay with the new build stopped ({why}); the old build's session stays");
        if why == "cancelled" {
            self.feedback.notify(LogLevel::Info, text);
        } else {
            self.feedback.error(text);
        }
    }

    /// The new host stands at the tick: it becomes the session, and the
    /// old build's run becomes B (module docs).
    fn finish_rebuild(&mut self) {
        let Some(r) = self.rebuild.take() else {
            return;
        };
        let name = self
            .build_watch
            .as_ref()
            .map_or_else(String::new, BuildWatch::name);
        let seconds = r.started.elapsed().as_secs_f64();
        // The old host goes: a child process ends when dropped.
        self.running = r.running;
        self.front = r.front;
        self.commands.reconnect(self.front.commands.clone());
        if let Some(w) = &mut self.build_watch {
            w.running = r.build;
            w.ready = None;
        }
        self.published.rebuild = None;
        self.published.new_build = None;
        self.published.worker_stopped = None;
        self.published.worker_stuck = None;
        self.sighting = None;
        // The new host's journal is the session's from now on.
        self.published.journal.clear();
        self.follow_live();
        for message in r.held {
            // The notice below says where it stands, with the build.
            if let Outbound::Event(e) = &message
                && matches!(**e, Event::Restored { .. })
            {
                continue;
            }
            // Its views were taken as they came (`poll_rebuild`).
            let _ = self.take(message);
        }
        // Its progress events are taken, its end is said below.
        self.published.replaying = None;
        if let Some(tick) = r.viewing {
            self.view_tick(tick);
        }
        self.panels.timeline.mark_new_build(
            &self.published.frames,
            format!(
                "new build of {name}: the session replayed with it to tick {}",
                r.reached
            ),
        );
        let b = !r.old_run.is_empty();
        if b {
            let b_name = format!("the previous build of {name}");
            let mut rest = r.old_run.into_iter().peekable();
            loop {
                let ticks: Vec<TracedTick> = rest.by_ref().take(RUN_BATCH_TICKS).collect();
                let last = rest.peek().is_none();
                self.commands
                    .send(Command::BranchB(BranchCommand::CompareWithTicks {
                        name: b_name.clone(),
                        ticks,
                        last,
                    }));
                if last {
                    break;
                }
            }
        }
        let rate = if seconds > 0.0 {
            format!(", {:.0} ticks/s", r.reached as f64 / seconds)
        } else {
            String::new()
        };
        self.feedback.notify(
            LogLevel::Info,
            format!(
                "replayed the session with the new build of {name} to tick {} in {seconds:.1} s{rate}, \
                 suspended there{}",
                r.reached,
                if b {
                    ": B is the previous build, beside it"
                } else {
                    ""
                }
            ),
        );
    }
}
