//! The committed state of a soft body, and the pose the contract reads from it.
//!
//! The contract: "soft bodies read the committed particle centroid with the
//! authored-origin offset". A soft body has no rigid pose of its own, so
//! `physics_simulation_pose` is made from its committed particles, once per
//! tick at commit, and stored as the body's committed pose (so bodyless
//! children, traces, hashes and interpolation treat it like any other body's).
//!
//! # The formula
//!
//! With particle masses `mᵢ`, committed positions `pᵢ`, rest positions `qᵢ`
//! (relative to the rest centroid, in the rest frame: world axes when the body
//! was created), `M = Σ mᵢ`:
//!
//! - centroid `c = Σ mᵢ pᵢ / M`, rest centroid `q̄ = Σ mᵢ qᵢ / M` (zero until a
//!   tear changes which particles there are);
//! - `p'ᵢ = pᵢ − c`, `q'ᵢ = qᵢ − q̄`;
//! - the best-fit rotation of the particles against their rest shape is the
//!   rotation of the polar decomposition of `A = Σ mᵢ p'ᵢ q'ᵢᵀ` (2-D shape
//!   matching, Müller et al. 2005). In 2-D its angle is
//!   `θ = atan2(Σ mᵢ (p'ᵢy q'ᵢx − p'ᵢx q'ᵢy), Σ mᵢ (p'ᵢx q'ᵢx + p'ᵢy q'ᵢy))`,
//!   the angle minimising `Σ mᵢ |R(θ) q'ᵢ − p'ᵢ|²` (0 when both sums are 0:
//!   a single particle, or every particle on the centroid);
//! - with `o` the authored-origin offset (authored origin minus rest centroid,
//!   rest frame), the pose is `position = c + R(θ) (o − q̄)`,
//!   `angle = α + θ`, `α` the authored world angle.
//!
//! The offset turns with the body, so a child hung off a rope's end follows
//! the end as the rope swings. The velocity is the centroid's,
//! `v̄ = Σ mᵢ vᵢ / M`, and `ω = Σ mᵢ p'ᵢ × (vᵢ − v̄) / Σ mᵢ |p'ᵢ|²`.
//! Sums are taken in `f64` in particle order, then rounded to `f32`.
//!
//! # Worked example
//!
//! A square of four 1 kg particles authored with its origin at its bottom
//! middle: rest positions `q = (1, 1), (−1, 1), (−1, −1), (1, −1)` about the
//! rest centroid, origin offset `o = (0, −1)`, authored angle 0. Committed
//! particles: the square turned a quarter turn and moved to `c = (5, 3)`,
//! `p = (4, 4), (4, 2), (6, 2), (6, 4)`, so `p' = (−1, 1), (−1, −1), (1, −1),
//! (1, 1)`. The cross sum is `2 + 2 + 2 + 2 = 8`, the dot sum
//! `0 + 0 + 0 + 0 = 0`, so `θ = atan2(8, 0) = π/2`, and the pose is
//! `(5, 3) + R(π/2)(0, −1) = (5, 3) + (1, 0) = (6, 3)`, angle `π/2`: the
//! origin went round with the square, from below its centre to its right.
//!
//! # Presentation
//!
//! [`SoftState::presentation_particles`] blends previous → committed particles
//! by the interpolation alpha, like a rigid pose; on the tick a tear changed
//! the particle count there is nothing to blend from and the committed
//! particles are drawn.

use crate::geometry::{Pose, Vec2, Velocity};
use crate::soft_body::{SoftBodyDesc, SoftShape};

/// A run of particles along a soft body's boundary, for drawing its outline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SoftOutline {
    /// Particle indices in order along the boundary (outward normal on the right).
    pub particles: Vec<u32>,
    /// Whether the last particle joins back to the first (a disk; not a rope).
    pub closed: bool,
}

/// The committed particles of a soft body and what is needed to pose and draw
/// them; the physics stage rewrites it at every commit. Indices are into
/// `particles`, which holds every piece of the body, the piece that kept the
/// original first (see `rapier_stage` on tears).
#[derive(Clone, Debug, PartialEq)]
pub struct SoftState {
    /// World positions at the end of the last completed tick.
    pub particles: Vec<Vec2>,
    /// World positions at the end of the tick before it (interpolation start).
    pub previous: Vec<Vec2>,
    /// World velocities at the end of the last completed tick.
    pub velocities: Vec<Vec2>,
    /// Rest positions, relative to the rest centroid, in the rest frame.
    pub rest: Vec<Vec2>,
    /// Particle masses, kg (pinned ones keep theirs: it weighs in the centroid).
    pub masses: Vec<f32>,
    /// Pinned particles, ascending.
    pub pinned: Vec<u32>,
    /// The boundary, as runs of particles.
    pub outlines: Vec<SoftOutline>,
    /// Authored origin minus rest centroid, in the rest frame.
    pub origin_offset: Vec2,
    /// The authored world angle (the rest frame's angle).
    pub rest_angle: f32,
    /// Thickness of the particles, metres.
    pub particle_radius: f32,
    /// How many soft bodies the object is made of (1 until a tear splits it).
    pub pieces: u32,
    /// Tears so far (a tear may open a crack without splitting the body).
    pub tears: u32,
}

impl SoftState {
    /// The state of `desc` at rest at world pose `pose`: where a new soft body
    /// is until its first tick.
    pub fn at_rest(desc: &SoftBodyDesc, pose: Pose, velocity: Velocity) -> SoftState {
        let particles = desc.world_particles(pose);
        let n = particles.len();
        let mass = desc.mass / n.max(1) as f32;
        let masses = vec![mass; n];
        let centroid = weighted_mean(&particles, &masses);
        let rest = particles.iter().map(|p| *p - centroid).collect();
        let mut pinned = desc.pinned.clone();
        pinned.sort_unstable();
        pinned.dedup();
        SoftState {
            previous: particles.clone(),
            velocities: vec![velocity.linear; n],
            particles,
            rest,
            masses,
            pinned,
            outlines: rest_outline(&desc.shape),
            origin_offset: pose.position() - centroid,
            rest_angle: pose.angle,
            particle_radius: desc.particle_radius,
            pieces: 1,
            tears: 0,
        }
    }

    /// The committed pose (see the module docs for the formula).
    pub fn pose(&self) -> Pose {
        soft_pose(
            &self.particles,
            &self.rest,
            &self.masses,
            self.origin_offset,
            self.rest_angle,
        )
    }

    /// The mass-weighted centroid of the committed particles.
    pub fn centroid(&self) -> Vec2 {
        weighted_mean(&self.particles, &self.masses)
    }

    /// The committed velocity: the centroid's, and the particles' mean spin.
    pub fn velocity(&self) -> Velocity {
        let (c, _) = centroid64(&self.particles, &self.masses);
        let (v, _) = centroid64(&self.velocities, &self.masses);
        let (mut spin, mut inertia) = (0.0f64, 0.0f64);
        for ((p, u), m) in self
            .particles
            .iter()
            .zip(&self.velocities)
            .zip(&self.masses)
        {
            let (m, px, py) = (f64::from(*m), f64::from(p.x) - c.0, f64::from(p.y) - c.1);
            let (ux, uy) = (f64::from(u.x) - v.0, f64::from(u.y) - v.1);
            spin += m * (px * uy - py * ux);
            inertia += m * (px * px + py * py);
        }
        let angular = if inertia > 0.0 { spin / inertia } else { 0.0 };
        Velocity {
            linear: Vec2::new(v.0 as f32, v.1 as f32),
            angular: angular as f32,
        }
    }

    /// Whether the body has torn at least once.
    pub fn torn(&self) -> bool {
        self.tears > 0
    }

    /// Writes the particles presentation draws into `out`: previous →
    /// committed blended by `alpha`, or the committed ones on a tick whose
    /// tear changed their number.
    pub fn presentation_particles(&self, alpha: f64, out: &mut Vec<Vec2>) {
        out.clear();
        if self.previous.len() != self.particles.len() {
            out.extend_from_slice(&self.particles);
            return;
        }
        let t = alpha as f32;
        out.extend(
            self.previous
                .iter()
                .zip(&self.particles)
                .map(|(a, b)| *a + (*b - *a) * t),
        );
    }
}

/// The pose of particles `particles` whose rest shape is `rest` (see the
/// module docs for the formula and a worked example).
pub fn soft_pose(
    particles: &[Vec2],
    rest: &[Vec2],
    masses: &[f32],
    origin_offset: Vec2,
    rest_angle: f32,
) -> Pose {
    let (c, total) = centroid64(particles, masses);
    let (q, _) = centroid64(rest, masses);
    if total <= 0.0 {
        return Pose::new(
            origin_offset.x + c.0 as f32,
            origin_offset.y + c.1 as f32,
            rest_angle,
        );
    }
    let (mut cross, mut dot) = (0.0f64, 0.0f64);
    for ((p, r), m) in particles.iter().zip(rest).zip(masses) {
        let m = f64::from(*m);
        let (px, py) = (f64::from(p.x) - c.0, f64::from(p.y) - c.1);
        let (qx, qy) = (f64::from(r.x) - q.0, f64::from(r.y) - q.1);
        cross += m * (py * qx - px * qy);
        dot += m * (px * qx + py * qy);
    }
    let theta = if cross == 0.0 && dot == 0.0 {
        0.0
    } else {
        cross.atan2(dot)
    };
    let (s, co) = theta.sin_cos();
    let (ox, oy) = (
        f64::from(origin_offset.x) - q.0,
        f64::from(origin_offset.y) - q.1,
    );
    Pose::new(
        (c.0 + co * ox - s * oy) as f32,
        (c.1 + s * ox + co * oy) as f32,
        (f64::from(rest_angle) + theta) as f32,
    )
}

/// Mass-weighted mean of `points` in `f64`, and the total mass.
fn centroid64(points: &[Vec2], masses: &[f32]) -> ((f64, f64), f64) {
    let (mut x, mut y, mut total) = (0.0f64, 0.0f64, 0.0f64);
    for (p, m) in points.iter().zip(masses) {
        let m = f64::from(*m);
        x += m * f64::from(p.x);
        y += m * f64::from(p.y);
        total += m;
    }
    if total > 0.0 {
        ((x / total, y / total), total)
    } else {
        ((0.0, 0.0), 0.0)
    }
}

fn weighted_mean(points: &[Vec2], masses: &[f32]) -> Vec2 {
    let ((x, y), _) = centroid64(points, masses);
    Vec2::new(x as f32, y as f32)
}

/// The outline of a rest shape, before rapier has built the body.
fn rest_outline(shape: &SoftShape) -> Vec<SoftOutline> {
    match shape {
        SoftShape::Disk { particles, .. } => vec![SoftOutline {
            particles: (0..*particles).collect(),
            closed: true,
        }],
        SoftShape::Polygon { points } => vec![SoftOutline {
            particles: (0..points.len() as u32).collect(),
            closed: true,
        }],
        SoftShape::Rope { particles, .. } => vec![SoftOutline {
            particles: (0..*particles).collect(),
            closed: false,
        }],
        SoftShape::Grid { nx, ny, .. } => {
            let (nx, ny) = (*nx, *ny);
            let at = |i: u32, j: u32| i * ny + j;
            let mut ring: Vec<u32> = (0..nx).map(|i| at(i, 0)).collect();
            ring.extend((1..ny).map(|j| at(nx - 1, j)));
            ring.extend((0..nx - 1).rev().map(|i| at(i, ny - 1)));
            ring.extend((1..ny - 1).rev().map(|j| at(0, j)));
            vec![SoftOutline {
                particles: ring,
                closed: true,
            }]
        }
    }
}

/// Chains boundary segments `[a, b]` (oriented) into outlines: open runs first
/// (from each particle no segment ends at), then the closed loops, each from
/// its lowest unvisited particle, so the result never depends on the segments'
/// order.
pub fn outlines_from_segments(segments: &[[u32; 2]]) -> Vec<SoftOutline> {
    use std::collections::BTreeMap;
    let mut next: BTreeMap<u32, u32> = BTreeMap::new();
    let mut has_incoming = std::collections::BTreeSet::new();
    for &[a, b] in segments {
        next.entry(a).or_insert(b);
        has_incoming.insert(b);
    }
    let mut visited = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    let starts: Vec<u32> = next
        .keys()
        .copied()
        .filter(|a| !has_incoming.contains(a))
        .collect();
    for start in starts {
        let mut run = vec![start];
        visited.insert(start);
        let mut at = start;
        while let Some(&b) = next.get(&at) {
            run.push(b);
            if !visited.insert(b) {
                break;
            }
            at = b;
        }
        out.push(SoftOutline {
            particles: run,
            closed: false,
        });
    }
    let keys: Vec<u32> = next.keys().copied().collect();
    for start in keys {
        if visited.contains(&start) {
            continue;
        }
        let mut run = vec![start];
        visited.insert(start);
        let mut at = start;
        while let Some(&b) = next.get(&at) {
            if !visited.insert(b) {
                break;
            }
            run.push(b);
            at = b;
        }
        out.push(SoftOutline {
            particles: run,
            closed: true,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worked_example_of_the_module_docs() {
        let rest = [
            Vec2::new(1.0, 1.0),
            Vec2::new(-1.0, 1.0),
            Vec2::new(-1.0, -1.0),
            Vec2::new(1.0, -1.0),
        ];
        let particles = [
            Vec2::new(4.0, 4.0),
            Vec2::new(4.0, 2.0),
            Vec2::new(6.0, 2.0),
            Vec2::new(6.0, 4.0),
        ];
        let pose = soft_pose(&particles, &rest, &[1.0; 4], Vec2::new(0.0, -1.0), 0.0);
        assert!((pose.x - 6.0).abs() < 1e-6, "{pose:?}");
        assert!((pose.y - 3.0).abs() < 1e-6, "{pose:?}");
        assert!((pose.angle - std::f32::consts::FRAC_PI_2).abs() < 1e-6);
    }

    #[test]
    fn segments_chain_into_a_loop_and_a_run() {
        let out = outlines_from_segments(&[[5, 6], [1, 2], [2, 0], [0, 1], [4, 5]]);
        assert_eq!(
            out,
            vec![
                SoftOutline {
                    particles: vec![4, 5, 6],
                    closed: false
                },
                SoftOutline {
                    particles: vec![0, 1, 2],
                    closed: true
                },
            ]
        );
    }
}
