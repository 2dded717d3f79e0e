//! Breakpoints: the pipeline's debugger holds them (a replay must stop where
//! the live session did, so they belong to the session); this feature keeps
//! what the debugger cannot know: the name of each breakpoint's object, and
//! every hit labelled as it happened.
//!
//! The debugger knows a breakpoint's object by id only, and ids are the
//! scene file's: JellyDisk is #6 in `soft.ron`, Ledge A is #6 in
//! `demo.ron`. So a breakpoint names its object by id *and* name, taken
//! from the world when the breakpoint is set. After every load the pair is
//! looked up in the new world; where it is missing the breakpoint is
//! disabled with a notice, never moved to whatever object has the id now
//! (and it cannot be enabled again until a scene has that pair).
//!
//! Hits are labelled with the object's name when the book takes them, at
//! the end of the call that recorded them, in the world they happened in; a
//! later scene never relabels one. Clock breakpoint hits, which the debugger
//! does not list (they are a suspension's reason), join the same list, so
//! the Breakpoints tab's *Hits* shows every stop a breakpoint made.

use std::collections::{BTreeMap, VecDeque};

use stepframe_core::debugger::MAX_HITS;
use stepframe_core::{
    Breakpoint, BreakpointId, HookKind, Hooks, ObjectId, Pipeline, SuspendReason,
};

use super::outbox::Outbox;
use super::stepping::Stepping;
use crate::protocol::{BreakpointCommand, BreakpointView, HitEntry, HostError, Notice};

/// An object as the Breakpoints tab names it: `JellyDisk #6`.
fn label(name: &str, id: ObjectId) -> String {
    format!("{name} {id}")
}

/// What the feature keeps beside the debugger (module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct BreakpointBook {
    /// Each object breakpoint's object name, as it was when set.
    names: BTreeMap<BreakpointId, String>,
    /// The hits, oldest first, at most [`MAX_HITS`].
    hits: VecDeque<HitEntry>,
    /// The debugger's recorded count already in `hits`.
    seen: u64,
    /// The clock hit already in `hits` (breakpoint, tick, frame): the
    /// suspension it caused is seen at every call until the session moves.
    last_clock: Option<(BreakpointId, u64, u64)>,
}

impl BreakpointBook {
    /// Applies one breakpoint command.
    pub(super) fn handle(
        &mut self,
        command: BreakpointCommand,
        run: &mut Stepping,
        out: &mut Outbox,
    ) {
        match command {
            BreakpointCommand::Add(breakpoint) => {
                run.session.add_breakpoint(breakpoint);
            }
            BreakpointCommand::AddClock(breakpoint) => {
                if let Err(e) = run.session.add_clock_breakpoint(breakpoint) {
                    out.error(HostError::ClockBreakpoint(e.to_string()));
                }
            }
            BreakpointCommand::Remove(id) => {
                run.session.remove_breakpoint(id);
            }
            BreakpointCommand::Enable(id, enabled) => self.enable(id, enabled, run, out),
            BreakpointCommand::ToggleFixed(object) => self.toggle_fixed(object, run, out),
        }
    }

    /// Enables or disables a breakpoint; one whose object (id and name) is
    /// not in this scene stays disabled, with a notice, so it never stops on
    /// another object that has its id here.
    fn enable(&mut self, id: BreakpointId, enabled: bool, run: &mut Stepping, out: &mut Outbox) {
        let pipeline = run.session.pipeline();
        let object = pipeline
            .debugger()
            .breakpoints()
            .iter()
            .find(|b| b.id == id)
            .and_then(|b| b.object);
        if enabled
            && let Some(object) = object
            && !self.present(pipeline, id, object)
        {
            out.notice(Notice::BreakpointStaysDisabled(id));
            return;
        }
        run.session.set_breakpoint_enabled(id, enabled);
    }

    /// F9: removes the object's plain FixedUpdate (or MidStep) breakpoint,
    /// or adds one on the first of those hooks one of its behaviours has (a
    /// one-way platform has only the mid-step hook); otherwise says so (a
    /// breakpoint there could never fire).
    fn toggle_fixed(&mut self, object: ObjectId, run: &mut Stepping, out: &mut Outbox) {
        const F9_HOOKS: [HookKind; 2] = [HookKind::FixedUpdate, HookKind::MidStep];
        let pipeline = run.session.pipeline();
        let existing = pipeline
            .debugger()
            .breakpoints()
            .iter()
            .find(|b| {
                b.hook.is_some_and(|h| F9_HOOKS.contains(&h))
                    && b.object == Some(object)
                    // Another scene's object of this id keeps its breakpoint.
                    && self.present(pipeline, b.id, object)
                    && b.priority.is_none()
                    && b.condition == Default::default()
                    && b.hit_count == Default::default()
            })
            .map(|b| b.id);
        if let Some(id) = existing {
            run.session.remove_breakpoint(id);
            return;
        }
        let hooks = pipeline.hooks_of(object);
        if let Some(hook) = F9_HOOKS.into_iter().find(|h| hooks.contains(Hooks::of(*h))) {
            run.session.add_breakpoint(Breakpoint::on(hook, object));
            return;
        }
        let name = pipeline
            .world()
            .get(object)
            .map_or_else(String::new, |o| o.name.clone());
        let behaviours = pipeline
            .behaviour_states(object)
            .iter()
            .map(|b| b.name.clone())
            .collect();
        out.notice(Notice::NoFixedUpdate {
            object: (object, name),
            behaviours,
        });
    }

    /// Names the objects of breakpoints set since the last call (from the
    /// world now) and forgets removed ones; then takes the hits recorded
    /// since, labelled with the names of their objects now. Called after
    /// every call and command, so "now" is the world the hit happened in.
    pub(super) fn take(&mut self, pipeline: &Pipeline) {
        let debugger = pipeline.debugger();
        let world = pipeline.world();
        self.names
            .retain(|id, _| debugger.breakpoints().iter().any(|b| b.id == *id));
        for b in debugger.breakpoints() {
            if let Some(object) = b.object
                && !self.names.contains_key(&b.id)
                && let Some(o) = world.get(object)
            {
                self.names.insert(b.id, o.name.clone());
            }
        }
        // A debugger replaced by another counts afresh.
        let recorded = debugger.recorded();
        let new = recorded.saturating_sub(self.seen).min(MAX_HITS as u64) as usize;
        self.seen = recorded;
        let listed: Vec<_> = debugger.hits().collect();
        for hit in &listed[listed.len().saturating_sub(new)..] {
            let name = world
                .get(hit.object)
                .map_or_else(|| hit.object.to_string(), |o| label(&o.name, hit.object));
            self.push(HitEntry {
                breakpoint: hit.breakpoint,
                tick: hit.tick,
                frame: hit.frame,
                object: Some((hit.object, name)),
                what: format!("{} ({})", hit.hook, hit.behaviour),
            });
        }
        if let Some(s) = pipeline.suspension()
            && let SuspendReason::Clock(hit) = &s.reason
            && self.last_clock != Some((hit.breakpoint, hit.tick, hit.frame))
        {
            self.last_clock = Some((hit.breakpoint, hit.tick, hit.frame));
            self.push(HitEntry {
                breakpoint: hit.breakpoint,
                tick: hit.tick,
                frame: hit.frame,
                object: None,
                what: hit.to_string(),
            });
        }
    }

    fn push(&mut self, entry: HitEntry) {
        if self.hits.len() == MAX_HITS {
            self.hits.pop_front();
        }
        self.hits.push_back(entry);
    }

    /// After a load: disables every enabled breakpoint whose (id, name)
    /// pair the new world lacks, and says so, one notice each, naming the
    /// scene file.
    pub(super) fn check_scene(&mut self, run: &mut Stepping, scene: &str, out: &mut Outbox) {
        let pipeline = run.session.pipeline();
        let missing: Vec<_> = pipeline
            .debugger()
            .breakpoints()
            .iter()
            .filter(|b| b.enabled)
            .filter_map(|b| Some((b.id, b.object?, b.hook)))
            .filter(|(id, object, _)| !self.present(pipeline, *id, *object))
            .collect();
        for (id, object, hook) in missing {
            let there = run
                .session
                .pipeline()
                .world()
                .get(object)
                .map(|o| o.name.clone());
            run.session.set_breakpoint_enabled(id, false);
            let name = self.names.get(&id).cloned().unwrap_or_else(|| "?".into());
            out.notice(Notice::BreakpointDisabled {
                id,
                hook,
                object: (object, name),
                scene: scene.to_string(),
                there,
            });
        }
    }

    /// Whether breakpoint `id`'s object pair (its id, its recorded name)
    /// is in the world now; true for a breakpoint with no recorded name.
    fn present(&self, pipeline: &Pipeline, id: BreakpointId, object: ObjectId) -> bool {
        match self.names.get(&id) {
            Some(name) => pipeline
                .world()
                .get(object)
                .is_some_and(|o| &o.name == name),
            None => true,
        }
    }

    /// The breakpoints as the Breakpoints tab lists them.
    pub(super) fn views(&self, pipeline: &Pipeline) -> Vec<BreakpointView> {
        pipeline
            .debugger()
            .breakpoints()
            .iter()
            .map(|b| BreakpointView {
                breakpoint: b.clone(),
                object: b.object.map(|o| {
                    let name = self.names.get(&b.id);
                    let here = name
                        .is_some_and(|n| pipeline.world().get(o).is_some_and(|obj| &obj.name == n));
                    let text = name.map_or_else(|| o.to_string(), |n| label(n, o));
                    (text, here)
                }),
            })
            .collect()
    }

    /// The hits, oldest first.
    pub(super) fn hits(&self) -> Vec<HitEntry> {
        self.hits.iter().cloned().collect()
    }
}
