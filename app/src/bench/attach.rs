//! `listening_overhead` and `attached_overhead`: what letting an editor in
//! costs a game that drives its session from its own loop
//! (`stepframe_host::debug::Debugger`). demo.ron's frames are run flat out
//! (one `Debugger::frame(1/60)` after another, no pacing) three ways:
//!
//! - not listening (the reference);
//! - listening on loopback with nobody attached: the target is at
//!   most 1.01, "nothing measurable";
//! - attached: an editor's front end over loopback on another thread,
//!   taking every view it is sent and acknowledging it, as the editor
//!   does; target at most 1.05.
//!
//! The attached run includes the relay's copies (each event, and a view
//! each time the editor has credit) and the bridge threads' encoding,
//! which share the machine's cores with the game's loop.

use std::path::Path;

use stepframe_host::debug::Debugger;
use stepframe_host::protocol::{Command, DisplayRate, Outbound};
use stepframe_host::wire::loopback::connect_loopback;
use stepframe_host::wire::{Handshake, Role};

use super::{Figure, Scenes, alternate, time};

const DT: f64 = 1.0 / 60.0;

/// How a run lets an editor in.
#[derive(Clone, Copy, PartialEq)]
enum Door {
    /// Not listening.
    Shut,
    /// Listening, nobody attached.
    Open,
    /// An editor attached and taking views.
    Attached,
}

/// Seconds per frame of `frames` flat-out frames on `scene`.
fn frames_run(scene: &Path, frames: u64, door: Door, scenes: &Scenes) -> anyhow::Result<f64> {
    let registries = crate::Behaviours::built_in().registries();
    let mut debugger = Debugger::new(registries, DisplayRate::Uncapped);
    debugger.load(scene.to_path_buf(), true);
    let mut editor = None;
    if door != Door::Shut {
        let line = debugger.listen()?;
        if door == Door::Attached {
            let ours = Handshake {
                same_executable: false,
                ..Handshake::new(Role::Editor)
            };
            let connection = connect_loopback(line.addr, line.token, &ours)?;
            let (front, bridge) = stepframe_host::link::connect(connection, None)?;
            // The editor: reads everything, acknowledges each live view.
            let reader = std::thread::spawn(move || {
                for message in front.inbound.iter() {
                    if matches!(message, Outbound::Live(_)) {
                        front.send(Command::ViewTaken);
                    }
                }
            });
            editor = Some((reader, bridge));
        }
    }
    for _ in 0..60 {
        debugger.frame(DT);
    }
    if let Some(b) = &scenes.beacon {
        b.announce_session(&scene.to_string_lossy());
    }
    if door == Door::Attached {
        anyhow::ensure!(debugger.attached(), "the editor did not attach");
    }
    let secs = time(|| {
        for _ in 0..frames {
            debugger.frame(DT);
        }
    });
    drop(debugger);
    if let Some((reader, bridge)) = editor {
        // The game is gone: its connection closes and the editor's ends.
        let _ = reader.join();
        bridge.join();
    }
    Ok(secs / frames as f64)
}

/// The `listening_overhead` and `attached_overhead` figures.
pub(super) fn attach_overhead(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let demo = scenes.join("demo.ron");
    let frames = ((1200.0 * scale) as u64).max(60);
    let failed = std::cell::RefCell::new(None);
    let run = |door| {
        frames_run(&demo, frames, door, scenes).unwrap_or_else(|e| {
            *failed.borrow_mut() = Some(e);
            f64::NAN
        })
    };
    // Best of nine: a run is a quarter of a second, and best of five still
    // moved the listening ratio by 1.5% either way, more than the 1% the
    // figure is held to (one `try_recv` a frame costs far less).
    let (open, shut) = alternate(9, || run(Door::Open), || run(Door::Shut));
    let (attached, shut2) = alternate(9, || run(Door::Attached), || run(Door::Shut));
    if let Some(e) = failed.into_inner() {
        return Err(e);
    }
    Ok(vec![
        Figure::ratio(
            "listening_overhead",
            open * 1000.0,
            "ms/frame",
            shut * 1000.0,
            format!(
                "demo.ron, {frames} flat-out Debugger frames listening on loopback with nobody \
                 attached, against not listening"
            ),
        )
        .at_most(1.01),
        Figure::ratio(
            "attached_overhead",
            attached * 1000.0,
            "ms/frame",
            shut2 * 1000.0,
            format!(
                "demo.ron, {frames} flat-out Debugger frames with an editor attached over \
                 loopback taking every view, against not listening"
            ),
        )
        .at_most(1.05),
    ])
}
