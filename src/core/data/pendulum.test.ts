import { describe, expect, it } from 'vitest';
import { createPendulum, normalizeAngle, pendulumEnergy } from './pendulum';

/** Step one pendulum `steps` times with a constant torque; returns its state. */
function swing(theta: number, thetaDot: number, torque: number, steps: number, dt = 0.05) {
  const pendulum = createPendulum({ dt });
  const state = Float64Array.of(theta, thetaDot);
  const action = new Float32Array(1);
  const energies: number[] = [];
  for (let t = 0; t < steps; t++) {
    action[0] = torque;
    pendulum.step(state, 0, action, 0);
    energies.push(pendulumEnergy(state[0]!, state[1]!));
  }
  return { state, energies };
}

describe('pendulum', () => {
  it('follows θ̈ = 3g/(2l)·sin θ + 3/(ml²)·u with semi-implicit Euler and reports Gym’s reward', () => {
    const pendulum = createPendulum();
    const state = Float64Array.of(0.5, 0.2);
    const reward = pendulum.step(state, 0, Float32Array.of(1), 0);
    const thetaDot = 0.2 + (15 * Math.sin(0.5) + 3 * 1) * 0.05;
    expect(state[1]).toBeCloseTo(thetaDot, 12);
    expect(state[0]).toBeCloseTo(0.5 + thetaDot * 0.05, 12);
    expect(reward).toBeCloseTo(-(0.25 + 0.1 * 0.04 + 0.001), 12);
  });

  it('conserves energy without torque (small dt), through a full swing', () => {
    const start = pendulumEnergy(1, 0);
    const drift = (dt: number) => {
      const { energies } = swing(1, 0, 0, Math.round(5 / dt), dt);
      return Math.max(...energies.map((e) => Math.abs(e - start)));
    };
    // The energy scale is mgl/2 = 5; the swing passes the bottom at |θ̇| ≈ 6.8.
    expect(drift(0.001)).toBeLessThan(0.025);
    // The error is the integrator's, so it shrinks with the step.
    expect(drift(0.0005)).toBeLessThan(0.6 * drift(0.001));
    // It really swung: the angle went through the bottom (θ = π).
    expect(swing(1, 0, 0, 1000, 0.001).state[0]).toBeGreaterThan(Math.PI - 1);
  });

  it('gains energy when torque pushes with the motion', () => {
    const { energies } = swing(Math.PI, 1, 2, 10);
    expect(energies.at(-1)!).toBeGreaterThan(pendulumEnergy(Math.PI, 1));
  });

  it('hangs still at the bottom and falls from the top', () => {
    expect(Array.from(swing(Math.PI, 0, 0, 100).state)).toEqual([
      expect.closeTo(Math.PI, 9),
      expect.closeTo(0, 9),
    ]);
    expect(Math.abs(swing(0.01, 0, 0, 40).state[0]!)).toBeGreaterThan(0.5);
  });

  it('clips the torque (and records the clipped torque) and the speed', () => {
    const pendulum = createPendulum();
    const action = Float32Array.of(5);
    const state = Float64Array.of(Math.PI / 2, 7.9);
    pendulum.step(state, 0, action, 0);
    expect(action[0]).toBe(2);
    expect(state[1]).toBe(8);
    action[0] = -9;
    pendulum.step(Float64Array.of(0, 0), 0, action, 0);
    expect(action[0]).toBe(-2);
  });

  it('costs the wrapped angle, so a full turn past upright is upright again', () => {
    expect(normalizeAngle(2 * Math.PI + 0.1)).toBeCloseTo(0.1, 12);
    expect(normalizeAngle(-Math.PI - 0.1)).toBeCloseTo(Math.PI - 0.1, 12);
    const pendulum = createPendulum();
    const reward = pendulum.step(Float64Array.of(4 * Math.PI, 0), 0, Float32Array.of(0), 0);
    expect(reward).toBeCloseTo(0, 12);
  });

  it('observes [cos θ, sin θ, θ̇] and starts within θ ∈ [−π, π], θ̇ ∈ [−1, 1]', () => {
    const pendulum = createPendulum();
    const out = new Float32Array(3);
    pendulum.observe(Float64Array.of(Math.PI / 3, -0.5), 0, out, 0);
    expect(Array.from(out)).toEqual([
      expect.closeTo(0.5, 6),
      expect.closeTo(Math.sqrt(3) / 2, 6),
      -0.5,
    ]);
    let draws = 0;
    const state = new Float64Array(2);
    pendulum.reset(state, 0, () => [0, 0.999999][draws++ % 2]!);
    expect(state[0]).toBeCloseTo(-Math.PI, 9);
    expect(state[1]).toBeCloseTo(1, 5);
  });
});
