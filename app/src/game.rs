//! Your game in stepframe: [`Game`], the one call that gives a game's own
//! binary everything the `stepframe` binary has (the editor, `play`,
//! `check`, `trace-diff`, `soak`, `bench`), with the game's behaviours
//! registered beside the built-ins.
//!
//! ```no_run
//! # use stepframe_core::{Behaviour, Ctx, Inspect, scene::ParamsError};
//! # #[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, Inspect)]
//! # struct HopParams { height: f32 }
//! # #[derive(Clone, Debug, Inspect)]
//! # struct Hop { #[inspect(params)] params: HopParams }
//! # #[stepframe_core::behaviour]
//! # impl Behaviour for Hop {
//! #     fn fixed_update(&mut self, _ctx: &mut Ctx, _dt: f64) {}
//! # }
//! fn main() -> std::process::ExitCode {
//!     let behaviours = stepframe_app::Behaviours::built_in()
//!         .behaviour(|params: HopParams| Ok::<_, ParamsError>(Hop { params }));
//!     stepframe_app::Game::new("hopper")
//!         .behaviours(behaviours)
//!         .scene("assets/scenes/hop.ron")
//!         .run()
//! }
//! ```
//!
//! # Why a builder, and not `run(registry)`
//!
//! A [`Registry`] belongs to one session and one scene directory: its
//! `Script` factory captures the session's [`ScriptHost`] (compile cache,
//! line breakpoints) and resolves relative script paths from the scene's
//! directory. The editor builds a new one for every scene it opens and for
//! a what-if fork's own host; `check` builds one per scene, in parallel.
//! So a game cannot hand over *a* registry: it hands over how to add its
//! behaviours to any of them, which is what [`Behaviours`] keeps, and the
//! builder lets later options (a version string, a window title) be added
//! without breaking a game's `main`.
//!
//! # Names
//!
//! A behaviour is registered under its type's name (`Hop` is `"Hop"`,
//! derived by `#[stepframe_core::behaviour]`), written nowhere else, so the
//! name a scene uses, the registry's and `name()` cannot disagree. A game's
//! behaviour is registered after the built-ins, so one of the same name
//! replaces the built-in (a game's own `PlayerController`). A scene naming
//! a behaviour nobody registered is refused with the list of every
//! registered name, the game's included.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use serde::Serialize;
use serde::de::DeserializeOwned;
use stepframe_core::{Behaviour, Named, Registry};
use stepframe_plugins::ScriptHost;

use crate::player::Launch;

/// Adds a game's behaviours to a registry built for a scene directory.
type Recipe = Arc<dyn Fn(&mut Registry, &Path) + Send + Sync>;

/// The behaviours every session of a binary can name: the built-ins, then
/// the game's, in the order they were added. Cheap to clone (the recipes
/// are shared), so the editor hands a copy to each worker it starts.
#[derive(Clone, Default)]
pub struct Behaviours {
    /// The game's additions, applied after the built-ins.
    recipes: Vec<Recipe>,
}

impl std::fmt::Debug for Behaviours {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Behaviours")
            .field(
                "names",
                &self
                    .registry_for(&ScriptHost::new(), Path::new("."))
                    .names(),
            )
            .finish()
    }
}

/// Two sets are equal when they share the same recipes (clones of one set):
/// what `EditorConfig`'s comparison needs, without calling any of them.
impl PartialEq for Behaviours {
    fn eq(&self, other: &Behaviours) -> bool {
        self.recipes.len() == other.recipes.len()
            && self
                .recipes
                .iter()
                .zip(&other.recipes)
                .all(|(a, b)| Arc::ptr_eq(a, b))
    }
}

impl Behaviours {
    /// The built-in behaviours only (the `stepframe` binary's set).
    pub fn built_in() -> Behaviours {
        Behaviours::default()
    }

    /// Adds the behaviour type `B` with a typed parameter struct `P` (RON
    /// in the scene, `P::default()` for a new one), under `B`'s own name
    /// ([`Named`], which `#[stepframe_core::behaviour]` derives from the
    /// type: `Jumper` is `"Jumper"`): `build` checks the values and makes
    /// the behaviour, or says what is wrong (the loader places the message
    /// at the behaviour's parameters in the scene file). The name is written
    /// nowhere else, so the scene's name, the registry's and the
    /// behaviour's `name()` cannot disagree.
    pub fn behaviour<P, B, E>(
        self,
        build: impl Fn(P) -> Result<B, E> + Send + Sync + 'static,
    ) -> Behaviours
    where
        P: DeserializeOwned + Serialize + Default + 'static,
        B: Behaviour + Named + 'static,
        E: std::error::Error + 'static,
    {
        let build = Arc::new(build);
        self.with(move |registry, _| {
            let build = build.clone();
            registry.register_behaviour(move |p: P| build(p));
        })
    }

    /// [`Behaviours::behaviour`] under a name chosen at run time, for a
    /// type without a fixed name ([`Named`]): one type registered under
    /// several names, or a hand-written `name()` that returns a field. The
    /// registry refuses a behaviour whose `name()` is not `name` when it is
    /// made, so a mismatch is an error at the scene's behaviour name, not a
    /// parameter edit that later finds another behaviour.
    pub fn behaviour_named<P, B, E>(
        self,
        name: &str,
        build: impl Fn(P) -> Result<B, E> + Send + Sync + 'static,
    ) -> Behaviours
    where
        P: DeserializeOwned + Serialize + Default + 'static,
        B: Behaviour + 'static,
        E: std::error::Error + 'static,
    {
        let name = name.to_string();
        let build = Arc::new(build);
        self.with(move |registry, _| {
            let build = build.clone();
            registry.register_typed::<P, E>(name.clone(), move |p| {
                build(p).map(|b| Box::new(b) as Box<dyn Behaviour>)
            });
        })
    }

    /// Adds whatever `recipe` registers into a session's registry, given
    /// the scene's directory: for factories that need it (level data beside
    /// the scene), or raw-text ones ([`Registry::register`]).
    pub fn with(
        mut self,
        recipe: impl Fn(&mut Registry, &Path) + Send + Sync + 'static,
    ) -> Behaviours {
        self.recipes.push(Arc::new(recipe));
        self
    }

    /// The registry of a session whose scripts `host` holds, for a scene in
    /// `scene_dir`: the built-ins ([`stepframe_plugins::registry_for`]),
    /// then the game's.
    pub fn registry_for(&self, host: &ScriptHost, scene_dir: &Path) -> Registry {
        let mut registry = stepframe_plugins::registry_for(host, scene_dir);
        for recipe in &self.recipes {
            recipe(&mut registry, scene_dir);
        }
        registry
    }

    /// The registry of a batch session of its own (a fresh script host)
    /// for the scene file `scene`: what `check`, `soak`, `bench` and `play`
    /// without `--realtime` load with. Its Scripts run the version of their
    /// file loaded at the start, so the run is the same whenever a file is
    /// saved during it ([`ScriptHost::set_watch_files`] says why).
    pub fn registry_for_scene(&self, scene: &Path) -> Registry {
        let host = ScriptHost::new();
        host.set_watch_files(false);
        self.registry_for(&host, scene.parent().unwrap_or(Path::new(".")))
    }

    /// How a session host makes each scene's registry from these
    /// behaviours (the host names no behaviour itself).
    pub fn registries(&self) -> stepframe_host::Registries {
        let behaviours = self.clone();
        Arc::new(move |host, dir| behaviours.registry_for(host, dir))
    }

    /// [`Behaviours::registry_for_scene`] for a session that follows the
    /// wall clock (`play --realtime`): its Scripts with `hot_reload` check
    /// their file once per frame and adopt a saved change, as in the editor.
    pub fn registry_for_live_scene(&self, scene: &Path) -> Registry {
        let dir = scene.parent().unwrap_or(Path::new("."));
        self.registry_for(&ScriptHost::new(), dir)
    }
}

/// A game's binary: its name, its behaviours and the scene it opens by
/// default. See the module docs.
#[derive(Clone, Debug)]
pub struct Game {
    /// The game's name: in `--help` and usage lines, the editor's and the
    /// player's window titles, and the app ids, which name the folders
    /// their layout and settings are saved in (so two games never share
    /// one).
    name: &'static str,
    /// Built-ins and the game's.
    behaviours: Behaviours,
    /// What `edit` (and no sub-command) opens without a scene argument.
    scene: Option<PathBuf>,
}

impl Game {
    /// A binary called `name` with the built-in behaviours, opening the
    /// bundled demo by default. `name` is the game's everywhere a person
    /// sees one: `--help`, the editor window's title, and the app id its
    /// saved layout and settings are kept under (`~/.local/share/<name>` on
    /// Linux), so each game keeps its own.
    pub fn new(name: &'static str) -> Game {
        Game {
            name,
            behaviours: Behaviours::built_in(),
            scene: None,
        }
    }

    /// The game's behaviour set, replacing the built-ins alone: the one way
    /// a game hands its behaviours over, so the set it builds in one place
    /// ([`Behaviours::behaviour`], [`Behaviours::with`]) is the set its
    /// tests share.
    pub fn behaviours(mut self, behaviours: Behaviours) -> Game {
        self.behaviours = behaviours;
        self
    }

    /// The scene `edit` opens when none is given. A relative path is looked
    /// up when the binary runs, not when it is built: under the working
    /// folder first, then next to the executable ([`find_scene`]), so a
    /// game started from its crate (`cargo run`) and one shipped as a
    /// folder beside its binary both find it, and no path of the machine
    /// that built it is baked in.
    pub fn scene(mut self, scene: impl Into<PathBuf>) -> Game {
        self.scene = Some(scene.into());
        self
    }

    /// The behaviours this binary's sessions can name.
    pub fn registered(&self) -> &Behaviours {
        &self.behaviours
    }

    /// Parses the process's command line and runs the sub-command; the
    /// editor when there is none. The headless sub-commands run their
    /// session in a supervised child of this executable, which names an
    /// abort, a stack overflow, an allocation failure or a stuck hook
    /// (`crate::player::supervise`); in that child, this call finds its
    /// supervisor's fault marker and runs the session itself.
    pub fn run(self) -> ExitCode {
        crate::editor::mark_start();
        let args: Vec<OsString> = std::env::args_os().collect();
        let launch = match stepframe_host::supervise::child_beacon() {
            Ok(Some(beacon)) => Launch::Here(Some(beacon)),
            Ok(None) => Launch::Supervise(args.clone()),
            Err(e) => {
                eprintln!("{}: {e}", self.name);
                return ExitCode::from(1);
            }
        };
        self.run_as(args, &launch)
    }

    /// [`Game::run`] on the given command line (its first item is the
    /// program name): how tests drive a game's binary without spawning it.
    /// Everything runs in this process, as with `--in-process` (this
    /// process's executable is the caller's, a test harness, which has no
    /// sub-commands to run in a child). `--help`, `--version` and bad
    /// arguments print and exit the process, as clap does.
    pub fn run_from<I, T>(self, args: I) -> ExitCode
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        self.run_as(args, &Launch::Here(None))
    }

    fn run_as<I, T>(self, args: I, launch: &Launch) -> ExitCode
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let matches = Cli::command()
            .name(self.name)
            .bin_name(self.name)
            .get_matches_from(args);
        let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
        let default_scene = || {
            self.scene
                .as_deref()
                .map_or_else(crate::default_scene, |scene| {
                    let exe = std::env::current_exe().ok();
                    let exe_dir = exe.as_deref().and_then(Path::parent);
                    find_scene(scene, Path::new("."), exe_dir)
                })
        };
        let behaviours = &self.behaviours;
        match cli.command {
            None => crate::editor::run(
                self.name,
                default_scene(),
                None,
                false,
                behaviours.clone(),
                false,
            ),
            Some(Command::Edit {
                scene,
                history_mib,
                in_process,
                exit_after_first_frame,
            }) => crate::editor::run(
                self.name,
                scene.unwrap_or_else(default_scene),
                history_mib,
                in_process,
                behaviours.clone(),
                exit_after_first_frame,
            ),
            Some(Command::Play(args)) => crate::player::run(args, behaviours, launch),
            Some(Command::Run(args)) => crate::run::run(self.name, args, behaviours),
            Some(Command::TraceDiff(args)) => crate::tools::trace_diff(args),
            Some(Command::Check(args)) => crate::tools::check(
                args,
                matches.subcommand_matches("check"),
                behaviours,
                launch,
            ),
            Some(Command::Bench(args)) => crate::bench::run(args, behaviours, launch),
            Some(Command::Soak(args)) => crate::soak::run(args, behaviours, launch),
            Some(Command::Host) => crate::host_process::run(behaviours, launch.beacon()),
        }
    }
}

/// Where a game's default scene is: `scene` itself when absolute; else
/// under `working` (the working folder) if it is there, else next to the
/// executable (in `exe_dir`) if it is there, else under `working`, so the
/// error that follows names the path a person expects.
///
/// `assets/scenes/level.ron` run from the game's crate with `cargo run`
/// is found under the crate (the working folder); the same binary copied
/// to `dist/` beside `dist/assets/` finds `dist/assets/scenes/level.ron`
/// from any working folder.
pub fn find_scene(scene: &Path, working: &Path, exe_dir: Option<&Path>) -> PathBuf {
    if scene.is_absolute() {
        return scene.to_path_buf();
    }
    let under_working = working.join(scene);
    if under_working.exists() {
        return under_working;
    }
    match exe_dir.map(|dir| dir.join(scene)) {
        Some(beside) if beside.exists() => beside,
        _ => under_working,
    }
}

/// stepframe: a game-loop runtime and live debugger.
#[derive(Parser, Debug)]
#[command(name = "stepframe", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Open the editor on a scene (default: the binary's own scene).
    Edit {
        /// Scene to open.
        scene: Option<PathBuf>,
        /// The rewind history's byte budget, MiB (default: the one chosen in
        /// the Clock tab last time, 256 at first).
        #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..=65536))]
        history_mib: Option<u32>,
        /// Keep the session host on a thread of the editor's own process
        /// (one process, for a native debugger such as CodeLLDB) instead of
        /// a child process: a fault no process survives then takes the
        /// editor down with it.
        #[arg(long)]
        in_process: bool,
        /// Close after the first drawn frame, printing `first_frame_ms` and
        /// the milliseconds since the start (the `startup_first_frame_ms`
        /// bench figure).
        #[arg(long, hide = true)]
        exit_after_first_frame: bool,
    },
    /// Run a scene headless through the same step_frame as the editor.
    Play(crate::player::PlayArgs),
    /// Play a scene in a window of its own (F3 clock overlay, F6 pause);
    /// `--debug` lets the editor attach.
    Run(crate::run::RunArgs),
    /// Compare two traces, ignoring the pacing-dependent `frame` field, and
    /// name every object, field and subsystem that differs.
    TraceDiff(crate::tools::TraceDiffArgs),
    /// Run the pacing matrix of one or more scenes and check every run matches
    /// its scene's 60 Hz reference.
    Check(crate::tools::CheckArgs),
    /// Print stepframe's own performance figures as JSON lines (on its
    /// bundled scenes: `--scenes` names their directory).
    Bench(crate::bench::BenchArgs),
    /// Run a scene for many ticks with the editor's buffers and check memory stays flat.
    Soak(crate::soak::SoakArgs),
    /// The editor's session host, in a process of its own (the editor
    /// starts it; not for use by hand).
    #[command(hide = true)]
    Host,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder with `assets/scenes/level.ron` in it when `with_scene`.
    fn folder(tag: &str, with_scene: bool) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("stepframe-find-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("assets/scenes")).expect("a temp folder");
        if with_scene {
            std::fs::write(dir.join("assets/scenes/level.ron"), "()").expect("a scene");
        }
        dir
    }

    #[test]
    fn a_relative_scene_is_found_under_the_working_folder_then_beside_the_executable() {
        let scene = Path::new("assets/scenes/level.ron");
        let crate_dir = folder("crate", true);
        let dist = folder("dist", true);
        let elsewhere = folder("elsewhere", false);
        // `cargo run` in the game's crate: found there first.
        assert_eq!(
            find_scene(scene, &crate_dir, Some(&dist)),
            crate_dir.join(scene)
        );
        // The shipped binary started from another folder: beside it.
        assert_eq!(find_scene(scene, &elsewhere, Some(&dist)), dist.join(scene));
        // Nowhere: the working folder's path, which the error then names.
        assert_eq!(
            find_scene(scene, &elsewhere, Some(&elsewhere)),
            elsewhere.join(scene)
        );
        assert_eq!(find_scene(scene, &elsewhere, None), elsewhere.join(scene));
        // An absolute path is taken as it is.
        let absolute = dist.join(scene);
        assert_eq!(find_scene(&absolute, &elsewhere, None), absolute);
        for dir in [crate_dir, dist, elsewhere] {
            std::fs::remove_dir_all(dir).ok();
        }
    }
}
