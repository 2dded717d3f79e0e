//! The worker's share of the session's scripts: it owns the session's
//! [`ScriptHost`] (compile cache, line breakpoints, hits), applies the code
//! pane's [`ScriptCommand`]s to it, and publishes what the pane reads in
//! every view ([`ScriptsView`]).
//!
//! The host lives as long as the worker (and follows a restart through the
//! recovery point): a scene reload keeps breakpoints and compiled scripts,
//! and each scene gets a registry that resolves its script paths from its
//! own directory ([`stepframe_plugins::registry_for`]).

use std::path::Path;

use stepframe_core::Registry;
use stepframe_plugins::ScriptHost;

use super::Worker;
use crate::editor::protocol::{LoadedScript, ScriptCommand, ScriptsView};

impl Worker {
    /// The registry for a scene file: its scripts resolve from the scene's
    /// directory and compile into this session's host.
    pub(super) fn registry_for_scene(&self, scene: &Path) -> Registry {
        let dir = scene.parent().unwrap_or(Path::new("."));
        stepframe_plugins::registry_for(&self.scripts, dir)
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
