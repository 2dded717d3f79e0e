//! Compiled scripts by key, shared by every Script behaviour of one session
//! (one [`super::ScriptHost`]), and hot reload.
//!
//! A script file is compiled once per host and the AST shared (scene
//! loading calls a behaviour's factory more than once: to check the scene, then
//! to build the world). Each compile that succeeds gets a new generation
//! number; a Script behaviour notices a newer generation at its next outer
//! frame boundary (its `start` or `update` hook) and adopts it (see
//! [`crate::script`] for what happens to its state).
//!
//! A compile that fails changes nothing: the last good program stays in force,
//! the error (with line and column) is kept for the editor
//! ([`compile_error`]), returned by [`reload`], and written to the session log
//! once by the first Script behaviour of that file to reach a frame boundary.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use rhai::{AST, ImmutableString};

use super::engines::engines;
use super::ir::{FastProgram, Tag};
use super::lower;
use super::typed::{self, Typed};
use super::{ScriptError, ScriptErrorKind};

/// Locks a mutex of the cache; every change under it is a single insert or
/// field update, so a panic elsewhere leaves the data consistent and a
/// poisoned lock is still usable.
fn lock_any<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Which hooks a script defines (checked once per compile, so a call for a
/// hook the script lacks costs nothing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Hooks {
    pub(crate) start: bool,
    pub(crate) update: bool,
    pub(crate) flow_tick: bool,
    pub(crate) fixed_update: bool,
    pub(crate) on_contact: bool,
}

/// One compiled version of a script.
#[derive(Debug)]
pub(crate) struct Program {
    pub(crate) ast: AST,
    /// The key: the AST's source and the hits' path.
    pub(crate) source: ImmutableString,
    /// Increases with every successful compile in this host (from 1).
    pub(crate) generation: u64,
    pub(crate) hooks: Hooks,
    /// The text compiled.
    pub(crate) text: Arc<str>,
    /// Its hook functions on the compiled path, where they qualify.
    pub(crate) fast: FastProgram,
    /// Typed specialisations made so far: (hook, state types, argument types,
    /// code). Every behaviour running this program shares them, so a hundred
    /// patrols run one copy of the code (it stays in the cache).
    pub(crate) typed: Mutex<Vec<Specialisation>>,
    /// The outer frame its file was last checked for changes, or
    /// [`NEVER_POLLED`]; [`NOT_A_FILE`] for source text with no file. Lets
    /// behaviours skip the cache lock when nothing can have changed.
    pub(crate) polled_frame: AtomicU64,
}

/// Typed code made for one hook (by index) and the state and argument
/// types it was made for.
pub(crate) type Specialisation = (usize, Vec<Tag>, Vec<Tag>, Arc<Typed>);

/// See [`Program::polled_frame`].
pub(crate) const NEVER_POLLED: u64 = u64::MAX;
/// See [`Program::polled_frame`].
pub(crate) const NOT_A_FILE: u64 = u64::MAX - 1;

impl Program {
    /// The typed code of hook `hook` for these types, made once per program.
    pub(crate) fn specialised(
        &self,
        hook: usize,
        state: &[Tag],
        args: &[Tag],
    ) -> Option<Arc<Typed>> {
        let mut made = lock_any(&self.typed);
        if let Some((.., t)) = made
            .iter()
            .find(|(h, s, a, _)| *h == hook && s == state && a == args)
        {
            return Some(t.clone());
        }
        let f = self.fast.hooks[hook].as_ref()?;
        let t = Arc::new(typed::specialise(f, state, args).ok()?);
        // Bounded: a script whose types keep changing stops specialising
        // after a few per behaviour anyway.
        if made.len() < 64 {
            made.push((hook, state.to_vec(), args.to_vec(), t.clone()));
        }
        Some(t)
    }
}

#[derive(Clone)]
struct Entry {
    program: Arc<Program>,
    /// Modification time and length of the file last compiled (None: not a file).
    stamp: Option<(SystemTime, u64)>,
    /// Outer frame of the last modification check (one check per frame).
    polled_frame: Option<u64>,
    /// The last failed compile, if it came after the last good one.
    error: Option<ScriptError>,
    /// Whether that error went to a session log already.
    error_logged: bool,
    /// The first run-time failure of a hook, with the generation of the
    /// program that failed: it stands only while that program is in force.
    failure: Option<(u64, super::ScriptFailure)>,
}

/// The compiled programs of one host, by key.
#[derive(Default)]
pub(crate) struct Cache {
    entries: Mutex<BTreeMap<String, Entry>>,
    /// Bumped by every change to the cache (a compile, a failed compile, a new
    /// script): a behaviour that saw the same value last frame and whose file
    /// was already checked this frame has nothing to refresh.
    changes: AtomicU64,
    /// The last generation handed out (0: none yet).
    generation: AtomicU64,
    /// Every version a reload edit adopted, by key: a replay of the edit
    /// (a past view, a rewind) adopts the very program the live call did,
    /// without compiling it again and without touching the version in
    /// force.
    versions: Mutex<BTreeMap<String, Vec<Arc<Program>>>>,
}

/// Most versions of one script kept for replays of reload edits.
const MAX_VERSIONS: usize = 64;

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cache")
            .field("scripts", &self.lock().keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// The hook functions and their parameter counts.
const HOOKS: [(&str, usize); 5] = [
    ("start", 0),
    ("update", 1),
    ("flow_tick", 1),
    ("fixed_update", 1),
    ("on_contact", 2),
];

/// Compiles source text under a key (the key becomes the AST's source), as
/// generation `generation`.
pub(crate) fn compile(key: &str, text: &str, generation: u64) -> Result<Program, ScriptError> {
    let mut ast = engines().plain.compile(text).map_err(|e| {
        let pos = e.position();
        ScriptError {
            kind: ScriptErrorKind::Syntax,
            path: key.to_string(),
            line: pos.line().unwrap_or(0),
            column: pos.position().unwrap_or(0),
            message: e.err_type().to_string(),
        }
    })?;
    ast.set_source(key);
    let mut hooks = Hooks::default();
    for f in ast.iter_functions() {
        let Some((name, arity)) = HOOKS.iter().find(|(n, _)| *n == f.name) else {
            continue;
        };
        if f.params.len() != *arity {
            let pos = function_position(&ast, name);
            return Err(ScriptError {
                kind: ScriptErrorKind::HookSignature,
                path: key.to_string(),
                line: pos.and_then(|p| p.line()).unwrap_or(1),
                column: pos.and_then(|p| p.position()).unwrap_or(1),
                message: format!(
                    "hook `{name}` must take {arity} parameter(s), it takes {}",
                    f.params.len()
                ),
            });
        }
        match *name {
            "start" => hooks.start = true,
            "update" => hooks.update = true,
            "flow_tick" => hooks.flow_tick = true,
            "fixed_update" => hooks.fixed_update = true,
            _ => hooks.on_contact = true,
        }
    }
    let fast = lower::compile(&ast);
    Ok(Program {
        fast,
        typed: Mutex::new(Vec::new()),
        polled_frame: AtomicU64::new(NEVER_POLLED),
        ast,
        source: key.into(),
        generation,
        hooks,
        text: Arc::from(text),
    })
}

fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

fn read(key: &str) -> Result<String, ScriptError> {
    std::fs::read_to_string(key).map_err(|e| ScriptError {
        kind: ScriptErrorKind::Io,
        path: key.to_string(),
        line: 0,
        column: 0,
        message: format!("cannot read the script: {e}"),
    })
}

impl Cache {
    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, Entry>> {
        lock_any(&self.entries)
    }

    /// See [`Cache::changes`](field@Cache::changes).
    pub(crate) fn changes(&self) -> u64 {
        self.changes.load(Ordering::Acquire)
    }

    fn changed(&self) {
        self.changes.fetch_add(1, Ordering::AcqRel);
    }

    fn compile(&self, key: &str, text: &str) -> Result<Program, ScriptError> {
        compile(
            key,
            text,
            self.generation.fetch_add(1, Ordering::Relaxed) + 1,
        )
    }

    /// The program of a script file, compiled on first use.
    pub(crate) fn load(&self, key: &str) -> Result<Arc<Program>, ScriptError> {
        if let Some(entry) = self.lock().get(key) {
            return Ok(entry.program.clone());
        }
        let stamp = stamp(Path::new(key));
        let program = Arc::new(self.compile(key, &read(key)?)?);
        let mut cache = self.lock();
        // Another thread may have compiled it meanwhile: keep the first.
        let entry = cache.entry(key.to_string()).or_insert(Entry {
            program,
            stamp,
            polled_frame: None,
            error: None,
            error_logged: false,
            failure: None,
        });
        self.changed();
        Ok(entry.program.clone())
    }

    /// Puts `text` in the cache as the program of the script file `key`, as
    /// if the file held it when it was first loaded (a new host doing a
    /// session's journal again uses the text the session compiled, not the
    /// file as it is now). The file's stamp now is kept, so a later change
    /// of the file still reloads it. A key already loaded is left alone.
    pub(crate) fn preload(&self, key: &str, text: &str) -> Result<(), ScriptError> {
        if self.lock().contains_key(key) {
            return Ok(());
        }
        let stamp = stamp(Path::new(key));
        let program = Arc::new(self.compile(key, text)?);
        let mut cache = self.lock();
        cache.entry(key.to_string()).or_insert(Entry {
            program,
            stamp,
            polled_frame: None,
            error: None,
            error_logged: false,
            failure: None,
        });
        self.changed();
        Ok(())
    }

    /// The program of source text that has no file (tests, benches, the
    /// editor's scratch scripts), registered under `key`. Registering different
    /// text under the same key compiles it as a new generation.
    pub(crate) fn load_source(&self, key: &str, text: &str) -> Result<Arc<Program>, ScriptError> {
        let mut cache = self.lock();
        if let Some(entry) = cache.get(key)
            && entry.stamp.is_none()
            && &*entry.program.text == text
        {
            return Ok(entry.program.clone());
        }
        let program = Arc::new(self.compile(key, text)?);
        program.polled_frame.store(NOT_A_FILE, Ordering::Relaxed);
        self.changed();
        cache.insert(
            key.to_string(),
            Entry {
                program: program.clone(),
                stamp: None,
                polled_frame: None,
                error: None,
                error_logged: false,
                failure: None,
            },
        );
        Ok(program)
    }

    fn recompile(&self, key: &str, entry: &mut Entry) -> Result<(), ScriptError> {
        let new_stamp = stamp(Path::new(key));
        let result = read(key).and_then(|text| self.compile(key, &text));
        entry.stamp = new_stamp;
        self.changed();
        match result {
            Ok(program) => {
                entry.program = Arc::new(program);
                entry.error = None;
                entry.error_logged = false;
                Ok(())
            }
            Err(e) => {
                entry.error = Some(e.clone());
                entry.error_logged = false;
                Err(e)
            }
        }
    }

    /// See [`super::ScriptHost::reload`].
    pub(crate) fn reload(&self, key: &str) -> Result<(), ScriptError> {
        let mut cache = self.lock();
        match cache.get_mut(key) {
            Some(entry) => self.recompile(key, entry),
            None => {
                drop(cache);
                self.load(key).map(|_| ())
            }
        }
    }

    /// See [`super::ScriptHost::reload_text`].
    pub(crate) fn reload_text(&self, key: &str, text: &str) -> Result<(), ScriptError> {
        let result = self.compile(key, text);
        let mut cache = self.lock();
        self.changed();
        match (cache.get_mut(key), result) {
            (Some(entry), Ok(program)) => {
                // The file's stamp stays: this text is not the file's, and a
                // later change of the file still reloads it.
                entry.program = Arc::new(program);
                entry.error = None;
                entry.error_logged = false;
                Ok(())
            }
            (Some(entry), Err(e)) => {
                entry.error = Some(e.clone());
                entry.error_logged = false;
                Err(e)
            }
            (None, _) => Err(ScriptError {
                kind: ScriptErrorKind::NotRunning,
                path: key.to_string(),
                line: 0,
                column: 0,
                message: "no running script has this file".to_string(),
            }),
        }
    }

    /// A cache holding the same programs, sharing nothing from now on.
    pub(crate) fn fork(&self) -> Cache {
        Cache {
            entries: Mutex::new(self.lock().clone()),
            changes: AtomicU64::new(self.changes()),
            generation: AtomicU64::new(self.generation.load(Ordering::Relaxed)),
            versions: Mutex::new(lock_any(&self.versions).clone()),
        }
    }

    /// This cache's programs become `from`'s (an adopted fork's). Each file
    /// counts as seen as it is now: the adopted programs are what the user
    /// chose, and only a later change of a file reloads it.
    pub(crate) fn adopt(&self, from: &Cache) {
        let mut entries = from.lock().clone();
        for (key, entry) in entries.iter_mut() {
            if entry.stamp.is_some() {
                entry.stamp = stamp(Path::new(key));
            }
        }
        let generation = from.generation.load(Ordering::Relaxed);
        *self.lock() = entries;
        self.generation.fetch_max(generation, Ordering::Relaxed);
        self.changed();
    }

    /// The program of `text` under `key`, for a reload edit: the version in
    /// force if it has this text, else one a reload edit adopted before,
    /// else a new compile. The version in force is left as it is (a replay
    /// of an old reload must not change what the code pane shows).
    pub(crate) fn version_for_text(
        &self,
        key: &str,
        text: &str,
    ) -> Result<Arc<Program>, ScriptError> {
        let current = self.loaded(key).filter(|p| &*p.text == text);
        let mut versions = lock_any(&self.versions);
        let kept = versions.entry(key.to_string()).or_default();
        if let Some(p) = kept.iter().find(|p| &*p.text == text) {
            return Ok(p.clone());
        }
        let program = match current {
            Some(p) => p,
            None => Arc::new(self.compile(key, text)?),
        };
        if kept.len() == MAX_VERSIONS {
            kept.remove(0);
        }
        kept.push(program.clone());
        Ok(program)
    }

    /// The watched files among `keys` whose modification time or length
    /// changed since they were last compiled, with their new text (or why it
    /// could not be read). Their stamps are taken: each change is reported
    /// once. Nothing is compiled: the caller reloads through its history.
    pub(crate) fn changed_texts(
        &self,
        keys: &[String],
    ) -> Vec<(String, Result<String, ScriptError>)> {
        let mut cache = self.lock();
        let mut out = Vec::new();
        for key in keys {
            let Some(entry) = cache.get_mut(key) else {
                continue;
            };
            let now = stamp(Path::new(key));
            if entry.stamp.is_some() && now != entry.stamp {
                entry.stamp = now;
                out.push((key.clone(), read(key)));
            }
        }
        out
    }

    /// See [`super::ScriptHost::reload_changed`].
    pub(crate) fn reload_changed(&self) -> Vec<(PathBuf, Result<(), ScriptError>)> {
        let mut cache = self.lock();
        let mut out = Vec::new();
        for (key, entry) in cache.iter_mut() {
            if entry.stamp.is_some() && stamp(Path::new(key)) != entry.stamp {
                out.push((PathBuf::from(key), self.recompile(key, entry)));
            }
        }
        out
    }

    /// Whether `key` is a loaded script's key.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.lock().contains_key(key)
    }

    /// Every key loaded, in order.
    pub(crate) fn keys(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    /// The program in force for a script, if it is loaded (never loads it).
    pub(crate) fn loaded(&self, key: &str) -> Option<Arc<Program>> {
        self.lock().get(key).map(|e| e.program.clone())
    }

    /// See [`super::ScriptHost::failure`]: the first failure of the
    /// program in force, if `generation` is still it.
    pub(crate) fn record_failure(&self, key: &str, generation: u64, failure: super::ScriptFailure) {
        let mut cache = self.lock();
        if let Some(entry) = cache.get_mut(key)
            && entry.program.generation == generation
            && entry.failure.as_ref().is_none_or(|(g, _)| *g != generation)
        {
            entry.failure = Some((generation, failure));
        }
    }

    /// See [`super::ScriptHost::failure`].
    pub(crate) fn failure(&self, key: &str) -> Option<super::ScriptFailure> {
        let cache = self.lock();
        let entry = cache.get(key)?;
        let (generation, failure) = entry.failure.as_ref()?;
        (*generation == entry.program.generation).then(|| failure.clone())
    }

    /// See [`super::ScriptHost::compile_error`].
    pub(crate) fn compile_error(&self, key: &str) -> Option<ScriptError> {
        self.lock().get(key).and_then(|e| e.error.clone())
    }

    /// See [`super::ScriptHost::source`].
    pub(crate) fn source(&self, key: &str) -> Result<String, ScriptError> {
        if let Some(entry) = self.lock().get(key) {
            return Ok(entry.program.text.to_string());
        }
        read(key)
    }

    /// At a frame boundary: checks the file once per outer frame (if `poll`),
    /// then returns the program in force and an error not yet logged.
    pub(crate) fn current(
        &self,
        key: &str,
        frame: u64,
        poll: bool,
    ) -> Option<(Arc<Program>, Option<ScriptError>)> {
        let mut cache = self.lock();
        let entry = cache.get_mut(key)?;
        if poll && entry.stamp.is_some() && entry.polled_frame != Some(frame) {
            entry.polled_frame = Some(frame);
            if stamp(Path::new(key)) != entry.stamp {
                // The outcome is kept in the entry (program or error).
                let _ = self.recompile(key, entry);
            }
            entry.program.polled_frame.store(frame, Ordering::Release);
        }
        let error = match (&entry.error, entry.error_logged) {
            (Some(e), false) => {
                entry.error_logged = true;
                Some(e.clone())
            }
            _ => None,
        };
        Some((entry.program.clone(), error))
    }
}

/// Where the body of the script function `name` opens: the place an error
/// is reported at when rhai kept none (see the parent module's docs).
pub(super) fn function_position(ast: &AST, name: &str) -> Option<rhai::Position> {
    ast.iter_fn_def()
        .find(|f| f.name == name)
        .map(|f| f.body.start_position())
        .filter(|p| !p.is_none())
}
