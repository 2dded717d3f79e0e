//! [`EventCollector`]: rapier's collision and tear events, gathered during a
//! step for delivery after it (the module docs of `rapier_stage` say why).

use std::sync::Mutex;

use rapier2d::prelude::{
    ColliderSet, CollisionEvent, ContactPair, EventHandler, Real, RigidBodySet, SoftBodySet,
    SoftBodyTearEvent,
};

/// Collects rapier's collision events during a step. Rapier calls it from inside
/// `step` through a shared reference and requires `Sync`, hence the mutex; the
/// lock is never contended (the stage is stepped on one thread).
#[derive(Default)]
pub(super) struct EventCollector {
    events: Mutex<Vec<CollisionEvent>>,
    tears: Mutex<Vec<SoftBodyTearEvent>>,
}

impl EventCollector {
    pub(super) fn take(&self, into: &mut Vec<CollisionEvent>) {
        let mut events = self.events.lock().unwrap_or_else(|e| e.into_inner());
        into.append(&mut events);
    }

    pub(super) fn take_tears(&self) -> Vec<SoftBodyTearEvent> {
        std::mem::take(&mut *self.tears.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl EventHandler for EventCollector {
    fn handle_collision_event(
        &self,
        _bodies: &RigidBodySet,
        _colliders: &ColliderSet,
        event: CollisionEvent,
        _contact_pair: Option<&ContactPair>,
    ) {
        self.events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(event);
    }

    fn handle_contact_force_event(
        &self,
        _dt: Real,
        _bodies: &RigidBodySet,
        _colliders: &ColliderSet,
        _contact_pair: &ContactPair,
        _total_force_magnitude: Real,
    ) {
    }

    fn handle_soft_body_tear_event(&self, _soft_bodies: &SoftBodySet, event: &SoftBodyTearEvent) {
        self.tears
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(event.clone());
    }
}
