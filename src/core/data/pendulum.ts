/**
 * Pendulum: torque-limited swing-up, with Gym's `Pendulum-v1` dynamics. θ is
 * the angle from upright, so θ = 0 is the unstable equilibrium the agent must
 * reach and hold; the torque limit is too small to lift the pole directly, so
 * it has to swing. Semi-implicit Euler (the new speed moves the angle), which
 * keeps the energy bounded instead of drifting.
 *
 *   θ̈ = 3g/(2l)·sin θ + 3/(m l²)·u,   u ∈ [−maxTorque, maxTorque],   |θ̇| ≤ maxSpeed
 *   reward = −(norm(θ)² + 0.1·θ̇² + 0.001·u²)
 *
 * State `[θ, θ̇]`; observation `[cos θ, sin θ, θ̇]`; action `[u]`. Never terminates.
 */
import type { Random } from '../random';
import type { Dynamics } from './simulator';

export interface PendulumParams {
  maxSpeed: number;
  maxTorque: number;
  /** Seconds per step. */
  dt: number;
  g: number;
  m: number;
  l: number;
}

export const pendulumDefaults: Readonly<PendulumParams> = {
  maxSpeed: 8,
  maxTorque: 2,
  dt: 0.05,
  g: 10,
  m: 1,
  l: 1,
};

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** An angle wrapped into [−π, π). */
export function normalizeAngle(x: number): number {
  const turn = 2 * Math.PI;
  return ((((x + Math.PI) % turn) + turn) % turn) - Math.PI;
}

/** Mechanical energy of the rod (kinetic about the pivot + potential), conserved without torque. */
export function pendulumEnergy(
  theta: number,
  thetaDot: number,
  p: Readonly<PendulumParams> = pendulumDefaults,
): number {
  return ((p.m * p.l * p.l) / 6) * thetaDot * thetaDot + ((p.m * p.g * p.l) / 2) * Math.cos(theta);
}

export function createPendulum(overrides: Partial<PendulumParams> = {}): Dynamics {
  const p: PendulumParams = { ...pendulumDefaults, ...overrides };
  const gravityGain = (3 * p.g) / (2 * p.l);
  const torqueGain = 3 / (p.m * p.l * p.l);
  return {
    kind: 'pendulum',
    stateSize: 2,
    observationSize: 3,
    actionSize: 1,
    reset(state: Float64Array, at: number, random: Random) {
      state[at] = (2 * random() - 1) * Math.PI;
      state[at + 1] = 2 * random() - 1;
    },
    step(state: Float64Array, at: number, actions: Float32Array, a: number) {
      const theta = state[at]!;
      const thetaDot = state[at + 1]!;
      actions[a] = clamp(actions[a]!, -p.maxTorque, p.maxTorque);
      const u = actions[a]; // the float32 value, so the record holds exactly what was applied
      const wrapped = normalizeAngle(theta);
      const cost = wrapped * wrapped + 0.1 * thetaDot * thetaDot + 0.001 * u * u;
      const next = clamp(
        thetaDot + (gravityGain * Math.sin(theta) + torqueGain * u) * p.dt,
        -p.maxSpeed,
        p.maxSpeed,
      );
      state[at] = theta + next * p.dt;
      state[at + 1] = next;
      return -cost;
    },
    isTerminal: () => false,
    observe(state: Float64Array, at: number, out: Float32Array, o: number) {
      out[o] = Math.cos(state[at]!);
      out[o + 1] = Math.sin(state[at]!);
      out[o + 2] = state[at + 1]!;
    },
    randomAction(random: Random, out: Float32Array, a: number) {
      out[a] = (2 * random() - 1) * p.maxTorque;
    },
  };
}
