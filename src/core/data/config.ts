/**
 * The data engine's config, named as the `data.engine` node names its params,
 * and its validation. Every finding names the field and says what was wrong,
 * because a controller that starts with an inconsistent plan does not fail: it
 * waits, and a run that waits without explaining why is the worst failure.
 * Timeouts and intervals are in seconds, rates in chunks per second.
 */
import type { FlowIssue } from '../flow/issues';
import { FlowbenchError } from '../errors';

export const refillPolicies = ['manual', 'auto'] as const;
/** `manual`: someone (the flow controller) requests each refill; `auto`: the engine refills when empty. */
export type RefillPolicy = (typeof refillPolicies)[number];

/** Bounds of the flow controller's waits, in seconds. */
export interface ControllerConfig {
  /** Longest a consumer waits for data or for a batch's quota. */
  data_wait_timeout: number;
  /** Longest `waitForGeneration` waits. */
  generation_timeout: number;
  /** How often a wait looks again. */
  poll_interval: number;
}

/**
 * A consumption plan: batches of `batch_size` chunks at a planned rate, with a
 * refill requested early enough to arrive before the cache runs dry. The
 * optional engine fields say what the plan was computed for; when given, each
 * must match the engine.
 */
export interface DataPlan {
  batch_size: number;
  /** The planned consumption rate (chunks per second). */
  training_chunks_per_second_target: number;
  /** A ceiling on the consumption rate; pacing uses the lower of the two. */
  active_chunks_per_second_cap?: number | null;
  /** Request a refill once the unlocked remaining chunks fall to this. */
  refill_remaining_chunks: number;
  buffer_size?: number;
  num_envs?: number;
  episode_sample_budget?: number;
  episode_sample_hard_limit?: number;
}

export interface DataEngineConfig {
  /** Episodes per cache, i.e. per generation. */
  buffer_size: number;
  /** Producers. */
  num_envs: number;
  refill_policy: RefillPolicy;
  /** Chunks an episode may serve before it is spent. */
  episode_sample_budget: number;
  /** Chunks an episode may ever serve, the final supply included (≥ the budget). */
  episode_sample_hard_limit: number;
  /** Production ceiling in episodes; null for none. */
  max_generated_episodes: number | null;
  controller: ControllerConfig;
  plan: DataPlan | null;
}

const isPositiveInt = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0;
const isPositiveFinite = (v: unknown): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v > 0;
const shown = (v: unknown): string =>
  typeof v === 'number' ? String(v) : v === undefined ? 'nothing' : JSON.stringify(v);

function checkPlan(config: DataEngineConfig, plan: DataPlan, issues: FlowIssue[]): void {
  const at = (field: string, message: string) => issues.push({ path: `plan.${field}`, message });
  const capacity = config.buffer_size * config.episode_sample_budget;
  if (!isPositiveInt(plan.batch_size))
    at('batch_size', `must be a positive integer (got ${shown(plan.batch_size)})`);
  else if (Number.isFinite(capacity) && plan.batch_size > capacity)
    at(
      'batch_size',
      `${plan.batch_size} chunks is more than one cache can serve (buffer_size × episode_sample_budget = ${capacity})`,
    );
  if (!isPositiveFinite(plan.training_chunks_per_second_target))
    at(
      'training_chunks_per_second_target',
      `must be finite and positive (got ${shown(plan.training_chunks_per_second_target)})`,
    );
  const cap = plan.active_chunks_per_second_cap;
  if (cap !== undefined && cap !== null && !isPositiveFinite(cap))
    at('active_chunks_per_second_cap', `must be finite and positive (got ${shown(cap)})`);
  if (!Number.isInteger(plan.refill_remaining_chunks) || plan.refill_remaining_chunks < 0)
    at(
      'refill_remaining_chunks',
      `must be an integer ≥ 0 (got ${shown(plan.refill_remaining_chunks)})`,
    );
  for (const field of [
    'buffer_size',
    'num_envs',
    'episode_sample_budget',
    'episode_sample_hard_limit',
  ] as const) {
    const planned = plan[field];
    if (planned !== undefined && planned !== config[field])
      at(field, `the plan was made for ${field} ${planned}, but the engine has ${config[field]}`);
  }
}

/** Every finding in `config`; empty when it is valid. */
export function validateDataEngineConfig(config: DataEngineConfig): FlowIssue[] {
  const issues: FlowIssue[] = [];
  const at = (path: string, message: string) => issues.push({ path, message });
  if (!isPositiveInt(config.buffer_size))
    at('buffer_size', `must be a positive integer (got ${shown(config.buffer_size)})`);
  if (!isPositiveInt(config.num_envs))
    at('num_envs', `must be a positive integer (got ${shown(config.num_envs)})`);
  if (!(refillPolicies as readonly unknown[]).includes(config.refill_policy))
    at('refill_policy', `must be "manual" or "auto" (got ${shown(config.refill_policy)})`);
  if (!isPositiveInt(config.episode_sample_budget))
    at(
      'episode_sample_budget',
      `must be a positive integer (got ${shown(config.episode_sample_budget)})`,
    );
  if (
    !Number.isInteger(config.episode_sample_hard_limit) ||
    config.episode_sample_hard_limit < config.episode_sample_budget
  )
    at(
      'episode_sample_hard_limit',
      `must be an integer ≥ episode_sample_budget (${config.episode_sample_budget}) (got ${shown(config.episode_sample_hard_limit)})`,
    );
  const ceiling = config.max_generated_episodes;
  if (ceiling !== null) {
    if (!isPositiveInt(ceiling))
      at('max_generated_episodes', `must be a positive integer (got ${shown(ceiling)})`);
    else if (ceiling < config.buffer_size)
      at(
        'max_generated_episodes',
        `${ceiling} is smaller than buffer_size (${config.buffer_size}): not even one cache could be produced`,
      );
  }
  if (
    (config.plan !== null || ceiling !== null) &&
    isPositiveInt(config.buffer_size) &&
    isPositiveInt(config.num_envs) &&
    config.buffer_size % config.num_envs !== 0
  )
    at(
      'num_envs',
      `must divide buffer_size (${config.buffer_size}) when a plan or max_generated_episodes is set (got ${config.num_envs})`,
    );
  for (const field of ['data_wait_timeout', 'generation_timeout', 'poll_interval'] as const) {
    const value = config.controller[field];
    if (!isPositiveFinite(value))
      at(`controller.${field}`, `must be finite and positive seconds (got ${shown(value)})`);
  }
  if (config.plan !== null) checkPlan(config, config.plan, issues);
  return issues;
}

/** `config` itself when valid; otherwise an `invalid-data-config` error naming every bad field. */
export function checkDataEngineConfig(config: DataEngineConfig): DataEngineConfig {
  const issues = validateDataEngineConfig(config);
  if (issues.length > 0) throw new FlowbenchError('invalid-data-config', { issues });
  return config;
}

/** What a flow controller needs beyond a valid engine: it decides refills, so the engine must not. */
export function validateControllerUse(config: DataEngineConfig): FlowIssue[] {
  return config.refill_policy === 'manual'
    ? []
    : [
        {
          path: 'refill_policy',
          message: `the flow controller requests refills itself and requires "manual" (got ${shown(config.refill_policy)})`,
        },
      ];
}
