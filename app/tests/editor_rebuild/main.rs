//! Fix, rebuild, replay (`editor::shell::rebuild`) through the real editor
//! (egui_kittest) with a real child session host.
//!
//! **Two builds.** A test cannot run `cargo build` twice in CI's time, so
//! a build here is a copy of this test binary, which is also a game: run as
//! `host`, its `main` is the game's session host (`Game::run_from`, as a
//! game's binary is). The code that differs between two builds is a
//! constant the game's `Kick` behaviour reads, as its process starts, from
//! a file beside its executable (`<exe>.build`): what a `const` in the
//! source would be. The editor sees exactly what a `cargo build` shows it:
//! a new file at the path it started its host from, which it starts,
//! handshakes with, and replays the session in.
//!
//! `harness = false`: without the `host` argument, `main` runs the tests
//! below one after the other. Every wait is bounded.

#[path = "../support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use serde::{Deserialize, Serialize};
use stepframe_app::editor::protocol::{BreakpointCommand, EditCommand, Run, Target, WatchCommand};
use stepframe_app::editor::shell::Driver;
use stepframe_app::editor::{Command, Editor, EditorConfig};
use stepframe_app::{Behaviours, Game};
use stepframe_core::scene::ParamsError;
use stepframe_core::{Breakpoint, HookKind, ObjectId};
use stepframe_host::supervise::Limits;

use support::editor::{harness_for, latest_live, latest_suspended, latest_tick, step_until_within};
use support::scratch;

/// A bound on a hang, not on speed.
const BOUND: Duration = Duration::from_secs(120);
/// Between UI frames, as a display would.
const NAP: Duration = Duration::from_millis(5);
/// The ball the `Kick` behaviour kicks.
const BALL: ObjectId = ObjectId(2);
/// The tick the user stands at when the new build comes.
const AT: u64 = 90;

/// The game's `Kick`: every `every` ticks, an upward impulse of the
/// build's constant. Two versions of its parameters, as two builds of the
/// game would have them (the second renamed `every`).
mod v1 {
    use super::*;

    /// Parameters of [`Kick`].
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, stepframe_core::Inspect)]
    #[serde(deny_unknown_fields, default)]
    pub struct KickParams {
        /// Ticks between kicks.
        pub every: u32,
    }

    impl Default for KickParams {
        fn default() -> Self {
            KickParams { every: 30 }
        }
    }

    /// Kicks its own body up (module docs).
    #[derive(Clone, Debug, stepframe_core::Inspect)]
    pub struct Kick {
        #[inspect(params)]
        params: KickParams,
        /// The build's constant, N·s.
        impulse: f32,
        /// Fixed ticks run.
        ticks: u64,
    }

    impl Kick {
        /// A kick with this build's impulse.
        pub fn new(params: KickParams, impulse: f32) -> Result<Kick, ParamsError> {
            Ok(Kick {
                params,
                impulse,
                ticks: 0,
            })
        }
    }

    #[stepframe_core::behaviour]
    impl stepframe_core::Behaviour for Kick {
        fn fixed_update(&mut self, ctx: &mut stepframe_core::Ctx, _dt: f64) {
            self.ticks += 1;
            if self.ticks % u64::from(self.params.every.max(1)) == 1 {
                let me = ctx.me();
                ctx.apply_impulse(me, stepframe_core::Vec2::new(0.0, self.impulse));
            }
        }
    }
}

mod v2 {
    use super::*;

    /// Parameters of [`Kick`] in a later build: `every` is now `period`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, stepframe_core::Inspect)]
    #[serde(deny_unknown_fields, default)]
    pub struct KickParams {
        /// Ticks between kicks.
        pub period: u32,
    }

    impl Default for KickParams {
        fn default() -> Self {
            KickParams { period: 30 }
        }
    }

    /// The same kick, with the renamed parameter.
    #[derive(Clone, Debug, stepframe_core::Inspect)]
    pub struct Kick {
        #[inspect(params)]
        params: KickParams,
        /// The build's constant, N·s.
        impulse: f32,
        /// Fixed ticks run.
        ticks: u64,
    }

    impl Kick {
        /// A kick with this build's impulse.
        pub fn new(params: KickParams, impulse: f32) -> Result<Kick, ParamsError> {
            Ok(Kick {
                params,
                impulse,
                ticks: 0,
            })
        }
    }

    #[stepframe_core::behaviour]
    impl stepframe_core::Behaviour for Kick {
        fn fixed_update(&mut self, ctx: &mut stepframe_core::Ctx, _dt: f64) {
            self.ticks += 1;
            if self.ticks % u64::from(self.params.period.max(1)) == 1 {
                let me = ctx.me();
                ctx.apply_impulse(me, stepframe_core::Vec2::new(0.0, self.impulse));
            }
        }
    }
}

/// What a build of the game is: the impulse, and which `Kick` it has.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Build {
    /// `Kick` with `every`, this impulse.
    V1(f32),
    /// `Kick` with `period`, this impulse.
    V2(f32),
    /// No `Kick` at all (a build whose registry lost it).
    Without,
}

impl Build {
    fn text(self) -> String {
        match self {
            Build::V1(i) => format!("v1 {i}"),
            Build::V2(i) => format!("v2 {i}"),
            Build::Without => "without".to_string(),
        }
    }

    /// This process's build: the file beside its executable.
    fn of_this_process() -> Build {
        let exe = std::env::current_exe().expect("this executable");
        let text = std::fs::read_to_string(exe.with_extension("build")).unwrap_or_default();
        let mut words = text.split_whitespace();
        let (kind, impulse) = (words.next(), words.next().and_then(|w| w.parse().ok()));
        match (kind, impulse) {
            (Some("v2"), Some(i)) => Build::V2(i),
            (Some("without"), _) => Build::Without,
            (_, i) => Build::V1(i.unwrap_or(4.0)),
        }
    }
}

/// The game's behaviours in this build.
fn behaviours(build: Build) -> Behaviours {
    match build {
        Build::V1(impulse) => {
            Behaviours::built_in().behaviour(move |p: v1::KickParams| v1::Kick::new(p, impulse))
        }
        Build::V2(impulse) => {
            Behaviours::built_in().behaviour(move |p: v2::KickParams| v2::Kick::new(p, impulse))
        }
        Build::Without => Behaviours::built_in(),
    }
}

/// Puts build `build` of the game at `program`, as `cargo build` does: a
/// new file written beside it, then renamed over it.
fn build_game(program: &Path, build: Build) {
    let this = std::env::current_exe().expect("this executable");
    std::fs::write(program.with_extension("build"), build.text()).expect("write the constant");
    let fresh = program.with_extension("new");
    std::fs::copy(&this, &fresh).expect("copy the game");
    std::fs::rename(&fresh, program).expect("replace the game");
}

/// A scene: ground, and a ball with the game's `Kick` at its defaults.
fn scene(dir: &Path) -> PathBuf {
    let scene = dir.join("kick.ron");
    std::fs::write(
        &scene,
        "(\n    objects: [\n        (id: 1, name: \"Ground\", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 20.0, hy: 0.5)])),\n        (id: 2, name: \"Ball\", transform: (x: 0.0, y: 1.0), body: (shapes: [Circle(radius: 0.5)]), behaviours: [(name: \"Kick\")]),\n    ],\n)\n",
    )
    .expect("write the scene");
    scene
}

/// The editor with its host in a child process of the game at `program`.
fn editor(scene: PathBuf, program: &Path) -> Harness<'static, Editor> {
    let config = EditorConfig {
        driver: Driver::Process {
            program: Some(program.to_path_buf()),
            limits: Limits::default(),
        },
        behaviours: behaviours(Build::V1(4.0)),
        ..EditorConfig::new(scene)
    };
    harness_for(config)
}

/// Plays to about tick 20, then steps to exactly `AT`, paused there.
fn play_to_at(h: &mut Harness<'_, Editor>) {
    step_until_within(h, "the session to play", BOUND, NAP, |h| {
        latest_tick(h).is_some_and(|t| t >= 20)
    });
    h.state_mut().send(Command::Run(Run::Pause));
    step_until_within(h, "the pause", BOUND, NAP, latest_suspended);
    let now = latest_tick(h).expect("a tick");
    assert!(now < AT, "paused before {AT}: {now}");
    for _ in now..AT {
        h.state_mut().send(Command::Run(Run::StepTick));
    }
    step_until_within(h, "the steps", BOUND, NAP, |h| latest_tick(h) == Some(AT));
}

/// Waits for the editor to offer the new build, and takes it.
fn replay_with_the_new_build(h: &mut Harness<'_, Editor>) {
    step_until_within(h, "the new build to be noticed", BOUND, NAP, |h| {
        h.state().published().new_build.is_some()
    });
    h.get_by_label("Replay with the new build (Ctrl+Shift+R)")
        .click();
    step_until_within(h, "the replay to begin", BOUND, NAP, |h| {
        h.state().published().rebuild.is_some()
    });
}

fn a_new_build_replays_the_session_to_the_same_tick_beside_the_old_one() {
    let dir = scratch("rebuild-replay");
    let program = dir.join("game");
    build_game(&program, Build::V1(4.0));
    let mut h = editor(scene(&dir), &program);
    play_to_at(&mut h);
    // A breakpoint (disabled, so the session runs on) and a watch: both
    // must be there after the replay.
    let breakpoint = Breakpoint {
        enabled: false,
        ..Breakpoint::on(HookKind::FixedUpdate, BALL)
    };
    h.state_mut()
        .send(Command::Breakpoints(BreakpointCommand::Add(breakpoint)));
    h.state_mut()
        .send(Command::Watches(WatchCommand::Plot("obj(2).y".to_string())));
    h.state_mut().send(Command::Select(Some(BALL)));
    step_until_within(&mut h, "the breakpoint and the watch", BOUND, NAP, |h| {
        latest_live(h).is_some()
            && h.state().published().live.as_ref().is_some_and(|l| {
                l.breakpoints.len() == 1 && l.watches.iter().any(|w| w.expr == "obj(2).y")
            })
    });
    let old = latest_live(&h).expect("a view").clone();
    let old_vy = old
        .selected
        .as_ref()
        .and_then(|s| s.velocity)
        .expect("the ball's velocity")
        .linear
        .y;

    // The fix: a stronger kick. `cargo build` puts it where the editor
    // started its host from.
    build_game(&program, Build::V1(6.0));
    replay_with_the_new_build(&mut h);
    step_until_within(&mut h, "the new build at the same tick", BOUND, NAP, |h| {
        h.state().published().rebuild.is_none() && latest_tick(h) == Some(AT) && latest_suspended(h)
    });
    assert!(
        h.state().feedback().error.is_none(),
        "no error: {:?}",
        h.state().feedback().error
    );
    // No progress bar is left behind.
    h.run_steps(2);
    assert!(h.state().published().replaying.is_none());
    assert!(support::labels_starting(&h, "Doing the session again").is_empty());
    assert!(support::labels_starting(&h, "Replaying with the new build").is_empty());
    // B is the old build's run, measured against the new one.
    step_until_within(&mut h, "B, the previous build", BOUND, NAP, |h| {
        latest_live(h).is_some_and(|v| v.b.is_some())
    });
    let live = h.state().published().live.clone().expect("a live view");
    let b = live.branch_b.as_ref().expect("run B");
    assert!(
        matches!(&b.name, stepframe_app::editor::protocol::BName::OldBuild(n) if n.contains("previous build of game")),
        "{:?}",
        b.name
    );
    // The first tick the builds part is the first kick (tick 1), on the
    // ball; at tick 90 the inspector's A/B table shows the ball's vertical
    // speed apart (the field the constant feeds) and its x the same.
    let first = b.first.expect("the builds part");
    assert_eq!((first.tick, first.first_object), (1, Some(BALL.0)));
    let theirs = live
        .world
        .b
        .as_ref()
        .and_then(|t| t.object(BALL.0))
        .expect("B holds the ball at tick 90");
    let ours = live.world.selected.as_ref().expect("the ball selected");
    assert_eq!(
        theirs[4].to_bits(),
        old_vy.to_bits(),
        "B is the old build's vy"
    );
    let our_vy = ours.velocity.expect("the ball's velocity").linear.y;
    assert_ne!(our_vy.to_bits(), theirs[4].to_bits(), "vy differs");
    assert_eq!(
        ours.committed.x.to_bits(),
        theirs[0].to_bits(),
        "x does not"
    );
    h.run_steps(2);
    let differs = h.query_all_by_label("vy").count();
    assert!(differs >= 1, "the A/B table names vy");
    // Breakpoints and watches survived.
    assert_eq!(live.breakpoints.len(), 1, "{:?}", live.breakpoints);
    let kept = &live.breakpoints[0].breakpoint;
    assert_eq!(
        (kept.hook, kept.object, kept.enabled),
        (Some(HookKind::FixedUpdate), Some(BALL), false)
    );
    assert!(live.watches.iter().any(|w| w.expr == "obj(2).y"));
    // The timeline marks where the build changed.
    assert!(
        h.state()
            .timeline()
            .markers()
            .iter()
            .any(|m| m.kind == stepframe_app::editor::timeline::MarkerKind::Build),
        "a new-build marker"
    );
}

fn a_new_build_whose_parameter_is_gone_is_refused_at_the_edit_and_the_old_session_stays() {
    let dir = scratch("rebuild-refused-edit");
    let program = dir.join("game");
    build_game(&program, Build::V1(4.0));
    let mut h = editor(scene(&dir), &program);
    step_until_within(&mut h, "the session to play", BOUND, NAP, |h| {
        latest_tick(h).is_some_and(|t| t >= 20)
    });
    h.state_mut().send(Command::Run(Run::Pause));
    step_until_within(&mut h, "the pause", BOUND, NAP, latest_suspended);
    let edited_at = latest_tick(&h).expect("a tick");
    h.state_mut().send(Command::Edit {
        target: Target::Live,
        edit: EditCommand::Params {
            object: BALL,
            index: 0,
            params: "(every: 20)".to_string(),
        },
    });
    step_until_within(&mut h, "the edit to be recorded", BOUND, NAP, |h| {
        !h.state().published().recording.edits.is_empty()
    });
    let before = latest_live(&h).expect("a view").clone();

    // The new build renamed the parameter: the edit no longer applies.
    build_game(&program, Build::V2(4.0));
    replay_with_the_new_build(&mut h);
    step_until_within(&mut h, "the refusal", BOUND, NAP, |h| {
        h.state().published().rebuild.is_none() && h.state().feedback().error.is_some()
    });
    let error = h.state().feedback().error.clone().expect("an error");
    assert!(
        error.contains(&format!("at tick {edited_at}")) && error.contains("every"),
        "names the edit's tick and the parameter: {error}"
    );
    assert!(error.contains("the old build's session stays"), "{error}");
    // The old session is untouched: same tick, same state.
    h.run_steps(3);
    let now = latest_live(&h).expect("a view");
    assert_eq!(
        (now.clock.simulation_tick, now.state_hash),
        (before.clock.simulation_tick, before.state_hash)
    );
    assert!(
        h.state()
            .published()
            .live
            .as_ref()
            .is_some_and(|l| l.branch_b.is_none())
    );
}

fn a_new_build_that_cannot_load_the_scene_is_refused_with_the_file_line_and_column() {
    let dir = scratch("rebuild-refused-scene");
    let program = dir.join("game");
    build_game(&program, Build::V1(4.0));
    let scene = scene(&dir);
    let mut h = editor(scene.clone(), &program);
    play_to_at(&mut h);
    let before = latest_live(&h).expect("a view").clone();

    build_game(&program, Build::Without);
    replay_with_the_new_build(&mut h);
    step_until_within(&mut h, "the refusal", BOUND, NAP, |h| {
        h.state().published().rebuild.is_none() && h.state().feedback().error.is_some()
    });
    let error = h.state().feedback().error.clone().expect("an error");
    // The refused build is not offered again (the editor looks twice a
    // second and offers a file that stood still for one).
    let t0 = std::time::Instant::now();
    while t0.elapsed() < Duration::from_millis(2_500) {
        h.step();
        std::thread::sleep(NAP);
    }
    assert!(
        h.state().published().new_build.is_none(),
        "a refused build is not offered again"
    );
    // The scene's behaviour line: line 4, where `Kick` is named.
    assert!(
        error.contains("kick.ron:4:") && error.contains("Kick"),
        "names the file, line and column: {error}"
    );
    let now = latest_live(&h).expect("a view");
    assert_eq!(
        (now.clock.simulation_tick, now.state_hash),
        (before.clock.simulation_tick, before.state_hash)
    );
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("host") {
        let build = Build::of_this_process();
        return Game::new("game")
            .behaviours(behaviours(build))
            .run_from(args);
    }
    let tests: [(&str, fn()); 3] = [
        (
            "a_new_build_replays_the_session_to_the_same_tick_beside_the_old_one",
            a_new_build_replays_the_session_to_the_same_tick_beside_the_old_one,
        ),
        (
            "a_new_build_whose_parameter_is_gone_is_refused_at_the_edit_and_the_old_session_stays",
            a_new_build_whose_parameter_is_gone_is_refused_at_the_edit_and_the_old_session_stays,
        ),
        (
            "a_new_build_that_cannot_load_the_scene_is_refused_with_the_file_line_and_column",
            a_new_build_that_cannot_load_the_scene_is_refused_with_the_file_line_and_column,
        ),
    ];
    // libtest's arguments: a filter (the first word that is not a flag).
    let filter = args.iter().skip(1).find(|a| !a.starts_with('-'));
    let (mut passed, mut failed) = (0, 0);
    for (name, test) in tests {
        if filter.is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        match std::panic::catch_unwind(test) {
            Ok(()) => {
                passed += 1;
                println!("test {name} ... ok");
            }
            Err(_) => {
                failed += 1;
                println!("test {name} ... FAILED");
            }
        }
    }
    let verdict = if failed == 0 { "ok" } else { "FAILED" };
    println!("\ntest result: {verdict}. {passed} passed; {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
