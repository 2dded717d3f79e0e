//! The limits a body command's *result* must stay within: checked by the
//! rapier stage at the reconcile, where the body's mass and velocity are
//! known (the command's own numbers are checked finite when it is queued).

use super::*;

/// What would not fit in an `f32` if `command` were applied to `body` now and
/// the coming step ran: the body's queued force, its velocity after the
/// command and the step's gravity and forces, or its position at the end of
/// the step, or the square of its speed, which rapier computes every substep
/// to cap speeds (an infinite square makes the cap zero the velocity: the
/// body freezes for good). Computed in `f64` the way rapier integrates
/// (symplectic Euler: `v += (force × inv_mass + gravity × gravity_scale) ×
/// dt`, then `x += v × dt`), so nothing overflows while checking. `None` when
/// it all fits.
///
/// Worked numbers: an impulse of 3e38 N·s on a 0.5 kg ball would make its
/// velocity 6e38 m/s, beyond f32's 3.4e38: refused. An impulse of 2e19 N·s on
/// a 1 kg ball gives 2e19 m/s, whose square (4e38) is beyond f32 too: refused.
/// 1e19 N·s gives a square of 1e38 and is applied (rapier then caps the speed
/// at its 400 m/s).
pub(crate) fn command_overflow(
    body: &rapier2d::prelude::RigidBody,
    command: &BodyCommand,
    gravity: rapier2d::math::Vector,
    dt: f64,
) -> Option<String> {
    let f = f64::from;
    let dynamic = body.is_dynamic();
    let inv_mass = body.mass_properties().effective_inv_mass;
    let (inv_mx, inv_my) = (f(inv_mass.x), f(inv_mass.y));
    let (mut vx, mut vy, mut w) = (f(body.linvel().x), f(body.linvel().y), f(body.angvel()));
    let (mut fx, mut fy) = (f(body.user_force().x), f(body.user_force().y));
    let position = body.position();
    let (mut x, mut y) = (f(position.translation.x), f(position.translation.y));
    let mut angle = f(position.rotation.angle());
    match *command {
        BodyCommand::Force { force, .. } if dynamic => {
            fx += f(force.x);
            fy += f(force.y);
        }
        BodyCommand::Impulse { impulse, .. } if dynamic => {
            vx += f(impulse.x) * inv_mx;
            vy += f(impulse.y) * inv_my;
        }
        BodyCommand::SetVelocity { velocity, .. } if dynamic => {
            vx = f(velocity.linear.x);
            vy = f(velocity.linear.y);
            w = f(velocity.angular);
        }
        BodyCommand::SetPose { pose, .. } => {
            x = f(pose.x);
            y = f(pose.y);
            angle = f(pose.angle);
        }
        BodyCommand::KinematicTarget { pose, .. } if body.is_kinematic() => {
            vx = (f(pose.x) - x) / dt;
            vy = (f(pose.y) - y) / dt;
            w = (f(pose.angle) - angle) / dt;
        }
        // Forces and impulses on non-dynamic bodies, and targets for
        // non-kinematic ones, change nothing.
        _ => {}
    }
    if dynamic {
        let scale = f(body.gravity_scale());
        vx += (fx * inv_mx + f(gravity.x) * scale) * dt;
        vy += (fy * inv_my + f(gravity.y) * scale) * dt;
    }
    if !speed_fits(vx, vy) {
        return Some(format!(
            "speed would be {:.2e} m/s: its square, which rapier computes every substep, is beyond f32 (the body would stop dead)",
            vx.hypot(vy)
        ));
    }
    let checks = [
        ("force x", fx),
        ("force y", fy),
        ("velocity x", vx),
        ("velocity y", vy),
        ("angular velocity", w),
        ("x", x + vx * dt),
        ("y", y + vy * dt),
        ("angle", angle + w * dt),
    ];
    checks
        .iter()
        .find(|(_, v)| !fits_f32(*v))
        .map(|(what, v)| format!("{what} would be {v:.2e}"))
}
