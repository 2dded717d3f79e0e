//! Driving a frame: the frame boundary, the update phase, each fixed tick
//! and the end of the frame, stopping where a [`Stop`] or a suspension says
//! (the order is the module docs' of [`super`]).

use super::*;

impl Pipeline {
    /// Reads wall time for the phase timings from `clock` from now on (the
    /// system clock by default; a [`crate::ManualTime`]'s clock in tests, so
    /// the timing rules of the clock breakpoints can be checked without
    /// sleeping; see [`crate::clock_breakpoint`]).
    pub fn set_wall_clock(&mut self, clock: crate::clock_breakpoint::WallClock) {
        self.wall = clock;
    }

    /// Announces every hook call on `beacon` from now on (`None`: stop), so
    /// a host can tell from another thread which hook has not returned
    /// ([`crate::hook_beacon`]). FixedUpdate then runs its per-call loop.
    pub fn set_hook_beacon(&mut self, beacon: Option<crate::hook_beacon::HookBeacon>) {
        self.beacon = beacon;
    }

    /// Suspends where the cursor says the frame stands. The clock's
    /// `interpolation_alpha` becomes the accumulator over fixed dt of the state
    /// it stopped in, so every reader of the clock (telemetry, the clock panel)
    /// sees the same alpha as the accumulator beside it.
    pub(super) fn suspend(&mut self, reason: SuspendReason) {
        self.suspended = Some(self.suspension_now(reason));
        self.settle_alpha();
    }

    /// `interpolation_alpha = accumulator / fixed_dt` for the state the
    /// pipeline stands in: as soon as the fixed phase has drained the
    /// accumulator (so Flow Tick reads the alpha presentation will), and
    /// wherever it stops outside presentation (a suspension, or a frame whose
    /// presentation was skipped). Above 1 while a frame still owes ticks: 2.25
    /// is two owed ticks and a quarter. Not clamped, so it always matches the
    /// accumulator; presentation never sees more than 1, because a presented
    /// frame has run every tick it owed.
    pub(super) fn settle_alpha(&mut self) {
        let acc = self.sim.stepper.accumulator();
        let fixed = self.sim.stepper.fixed_dt();
        self.sim.clock.accumulator = acc.as_secs_f64();
        self.sim.clock.interpolation_alpha = acc.0 as f64 / fixed.0 as f64;
    }

    pub(super) fn suspension_now(&self, reason: SuspendReason) -> Suspension {
        Suspension {
            end_of_tick: matches!(self.sim.cursor, Cursor::Fixed { .. } | Cursor::Presentation)
                && matches!(
                    reason,
                    SuspendReason::StepTick
                        | SuspendReason::Breakpoint(_)
                        | SuspendReason::Clock(_)
                        | SuspendReason::Watch(_)
                        | SuspendReason::ReachedTick(_)
                        | SuspendReason::Requested { .. }
                        | SuspendReason::Fault { .. }
                ),
            reason,
            tick: self.sim.stepper.completed_ticks(),
            frame: self.sim.frame_index,
        }
    }

    pub(super) fn reset_report(&mut self, kind: FrameKind) {
        let r = &mut self.report;
        r.kind = kind;
        r.frame_index = self.sim.frame_index;
        r.delta_time = self.sim.delta.as_secs_f64();
        r.ticks = 0;
        r.dropped_time = 0.0;
        r.accumulator_before = self.sim.stepper.accumulator().as_secs_f64();
        r.accumulator_after = r.accumulator_before;
        r.suspended = None;
        r.timing.update_ms = 0.0;
        r.timing.fixed_ms = 0.0;
        r.timing.physics_ms = 0.0;
        r.timing.flow_ms = 0.0;
        r.timing.present_ms = 0.0;
        r.timing.fixed_by_priority.clear();
        r.timing.mid_step_by_priority.clear();
        r.clock_change = self.carried_clock_change.take();
        self.zones.reset(self.sim.frame_index, kind);
    }

    pub(super) fn finish_report(&mut self) -> FrameReport {
        self.report.accumulator_after = self.sim.stepper.accumulator().as_secs_f64();
        self.report.suspended = self.suspended.clone();
        self.carried_clock_change = None;
        self.zones
            .set_call(self.report.frame_index, self.report.kind);
        self.report.clone()
    }

    pub(super) fn start_continuation(&mut self) {
        self.reset_report(FrameKind::Continuation);
    }

    pub(super) fn begin_frame(&mut self, raw_dt: f64) {
        let clock_change = self
            .sim
            .pending_settings
            .take()
            .and_then(|s| self.apply_settings(s));
        let clamped = Flicks::from_secs_f64(raw_dt.min(self.sim.settings.max_delta));
        self.sim.delta = clamped.scaled(self.sim.settings.time_scale);
        self.sim.frame_index += 1;
        self.sim.frame_time += self.sim.delta;
        self.in_frame = true;
        self.frame_facts = FrameFacts {
            delta_ms: self.sim.delta.as_secs_f64() * 1000.0,
            ..FrameFacts::default()
        };
        self.reset_report(FrameKind::Frame);
        if clock_change.is_some() {
            self.report.clock_change = clock_change;
        }
        self.sim.scheduler.rebuild(&mut self.sim.world);
        self.refresh_hooks_if_changed();
        self.sim
            .input
            .begin_frame(self.sim.frame_time.as_secs_f64() * 1000.0);
        self.sim.cursor = Cursor::Update {
            hook: HookKind::Start,
            next: 0,
            past_break: false,
        };
    }

    /// Puts `s` in force (at a frame boundary). A change of tick length,
    /// strategy or substeps keeps the tick count and the exact simulation
    /// time ([`FixedStepper::reconfigure`]), is logged, "fixed rate 60 → 50
    /// Hz at tick 600", and is returned for the frame's report.
    pub(super) fn apply_settings(&mut self, s: TimeSettings) -> Option<ClockChange> {
        let before = self.sim.settings;
        self.sim
            .stepper
            .reconfigure(s.strategy, Flicks::per_hz(s.fixed_hz));
        self.sim.settings = s;
        let change = ClockChange {
            after_tick: self.sim.stepper.completed_ticks(),
            fixed_hz: (before.fixed_hz, s.fixed_hz),
            strategy: (before.strategy, s.strategy),
            substeps: (before.substeps, s.substeps),
        };
        let same = change.fixed_hz.0 == change.fixed_hz.1
            && change.strategy.0 == change.strategy.1
            && change.substeps.0 == change.substeps.1;
        if same {
            return None;
        }
        self.sim
            .world
            .log_now(LogLevel::Info, None, None, change.to_string());
        Some(change)
    }

    /// Puts `s` in force now, between two ticks (a session recording's
    /// settings edit, applied at the start of its tick whatever the frame
    /// structure): the frame goes on with the new tick length, owing the
    /// whole new ticks its accumulator holds, never more than it owed before
    /// (the frame's cap still holds). A change waiting for the frame
    /// boundary is dropped: this one is newer.
    pub(crate) fn apply_settings_now(&mut self, s: TimeSettings) {
        let owed = self.sim.stepper.owed();
        let mid_frame = matches!(self.sim.cursor, Cursor::Fixed { advanced: true, .. });
        self.sim.pending_settings = None;
        let change = self.apply_settings(s);
        if mid_frame {
            self.sim.stepper.owe_at_most(owed);
        }
        if change.is_some() {
            self.report.clock_change = change;
            // Made between calls, the next call reports it; made inside one,
            // that call's report does (it drops the carried copy).
            self.carried_clock_change = change;
        }
        self.sync_clock(self.sim.clock.phase, false);
    }

    /// Applies the edits a tick input source has for the pending tick, once
    /// per tick (a suspension and a resume do not apply them again). Returns
    /// whether they changed what the frame owes (a new tick length).
    pub(super) fn apply_tick_edits(&mut self) -> bool {
        let next = self.sim.stepper.completed_ticks() + 1;
        if self.sim.edits_done >= next {
            return false;
        }
        self.sim.edits_done = next;
        let Some(source) = self.tick_input.take() else {
            return false;
        };
        let owed = self.sim.stepper.owed();
        let fixed = self.sim.stepper.fixed_dt();
        source.apply_edits(next, self);
        self.tick_input = Some(source);
        self.sim.stepper.owed() != owed || self.sim.stepper.fixed_dt() != fixed
    }

    /// Rebuilds the dispatch lists if a hook reported a changed hook set.
    pub(super) fn refresh_hooks_if_changed(&mut self) {
        if std::mem::take(&mut self.hooks_changed) {
            self.sim.scheduler.refresh_hooks();
        }
    }

    /// Sets every clock field from the integer state. `pending`: inside a tick
    /// before its physics step (tick = pending one-based index, time = its start).
    pub(super) fn sync_clock(&mut self, phase: Phase, pending: bool) {
        let fixed = self.sim.stepper.fixed_dt();
        let completed = self.sim.stepper.completed_ticks();
        // A pending tick starts when the completed ones end.
        let sim = self.sim.stepper.simulation_time();
        let tick = if pending { completed + 1 } else { completed };
        let c = &mut self.sim.clock;
        c.delta_time = self.sim.delta.as_secs_f64();
        c.frame_time = self.sim.frame_time.as_secs_f64();
        c.frame_index = self.sim.frame_index;
        c.simulation_tick = tick;
        c.simulation_time = sim.as_secs_f64();
        c.fixed_delta_time = fixed.as_secs_f64();
        c.dropped_time = self.sim.stepper.dropped().as_secs_f64();
        c.accumulator = self.sim.stepper.accumulator().as_secs_f64();
        c.phase = phase;
        self.sim.world.stamp = (tick, self.sim.frame_index);
    }

    /// Runs the frame from the cursor until it ends, a suspension, or `stop`.
    pub(super) fn drive(&mut self, stop: Stop) {
        loop {
            match self.sim.cursor {
                Cursor::Idle => return,
                Cursor::Update { .. } => {
                    let t0 = self.wall.now();
                    let zone = self.zones.begin(ZoneKind::Update, t0);
                    let done = self.run_update_phase();
                    let t1 = self.wall.now();
                    self.report.timing.update_ms += ms_between(t0, t1);
                    self.zones.end(zone, t1);
                    if !done {
                        return;
                    }
                    self.refresh_hooks_if_changed();
                    self.sim.cursor = Cursor::Fixed {
                        advanced: false,
                        interrupted: false,
                    };
                }
                Cursor::Fixed {
                    advanced,
                    interrupted,
                } => {
                    let t0 = self.wall.now();
                    let zone = self.zones.begin(ZoneKind::Fixed, t0);
                    if !advanced {
                        let adv = self
                            .sim
                            .stepper
                            .advance(self.sim.delta, self.sim.settings.max_steps);
                        self.report.dropped_time += adv.dropped.as_secs_f64();
                        self.frame_facts.dropped_ms += adv.dropped.as_secs_f64() * 1000.0;
                        self.report.accumulator_before =
                            self.sim.stepper.accumulator().as_secs_f64();
                        self.sim.cursor = Cursor::Fixed {
                            advanced: true,
                            interrupted,
                        };
                    }
                    while self.sim.stepper.owed() > 0 {
                        if self.apply_tick_edits() {
                            // A new tick length: what the frame owes changed.
                            continue;
                        }
                        self.run_tick();
                        self.report.ticks += 1;
                        self.frame_facts.ticks += 1;
                        let completed = self.sim.stepper.completed_ticks();
                        let reached = if self.stop_after_tick == Some(completed) {
                            self.stop_after_tick = None;
                            Some(SuspendReason::ReachedTick(completed))
                        } else {
                            None
                        };
                        let suspend = self.pending_suspend.take().or(reached).or(match stop {
                            Stop::AfterOneTick => Some(SuspendReason::StepTick),
                            Stop::FrameEnd => None,
                        });
                        if let Some(reason) = suspend {
                            self.sim.cursor = Cursor::Fixed {
                                advanced: true,
                                interrupted: true,
                            };
                            self.suspend(reason);
                            let t1 = self.wall.now();
                            self.report.timing.fixed_ms += ms_between(t0, t1);
                            self.zones.end(zone, t1);
                            return;
                        }
                    }
                    let t1 = self.wall.now();
                    self.report.timing.fixed_ms += ms_between(t0, t1);
                    self.zones.end(zone, t1);
                    // The accumulator is drained: alpha is final for this
                    // frame, so Flow Tick reads the value presentation will
                    // (docs/contract.md, steps 4-5), not the previous frame's.
                    self.settle_alpha();
                    let interrupted = matches!(
                        self.sim.cursor,
                        Cursor::Fixed {
                            interrupted: true,
                            ..
                        }
                    );
                    if interrupted {
                        // The rest of a frame interrupted in its fixed phase
                        // (its Flow Tick and its presentation) is skipped.
                        self.sim.cursor = Cursor::Idle;
                        self.sync_clock(Phase::Idle, false);
                        self.end_frame();
                        return;
                    }
                    self.sim.cursor = Cursor::Flow {
                        next: 0,
                        past_break: false,
                    };
                }
                Cursor::Flow { next, past_break } => {
                    let t0 = self.wall.now();
                    let zone = self.zones.begin(ZoneKind::Flow, t0);
                    self.sync_clock(Phase::Update, false);
                    let done = self.hook_pass(HookKind::FlowTick, next, past_break);
                    let t1 = self.wall.now();
                    self.report.timing.flow_ms += ms_between(t0, t1);
                    self.zones.end(zone, t1);
                    if !done {
                        return;
                    }
                    self.sim.cursor = Cursor::Presentation;
                }
                Cursor::Presentation => {
                    let t0 = self.wall.now();
                    let zone = self.zones.begin(ZoneKind::Present, t0);
                    self.run_presentation();
                    let t1 = self.wall.now();
                    self.report.timing.present_ms += ms_between(t0, t1);
                    self.zones.end(zone, t1);
                    self.sim.cursor = Cursor::Idle;
                    if let Some(reason) = self.pending_suspend.take() {
                        self.suspend(reason);
                    }
                    self.sync_clock(Phase::Idle, false);
                    self.end_frame();
                    return;
                }
            }
        }
    }

    /// Start, Update, then frame routines. Returns false when suspended.
    pub(super) fn run_update_phase(&mut self) -> bool {
        self.sync_clock(Phase::Update, false);
        let Cursor::Update {
            mut hook,
            mut next,
            mut past_break,
        } = self.sim.cursor
        else {
            return true;
        };
        loop {
            if !self.hook_pass(hook, next, past_break) {
                return false;
            }
            if hook != HookKind::Start {
                break;
            }
            hook = HookKind::Update;
            next = 0;
            past_break = false;
        }
        let now = self.sim.frame_time;
        self.run_routines(TimeGroup::Frame, now);
        if let Some(reason) = self.pending_suspend.take() {
            self.sim.cursor = Cursor::Fixed {
                advanced: false,
                interrupted: false,
            };
            self.suspend(reason);
            return false;
        }
        true
    }

    /// One update-clock hook (Start, Update or Flow Tick) across the cohort,
    /// from position `next`. A breakpoint suspends before its call (`past_break`
    /// says the call at `next` already fired its breakpoint and now runs); a
    /// requested break or a fault suspends after the call. Returns false when
    /// suspended, with the cursor on the position to go on from.
    pub(super) fn hook_pass(
        &mut self,
        hook: HookKind,
        mut next: usize,
        mut past_break: bool,
    ) -> bool {
        let n = self.sim.scheduler.list(hook).len();
        while next < n {
            if hook == HookKind::Start && self.sim.scheduler.unstarted == 0 {
                break;
            }
            let i = self.sim.scheduler.list(hook)[next] as usize;
            let entry = &self.sim.scheduler.entries[i];
            let wanted =
                entry.is_active(&self.sim.world) && (hook != HookKind::Start || !entry.started);
            if !wanted {
                next += 1;
                continue;
            }
            if !past_break && self.debugger.armed() {
                let (obj, prio) = (entry.object, entry.priority);
                let name = self.sim.scheduler.behaviours[i].name().to_string();
                if let Some(hit) = self.debugger.check(hook, obj, prio, &name, &self.sim.clock) {
                    // Before-hook suspension: this call runs on resume.
                    self.sim.cursor = Cursor::at(hook, next, true);
                    self.suspend(SuspendReason::Breakpoint(hit));
                    return false;
                }
            }
            past_break = false;
            let dt = self.sim.clock.delta_time;
            self.call(i, hook, |b, ctx| match hook {
                HookKind::Start => b.start(ctx),
                HookKind::Update => b.update(ctx, dt),
                _ => b.flow_tick(ctx, dt),
            });
            if std::mem::take(&mut self.rerun_hook)
                && let Some(reason) = self.pending_suspend.take()
            {
                // The hook undid itself and asked to break before it: the
                // call runs again on resume (Start not marked started).
                self.sim.cursor = Cursor::at(hook, next, true);
                self.suspend(reason);
                return false;
            }
            if hook == HookKind::Start {
                self.sim.scheduler.entries[i].started = true;
                self.sim.scheduler.unstarted = self.sim.scheduler.unstarted.saturating_sub(1);
            }
            next += 1;
            if let Some(reason) = self.pending_suspend.take() {
                // A requested break (or fault) in update-clock code: stop after the hook.
                self.sim.cursor = Cursor::at(hook, next, false);
                self.suspend(reason);
                return false;
            }
        }
        true
    }

    /// One fixed tick, from pending to committed.
    pub(super) fn run_tick(&mut self) {
        self.sync_clock(Phase::Fixed, true);
        // Coarse zones: the tick's start, its contacts' end and its end
        // are the only clock reads the phase timings do not already take.
        let tick_zone = if self.zones.on() {
            let pending = self.sim.clock.simulation_tick;
            self.zones.begin(ZoneKind::Tick(pending), self.wall.now())
        } else {
            ZoneId::NONE
        };
        let tick_start = self.sim.stepper.simulation_time();
        self.sim.input.begin_tick(tick_start.as_secs_f64() * 1000.0);
        if let Some(source) = self.tick_input.as_ref() {
            source.events_for_tick(self.sim.clock.simulation_tick, &mut self.replay_scratch);
            for event in self.replay_scratch.drain(..) {
                self.sim.input.deliver_to_tick(event);
            }
        }

        // FixedUpdate across the frozen cohort, timing each priority group.
        let timed_before = self
            .debugger
            .clock_armed()
            .then_some(self.report.timing.fixed_by_priority);
        let dt = self.sim.clock.fixed_delta_time;
        let mut from = 0;
        while let Some(next) = self.fixed_update_batch(from, dt) {
            from = next;
        }
        self.run_routines(TimeGroup::Fixed, tick_start);

        // Physics: reconcile what hooks wrote, then step (with the
        // mid-step hooks inside, if any behaviour has them).
        let t0 = self.wall.now();
        self.sim.physics.reconcile(&mut self.sim.world, dt);
        self.contacts.clear();
        let called_back = self.step_physics(dt);

        // After physics the clock describes the completed tick, and the
        // committed poses are the tick's: contact hooks read both (module docs).
        self.sim.physics.commit(&mut self.sim.world);
        let t1 = self.wall.now();
        let physics_ms = ms_between(t0, t1);
        self.report.timing.physics_ms += physics_ms;
        let zone = self.zones.begin(ZoneKind::Physics, t0);
        if called_back {
            self.record_mid_step_zones(t0, t1);
        }
        self.zones.end(zone, t1);
        self.sim.stepper.expend();
        self.sync_clock(Phase::Fixed, false);
        self.contacts.sort_unstable();
        let contacts_zone = self.zones.begin(ZoneKind::Contacts, t1);
        self.deliver_contacts();
        self.deliver_tears();
        if self.zones.on() {
            self.zones.end(contacts_zone, self.wall.now());
        }
        if let Some(before) = timed_before {
            self.check_tick_rules(&before, physics_ms);
        }

        if let Some(mut observer) = self.observer.take() {
            let hash = if observer.wants_hash() {
                self.state_hash()
            } else {
                0
            };
            observer.on_tick(&TickRecord {
                clock: &self.sim.clock,
                inputs: self.sim.input.delivered_this_tick(),
                contacts: &self.contacts,
                world: &self.sim.world,
                hash,
                state: &*self,
            });
            self.observer = Some(observer);
        }
        if let Some(mut watch) = self.watch.take() {
            if let Some(reason) = watch.after_tick(self)
                && self.pending_suspend.is_none()
            {
                self.pending_suspend = Some(SuspendReason::Watch(reason));
            }
            self.watch = Some(watch);
        }
        if self.zones.on() {
            self.zones.end(tick_zone, self.wall.now());
        }
    }

    /// The frame is over (presented, or its remainder skipped): checks the
    /// clock breakpoints' frame rules, and suspends between frames on a hit.
    pub(super) fn end_frame(&mut self) {
        if !std::mem::take(&mut self.in_frame) {
            return;
        }
        let facts = FrameFacts {
            alpha: self.sim.clock.interpolation_alpha,
            previous_alpha: self.last_alpha,
            ..self.frame_facts
        };
        self.last_alpha = Some(facts.alpha);
        if self.debugger.clock_armed()
            && let Some(hit) = self.debugger.check_frame(&self.sim.clock, &facts)
            && self.suspended.is_none()
        {
            self.suspend(SuspendReason::Clock(hit));
        }
    }
}

/// Milliseconds from `t0` to `t1` (two readings of the wall clock): the
/// phase timings and the zones share these readings.
fn ms_between(t0: std::time::Duration, t1: std::time::Duration) -> f64 {
    t1.saturating_sub(t0).as_secs_f64() * 1000.0
}
