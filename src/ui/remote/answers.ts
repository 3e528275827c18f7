/**
 * What a run server (`flowbench serve`) answers, as schemas: the list of its
 * runs (`GET /runs`) and the messages of a running trial's live stream
 * (`GET /runs/<id>/live`). Every answer is checked before the app shows any
 * of it, so a server of another version, or something else on that port, is
 * refused with what was expected rather than half drawn. A run file
 * (`GET /runs/<id>`) is not checked here: it goes through the importer, which
 * checks and migrates it as it does a file. The trade-off: the schemas repeat
 * the server's types (cli/serve-command.ts, cli/queue.ts) instead of sharing
 * them, as the page must not import the command line's modules.
 */
import { describeIssues, issuesFromZod } from '../../core/flow/issues';
import { z } from '../../core/schema';

/** The job states BullMQ reports a trial in. */
export const remoteStates = ['waiting', 'delayed', 'active', 'completed', 'failed'] as const;

const remoteRunSchema = z.object({
  runId: z.string().check(z.minLength(1)),
  sweepId: z.string(),
  index: z.number(),
  flow: z.string(),
  params: z.record(z.string(), z.unknown()),
  seed: z.nullable(z.number()),
  state: z.string(),
  status: z.nullable(z.string()),
  attempts: z.number(),
});

/** One trial as the server lists it: its run id, sweep, grid point, job state and, once finished, status. */
export type RemoteRun = z.output<typeof remoteRunSchema>;

const remoteRunsSchema = z.array(remoteRunSchema);

const liveMessageSchema = z.discriminatedUnion('event', [
  z.object({ event: z.literal('started'), runId: z.string(), attempts: z.number() }),
  z.object({
    event: z.literal('progress'),
    node: z.string(),
    done: z.number(),
    total: z.number(),
  }),
  z.object({
    event: z.literal('live'),
    node: z.string(),
    port: z.string(),
    value: z.number(),
    step: z.nullable(z.number()),
    at: z.number(),
  }),
  z.object({ event: z.literal('finished'), status: z.string() }),
]);

/** One message of a running trial's live stream. */
export type LiveMessage = z.output<typeof liveMessageSchema>;

/** A parse's outcome: the value, or what is wrong with it, one finding a line. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

function parseWith<S extends z.ZodMiniType>(schema: S, input: unknown): Parsed<z.output<S>> {
  const parsed = schema.safeParse(input);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, problem: describeIssues(issuesFromZod(parsed.error)) };
}

/** The server's list of runs, checked. */
export const parseRemoteRuns = (input: unknown): Parsed<RemoteRun[]> =>
  parseWith(remoteRunsSchema, input);

/** One live message (the JSON of an event's `data`), checked; text that is not JSON is refused too. */
export function parseLiveMessage(text: string): Parsed<LiveMessage> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `not JSON (${error instanceof Error ? error.message : ''})` };
  }
  return parseWith(liveMessageSchema, value);
}
