//! What the worker sends the UI, in the order it happened: telemetry first,
//! then the events it belongs before, then (latest wins) the view.

use std::time::Instant;

use stepframe_core::{FrameKind, FrameReport};

use super::view::{self, ViewFacts};
use super::{MAX_LOG_BATCH, Worker};
use crate::editor::protocol::{Event, FrameTelemetry, WorldView};

impl Worker {
    pub(super) fn error(&mut self, message: String) {
        self.send_event(Event::Error(message));
    }

    /// Sends an event after the telemetry queued before it (the order the UI
    /// reads them in is the order they happened in).
    pub(super) fn send_event(&mut self, event: Event) {
        self.flush_telemetry();
        // A closed channel means the UI is gone; the thread ends at the next recv.
        let _ = self.out.events.send(event);
    }

    pub(super) fn flush_telemetry(&mut self) {
        if !self.batch.is_empty() {
            let batch = std::mem::take(&mut self.batch);
            let _ = self.out.events.send(Event::Frames(batch));
        }
    }

    pub(super) fn record(&mut self, report: FrameReport, real_dt: f64, t0: Instant) {
        // Hits are labelled in the world they happened in.
        self.book.take(self.session.pipeline());
        if report.kind == FrameKind::NotRun {
            return;
        }
        self.record_settings_change(report.ticks);
        let zones = self.session.pipeline().zones();
        let zones = (!zones.is_empty() && zones.frame_index() == report.frame_index)
            .then(|| Box::new(zones.clone()));
        self.batch.push(FrameTelemetry {
            report,
            clock: *self.session.pipeline().clock(),
            real_dt,
            call_ms: t0.elapsed().as_secs_f64() * 1000.0,
            zones,
        });
        // A what-if branch follows every call that moved the session.
        self.step_fork(real_dt);
    }

    /// The worker's own frames per second over its recent frames.
    pub(super) fn worker_fps(&self) -> Option<f64> {
        let (n, sum) = self
            .rates
            .iter()
            .filter(|dt| **dt > 0.0)
            .fold((0usize, 0.0), |(n, s), dt| (n + 1, s + dt));
        (n > 0).then(|| n as f64 / sum)
    }

    /// Sends the telemetry batch, log lines, suspension events and (latest wins)
    /// the view, if anything changed since the last publish.
    pub(super) fn publish(&mut self) {
        self.drain_ticks();
        self.flush_telemetry();
        if !self.fork_ticks.is_empty() {
            let batch = std::mem::take(&mut self.fork_ticks);
            self.send_event(Event::ForkTicks(batch));
        }
        if !self.divergences.is_empty() {
            let batch = std::mem::take(&mut self.divergences);
            self.send_divergences(batch);
        }
        self.send_watch_events();
        let mut log = self.session.drain_log();
        if !log.is_empty() {
            if log.len() > MAX_LOG_BATCH {
                log.drain(..log.len() - MAX_LOG_BATCH);
            }
            self.send_event(Event::Log(log));
        }
        let now = self.session.pipeline().suspension().cloned();
        if now != self.last_suspension {
            match &now {
                Some(s) => self.send_event(Event::Suspended(s.clone())),
                None => self.send_event(Event::Resumed),
            }
            self.last_suspension = now;
            self.dirty = true;
        }
        if !self.dirty {
            return;
        }
        self.dirty = false;
        self.revision += 1;
        let view = self.live_view();
        self.out.views.send(view);
        if let Some(ctx) = &self.repaint {
            ctx.request_repaint();
        }
    }

    /// The view of the live session now.
    pub(super) fn live_view(&mut self) -> WorldView {
        let clock = self.session.pipeline().clock();
        if clock.simulation_tick != self.pending_edits_tick {
            self.pending_edits.clear();
        }
        let tape = self.shown_tape();
        let facts = self.view_facts(None, self.state_hash, tape);
        view::build(self.session.pipeline(), facts)
    }

    /// What a view says besides the world: of the live session (`at_tick`
    /// `None`, with the edits queued for its next tick) or of past tick T
    /// (`Some(T)`, built in a scratch pipeline: no queued edits). `tape` is
    /// the recording as the session stands ([`Worker::shown_tape`]).
    pub(super) fn view_facts(
        &self,
        at_tick: Option<u64>,
        state_hash: u64,
        tape: std::sync::Arc<stepframe_core::Recording>,
    ) -> ViewFacts<'_> {
        ViewFacts {
            worker: self,
            at_tick,
            state_hash,
            tape,
        }
    }
}
