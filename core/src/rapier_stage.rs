//! The rapier2d physics stage (work in progress: the full implementation follows).

use crate::body::{ContactEvent, Vec2};
use crate::physics::PhysicsStage;
use crate::world::World;

/// The physics stage backed by rapier2d.
#[derive(Clone, Debug)]
pub struct RapierStage {
    /// Gravity, m/s².
    gravity: Vec2,
}

impl RapierStage {
    /// A stage with an empty rapier world and the given gravity.
    pub fn new(gravity: Vec2) -> RapierStage {
        RapierStage { gravity }
    }
}

impl PhysicsStage for RapierStage {
    fn reconcile(&mut self, world: &mut World, _fixed_dt: f64) {
        let _ = self.gravity;
        let mut scratch = Vec::new();
        world.take_commands(&mut scratch);
        let mut ids = Vec::new();
        world.take_added_bodies(&mut ids);
        world.take_removed_bodies(&mut ids);
    }

    fn step(&mut self, _fixed_dt: f64, _substeps: u32, _contacts: &mut Vec<ContactEvent>) {}

    fn commit(&mut self, world: &mut World) {
        for object in world.objects_mut() {
            if let Some(body) = object.body.as_mut() {
                body.previous = body.committed;
            }
        }
    }

    fn clone_box(&self) -> Box<dyn PhysicsStage> {
        Box::new(self.clone())
    }
}
