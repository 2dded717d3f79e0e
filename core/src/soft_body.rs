//! Authored soft bodies: what a scene writes after `kind: Soft`.
//!
//! A soft body is a set of particles joined by elastic constraints, stepped by
//! rapier2d 0.36.1's soft-body solver (`PhysicsWorld::soft_bodies`). A scene
//! describes it with a [`SoftBodyDesc`] in the body's `soft` field:
//!
//! ```ron
//! body: (kind: Soft, friction: 0.6, soft: (
//!     shape: Disk(radius: 0.8, particles: 24),
//!     material: (edge: (frequency: 20.0, damping: 0.5)),
//!     particle_radius: 0.05,
//!     mass: 2.0,
//!     pinned: [],
//!     volume_preservation: true,
//!     shape_matching: true,
//! ))
//! ```
//!
//! # The rest shape and the authored origin
//!
//! Every shape is written in the object's local frame and placed by its world
//! pose (the object's `transform`, composed with its parents'), so the authored
//! origin is the object's transform. The particles are where the shape puts
//! them at rest: a `Disk(radius: 0.8, particles: 24)` at `(x: 3.0, y: 2.0)`
//! has 24 particles on a circle of 0.8 m around (3, 2), the first on its +x
//! axis; a `Rope(to: (x: 4.0, y: 0.0), particles: 9)` at (−2, 1) has 9
//! particles 0.5 m apart from (−2, 1) to (2, 1). Masses are uniform (`mass`
//! split evenly), so the rest centroid is the mean rest position: (3, 2) for the
//! disk, (0, 1) for the rope. The **authored-origin offset** is the authored
//! origin minus that centroid, kept in the rest frame: (0, 0) for the disk,
//! (−2, 0) for the rope. [`crate::soft_pose()`] turns it into the body's pose.
//!
//! Loading is strict like the rest of a scene: unknown fields are errors with
//! line and column, and [`SoftBodyDesc::check`] refuses values physics cannot
//! build (see its docs), reported at the object.

use serde::{Deserialize, Serialize};

use crate::geometry::{Pose, Vec2};

mod check;
pub use check::SoftBodyError;

/// The most particles one soft body may have: rapier solves every particle of
/// a body in one island, and a 128 × 128 grid (16,384 particles) already takes
/// tens of milliseconds a tick on this machine's cores.
pub const MAX_SOFT_PARTICLES: usize = 16_384;

/// The largest size, metres, and the largest material value a soft body may
/// have. rapier's soft-body solver squares lengths and multiplies stiffness by
/// damping in `f32`: a spring damping of 1e19 put NaN into the first tick of a
/// fuzzed `soft.ron` (`plugins/tests/fuzz_scene.rs`), while 1e6² = 1e12 and
/// 1e6 × 1e6 stay far inside f32's 3.4e38.
pub const MAX_SOFT_VALUE: f32 = 1.0e6;

/// The rest shape of a soft body, in the object's local frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SoftShape {
    /// A jelly disk: `particles` particles on a circle of `radius` around the
    /// origin (first on the +x axis, counter-clockwise), joined along the
    /// boundary and to their second neighbours, holding its area.
    Disk {
        /// Radius, metres.
        radius: f32,
        /// Boundary particles, at least 3.
        particles: u32,
    },
    /// A solid jelly rectangle on an `nx × ny` particle grid centred on the
    /// origin, triangulated into elastic cells.
    Grid {
        /// Half width, metres.
        hx: f32,
        /// Half height, metres.
        hy: f32,
        /// Particles along x, at least 2.
        nx: u32,
        /// Particles along y, at least 2.
        ny: u32,
    },
    /// A closed polygon of particles at `points` (counter-clockwise, local
    /// frame), joined like a disk.
    Polygon {
        /// The particles, counter-clockwise, at least 3, enclosing an area.
        points: Vec<Vec2>,
    },
    /// A rope of `particles` particles from the origin to `to` (local frame),
    /// joined to their neighbours and second neighbours.
    Rope {
        /// The far end, local frame, metres; not the origin itself.
        to: Vec2,
        /// Particles, at least 2.
        particles: u32,
    },
}

/// Stiffness of one family of soft-body constraints, as rapier takes it: a
/// natural frequency and a damping ratio, independent of mass and timestep.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spring {
    /// Natural frequency, Hz (higher is stiffer).
    pub frequency: f32,
    /// Damping ratio (1 is critical).
    #[serde(default = "one")]
    pub damping: f32,
}

impl Spring {
    /// A spring of `frequency` Hz and damping ratio `damping`.
    pub const fn new(frequency: f32, damping: f32) -> Spring {
        Spring { frequency, damping }
    }
}

fn one() -> f32 {
    1.0
}
fn edge_default() -> Spring {
    Spring::new(30.0, 1.0)
}
fn bend_default() -> Spring {
    Spring::new(10.0, 1.0)
}
fn shape_matching_default() -> Spring {
    Spring::new(10.0, 1.0)
}
fn young_default() -> f32 {
    1.0e4
}
fn poisson_default() -> f32 {
    0.3
}
fn half() -> f32 {
    0.5
}

/// A soft body's material; every field maps to the rapier `SoftBodyMaterial`
/// field of the same meaning, with rapier's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SoftMaterial {
    /// Structural edges (rapier `edge_softness`).
    #[serde(default = "edge_default")]
    pub edge: Spring,
    /// Bending edges (rapier `bend_softness`).
    #[serde(default = "bend_default")]
    pub bend: Spring,
    /// Area preservation and volume cells (rapier `volume_softness`).
    #[serde(default = "edge_default")]
    pub volume: Spring,
    /// Shape matching (rapier `shape_matching_softness`).
    #[serde(default = "shape_matching_default")]
    pub shape_matching: Spring,
    /// Young's modulus of the grid's elastic cells, N/m (rapier `young_modulus`).
    #[serde(default = "young_default")]
    pub young_modulus: f32,
    /// Poisson's ratio of the grid's cells, in `[0, 0.5)` (rapier `poisson_ratio`).
    #[serde(default = "poisson_default")]
    pub poisson_ratio: f32,
    /// Damping ratio of the grid's cells (rapier `elastic_damping_ratio`).
    #[serde(default = "one")]
    pub elastic_damping: f32,
    /// Rate, 1/s, at which deformation (not whole-body motion) is damped
    /// (rapier `deformation_damping`).
    #[serde(default)]
    pub deformation_damping: f32,
    /// Strain past which cells flow plastically, 0 for none (rapier `plastic_yield`).
    #[serde(default)]
    pub plastic_yield: f32,
    /// Plastic flow rate, 1/s (rapier `plastic_creep`).
    #[serde(default = "one")]
    pub plastic_creep: f32,
    /// Largest plastic deformation of a cell (rapier `plastic_max`).
    #[serde(default = "one")]
    pub plastic_max: f32,
    /// Strain past which edges yield, 0 for none (rapier `edge_plastic_yield`).
    #[serde(default)]
    pub edge_plastic_yield: f32,
    /// Edge plastic flow rate, 1/s (rapier `edge_plastic_creep`).
    #[serde(default = "one")]
    pub edge_plastic_creep: f32,
    /// Largest permanent set of an edge, a fraction of its length (rapier `edge_plastic_max`).
    #[serde(default = "half")]
    pub edge_plastic_max: f32,
    /// Stretch (fraction of rest length) past which an element tears; none
    /// if absent (rapier `tear_strain`).
    #[serde(default, skip_serializing_if = "crate::binary_form::skip_none")]
    pub tear_strain: Option<f32>,
    /// Force, N, past which an edge tears; none if absent (rapier `tear_force`).
    #[serde(default, skip_serializing_if = "crate::binary_form::skip_none")]
    pub tear_force: Option<f32>,
    /// Smoothing of the load before the tear test, seconds (rapier `tear_smoothing`).
    #[serde(default)]
    pub tear_smoothing: f32,
    /// How much tougher an undamaged interior element is (rapier `interior_strength`).
    #[serde(default = "one")]
    pub interior_strength: f32,
    /// Edges torn per step at most; no limit if absent (rapier `max_tears_per_step`).
    #[serde(default, skip_serializing_if = "crate::binary_form::skip_none")]
    pub max_tears_per_step: Option<u32>,
    /// The smallest piece a tear may split off, in elements; rapier's default
    /// if absent (rapier `min_piece`).
    #[serde(default, skip_serializing_if = "crate::binary_form::skip_none")]
    pub min_piece: Option<u32>,
}

impl Default for SoftMaterial {
    fn default() -> SoftMaterial {
        SoftMaterial {
            edge: edge_default(),
            bend: bend_default(),
            volume: edge_default(),
            shape_matching: shape_matching_default(),
            young_modulus: young_default(),
            poisson_ratio: poisson_default(),
            elastic_damping: 1.0,
            deformation_damping: 0.0,
            plastic_yield: 0.0,
            plastic_creep: 1.0,
            plastic_max: 1.0,
            edge_plastic_yield: 0.0,
            edge_plastic_creep: 1.0,
            edge_plastic_max: 0.5,
            tear_strain: None,
            tear_force: None,
            tear_smoothing: 0.0,
            interior_strength: 1.0,
            max_tears_per_step: None,
            min_piece: None,
        }
    }
}

fn default_particle_radius() -> f32 {
    0.05
}
fn default_mass() -> f32 {
    1.0
}
fn default_true() -> bool {
    true
}

/// An authored soft body (the `soft` field of a body whose `kind` is `Soft`).
/// Friction, restitution, sensor, gravity scale, sleeping, the initial linear
/// velocity and the interpolation mode come from the enclosing body; its
/// `shapes` stay empty and its `density` is not used (`mass` is).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SoftBodyDesc {
    /// The rest shape, local frame.
    pub shape: SoftShape,
    /// Stiffness, damping, plasticity and tearing.
    #[serde(default)]
    pub material: SoftMaterial,
    /// Thickness of the particles: the contact skin of the body's surface, metres.
    #[serde(default = "default_particle_radius")]
    pub particle_radius: f32,
    /// Total mass, kg, split evenly over the particles.
    #[serde(default = "default_mass")]
    pub mass: f32,
    /// Indices of particles held in place (infinite mass).
    #[serde(default)]
    pub pinned: Vec<u32>,
    /// Whether a closed shape keeps its area (disk, polygon, grid).
    #[serde(default = "default_true")]
    pub volume_preservation: bool,
    /// Whether the particles are pulled towards the best-fit rigid placement
    /// of the rest shape (a firmer jelly).
    #[serde(default)]
    pub shape_matching: bool,
    /// Air friction of the particles, 1/s.
    #[serde(default)]
    pub linear_damping: f32,
}

impl SoftBodyDesc {
    /// A soft body of `shape` with the default material and settings.
    pub fn new(shape: SoftShape) -> SoftBodyDesc {
        SoftBodyDesc {
            shape,
            material: SoftMaterial::default(),
            particle_radius: default_particle_radius(),
            mass: default_mass(),
            pinned: Vec::new(),
            volume_preservation: true,
            shape_matching: false,
            linear_damping: 0.0,
        }
    }

    /// How many particles the rest shape has (before any tear).
    pub fn particle_count(&self) -> usize {
        match &self.shape {
            SoftShape::Disk { particles, .. } | SoftShape::Rope { particles, .. } => {
                *particles as usize
            }
            SoftShape::Grid { nx, ny, .. } => *nx as usize * *ny as usize,
            SoftShape::Polygon { points } => points.len(),
        }
    }

    /// The rest particle positions in the object's local frame, in particle
    /// order (a grid's particle `(i, j)` is number `i × ny + j`).
    pub fn local_particles(&self) -> Vec<Vec2> {
        match &self.shape {
            SoftShape::Disk { radius, particles } => {
                let n = *particles as usize;
                (0..n)
                    .map(|i| {
                        let a = i as f32 / n as f32 * std::f32::consts::TAU;
                        Vec2::new(a.cos() * radius, a.sin() * radius)
                    })
                    .collect()
            }
            SoftShape::Grid { hx, hy, nx, ny } => {
                let (nx, ny) = (*nx as usize, *ny as usize);
                let step = Vec2::new(2.0 * hx / (nx - 1) as f32, 2.0 * hy / (ny - 1) as f32);
                let mut out = Vec::with_capacity(nx * ny);
                for i in 0..nx {
                    for j in 0..ny {
                        out.push(Vec2::new(-hx + step.x * i as f32, -hy + step.y * j as f32));
                    }
                }
                out
            }
            SoftShape::Polygon { points } => points.clone(),
            SoftShape::Rope { to, particles } => {
                let n = *particles as usize;
                (0..n).map(|i| *to * (i as f32 / (n - 1) as f32)).collect()
            }
        }
    }

    /// The rest particle positions in the world, for a body whose world pose is
    /// `pose`.
    pub fn world_particles(&self, pose: Pose) -> Vec<Vec2> {
        self.local_particles()
            .into_iter()
            .map(|p| pose.compose(Pose::new(p.x, p.y, 0.0)).position())
            .collect()
    }
}

/// A tear of a soft body, delivered to the torn object's behaviours in the
/// fixed phase of the tick it happened in (`Behaviour::on_tear`, after the
/// tick's contact callbacks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SoftTear {
    /// The completed tick whose step tore the body.
    pub tick: u64,
    /// The torn object: every piece stays part of it (see `rapier_stage`).
    pub object: crate::ids::ObjectId,
    /// The pieces this tear split off, each a run of the object's committed
    /// particles; empty when the tear opened a crack without splitting.
    pub new_pieces: Vec<SoftPiece>,
    /// How many pieces the object is made of after the tear.
    pub pieces: u32,
}

/// A piece of a torn soft body: particles `first .. first + count` of its
/// object's committed particles ([`crate::SoftState::particles`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SoftPiece {
    /// Index of the piece's first particle.
    pub first: u32,
    /// Number of particles.
    pub count: u32,
}

/// Twice-halved shoelace sum: positive for counter-clockwise points.
fn signed_area(points: &[Vec2]) -> f32 {
    let n = points.len();
    let mut twice = 0.0f64;
    for i in 0..n {
        let (a, b) = (points[i], points[(i + 1) % n]);
        twice += f64::from(a.x) * f64::from(b.y) - f64::from(b.x) * f64::from(a.y);
    }
    (twice / 2.0) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_numbers_its_particles_column_by_column() {
        let desc = SoftBodyDesc::new(SoftShape::Grid {
            hx: 1.0,
            hy: 0.5,
            nx: 3,
            ny: 2,
        });
        let p = desc.local_particles();
        assert_eq!(p.len(), 6);
        // (i, j) is i × ny + j: particle 3 is column 1, row 1.
        assert_eq!(p[0], Vec2::new(-1.0, -0.5));
        assert_eq!(p[3], Vec2::new(0.0, 0.5));
        assert_eq!(p[5], Vec2::new(1.0, 0.5));
    }

    #[test]
    fn a_clockwise_polygon_is_refused() {
        let cw = SoftBodyDesc::new(SoftShape::Polygon {
            points: vec![
                Vec2::new(0.0, 0.0),
                Vec2::new(0.0, 1.0),
                Vec2::new(1.0, 0.0),
            ],
        });
        assert!(
            cw.check()
                .unwrap_err()
                .to_string()
                .contains("counter-clockwise")
        );
    }
}
