//! `fork_overhead`: what a what-if branch costs. The editor's worker runs
//! demo.ron at 60 Hz, unforked and with branch B forked at tick 60 (B then
//! runs in lockstep, measured against A at every tick), through the same
//! synchronous driver the tests use (`Worker::pump`, views built as in the
//! app). The issue asks for about one extra session's worth of stepping: the
//! target is a ratio of at most 2.2 (a whole second session, and the
//! measuring, on top of the one shared UI cost).

use std::path::Path;

use crate::editor::protocol::{BranchCommand, Command, DisplayRate, Run, SceneCommand};
use crate::editor::worker::{self, Worker};

use super::{Figure, Scenes, alternate, time};

const DT: f64 = 1.0 / 60.0;

/// Seconds per frame of `frames` worker frames on `scene`, forked or not.
fn worker_run(scene: &Path, frames: u64, fork: bool, scenes: &Scenes) -> f64 {
    let (ui, end) = worker::channels();
    let registries = crate::Behaviours::built_in().registries();
    let mut w = Worker::new(end, DisplayRate::Hz(60), registries);
    if let Some(b) = &scenes.beacon {
        w.set_hook_beacon(b.clone());
    }
    let drain = |ui: &worker::FrontEnd| {
        let _ = ui.take();
    };
    ui.send(Command::Scene(SceneCommand::Load {
        path: scene.to_path_buf(),
        play: true,
    }));
    for _ in 0..60 {
        w.pump(DT);
        drain(&ui);
    }
    if let Some(b) = &scenes.beacon {
        // The worker's load cleared the session's name.
        b.announce_session(&scene.to_string_lossy());
    }
    if fork {
        ui.send(Command::Run(Run::Pause));
        ui.send(Command::BranchB(BranchCommand::ForkHere(60)));
        ui.send(Command::Run(Run::Play));
    }
    let secs = time(|| {
        for _ in 0..frames {
            w.pump(DT);
            drain(&ui);
        }
    });
    secs / frames as f64
}

/// The `fork_overhead` figure.
pub(super) fn fork_overhead(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let demo = scenes.join("demo.ron");
    let frames = ((600.0 * scale) as u64).max(30);
    let (forked, plain) = alternate(
        3,
        || worker_run(&demo, frames, true, scenes),
        || worker_run(&demo, frames, false, scenes),
    );
    Ok(vec![
        Figure::ratio(
            "fork_overhead",
            forked * 1000.0,
            "ms/frame",
            plain * 1000.0,
            format!(
                "the editor worker on demo.ron, {frames} frames at 60 Hz, with branch B forked at \
                 tick 60 and run in lockstep, against the unforked session"
            ),
        )
        .at_most(2.2),
    ])
}
