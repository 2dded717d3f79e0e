//! The worker's edits of the live session from the inspector and F9: a
//! body's pose or velocity while suspended (reconciled before the next tick),
//! and the plain FixedUpdate breakpoint on an object.

use stepframe_core::{BodyCommand, Breakpoint, HookKind, Hooks, ObjectId};

use super::Worker;
use crate::editor::protocol::Event;

impl Worker {
    /// F9: removes the object's plain FixedUpdate breakpoint, or adds one if
    /// one of its behaviours has a FixedUpdate hook; otherwise says so (a
    /// breakpoint there could never fire).
    pub(super) fn toggle_fixed_breakpoint(&mut self, object: ObjectId) {
        let existing = self
            .pipeline
            .debugger()
            .breakpoints()
            .iter()
            .find(|b| {
                b.hook == Some(HookKind::FixedUpdate)
                    && b.object == Some(object)
                    && b.priority.is_none()
                    && b.condition == Default::default()
                    && b.hit_count == Default::default()
            })
            .map(|b| b.id);
        if let Some(id) = existing {
            self.pipeline.remove_breakpoint(id);
            return;
        }
        if self.pipeline.hooks_of(object).contains(Hooks::FIXED_UPDATE) {
            self.pipeline
                .add_breakpoint(Breakpoint::on(HookKind::FixedUpdate, object));
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
            "F9: {name} has no FixedUpdate hook ({has}), so a FixedUpdate breakpoint there \
             could never fire; none was set"
        )));
    }

    pub(super) fn edit(
        &mut self,
        id: ObjectId,
        command: BodyCommand,
        describe: impl FnOnce() -> String,
    ) {
        if !self.is_suspended() {
            self.error("edits apply while suspended: pause first".to_string());
            return;
        }
        let has_body = self
            .pipeline
            .world()
            .get(id)
            .is_some_and(|o| o.body.is_some());
        if !has_body {
            self.error(format!("object {id} has no body to edit"));
            return;
        }
        let clock = *self.pipeline.clock();
        if self
            .pipeline
            .world_mut()
            .command(command, clock.simulation_tick, clock.frame_index)
        {
            if self.pending_edits.is_empty() {
                self.pending_edits_tick = clock.simulation_tick;
            }
            self.pending_edits.push(format!(
                "{} (reconciled before tick {})",
                describe(),
                clock.simulation_tick + 1
            ));
        } else {
            self.error(format!("edit of {id} rejected: not a finite value"));
        }
    }
}
