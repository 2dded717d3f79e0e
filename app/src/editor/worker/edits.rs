//! The worker's edits of the live session from the inspector, the hierarchy
//! and F9: a body's pose or velocity, a behaviour's parameters, enabling,
//! duplicating and removing an object, each a call of the history
//! ([`stepframe_core::Edit`]); and the plain FixedUpdate breakpoint on an
//! object.

use stepframe_core::{
    Breakpoint, BreakpointId, Edit, HookKind, Hooks, ObjectId, SceneBehaviour, SceneObject,
};

use super::Worker;
use crate::editor::protocol::Event;

impl Worker {
    /// Enables or disables a breakpoint; one whose object (id and name) is
    /// not in this scene stays disabled, with a notice, so it never stops on
    /// another object that has its id here.
    pub(super) fn enable_breakpoint(&mut self, id: BreakpointId, enabled: bool) {
        let object = self
            .pipeline
            .debugger()
            .breakpoints()
            .iter()
            .find(|b| b.id == id)
            .and_then(|b| b.object);
        if enabled
            && let Some(object) = object
            && !self.book.present(&self.pipeline, id, object)
        {
            self.send_event(Event::Notice(format!(
                "breakpoint {} stays disabled: its object is not in this scene",
                id.0
            )));
            return;
        }
        self.pipeline.set_breakpoint_enabled(id, enabled);
    }

    /// F9: removes the object's plain FixedUpdate (or MidStep) breakpoint,
    /// or adds one on the first of those hooks one of its behaviours has (a
    /// one-way platform has only the mid-step hook); otherwise says so (a
    /// breakpoint there could never fire).
    pub(super) fn toggle_fixed_breakpoint(&mut self, object: ObjectId) {
        const F9_HOOKS: [HookKind; 2] = [HookKind::FixedUpdate, HookKind::MidStep];
        let existing = self
            .pipeline
            .debugger()
            .breakpoints()
            .iter()
            .find(|b| {
                b.hook.is_some_and(|h| F9_HOOKS.contains(&h))
                    && b.object == Some(object)
                    // Another scene's object of this id keeps its breakpoint.
                    && self.book.present(&self.pipeline, b.id, object)
                    && b.priority.is_none()
                    && b.condition == Default::default()
                    && b.hit_count == Default::default()
            })
            .map(|b| b.id);
        if let Some(id) = existing {
            self.pipeline.remove_breakpoint(id);
            return;
        }
        let hooks = self.pipeline.hooks_of(object);
        if let Some(hook) = F9_HOOKS.into_iter().find(|h| hooks.contains(Hooks::of(*h))) {
            self.pipeline.add_breakpoint(Breakpoint::on(hook, object));
            return;
        }
        let name = self
            .pipeline
            .world()
            .get(object)
            .map(|o| format!("{} {object}", o.name))
            .unwrap_or_else(|| object.to_string());
        let behaviours: Vec<String> = self
            .pipeline
            .behaviour_states(object)
            .iter()
            .map(|b| b.name.clone())
            .collect();
        let has = if behaviours.is_empty() {
            "no behaviours".to_string()
        } else {
            format!("behaviours {}", behaviours.join(", "))
        };
        self.send_event(Event::Notice(format!(
            "F9: {name} has no FixedUpdate hook ({has}) and no MidStep hook, so a breakpoint \
             there could never fire; none was set"
        )));
    }

    /// An edit from the inspector or the hierarchy, through the history
    /// (so past views and rewinds repeat it) and into the session recording.
    /// Pose, velocity and parameter edits wait for a suspension: the values
    /// they start from are the committed ones of the tick shown.
    pub(super) fn edit(&mut self, edit: Edit) {
        let needs_suspension = matches!(
            edit,
            Edit::Pose { .. } | Edit::Velocity { .. } | Edit::Params { .. }
        );
        if needs_suspension && !self.is_suspended() {
            self.error("edits apply while suspended: pause first".to_string());
            return;
        }
        let prepared = match edit.clone().prepare(&self.registry) {
            Ok(prepared) => prepared,
            Err(e) => {
                self.error(format!("edit not applied: {e}"));
                return;
            }
        };
        // The user's edits of objects can be undone while suspended
        // (`undo`); a settings change is the toolbar's to change back, and
        // an edit made while running (enabling, Duplicate, Delete) is past
        // undoing at the next frame, so it costs the history no snapshot.
        let undoable = self.is_suspended() && !matches!(edit, Edit::Settings(_));
        let applied = if undoable {
            self.history.edit_undoable(&mut self.pipeline, prepared)
        } else {
            self.history.edit(&mut self.pipeline, prepared)
        };
        if let Err(e) = applied {
            self.error(format!("edit not applied: {e}"));
            return;
        }
        self.queue(&edit);
        self.record_edit(edit);
    }

    /// Lists a pose or velocity edit just applied under the inspector's
    /// fields until the next tick reconciles it.
    pub(super) fn queue(&mut self, edit: &Edit) {
        let tick = self.pipeline.stepper().completed_ticks();
        if let Some(text) = queued_text(edit, tick) {
            if self.pending_edits.is_empty() {
                self.pending_edits_tick = tick;
            }
            self.pending_edits.push(text);
        }
    }

    /// Takes an undone pose or velocity edit off the inspector's list.
    pub(super) fn unqueue(&mut self, edit: &Edit) {
        let tick = self.pipeline.stepper().completed_ticks();
        if let Some(text) = queued_text(edit, tick)
            && let Some(i) = self.pending_edits.iter().rposition(|t| *t == text)
        {
            self.pending_edits.remove(i);
        }
    }

    /// New parameters for behaviour `index` of `object` (the inspector's
    /// Apply parameters), from the next hook call on; the behaviour keeps
    /// its state.
    pub(super) fn edit_params(&mut self, object: ObjectId, index: usize, params: String) {
        let Some(behaviour) = self
            .pipeline
            .behaviour_states(object)
            .get(index)
            .map(|b| b.name.clone())
        else {
            self.error(format!("object {object} has no behaviour #{index}"));
            return;
        };
        let name = behaviour.clone();
        self.edit(Edit::Params {
            object,
            index,
            behaviour,
            params: params.clone(),
        });
        self.send_event(Event::Notice(format!(
            "{name} of {} runs with {} from tick {} on",
            self.object_label(object),
            params.trim(),
            self.pipeline.stepper().completed_ticks() + 1
        )));
    }

    /// A copy of `object` (no children), as its scene describes it with
    /// the parameters it runs with now, half a metre to its right, with the
    /// next free id: an edit like any other, so past views and rewinds
    /// repeat it.
    pub(super) fn duplicate(&mut self, object: ObjectId) {
        let world = self.pipeline.world();
        let Some(o) = world.get(object) else {
            self.error(format!("object {object} does not exist"));
            return;
        };
        let id = world.objects().map(|o| o.id.0).max().unwrap_or(0) + 1;
        let mut pose = world.physics_simulation_pose(object).unwrap_or(o.local);
        if o.parent.is_some() {
            pose = o.local;
        }
        pose.x += 0.5;
        let mut copy = SceneObject::new(id, format!("{} copy", o.name), pose);
        copy.parent = o.parent.map(|p| p.0);
        copy.enabled = o.is_enabled();
        copy.body = o.body.as_ref().map(|b| (*b.desc).clone());
        copy.time_group = o.time_group;
        copy.behaviours = o
            .behaviours
            .iter()
            .map(|b| SceneBehaviour::new(b.name.clone(), b.priority, b.params.clone()))
            .collect();
        self.edit(Edit::Spawn(Box::new(copy)));
    }

    /// `Name #id`, or `#id` for an object that is gone.
    pub(super) fn object_label(&self, object: ObjectId) -> String {
        self.pipeline
            .world()
            .get(object)
            .map(|o| format!("{} ({object})", o.name))
            .unwrap_or_else(|| object.to_string())
    }
}

/// How the inspector lists a queued pose or velocity edit made at the end
/// of tick `tick` (none for the other edits, which apply at once).
fn queued_text(edit: &Edit, tick: u64) -> Option<String> {
    let text = match edit {
        Edit::Pose { pose, .. } => format!(
            "SetPose x {:?} m, y {:?} m, angle {:?} rad",
            pose.x, pose.y, pose.angle
        ),
        Edit::Velocity { velocity, .. } => format!(
            "SetVelocity ({:?}, {:?}) m/s, {:?} rad/s",
            velocity.linear.x, velocity.linear.y, velocity.angular
        ),
        _ => return None,
    };
    Some(format!("{text} (reconciled before tick {})", tick + 1))
}
