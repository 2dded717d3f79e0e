//! The worker: the only owner of a session, split by feature.
//!
//! [`Worker`] is the join: it holds one value per feature, hands each
//! [`Command`] to the feature that owns what it changes, and runs the few
//! sequences that cross features (a load resets several of them, a rewind
//! ends branch B). Each feature owns its fields and its part of what is
//! published, in a file or folder of its own:
//!
//! | feature | file | owns |
//! |---|---|---|
//! | stepping | `stepping` | the [`Session`](stepframe_core::Session) (pipeline and rewind history), the display rate, input waiting for the next call, the state hash, the journal |
//! | breakpoints | `breakpoints` | each breakpoint's object by id and name, the hits labelled as they happened |
//! | watches | `watches` | the watch list, what it reported, the history fills of plotted watches |
//! | branch B | `branch_b/` | a what-if fork (its own pipeline) or a run compared with the live one |
//! | recording | `recording` | the session recording (input and edits by tick), the Input tab's draft tape |
//! | scene and files | `scene/` | the loaded scene, its file watched on disk, Save and Save As |
//! | scripts | `scripts` | the session's script host: compiled programs, line breakpoints |
//! | rewind and undo | `rewind` | past views asked for, Resume from here, Undo and Redo |
//! | flame | `flame` | a frame replayed with a zone per hook call |
//! | (publishing) | `outbox`, `view` | events in order, latest-wins views with one in flight |
//!
//! Plain logic: [`Worker::handle`] applies one command, [`Worker::frame`]
//! runs one outer frame of a given real dt (unless suspended: a paused
//! session does not call `step_frame`, so paused time advances neither
//! clock) and publishes what changed. Tests drive it synchronously, one
//! call per UI frame ([`Worker::pump`]); the host runs it on a thread paced
//! to its display rate (`thread`). Both run the same code.
//!
//! Ordering: telemetry and events go out as one stream in the order they
//! happened. A frame's telemetry is queued when the frame ends and flushed
//! before any event is sent, so a front end always has the record of the
//! frame a log line, a suspension or a load belongs to before it reads them.

mod branch_b;
mod breakpoints;
mod flame;
mod outbox;
mod recording;
mod restore;
mod rewind;
mod scene;
mod scripts;
mod stepping;
mod tap;
mod thread;
mod view;
mod watches;

use std::path::Path;
use std::sync::Arc;

use stepframe_core::{ObjectId, Registry};
use stepframe_plugins::ScriptHost;

use crate::protocol::{Command, DisplayRate, EditCommand, HostError, JournalEntry, Run, Target};

pub use outbox::{FrontEnd, HostEnd, Taken, Waker, channels};
pub use scene::SUSPENDED_LOOK_EVERY;
pub use thread::{WorkerThread, panic_text, run_here, spawn};

/// How a host makes the behaviour registry of a scene: the built-ins and a
/// game's own, with the session's script host and the scene's folder
/// (where its relative script paths start). A game's binary hands its own;
/// the host never names a behaviour itself.
pub type Registries = Arc<dyn Fn(&ScriptHost, &Path) -> Registry + Send + Sync>;

/// The session host's worker (module docs).
pub struct Worker {
    /// The session, the display rate, the input for the next call, the journal.
    run: stepping::Stepping,
    /// The loaded scene and its file.
    scene: scene::SceneFiles,
    /// The session's scripts.
    scripts: scripts::Scripts,
    /// The breakpoints' object names and the labelled hits.
    breakpoints: breakpoints::BreakpointBook,
    /// The watches.
    watches: watches::Watches,
    /// Branch B, while there is one.
    branch: branch_b::BranchB,
    /// The session recording and the draft tape.
    recording: recording::SessionRecording,
    /// Past views asked for.
    rewind: rewind::Rewind,
    /// A frame replay asked for.
    flame: flame::Flame,
    /// The inspector's object.
    selection: Option<ObjectId>,
    /// Everything sent to the front end, in order.
    out: outbox::Outbox,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("tick", &self.run.completed_ticks())
            .field("display_rate", &self.run.display_rate())
            .finish_non_exhaustive()
    }
}

impl Worker {
    /// A worker with an empty session, suspended; load a scene with
    /// [`SceneCommand::Load`](crate::protocol::SceneCommand::Load).
    /// `registries` makes each scene's behaviour registry.
    pub fn new(out: HostEnd, display_rate: DisplayRate, registries: Registries) -> Worker {
        let scripts = scripts::Scripts::new();
        let run = stepping::Stepping::new(display_rate);
        let run_suspension = run.session.pipeline().suspension().cloned();
        let scene = scene::SceneFiles::new(registries, &scripts.host);
        Worker {
            recording: recording::SessionRecording::new(run.settings().fixed_hz),
            run,
            scene,
            scripts,
            breakpoints: breakpoints::BreakpointBook::default(),
            watches: watches::Watches::default(),
            branch: branch_b::BranchB::default(),
            rewind: rewind::Rewind::default(),
            flame: flame::Flame::default(),
            selection: None,
            // The empty session starts paused; that is not news.
            out: outbox::Outbox::new(out, run_suspension),
        }
    }

    /// Announces every hook call of the session on `beacon`, for a watchdog
    /// on another thread or in another process, and the journal's length
    /// and newest frame as they are made (a front end adds back the frame
    /// a dead host never sent: `HookBeacon::note_journal`).
    pub fn set_hook_beacon(&mut self, beacon: stepframe_core::HookBeacon) {
        self.out.set_beacon(beacon.clone());
        self.run.set_hook_beacon(beacon);
    }

    /// The display rate the thread paces to.
    pub fn display_rate(&self) -> DisplayRate {
        self.run.display_rate()
    }

    /// True while the session is suspended (paused, stepped, at a breakpoint).
    pub fn is_suspended(&self) -> bool {
        self.run.is_suspended()
    }

    /// Applies every command waiting, answers the newest past-view and
    /// flame requests, then runs one frame of `raw_dt` seconds and
    /// publishes: the synchronous driver tests use. Returns false once a
    /// [`Command::Shutdown`] arrived or the front end is gone.
    pub fn pump(&mut self, raw_dt: f64) -> bool {
        loop {
            match self.out.try_command() {
                Ok(Some(command)) => {
                    if !self.handle(command) {
                        return false;
                    }
                }
                Ok(None) => break,
                Err(()) => return false,
            }
        }
        self.answer_requests();
        self.frame(raw_dt);
        // One span of a plotted watch's history fill a frame, as on the
        // thread (`watches`).
        self.fill_step();
        true
    }

    /// Applies one command. Returns false for [`Command::Shutdown`].
    pub fn handle(&mut self, command: Command) -> bool {
        if command != Command::ViewTaken {
            self.out.touch();
        }
        // Before the command's own journal entry, so a replay meets the
        // file's new text (`FileChanged`) before the step that ran it.
        if self.is_suspended()
            && matches!(
                command,
                Command::Run(Run::Play | Run::TogglePlay | Run::StepTick | Run::StepFrame)
            )
        {
            self.reload_before_a_call();
        }
        if journaled(&command) {
            self.out.journal(JournalEntry::Command(command.clone()));
        }
        match command {
            Command::Run(run) => self.run_command(run),
            Command::Edit {
                target: Target::Live,
                edit,
            } => self.edit_live(edit),
            Command::Edit {
                target: Target::B,
                edit,
            } => self.branch.edit(edit, &mut self.out),
            Command::Breakpoints(c) => self.breakpoints.handle(c, &mut self.run, &mut self.out),
            Command::Watches(c) => self.watches_command(c),
            Command::Rewind(c) => self.rewind_command(c),
            Command::BranchB(c) => self.branch_command(c),
            Command::Recording(c) => self.recording_command(c),
            Command::Scene(c) => self.scene_command(c),
            Command::Scripts(c) => self.scripts.command(c),
            Command::Flame(crate::protocol::FlameCommand::ReplayFrame(frame)) => {
                self.flame.request(frame)
            }
            Command::Select(id) => self.selection = id,
            Command::Restore {
                journal,
                stop_after,
                fresh_files,
            } => self.restore(journal, stop_after, fresh_files),
            Command::ViewTaken => self.out.view_taken(),
            Command::Shutdown => return false,
            #[cfg(feature = "test-hooks")]
            Command::DebugCrash => {
                panic!("DebugCrash: deliberate fault injection (a bug in the host itself)")
            }
        }
        // A new breakpoint names its object as the world has it now.
        self.breakpoints.take(self.run.session.pipeline());
        true
    }

    /// Runs one outer frame of `raw_dt` real seconds unless suspended,
    /// then publishes what changed.
    pub fn frame(&mut self, raw_dt: f64) {
        // A journal done again reads no file by itself: what the session
        // read from disk is in the journal (`FileChanged`), and a file
        // changed since must not slip into the replay.
        let replaying = self.out.replaying();
        if !replaying {
            self.look_at_scene_file();
        }
        if !self.is_suspended() {
            if !replaying {
                self.reload_changed_scripts();
            }
            self.out.journal(JournalEntry::Frame { dt: raw_dt });
            let (report, t0) = self.run.step_frame(raw_dt);
            self.after_call(report, raw_dt, t0);
            self.run.note_rate(raw_dt);
            self.out.touch();
        }
        self.publish();
    }

    /// Answers the newest flame and past-view requests (the live session
    /// untouched).
    pub fn answer_requests(&mut self) {
        self.flame
            .answer(&self.run.session, self.run.next_settings(), &mut self.out);
        self.answer_view_request();
    }

    /// A stepping command: play, pause, steps, time settings, input.
    fn run_command(&mut self, run: Run) {
        match run {
            Run::Play => self.play(),
            Run::Pause => self.run.session.pause(),
            Run::TogglePlay => {
                if self.is_suspended() {
                    self.play();
                } else {
                    self.run.session.pause();
                }
            }
            Run::StepTick => {
                let (report, t0) = self.run.step_tick();
                self.after_call(report, 0.0, t0);
            }
            Run::StepFrame => {
                let dt = self.run.display_rate().nominal_dt();
                let (report, t0) = self.run.step_one_frame(dt);
                self.after_call(report, dt, t0);
            }
            Run::Set(setting) => {
                if let Some(edit) = self.run.change_setting(setting, &mut self.out) {
                    self.apply_live(stepframe_core::Edit::Settings(edit));
                }
            }
            Run::SetDisplayRate(rate) => self.run.set_display_rate(rate),
            Run::Input(event) => self.run.push_input(event),
        }
    }

    /// Scripts changed on disk while suspended become reloads before the
    /// call that runs the next tick (a step or Play), as they do before a
    /// frame: a stepped tick never runs a script's old text after its file
    /// changed. A replay of the journal reads no file (its `FileChanged`
    /// entries come in order, before the step's own entry, instead).
    fn reload_before_a_call(&mut self) {
        if !self.out.replaying() {
            self.reload_changed_scripts();
        }
    }

    fn play(&mut self) {
        if self.is_suspended() {
            let (report, t0) = self.run.resume();
            self.after_call(report, 0.0, t0);
        }
    }

    /// What every call that moved the live session is followed by: its
    /// telemetry, the settings change it applied, the hits it recorded, and
    /// branch B run to the same tick.
    fn after_call(
        &mut self,
        report: stepframe_core::FrameReport,
        real_dt: f64,
        t0: std::time::Instant,
    ) {
        // Hits are labelled in the world they happened in.
        self.breakpoints.take(self.run.session.pipeline());
        if report.kind == stepframe_core::FrameKind::NotRun {
            return;
        }
        if let Some((before, settings)) = self.run.settings_change(report.ticks) {
            self.recording.record_edit_at(
                before,
                stepframe_core::Edit::Settings(settings),
                &mut self.out,
            );
        }
        self.out.frame(self.run.telemetry(report, real_dt, t0));
        self.drain_ticks();
        if let Some(error) = self.branch.follow(&self.run, real_dt) {
            self.out.error(error);
        }
        self.drain_branch();
    }

    /// A change of the live session from the inspector, the hierarchy or
    /// the code pane.
    fn edit_live(&mut self, edit: EditCommand) {
        match edit {
            EditCommand::Pose(object, pose) => {
                self.apply_live(stepframe_core::Edit::Pose { object, pose });
            }
            EditCommand::Velocity(object, velocity) => {
                self.apply_live(stepframe_core::Edit::Velocity { object, velocity });
            }
            EditCommand::Params {
                object,
                index,
                params,
            } => self.edit_params(object, index, params),
            EditCommand::Enabled(object, enabled) => {
                self.apply_live(stepframe_core::Edit::Enabled { object, enabled });
            }
            EditCommand::Duplicate(object) => self.duplicate(object),
            EditCommand::Remove(object) => {
                self.apply_live(stepframe_core::Edit::Remove { object });
            }
            EditCommand::Script { key, text } => self.reload_script(key, Ok(text)),
            EditCommand::Tape { .. } => self.out.error(HostError::EditRefused {
                target: Target::Live,
                reason: "an edited tape reaches the live session through Resume from here"
                    .to_string(),
                script_file: false,
            }),
        }
    }
}

/// Whether a command changes the session, so a new host doing the journal
/// again must do it too (`protocol::journal`). Reads (a past view, a frame
/// replay, a comparison, Find previous), writes to files, and what only
/// concerns this front end's view of the host are left out.
fn journaled(command: &Command) -> bool {
    use crate::protocol::{RecordingCommand, RewindCommand};
    match command {
        Command::Run(_)
        | Command::Edit { .. }
        | Command::Breakpoints(_)
        | Command::Scripts(_)
        | Command::Select(_) => true,
        Command::Watches(w) => !matches!(w, crate::protocol::WatchCommand::FindPrevious { .. }),
        Command::Rewind(r) => !matches!(r, RewindCommand::ViewTick(_)),
        // A comparison replaces a fork, so it is journaled with the rest;
        // sending the run only reads, and a run from another build is
        // another process's, not this session's input.
        Command::BranchB(b) => !matches!(
            b,
            crate::protocol::BranchCommand::SendRun { .. }
                | crate::protocol::BranchCommand::CompareWithTicks { .. }
        ),
        Command::Recording(r) => !matches!(r, RecordingCommand::Save { .. }),
        // A load or reload is journaled as the `Start` it makes; a save
        // changes files, not the session.
        Command::Scene(_) => false,
        Command::Flame(_) | Command::ViewTaken | Command::Shutdown | Command::Restore { .. } => {
            false
        }
        #[cfg(feature = "test-hooks")]
        Command::DebugCrash => false,
    }
}
