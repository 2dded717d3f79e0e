//! Scripts: the session's [`ScriptHost`] (compile cache, line breakpoints,
//! hits). The feature applies the code pane's [`ScriptCommand`]s to it,
//! turns a new version of a script into a reload edit of the history, and
//! sends what the pane reads ([`ScriptsView`]) whenever it changed.
//!
//! The host lives as long as the worker: a scene reload keeps breakpoints
//! and compiled scripts, and each scene gets a registry that resolves its
//! script paths from its own directory.

use stepframe_core::Edit;
use stepframe_plugins::ScriptHost;
use stepframe_plugins::script::ScriptError;

use super::Worker;
use super::outbox::Outbox;
use crate::protocol::{
    Event, HostError, JournalEntry, LoadedScript, Notice, ScriptCommand, ScriptsView, Target,
};

/// The session's scripts (module docs).
pub(super) struct Scripts {
    /// The session's script host (shared with its Script behaviours).
    pub(super) host: ScriptHost,
    /// The last rejected breakpoint edit (key, line, why).
    rejected: Option<(String, usize, String)>,
    /// What the front end was last sent.
    sent: Option<ScriptsView>,
}

impl Scripts {
    /// A host whose versions the history chooses: a changed file becomes a
    /// reload edit, never a silent swap a replay misses.
    pub(super) fn new() -> Scripts {
        let host = ScriptHost::new();
        host.set_managed(true);
        Scripts {
            host,
            rejected: None,
            sent: None,
        }
    }

    /// Applies one change to the session's line breakpoints.
    pub(super) fn command(&mut self, command: ScriptCommand) {
        let table = self.host.breakpoints();
        match command {
            ScriptCommand::Toggle { key, line } => {
                table.toggle(&key, line);
            }
            ScriptCommand::Remove { key, line } => {
                table.remove(&key, line);
            }
            ScriptCommand::Edit {
                key,
                line,
                condition,
                log_message,
            } => {
                let result = table
                    .set_condition(&key, line, condition.as_deref())
                    .and_then(|()| table.set_log_message(&key, line, log_message.as_deref()));
                self.rejected = result.err().map(|e| (key, line, e.to_string()));
            }
        }
    }

    /// Every loaded script's key and the text of its program in force, in
    /// key order (what a journal's `Start` keeps).
    pub(super) fn texts(&self) -> Vec<(String, String)> {
        self.host
            .keys()
            .into_iter()
            .filter_map(|key| {
                let text = self.host.loaded_text(&key)?;
                Some((key, text.to_string()))
            })
            .collect()
    }

    /// What the code pane sees of the scripts now.
    fn view(&self) -> ScriptsView {
        let host = &self.host;
        let loaded = host
            .keys()
            .into_iter()
            .filter_map(|key| {
                Some(LoadedScript {
                    text: host.loaded_text(&key)?.to_string(),
                    compile_error: host.compile_error(&key),
                    failure: host.failure(&key),
                    engines: host.hook_engines(&key),
                    key,
                })
            })
            .collect();
        ScriptsView {
            breakpoints: host.breakpoints().all(),
            last_hit: host.breakpoints().last_hit(),
            loaded,
            rejected: self.rejected.clone(),
        }
    }

    /// Sends the view if it changed since the last one sent.
    pub(super) fn publish(&mut self, out: &mut Outbox) {
        let now = self.view();
        if self.sent.as_ref() != Some(&now) {
            self.sent = Some(now.clone());
            out.event(Event::Scripts(now));
        }
    }
}

impl Worker {
    /// Scripts with `hot_reload` whose files changed on disk: each change a
    /// reload edit, at the frame boundary the session is at (and a journal
    /// entry with the text read, which a replay uses instead of the disk).
    pub(super) fn reload_changed_scripts(&mut self) {
        for (key, text) in self.scripts.host.changed_files() {
            if let Ok(text) = &text {
                self.out.journal(JournalEntry::FileChanged {
                    key: key.clone(),
                    text: text.clone(),
                });
            }
            self.reload_script(key, text.map_err(|e: ScriptError| e.to_string()));
        }
    }

    /// New text for a script the session runs, as a call of the history
    /// ([`Edit::Reload`]), so that every past view, rewind and saved session
    /// recording runs each tick with the version it ran live. The code
    /// pane shows the new text; one that does not compile is no edit at
    /// all (the old version keeps running, the pane shows the error).
    pub(super) fn reload_script(&mut self, key: String, text: Result<String, String>) {
        let refused = |reason: String| HostError::Script {
            target: Target::Live,
            reason,
        };
        let text = match text {
            Ok(text) => text,
            Err(e) => {
                self.out.error(refused(e));
                return;
            }
        };
        let host = &self.scripts.host;
        // The file watcher and the pane's Save both see one save: the second
        // finds the text in force and is no edit. A save of the text in force
        // after a failed one is no edit either, but it clears the failed
        // version's error.
        if host.loaded_text(&key).as_deref() == Some(text.as_str()) {
            if host.compile_error(&key).is_some() {
                let _ = host.reload_text(&key, &text);
                self.out.notice(Notice::ScriptReloaded(key));
            }
            return;
        }
        let before = host.loaded_text(&key);
        if let Err(e) = host.reload_text(&key, &text) {
            self.out.error(refused(e.to_string()));
            return;
        }
        let edit = Edit::Reload {
            resource: key.clone(),
            text,
        };
        match self.run.session.edit(edit.clone().into()) {
            Ok(()) => {
                let at = self.run.completed_ticks() + 1;
                self.recording.record_edit_at(at, edit, &mut self.out);
                self.run.session.log_line(
                    stepframe_core::LogLevel::Info,
                    format!("{key}: reloaded before tick {at}"),
                );
                self.out.notice(Notice::ScriptReloaded(key));
            }
            Err(e) => {
                // No Script took it (its top level failed): the version in
                // force stays the one they run, so a later save retries.
                if let Some(before) = before {
                    let _ = self.scripts.host.reload_text(&key, &before);
                }
                self.out.error(refused(e.to_string()));
            }
        }
    }
}

/// Every Script behaviour of `pipeline` runs on `host` from now on.
pub(super) fn rebind_scripts(pipeline: &mut stepframe_core::Pipeline, host: &ScriptHost) {
    pipeline.for_each_behaviour_mut(|_, b| {
        if let Some(script) = b.downcast_mut::<stepframe_plugins::Script>() {
            script.rebind(host);
        }
    });
}
