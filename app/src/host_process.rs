//! `stepframe host`: the session host in a process of its own, as the
//! editor starts it (never by hand). The editor runs its session here, a
//! child of the same executable (for a game built with [`crate::Game`], the
//! game's own binary, with its behaviours), so a fault no process survives
//! (an abort, a stack overflow, memory exhausted, an endless loop the
//! editor kills) takes down this process and not the editor.
//!
//! The editor and this process talk through an inherited socket, never
//! standard output: user code prints there (`println!`), and one stray line
//! would corrupt a stream of frames. What this process prints goes to the
//! editor's Log instead, stamped with the tick.

use std::process::ExitCode;

use stepframe_host::protocol::DisplayRate;
use stepframe_host::wire::{Handshake, Role, WireError, child};
use stepframe_host::{Worker, link, worker};

/// Runs the session host on the socket the editor left this process.
pub fn run(
    behaviours: &crate::Behaviours,
    beacon: Option<&stepframe_core::HookBeacon>,
) -> ExitCode {
    let connection = match child::join_parent(&Handshake::new(Role::Host)) {
        Ok(Some(connection)) => connection,
        Ok(None) => {
            eprintln!(
                "stepframe host: the editor starts its session host itself; there is no \
                 socket from an editor here (run `stepframe edit` instead)"
            );
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("stepframe host: no connection to the editor: {e}");
            return ExitCode::from(2);
        }
    };
    let (end, bridge) = match link::serve(connection) {
        Ok(served) => served,
        Err(e) => {
            eprintln!("stepframe host: cannot start its bridge threads: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The editor sends the display rate it wants before anything else.
    let mut host = Worker::new(end, DisplayRate::default(), behaviours.registries());
    // The editor's fault marker: every hook call announced where the editor
    // reads it after this process is gone.
    if let Some(beacon) = beacon {
        host.set_hook_beacon(beacon.clone());
    }
    worker::run_here(host);
    // The worker ends when its commands do: the editor closed the link (an
    // orderly end), or the link broke, which the editor is told through
    // this process's stderr and exit status.
    let why = bridge.ended();
    bridge.join();
    match why {
        Some(e) if !matches!(e, WireError::Closed) => {
            eprintln!("stepframe host: the link to the editor broke: {e}");
            ExitCode::FAILURE
        }
        _ => ExitCode::SUCCESS,
    }
}
