//! Calling behaviours: FixedUpdate in priority batches with its breakpoint
//! and clock-rule checks, contacts and tears, presentation, routines, and
//! the one guarded call every hook goes through (panics caught, requests
//! taken, faults reported).

use super::*;
use crate::behaviour::Caller;
use crate::schedule::FixedCall;

impl Pipeline {
    /// FixedUpdate for the cohort from list position `from` on, in one panic
    /// guard and one context: the hot loop of the runtime. It walks the
    /// packed calls ([`FixedCall`]) one priority group at a time (timed per
    /// group, not per call). While the gate flags read before the pass hold
    /// and no breakpoint is armed, calls go through [`fixed_run`], which per
    /// call only tests its flag, calls, and looks at two bytes afterwards;
    /// otherwise each call checks its own gate and the breakpoints. It leaves
    /// the batch (returning where to go on) when a hook panicked or asked for
    /// something (a break, a routine), which are handled outside with the
    /// whole pipeline at hand.
    pub(super) fn fixed_update_batch(&mut self, from: usize, dt: f64) -> Option<usize> {
        let Pipeline {
            sim:
                SimulationState {
                    scheduler,
                    world,
                    clock,
                    input,
                    rng,
                    ..
                },
            requests,
            debugger,
            pending_suspend,
            report,
            wall,
            beacon,
            zones,
            ..
        } = self;
        // Fine zones time each call, so they take the per-call loop.
        let fine = zones.fine();
        let beacon = beacon.as_ref();
        let gates_read = scheduler.fixed_gates(world);
        let Scheduler {
            entries,
            behaviours,
            fixed_calls,
            fixed_groups,
            ..
        } = scheduler;
        let calls = &fixed_calls[..];
        let groups = &fixed_groups[..];
        let first_group = groups.partition_point(|g| g.end <= from);
        // The group being timed, once one of its calls has run: its priority
        // and when the group began.
        let mut timing: Option<(Priority, std::time::Duration)> = None;
        // The group's zone, begun with the group (ended or cancelled with it).
        let mut group_zone = ZoneId::NONE;
        let outcome = {
            let caller = Caller {
                object: ObjectId(0),
                seq: 0,
            };
            let input = input.fixed_snapshot();
            let hook = HookKind::FixedUpdate;
            let mut ctx = Ctx::new(world, clock, input, rng, requests, caller, hook);
            // Hooks cannot arm breakpoints, so this holds for the pass.
            let breakpoints = debugger.armed();
            // The pass is announced once; the fast loop then stores each
            // call's object and behaviour (hook_beacon's module docs).
            let tick = ctx.clock.simulation_tick;
            let pass = beacon.map(|b| {
                let first = calls.get(from).map_or(
                    Caller {
                        object: ObjectId(0),
                        seq: 0,
                    },
                    |c| c.caller,
                );
                b.enter(first.object, first.seq, HookKind::FixedUpdate, tick);
                b.calls()
            });
            catch_unwind(AssertUnwindSafe(|| {
                for group in &groups[first_group..] {
                    let t0 = wall.now();
                    group_zone = zones.begin(ZoneKind::FixedUpdate(group.priority), t0);
                    let mut k = group.start.max(from);
                    while k < group.end {
                        // The gates read before the pass hold until a hook
                        // changes one (a removal, a disable): from then on,
                        // every call checks its own (module docs of `schedule`).
                        if gates_read && !breakpoints && !fine && !ctx.world.gates_changed.0 {
                            let run = &calls[k..group.end];
                            let (stop, called) = match pass {
                                None => fixed_run(run, behaviours, &mut ctx, dt, |_| {}),
                                Some(pass) => fixed_run(run, behaviours, &mut ctx, dt, |c| {
                                    pass.call(c.object, c.seq)
                                }),
                            };
                            if called && timing.is_none() {
                                timing = Some((group.priority, t0));
                            }
                            match stop {
                                None => break,
                                Some(j) if ctx.requests.any => return Some(k + j),
                                Some(j) => k += j + 1,
                            }
                            continue;
                        }
                        let call = &calls[k];
                        let i = call.entry as usize;
                        k += 1;
                        if !entries[i].is_active(ctx.world) {
                            continue;
                        }
                        if timing.is_none() {
                            timing = Some((group.priority, t0));
                        }
                        let behaviour = &mut behaviours[i];
                        if breakpoints
                            && let Some(hit) = debugger.check(
                                HookKind::FixedUpdate,
                                call.caller.object,
                                group.priority,
                                behaviour.name(),
                                ctx.clock,
                            )
                            && pending_suspend.is_none()
                        {
                            *pending_suspend = Some(SuspendReason::Breakpoint(hit));
                        }
                        ctx.caller = call.caller;
                        if let Some(b) = beacon {
                            b.enter(
                                call.caller.object,
                                call.caller.seq,
                                HookKind::FixedUpdate,
                                tick,
                            );
                        }
                        let call_zone = if fine {
                            let kind = ZoneKind::Call {
                                hook: HookKind::FixedUpdate,
                                object: call.caller.object,
                                behaviour: zones.name_index(behaviour.name()),
                            };
                            zones.begin(kind, wall.now())
                        } else {
                            ZoneId::NONE
                        };
                        behaviour.fixed_update(&mut ctx, dt);
                        if fine {
                            zones.end(call_zone, wall.now());
                        }
                        if ctx.requests.any {
                            return Some(k - 1);
                        }
                    }
                    if let Some((p, t0)) = timing.take() {
                        let t1 = wall.now();
                        report
                            .timing
                            .fixed_by_priority
                            .add(p, t1.saturating_sub(t0).as_secs_f64() * 1000.0);
                        zones.end(group_zone, t1);
                    } else {
                        zones.cancel(group_zone);
                    }
                    group_zone = ZoneId::NONE;
                }
                None
            }))
            .map_err(|payload| (payload, ctx.caller.seq))
        };
        if let Some(b) = beacon {
            b.leave();
        }
        if let Some((p, t0)) = timing {
            let t1 = self.wall.now();
            self.report
                .timing
                .fixed_by_priority
                .add(p, t1.saturating_sub(t0).as_secs_f64() * 1000.0);
            self.zones.end(group_zone, t1);
        } else {
            self.zones.cancel(group_zone);
        }
        let calls = &self.sim.scheduler.fixed_calls;
        // The position whose hook returned with a request or panicked (found
        // by its entry's unique sequence number: the loop keeps no position
        // outside its registers).
        let (current, fault) = match outcome {
            Ok(None) => return None,
            Ok(Some(k)) => (k, None),
            Err((payload, seq)) => {
                let k = from
                    + calls[from..]
                        .iter()
                        .position(|c| c.caller.seq == seq)
                        .expect("the call that panicked is in this pass");
                (k, Some(payload))
            }
        };
        let i = calls[current].entry as usize;
        let object = self.sim.scheduler.entries[i].object;
        if let Some(payload) = fault {
            self.sim.scheduler.set_faulted(i);
            self.report_fault(object, HookKind::FixedUpdate, &payload);
        }
        self.take_requests(object, HookKind::FixedUpdate);
        Some(current + 1)
    }

    /// Fixed-phase breakpoints record the hit now and suspend at the end of the tick.
    pub(super) fn check_fixed_breakpoint(&mut self, i: usize, hook: HookKind) {
        if !self.debugger.armed() {
            return;
        }
        let entry = &self.sim.scheduler.entries[i];
        let (obj, prio) = (entry.object, entry.priority);
        let name = self.sim.scheduler.behaviours[i].name().to_string();
        if let Some(hit) = self.debugger.check(hook, obj, prio, &name, &self.sim.clock)
            && self.pending_suspend.is_none()
        {
            self.pending_suspend = Some(SuspendReason::Breakpoint(hit));
        }
    }

    /// The clock breakpoints' tick rules, at the end of the tick: this tick's
    /// FixedUpdate time per priority is the frame's running total now less
    /// what it was before the tick.
    pub(super) fn check_tick_rules(&mut self, before: &PriorityTimes, physics_ms: f64) {
        let mut this_tick = [(Priority::DEFAULT, 0.0); MAX_TIMED_PRIORITIES];
        let mut n = 0;
        for (priority, total) in self.report.timing.fixed_by_priority.iter() {
            let earlier = before
                .iter()
                .find(|(p, _)| *p == priority)
                .map_or(0.0, |(_, ms)| ms);
            this_tick[n] = (priority, total - earlier);
            n += 1;
        }
        let facts = TickFacts {
            physics_ms,
            fixed_by_priority: &this_tick[..n],
        };
        if let Some(hit) = self.debugger.check_tick(&self.sim.clock, &facts)
            && self.pending_suspend.is_none()
        {
            self.pending_suspend = Some(SuspendReason::Clock(hit));
        }
    }

    pub(super) fn deliver_contacts(&mut self) {
        for c in 0..self.contacts.len() {
            let event = self.contacts[c];
            for (me, other) in [(event.a, event.b), (event.b, event.a)] {
                let count = self.sim.scheduler.entries_of(me).len();
                for k in 0..count {
                    let i = self.sim.scheduler.entries_of(me)[k].1 as usize;
                    let e = &self.sim.scheduler.entries[i];
                    if !e.hooks.contains(Hooks::CONTACT) || !e.is_active(&self.sim.world) {
                        continue;
                    }
                    self.check_fixed_breakpoint(i, HookKind::Contact);
                    self.call(i, HookKind::Contact, |b, ctx| {
                        b.on_contact(ctx, other, event.kind)
                    });
                }
            }
        }
    }

    /// The tick's soft-body tears, to the torn objects' contact-hook
    /// behaviours, in the order they happened.
    pub(super) fn deliver_tears(&mut self) {
        let mut tears = std::mem::take(&mut self.tears);
        self.sim.physics.take_tears(&mut tears);
        for tear in &mut tears {
            tear.tick = self.sim.clock.simulation_tick;
            let count = self.sim.scheduler.entries_of(tear.object).len();
            for k in 0..count {
                let i = self.sim.scheduler.entries_of(tear.object)[k].1 as usize;
                let e = &self.sim.scheduler.entries[i];
                if !e.hooks.contains(Hooks::CONTACT) || !e.is_active(&self.sim.world) {
                    continue;
                }
                self.check_fixed_breakpoint(i, HookKind::Contact);
                self.call(i, HookKind::Contact, |b, ctx| b.on_tear(ctx, tear));
            }
        }
        tears.clear();
        self.tears = tears;
    }

    pub(super) fn run_presentation(&mut self) {
        let fixed = self.sim.stepper.fixed_dt();
        let acc = self.sim.stepper.accumulator();
        self.sync_clock(Phase::Presentation, false);
        self.sim.clock.interpolation_alpha = (acc.0 as f64 / fixed.0 as f64).clamp(0.0, 1.0);
        let n = self.sim.scheduler.list(HookKind::Present).len();
        for k in 0..n {
            let i = self.sim.scheduler.list(HookKind::Present)[k] as usize;
            if self.sim.scheduler.entries[i].is_active(&self.sim.world) {
                self.call(i, HookKind::Present, |b, ctx| b.present(ctx));
            }
        }
    }

    /// Resumes due routines of one time group, in start order. A named
    /// routine calls back into its behaviour ([`Behaviour::routine`]); it is
    /// dropped with its object, or when its behaviour is gone or faulted, and
    /// waits (like any routine) while its object is disabled.
    pub(super) fn run_routines(&mut self, group: TimeGroup, now: Flicks) {
        if self.sim.routines.is_empty() {
            return;
        }
        let mut list = std::mem::take(&mut self.sim.routines);
        let mut k = 0;
        while k < list.len() {
            let slot = &list[k];
            if self.sim.world.get(slot.owner).is_none() {
                list.remove(k);
                continue;
            }
            if slot.group != group || slot.wake_at > now || !self.sim.world.is_active(slot.owner) {
                k += 1;
                continue;
            }
            let owner = slot.owner;
            let target = match &slot.routine {
                RoutineBody::Boxed(_) => None,
                RoutineBody::Named { entry, .. } => match self.entry_index(owner, *entry) {
                    Some(i) if !self.sim.scheduler.entries[i].faulted => Some(i),
                    _ => {
                        list.remove(k);
                        continue;
                    }
                },
            };
            let input = match group {
                TimeGroup::Frame => self.sim.input.frame_snapshot(),
                TimeGroup::Fixed => self.sim.input.fixed_snapshot(),
            };
            let caller = Caller {
                object: owner,
                seq: target.map_or(0, |i| self.sim.scheduler.entries[i].seq),
            };
            let (world, rng) = (&mut self.sim.world, &mut self.sim.rng);
            let (clock, requests) = (&self.sim.clock, &mut self.requests);
            let hook = HookKind::Routine;
            let mut ctx = Ctx::new(world, clock, input, rng, requests, caller, hook);
            if let Some(b) = &self.beacon {
                b.enter(
                    owner,
                    ctx.caller.seq,
                    HookKind::Routine,
                    clock.simulation_tick,
                );
            }
            let result = match (&mut list[k].routine, target) {
                (RoutineBody::Named { name, .. }, Some(i)) => {
                    let behaviour = self.sim.scheduler.behaviours[i].as_mut();
                    catch_unwind(AssertUnwindSafe(|| behaviour.routine(&mut ctx, name)))
                }
                (RoutineBody::Boxed(routine), _) => {
                    catch_unwind(AssertUnwindSafe(|| routine.resume(&mut ctx)))
                }
                (RoutineBody::Named { .. }, None) => Ok(Wait::Done),
            };
            if let Some(b) = &self.beacon {
                b.leave();
            }
            match result {
                Ok(Wait::Seconds(s)) => {
                    list[k].wake_at = now + Flicks::from_secs_f64(s);
                    k += 1;
                }
                Ok(Wait::Done) => {
                    list.remove(k);
                }
                Err(payload) => {
                    if let Some(i) = target {
                        // A behaviour that panics in a routine faults like in a hook.
                        self.sim.scheduler.set_faulted(i);
                    }
                    self.report_fault(owner, HookKind::Routine, &payload);
                    list.remove(k);
                }
            }
            self.take_requests(owner, HookKind::Routine);
        }
        // Routines started while this group ran are appended after the old ones.
        list.append(&mut self.sim.routines);
        self.sim.routines = list;
    }

    /// The index of `object`'s scheduler entry with sequence number `seq`.
    pub(super) fn entry_index(&self, object: ObjectId, seq: u64) -> Option<usize> {
        self.sim
            .scheduler
            .entries_of(object)
            .iter()
            .map(|&(_, i)| i as usize)
            .find(|&i| self.sim.scheduler.entries[i].seq == seq)
    }

    /// Calls one hook of entry `i` with panic isolation, then applies what the
    /// hook requested.
    pub(super) fn call(
        &mut self,
        i: usize,
        hook: HookKind,
        f: impl FnOnce(&mut dyn Behaviour, &mut Ctx),
    ) {
        let entry: &Entry = &self.sim.scheduler.entries[i];
        let object = entry.object;
        let input = if hook.is_fixed() {
            self.sim.input.fixed_snapshot()
        } else {
            self.sim.input.frame_snapshot()
        };
        let caller = Caller {
            object,
            seq: entry.seq,
        };
        let (world, rng) = (&mut self.sim.world, &mut self.sim.rng);
        let (clock, requests) = (&self.sim.clock, &mut self.requests);
        let mut ctx = Ctx::new(world, clock, input, rng, requests, caller, hook);
        let behaviour = self.sim.scheduler.behaviours[i].as_mut();
        if let Some(b) = &self.beacon {
            b.enter(object, ctx.caller.seq, hook, clock.simulation_tick);
        }
        let zones = &mut self.zones;
        let call_zone = if zones.fine() {
            let kind = ZoneKind::Call {
                hook,
                object,
                behaviour: zones.name_index(behaviour.name()),
            };
            zones.begin(kind, self.wall.now())
        } else {
            ZoneId::NONE
        };
        let result = catch_unwind(AssertUnwindSafe(|| f(behaviour, &mut ctx)));
        if zones.fine() {
            zones.end(call_zone, self.wall.now());
        }
        if let Some(b) = &self.beacon {
            b.leave();
        }
        if let Err(payload) = result {
            self.sim.scheduler.set_faulted(i);
            self.report_fault(object, hook, &payload);
        }
        self.take_requests(object, hook);
    }

    /// Applies a hook's requests: a break, routines it started.
    #[inline]
    pub(super) fn take_requests(&mut self, object: ObjectId, hook: HookKind) {
        if !self.requests.any {
            return; // the common case: the hook asked for nothing
        }
        self.requests.any = false;
        self.take_requests_slow(object, hook);
    }

    #[cold]
    pub(super) fn take_requests_slow(&mut self, object: ObjectId, hook: HookKind) {
        if std::mem::take(&mut self.requests.hooks_changed) {
            self.hooks_changed = true;
        }
        let rerun = std::mem::take(&mut self.requests.rerun);
        if let Some(message) = self.requests.break_request.take()
            && self.pending_suspend.is_none()
        {
            self.pending_suspend = Some(SuspendReason::Requested {
                object,
                hook,
                message,
            });
            // Only update-phase hooks can be re-run; elsewhere it is a plain break.
            self.rerun_hook = rerun
                && matches!(
                    hook,
                    HookKind::Start | HookKind::Update | HookKind::FlowTick
                );
        }
        if !self.requests.routines.is_empty() {
            for mut slot in self.requests.routines.drain(..) {
                let now = match slot.group {
                    TimeGroup::Frame => self.sim.frame_time,
                    TimeGroup::Fixed => self.sim.stepper.simulation_time(),
                };
                slot.wake_at = now + Flicks::from_secs_f64(slot.delay);
                self.sim.routines.push(slot);
            }
        }
    }

    pub(super) fn report_fault(
        &mut self,
        object: ObjectId,
        hook: HookKind,
        payload: &Box<dyn std::any::Any + Send>,
    ) {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic with a non-string payload".to_string());
        let name = self
            .sim
            .world
            .get(object)
            .map(|o| o.name.clone())
            .unwrap_or_default();
        self.sim.world.log(LogEntry {
            level: LogLevel::Error,
            object: Some(object),
            hook: Some(hook),
            tick: self.sim.clock.simulation_tick,
            frame: self.sim.frame_index,
            message: format!("{hook} of {object} `{name}` panicked: {message}"),
        });
        match self.fault_policy {
            FaultPolicy::Disable => {}
            FaultPolicy::Remove => self.sim.world.remove(object),
            FaultPolicy::Break => {
                if self.pending_suspend.is_none() {
                    self.pending_suspend = Some(SuspendReason::Fault {
                        object,
                        hook,
                        message,
                    });
                }
            }
        }
    }
}

/// The fast path of a FixedUpdate pass over one run of calls: the gate flags
/// read before the pass hold and no breakpoint is armed, so per call it tests
/// the flag, sets the context and calls. It stops after a call whose hook
/// asked for something or changed a gate, returning that call's position in
/// `calls`, and says whether it called anything (the group is timed only then).
///
/// `announce` tells the hook beacon of each call: nothing without one (the
/// closure is empty and compiles away), the call's object and behaviour
/// with one.
#[inline(always)]
fn fixed_run(
    calls: &[FixedCall],
    behaviours: &mut [Box<dyn Behaviour>],
    ctx: &mut Ctx,
    dt: f64,
    announce: impl Fn(Caller),
) -> (Option<usize>, bool) {
    let mut called = false;
    for (j, call) in calls.iter().enumerate() {
        if call.skip {
            continue;
        }
        called = true;
        ctx.caller = call.caller;
        announce(call.caller);
        behaviours[call.entry as usize].fixed_update(ctx, dt);
        if ctx.requests.any || ctx.world.gates_changed.0 {
            return (Some(j), true);
        }
    }
    (None, called)
}
