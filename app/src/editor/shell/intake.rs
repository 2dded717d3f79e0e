//! What the host sends and how it ends: the editor takes every message in
//! stream order (`drain`: the recorded frames, then every panel, then the
//! app's own part, `events`), polls the host each frame, turns a dead host
//! into the banner, and starts a new one that does the session's journal
//! again (`restart_worker`).

use stepframe_core::LogLevel;
use stepframe_host::protocol::Outbound;

use super::Editor;
use super::host::{self, Driver, HostStopped, Running};
use crate::editor::protocol::Command;
use crate::editor::shared::Reading;
use crate::editor::words;

/// Names of objects and behaviours from the newest live view: what names
/// a fault after its host is gone.
pub(super) struct ViewNames<'a>(pub(super) Option<&'a stepframe_host::protocol::LiveView>);

impl stepframe_host::supervise::Names for ViewNames<'_> {
    fn object_name(&self, object: stepframe_core::ObjectId) -> Option<String> {
        let o = self.0?.world.objects.iter().find(|o| o.id == object)?;
        Some(o.name.clone())
    }

    fn behaviour_name(&self, object: stepframe_core::ObjectId, seq: u64) -> Option<String> {
        let o = self.0?.world.objects.iter().find(|o| o.id == object)?;
        let (_, name) = o.cohort.iter().find(|(s, _)| *s == seq)?;
        Some(name.clone())
    }
}

impl Editor {
    /// What the editor does while its window is hidden: it takes what the
    /// host sent (the timeline's frames, the newest view, acknowledged),
    /// so the host's views keep flowing and an hour minimised does not
    /// pile an hour of messages up in the connection for the first frame
    /// shown to take at once. Nothing is drawn, no shortcut read, and a
    /// host the editor drives runs no frame.
    pub fn take_while_hidden(&mut self) {
        self.drain();
    }

    /// Takes everything the host sent, in order: every event, and the
    /// newest live and past views between them. A live view taken is
    /// acknowledged, so the host may send the next (one in flight).
    pub(super) fn drain(&mut self) {
        let mut took_view = false;
        while let Ok(message) = self.front.inbound.try_recv() {
            // A driven host's messages never crossed a wire: they cross
            // the codec here, so nothing that cannot reaches the panels.
            let message = if self.driven {
                match host::through_codec(message) {
                    Ok(message) => message,
                    Err(e) => {
                        self.feedback
                            .error(format!("a host message does not cross the wire: {e}"));
                        continue;
                    }
                }
            } else {
                message
            };
            took_view |= self.take(message);
        }
        if took_view {
            self.commands.send(Command::ViewTaken);
        }
        if let Some(live) = &self.published.live
            && self.published.frames.hold_an_hour(live.display_rate)
        {
            self.panels
                .timeline
                .hold_an_hour(self.published.frames.capacity());
        }
    }

    /// Takes one message of the host's, in stream order. True for a live
    /// view (which the host waits to hear was taken).
    pub(super) fn take(&mut self, message: Outbound) -> bool {
        match message {
            Outbound::Event(event) => {
                // The one place events are handed on, in this order: the
                // facts every panel reads (the recorded frames, the
                // bookmarks: a panel reads them as of the event it takes),
                // every panel, then the app's own part.
                self.published.frames.on_event(&event);
                if let Some(why) = self.bookmarks.on_event(&event) {
                    self.feedback.notify(LogLevel::Error, why);
                }
                let reading = reading_of!(self);
                self.panels.on_event(&event, &reading, &mut self.commands);
                self.on_event(*event);
                false
            }
            Outbound::Live(view) => {
                // In stream order: the events after it (a newly plotted
                // watch's values, its history fill) are read against it.
                self.published.live = Some(*view);
                true
            }
            Outbound::Past(view) => {
                self.published.past = Some(*view);
                false
            }
        }
    }

    /// Runs the driven host's frame, or asks the host whether it has
    /// ended, and takes what a host process printed into the log. Returns
    /// why the host stopped, if it just did. Never waits.
    pub(super) fn poll_worker(&mut self) -> Option<HostStopped> {
        let names = ViewNames(self.published.live.as_ref());
        let stopped = self.running.poll(&names);
        // The tick the newest view shows: a line printed before the
        // session's first view (a game just attached) names none.
        let tick = self
            .published
            .live
            .as_ref()
            .map(|l| l.world.clock.simulation_tick);
        for line in self.running.printed() {
            let level = if line.stderr {
                LogLevel::Warning
            } else {
                LogLevel::Info
            };
            let stream = if line.stderr { "stderr" } else { "stdout" };
            let at = tick.map_or_else(String::new, |t| format!(", tick {t}"));
            self.feedback
                .log
                .push(level, None, format!("host {stream}{at}: {}", line.text));
        }
        stopped
    }

    /// The host died: show it, keep what it sent, and stop sending to it.
    pub(super) fn on_worker_stopped(&mut self, stopped: HostStopped) {
        self.running.let_go();
        self.running = Running::Stopped;
        if matches!(stopped, HostStopped::GameGone(_)) {
            self.feedback
                .log
                .push(LogLevel::Error, None, format!("{stopped}"));
            self.published.worker_stopped = Some(stopped);
            return;
        }
        self.feedback.log.push(
            LogLevel::Error,
            None,
            format!(
                "the session host stopped: {stopped}; Restart starts a new one and does \
                 the session's {} again",
                words::count(self.published.journal.len() as u64, "step", "steps")
            ),
        );
        self.published.worker_stopped = Some(stopped);
    }

    /// Starts a new host, run the way the first one was, which does the
    /// session's journal again and stands, suspended, where the dead one
    /// was, or at the end of tick `stop_after` (the journal's module docs).
    pub(super) fn restart_worker(&mut self, stop_after: Option<u64>) {
        if matches!(self.driver, Driver::Attach { .. }) {
            self.feedback.error(
                "Restart does not apply to a game you attached to: start the game again and \
                 attach, or Detach to open its scene in a session of the editor's own",
            );
            return;
        }
        if !matches!(self.running, Running::Stopped) {
            return;
        }
        // Never straight back into a fault: stop at the end of the tick
        // before the one it struck in.
        let stop_after = stop_after.or_else(|| {
            let tick = self.published.worker_stopped.as_ref()?.tick()?;
            Some(tick.saturating_sub(1))
        });
        let rate = self
            .published
            .live
            .as_ref()
            .map_or(self.persisted.display_rate, |v| v.display_rate);
        let (front, running) = match host::start(&self.driver, rate, &self.registries, &self.waker)
        {
            Ok(started) => started,
            Err(e) => {
                self.feedback
                    .error(format!("cannot start a session host: {e}"));
                return;
            }
        };
        self.front = front;
        self.running = running;
        self.commands.reconnect(self.front.commands.clone());
        // The new host journals what it does again: the editor's copy starts
        // afresh with it.
        let mut journal = std::mem::take(&mut self.published.journal);
        if let Some(HostStopped::Fault(fault)) = &self.published.worker_stopped {
            journal = fault.journal_for_restart(journal);
        }
        self.commands.send(Command::Restore {
            journal,
            stop_after,
            fresh_files: false,
        });
        self.published.worker_stopped = None;
        self.feedback.error = None;
        self.follow_live();
    }
}
