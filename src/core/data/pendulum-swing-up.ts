/**
 * A swing-up controller for the pendulum, as a producer's policy: energy
 * shaping far from the top, linear feedback near it (Åström & Furuta, 2000).
 * The torque limit is too small to lift the rod directly, so the controller
 * pumps energy in step with the swing until the rod carries exactly the
 * energy of resting upright, then catches it there with a PD law. It reads
 * only what the environment observes (`[cos θ, sin θ, θ̇]`), as a learned
 * policy would, and draws nothing: given the same initial states it acts the
 * same. The trade-off is that it knows the physics it controls (the rod's
 * constants), which a learned policy would not.
 *
 * Energy: E = (ml²/6)·θ̇² + (mgl/2)·cos θ, so dE/dt = θ̇·u; u = k·(E* − E)·θ̇
 * moves E towards E* = mgl/2 (upright, at rest) whichever way the rod swings.
 */
import { normalizeAngle, pendulumDefaults, pendulumEnergy, type PendulumParams } from './pendulum';
import type { Policy } from './simulator';

export interface SwingUpGains {
  /** Torque per unit of (energy gap × angular speed) while swinging up. */
  swing_gain: number;
  /** Torque per radian from upright while balancing. */
  balance_kp: number;
  /** Torque per rad/s while balancing. */
  balance_kd: number;
}

export const swingUpDefaults: Readonly<SwingUpGains> = {
  swing_gain: 0.5,
  balance_kp: 10,
  balance_kd: 2,
};

/** Within this angle of upright (rad) the balancing law takes over. */
const CATCH_ANGLE = 0.5;

export function swingUpPolicy(
  gains: Readonly<SwingUpGains> = swingUpDefaults,
  p: Readonly<PendulumParams> = pendulumDefaults,
): Policy {
  const target = pendulumEnergy(0, 0, p);
  return (observations, actions, numEnvs) => {
    for (let i = 0; i < numEnvs; i++) {
      const cos = observations[i * 3]!;
      const sin = observations[i * 3 + 1]!;
      const thetaDot = observations[i * 3 + 2]!;
      const theta = normalizeAngle(Math.atan2(sin, cos));
      const u =
        Math.abs(theta) < CATCH_ANGLE
          ? -(gains.balance_kp * theta + gains.balance_kd * thetaDot)
          : gains.swing_gain * (target - pendulumEnergy(theta, thetaDot, p)) * thetaDot;
      // A rod at rest at the very bottom has no swing to pump: nudge it so it starts one.
      actions[i] = Math.max(-p.maxTorque, Math.min(p.maxTorque, u === 0 ? p.maxTorque : u));
    }
    return undefined;
  };
}
