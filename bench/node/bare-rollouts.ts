/**
 * The producers' work with nothing around it: one producer's share of a
 * trial as plain `rollout` calls, episodes counted and dropped. The
 * one-thread reference runs it for every producer in turn; the ceiling runs
 * it in threads of its own, one per producer, with one message in and one
 * out per trial and no episodes sent back.
 */
import { rollout } from '../../src/core/data/simulator';
import { deriveSeed } from '../../src/core/data/seed';
import { createDynamics } from '../../src/core/live/environment';
import { createRandom } from '../../src/core/random';

export interface BareShare {
  producer: number;
  generation: number;
  count: number;
  numEnvs: number;
  episodeLength: number;
}

/** Producer `share.producer`'s episodes of `share.generation`, rolled out and counted. */
export async function bareRollouts(share: BareShare): Promise<number> {
  const dynamics = createDynamics('pendulum');
  const random = createRandom(deriveSeed(0, share.producer, share.generation));
  const { numEnvs, episodeLength } = share;
  let episodes = 0;
  for (let made = 0; made < share.count; made += numEnvs)
    episodes += (await rollout(dynamics, { numEnvs, episodeLength, random })).length;
  return episodes;
}
