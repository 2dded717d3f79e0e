//! A session driven by the caller's loop (`stepframe_host::debug`), and an
//! editor attached to it over loopback: it breaks at the end of a tick in
//! the player's FixedUpdate, steps one tick, resumes and detaches, and the
//! game plays on; paused frames do not call the pipeline; a wrong token is
//! refused and the listener keeps listening; an editor reads what the
//! game's worker sent in the worker's order, so a plotted watch's values
//! come after the view that lists the watch, even when the editor is slow
//! to take its views.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use stepframe_core::ObjectId;
use stepframe_host::debug::{AttachLine, Debugger};
use stepframe_host::protocol::{BreakpointCommand, Command, DisplayRate, LiveView, Run};
use stepframe_host::wire::loopback::connect_loopback;
use stepframe_host::wire::{Handshake, Role, Token, WireError};
use stepframe_host::{Registries, link};

use crate::support::BOUND;

/// Seconds per frame of the game's loop.
const DT: f64 = 1.0 / 60.0;
/// The demo's player, whose PlayerController has a FixedUpdate.
const PLAYER: ObjectId = ObjectId(20);

fn demo() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/scenes/demo.ron"
    ))
}

fn registries() -> Registries {
    Arc::new(stepframe_plugins::registry_for)
}

/// The demo, playing, listening.
fn game() -> (Debugger, AttachLine) {
    let mut game = Debugger::new(registries(), DisplayRate::Hz(60));
    game.load(demo(), true);
    let line = game.listen().unwrap();
    (game, line)
}

/// An editor's handshake for an attach.
fn editor_handshake() -> Handshake {
    Handshake {
        same_executable: false,
        timeout: BOUND,
        ..Handshake::new(Role::Editor)
    }
}

/// An editor's front end, attached.
fn attach(line: &AttachLine) -> (stepframe_host::worker::FrontEnd, link::Bridge) {
    let connection = connect_loopback(line.addr, line.token.clone(), &editor_handshake()).unwrap();
    link::connect(connection, None).unwrap()
}

/// Runs the game's frames, the editor taking what it is sent after each,
/// until `done` holds for the editor's newest live view (bounded).
fn frames_until(
    game: &mut Debugger,
    editor: &stepframe_host::worker::FrontEnd,
    newest: &mut Option<LiveView>,
    what: &str,
    done: impl Fn(&LiveView, &Debugger) -> bool,
) {
    let deadline = Instant::now() + BOUND;
    loop {
        assert!(game.frame(DT), "the game ended");
        if let Some(live) = editor.take().live {
            *newest = Some(live);
        }
        if newest.as_ref().is_some_and(|v| done(v, game)) {
            return;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        // The editor's bridge is another thread: let it read.
        std::thread::yield_now();
    }
}

#[test]
fn an_attached_editor_breaks_steps_resumes_and_detaches_and_the_game_plays_on() {
    let (mut game, line) = game();
    let (editor, bridge) = attach(&line);
    let mut newest = None;
    frames_until(&mut game, &editor, &mut newest, "ticks", |v, g| {
        g.attached() && v.world.clock.simulation_tick >= 5
    });

    // F9 on the player: a break at the end of its next FixedUpdate tick.
    editor.send(Command::Breakpoints(BreakpointCommand::ToggleFixed(PLAYER)));
    frames_until(&mut game, &editor, &mut newest, "the break", |v, _| {
        v.world.suspension.is_some()
    });
    let stopped = newest.clone().unwrap();
    assert!(game.is_suspended());
    let at = stopped.world.clock.simulation_tick;

    // Paused frames do not call the pipeline: neither clock moves, on the
    // game's side, however many frames its loop runs.
    let before = game.live().unwrap().world.clock;
    for _ in 0..30 {
        assert!(game.frame(DT));
    }
    let after = &game.live().unwrap().world.clock;
    assert_eq!(after.simulation_tick, before.simulation_tick);
    assert_eq!(after.frame_index, before.frame_index);
    assert_eq!(after.simulation_time, before.simulation_time);
    assert_eq!(after.frame_time, before.frame_time);

    // F10: one tick, and the game's own view follows.
    editor.send(Command::Run(Run::StepTick));
    frames_until(&mut game, &editor, &mut newest, "the step", |v, _| {
        v.world.clock.simulation_tick == at + 1 && v.world.suspension.is_some()
    });
    assert_eq!(game.live().unwrap().world.clock.simulation_tick, at + 1);

    // Resume (the breakpoint off first), then detach.
    editor.send(Command::Breakpoints(BreakpointCommand::ToggleFixed(PLAYER)));
    editor.send(Command::Run(Run::Play));
    frames_until(&mut game, &editor, &mut newest, "the resume", |v, _| {
        v.world.suspension.is_none() && v.world.clock.simulation_tick > at + 3
    });
    drop(editor);
    bridge.join();
    let deadline = Instant::now() + BOUND;
    while game.attached() {
        assert!(game.frame(DT));
        assert!(Instant::now() < deadline, "the detach was never seen");
        std::thread::yield_now();
    }
    let left_at = game.live().unwrap().world.clock.simulation_tick;
    for _ in 0..10 {
        assert!(game.frame(DT));
    }
    assert!(!game.is_suspended());
    assert!(
        game.live().unwrap().world.clock.simulation_tick >= left_at + 10,
        "the game plays on after the detach"
    );
}

#[test]
fn a_detach_while_suspended_at_a_breakpoint_plays_on_without_it() {
    let (mut game, line) = game();
    let (editor, bridge) = attach(&line);
    let mut newest = None;
    editor.send(Command::Breakpoints(BreakpointCommand::ToggleFixed(PLAYER)));
    frames_until(&mut game, &editor, &mut newest, "the break", |v, _| {
        v.world.suspension.is_some()
    });
    drop(editor);
    bridge.join();
    let deadline = Instant::now() + BOUND;
    while game.attached() {
        assert!(game.frame(DT));
        assert!(Instant::now() < deadline, "the detach was never seen");
        std::thread::yield_now();
    }
    let left_at = game.live().unwrap().world.clock.simulation_tick;
    for _ in 0..10 {
        assert!(game.frame(DT));
    }
    let live = game.live().unwrap();
    assert!(
        live.breakpoints.is_empty(),
        "the editor's breakpoint is gone"
    );
    assert!(live.world.clock.simulation_tick >= left_at + 9);
}

#[test]
fn a_wrong_token_is_refused_and_the_game_keeps_listening() {
    let (mut game, line) = game();
    let wrong = Token::random().unwrap();
    assert!(matches!(
        connect_loopback(line.addr, wrong, &editor_handshake()),
        Err(WireError::Token)
    ));
    assert!(!game.attached());
    let (editor, _bridge) = attach(&line);
    let mut newest = None;
    frames_until(&mut game, &editor, &mut newest, "the attach", |_, g| {
        g.attached()
    });
}

#[test]
fn the_attach_line_reads_back_what_it_prints() {
    let (_game, line) = game();
    let printed = line.to_string();
    assert!(printed.starts_with("attach 127.0.0.1:"), "{printed}");
    assert_eq!(printed.parse::<AttachLine>().unwrap(), line);
    assert!(
        "attach 127.0.0.1:1 token xyz"
            .parse::<AttachLine>()
            .is_err()
    );
}

/// What an editor reads of a plotted watch, in stream order.
#[derive(Debug, PartialEq)]
enum Read {
    /// A live view, and whether its watch list has the watch.
    View { lists: bool },
    /// A live value of the watch at this tick.
    Value(u64),
    /// A span of its history fill, and whether it is the last.
    Fill { ticks: Vec<u64>, done: bool },
}

/// What the editor's end has received so far of the watch `expr`,
/// acknowledging each live view if `ack`.
fn read(editor: &stepframe_host::worker::FrontEnd, expr: &str, ack: bool) -> Vec<Read> {
    use stepframe_host::protocol::{Event, Outbound};
    let mut out = Vec::new();
    for message in editor.inbound.try_iter() {
        match message {
            Outbound::Live(v) => {
                out.push(Read::View {
                    lists: v.watches.iter().any(|w| w.expr == expr),
                });
                if ack {
                    editor.send(Command::ViewTaken);
                }
            }
            Outbound::Event(e) => match *e {
                Event::Watch(batch) => out.extend(batch.iter().filter_map(|w| match w {
                    stepframe_plugins::WatchEvent::Value { tick, .. } => Some(Read::Value(*tick)),
                    _ => None,
                })),
                Event::WatchHistory(fill) if fill.expr == expr => out.push(Read::Fill {
                    ticks: fill.values.iter().map(|v| v.0).collect(),
                    done: fill.done,
                }),
                _ => {}
            },
            Outbound::Past(_) => {}
        }
    }
    out
}

#[test]
fn an_editor_reads_a_plotted_watchs_values_only_after_the_view_that_lists_it() {
    let (mut game, line) = game();
    let (editor, _bridge) = attach(&line);
    // The editor takes no view: once it has been sent one, the game has no
    // credit to send the next, and the watch plotted then is listed only
    // by views the editor has not been sent.
    let expr = "obj(20).y";
    let mut stream = Vec::new();
    let deadline = Instant::now() + BOUND;
    while stream.is_empty() {
        assert!(game.frame(DT));
        std::thread::yield_now();
        stream.extend(read(&editor, expr, false));
        assert!(Instant::now() < deadline, "timed out waiting for a view");
    }
    editor.send(Command::Watches(
        stepframe_host::protocol::WatchCommand::Plot(expr.to_string()),
    ));
    for _ in 0..30 {
        assert!(game.frame(DT));
        std::thread::yield_now();
        stream.extend(read(&editor, expr, false));
    }
    assert_eq!(
        stream,
        [Read::View { lists: false }],
        "nothing of the watch before a view that lists it"
    );
    // The editor takes the view it was sent, and every view from now on:
    // the newest comes, then what was held, in order, then the rest live.
    editor.send(Command::ViewTaken);
    let deadline = Instant::now() + BOUND;
    loop {
        assert!(game.frame(DT));
        std::thread::yield_now();
        stream.extend(read(&editor, expr, true));
        let done = stream
            .iter()
            .any(|r| matches!(r, Read::Fill { done: true, .. }));
        let live = stream
            .iter()
            .filter(|r| matches!(r, Read::Value(_)))
            .count();
        if done && live >= 30 {
            break;
        }
        assert!(Instant::now() < deadline, "timed out: {stream:?}");
    }
    let listed = stream
        .iter()
        .position(|r| *r == Read::View { lists: true })
        .expect("a view lists the watch");
    let first_of_watch = stream
        .iter()
        .position(|r| !matches!(r, Read::View { .. }))
        .expect("values");
    assert!(listed < first_of_watch, "{stream:?}");
    // Every tick from the session's start has a value: the fill's up to
    // where the watch was added, live ones after, none missing.
    let mut ticks: Vec<u64> = stream
        .iter()
        .flat_map(|r| match r {
            Read::Value(t) => vec![*t],
            Read::Fill { ticks, .. } => ticks.clone(),
            Read::View { .. } => Vec::new(),
        })
        .collect();
    ticks.sort_unstable();
    let last = *ticks.last().expect("ticks");
    assert_eq!(ticks, (0..=last).collect::<Vec<_>>());
}
