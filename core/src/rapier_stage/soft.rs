//! Soft bodies in the rapier stage: created, commanded, committed and removed
//! at the same points of the tick as rigid bodies.
//!
//! # Commands on a soft body
//!
//! A body command addresses the soft body as a whole. A force `F` is spread
//! over the particles by mass (particle `i` gets `F mᵢ / M`), so every free
//! particle, and the centroid of a body without pinned particles, accelerates
//! by `F / M`: a 10 N push on a 2 kg jelly at 60 Hz moves its centroid's
//! velocity by 10 / 2 / 60 = 0.0833 m/s in the tick, as for a rigid body. An
//! impulse `J` is spread the same way (`Δv = J / M` on every free particle).
//! Pinned particles take no share. A velocity is set on every free particle
//! (its linear part, plus `ω × (pᵢ − c)` for the angular part); a pose moves
//! every particle rigidly so the body's pose becomes the one asked for.
//! Kinematic targets are for kinematic bodies and are ignored with a warning.
//!
//! # Tears and pieces
//!
//! When a tear splits a soft body, rapier makes the piece with the largest
//! rest measure keep the body's handle and creates new soft bodies for the
//! others. The pieces **stay one object**: the object's particles are every
//! piece's, the kept piece first and the others in the order rapier made them,
//! so its pose (the centroid of all its material) moves on without a jump,
//! its commands act on every piece and a removal removes them all. No object
//! is spawned and ids stay what the scene wrote, so a trace or a rewind never
//! depends on when a tear happened. The tear callback tells behaviours which
//! object tore and how many pieces it is now made of (see `Behaviour::on_tear`).

use rapier2d::dynamics::{SoftBodyBuilder, SoftBodyHandle, SoftBodyMaterial, SpringCoefficients};
use rapier2d::prelude::{ActiveEvents, ColliderBuilder, ColliderHandle, SoftBodySet};

use super::{RapierStage, collider_key, to_rapier_vec};
use crate::body::{BodyCommand, BodyDesc};
use crate::geometry::{Pose, Vec2};
use crate::ids::ObjectId;
use crate::limits::{fits_f32, speed_fits};
use crate::soft_body::{SoftBodyDesc, SoftMaterial, SoftPiece, SoftShape, SoftTear};
use crate::soft_pose::{SoftState, outlines_from_segments};
use crate::world::{LogLevel, QueuedCommand, World};

/// The rapier side of one object with a soft body.
#[derive(Clone, Debug)]
pub(super) struct SoftLink {
    /// The soft bodies the object is made of: the original first, then the
    /// pieces tears split off, in the order rapier made them.
    pub(super) bodies: Vec<SoftBodyHandle>,
    /// Every collider its bodies have had (a tear adds some).
    pub(super) colliders: Vec<ColliderHandle>,
    /// Tears seen so far.
    pub(super) tears: u32,
    /// Whether a tear changed the particles since the last commit.
    pub(super) reshaped: bool,
}

/// A soft-body handle as an ordered key.
pub(super) fn soft_key(handle: SoftBodyHandle) -> (u32, u32) {
    handle.into_raw_parts()
}

fn spring(s: crate::soft_body::Spring) -> SpringCoefficients<f32> {
    SpringCoefficients::new(s.frequency, s.damping)
}

/// The rapier material of an authored one (field by field).
pub(super) fn rapier_material(m: &SoftMaterial) -> SoftBodyMaterial {
    SoftBodyMaterial {
        edge_softness: spring(m.edge),
        bend_softness: spring(m.bend),
        volume_softness: spring(m.volume),
        shape_matching_softness: spring(m.shape_matching),
        young_modulus: m.young_modulus,
        poisson_ratio: m.poisson_ratio,
        elastic_damping_ratio: m.elastic_damping,
        plastic_yield: m.plastic_yield,
        plastic_creep: m.plastic_creep,
        plastic_max: m.plastic_max,
        deformation_damping: m.deformation_damping,
        edge_plastic_yield: m.edge_plastic_yield,
        edge_plastic_creep: m.edge_plastic_creep,
        edge_plastic_max: m.edge_plastic_max,
        tear_strain: m.tear_strain,
        tear_force: m.tear_force,
        tear_smoothing: m.tear_smoothing,
        interior_strength: m.interior_strength,
        max_tears_per_step: m.max_tears_per_step.unwrap_or(u32::MAX),
        min_piece: m.min_piece,
        ..SoftBodyMaterial::default()
    }
}

/// The rapier builder of `soft` at world pose `pose`: rapier's generator for
/// the topology, with the particles where [`SoftBodyDesc::world_particles`]
/// puts them (one rule for the rest shape, shared with `World::spawn`).
fn builder(desc: &BodyDesc, soft: &SoftBodyDesc, pose: Pose, id: ObjectId) -> SoftBodyBuilder {
    let positions: Vec<_> = soft
        .world_particles(pose)
        .into_iter()
        .map(to_rapier_vec)
        .collect();
    let zero = rapier2d::math::Vector::ZERO;
    let topology = match &soft.shape {
        SoftShape::Disk { .. } | SoftShape::Polygon { .. } => {
            SoftBodyBuilder::polygon(positions.clone())
        }
        SoftShape::Grid { hx, hy, nx, ny } => SoftBodyBuilder::grid(
            zero,
            rapier2d::math::Vector::new(*hx, *hy),
            *nx as usize,
            *ny as usize,
        ),
        SoftShape::Rope { to, particles } => {
            SoftBodyBuilder::rope(zero, to_rapier_vec(*to), *particles as usize)
        }
    };
    let surface = ColliderBuilder::ball(soft.particle_radius)
        .density(0.0)
        .friction(desc.friction)
        .restitution(desc.restitution)
        .sensor(desc.sensor)
        .active_events(ActiveEvents::COLLISION_EVENTS)
        .user_data(u128::from(id.0));
    topology
        .positions(positions)
        .particle_radius(soft.particle_radius)
        .mass(soft.mass)
        .pinned_particles(soft.pinned.iter().copied())
        .volume_preservation(soft.volume_preservation)
        .shape_matching(soft.shape_matching)
        .material(rapier_material(&soft.material))
        .linear_damping(soft.linear_damping)
        .gravity_scale(desc.gravity_scale)
        .can_sleep(desc.can_sleep)
        .surface_collider(surface)
        .user_data(u128::from(id.0))
}

/// The colliders of soft body `handle`'s live clusters.
fn colliders_of(set: &SoftBodySet, handle: SoftBodyHandle, out: &mut Vec<ColliderHandle>) {
    let Some(body) = set.get(handle) else { return };
    for (_, cluster) in body.live_clusters() {
        out.extend(
            cluster
                .meshes()
                .filter(|m| m.collision_enabled())
                .map(|m| m.collider()),
        );
    }
}

impl RapierStage {
    /// Creates the rapier soft body of `id` at its committed pose (the
    /// description was checked by the caller).
    pub(super) fn add_soft(&mut self, world: &mut World, id: ObjectId) {
        let active = world.is_active(id);
        let Some(state) = world.get_mut(id).and_then(|o| o.body.as_mut()) else {
            return;
        };
        let Some(soft) = state.desc.soft.clone() else {
            return;
        };
        let pose = state.committed;
        let handle = self
            .physics
            .insert_soft_body(builder(&state.desc, &soft, pose, id));
        let linear = state.desc.velocity;
        if let Some(body) = self.physics.soft_bodies.get_mut(handle) {
            let (c, w) = (pose.position(), linear.angular);
            for i in 0..body.num_particles() {
                if body.particles()[i].is_pinned() {
                    continue;
                }
                let p = body.particle_position(i);
                let r = Vec2::new(p.x - c.x, p.y - c.y);
                let v = linear.linear + Vec2::new(-w * r.y, w * r.x);
                body.set_particle_velocity(i, to_rapier_vec(v));
            }
            body.set_enabled(active);
            // The outline as rapier built it (a grid's boundary comes from its cells).
            let segments: Vec<[u32; 2]> = body.boundary().to_vec();
            let at_rest = state
                .soft
                .get_or_insert_with(|| Box::new(SoftState::at_rest(&soft, pose, linear)));
            at_rest.outlines = outlines_from_segments(&segments);
        }
        let mut colliders = Vec::new();
        colliders_of(&self.physics.soft_bodies, handle, &mut colliders);
        for c in &colliders {
            self.collider_owner.insert(collider_key(*c), id);
        }
        self.soft_owner.insert(soft_key(handle), id);
        self.soft_links.insert(
            id,
            SoftLink {
                bodies: vec![handle],
                colliders,
                tears: 0,
                reshaped: false,
            },
        );
    }

    /// Drops every soft body of `id`, and its colliders.
    pub(super) fn remove_soft(&mut self, id: ObjectId) {
        let Some(link) = self.soft_links.remove(&id) else {
            return;
        };
        for handle in &link.bodies {
            self.soft_owner.remove(&soft_key(*handle));
            self.physics.remove_soft_body(*handle);
        }
        self.retired_colliders
            .extend(link.colliders.iter().map(|c| collider_key(*c)));
        self.forced.remove(&id);
    }

    /// Enables or disables every piece of `id`.
    pub(super) fn set_soft_enabled(&mut self, id: ObjectId, active: bool) {
        let Some(link) = self.soft_links.get(&id) else {
            return;
        };
        for handle in &link.bodies {
            if let Some(body) = self.physics.soft_bodies.get_mut(*handle) {
                body.set_enabled(active);
            }
        }
    }

    /// Clears the forces of every piece of `id` (after the step of their tick).
    pub(super) fn reset_soft_forces(&mut self, id: ObjectId) {
        let Some(link) = self.soft_links.get(&id) else {
            return;
        };
        for handle in &link.bodies {
            if let Some(body) = self.physics.soft_bodies.get_mut(*handle) {
                body.reset_forces(false);
            }
        }
    }

    /// Applies one command to a soft body (see the module docs).
    pub(super) fn apply_soft(&mut self, world: &mut World, queued: &QueuedCommand, fixed_dt: f64) {
        let target = queued.command.target();
        let Some(link) = self.soft_links.get(&target) else {
            return;
        };
        let set = &mut self.physics.soft_bodies;
        if link
            .bodies
            .first()
            .and_then(|h| set.get(*h))
            .is_none_or(|b| !b.is_enabled())
        {
            return;
        }
        let total: f64 = link
            .bodies
            .iter()
            .filter_map(|h| set.get(*h))
            .map(|b| f64::from(b.mass()))
            .sum();
        if total <= 0.0 {
            return;
        }
        // What the command would do to a free particle's velocity this tick.
        let (dvx, dvy) = match queued.command {
            BodyCommand::Force { force, .. } => (
                f64::from(force.x) / total * fixed_dt,
                f64::from(force.y) / total * fixed_dt,
            ),
            BodyCommand::Impulse { impulse, .. } => {
                (f64::from(impulse.x) / total, f64::from(impulse.y) / total)
            }
            BodyCommand::SetVelocity { velocity, .. } => {
                (f64::from(velocity.linear.x), f64::from(velocity.linear.y))
            }
            _ => (0.0, 0.0),
        };
        if !speed_fits(dvx, dvy) || !fits_f32(dvx * fixed_dt) || !fits_f32(dvy * fixed_dt) {
            let msg = format!(
                "rejected body command {:?}: its result is not finite (a particle's speed would change by {:.2e} m/s); the body goes on from its last state",
                queued.command,
                dvx.hypot(dvy)
            );
            world.log_now(LogLevel::Error, Some(target), queued.hook, msg);
            return;
        }
        let state = world.get(target).and_then(|o| o.body.as_ref());
        let pose = state.map(|s| s.committed);
        match queued.command {
            BodyCommand::Force { force, .. } => {
                for handle in &link.bodies {
                    let Some(body) = set.get_mut(*handle) else {
                        continue;
                    };
                    for i in 0..body.num_particles() {
                        let share = (f64::from(body.particles()[i].mass()) / total) as f32;
                        body.add_particle_force(i, to_rapier_vec(force * share), true);
                    }
                }
                self.forced.insert(target);
            }
            BodyCommand::Impulse { impulse, .. } => {
                for handle in &link.bodies {
                    let Some(body) = set.get_mut(*handle) else {
                        continue;
                    };
                    for i in 0..body.num_particles() {
                        let share = (f64::from(body.particles()[i].mass()) / total) as f32;
                        body.apply_particle_impulse(i, to_rapier_vec(impulse * share), true);
                    }
                }
            }
            BodyCommand::SetVelocity { velocity, .. } => {
                let c = state
                    .and_then(|s| s.soft.as_ref())
                    .map(|s| s.centroid())
                    .unwrap_or_default();
                let w = velocity.angular;
                for handle in &link.bodies {
                    let Some(body) = set.get_mut(*handle) else {
                        continue;
                    };
                    for i in 0..body.num_particles() {
                        if body.particles()[i].is_pinned() {
                            continue;
                        }
                        let p = body.particle_position(i);
                        let r = Vec2::new(p.x - c.x, p.y - c.y);
                        let v = velocity.linear + Vec2::new(-w * r.y, w * r.x);
                        body.set_particle_velocity(i, to_rapier_vec(v));
                    }
                    body.wake_up();
                }
            }
            BodyCommand::SetPose { pose: to, .. } => {
                let Some(from) = pose else { return };
                // p' = to ∘ from⁻¹ (p): every particle moves rigidly.
                let turn = to.angle - from.angle;
                let (s, c) = turn.sin_cos();
                for handle in &link.bodies {
                    let Some(body) = set.get_mut(*handle) else {
                        continue;
                    };
                    for i in 0..body.num_particles() {
                        let p = body.particle_position(i);
                        let (dx, dy) = (p.x - from.x, p.y - from.y);
                        let moved = Vec2::new(to.x + c * dx - s * dy, to.y + s * dx + c * dy);
                        if moved.is_finite() {
                            body.set_particle_position(i, to_rapier_vec(moved));
                        }
                    }
                }
            }
            BodyCommand::KinematicTarget { .. } => {
                let msg = format!("kinematic target ignored: {target} is a soft body");
                self.log(world, LogLevel::Warning, target, msg);
            }
        }
    }

    /// Publishes a soft body's particles: the committed ones become the
    /// previous ones, rapier's the committed ones, and the pose is made from
    /// them (see [`crate::soft_pose`]).
    pub(super) fn commit_soft(&mut self, id: ObjectId, state: &mut crate::object::BodyState) {
        let Some(link) = self.soft_links.get_mut(&id) else {
            return;
        };
        let Some(soft) = state.soft.as_mut() else {
            return;
        };
        std::mem::swap(&mut soft.previous, &mut soft.particles);
        soft.particles.clear();
        soft.velocities.clear();
        let reshaped = std::mem::take(&mut link.reshaped);
        if reshaped {
            soft.rest.clear();
            soft.masses.clear();
            soft.pinned.clear();
            soft.outlines.clear();
        }
        let set = &self.physics.soft_bodies;
        for handle in &link.bodies {
            let Some(body) = set.get(*handle) else {
                continue;
            };
            let base = soft.particles.len() as u32;
            for p in body.particles() {
                let (x, v) = (p.position(), p.velocity());
                soft.particles.push(Vec2::new(x.x, x.y));
                soft.velocities.push(Vec2::new(v.x, v.y));
            }
            if reshaped {
                for (i, p) in body.particles().iter().enumerate() {
                    let q = p.initial_rest_position();
                    soft.rest.push(Vec2::new(q.x, q.y));
                    soft.masses.push(p.mass());
                    if p.is_pinned() {
                        soft.pinned.push(base + i as u32);
                    }
                }
                let segments: Vec<[u32; 2]> = body
                    .boundary()
                    .iter()
                    .map(|[a, b]| [a + base, b + base])
                    .collect();
                soft.outlines.extend(outlines_from_segments(&segments));
            }
        }
        soft.pieces = link.bodies.len() as u32;
        soft.tears = link.tears;
        state.committed = soft.pose();
        state.velocity = soft.velocity();
    }
}

impl RapierStage {
    /// Takes in what a tear did: the pieces it split off join the torn
    /// object's link (after the ones it had), their colliders are owned by it,
    /// and the object's particles are re-read at the commit.
    pub(super) fn record_tear(&mut self, tear: &rapier2d::prelude::SoftBodyTearEvent) {
        let Some(&id) = self.soft_owner.get(&soft_key(tear.soft_body)) else {
            return;
        };
        let Some(link) = self.soft_links.get_mut(&id) else {
            return;
        };
        let mut new_pieces = Vec::new();
        for piece in &tear.pieces {
            if !link.bodies.contains(&piece.soft_body) {
                link.bodies.push(piece.soft_body);
                self.soft_owner.insert(soft_key(piece.soft_body), id);
                new_pieces.push(piece.soft_body);
            }
        }
        // Where each new piece's particles will sit in the object's list.
        let set = &self.physics.soft_bodies;
        let mut first = 0u32;
        let mut pieces = Vec::with_capacity(new_pieces.len());
        for handle in &link.bodies {
            let count = set.get(*handle).map_or(0, |b| b.num_particles() as u32);
            if new_pieces.contains(handle) {
                pieces.push(SoftPiece { first, count });
            }
            first += count;
        }
        self.tears.push(SoftTear {
            tick: 0,
            object: id,
            new_pieces: pieces,
            pieces: link.bodies.len() as u32,
        });
        let mut colliders = Vec::new();
        for handle in &link.bodies {
            colliders_of(&self.physics.soft_bodies, *handle, &mut colliders);
        }
        for c in colliders {
            if !link.colliders.contains(&c) {
                link.colliders.push(c);
                self.collider_owner.insert(collider_key(c), id);
            }
        }
        link.tears += 1;
        link.reshaped = true;
    }
}
