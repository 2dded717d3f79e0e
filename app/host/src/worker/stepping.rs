//! Stepping: the live [`Session`] (pipeline and rewind history, owned
//! together so nothing steps around the history), the display rate it is
//! paced to, the input waiting for its next call, the time settings in
//! force and the state hash of its last tick.
//!
//! Every call that advances the session goes through here and through the
//! history, so "Resume from here" and the time cursor can rebuild any kept
//! tick.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};
use stepframe_core::{
    FrameReport, History, InputEvent, Pipeline, Session, TimeSettings, ZoneDetail,
};

use super::outbox::Outbox;
use super::tap::{TickNews, TickTap};
use crate::protocol::{DisplayRate, FrameTelemetry, HostError, TimeSetting};
use crate::traced::TracePoses;

/// Frames the host's rate is measured over.
const RATE_WINDOW: usize = 60;

/// The live session and how it is stepped (module docs).
pub(super) struct Stepping {
    /// The pipeline and its history: the only way to step, edit and rewind.
    pub(super) session: Session,
    /// How often the host runs an outer frame.
    display_rate: DisplayRate,
    /// Input events from the front end, handed to the next call through the
    /// history (so a rewind replays them).
    pending_inputs: Vec<InputEvent>,
    /// The settings in force after the last call: a change between two
    /// calls is a settings edit of the session recording.
    settings_in_force: TimeSettings,
    /// Hash after the last tick.
    state_hash: u64,
    /// Whether the live tap hashes each tick (off while a journal is done
    /// again: [`Stepping::hash_ticks`]).
    hashing: Arc<AtomicBool>,
    /// A tick ran whose hash was not taken: `state_hash` is an older tick's
    /// until [`Stepping::hash_ticks`] makes it again.
    hash_behind: bool,
    /// Real dt of the last frames, for the host's rate in the view.
    rates: VecDeque<f64>,
    /// Tick hashes and inputs from the observer, drained after each call.
    ticks: Receiver<TickNews>,
    /// The observer's sender, reinstalled after a new session.
    tick_tx: Sender<TickNews>,
    /// Where every hook call is announced, if a watchdog reads it (put
    /// back on an adopted branch's pipeline).
    beacon: Option<stepframe_core::HookBeacon>,
}

impl Stepping {
    /// An empty session, suspended, at `display_rate`.
    pub(super) fn new(display_rate: DisplayRate) -> Stepping {
        let settings = TimeSettings::default();
        let (tick_tx, ticks) = crossbeam_channel::unbounded();
        let mut pipeline = Pipeline::new(settings);
        // The Flame tab's live zones: a few clock reads a tick, no
        // allocation (`stepframe_core::flame`).
        pipeline.set_zone_detail(ZoneDetail::Coarse);
        pipeline.pause();
        let mut run = Stepping {
            session: Session::new(pipeline, History::default()),
            display_rate,
            pending_inputs: Vec::new(),
            settings_in_force: settings,
            state_hash: 0,
            hashing: Arc::new(AtomicBool::new(true)),
            hash_behind: false,
            rates: VecDeque::with_capacity(RATE_WINDOW),
            ticks,
            tick_tx,
            beacon: None,
        };
        run.observe(None, false);
        run
    }

    /// Installs the tick observer: hashes and input for the view, run B of
    /// a comparison measured against every tick, and every tick's record
    /// while a fork pairs them.
    pub(super) fn observe(&mut self, compare: Option<Arc<TracePoses>>, trace: bool) {
        self.session.set_tick_observer(Some(Box::new(TickTap {
            tx: self.tick_tx.clone(),
            compare,
            trace,
            hashing: Some(self.hashing.clone()),
        })));
    }

    /// Announces every hook call on `beacon` from now on.
    pub(super) fn set_hook_beacon(&mut self, beacon: stepframe_core::HookBeacon) {
        self.session.set_hook_beacon(Some(beacon.clone()));
        self.beacon = Some(beacon);
    }

    /// The session's pipeline is another one now (an adopted branch): the
    /// hook beacon goes on announcing its hook calls.
    pub(super) fn replaced(&mut self) {
        if let Some(beacon) = &self.beacon {
            self.session.set_hook_beacon(Some(beacon.clone()));
        }
        self.resync();
    }

    /// What the ticks since the last drain told.
    pub(super) fn tick_news(&mut self) -> Vec<TickNews> {
        let news: Vec<TickNews> = self.ticks.try_iter().collect();
        if let Some(last) = news.last() {
            if let Some(hash) = last.hash {
                self.state_hash = hash;
            }
            self.hash_behind = last.hash.is_none();
        }
        news
    }

    /// Turns the hash of every live tick on or off. Off, a tick costs a
    /// pass over the state less (`TickObserver::wants_hash`), which only
    /// the view reads, and only the last tick's: a journal done again runs
    /// thousands of ticks between two views. Turned on again after ticks
    /// ran unhashed, the last tick's hash is made from the history (its
    /// state rebuilt from the newest keyframe before it, as a past view
    /// is), since the live pipeline may have moved on from the end of that
    /// tick (the frame's variable update, an edit while suspended). Drain
    /// the tick news first.
    pub(super) fn hash_ticks(&mut self, on: bool) {
        self.hashing.store(on, Ordering::Relaxed);
        if on && self.hash_behind {
            self.hash_behind = false;
            let tick = self.completed_ticks();
            let mut scratch = Pipeline::new(self.settings());
            self.state_hash = match self.session.replay_into(&mut scratch, tick) {
                Ok(()) => scratch.state_hash(),
                // The live tick is always within the history's reach; were
                // it not, the session's own state is the nearest there is.
                Err(_) => self.session.pipeline().state_hash(),
            };
        }
    }

    /// A new world: nothing waits, no hash yet, the settings it runs with
    /// in force, no tick news of the old one.
    pub(super) fn new_world(&mut self) {
        while self.ticks.try_recv().is_ok() {}
        self.pending_inputs.clear();
        self.state_hash = 0;
        self.hash_behind = false;
        self.settings_in_force = *self.session.pipeline().settings();
    }

    /// The session changed without a tick (a rewind, an adopted branch, a
    /// restore): the hash is the pipeline's, the settings its own.
    pub(super) fn resync(&mut self) {
        while self.ticks.try_recv().is_ok() {}
        self.state_hash = self.session.pipeline().state_hash();
        self.hash_behind = false;
        self.settings_in_force = *self.session.pipeline().settings();
    }

    /// Hash of the committed state after the last tick.
    pub(super) fn state_hash(&self) -> u64 {
        self.state_hash
    }

    /// Completed ticks.
    pub(super) fn completed_ticks(&self) -> u64 {
        self.session.pipeline().stepper().completed_ticks()
    }

    /// True while suspended.
    pub(super) fn is_suspended(&self) -> bool {
        self.session.pipeline().suspension().is_some()
    }

    /// The display rate.
    pub(super) fn display_rate(&self) -> DisplayRate {
        self.display_rate
    }

    /// A new display rate.
    pub(super) fn set_display_rate(&mut self, rate: DisplayRate) {
        self.display_rate = rate;
    }

    /// Time settings as chosen: the ones the next frame runs with.
    pub(super) fn settings(&self) -> TimeSettings {
        *self.session.pipeline().next_settings()
    }

    /// The same, for the features that build scratch pipelines.
    pub(super) fn next_settings(&self) -> TimeSettings {
        self.settings()
    }

    /// A device event for the next call.
    pub(super) fn push_input(&mut self, event: InputEvent) {
        self.pending_inputs.push(event);
    }

    /// Input typed while suspended is dropped by a rewind: it was meant
    /// for a tick that is no longer next.
    pub(super) fn drop_inputs(&mut self) {
        self.pending_inputs.clear();
    }

    /// One outer frame of `dt` real seconds through the history.
    pub(super) fn step_frame(&mut self, dt: f64) -> (FrameReport, Instant) {
        let t0 = Instant::now();
        let inputs = std::mem::take(&mut self.pending_inputs);
        (self.session.step_frame(dt, &inputs), t0)
    }

    /// One fixed tick, then suspended again.
    pub(super) fn step_tick(&mut self) -> (FrameReport, Instant) {
        let t0 = Instant::now();
        let inputs = std::mem::take(&mut self.pending_inputs);
        (self.session.step_tick(&inputs), t0)
    }

    /// One outer frame of `dt`, then suspended again.
    pub(super) fn step_one_frame(&mut self, dt: f64) -> (FrameReport, Instant) {
        let t0 = Instant::now();
        let inputs = std::mem::take(&mut self.pending_inputs);
        (self.session.step_one_frame(dt, &inputs), t0)
    }

    /// Lifts the suspension (finishing an interrupted frame); input typed
    /// while suspended reaches the next tick.
    pub(super) fn resume(&mut self) -> (FrameReport, Instant) {
        let t0 = Instant::now();
        let inputs = std::mem::take(&mut self.pending_inputs);
        (self.session.resume(&inputs), t0)
    }

    /// A toolbar change of one time setting. Running, it waits for the
    /// next frame boundary (the contract's moment for it) and `None` comes
    /// back. Suspended, the session stands between two ticks, so the new
    /// settings come back for the caller to apply at once, as an edit
    /// before the next tick: the tick F10 steps runs at the rate the
    /// toolbar shows, and a replay of the session recording applies it
    /// there too.
    pub(super) fn change_setting(
        &mut self,
        setting: TimeSetting,
        out: &mut Outbox,
    ) -> Option<TimeSettings> {
        let mut next = self.settings();
        match setting {
            TimeSetting::TimeScale(scale) => next.time_scale = scale,
            TimeSetting::FixedRate(hz) => next.fixed_hz = hz,
            TimeSetting::MaxSteps(n) => next.max_steps = n,
            TimeSetting::Strategy(strategy) => next.strategy = strategy,
        }
        if let Err(reason) = next.validate() {
            out.error(HostError::TimeSettings(reason.to_string()));
            return None;
        }
        if !self.is_suspended() {
            if let Err(reason) = self.session.set_settings(next) {
                out.error(HostError::TimeSettings(reason.to_string()));
            }
            return None;
        }
        (next != *self.session.pipeline().settings()).then_some(next)
    }

    /// The settings in force are what the pipeline runs with now (after a
    /// settings edit applied them at once).
    pub(super) fn settings_applied(&mut self) {
        self.settings_in_force = *self.session.pipeline().settings();
    }

    /// A settings change that took effect in the call just made, which ran
    /// `ticks_of_call` ticks: the tick it applies before and the settings,
    /// for the session recording. Settings apply at a frame boundary,
    /// before any tick of the frame, so that is the tick after the ticks
    /// before the call.
    pub(super) fn settings_change(&mut self, ticks_of_call: u32) -> Option<(u64, TimeSettings)> {
        let now = *self.session.pipeline().settings();
        if now == self.settings_in_force {
            return None;
        }
        self.settings_in_force = now;
        let first = self
            .completed_ticks()
            .saturating_sub(u64::from(ticks_of_call))
            + 1;
        Some((first, now))
    }

    /// The timeline's record of the call just made.
    pub(super) fn telemetry(
        &self,
        report: FrameReport,
        real_dt: f64,
        t0: Instant,
    ) -> FrameTelemetry {
        let pipeline = self.session.pipeline();
        let zones = pipeline.zones();
        let zones = (!zones.is_empty() && zones.frame_index() == report.frame_index)
            .then(|| Box::new(zones.clone()));
        FrameTelemetry {
            report,
            clock: *pipeline.clock(),
            real_dt,
            call_ms: t0.elapsed().as_secs_f64() * 1000.0,
            zones,
        }
    }

    /// A frame of `dt` real seconds ran: the host's rate.
    pub(super) fn note_rate(&mut self, dt: f64) {
        if self.rates.len() == RATE_WINDOW {
            self.rates.pop_front();
        }
        self.rates.push_back(dt);
    }

    /// The host's own frames per second over its recent frames.
    pub(super) fn host_fps(&self) -> Option<f64> {
        let (n, sum) = self
            .rates
            .iter()
            .filter(|dt| **dt > 0.0)
            .fold((0usize, 0.0), |(n, s), dt| (n + 1, s + dt));
        (n > 0).then(|| n as f64 / sum)
    }
}
