//! A journal done again ([`Command::Restore`](crate::protocol::Command::Restore)):
//! what a new host does to become the session an old one had (after it
//! died, or from a new build of the game). The journal's module docs say
//! what it holds; here is how it is done again.
//!
//! - Entries before the last `Start` belong to earlier scenes: only what
//!   outlives a load is done again (breakpoints, watches, script line
//!   breakpoints, the selection, the display rate, the history's budget).
//!   Frames and edits of an old scene cannot change the new one.
//! - From the last `Start` on, everything is done again in order: the scene
//!   loaded from the journal's text (or the file's, for a new build), the
//!   scripts with the text they had, every command and every frame with its
//!   dt. The pipeline is deterministic, so the session ends bit for bit
//!   where the old one was.
//! - `stop_after`: every call is capped at the end of that tick, and the
//!   session is left there, suspended: a restart after a fault at tick N
//!   stops at the end of tick N − 1, before the hook that took the old host
//!   down runs again. The whole journal is still done: what the user did
//!   while the session stood at that tick (an edit, a breakpoint, the
//!   selection) is kept.
//!
//! What the new host does is journaled again as it goes, so its own journal
//! is the one it was given (up to where it stopped): the front end takes
//! it as the session's from then on.
//!
//! A replay runs flat out, so it does only what its end needs: no live view
//! until it stands there (progress four times a second instead), its
//! telemetry and journal sent in batches rather than two messages a frame
//! (`outbox`'s `REPLAY_BATCH_FRAMES`), and no state hash of each tick,
//! which only the view reads: the last tick's is made once, at the end
//! (`Stepping::hash_ticks`). The front end still gets every frame's
//! record and every journal entry, in order.

use super::Worker;
use crate::protocol::{
    BreakpointCommand, Command, Event, JournalEntry, RewindCommand, Run, SessionStart,
};

/// How often a replay says how far it has got: four times a second, so a
/// progress bar moves smoothly and the events cost nothing next to the
/// replay.
const REPLAY_PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

impl Worker {
    /// Does `journal` again (module docs).
    pub(super) fn restore(
        &mut self,
        journal: Vec<JournalEntry>,
        stop_after: Option<u64>,
        fresh_files: bool,
    ) {
        let last_start = journal
            .iter()
            .rposition(|e| matches!(e, JournalEntry::Start(_)));
        let of = journal.len();
        self.out.set_replaying(true);
        // No view is shown until the end: only the last tick's hash is.
        self.run.hash_ticks(false);
        let mut told = std::time::Instant::now();
        let mut entries = journal.into_iter().enumerate();
        for (_, entry) in entries.by_ref().take(last_start.unwrap_or(0)) {
            if let JournalEntry::Command(command) = entry
                && outlives_a_load(&command)
            {
                self.handle(command);
            }
        }
        self.run.session.set_stop_after_tick(stop_after);
        // Every entry is done, even once the session stands at
        // `stop_after`: what the user did while it stood there (an edit, a
        // breakpoint, a selection) belongs to that tick, and the cap keeps
        // every later frame and step from running a tick past it.
        for (done, entry) in entries {
            self.out.replay_at(self.run.completed_ticks());
            if told.elapsed() >= REPLAY_PROGRESS_EVERY {
                told = std::time::Instant::now();
                self.out.event(Event::Replaying {
                    done,
                    of,
                    tick: self.run.completed_ticks(),
                });
            }
            match entry {
                JournalEntry::Start(start) => self.start_again(start, fresh_files),
                JournalEntry::Command(command) => {
                    self.handle(command);
                }
                JournalEntry::Frame { dt } => {
                    if !self.is_suspended() {
                        self.frame(dt);
                    }
                }
                JournalEntry::FileChanged { key, text } => {
                    if !fresh_files {
                        self.out.journal(JournalEntry::FileChanged {
                            key: key.clone(),
                            text: text.clone(),
                        });
                        self.reload_script(key, Ok(text));
                    }
                }
            }
            // A long journal is done flat out: nothing is drawn from its
            // views, but its events keep the front end's timeline whole.
            self.answer_requests();
        }
        self.run.session.set_stop_after_tick(None);
        if !self.is_suspended() {
            self.run.session.pause();
        }
        self.drain_ticks();
        self.run.hash_ticks(true);
        self.out.set_replaying(false);
        let tick = self.run.completed_ticks();
        self.out.event(Event::Restored {
            tick,
            asked: stop_after,
        });
        self.publish();
    }

    /// A journal's `Start`: the scene and its scripts as the session had
    /// them (or the files as they are now, for a new build).
    fn start_again(&mut self, start: SessionStart, fresh_files: bool) {
        let text = if fresh_files {
            None
        } else {
            for (key, text) in &start.scripts {
                // A script that no longer compiles is reported when the
                // scene loads it from its file.
                let _ = self.scripts.host.preload(key, text);
            }
            Some(start.text)
        };
        match start.reload {
            None => self.load(&start.path, text, start.play),
            Some(settings) => {
                // A reload keeps the settings in force: the ones it kept.
                let _ = self.run.session.set_settings(settings);
                if !start.play && !self.is_suspended() {
                    self.run.session.pause();
                }
                if let Err(message) = self.reload_scene(&start.path, text) {
                    self.out.error(crate::protocol::HostError::Scene(message));
                }
            }
        }
    }
}

/// Whether a command's effect outlives a new scene (module docs).
fn outlives_a_load(command: &Command) -> bool {
    match command {
        Command::Breakpoints(b) => !matches!(b, BreakpointCommand::ToggleFixed(_)),
        Command::Watches(_) | Command::Scripts(_) | Command::Select(_) => true,
        Command::Run(run) => matches!(run, Run::SetDisplayRate(_)),
        Command::Rewind(r) => matches!(r, RewindCommand::SetBudget(_)),
        _ => false,
    }
}
