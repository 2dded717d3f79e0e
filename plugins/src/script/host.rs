//! [`ScriptHost`]: everything scripts share within one session, and nothing
//! they share with another.
//!
//! A session (the editor's worker, one `stepframe play`, one check, a test)
//! makes one host and builds its registry with it
//! ([`crate::registry_for`]); every Script behaviour the registry makes keeps
//! a handle to that host. The host holds:
//!
//! - the compile cache (one AST per script key, its generations, hot reload;
//!   see `cache.rs`) and its change counter;
//! - the line breakpoints and their hits ([`ScriptBreakpoints`]);
//! - how many hook calls ran on each engine ([`CallCounts`]).
//!
//! Two hosts share nothing: a breakpoint set in one session does not stop
//! another running the same file, and a reload in one leaves the other's
//! program as it was. A handle is cheap to clone (an `Arc`); a snapshot of a
//! session clones its behaviours and so keeps pointing at the same host, which
//! is what rewind and a restarted editor worker need.
//!
//! # Where the script file is found
//!
//! A Script factory gets a [`ScriptContext`]: the host and the directory of
//! the scene being loaded. A relative `path` is looked up under the scene's
//! assets directory ([`assets_dir`]: the parent of a `scenes/` directory,
//! `assets/scenes/demo.ron` → `assets/`, else the scene's own directory),
//! then under the scene's directory itself; the first existing file wins, and
//! an error names the first candidate. An absolute path is used as is. The
//! resolved, canonical path is the script's **key** ([`script_key`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::ScriptError;
use super::breakpoints::ScriptBreakpoints;
use super::cache::Cache;
use super::ir;

/// The scripts of one session: compile cache, breakpoints and call counts
/// (see module docs). Clones are handles to the same host.
#[derive(Clone, Debug, Default)]
pub struct ScriptHost {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    cache: Cache,
    breakpoints: ScriptBreakpoints,
    /// typed, rhai.
    counts: [AtomicU64; 2],
    /// Scripts with `hot_reload` check their file at frame boundaries (a
    /// fork's host does not: see [`ScriptHost::fork`]).
    detached: bool,
    /// Scripts with `hot_reload` do not check their files (see
    /// [`ScriptHost::set_watch_files`]).
    unwatched: std::sync::atomic::AtomicBool,
    /// The session's history decides which version each Script runs (see
    /// [`ScriptHost::set_managed`]): Scripts adopt a new version only
    /// through a reload edit, never by themselves at a frame boundary.
    managed: std::sync::atomic::AtomicBool,
    /// The files of Scripts with `hot_reload`: what a managed host's owner
    /// polls ([`ScriptHost::changed_files`]).
    watched: std::sync::Mutex<std::collections::BTreeSet<String>>,
}

/// Which engine ran a hook call (see [`CallCounts`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Engine {
    Typed = 0,
    Rhai = 1,
}

/// How many hook calls ran on each path (see [`ScriptHost::call_counts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallCounts {
    /// Typed register code (`typed/`).
    pub typed: u64,
    /// rhai itself (functions outside the subset, breakpoints, bails, and
    /// calls whose types the typed code was not made for).
    pub rhai: u64,
}

/// How one hook function of a script runs while no breakpoint is set in it
/// (what the editor's code pane shows next to the file).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HookEngine {
    /// The function: `fixed_update`, `on_contact`, ...
    pub hook: std::borrow::Cow<'static, str>,
    /// On the compiled path (typed register code); else on rhai.
    pub compiled: bool,
    /// Why it stays on rhai (with the line), when it does.
    pub why_not: Option<String>,
}

impl ScriptHost {
    /// A host with nothing loaded and no breakpoint.
    pub fn new() -> ScriptHost {
        ScriptHost::default()
    }

    /// Whether two handles reach the same host.
    pub fn same(&self, other: &ScriptHost) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The session's line breakpoints and hits.
    pub fn breakpoints(&self) -> &ScriptBreakpoints {
        &self.inner.breakpoints
    }

    pub(crate) fn cache(&self) -> &Cache {
        &self.inner.cache
    }

    /// [`script_key`] of `path`, without asking the file system when `path`
    /// is a loaded script's key already: the editor's worker names scripts
    /// by their keys several times a frame (the code pane's view), and
    /// canonicalising walks every component of the path with a system call
    /// (3.6% of a flat-out game loop's time in `readlink` alone).
    fn key(&self, path: &Path) -> String {
        let text = path.to_string_lossy();
        if self.cache().has(&text) {
            return text.into_owned();
        }
        script_key(path)
    }

    /// Counts one hook call on `engine`. A load and a store, not an atomic
    /// add: this runs on every hook call, a session's hooks run on one thread
    /// at a time, and the counts are diagnostics (two threads sharing a host,
    /// as `check`'s runs of one scene do, may lose a count, never the state).
    pub(crate) fn count(&self, engine: Engine) {
        let c = &self.inner.counts[engine as usize];
        c.store(c.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }

    /// How many Script hook calls of this session ran on each path so far.
    /// Diagnostics for tests and benches; not part of any state.
    pub fn call_counts(&self) -> CallCounts {
        let [typed, rhai] = &self.inner.counts;
        CallCounts {
            typed: typed.load(Ordering::Relaxed),
            rhai: rhai.load(Ordering::Relaxed),
        }
    }

    /// Recompiles a script file now. On success every Script behaviour of
    /// this session running it adopts the new program at its next outer
    /// frame boundary; on failure (a syntax error, with line and column) the
    /// old program keeps running and the error is returned, kept for
    /// [`ScriptHost::compile_error`] and logged once.
    pub fn reload(&self, path: impl AsRef<Path>) -> Result<(), ScriptError> {
        self.cache().reload(&self.key(path.as_ref()))
    }

    /// Compiles `text` as the new version of a loaded script, without
    /// writing or reading its file: what "run in B" of the editor's code pane
    /// does to a fork's host. Adopted as [`ScriptHost::reload`]'s program is;
    /// a syntax error keeps the old program, as there.
    pub fn reload_text(&self, path: impl AsRef<Path>, text: &str) -> Result<(), ScriptError> {
        self.cache().reload_text(&self.key(path.as_ref()), text)
    }

    /// Compiles `text` as script file `path`'s program, as if the file held
    /// it when a Script first loaded it (a new session host doing a
    /// journal again uses the text the first session compiled, not the file
    /// as it is now, which the user may have edited since). A script
    /// already loaded keeps its program.
    pub fn preload(&self, path: impl AsRef<Path>, text: &str) -> Result<(), ScriptError> {
        self.cache().preload(&self.key(path.as_ref()), text)
    }

    /// A host for a what-if branch of this session (the editor's fork):
    /// the same programs, no breakpoints, zero counts, and sharing nothing
    /// with this one from now on. Its scripts do not watch their files, so
    /// a Save of the file reaches the live session only and the branch
    /// changes only through [`ScriptHost::reload_text`]. Rebind the
    /// branch's Script behaviours with [`crate::Script::rebind`].
    pub fn fork(&self) -> ScriptHost {
        ScriptHost {
            inner: Arc::new(Inner {
                cache: self.cache().fork(),
                breakpoints: ScriptBreakpoints::default(),
                counts: Default::default(),
                detached: true,
                unwatched: Default::default(),
                managed: Default::default(),
                watched: Default::default(),
            }),
        }
    }

    /// This host's programs become `fork`'s (the fork was adopted): its
    /// breakpoints, counts and file watching stay; rebind the adopted
    /// session's Script behaviours to this host.
    pub fn adopt_programs(&self, fork: &ScriptHost) {
        self.cache().adopt(fork.cache());
    }

    /// Makes this host's versions the session history's to choose: a Script
    /// adopts a new version of its file only when a reload edit
    /// (`stepframe_core::Edit::Reload`) reaches it, which the history logs
    /// and replays, so a past view or a rewind runs every tick with the
    /// version it ran live. The editor's worker manages its session's host;
    /// a headless run's Scripts adopt changes at frame boundaries as before.
    pub fn set_managed(&self, managed: bool) {
        self.inner
            .managed
            .store(managed, std::sync::atomic::Ordering::Release);
    }

    /// See [`ScriptHost::set_managed`].
    pub(crate) fn managed(&self) -> bool {
        self.inner
            .managed
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Notes that a Script with `hot_reload` runs this file.
    pub(crate) fn watch(&self, key: &str) {
        self.inner
            .watched
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key.to_string());
    }

    /// The files Scripts with `hot_reload` run that changed on disk since
    /// they were last compiled, with their new text (or why it could not be
    /// read), in key order; each change once. Nothing is compiled: the owner
    /// of a managed host reloads through its history.
    pub fn changed_files(&self) -> Vec<(String, Result<String, ScriptError>)> {
        let keys: Vec<String> = self
            .inner
            .watched
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .cloned()
            .collect();
        self.cache().changed_texts(&keys)
    }

    /// Whether Scripts with `hot_reload` check their file at each outer
    /// frame boundary (the default) or run the version they loaded until a
    /// reload reaches them ([`ScriptHost::reload`], a reload edit).
    ///
    /// Why a session would turn it off: a run that goes flat out (`check`,
    /// `soak`, `bench`, `play` without `--realtime`) is then the same run
    /// whenever a file is saved during it (a `check` would otherwise report
    /// the user's edit as a divergence), and it spends nothing on looking:
    /// the `metadata` call per script file per frame was 3% of demo.ron's
    /// headless play, at thousands of frames a second.
    pub fn set_watch_files(&self, on: bool) {
        self.inner
            .unwatched
            .store(!on, std::sync::atomic::Ordering::Release);
    }

    /// Whether scripts with `hot_reload` check their files (see
    /// [`ScriptHost::fork`] and [`ScriptHost::set_watch_files`]).
    pub(crate) fn watches_files(&self) -> bool {
        !self.inner.detached
            && !self
                .inner
                .unwatched
                .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Recompiles every loaded script file whose modification time or length
    /// changed; returns the paths tried and their outcome, in path order. The
    /// editor's worker calls this between frames; Script behaviours with
    /// `hot_reload` also check their own file at each outer frame boundary.
    pub fn reload_changed(&self) -> Vec<(PathBuf, Result<(), ScriptError>)> {
        self.cache().reload_changed()
    }

    /// The first run-time failure of a hook of the program in force for a
    /// script, if any: a reload (a new program) clears it.
    pub fn failure(&self, path: impl AsRef<Path>) -> Option<super::ScriptFailure> {
        self.cache().failure(&self.key(path.as_ref()))
    }

    /// A hook of program `generation` of script `key` failed at run time.
    pub(crate) fn record_failure(&self, key: &str, generation: u64, failure: super::ScriptFailure) {
        self.cache().record_failure(key, generation, failure);
    }

    /// The last failed compile of a script, if no good one came after it.
    pub fn compile_error(&self, path: impl AsRef<Path>) -> Option<ScriptError> {
        self.cache().compile_error(&self.key(path.as_ref()))
    }

    /// The text of the program in force for a script (what its line numbers
    /// refer to), or the file's text if it was never loaded: what a code pane
    /// shows.
    pub fn source(&self, path: impl AsRef<Path>) -> Result<String, ScriptError> {
        self.cache().source(&self.key(path.as_ref()))
    }

    /// The keys of every script loaded in this host, in key order.
    pub fn keys(&self) -> Vec<String> {
        self.cache().keys()
    }

    /// The text of the program in force for a loaded script (shared, not
    /// copied); `None` when the script is not loaded (never reads the file).
    pub fn loaded_text(&self, path: impl AsRef<Path>) -> Option<Arc<str>> {
        let program = self.cache().loaded(&self.key(path.as_ref()))?;
        Some(program.text.clone())
    }

    /// The engines the hook functions of a loaded script run on, in hook
    /// order; empty when the script is not loaded.
    pub fn hook_engines(&self, path: impl AsRef<Path>) -> Vec<HookEngine> {
        let Some(program) = self.cache().loaded(&self.key(path.as_ref())) else {
            return Vec::new();
        };
        let h = &program.hooks;
        let defined = [h.start, h.update, h.flow_tick, h.fixed_update];
        let mut out: Vec<HookEngine> = ir::HOOKS
            .iter()
            .enumerate()
            .filter(|&(i, _)| defined[i])
            .map(|(i, &(hook, _))| HookEngine {
                hook: hook.into(),
                compiled: program.fast.hooks[i].is_some(),
                why_not: program
                    .fast
                    .rejected
                    .iter()
                    .find(|(n, _)| *n == hook || *n == "*")
                    .map(|(_, why)| why.clone()),
            })
            .collect();
        if h.on_contact {
            out.push(HookEngine {
                hook: "on_contact".into(),
                compiled: false,
                why_not: Some("its `kind` argument is text (strings)".to_string()),
            });
        }
        out
    }
}

/// What a Script factory knows of the session it builds for: the session's
/// host and the directory of the scene being loaded (see module docs).
#[derive(Clone, Debug)]
pub struct ScriptContext {
    /// The session's scripts.
    pub host: ScriptHost,
    /// The directory holding the scene file (relative paths start here).
    pub scene_dir: PathBuf,
}

impl ScriptContext {
    /// The context of a scene in `scene_dir`, for `host`'s session.
    pub fn new(host: &ScriptHost, scene_dir: impl Into<PathBuf>) -> ScriptContext {
        ScriptContext {
            host: host.clone(),
            scene_dir: scene_dir.into(),
        }
    }

    /// Where a script path points (see module docs): the first existing
    /// candidate, or the first candidate when none exists (so an error names
    /// a sensible path).
    pub fn resolve(&self, path: &Path) -> PathBuf {
        resolve_in(&self.scene_dir, path)
    }

    /// The key of a script path named by this scene (see [`script_key`]).
    pub fn key(&self, path: &Path) -> String {
        if path.to_string_lossy().starts_with("inline:") {
            return path.to_string_lossy().into_owned();
        }
        script_key(&self.resolve(path))
    }
}

/// The `assets/` directory of a scene directory: its parent when it is
/// called `scenes` (`assets/scenes` → `assets`), else the directory itself
/// (`.` for an empty path). The one place this rule lives: the player, the
/// editor's code pane and the Script factory all use it.
pub fn assets_dir(scene_dir: &Path) -> PathBuf {
    let root = match (scene_dir.file_name(), scene_dir.parent()) {
        (Some(name), Some(parent)) if name == "scenes" => parent,
        _ => scene_dir,
    };
    if root.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        root.to_path_buf()
    }
}

/// [`ScriptContext::resolve`] for a scene directory.
pub fn resolve_in(scene_dir: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    let assets = assets_dir(scene_dir);
    let candidates = [assets.join(path), scene_dir.join(path)];
    candidates
        .iter()
        .find(|c| c.is_file())
        .unwrap_or(&candidates[0])
        .clone()
}

/// The key of a script: its path, canonical when the file exists (a relative
/// path is taken from the working directory; resolve a scene's paths with
/// [`ScriptContext::key`]). Keys of inline scripts (`inline:...`) are kept as
/// they are, so any spelling of a file reaches the same script.
pub fn script_key(path: &Path) -> String {
    let text = path.to_string_lossy();
    if text.starts_with("inline:") {
        return text.into_owned();
    }
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}
