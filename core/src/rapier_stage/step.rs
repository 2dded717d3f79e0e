//! One tick's rapier steps: `substeps` steps of `fixed_dt / substeps`, the
//! kinematic targets swept across them, the mid-step hooks called back
//! inside each when objects have them, then the tick's forces cleared, its
//! tears and collision events turned into the stage's (the module docs of
//! `rapier_stage` say why in that order).

use super::*;

impl RapierStage {
    /// One tick's `substeps` rapier steps, calling the mid-step hooks back
    /// when `calls` is given (the module docs' step 3).
    pub(super) fn step_with(
        &mut self,
        fixed_dt: f64,
        substeps: u32,
        contacts: &mut Vec<ContactEvent>,
        calls: Option<&MidStepCalls<'_>>,
    ) {
        let t0 = Instant::now();
        let n = substeps.max(1);
        self.physics.integration_parameters.dt = (fixed_dt / f64::from(n)) as Real;

        // Kinematic moves: where each body starts this tick.
        let moves: Vec<(RigidBodyHandle, Pose, Pose)> = self
            .kinematic_targets
            .iter()
            .filter_map(|(id, target)| {
                let link = self.links.get(id)?;
                let start = from_rapier_pose(self.physics.bodies.get(link.body)?.position());
                Some((link.body, start, *target))
            })
            .collect();
        self.kinematic_targets.clear();

        let collector = EventCollector::default();
        for k in 1..=n {
            for (handle, start, target) in &moves {
                let aim = if k == n {
                    *target
                } else {
                    start.lerp(*target, k as f32 / n as f32)
                };
                if let Some(body) = self.physics.bodies.get_mut(*handle) {
                    body.set_next_kinematic_position(to_rapier_pose(aim));
                }
            }
            match calls {
                None => self.physics.step_with_events(&(), &collector),
                Some(calls) => {
                    let hooks = mid_step::Hooked { calls, substep: k };
                    self.physics.step_with_events(&hooks, &collector);
                }
            }
        }

        // Forces act for exactly this tick.
        for id in std::mem::take(&mut self.forced) {
            self.reset_soft_forces(id);
            if let Some(body) = self
                .links
                .get(&id)
                .and_then(|l| self.physics.bodies.get_mut(l.body))
            {
                body.reset_forces(false);
            }
        }

        for tear in collector.take_tears() {
            self.record_tear(&tear);
        }

        let mut events = std::mem::take(&mut self.events);
        collector.take(&mut events);
        for event in events.drain(..) {
            self.count_event(event, contacts);
        }
        self.events = events;

        // The removed colliders have had their step: forget them, and any count
        // still involving an object that no longer has a body.
        // Only a removal can leave such a count, so the (costly) scan only runs
        // after one: it was 10% of a 1,000-body tick when done every tick.
        let removed_any = !self.retired_colliders.is_empty();
        for key in self.retired_colliders.drain(..) {
            self.collider_owner.remove(&key);
        }
        if removed_any {
            let (links, soft) = (&self.links, &self.soft_links);
            let has = |id: &ObjectId| links.contains_key(id) || soft.contains_key(id);
            self.touching.retain(|(a, b), _| has(a) && has(b));
        }

        self.last_step_ms = t0.elapsed().as_secs_f64() * 1000.0;
    }
}
