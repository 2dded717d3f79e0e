//! What a reconcile does to the engine, body by body: creating a body (its
//! checks against the stage's gravity, its colliders, a soft body's
//! particles), dropping one, and applying a queued command, refused with
//! object, hook and tick when its result would not fit in `f32` (see
//! [`crate::limits`]).

use super::*;

impl RapierStage {
    /// Reconcile runs for the pending tick: the world's stamp says which, and
    /// which frame runs it.
    pub(super) fn log(
        &self,
        world: &mut World,
        level: LogLevel,
        object: ObjectId,
        message: String,
    ) {
        world.log_now(level, Some(object), None, message);
    }

    /// Creates the rapier body of `id` from its description, at its committed pose.
    pub(super) fn add_body(&mut self, world: &mut World, id: ObjectId) {
        if self.links.contains_key(&id) || self.soft_links.contains_key(&id) {
            return;
        }
        let Some(state) = world.get(id).and_then(|o| o.body.as_ref()) else {
            // Removed before its first reconcile, or no body: nothing to create.
            return;
        };
        let desc = state.desc.clone();
        let pose = state.committed;
        // `World::spawn` refuses these already; this guards bodies edited in
        // place. A refused body is taken away: the object lives on without one.
        let refusal = match desc
            .check()
            .and_then(|()| desc.check_weight(self.gravity()))
        {
            Err(reason) => Some(reason),
            Ok(()) if !pose.is_finite() => Some(BodyError::Placement(format!(
                "non-finite spawn pose {pose:?}"
            ))),
            Ok(()) => None,
        };
        if let Some(reason) = refusal {
            self.log(
                world,
                LogLevel::Error,
                id,
                format!("body not created: {reason}"),
            );
            world.refuse_body(id);
            return;
        }
        let builder = match desc.kind {
            BodyKind::Soft => return self.add_soft(world, id),
            BodyKind::Dynamic => RigidBodyBuilder::dynamic(),
            BodyKind::Kinematic => RigidBodyBuilder::kinematic_position_based(),
            BodyKind::Fixed => RigidBodyBuilder::fixed(),
        };
        let body = builder
            .pose(to_rapier_pose(pose))
            .linvel(to_rapier_vec(desc.velocity.linear))
            .angvel(desc.velocity.angular)
            .gravity_scale(desc.gravity_scale)
            .can_sleep(desc.can_sleep)
            .ccd_enabled(desc.ccd)
            .user_data(u128::from(id.0));
        // A body spawned into a disabled subtree starts out of the simulation.
        let body = body.enabled(world.is_active(id));
        let handle = self.physics.bodies.insert(body);
        let mut colliders = Vec::with_capacity(desc.shapes.len());
        for shape in &desc.shapes {
            let builder = match shape {
                Shape::Circle { radius } => ColliderBuilder::ball(*radius),
                Shape::Cuboid { hx, hy } => ColliderBuilder::cuboid(*hx, *hy),
                Shape::Capsule {
                    half_height,
                    radius,
                } => ColliderBuilder::capsule_y(*half_height, *radius),
                Shape::ConvexPolygon { points } => {
                    let points: Vec<_> = points.iter().map(|p| to_rapier_vec(*p)).collect();
                    match ColliderBuilder::convex_hull(&points) {
                        Some(b) => b,
                        None => {
                            let msg =
                                format!("shape skipped: degenerate convex polygon {points:?}");
                            self.log(world, LogLevel::Error, id, msg);
                            continue;
                        }
                    }
                }
            };
            let collider = builder
                .density(desc.density)
                .friction(desc.friction)
                .restitution(desc.restitution)
                .sensor(desc.sensor)
                .active_events(ActiveEvents::COLLISION_EVENTS)
                .user_data(u128::from(id.0));
            let ch = self.physics.colliders.insert_with_parent(
                collider,
                handle,
                &mut self.physics.bodies,
            );
            self.collider_owner.insert(collider_key(ch), id);
            colliders.push(ch);
        }
        let sleeping = self
            .physics
            .bodies
            .get(handle)
            .is_some_and(|b| b.is_sleeping());
        self.links
            .insert(id, BodyLink::new(handle, colliders, sleeping));
    }

    /// Drops the rapier body of `id` and its colliders.
    pub(super) fn remove_body(&mut self, id: ObjectId) {
        self.remove_soft(id);
        let Some(link) = self.links.remove(&id) else {
            return;
        };
        self.physics.remove_body(link.body);
        self.retired_colliders
            .extend(link.colliders.iter().map(|c| collider_key(*c)));
        self.kinematic_targets.remove(&id);
        self.forced.remove(&id);
        self.mid_step.remove(&id);
    }

    /// Applies one command; commands for objects without a body are ignored.
    /// A command whose result would not be finite (see [`command_overflow`]) is
    /// refused and reported with its object, hook and tick, and the body goes
    /// on from the state it had.
    pub(super) fn apply(&mut self, world: &mut World, queued: &QueuedCommand, fixed_dt: f64) {
        let command = &queued.command;
        let target = command.target();
        if !command.is_finite() {
            // World::command already rejects these; this guards direct queue writes.
            let msg = format!("rejected non-finite body command: {command:?}");
            world.log_now(LogLevel::Error, Some(target), queued.hook, msg);
            return;
        }
        if self.soft_links.contains_key(&target) {
            return self.apply_soft(world, queued, fixed_dt);
        }
        let gravity = self.physics.gravity;
        let Some(link) = self.links.get(&target) else {
            return;
        };
        let Some(body) = self.physics.bodies.get_mut(link.body) else {
            return;
        };
        if !body.is_enabled() {
            // Out of the simulation (a disabled subtree): like a body that
            // does not exist, it takes no command.
            return;
        }
        if let Some(why) = command_overflow(body, command, gravity, fixed_dt) {
            let msg = format!(
                "rejected body command {command:?}: its result is not finite ({why}); the body goes on from its last state"
            );
            world.log_now(LogLevel::Error, Some(target), queued.hook, msg);
            return;
        }
        match *command {
            BodyCommand::Force { force, .. } => {
                if body.is_dynamic() {
                    body.add_force(to_rapier_vec(force), true);
                    self.forced.insert(target);
                }
            }
            BodyCommand::Impulse { impulse, .. } => {
                body.apply_impulse(to_rapier_vec(impulse), true);
            }
            BodyCommand::KinematicTarget { pose, .. } => {
                if body.is_kinematic() {
                    self.kinematic_targets.insert(target, pose);
                } else {
                    let msg = format!("kinematic target ignored: {target} is not kinematic");
                    self.log(world, LogLevel::Warning, target, msg);
                }
            }
            BodyCommand::SetPose { pose, .. } => {
                body.set_position(to_rapier_pose(pose), true);
                // A teleport replaces any earlier target of this tick.
                self.kinematic_targets.remove(&target);
            }
            BodyCommand::SetVelocity { velocity, .. } => {
                body.set_linvel(to_rapier_vec(velocity.linear), true);
                body.set_angvel(velocity.angular, true);
            }
        }
    }
}
