//! The stuck-hook watchdog: a worker whose session has been inside one hook
//! call for longer than [`Watchdog::after`] is named in an orange banner
//! (object, behaviour, hook, how long, the CPU its thread burns) with
//! **Abandon and restart from tick N**: the stuck thread is detached (left
//! spinning: nothing in the process can stop a Rust loop) and a new worker
//! starts from the last recovery point, as after a worker death.
//!
//! The UI times the call itself on the watchdog's clock: a call number the
//! worker's beacon still shows is a call still running since the UI first saw
//! it (`worker::thread`). So a call is flagged at most one UI frame late, and a
//! test that injects a [`stepframe_core::ManualTime`] decides when "five
//! seconds" have passed. While a threaded session runs, the UI asks for a
//! repaint twice a second, so it looks even when the silent worker asks for
//! none.

use std::time::{Duration, Instant};

use stepframe_core::{HookCall, LogLevel, WallClock};

use super::Editor;
use crate::editor::shared::StuckHook;

/// Default time one hook call may run before it is called stuck. A frame of
/// a healthy session takes milliseconds; the stall test's 2 s busy-wait is a
/// deliberate hitch the editor should sit out, not flag.
pub const STUCK_AFTER: Duration = Duration::from_secs(3);

/// When a hook call counts as stuck, and the clock that says so.
#[derive(Clone, Debug, PartialEq)]
pub struct Watchdog {
    /// How long one hook call may run.
    pub after: Duration,
    /// The clock the call is timed on (the system clock; a manual one in tests).
    pub clock: WallClock,
}

impl Default for Watchdog {
    fn default() -> Watchdog {
        Watchdog {
            after: STUCK_AFTER,
            clock: WallClock::system(),
        }
    }
}

/// What the watchdog saw of the current call.
#[derive(Clone, Debug)]
pub(super) struct Sighting {
    /// The call.
    call: HookCall,
    /// When the UI first saw it, on the watchdog's clock.
    since: Duration,
    /// The same moment on the real clock, and the thread's CPU time then.
    cpu_from: (Instant, Option<Duration>),
}

impl Editor {
    /// Looks at the worker's beacon (threaded workers only): updates
    /// `published.worker_stuck` and keeps the UI repainting while a session
    /// runs. Never waits.
    pub(super) fn watch_hooks(&mut self, ctx: &egui::Context) {
        if !self.running.watchable() {
            self.sighting = None;
            self.published.worker_stuck = None;
            return;
        }
        let host = &self.running;
        let running = self
            .published
            .live
            .as_ref()
            .is_some_and(|v| v.world.suspension.is_none());
        if running || self.published.worker_stuck.is_some() {
            ctx.request_repaint_after(Duration::from_millis(500));
        }
        let now = self.watchdog.clock.now();
        let Some(call) = host.hook_running() else {
            self.sighting = None;
            self.published.worker_stuck = None;
            return;
        };
        let sighting = match &self.sighting {
            Some(s) if s.call == call => s.clone(),
            _ => {
                let s = Sighting {
                    call,
                    since: now,
                    cpu_from: (Instant::now(), host.cpu_time()),
                };
                self.sighting = Some(s.clone());
                self.published.worker_stuck = None;
                s
            }
        };
        let running_for = now.saturating_sub(sighting.since);
        if running_for < self.watchdog.after {
            return;
        }
        let (t0, cpu0) = sighting.cpu_from;
        let wall = t0.elapsed().as_secs_f64();
        let cpu_share = match (cpu0, host.cpu_time()) {
            (Some(a), Some(b)) if wall > 0.0 => Some(b.saturating_sub(a).as_secs_f64() / wall),
            _ => None,
        };
        let object = self
            .published
            .live
            .as_ref()
            .and_then(|v| v.world.objects.iter().find(|o| o.id == call.object));
        // By its registration number, as the marker names it; an object
        // with one behaviour names it even if the view predates it.
        let behaviour = object.and_then(|o| {
            o.cohort
                .iter()
                .find(|(seq, _)| *seq == call.seq)
                .map(|(_, name)| name.clone())
                .or_else(|| match o.behaviours.as_slice() {
                    [only] => Some(only.clone()),
                    _ => None,
                })
        });
        let object_name = object.map(|o| o.name.clone()).unwrap_or_default();
        let stuck = StuckHook {
            object: call.object,
            object_name,
            behaviour,
            hook: call.hook,
            tick: call.tick,
            process: host.is_process(),
            running_for,
            cpu_share,
        };
        if self.published.worker_stuck.is_none() {
            self.feedback.log.push(
                LogLevel::Warning,
                None,
                format!(
                    "session host stuck: {} has not returned for {:.1} s",
                    stuck.call_text(),
                    running_for.as_secs_f64()
                ),
            );
        }
        self.published.worker_stuck = Some(stuck);
    }

    /// Abandon and restart: the stuck host is killed (a process) or
    /// detached (a thread), and a new host
    /// does the session again up to the end of the last tick that
    /// completed (the timeline's newest record), paused there, before the
    /// frame whose hook never returned.
    pub(super) fn abandon_worker(&mut self) {
        let Some(stuck) = self.published.worker_stuck.take() else {
            return;
        };
        // A child process is killed; a thread is detached and left running.
        self.running.abandon();
        self.sighting = None;
        self.feedback.log.push(
            LogLevel::Warning,
            None,
            format!(
                "abandoned the session host stuck in {} after {:.1} s: {}",
                stuck.call_text(),
                stuck.running_for.as_secs_f64(),
                stuck.abandon_text()
            ),
        );
        let last_tick = self.published.frames.newest().map(|r| r.simulation_tick);
        self.restart_worker(last_tick);
    }
}
