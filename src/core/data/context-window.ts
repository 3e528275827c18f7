/**
 * Cutting a context window out of an episode. A window starts where it fits
 * whole; an episode shorter than the window (one that terminated early) gives
 * a window from its start with the missing steps zeroed and masked, rather
 * than being skipped, so short episodes still teach what happens at the end.
 */
import type { FlowIssue } from '../flow/issues';
import type { Random } from '../random';
import type { ContextChunk, ContextWindow } from './episode';
import type { CachedEpisode } from './episode-cache';

/** Findings for a window shape; paths are the `data.sample` param names. */
export function validateContextWindow(window: ContextWindow): FlowIssue[] {
  const issues: FlowIssue[] = [];
  if (!Number.isInteger(window.contextLength) || window.contextLength < 1)
    issues.push({
      path: 'context_length',
      message: `must be an integer ≥ 1 (got ${window.contextLength})`,
    });
  if (!Number.isInteger(window.predictionLength) || window.predictionLength < 0)
    issues.push({
      path: 'prediction_length',
      message: `must be an integer ≥ 0 (got ${window.predictionLength})`,
    });
  return issues;
}

/** A uniformly drawn start step at which a window of `steps` fits whole, or 0 when none does. */
export function drawWindowOffset(length: number, steps: number, random: Random): number {
  return Math.floor(random() * (Math.max(0, length - steps) + 1));
}

/** The window of `episode` starting at `offset`, with masks and provenance. */
export function cutContextWindow(
  episode: CachedEpisode,
  offset: number,
  window: ContextWindow,
): ContextChunk {
  const { data } = episode;
  const O = data.observationSize;
  const A = data.actionSize;
  const steps = window.contextLength + window.predictionLength;
  const observations = new Float32Array(steps * O);
  const actions = new Float32Array(steps * A);
  const rewards = new Float32Array(steps);
  const observationMask = new Uint8Array(steps);
  const actionMask = new Uint8Array(steps);
  const observed = Math.max(0, Math.min(steps, data.length + 1 - offset));
  const acted = Math.max(0, Math.min(steps, data.length - offset));
  observations.set(data.observations.subarray(offset * O, (offset + observed) * O));
  observationMask.fill(1, 0, observed);
  actions.set(data.actions.subarray(offset * A, (offset + acted) * A));
  rewards.set(data.rewards.subarray(offset, offset + acted));
  actionMask.fill(1, 0, acted);
  return {
    window,
    steps,
    observations,
    actions,
    rewards,
    observationMask,
    actionMask,
    provenance: {
      episode: episode.id,
      generation: episode.generation,
      producer: episode.producer,
      offset,
    },
  };
}
