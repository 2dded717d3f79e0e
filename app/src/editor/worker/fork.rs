//! What-if forks: at tick T, "Fork here" makes branch B from T's exact state
//! beside the live session A, the user changes something in B (an input on
//! its tape, a body's pose or velocity), and the worker runs both in lockstep:
//! after every call that moves A, B is run to A's tick.
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
//!   ([`crate::compare::poses`]): the UI gets B's records and the
//!   divergences, so the divergence lanes, the inspector's A/B columns and the
//!   viewport's B outlines show where the futures part.
//! - B's scripts run on B's own script host ([`ScriptHost::fork`]): the
//!   same programs at the fork, then only what the user runs in B (the code
//!   pane's *Run in B*, [`Command::ForkScript`]); a Save of the file reaches
//!   A only. A behaviour parameter edited for B ([`Command::ForkParams`])
//!   goes to B's behaviour, which keeps its state
//!   ([`stepframe_core::Behaviour::adopt_params`]).
//! - **Adopt** makes B the live session (its rewind history starts there,
//!   and the session's script host takes B's programs, keeping its
//!   breakpoints); **Discard** drops it. A rewind or a new scene discards it
//!   too.
//!
//! [`Command::ForkScript`]: crate::editor::protocol::Command::ForkScript
//! [`Command::ForkParams`]: crate::editor::protocol::Command::ForkParams
//!
//! A fork costs about one more session's stepping (`stepframe bench`'s
//! `fork_overhead`); B has no breakpoints, watches or observers of its own.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use crossbeam_channel::Receiver;
use stepframe_core::{
    Debugger, Edit, InputEvent, ObjectId, ParamsEditError, Pipeline, RecordedEvent, Recording,
    Registry, Replay, TickInputSource, run_to_tick,
};
use stepframe_plugins::ScriptHost;

use super::Worker;
use super::scripts::rebind_scripts;
use super::tap::{TickNews, TickTap};
use crate::compare::poses::{TracedTick, compare, traced_tick};
use crate::editor::protocol::Event;

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
pub(super) struct Fork {
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
    /// What B's ticks received: A's tape up to the fork, then B's own (its
    /// input tape once adopted).
    tape: Recording,
    /// A's records still waiting for B's, and B's for A's.
    waiting: (BTreeMap<u64, TracedTick>, BTreeMap<u64, TracedTick>),
    /// B's scripts (a fork of the session's host).
    scripts: ScriptHost,
    /// The scene's registry on B's host (B's parameter edits).
    registry: Registry,
}

impl std::fmt::Debug for Fork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fork")
            .field("from", &self.from)
            .field("tick", &self.pipeline.stepper().completed_ticks())
            .finish_non_exhaustive()
    }
}

impl Fork {
    /// Pairs the records both sides have: B's go to the UI, the pair's
    /// divergence to the lanes.
    fn pair(
        &mut self,
        worker_out: &mut (Vec<TracedTick>, Vec<crate::compare::poses::TickDivergence>),
    ) {
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
        for tick in ready {
            if let (Some(a), Some(b)) = (a_side.remove(&tick), b_side.remove(&tick)) {
                worker_out.1.push(compare(&a, &b));
                worker_out.0.push(b);
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
    }
}

impl Worker {
    /// "Fork here" at tick `at` (module docs).
    pub(super) fn fork_here(&mut self, at: u64) {
        self.discard_fork(false);
        // One run B at a time: a fork replaces a comparison with a trace.
        self.comparing = None;
        let future = self.playing_tape();
        if !self.rewind(at) {
            return;
        }
        self.session.set_tape(Some(Replay::new(future)));
        let mut b = Pipeline::new(self.settings());
        if self.at_untouched_start(at) {
            b.restore(&self.session.pipeline().snapshot());
        } else if let Err(e) = self.session.replay_into(&mut b, at) {
            self.error(format!("cannot fork at tick {at}: {e}"));
            return;
        }
        b.set_debugger(Debugger::default());
        let scripts = self.scripts.fork();
        rebind_scripts(&mut b, &scripts);
        let registry = self.registry_on(&scripts);
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
        })));
        // B's record of the fork tick itself is A's: the inspector's B
        // column shows it from the first moment.
        let start = traced_tick(at, b.clock().frame_index, b.world());
        self.fork = Some(Fork {
            pipeline: b,
            from: at,
            feed,
            edited: None,
            b_ticks,
            // What A's ticks up to `at` received is B's past too.
            tape: (*self.shown_tape()).clone(),
            waiting: Default::default(),
            scripts,
            registry,
        });
        self.run_b = Some(crate::editor::protocol::RunB {
            name: format!("branch B, forked at tick {at}"),
            forked_at: Some(at),
            first: None,
        });
        self.install_observer();
        self.send_event(Event::Forked(at));
        self.fork_ticks.push(start);
    }

    /// Runs B to A's tick, feeding it what A's ticks received (module docs).
    /// `dt` is the frame length A ran (0 for a lone tick or a resume).
    pub(super) fn step_fork(&mut self, dt: f64) {
        if self.fork.is_none() {
            return;
        }
        self.drain_ticks();
        let target = self.session.pipeline().stepper().completed_ticks();
        let fixed_dt = self.session.pipeline().clock().fixed_delta_time;
        let mut out = (Vec::new(), Vec::new());
        let mut stuck = None;
        if let Some(f) = self.fork.as_mut() {
            let b = &mut f.pipeline;
            let dt = if dt > 0.0 { dt } else { fixed_dt };
            if let Err(e) = run_to_tick(b, target, dt.max(fixed_dt), MAX_CATCH_UP_FRAMES) {
                stuck = Some(e);
            }
            let done = b.stepper().completed_ticks();
            f.feed
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .retain(|t, _| *t > done);
            f.pair(&mut out);
        }
        self.fork_ticks.extend(out.0);
        self.divergences.extend(out.1);
        if let Some(e) = stuck {
            self.error(format!("branch B could not follow A to tick {target}: {e}"));
        }
    }

    /// A's tick news while forked: its input goes to B's feed, its record
    /// waits for B's.
    pub(super) fn fork_takes(&mut self, tick: u64, inputs: &[InputEvent], a: Option<TracedTick>) {
        let Some(f) = self.fork.as_mut() else {
            return;
        };
        if !inputs.is_empty() {
            f.feed
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(tick, inputs.to_vec());
        }
        if let Some(a) = a {
            f.waiting.0.insert(tick, a);
        }
    }

    /// B's tape from now on: `tape` (A's input with the user's changes)
    /// stands for A's input up to `recorded_to`.
    pub(super) fn fork_tape(&mut self, tape: Recording, recorded_to: u64) {
        let Some(f) = self.fork.as_mut() else {
            self.error("no fork to change: Fork here first".to_string());
            return;
        };
        let from = f.pipeline.stepper().completed_ticks();
        let edges = tape.events.iter().filter(|e| e.tick > from).count();
        f.edited = Some((tape, recorded_to));
        f.pipeline.set_tick_input(Some(Box::new(ForkInput {
            feed: f.feed.clone(),
            edited: f.edited.clone(),
        })));
        self.send_event(Event::Notice(format!(
            "B's input tape changed: {edges} {} from tick {} on",
            if edges == 1 { "edge" } else { "edges" },
            from + 1
        )));
    }

    /// An edit of B (the inspector's edit with "edit B" ticked): B has no
    /// history of its own, so it is applied straight to B's session.
    pub(super) fn fork_edit(&mut self, edit: Edit) {
        let Some(f) = self.fork.as_mut() else {
            self.error("no fork to edit: Fork here first".to_string());
            return;
        };
        if let Err(e) = f.pipeline.apply_edit(&edit.into()) {
            self.error(format!("edit of B not applied: {e}"));
        }
    }

    /// New parameters for behaviour `index` of `object` in B (the
    /// inspector's B field), from B's next tick on; B's behaviour keeps its
    /// state. A refused edit changes nothing and says why.
    pub(super) fn fork_params(&mut self, object: ObjectId, index: usize, params: &str) {
        let Some(f) = self.fork.as_mut() else {
            self.error("no fork to change: Fork here first".to_string());
            return;
        };
        let result = f
            .pipeline
            .set_behaviour_params(object, index, params, &f.registry);
        let from = f.pipeline.stepper().completed_ticks() + 1;
        let name = f
            .pipeline
            .behaviour_states(object)
            .get(index)
            .map(|b| b.name.clone())
            .unwrap_or_default();
        let owner = f
            .pipeline
            .world()
            .get(object)
            .map(|o| format!("{} ({object})", o.name))
            .unwrap_or_else(|| object.to_string());
        match result {
            Ok(()) => self.send_event(Event::Notice(format!(
                "B: {name} of {owner} runs with {} from tick {from} on",
                params.trim()
            ))),
            Err(e @ ParamsEditError::NotAdjustable(_)) => self.error(format!(
                "B not changed: {e} (a Script takes new vars, not another file: edit its \
                 code in the code pane and Run in B)"
            )),
            Err(e) => self.error(format!("B not changed: {e}")),
        }
    }

    /// A new version of a script for B only (the code pane's Run in B): B's
    /// Script behaviours running it adopt it at B's next frame boundary;
    /// the file is not written and A runs on as it was.
    pub(super) fn fork_script(&mut self, key: &str, text: &str) {
        let Some(f) = self.fork.as_mut() else {
            self.error("no fork to change: Fork here first".to_string());
            return;
        };
        match f.scripts.reload_text(key, text) {
            Ok(()) => self.send_event(Event::Notice(format!(
                "B runs the edited {key} from its next frame on (the file is unchanged)"
            ))),
            Err(e) => self.error(format!("B's script not changed: {e}")),
        }
    }

    /// Makes B the live session, paused (module docs).
    pub(super) fn adopt_fork(&mut self) {
        let Some(f) = self.fork.take() else {
            self.error("no fork to adopt".to_string());
            return;
        };
        self.run_b = None;
        let Fork {
            pipeline: mut b,
            edited,
            tape: b_tape,
            from,
            scripts,
            ..
        } = f;
        // The session's host (its breakpoints, the code pane's view) goes on
        // with B's programs, and B's scripts run on it.
        self.scripts.adopt_programs(&scripts);
        rebind_scripts(&mut b, &self.scripts);
        // B goes on with what A would have received from here, as changed.
        let tape = edited
            .map(|(t, _)| t)
            .or_else(|| self.session.history().tape().map(|r| r.recording().clone()));
        b.set_tick_input(None);
        b.set_debugger(self.session.pipeline().debugger().clone());
        b.set_tick_watch(self.session.take_tick_watch());
        self.session.start_over(b);
        self.stop_fills();
        if self.session.pipeline().suspension().is_none() {
            self.session.pause();
        }
        // B's recording (A's up to the fork, then B's) is the session's now.
        self.tape = Arc::new(b_tape);
        self.rewound_to = None;
        self.rewound_tape = None;
        self.settings_in_force = *self.session.pipeline().settings();
        self.session.set_tape(tape.map(Replay::new));
        self.take_params_into_scene();
        self.install_observer();
        self.state_hash = self.session.pipeline().state_hash();
        self.send_event(Event::CompareStopped);
        // In the Clock tab's own words (its "history holds" line), so the
        // two never disagree.
        let held = self.session.reach().held_text();
        self.send_event(Event::Notice(format!(
            "branch B (forked at tick {from}) is the live session now: its rewind history \
             starts afresh, {held}"
        )));
    }

    /// The adopted session's behaviour parameters (Set in B's edits) become
    /// the authored scene's, so Save writes them: each authored object
    /// alive in the session takes its behaviours' parameter text from the
    /// world, behaviour by behaviour, where names and priorities agree.
    fn take_params_into_scene(&mut self) {
        let Some(loaded) = self.scene.as_ref() else {
            return;
        };
        let world = self.session.pipeline().world();
        let mut scene = loaded.session.clone();
        fn visit(objects: &mut [stepframe_core::SceneObject], world: &stepframe_core::World) {
            for o in objects {
                if let Some(live) = world.get(ObjectId(o.id)) {
                    for (authored, info) in o.behaviours.iter_mut().zip(&live.behaviours) {
                        if authored.name == info.name && authored.priority == info.priority {
                            authored.params.clone_from(&info.params);
                        }
                    }
                }
                visit(&mut o.children, world);
            }
        }
        visit(&mut scene.objects, world);
        if scene != loaded.session {
            let mut loaded = crate::editor::scene_file::LoadedScene::clone(loaded);
            loaded.session = scene;
            self.scene = Some(Arc::new(loaded));
            self.send_event(Event::Notice(
                "B's parameter changes are in the scene now: Save writes them".to_string(),
            ));
        }
    }

    /// Drops B (`say`: tell the user).
    pub(super) fn discard_fork(&mut self, say: bool) {
        if self.fork.take().is_some() {
            self.run_b = None;
            self.install_observer();
            self.send_event(Event::CompareStopped);
            if say {
                self.send_event(Event::Notice("branch B discarded".to_string()));
            }
        }
    }
}
