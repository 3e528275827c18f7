/**
 * Every error Flowbench raises on purpose, in one place: its code, its
 * category, and the message a person reads, made from the data it carries.
 *
 * A code is the contract (the UI, the worker protocol, tests and the command
 * line test codes and categories, never message texts); the data is what a
 * caller may read; the message is derived, so the same failure always reads
 * the same. Where the text is composed at many sites from their own facts (a
 * node's bad input, a malformed program step) the data is that text, as
 * `problem`: a code per sentence would grow the catalogue without telling a
 * caller anything it could act on.
 *
 * Everything in core may throw these, so this module sits at core's bottom:
 * it imports types only.
 */
import type { FlowIssue } from '../flow/issues';
import type { RunId, RunStatus } from '../run/record';

/**
 * What kind of failure a code is, for whoever reacts to it without knowing
 * every code: the command line chooses its exit status from it, the UI
 * whether an alert was already shown.
 *
 * - `bad-input`: a flow, a parameter or a file a person gave was refused;
 *   changing the input fixes it.
 * - `run`: a run could not go on (its data, its programs, another engine owns it).
 * - `cancelled`: someone stopped it.
 * - `storage`: the browser's storage refused the run's writes (the quota, most
 *   often); the engine reports these as they happen.
 * - `environment`: this machine cannot do it (no WebGPU adapter, a lost device).
 * - `internal`: a fault of Flowbench itself: a crashed engine, a malformed
 *   program, anything thrown that is not in this catalogue.
 */
export type ErrorCategory =
  'bad-input' | 'run' | 'cancelled' | 'storage' | 'environment' | 'internal';

/** One code's entry: its category and its message, from its data. */
export interface ErrorSpec<Data> {
  readonly category: ErrorCategory;
  readonly message: (data: Data) => string;
  /** A consumer may wait this one out: a later try can succeed (see `isTransient`). */
  readonly transient?: true;
}

/** The data of a code whose message says it all. */
export type NoData = Record<string, never>;

/** Free text composed where the error is raised, from the facts at hand. */
interface Problem {
  problem: string;
}

const spec = <Data>(
  category: ErrorCategory,
  message: (data: Data) => string,
  transient?: true,
): ErrorSpec<Data> => (transient ? { category, message, transient } : { category, message });

/** One line per finding, as `describeIssues` (flow/issues.ts) writes them for an alert. */
const describeIssues = (issues: readonly FlowIssue[]) =>
  issues.map((i) => `${i.path}: ${i.message}`).join('\n');

const endingKept =
  'Its ending could not be written yet either; Flowbench writes it as soon as the browser accepts writes again.';

export const errorCatalogue = {
  // Refused input: flows, parameters, files.
  /** A flow, or a run request against it, is not valid; `subject` carries its verb ("The run parameters are"). */
  'invalid-flow': spec<{ issues: readonly FlowIssue[]; subject?: string }>(
    'bad-input',
    ({ issues, subject = 'The flow is' }) => `${subject} not valid:\n${describeIssues(issues)}`,
  ),
  /** A data engine or controller config names a bad field. */
  'invalid-data-config': spec<{ issues: readonly FlowIssue[] }>(
    'bad-input',
    ({ issues }) => `The data engine config is not valid:\n${describeIssues(issues)}`,
  ),
  /** A node body was given input it cannot use; the message is shown on the node. */
  'node-input': spec<Problem>('bad-input', ({ problem }) => problem),
  /** A model's input cannot be fed as mapped: `problem` names the dimension or value that does not fit. */
  'model-feed': spec<{ input: string; problem: string }>(
    'bad-input',
    ({ input, problem }) => `the model's input '${input}' ${problem}`,
  ),
  /** A model's output cannot be passed on as asked: `problem` names the value that does not fit. */
  'model-output': spec<{ output: string; problem: string }>(
    'run',
    ({ output, problem }) => `the model's output '${output}' ${problem}`,
  ),
  /** The bytes given as a model are not a readable ONNX model. */
  'onnx-invalid': spec<Problem>('bad-input', ({ problem }) => problem),
  /** A file a person imports is refused whole; `problem` follows the file's name. */
  'bad-import': spec<{ file: string; problem: string }>(
    'bad-input',
    ({ file, problem }) => `${file} ${problem}`,
  ),
  /** A command-line option or argument is refused; `problem` follows the option's name. */
  'bad-option': spec<{ option: string; problem: string }>(
    'bad-input',
    ({ option, problem }) => `${option} ${problem}`,
  ),
  /**
   * A run server (`flowbench serve`) could not be reached: down, another
   * address, or a browser that refused the answer (a server that does not
   * allow this page's origin gives it none it may read).
   */
  'remote-unreachable': spec<{ url: string; origin: string }>(
    'environment',
    ({ url, origin }) =>
      `Could not reach ${url}: expected \`flowbench serve\` answering there. Is it running, at that address, started with --allow-origin ${origin}?`,
  ),
  /** A command line's Redis (a sweep's queue) did not answer at the URL given. */
  'redis-unreachable': spec<{ url: string; problem: string }>(
    'environment',
    ({ url, problem }) =>
      `Could not reach Redis at ${url} (${problem}): expected a Redis server answering there. Is it running, at that address?`,
  ),
  /** A run server refused the request: a missing or wrong token (401), or this page's origin (403). */
  'remote-refused': spec<{ url: string; status: number; reason: string }>(
    'bad-input',
    ({ url, status, reason }) => `${url} refused the request (HTTP ${status}): ${reason}`,
  ),
  /** A run server answered with something else than what was asked for. */
  'remote-malformed': spec<{ url: string; expected: string; problem: string }>(
    'bad-input',
    ({ url, expected, problem }) =>
      `${url} did not answer with ${expected}: ${problem}. Is it \`flowbench serve\`, of this version?`,
  ),
  /** An imported run is already stored here. */
  'run-exists': spec<{ runId: RunId }>(
    'bad-input',
    ({ runId }) => `run ${runId} is already in this browser; it was not imported again`,
  ),
  /** An imported run's series holds one step twice (a point is keyed by run, metric and step). */
  'metric-step-twice': spec<{ runId: RunId; name: string; step: number }>(
    'bad-input',
    ({ runId, name, step }) =>
      `run ${runId} has step ${step} of metric ${name} twice: expected each step of a series once`,
  ),
  /** A run asked for by id is not stored. */
  'run-not-found': spec<{ runId: RunId }>('bad-input', ({ runId }) => `run ${runId} is not stored`),
  /** A file a node reads is not stored in this browser (its digest names it). */
  'file-missing': spec<{ digest: string }>(
    'bad-input',
    ({ digest }) =>
      `file ${digest.slice(0, 19)}… is not stored in this browser: pick it again in the inspector`,
  ),
  /** A run's bundle would be larger than a bundle may be (see core/run/bundle.ts). */
  'bundle-too-large': spec<{ runId: RunId; megabytes: number; limit: number }>(
    'bad-input',
    ({ runId, megabytes, limit }) =>
      `the bundle of run ${runId} would be ${megabytes.toFixed(1)} MB; a bundle holds up to ${limit} MB: export the run as JSON instead`,
  ),

  /** A table file could not be read at a place in it (`column` null when the line is to blame as a whole). */
  'table-unparseable': spec<{ file: string; line: number; column: number | null; problem: string }>(
    'bad-input',
    ({ file, line, column, problem }) =>
      `${file}, line ${line}${column === null ? '' : `, column ${column}`}: ${problem}`,
  ),
  /** A table file has no rows of data. */
  'table-empty': spec<{ file: string }>('bad-input', ({ file }) => `${file} has no rows of data`),
  /** A column a table node's params name is not in the table; `columns` lists those that are. */
  'table-column-missing': spec<{
    file: string;
    role: string;
    column: string;
    columns: readonly string[];
  }>(
    'bad-input',
    ({ file, role, column, columns }) =>
      `${role} '${column}' is not a column of ${file}; its columns are: ${columns.join(', ')}`,
  ),
  /** A cell of a table cannot be used as its column must be (`row`: the data row, counted from 1). */
  'table-bad-value': spec<{ file: string; row: number; column: string; problem: string }>(
    'bad-input',
    ({ file, row, column, problem }) => `${file}, row ${row}, column '${column}': ${problem}`,
  ),
  /** A classification label column with fewer than two classes. */
  'table-single-class': spec<{ file: string; column: string; classes: readonly string[] }>(
    'bad-input',
    ({ file, column, classes }) =>
      classes.length === 0
        ? `label column '${column}' of ${file} has no values: nothing to learn`
        : `label column '${column}' of ${file} has one class only (${classes[0] ?? ''}): a classifier needs two or more`,
  ),

  /** A run's artifact asked for by its bytes has none here: imported runs carry metadata only. */
  'artifact-without-bytes': spec<{ name: string; node: string }>(
    'bad-input',
    ({ name, node }) =>
      `artifact '${name}' of node '${node}' has no bytes in this browser: a run imported from a file carries its artifacts' names, sizes and digests only`,
  ),

  // A run that could not go on.
  /** Another engine, tab or retried message moved the run out of `queued` first (`status` null: no such run). */
  'run-claimed': spec<{ runId: RunId; status: RunStatus | null }>('run', ({ runId, status }) =>
    status === null
      ? `run ${runId} does not exist`
      : `run ${runId} is ${status}, not queued: another engine owns it`,
  ),
  /** Nothing can be served right now; a refill may fix it. */
  'data-unavailable': spec<Problem>('run', ({ problem }) => problem, true),
  /** The production ceiling (`max_generated_episodes`) is reached and the final supply is spent. */
  'data-exhausted': spec<{ maxEpisodes: number | null }>('run', ({ maxEpisodes }) =>
    maxEpisodes === null
      ? 'No data left: every episode has served its hard limit'
      : `No data left: max_generated_episodes (${maxEpisodes}) is reached and every episode has served its hard limit`,
  ),
  /** A wait for data or for a batch's quota ran past `data_wait_timeout`. */
  'data-wait-timeout': spec<Problem>('run', ({ problem }) => problem),
  /** A generation was not ready in time; `after` says how long and which bound. */
  'generation-timeout': spec<{ generation: number; after: string }>(
    'run',
    ({ generation, after }) => `Generation ${generation} was not ready after ${after}`,
  ),
  /** A producer threw, or its worker died; `reason` is the producer's own message. */
  'producer-failed': spec<{ producer: number; generation: number; reason: string }>(
    'run',
    ({ producer, generation, reason }) =>
      `Producer ${producer} failed while producing generation ${generation}: ${reason}`,
  ),
  /** A producer's worker died (an uncaught error, a script that would not load). */
  'producer-worker-died': spec<{ reason: string }>(
    'run',
    ({ reason }) => `its worker died: ${reason}`,
  ),
  /** The model worker, where a training loop's onnxruntime ran, died (an uncaught error, a script that would not load). */
  'model-worker-died': spec<{ reason: string }>(
    'run',
    ({ reason }) => `The model worker died: ${reason}`,
  ),
  /** The data engine was closed (its run ended); nothing more will be produced. */
  'data-engine-closed': spec<NoData>('run', () => 'The data engine is closed'),
  /** A program step can never fit the device pool. */
  infeasible: spec<Problem>('run', ({ problem }) => problem),
  /** No program request made progress for several ticks. */
  deadlock: spec<Problem>('run', ({ problem }) => problem),
  /** A program step threw (an ORT error, a bad input). */
  'step-failed': spec<Problem>('run', ({ problem }) => problem),
  /** A model's session could not be created. */
  'model-load-failed': spec<Problem>('run', ({ problem }) => problem),

  /** The run or program request was cancelled; `where`, when known, names the step it stopped at. */
  cancelled: spec<{ where?: string }>('cancelled', ({ where }) =>
    where === undefined ? 'The run was cancelled' : `cancelled at ${where}`,
  ),

  // Storage refused the run's writes, even its ending (which the engine keeps to write later).
  /** The origin's storage quota is full. */
  'storage-quota': spec<{ runId: RunId; statusReason: string }>(
    'storage',
    ({ statusReason }) => `${statusReason}\n${endingKept}`,
  ),
  /** A write failed for another reason. */
  'storage-failed': spec<{ runId: RunId; statusReason: string }>(
    'storage',
    ({ statusReason }) => `${statusReason}\n${endingKept}`,
  ),

  // This machine cannot do it.
  /** The backend a run chose is not there. */
  'backend-unavailable': spec<Problem>('environment', ({ problem }) => problem),
  /** The WebGPU device ORT ran on was lost (driver reset, GPU removed, destroyed). */
  'device-lost': spec<{ reason?: string; detail?: string }>(
    'environment',
    ({ reason, detail }) =>
      `the WebGPU device was lost${reason ? ` (${reason})` : ''}${detail ? `: ${detail}` : ''}`,
  ),

  // Faults of Flowbench itself.
  /** A program is malformed: a step that names an unknown model, reads what no step set. */
  'invalid-program': spec<Problem>('internal', ({ problem }) => problem),
  /** The engine worker died; every call in flight fails with this. */
  'engine-crashed': spec<{ reason: string }>(
    'internal',
    ({ reason }) => `The engine stopped: ${reason}`,
  ),
  /**
   * The engine's answer to a call could not be sent to the page (the
   * structured clone refused it: a value too deep or of a kind it cannot
   * copy), so the call fails with this instead of never settling.
   */
  'reply-unsendable': spec<{ call: string; reason: string }>(
    'internal',
    ({ call, reason }) =>
      `The engine could not send its answer to '${call}' to the page: ${reason}`,
  ),
  /**
   * Stored rows that no record migration makes valid: the database upgrade
   * to version `db` was undone, so the database stays as the previous release
   * left it. `rows`: the first few, each its key and what is wrong.
   */
  'bad-stored-record': spec<{
    record: string;
    table: string;
    db: number;
    count: number;
    rows: readonly string[];
  }>(
    'internal',
    ({ record, table, db, count, rows }) =>
      `${count} ${record} row(s) in '${table}' are not valid after the upgrade to database version ${db}:\n${rows.join('\n')}`,
  ),
  /** A stored artifact's bytes no longer hash to the digest recorded when its node made them. */
  'artifact-mismatch': spec<{ name: string; node: string; recorded: string; actual: string }>(
    'internal',
    ({ name, node, recorded, actual }) =>
      `artifact '${name}' of node '${node}' does not match its recorded digest (recorded ${recorded}, its bytes hash to ${actual}); it was not downloaded`,
  ),
  /** Anything thrown that is not in this catalogue, as it crossed a worker boundary (`name`: its class). */
  unexpected: spec<{ name: string; message: string }>('internal', ({ message }) => message),
} satisfies Record<string, ErrorSpec<never>>;

/**
 * The storage failures that stop a run: the engine reports each as a
 * `storage-failure` event the moment it happens, so a call that then fails
 * with one needs no second word to the person.
 */
export const runStorageFailures = ['storage-quota', 'storage-failed'] as const;

/** Every code Flowbench raises. */
export type ErrorCode = keyof typeof errorCatalogue;

/** The data an error of `code` carries. */
export type ErrorData<C extends ErrorCode> = Parameters<(typeof errorCatalogue)[C]['message']>[0];

/** The catalogue seen per code, so that a generic code indexes its own spec. */
export const errorSpecs: { readonly [C in ErrorCode]: ErrorSpec<ErrorData<C>> } = errorCatalogue;

/** Whether `code` is one of the catalogue's. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(errorCatalogue, code);
}
