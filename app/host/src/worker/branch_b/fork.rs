//! What-if forks: at tick T, "Fork here" makes branch B from T's exact state
//! beside the live session A, the user changes something in B (an input on
//! its tape, a body's pose or velocity, a parameter, a script), and the
//! worker runs both in lockstep: after every call that moves A, B is run to
//! A's tick.
//!
//! - A goes back to T (as Resume from here does) and replays the input it
//!   received after T, through the rewind history, so its future is the one
//!   it had; live input typed from then on reaches it as usual.
//! - B is rebuilt at T from the history (as a past view is) and gets, at every
//!   tick, exactly what A's same tick received, except where the user edited
//!   B's tape ([`ForkInput`]). B runs whole outer frames of A's frame length,
//!   stopped at the end of A's tick, so its fixed ticks are A's ticks (the
//!   contract makes them independent of how frames cut them).
//! - Each tick is measured A against B as a comparison is
//!   ([`crate::traced`]): B's records and the divergences feed the
//!   divergence lanes, the inspector's A/B columns and the viewport's B
//!   outlines.
//! - B's scripts run on B's own script host ([`ScriptHost::fork`]): the
//!   same programs at the fork, then only what the user runs in B (the code
//!   pane's *Run in B*); a Save of the file reaches A only. A behaviour
//!   parameter edited for B goes to B's behaviour, which keeps its state.
//! - **Adopt** makes B the live session (its rewind history starts there,
//!   its pipeline keeps recording flame zones, and the session's script
//!   host takes B's programs, keeping its breakpoints); **Discard** drops
//!   it. A rewind or a new scene discards it too.
//!
//! A fork costs about one more session's stepping (`stepframe bench`'s
//! `fork_overhead`); B has no breakpoints, watches or observers of its own.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use crossbeam_channel::Receiver;
use stepframe_core::{
    Debugger, Edit, InputEvent, ObjectId, ParamsEditError, Pipeline, RecordedEvent, Recording,
    Registry, Replay, TickInputSource, ZoneDetail, run_to_tick,
};
use stepframe_plugins::ScriptHost;

use super::super::Worker;
use super::super::outbox::Outbox;
use super::super::scripts::rebind_scripts;
use super::super::tap::{TickNews, TickTap};
use super::Kind;
use crate::protocol::{BName, BranchEvent, EditCommand, Event, HostError, Notice, Target};
use crate::traced::{TickDivergence, TracedTick, compare, traced_tick};

/// What A's ticks received, by tick, until B has run them.
type Feed = Arc<Mutex<BTreeMap<u64, Vec<InputEvent>>>>;

/// Most outer frames B may run to catch up with A in one call (a guard: B
/// runs at least one tick per frame of A's length).
const MAX_CATCH_UP_FRAMES: u64 = 100_000;

/// B's tick input: what A's same tick received, except that up to
/// `recorded_to` an edited tape, if any, says what B receives instead (the
/// tape was A's input plus the user's changes); after it, A's input plus the
/// tape's own later edges.
#[derive(Debug)]
struct ForkInput {
    feed: Feed,
    edited: Option<(Recording, u64)>,
}

impl TickInputSource for ForkInput {
    fn events_for_tick(&self, tick: u64, out: &mut Vec<InputEvent>) {
        let taped = |tape: &Recording, out: &mut Vec<InputEvent>| {
            out.extend(tape.events_at(tick).iter().map(RecordedEvent::event));
        };
        match &self.edited {
            Some((tape, to)) if tick <= *to => taped(tape, out),
            edited => {
                let feed = self.feed.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(events) = feed.get(&tick) {
                    out.extend(events.iter().cloned());
                }
                if let Some((tape, _)) = edited {
                    taped(tape, out);
                }
            }
        }
    }
}

/// Branch B and what pairs its ticks with A's.
pub(in crate::worker) struct Fork {
    /// B's pipeline.
    pipeline: Pipeline,
    /// The tick it was forked at.
    from: u64,
    /// A's input, for B.
    feed: Feed,
    /// B's edited tape and the tick up to which it stands for A's input.
    edited: Option<(Recording, u64)>,
    /// B's tick news (its records, what its ticks received) as they complete.
    b_ticks: Receiver<TickNews>,
    /// What B's ticks received: A's recording up to the fork, then B's own
    /// (the session recording once adopted).
    tape: Recording,
    /// A's records still waiting for B's, and B's for A's.
    waiting: (BTreeMap<u64, TracedTick>, BTreeMap<u64, TracedTick>),
    /// B's scripts (a fork of the session's host).
    scripts: ScriptHost,
    /// The scene's registry on B's host (B's parameter edits).
    registry: Registry,
}

impl Fork {
    /// A's news of one tick: its input goes to B's feed, its record waits
    /// for B's.
    pub(super) fn takes(&mut self, tick: u64, inputs: &[InputEvent], a: Option<TracedTick>) {
        if !inputs.is_empty() {
            self.feed
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(tick, inputs.to_vec());
        }
        if let Some(a) = a {
            self.waiting.0.insert(tick, a);
        }
    }

    /// Runs B to A's tick `target` in frames of `dt` (A's frame length; the
    /// fixed dt for a lone tick or a resume).
    pub(super) fn run_to(&mut self, target: u64, dt: f64, fixed_dt: f64) -> Result<(), String> {
        let dt = if dt > 0.0 { dt } else { fixed_dt };
        let result = run_to_tick(
            &mut self.pipeline,
            target,
            dt.max(fixed_dt),
            MAX_CATCH_UP_FRAMES,
        )
        .map_err(|e| e.to_string());
        let done = self.pipeline.stepper().completed_ticks();
        self.feed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|t, _| *t > done);
        result
    }

    /// Pairs the records both sides have: B's record and the pair's
    /// divergence, in tick order.
    pub(super) fn pair(&mut self) -> Vec<(TracedTick, TickDivergence)> {
        for news in self.b_ticks.try_iter() {
            if !news.inputs.is_empty() {
                self.tape.record_tick(news.tick, &news.inputs);
            }
            if let Some(b) = news.traced {
                self.waiting.1.insert(b.tick, b);
            }
        }
        let (a_side, b_side) = &mut self.waiting;
        let ready: Vec<u64> = a_side
            .keys()
            .filter(|t| b_side.contains_key(t))
            .copied()
            .collect();
        let mut out = Vec::with_capacity(ready.len());
        for tick in ready {
            if let (Some(a), Some(b)) = (a_side.remove(&tick), b_side.remove(&tick)) {
                let d = compare(&a, &b);
                out.push((b, d));
            }
        }
        // A tick only one side will ever have (B started later, A was
        // rewound) must not pile up.
        let oldest = self
            .pipeline
            .stepper()
            .completed_ticks()
            .saturating_sub(1_000);
        a_side.retain(|t, _| *t >= oldest);
        b_side.retain(|t, _| *t >= oldest);
        out
    }

    /// An edit of B, applied to B alone (B has no history: straight to its
    /// session), from its next tick.
    pub(super) fn edit(&mut self, edit: EditCommand, out: &mut Outbox) {
        let refused = |reason: String, script_file: bool| HostError::EditRefused {
            target: Target::B,
            reason,
            script_file,
        };
        match edit {
            EditCommand::Pose(object, pose) => self.apply(Edit::Pose { object, pose }, out),
            EditCommand::Velocity(object, velocity) => {
                self.apply(Edit::Velocity { object, velocity }, out)
            }
            EditCommand::Enabled(object, enabled) => {
                self.apply(Edit::Enabled { object, enabled }, out)
            }
            EditCommand::Remove(object) => self.apply(Edit::Remove { object }, out),
            EditCommand::Duplicate(_) => out.error(refused(
                "a duplicate is made in the live session, then forked".to_string(),
                false,
            )),
            EditCommand::Params {
                object,
                index,
                params,
            } => {
                let result =
                    self.pipeline
                        .set_behaviour_params(object, index, &params, &self.registry);
                match result {
                    Ok(()) => out.notice(Notice::ParamsApplied {
                        target: Target::B,
                        behaviour: self
                            .pipeline
                            .behaviour_states(object)
                            .get(index)
                            .map(|b| b.name.clone())
                            .unwrap_or_default(),
                        object: (object, self.name_of(object)),
                        params,
                        from_tick: self.pipeline.stepper().completed_ticks() + 1,
                    }),
                    Err(e @ ParamsEditError::NotAdjustable(_)) => {
                        out.error(refused(e.to_string(), true))
                    }
                    Err(e) => out.error(refused(e.to_string(), false)),
                }
            }
            EditCommand::Script { key, text } => match self.scripts.reload_text(&key, &text) {
                Ok(()) => out.notice(Notice::BScriptChanged(key)),
                Err(e) => out.error(HostError::Script {
                    target: Target::B,
                    reason: e.to_string(),
                }),
            },
            EditCommand::Tape { tape, recorded_to } => {
                let from = self.pipeline.stepper().completed_ticks();
                let edges = tape.events.iter().filter(|e| e.tick > from).count();
                self.edited = Some((tape, recorded_to));
                self.pipeline.set_tick_input(Some(Box::new(ForkInput {
                    feed: self.feed.clone(),
                    edited: self.edited.clone(),
                })));
                out.notice(Notice::BTapeChanged {
                    edges,
                    from_tick: from + 1,
                });
            }
        }
    }

    fn apply(&mut self, edit: Edit, out: &mut Outbox) {
        if let Err(e) = self.pipeline.apply_edit(&edit.into()) {
            out.error(HostError::EditRefused {
                target: Target::B,
                reason: e.to_string(),
                script_file: false,
            });
        }
    }

    /// An object's name in B, empty if it is gone.
    fn name_of(&self, object: ObjectId) -> String {
        self.pipeline
            .world()
            .get(object)
            .map_or_else(String::new, |o| o.name.clone())
    }
}

impl Worker {
    /// "Fork here" at tick `at` (module docs).
    pub(in crate::worker) fn fork_here(&mut self, at: u64) {
        // One run B at a time: a fork replaces a comparison or a fork.
        self.end_branch(true);
        let future = self.playing_tape();
        if !self.rewind(at) {
            return;
        }
        self.run.session.set_tape(Some(Replay::new(future)));
        let mut b = Pipeline::new(self.run.next_settings());
        if self.at_untouched_start(at) {
            b.restore(&self.run.session.pipeline().snapshot());
        } else if let Err(e) = self.run.session.replay_into(&mut b, at) {
            self.out.error(HostError::Fork {
                tick: at,
                reason: e.to_string(),
            });
            return;
        }
        b.set_debugger(Debugger::default());
        let scripts = self.scripts.host.fork();
        rebind_scripts(&mut b, &scripts);
        let registry = self.scene.registry_on(&scripts);
        let feed = Feed::default();
        b.set_tick_input(Some(Box::new(ForkInput {
            feed: feed.clone(),
            edited: None,
        })));
        let (tx, b_ticks) = crossbeam_channel::unbounded();
        b.set_tick_observer(Some(Box::new(TickTap {
            tx,
            compare: None,
            trace: true,
            hashing: None,
        })));
        // B's record of the fork tick itself is A's: the inspector's B
        // column shows it from the first moment.
        let start = traced_tick(at, b.clock().frame_index, b.world());
        let fork = Fork {
            pipeline: b,
            from: at,
            feed,
            edited: None,
            b_ticks,
            // What A's ticks up to `at` received is B's past too.
            tape: self.recording.shown().clone(),
            waiting: Default::default(),
            scripts,
            registry,
        };
        self.start_branch(Kind::Fork(Box::new(fork)), BName::Fork(at), Some(at));
        if let Some(run) = self.branch.run.as_mut() {
            run.records.push(start);
        }
        self.out.event(Event::BranchB(BranchEvent::Forked(at)));
    }

    /// Makes B the live session, paused (module docs).
    pub(in crate::worker) fn adopt_fork(&mut self) {
        if !self.branch.is_fork() {
            self.out.error(HostError::NoBranch);
            return;
        }
        let Some(super::Run {
            kind: Kind::Fork(f),
            ..
        }) = self.branch.run.take()
        else {
            return;
        };
        self.branch.measured.clear();
        let Fork {
            pipeline: mut b,
            edited,
            tape: b_tape,
            from,
            scripts,
            ..
        } = *f;
        // The session's host (its breakpoints, the code pane's view) goes on
        // with B's programs, and B's scripts run on it.
        self.scripts.host.adopt_programs(&scripts);
        rebind_scripts(&mut b, &self.scripts.host);
        // B goes on with what A would have received from here, as changed.
        let tape = edited.map(|(t, _)| t).or_else(|| {
            self.run
                .session
                .history()
                .tape()
                .map(|r| r.recording().clone())
        });
        let at = b.stepper().completed_ticks();
        b.set_tick_input(None);
        b.set_debugger(self.run.session.pipeline().debugger().clone());
        // The live flame zones go on being recorded in the adopted session.
        b.set_zone_detail(ZoneDetail::Coarse);
        let watch = self.run.session.take_tick_watch();
        b.set_tick_watch(watch);
        if b.suspension().is_none() {
            b.pause();
        }
        self.run.session.start_over(b);
        self.run.replaced();
        self.reobserve();
        self.watches.stop_fills(&mut self.out);
        self.watches.report_values_now(self.run.session.pipeline());
        // B's recording (A's up to the fork, then B's) is the session's now.
        self.recording.reset_to(b_tape, &mut self.out);
        self.run.session.set_tape(tape.map(Replay::new));
        self.scene
            .take_params_into_scene(self.run.session.pipeline(), &mut self.out);
        self.out.event(Event::BranchB(BranchEvent::Adopted {
            forked_at: from,
            at,
        }));
        self.out.notice(Notice::BAdopted {
            forked_at: from,
            reach: self.run.session.reach(),
        });
    }
}
