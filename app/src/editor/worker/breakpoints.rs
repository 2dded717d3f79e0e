//! What the worker keeps beside the pipeline's breakpoints: the name of each
//! breakpoint's object, and every hit labelled as it happened.
//!
//! The pipeline's debugger knows a breakpoint's object by id only, and ids
//! are the scene file's: JellyDisk is #6 in `soft.ron`, Ledge A is #6 in
//! `demo.ron`. So a breakpoint names its object by id *and* name, taken
//! from the world when the breakpoint is set. After every load the pair is
//! looked up in the new world; where it is missing the breakpoint is
//! disabled with a notice, never moved to whatever object has the id now
//! (and it cannot be enabled again until a scene has that pair).
//!
//! Hits are labelled with the object's name when the worker takes them, at
//! the end of the call that recorded them, in the world they happened in; a
//! later scene never relabels one. Clock breakpoint hits, which the debugger
//! does not list (they are a suspension's reason), join the same list, so
//! the Breakpoints tab's *Hits* shows every stop a breakpoint made.
//!
//! The book itself ([`BreakpointBook`]) is declared in the protocol beside
//! the rest of the worker's restartable state ([`crate::editor::protocol`]'s
//! `HostState`); what it does is here.

use stepframe_core::debugger::MAX_HITS;
use stepframe_core::{BreakpointId, ObjectId, Pipeline, Session, SuspendReason};

use crate::editor::protocol::{BreakpointBook, BreakpointView, HitEntry};

/// An object as the Breakpoints tab names it: `JellyDisk #6`.
fn label(name: &str, id: ObjectId) -> String {
    format!("{name} {id}")
}

impl BreakpointBook {
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
        // A debugger replaced by another (a restart's) counts afresh.
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

    /// After a load: disables every enabled breakpoint whose (id, name) pair
    /// the new world lacks, and says so, one sentence each, naming the scene
    /// file (`scene`).
    pub(super) fn check_scene(&mut self, session: &mut Session, scene: &str) -> Vec<String> {
        let mut notices = Vec::new();
        let pipeline = session.pipeline();
        let missing: Vec<_> = pipeline
            .debugger()
            .breakpoints()
            .iter()
            .filter(|b| b.enabled)
            .filter_map(|b| Some((b.id, b.object?, b.hook)))
            .filter(|(id, object, _)| !self.present(pipeline, *id, *object))
            .collect();
        for (id, object, hook) in missing {
            session.set_breakpoint_enabled(id, false);
            let name = self.names.get(&id).map_or("?", String::as_str);
            let there = session.pipeline().world().get(object).map_or_else(
                || "no such object".to_string(),
                |o| format!("{} there is {}", object, o.name),
            );
            notices.push(format!(
                "breakpoint {} ({} on {}) disabled: {scene} has no {} ({there})",
                id.0,
                hook.map_or("any hook", |h| h.name()),
                label(name, object),
                label(name, object),
            ));
        }
        notices
    }

    /// Whether breakpoint `id`'s object pair (its id, its recorded name)
    /// is in the world now; true for a breakpoint with no recorded name.
    pub(super) fn present(&self, pipeline: &Pipeline, id: BreakpointId, object: ObjectId) -> bool {
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
