//! Recovery points: the session's snapshot, sent to the UI between frames
//! at most once per [`RECOVERY_EVERY`] of wall time (and again when the
//! worker's own state changes), and [`Worker::restart`], the worker that
//! continues from one after its predecessor died.

use std::sync::Arc;
use std::time::Duration;

use stepframe_core::WallClock;

use super::{Worker, WorkerEnd, scene_watch};
use crate::editor::protocol::{Event, HostState, Pacing, RecoveryPoint};

/// Most wall time between two recovery points while the session runs: a
/// restart after a worker bug loses at most this much play. Measured (release,
/// 2 shared cores, `Pipeline::snapshot` 50 times in a row): demo.ron at tick
/// 600 takes 0.33 to 0.40 ms and about 306 KiB a snapshot; the 10,000-behaviour
/// panic scene of the worker soak 3.2 to 4.7 ms and about 2.3 MiB. Once a
/// second that is under 0.05% of the worker's time for the demo, under 0.5%
/// for the big scene.
pub const RECOVERY_EVERY: Duration = Duration::from_secs(1);

impl Worker {
    /// A worker that continues a session from `point` (the editor's restart
    /// after its worker died): the snapshot restored, the scene kept for Save
    /// and Reload, suspended (paused) at the snapshot's tick. The rewind
    /// history starts empty there. It sends `point`'s state back at once as
    /// its first recovery point. Breakpoints, selection and time settings
    /// changed since the point are the UI's to send again. Build it on the
    /// worker's own thread ([`spawn_with`](super::spawn_with)): restoring
    /// clones every behaviour.
    pub fn restart(
        out: WorkerEnd,
        pacing: Pacing,
        repaint: Option<egui::Context>,
        point: RecoveryPoint,
    ) -> Worker {
        let mut worker = Worker::new(out, pacing, repaint);
        // The snapshot's Script behaviours run on the dead worker's host:
        // keep it, so the code pane's breakpoints still reach them.
        worker.scripts = point.scripts.clone();
        if let Some(scene) = point.scene_path() {
            worker.registry = worker.registry_for_scene(scene);
        }
        worker.session.restore(
            &point
                .snapshot
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        worker.session.pause();
        worker.settings_in_force = *worker.session.pipeline().settings();
        worker.state_hash = worker.session.pipeline().state_hash();
        worker.scene = point.scene.clone();
        // Changes from here on reload (one made while no worker ran is not seen).
        if let Some(scene) = point.scene_path() {
            worker.scene_watch.knows(scene_watch::stamp(scene));
        }
        // The dead worker's own state, as of its newest point.
        let host = point.host.clone();
        worker.session.set_debugger(host.debugger);
        worker.book = host.book;
        worker.session.set_history_budget(host.budget);
        worker.selected = host.selected;
        if host.settings != *worker.session.pipeline().settings() {
            // Applied at the next frame boundary, as the toolbar's are.
            let _ = worker.session.set_settings(host.settings);
        }
        worker.send_recovery_point();
        let (tick, frame) = (point.tick(), point.frame());
        worker.send_event(Event::Restarted { tick, frame });
        // The UI shows the restarted session at once, before any command.
        worker.publish();
        worker
    }

    /// This worker with its recovery cadence ([`RECOVERY_EVERY`]) read from
    /// `clock`: a test's [`stepframe_core::ManualTime`] makes "a second of
    /// running has passed" a call, not a sleep.
    pub fn with_wall_clock(mut self, clock: WallClock) -> Worker {
        self.last_recovery = clock.now();
        self.wall = clock;
        self
    }

    /// Sends a snapshot of the session, between frames, to the UI (latest wins).
    pub(super) fn send_recovery_point(&mut self) {
        self.last_recovery = self.wall.now();
        let point = RecoveryPoint {
            snapshot: Arc::new(std::sync::Mutex::new(self.session.pipeline().snapshot())),
            at: (
                self.session.pipeline().stepper().completed_ticks(),
                self.session.pipeline().clock().frame_index,
            ),
            host: self.host_state(),
            scene: self.scene.clone(),
            scripts: self.scripts.clone(),
        };
        self.out.recovery.send(point.clone());
        self.last_point = Some(point);
    }

    /// The worker's own state beside the session, for recovery points.
    fn host_state(&self) -> HostState {
        HostState {
            debugger: self.session.pipeline().debugger().clone(),
            settings: self.settings(),
            selected: self.selected,
            budget: self.session.history().budget(),
            book: self.book.clone(),
        }
    }

    /// Sends the last recovery point again if the host state changed since
    /// (a breakpoint, a setting, the selection): a restart then brings the
    /// newest back. The snapshot is shared, so this costs no copy of it.
    pub(super) fn refresh_recovery_point(&mut self) {
        let Some(point) = &self.last_point else {
            return;
        };
        let host = &point.host;
        let debugger = self.session.pipeline().debugger();
        let same = host.debugger.breakpoints() == debugger.breakpoints()
            && host.debugger.clock_breakpoints() == debugger.clock_breakpoints()
            && host.settings == self.settings()
            && host.selected == self.selected
            && host.budget == self.session.history().budget();
        if same {
            return;
        }
        let point = RecoveryPoint {
            host: self.host_state(),
            ..point.clone()
        };
        self.out.recovery.send(point.clone());
        self.last_point = Some(point);
    }
}
