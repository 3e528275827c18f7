/**
 * The `data.engine` node's params as the data engine's config, and back.
 * The node's params are flat (an inspector form has no nesting) and use 0
 * for "none" (a param has no null); the engine's config nests the
 * controller's bounds and the plan and uses null. Findings are mapped back
 * to the flat param names, so an error names the field a person can edit.
 */
import {
  validateControllerUse,
  validateDataEngineConfig,
  type DataEngineConfig,
  type RefillPolicy,
} from '../data/config';
import type { FlowIssue } from '../flow/issues';

/** The `data.engine` node's params; 0 means "none" for the optional limits. */
export interface EngineParams {
  buffer_size: number;
  num_envs: number;
  refill_policy: RefillPolicy;
  episode_sample_budget: number;
  episode_sample_hard_limit: number;
  max_generated_episodes: number;
  data_wait_timeout: number;
  generation_timeout: number;
  poll_interval: number;
  plan: boolean;
  batch_size: number;
  training_chunks_per_second_target: number;
  active_chunks_per_second_cap: number;
  refill_remaining_chunks: number;
}

/** The engine config the params describe. */
export function engineConfigFromParams(p: EngineParams): DataEngineConfig {
  return {
    buffer_size: p.buffer_size,
    num_envs: p.num_envs,
    refill_policy: p.refill_policy,
    episode_sample_budget: p.episode_sample_budget,
    episode_sample_hard_limit: p.episode_sample_hard_limit,
    max_generated_episodes: p.max_generated_episodes === 0 ? null : p.max_generated_episodes,
    controller: {
      data_wait_timeout: p.data_wait_timeout,
      generation_timeout: p.generation_timeout,
      poll_interval: p.poll_interval,
    },
    plan: p.plan
      ? {
          batch_size: p.batch_size,
          training_chunks_per_second_target: p.training_chunks_per_second_target,
          active_chunks_per_second_cap:
            p.active_chunks_per_second_cap === 0 ? null : p.active_chunks_per_second_cap,
          refill_remaining_chunks: p.refill_remaining_chunks,
        }
      : null,
  };
}

/** The config's findings, each naming the node param it is about. */
export function engineParamIssues(config: DataEngineConfig): FlowIssue[] {
  const issues = validateDataEngineConfig(config);
  if (config.plan) issues.push(...validateControllerUse(config));
  // `controller.poll_interval` and `plan.batch_size` are flat params on the node.
  return issues.map((issue) => ({
    ...issue,
    path: issue.path.replace(/^(controller|plan)\./, ''),
  }));
}
