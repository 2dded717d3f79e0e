//! What physics can take of a soft body: its description's checks
//! ([`SoftBodyDesc::check`]: shape, particle count, size, mass, pins,
//! damping) and its material's ([`SoftMaterial::check`]), each refusal a
//! [`SoftBodyError`] naming the field and the value. The rigid body's side
//! is [`crate::limits`].

use super::*;

/// Why physics cannot build a soft body: its description (shape, particle
/// count, size, mass, pins, damping) or its material (springs, Poisson's
/// ratio, tearing). The text names the field and the value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SoftBodyError {
    /// The shape, particles, size, mass, pins or damping.
    #[error("{0}")]
    Shape(String),
    /// A material value out of range.
    #[error("{0}")]
    Material(String),
}

impl SoftBodyDesc {
    /// Why physics cannot build this soft body, if it cannot: a shape with too
    /// few particles (or more than [`MAX_SOFT_PARTICLES`]), a size that is not
    /// positive and finite, a polygon that is clockwise or encloses nothing, a
    /// rope of length zero, a pinned index past the last particle, a mass or
    /// particle radius that is not positive and finite, or a material value out
    /// of range. Like [`crate::BodyDesc::check`], the scene loader reports it at
    /// the object and `World::spawn` logs it and leaves the object bodyless.
    pub fn check(&self) -> Result<(), SoftBodyError> {
        let positive = |what: &str, v: f32| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(SoftBodyError::Shape(format!(
                    "soft body {what} must be positive and finite, got {v}"
                )))
            }
        };
        match &self.shape {
            SoftShape::Disk { radius, particles } => {
                positive("radius", *radius)?;
                if *particles < 3 {
                    return Err(SoftBodyError::Shape(format!(
                        "a soft Disk needs at least 3 particles, got {particles}"
                    )));
                }
            }
            SoftShape::Grid { hx, hy, nx, ny } => {
                positive("hx", *hx)?;
                positive("hy", *hy)?;
                if *nx < 2 || *ny < 2 {
                    return Err(SoftBodyError::Shape(format!(
                        "a soft Grid needs at least 2 × 2 particles, got {nx} × {ny}"
                    )));
                }
            }
            SoftShape::Polygon { points } => {
                if points.len() < 3 {
                    return Err(SoftBodyError::Shape(format!(
                        "a soft Polygon needs at least 3 points, got {}",
                        points.len()
                    )));
                }
                if !points.iter().all(|p| p.is_finite()) {
                    return Err(SoftBodyError::Shape(
                        "soft Polygon points must be finite".into(),
                    ));
                }
                let area = signed_area(points);
                if !(area > 0.0 && area.is_finite()) {
                    return Err(SoftBodyError::Shape(format!(
                        "a soft Polygon's points must go counter-clockwise around an area, got a signed area of {area}"
                    )));
                }
            }
            SoftShape::Rope { to, particles } => {
                if !to.is_finite() || to.length() <= 0.0 || !to.length().is_finite() {
                    return Err(SoftBodyError::Shape(format!(
                        "a soft Rope's `to` must be a finite point other than the origin, got ({}, {})",
                        to.x, to.y
                    )));
                }
                if *particles < 2 {
                    return Err(SoftBodyError::Shape(format!(
                        "a soft Rope needs at least 2 particles, got {particles}"
                    )));
                }
            }
        }
        let n = self.particle_count();
        if n > MAX_SOFT_PARTICLES {
            return Err(SoftBodyError::Shape(format!(
                "a soft body may have at most {MAX_SOFT_PARTICLES} particles, this one has {n}"
            )));
        }
        let fits = |v: f32| v.is_finite() && v.abs() <= MAX_SOFT_VALUE;
        if !self
            .local_particles()
            .iter()
            .all(|p| fits(p.x) && fits(p.y))
        {
            return Err(SoftBodyError::Shape(format!(
                "the soft body is too large for physics: its particles must lie within {MAX_SOFT_VALUE:e} m of its origin"
            )));
        }
        positive("particle_radius", self.particle_radius)?;
        positive("mass", self.mass)?;
        for (what, v) in [
            ("particle_radius", self.particle_radius),
            ("mass", self.mass),
            ("linear_damping", self.linear_damping),
        ] {
            if v > MAX_SOFT_VALUE {
                return Err(SoftBodyError::Shape(format!(
                    "soft body {what} must be at most {MAX_SOFT_VALUE:e}, got {v}"
                )));
            }
        }
        if let Some(&bad) = self.pinned.iter().find(|&&i| i as usize >= n) {
            return Err(SoftBodyError::Shape(format!(
                "pinned particle {bad} does not exist: the soft body has {n} particles (0..={})",
                n - 1
            )));
        }
        if !(self.linear_damping.is_finite() && self.linear_damping >= 0.0) {
            return Err(SoftBodyError::Shape(format!(
                "soft body linear_damping must be >= 0, got {}",
                self.linear_damping
            )));
        }
        self.material.check()
    }
}

impl SoftMaterial {
    /// Why rapier cannot take this material, if it cannot: a spring with a
    /// negative or non-finite frequency or damping, a Poisson's ratio outside
    /// `[0, 0.5)`, a negative rate, a non-positive tear threshold.
    pub fn check(&self) -> Result<(), SoftBodyError> {
        for (what, s) in [
            ("edge", self.edge),
            ("bend", self.bend),
            ("volume", self.volume),
            ("shape_matching", self.shape_matching),
        ] {
            if !(0.0..=MAX_SOFT_VALUE).contains(&s.frequency) {
                return Err(SoftBodyError::Material(format!(
                    "material.{what}.frequency must be within 0..={MAX_SOFT_VALUE:e}, got {}",
                    s.frequency
                )));
            }
            if !(0.0..=MAX_SOFT_VALUE).contains(&s.damping) {
                return Err(SoftBodyError::Material(format!(
                    "material.{what}.damping must be within 0..={MAX_SOFT_VALUE:e}, got {}",
                    s.damping
                )));
            }
        }
        if !(0.0..0.5).contains(&self.poisson_ratio) {
            return Err(SoftBodyError::Material(format!(
                "material.poisson_ratio must be within [0, 0.5), got {}",
                self.poisson_ratio
            )));
        }
        for (what, v) in [
            ("young_modulus", self.young_modulus),
            ("elastic_damping", self.elastic_damping),
            ("deformation_damping", self.deformation_damping),
            ("plastic_yield", self.plastic_yield),
            ("plastic_creep", self.plastic_creep),
            ("plastic_max", self.plastic_max),
            ("edge_plastic_yield", self.edge_plastic_yield),
            ("edge_plastic_creep", self.edge_plastic_creep),
            ("edge_plastic_max", self.edge_plastic_max),
            ("tear_smoothing", self.tear_smoothing),
            ("interior_strength", self.interior_strength),
        ] {
            // Young's modulus is a stiffness in N/m: allowed past the others.
            let max = if what == "young_modulus" {
                MAX_SOFT_VALUE * MAX_SOFT_VALUE
            } else {
                MAX_SOFT_VALUE
            };
            if !(0.0..=max).contains(&v) {
                return Err(SoftBodyError::Material(format!(
                    "material.{what} must be within 0..={max:e}, got {v}"
                )));
            }
        }
        for (what, v) in [
            ("tear_strain", self.tear_strain),
            ("tear_force", self.tear_force),
        ] {
            if let Some(v) = v
                && !(v > 0.0 && v <= MAX_SOFT_VALUE)
            {
                return Err(SoftBodyError::Material(format!(
                    "material.{what} must be positive, got {v}"
                )));
            }
        }
        Ok(())
    }

    /// Whether some tear threshold is set.
    pub fn tears(&self) -> bool {
        self.tear_strain.is_some() || self.tear_force.is_some()
    }
}
