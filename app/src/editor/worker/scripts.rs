//! The worker's share of the session's scripts: it owns the session's
//! [`ScriptHost`] (compile cache, line breakpoints, hits), applies the code
//! pane's [`ScriptCommand`]s to it, and publishes what the pane reads in
//! every view ([`ScriptsView`]).
//!
//! The host lives as long as the worker (and follows a restart through the
//! recovery point): a scene reload keeps breakpoints and compiled scripts,
//! and each scene gets a registry that resolves its script paths from its
//! own directory ([`crate::Behaviours::registry_for`], the built-ins and a
//! game's own).

use std::path::Path;

use stepframe_core::{Edit, Registry};
use stepframe_plugins::ScriptHost;
use stepframe_plugins::script::ScriptError;

use super::Worker;
use crate::editor::protocol::{Event, LoadedScript, ScriptCommand, ScriptsView};

impl Worker {
    /// The registry for a scene file: its scripts resolve from the scene's
    /// directory and compile into this session's host.
    pub(super) fn registry_for_scene(&self, scene: &Path) -> Registry {
        self.behaviours
            .registry_for(&self.scripts, scene_dir(scene))
    }

    /// The registry of the open scene on `host` (a fork's own host).
    pub(super) fn registry_on(&self, host: &ScriptHost) -> Registry {
        match self.scene.as_ref() {
            Some(scene) => self.behaviours.registry_for(host, scene_dir(&scene.path)),
            None => self.behaviours.registry_for(host, Path::new(".")),
        }
    }

    /// Applies one change to the session's line breakpoints.
    pub(super) fn script_command(&mut self, command: ScriptCommand) {
        let table = self.scripts.breakpoints();
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
                self.script_rejected = result.err().map(|e| (key, line, e.to_string()));
            }
        }
    }

    /// The code pane's Reload (or Save) of a script file: its text as it is
    /// on disk now becomes a reload edit.
    pub(super) fn reload_script_file(&mut self, path: &Path) {
        let key = stepframe_plugins::script::script_key(path);
        let text = std::fs::read_to_string(&key).map_err(|e| format!("{key}: {e}"));
        self.reload_script(key, text);
    }

    /// Scripts with `hot_reload` whose files changed on disk: each change a
    /// reload edit, at the frame boundary the session is at.
    pub(super) fn reload_changed_scripts(&mut self) {
        for (key, text) in self.scripts.changed_files() {
            self.reload_script(key, text.map_err(|e: ScriptError| e.to_string()));
        }
    }

    /// New text for a script the session runs, as a call of the history
    /// ([`Edit::Reload`]), so that every past view, rewind and saved session
    /// recording runs each tick with the version it ran live. The code
    /// pane shows the new text; one that does not compile is no edit at
    /// all (the old version keeps running, the pane shows the error).
    fn reload_script(&mut self, key: String, text: Result<String, String>) {
        let text = match text {
            Ok(text) => text,
            Err(e) => {
                self.error(format!("script not reloaded: {e}"));
                return;
            }
        };
        // The file watcher and the pane's Reload both see one save: the
        // second finds the text in force and is no edit. A save of the text
        // in force after a failed one is no edit either, but it clears the
        // failed version's error.
        if self.scripts.loaded_text(&key).as_deref() == Some(text.as_str()) {
            if self.scripts.compile_error(&key).is_some() {
                let _ = self.scripts.reload_text(&key, &text);
                self.send_event(Event::ScriptReloaded(key.into()));
            }
            return;
        }
        let before = self.scripts.loaded_text(&key);
        if let Err(e) = self.scripts.reload_text(&key, &text) {
            self.error(format!("script not reloaded: {e}"));
            return;
        }
        let edit = Edit::Reload {
            resource: key.clone(),
            text,
        };
        match self.session.edit(edit.clone().into()) {
            Ok(()) => {
                self.record_edit(edit);
                let at = self.session.pipeline().stepper().completed_ticks() + 1;
                self.session.log_line(
                    stepframe_core::LogLevel::Info,
                    format!("{key}: reloaded before tick {at}"),
                );
                self.send_event(Event::ScriptReloaded(key.into()));
            }
            Err(e) => {
                // No Script took it (its top level failed): the version in
                // force stays the one they run, so a later save retries.
                if let Some(before) = before {
                    let _ = self.scripts.reload_text(&key, &before);
                }
                self.error(format!("script not reloaded: {e}"));
            }
        }
    }

    /// What the code pane sees of the scripts now.
    pub(super) fn scripts_view(&self) -> ScriptsView {
        let host: &ScriptHost = &self.scripts;
        let loaded = host
            .keys()
            .into_iter()
            .filter_map(|key| {
                Some(LoadedScript {
                    text: host.loaded_text(&key)?,
                    compile_error: host.compile_error(&key),
                    engines: host.hook_engines(&key),
                    key,
                })
            })
            .collect();
        ScriptsView {
            breakpoints: host.breakpoints().all(),
            last_hit: host.breakpoints().last_hit(),
            loaded,
            rejected: self.script_rejected.clone(),
        }
    }
}

/// The directory a scene's scripts resolve from.
fn scene_dir(scene: &Path) -> &Path {
    scene.parent().unwrap_or(Path::new("."))
}

/// Every Script behaviour of `pipeline` runs on `host` from now on.
pub(super) fn rebind_scripts(pipeline: &mut stepframe_core::Pipeline, host: &ScriptHost) {
    pipeline.for_each_behaviour_mut(|_, b| {
        if let Some(script) = b.downcast_mut::<stepframe_plugins::Script>() {
            script.rebind(host);
        }
    });
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use crate::editor::protocol::{Command, Pacing, ScriptCommand};
    use crate::editor::worker::{self, Worker};

    const DT: f64 = 1.0 / 60.0;

    /// Line 22 of `patrol.rhai`: `let next = x + dir * speed * dt;`, the
    /// first statement of `fixed_update` after the `started` block.
    const PATROL_LINE: usize = 22;

    fn scripts_scene() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/scenes/scripts.ron")
    }

    #[test]
    fn a_script_breakpoint_set_through_a_restarted_worker_stops_the_restored_session() {
        let (ui, end) = worker::channels();
        let mut w = Worker::new(end, Pacing::Hz(60), None);
        ui.commands
            .send(Command::Load(scripts_scene()))
            .expect("the worker end is alive");
        assert!(w.pump(DT));
        // The load's recovery point, and the patrol's key from the view.
        let point = ui.recovery.try_iter().last().expect("the load's point");
        let view = ui.views.try_iter().last().expect("a view");
        let patrol = view
            .scripts
            .loaded
            .iter()
            .find(|s| s.key.ends_with("patrol.rhai"))
            .expect("the scene runs patrol.rhai")
            .key
            .clone();

        // The restarted worker's session is the snapshot's: its Script
        // behaviours must see the breakpoints the new worker sets.
        let (ui2, end2) = worker::channels();
        let mut w2 = Worker::restart(end2, Pacing::Hz(60), None, point);
        ui2.commands
            .send(Command::Script(ScriptCommand::Toggle {
                key: patrol.clone(),
                line: PATROL_LINE,
            }))
            .expect("alive");
        ui2.commands.send(Command::Play).expect("alive");
        let mut stopped = None;
        for _ in 0..10 {
            assert!(w2.pump(DT));
            let view = ui2.views.try_iter().last();
            if let Some(v) = view.filter(|v| v.scripts.last_hit.is_some()) {
                stopped = Some(v);
                break;
            }
        }
        let view = stopped.expect("the breakpoint stopped the restored session");
        let hit = view.scripts.last_hit.as_ref().expect("a hit");
        assert_eq!(
            (hit.path.as_str(), hit.line),
            (patrol.as_str(), PATROL_LINE)
        );
        assert!(view.suspension.is_some(), "suspended at the hit");
        let lines: Vec<usize> = view.scripts.lines(&patrol).iter().map(|b| b.line).collect();
        assert_eq!(lines, vec![PATROL_LINE]);
    }
}
