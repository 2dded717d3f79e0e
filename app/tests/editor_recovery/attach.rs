//! The editor attached to a game in a process of its own, over loopback
//! (docs/editor.md, "Attach to a running game"): a player started as
//! `stepframe run SCENE --debug --headless` (the binary cargo built), and
//! the real editor driven headless. F9 breaks at the end of the player's
//! FixedUpdate tick, F10 steps one tick, F5 resumes, Detach leaves the
//! game running; a wrong token is refused; a player that dies while
//! attached is named in a banner; paused frames of the player do not call
//! the pipeline. Run in player (Ctrl+F5) starts the scene in a player
//! already attached (headless here, through `EditorConfig::player_args`);
//! Detach leaves it running and reachable again, and a player that ends is
//! named with its exit status. Every wait is bounded.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use egui::Key;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use stepframe_app::editor::protocol::{BreakpointCommand, Run, WatchCommand};
use stepframe_app::editor::shared::Action;
use stepframe_app::editor::shell::{Driver, HostStopped};
use stepframe_app::editor::{Command, Editor, EditorConfig, Pane};
use stepframe_core::{HookKind, ObjectId};
use stepframe_host::debug::AttachLine;
use stepframe_host::supervise::Limits;

use crate::support::editor::{harness_for, latest_live, show, step_until_within};
use crate::support::labels_starting;

/// A bound on a hang, not on speed.
const BOUND: Duration = Duration::from_secs(120);
/// Between UI frames, as a display would.
const NAP: Duration = Duration::from_millis(5);
/// The demo's player, whose PlayerController has a FixedUpdate.
const PLAYER: ObjectId = ObjectId(20);

fn demo() -> PathBuf {
    std::path::absolute(stepframe_app::default_scene()).expect("an absolute path")
}

/// A listening game: its process, where to attach, and its stderr lines.
pub struct Game {
    /// The process (killed when dropped).
    pub child: Child,
    /// What it printed.
    pub line: AttachLine,
    /// Its stderr, line by line.
    pub stderr: Receiver<String>,
}

impl Drop for Game {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Game {
    /// Starts `program args…` and reads its attach line from stdout.
    pub fn start(program: &Path, args: &[&str]) -> Game {
        let mut child = std::process::Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the game starts");
        let (out_tx, out) = crossbeam_channel::unbounded();
        let (err_tx, stderr) = crossbeam_channel::unbounded();
        let stdout = child.stdout.take().expect("stdout");
        let err = child.stderr.take().expect("stderr");
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                let _ = out_tx.send(line);
            }
        });
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
                let _ = err_tx.send(line);
            }
        });
        let deadline = Instant::now() + BOUND;
        let line = loop {
            let text = out
                .recv_deadline(deadline)
                .expect("the game prints its attach line");
            if let Ok(line) = text.parse::<AttachLine>() {
                break line;
            }
        };
        Game {
            child,
            line,
            stderr,
        }
    }

    /// The player on the demo, headless, listening.
    pub fn player() -> Game {
        let scene = demo();
        Game::start(
            Path::new(env!("CARGO_BIN_EXE_stepframe")),
            &[
                "run",
                scene.to_str().expect("a UTF-8 path"),
                "--debug",
                "--headless",
                "--seconds",
                "600",
            ],
        )
    }

    /// Waits for a stderr line containing `text` (bounded).
    pub fn said(&self, text: &str) -> String {
        let deadline = Instant::now() + BOUND;
        loop {
            let line = self
                .stderr
                .recv_deadline(deadline)
                .unwrap_or_else(|_| panic!("the game never said {text:?}"));
            if line.contains(text) {
                return line;
            }
        }
    }
}

/// The editor with its own session host (the binary cargo built) on the
/// demo, playing.
pub fn editor() -> Harness<'static, Editor> {
    let config = EditorConfig {
        driver: Driver::Process {
            program: Some(PathBuf::from(env!("CARGO_BIN_EXE_stepframe"))),
            limits: Limits::default(),
        },
        ..EditorConfig::new(demo())
    };
    let mut h = harness_for(config);
    step_until_within(&mut h, "the editor's own session", BOUND, NAP, |h| {
        latest_live(h).is_some_and(|v| v.clock.simulation_tick > 0)
    });
    h
}

/// Attaches the editor to the game at `line` as File → Attach… does, and
/// waits for the game's views.
pub fn attach(h: &mut Harness<'_, Editor>, line: &AttachLine) {
    h.state_mut().act(Action::Attach {
        addr: line.addr.to_string(),
        token: line.token.to_string(),
    });
    assert_eq!(
        h.state().published().attached.as_deref(),
        Some(line.addr.to_string().as_str()),
        "attached: {:?}",
        h.state().feedback().error
    );
    step_until_within(h, "the game's ticks", BOUND, NAP, |h| {
        latest_live(h).is_some_and(|v| v.clock.simulation_tick > 5)
    });
}

/// Pauses the attached game, then steps one tick with F10: the tick it
/// paused at.
fn pause_and_step(h: &mut Harness<'_, Editor>) -> u64 {
    h.state_mut().send(Command::Run(Run::Pause));
    step_until_within(h, "the pause", BOUND, NAP, suspended);
    let at = tick(h);
    h.key_press(Key::F10);
    step_until_within(h, "the step", BOUND, NAP, |h| {
        suspended(h) && tick(h) == at + 1
    });
    at
}

fn suspended(h: &Harness<'_, Editor>) -> bool {
    latest_live(h).is_some_and(|v| v.suspension.is_some())
}

fn tick(h: &Harness<'_, Editor>) -> u64 {
    latest_live(h).expect("a live view").clock.simulation_tick
}

#[test]
fn attached_to_a_player_f9_breaks_f10_steps_f5_resumes_and_detach_leaves_it_running() {
    let game = Game::player();
    let mut h = editor();
    // File → Attach…, the whole printed line pasted into Address.
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Attach…").click();
    h.run_steps(2);
    h.get_by_label("Address").click();
    h.run_steps(1);
    h.get_by_label("Address").type_text(&game.line.to_string());
    h.run_steps(1);
    h.get_by_label("Attach").click();
    h.run_steps(2);
    assert!(
        h.state().published().attached.is_some(),
        "attached: {:?}",
        h.state().feedback().error
    );
    game.said("an editor attached");
    step_until_within(&mut h, "the game's ticks", BOUND, NAP, |h| {
        latest_live(h).is_some_and(|v| v.clock.simulation_tick > 5)
    });
    // The menu bar says where the panels' session runs.
    let shown = labels_starting(&h, "attached to 127.0.0.1");
    assert_eq!(shown, [format!("attached to {}", game.line.addr)]);

    // Select the player, F9: a break at the end of its FixedUpdate tick.
    h.state_mut().send(Command::Select(Some(PLAYER)));
    step_until_within(&mut h, "the selection", BOUND, NAP, |h| {
        h.state()
            .published()
            .live
            .as_ref()
            .and_then(|l| l.selection)
            == Some(PLAYER)
    });
    h.key_press(Key::F9);
    step_until_within(&mut h, "the break", BOUND, NAP, suspended);
    let stop = latest_live(&h).unwrap().suspension.clone().unwrap();
    assert!(stop.end_of_tick, "at the end of the tick: {stop:?}");
    let at = tick(&h);

    // F10: one physics tick.
    h.key_press(Key::F10);
    step_until_within(&mut h, "the step", BOUND, NAP, |h| {
        suspended(h) && tick(h) == at + 1
    });

    // F9 off, F5: the game plays on.
    h.key_press(Key::F9);
    step_until_within(&mut h, "the breakpoint removed", BOUND, NAP, |h| {
        h.state()
            .published()
            .live
            .as_ref()
            .is_some_and(|l| l.breakpoints.is_empty())
    });
    h.key_press(Key::F5);
    step_until_within(&mut h, "the resume", BOUND, NAP, |h| {
        !suspended(h) && tick(h) > at + 5
    });

    // File → Detach: the game goes on; the editor has the scene in a
    // session of its own, paused at tick 0.
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Detach").click();
    h.run_steps(2);
    assert!(h.state().published().attached.is_none());
    game.said("the editor detached; the game goes on");
    step_until_within(&mut h, "the editor's own session", BOUND, NAP, |h| {
        suspended(h) && tick(h) == 0
    });
    let mut game = game;
    assert!(
        game.child.try_wait().expect("a status").is_none(),
        "the player runs on after the detach"
    );
}

/// The newest live view with what the host's features hold.
fn live_view<'h>(h: &'h Harness<'_, Editor>) -> Option<&'h stepframe_app::editor::LiveView> {
    h.state().published().live.as_ref()
}

#[test]
fn detach_brings_the_breakpoints_and_watches_into_the_editors_own_session() {
    let game = Game::player();
    let mut h = editor();
    attach(&mut h, &game.line);
    // A breakpoint on the player (F9), disabled so the game plays on, and
    // a plotted watch, both set in the game's session.
    h.state_mut().send(Command::Select(Some(PLAYER)));
    step_until_within(&mut h, "the selection", BOUND, NAP, |h| {
        live_view(h).is_some_and(|l| l.selection == Some(PLAYER))
    });
    h.key_press(Key::F9);
    step_until_within(&mut h, "the breakpoint", BOUND, NAP, |h| {
        live_view(h).is_some_and(|l| l.breakpoints.len() == 1)
    });
    let id = live_view(&h).unwrap().breakpoints[0].breakpoint.id;
    h.state_mut()
        .send(Command::Breakpoints(BreakpointCommand::Enable(id, false)));
    h.state_mut().send(Command::Watches(WatchCommand::Plot(
        "obj(20).y".to_string(),
    )));
    step_until_within(&mut h, "the watch", BOUND, NAP, |h| {
        live_view(h).is_some_and(|l| {
            l.watches.len() == 1 && l.breakpoints.iter().all(|b| !b.breakpoint.enabled)
        })
    });
    let watches = live_view(&h).unwrap().watches.clone();
    // The Input tab open: its file field names the tape beside the scene.
    show(&mut h, Pane::Input);
    h.run_steps(2);
    let tape_path = |h: &Harness<'_, Editor>| {
        use egui_kittest::kittest::NodeT;
        h.get_by_role_and_label(egui::accesskit::Role::TextInput, "File")
            .accesskit_node()
            .value()
            .unwrap_or_default()
    };
    assert!(
        tape_path(&h).ends_with("demo.tape.ron"),
        "{}",
        tape_path(&h)
    );

    // File → Detach (the Input tab has a "File" label of its own).
    h.state_mut().act(Action::Detach);
    h.run_steps(2);
    assert!(h.state().published().attached.is_none());
    step_until_within(&mut h, "the editor's own session", BOUND, NAP, |h| {
        suspended(h) && tick(h) == 0 && live_view(h).is_some_and(|l| l.watches == watches)
    });
    let live = live_view(&h).unwrap();
    let carried: Vec<_> = live
        .breakpoints
        .iter()
        .map(|b| (b.breakpoint.hook, b.breakpoint.object, b.breakpoint.enabled))
        .collect();
    assert_eq!(
        carried,
        [(Some(HookKind::FixedUpdate), Some(PLAYER), false)],
        "the player's breakpoint, still disabled"
    );
    // The Input tab's file is still the scene's tape, not a bare tape.ron
    // from the new session's first view, which had no scene yet.
    h.run_steps(2);
    assert!(
        tape_path(&h).ends_with("demo.tape.ron"),
        "{}",
        tape_path(&h)
    );
    // The notice says what came along.
    let said = labels_starting(&h, "detached:");
    assert!(
        said.iter()
            .any(|s| s.ends_with("with 1 breakpoint and 1 watch")),
        "the notice names them: {said:?}"
    );
}

#[test]
fn a_hidden_editor_still_takes_its_hosts_views() {
    // The editor's own host in a process of its own, playing at 60 Hz.
    let mut h = editor();
    let at = tick(&h);
    // The window hidden: eframe draws nothing and calls only `logic`,
    // which takes what the host sends. The host sends a view only once
    // the last was taken, so the tick moves only if the hidden editor
    // takes them.
    let t0 = Instant::now();
    while tick(&h) < at + 30 {
        assert!(
            t0.elapsed() < BOUND,
            "the hidden editor took no view past tick {}",
            tick(&h)
        );
        h.state_mut().take_while_hidden();
        std::thread::sleep(NAP);
    }
}

#[test]
fn paused_player_frames_do_not_call_the_shared_pipeline() {
    let game = Game::player();
    let mut h = editor();
    attach(&mut h, &game.line);
    h.state_mut().send(Command::Run(Run::Pause));
    step_until_within(&mut h, "the pause", BOUND, NAP, suspended);
    let paused = latest_live(&h).unwrap().clock;
    // Each selection is applied at a frame boundary of the player's loop,
    // which then runs its frame (suspended: no pipeline call) and
    // publishes: every view that shows it comes after such a frame.
    for (n, id) in [ObjectId(2), ObjectId(3), ObjectId(4), ObjectId(5)]
        .into_iter()
        .enumerate()
    {
        h.state_mut().send(Command::Select(Some(id)));
        step_until_within(&mut h, "the selection", BOUND, NAP, |h| {
            h.state()
                .published()
                .live
                .as_ref()
                .and_then(|l| l.selection)
                == Some(id)
        });
        let now = latest_live(&h).unwrap().clock;
        assert_eq!(now.frame_index, paused.frame_index, "frame {n}");
        assert_eq!(now.frame_time, paused.frame_time, "frame {n}");
        assert_eq!(now.simulation_tick, paused.simulation_tick, "frame {n}");
        assert_eq!(now.simulation_time, paused.simulation_time, "frame {n}");
    }
}

#[test]
fn a_wrong_token_is_refused_and_the_editor_keeps_its_own_session() {
    let game = Game::player();
    let mut h = editor();
    let wrong = "00000000000000000000000000000000";
    h.state_mut().act(Action::Attach {
        addr: game.line.addr.to_string(),
        token: wrong.to_string(),
    });
    let error = h.state().feedback().error.clone().expect("an error");
    assert!(error.contains("token"), "{error}");
    assert!(h.state().published().attached.is_none());
    game.said("a connection was refused");
    // The editor's own session runs on.
    let before = tick(&h);
    step_until_within(&mut h, "the own session to go on", BOUND, NAP, |h| {
        tick(h) > before
    });
    // The game kept listening: the right token gets in.
    attach(&mut h, &game.line);
}

#[test]
fn a_game_that_dies_while_attached_is_named_and_restart_does_not_apply() {
    let mut game = Game::player();
    let mut h = editor();
    attach(&mut h, &game.line);
    game.child.kill().expect("kill the player");
    step_until_within(&mut h, "the game's death", BOUND, NAP, |h| {
        h.state().published().worker_stopped.is_some()
    });
    let stopped = h.state().published().worker_stopped.clone().unwrap();
    assert!(matches!(stopped, HostStopped::GameGone(_)), "{stopped:?}");
    h.run_steps(1);
    let banner = labels_starting(&h, "The game you attached to is gone: ");
    assert_eq!(banner.len(), 1, "one banner: {banner:?}");
    assert!(labels_starting(&h, "Restart").is_empty(), "no Restart");
    h.state_mut().act(Action::RestartWorker);
    let error = h.state().feedback().error.clone().expect("an error");
    assert!(error.starts_with("Restart does not apply"), "{error}");
    // Detach: the scene in a session of the editor's own.
    h.get_by_label("Detach").click();
    h.run_steps(2);
    step_until_within(&mut h, "the editor's own session", BOUND, NAP, |h| {
        h.state().published().worker_stopped.is_none() && suspended(h) && tick(h) == 0
    });
}

/// The own-loop example (app/examples/own_loop.rs), which `cargo test`
/// builds next to this binary's `stepframe`.
fn own_loop_example() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_stepframe"));
    let dir = bin.parent().expect("the binary's folder");
    dir.join("examples")
        .join(format!("own_loop{}", std::env::consts::EXE_SUFFIX))
}

#[test]
fn the_editor_attaches_to_a_game_that_owns_its_loop_and_steps_it() {
    let example = own_loop_example();
    assert!(
        example.is_file(),
        "no {}: `cargo test -p stepframe-app` (or `--examples`) builds the example; \
         a single `--test` does not",
        example.display()
    );
    let scene = demo();
    let game = Game::start(
        &example,
        &[
            scene.to_str().expect("a UTF-8 path"),
            "--headless",
            "--seconds",
            "600",
        ],
    );
    let mut h = editor();
    attach(&mut h, &game.line);
    let at = pause_and_step(&mut h);
    h.key_press(Key::F5);
    step_until_within(&mut h, "the resume", BOUND, NAP, |h| {
        !suspended(h) && tick(h) > at + 5
    });
}

/// The editor of [`editor`], whose Run in player starts the player with
/// `args` after `run SCENE --debug`.
fn editor_running_players_with(args: &[&str]) -> Harness<'static, Editor> {
    let config = EditorConfig {
        driver: Driver::Process {
            program: Some(PathBuf::from(env!("CARGO_BIN_EXE_stepframe"))),
            limits: Limits::default(),
        },
        player_args: args.iter().map(|a| a.to_string()).collect(),
        ..EditorConfig::new(demo())
    };
    let mut h = harness_for(config);
    step_until_within(&mut h, "the editor's own session", BOUND, NAP, |h| {
        latest_live(h).is_some_and(|v| v.clock.simulation_tick > 0)
    });
    h
}

/// Ctrl+F5: Run in player, and the player's process id and attach line as
/// the Log keeps them.
fn run_in_player(h: &mut Harness<'_, Editor>) -> (u32, AttachLine) {
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::F5);
    // The action waits (bounded) for the player's attach line.
    h.run_steps(2);
    let attached = h.state().published().attached.clone();
    let attached = attached.unwrap_or_else(|| panic!("attached: {:?}", h.state().feedback().error));
    let started = h
        .state()
        .feedback()
        .log
        .lines
        .iter()
        .find(|l| l.text.starts_with("Run in player started "))
        .map(|l| l.text.clone())
        .expect("the Log names the player");
    let (head, line) = started.split_once("): ").expect("(process N): attach …");
    let pid = head
        .rsplit_once("(process ")
        .and_then(|(_, pid)| pid.parse().ok())
        .unwrap_or_else(|| panic!("{started}"));
    let line: AttachLine = line.parse().expect("an attach line");
    assert_eq!(line.addr.to_string(), attached);
    step_until_within(h, "the player's ticks", BOUND, NAP, |h| {
        latest_live(h).is_some_and(|v| v.clock.simulation_tick > 5)
    });
    (pid, line)
}

/// Kills process `pid` when dropped (a player the test started through
/// the editor, which the editor lets go on).
struct KillOnDrop(u32);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .arg(self.0.to_string())
            .stderr(Stdio::null())
            .status();
    }
}

#[test]
fn run_in_player_starts_the_scene_in_a_player_attached_and_detach_leaves_it_running() {
    let mut h = editor_running_players_with(&["--headless", "--seconds", "600"]);
    let (pid, line) = run_in_player(&mut h);
    let _player = KillOnDrop(pid);
    assert_eq!(
        h.state()
            .published()
            .live
            .as_ref()
            .and_then(|l| l.scene_path.clone()),
        Some(demo()),
        "the editor's scene"
    );
    // The panels drive the player: a pause and a step.
    let at = pause_and_step(&mut h);

    // File → Detach: the player goes on by itself, playing again, and
    // still prints (its stderr, now read by nobody, must not fail it).
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Detach").click();
    h.run_steps(2);
    assert!(h.state().published().attached.is_none());
    step_until_within(&mut h, "the editor's own session", BOUND, NAP, |h| {
        suspended(h) && tick(h) == 0
    });
    let wrong = stepframe_host::wire::Token::random().expect("a token");
    let editor_side = stepframe_host::wire::Handshake {
        same_executable: false,
        ..stepframe_host::wire::Handshake::new(stepframe_host::wire::Role::Editor)
    };
    for _ in 0..2 {
        // Each refusal is a line on the player's stderr.
        assert!(matches!(
            stepframe_host::wire::loopback::connect_loopback(
                line.addr,
                wrong.clone(),
                &editor_side
            ),
            Err(stepframe_host::wire::WireError::Token)
        ));
    }
    // Attach… with the line the Log kept: the same player, on past the
    // step, playing.
    attach(&mut h, &line);
    step_until_within(&mut h, "the player played on", BOUND, NAP, |h| {
        !suspended(h) && tick(h) > at + 5
    });
}

#[test]
fn a_line_the_player_prints_is_never_stamped_with_the_editors_old_tick() {
    let mut h = editor_running_players_with(&["--headless", "--seconds", "600"]);
    // The editor's own session far ahead of any fresh player.
    step_until_within(&mut h, "the editor's own ticks", BOUND, NAP, |h| {
        tick(h) >= 150
    });
    let own = tick(&h);
    let (pid, _) = run_in_player(&mut h);
    let _player = KillOnDrop(pid);
    let player_now = tick(&h);
    assert!(
        player_now < own,
        "the player just started: {player_now} < {own}"
    );
    // Its "an editor attached" line is relayed into the Log.
    step_until_within(&mut h, "the player's line in the Log", BOUND, NAP, |h| {
        h.state()
            .feedback()
            .log
            .lines
            .iter()
            .any(|l| l.text.contains("an editor attached"))
    });
    for line in &h.state().feedback().log.lines {
        let rest = ["host stderr, tick ", "host stdout, tick "]
            .iter()
            .find_map(|p| line.text.strip_prefix(p));
        let Some(rest) = rest else {
            continue;
        };
        let stamped: u64 = rest
            .split(':')
            .next()
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("a tick: {}", line.text));
        assert!(
            stamped <= tick(&h),
            "a tick of the player's, not of the editor's old session ({own}): {}",
            line.text
        );
    }
}

#[test]
fn a_player_started_by_run_in_player_that_ends_is_named_with_its_exit_status() {
    let mut h = editor_running_players_with(&["--headless", "--seconds", "3"]);
    run_in_player(&mut h);
    step_until_within(&mut h, "the player's end", BOUND, NAP, |h| {
        h.state().published().worker_stopped.is_some()
    });
    let stopped = h.state().published().worker_stopped.clone().unwrap();
    assert_eq!(
        stopped,
        HostStopped::GameGone("the player exited (exit status: 0)".to_string())
    );
    h.run_steps(1);
    assert_eq!(
        labels_starting(&h, "The game you attached to is gone: "),
        ["The game you attached to is gone: the player exited (exit status: 0)"]
    );
}
