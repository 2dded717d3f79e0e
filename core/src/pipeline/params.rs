//! A host's reach into the running behaviours of a session: every one of
//! them ([`Pipeline::for_each_behaviour_mut`], how the editor's fork gives
//! branch B's scripts their own host), or one by its place in
//! [`Pipeline::behaviour_states`]'s order (what a parameter edit,
//! [`Pipeline::set_behaviour_params`] in [`crate::scene`], changes).

use super::Pipeline;
use crate::behaviour::Behaviour;
use crate::ids::{ObjectId, Priority};

impl Pipeline {
    /// A behaviour's set of hooks changed outside a hook (a reload edit): the
    /// dispatch lists are rebuilt before the next pass that could call it.
    pub(crate) fn note_hooks_changed(&mut self) {
        self.hooks_changed = true;
    }

    /// Calls `f` with every behaviour of the session, in the cohort and
    /// waiting to join it: how a host changes what only it knows about (the
    /// editor's fork gives branch B's scripts their own host).
    pub fn for_each_behaviour_mut(&mut self, mut f: impl FnMut(ObjectId, &mut dyn Behaviour)) {
        let scheduler = &mut self.sim.scheduler;
        for (e, b) in scheduler.entries.iter().zip(&mut scheduler.behaviours) {
            f(e.object, b.as_mut());
        }
        for p in self.sim.world.joining_mut() {
            f(p.object, p.behaviour.as_mut());
        }
    }

    /// Behaviour `index` of `object` in [`Pipeline::behaviour_states`]'s
    /// order: its cohort entries, then those waiting for the next frame.
    pub(crate) fn behaviour_at(
        &mut self,
        object: ObjectId,
        index: usize,
    ) -> Option<(&mut dyn Behaviour, Priority)> {
        let cohort: Vec<usize> = self
            .sim
            .scheduler
            .entries_of(object)
            .iter()
            .map(|&(_, i)| i as usize)
            .collect();
        if let Some(&i) = cohort.get(index) {
            let priority = self.sim.scheduler.entries[i].priority;
            return Some((self.sim.scheduler.behaviours[i].as_mut(), priority));
        }
        let p = self
            .sim
            .world
            .joining_mut()
            .filter(|p| p.object == object)
            .nth(index - cohort.len())?;
        Some((p.behaviour.as_mut(), p.priority))
    }
}
