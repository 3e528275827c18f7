/**
 * The app's side of a run server (`flowbench serve`): list its runs, fetch a
 * finished run's file, and follow a running trial's live stream. Plain
 * `fetch` and `EventSource`, each answer checked (answers.ts) and each
 * failure one catalogue error naming the URL and what was expected, so the
 * panel only shows what this module hands it.
 *
 * The token travels as `?token=` on every request, not as a header: an
 * `EventSource` cannot set headers, and a request without custom headers
 * needs no CORS preflight, so a server that refuses this page's origin
 * answers with a refusal the page can read (a refused preflight reads as an
 * unreachable server). The trade-off: the token is in the URL, as it had to
 * be for the live stream anyway; messages never show it.
 */
import { FlowbenchError } from '../../core/errors';
import { parseLiveMessage, parseRemoteRuns, type LiveMessage, type RemoteRun } from './answers';

/** A run server as the person gave it: its base URL (no trailing slash) and token, if any. */
export interface RemoteServer {
  readonly url: string;
  readonly token: string | null;
}

/** The `fetch` this module calls (tests hand in their own). */
export type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

/** What this module needs of an `EventSource`. */
export interface LiveSource {
  onmessage: ((event: MessageEvent<string>) => void) | null;
  onerror: ((event: Event) => void) | null;
  readonly readyState: number;
  close(): void;
}

/** The `EventSource` constructor this module calls (tests hand in their own). */
export type OpenLiveSource = (url: string) => LiveSource;

/** `EventSource.CLOSED`: the browser gave up on the stream and will not reconnect. */
const CLOSED = 2;

/** The page's origin, as a server's `--allow-origin` must name it. */
function pageOrigin(): string {
  return typeof location === 'undefined' ? "this page's origin" : location.origin;
}

/**
 * The server at `text` (`127.0.0.1:8737` is read as `http://127.0.0.1:8737`),
 * with `token` when it is not blank. A URL that cannot be one is refused.
 */
export function remoteServer(text: string, token = ''): RemoteServer {
  const trimmed = text.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw malformedAddress(trimmed);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw malformedAddress(trimmed);
  // `…/runs` pasted from serve's own line means the server itself.
  const path = url.pathname.replace(/\/+$/, '').replace(/\/runs$/, '');
  return { url: `${url.origin}${path}`, token: token.trim() === '' ? null : token.trim() };
}

function malformedAddress(text: string) {
  return new FlowbenchError('remote-malformed', {
    url: text === '' ? '(no address)' : text,
    expected: 'an address',
    problem: 'give the URL `flowbench serve` prints, e.g. http://127.0.0.1:8737',
  });
}

/** The URL of `path` on `server` as messages show it: without the token. */
export function shownUrl(server: RemoteServer, path: string): string {
  return `${server.url}${path}`;
}

function requestUrl(server: RemoteServer, path: string): string {
  return server.token === null
    ? shownUrl(server, path)
    : `${shownUrl(server, path)}?token=${encodeURIComponent(server.token)}`;
}

/** The `error` a server's JSON refusal gives, if it gives one. */
function reasonOf(text: string): string | null {
  try {
    const body = JSON.parse(text) as { error?: unknown } | null;
    return typeof body?.error === 'string' ? body.error : null;
  } catch {
    return null;
  }
}

/** GET `path`; its body as text once the server said yes, or the error that says why not. */
async function getText(
  server: RemoteServer,
  path: string,
  expected: string,
  fetchImpl: Fetch,
): Promise<string> {
  const url = shownUrl(server, path);
  let response: Response;
  try {
    response = await fetchImpl(requestUrl(server, path), { cache: 'no-store' });
  } catch {
    throw new FlowbenchError('remote-unreachable', { url, origin: pageOrigin() });
  }
  const text = await response.text().catch(() => '');
  if (response.status === 401 || response.status === 403) {
    const reason =
      reasonOf(text) ??
      (response.status === 401
        ? 'a valid token is needed'
        : `this page's origin is not allowed: start serve with --allow-origin ${pageOrigin()}`);
    throw new FlowbenchError('remote-refused', {
      url,
      status: response.status,
      reason:
        response.status === 401
          ? `${reason}: give the token \`flowbench serve\` was started with`
          : reason,
    });
  }
  if (!response.ok)
    throw new FlowbenchError('remote-malformed', {
      url,
      expected,
      problem: `HTTP ${response.status}${reasonOf(text) ? `, ${reasonOf(text)}` : ''}`,
    });
  return text;
}

/** The server's runs, newest sweep first, as it lists them. */
export async function listRemoteRuns(
  server: RemoteServer,
  fetchImpl: Fetch = fetch,
): Promise<RemoteRun[]> {
  const expected = 'a list of runs';
  const text = await getText(server, '/runs', expected, fetchImpl);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new FlowbenchError('remote-malformed', {
      url: shownUrl(server, '/runs'),
      expected,
      problem: 'the answer is not JSON',
    });
  }
  const parsed = parseRemoteRuns(value);
  if (!parsed.ok)
    throw new FlowbenchError('remote-malformed', {
      url: shownUrl(server, '/runs'),
      expected,
      problem: parsed.problem,
    });
  return parsed.value;
}

/**
 * A finished run's file, as text: the importer checks and migrates it as it
 * does a file a person picked.
 */
export function fetchRemoteRunFile(
  server: RemoteServer,
  runId: string,
  fetchImpl: Fetch = fetch,
): Promise<string> {
  return getText(server, `/runs/${encodeURIComponent(runId)}`, 'a run file', fetchImpl);
}

/** What a live stream tells its follower. */
export interface LiveHandlers {
  message(message: LiveMessage): void;
  /** The stream ended for good: refused, unreachable, or a message that is not one. */
  failed(error: FlowbenchError): void;
}

/**
 * Follow run `runId`'s live stream until it says `finished` or the returned
 * function is called. A dropped connection is retried by the browser; one it
 * gives up on is reported once.
 */
export function followRemoteRun(
  server: RemoteServer,
  runId: string,
  handlers: LiveHandlers,
  open: OpenLiveSource = (url) => new EventSource(url),
): () => void {
  const path = `/runs/${encodeURIComponent(runId)}/live`;
  const source = open(requestUrl(server, path));
  let done = false;
  const stop = () => {
    done = true;
    source.close();
  };
  source.onmessage = (event) => {
    if (done) return;
    const parsed = parseLiveMessage(event.data);
    if (!parsed.ok) {
      stop();
      handlers.failed(
        new FlowbenchError('remote-malformed', {
          url: shownUrl(server, path),
          expected: 'live messages of a run',
          problem: parsed.problem,
        }),
      );
      return;
    }
    if (parsed.value.event === 'finished') stop();
    handlers.message(parsed.value);
  };
  source.onerror = () => {
    if (done || source.readyState !== CLOSED) return;
    stop();
    handlers.failed(
      new FlowbenchError('remote-unreachable', {
        url: shownUrl(server, path),
        origin: pageOrigin(),
      }),
    );
  };
  return stop;
}
