/**
 * What the inspector's feeds list shows for each model input, worked out
 * apart from the component so it can be tested without a page: the choice
 * each input's select holds (the dataset, a tensor port, a constant, not
 * fed — or, for the sequence input while the `samples` port is wired, that
 * sequence, which no map entry stands for), what a constant may be in the
 * input's type, and the one problem to show.
 * What the node's wiring tells (a port mapped but not wired, a wired tensor
 * no input takes) is said here already; dims the rows and the tensor fix
 * are checked by the node when it runs. A model with several inputs from
 * arrays takes each from its own tensor port (`tensor`, `tensor2` …).
 */
import {
  describeTensorPort,
  effectiveInputMap,
  feedsProblem,
  isTensorPort,
  parseInputMap,
  tensorPorts,
  type InputMap,
  type InputSource,
  type TensorPort,
} from '../../core/onnx/feeds';
import { constantHint } from '../../core/onnx/constant-types';
import { frameStandIn } from '../../core/onnx/sequence';
import type { FlowDocument } from '../../core/flow/document';
import type { OnnxValueInfo } from '../../core/onnx/signature';

/** Which of the node's input ports have an edge (a tensor port left out: none). */
export type WiredPorts = {
  readonly dataset: boolean;
  readonly samples: boolean;
} & { readonly [port in TensorPort]?: boolean };

/** A select's value: where one input is fed from. */
export type FeedChoice = '' | 'dataset' | TensorPort | 'constant' | 'samples';

/** One input's row of the list. */
export interface FeedRow {
  readonly input: OnnxValueInfo;
  readonly choice: FeedChoice;
  /** The constant, when `choice` is `constant`. */
  readonly constant?: InputSource;
  /** What the constant may be, in the input's type (`int16: a whole number from −32768 to 32767`), when `choice` is `constant`. */
  readonly takes?: string;
}

/** The list and what is wrong with it, if anything. */
export interface FeedsView {
  readonly rows: readonly FeedRow[];
  /** The map as it is fed (a one-input model's implied dataset included). */
  readonly map: InputMap;
  readonly problem: string | null;
}

function choiceOf(source: InputSource | undefined): FeedChoice {
  if (source === undefined) return '';
  if (source === 'dataset' || isTensorPort(source)) return source;
  return 'constant';
}

/**
 * The feeds list for the node's `inputs` param. `frame`: over a sequence
 * whose plan fits, the input fed frame by frame and one frame's dims (the
 * others are checked at them); `sequence`: the input param `sequence` names.
 */
export function feedsView(
  inputs: readonly OnnxValueInfo[],
  value: string,
  options: {
    wired?: WiredPorts;
    sequence?: string;
    frame?: { input: string; dims: readonly number[] } | null;
  } = {},
): FeedsView {
  const { wired, sequence = '', frame = null } = options;
  let given: InputMap = {};
  let problem: string | null = null;
  try {
    given = parseInputMap(value);
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  const map = effectiveInputMap(inputs, given);
  // The samples port takes the place of the sequence input's feed, whatever the map says.
  const fromSamples = wired?.samples === true && sequence !== '' ? sequence : null;
  const rows = inputs.map((input): FeedRow => {
    if (input.name === fromSamples) return { input, choice: 'samples' };
    const source = map[input.name];
    const choice = choiceOf(source);
    if (choice !== 'constant') return { input, choice };
    const takes = constantHint(input.type);
    return takes === null
      ? { input, choice, constant: source }
      : { input, choice, constant: source, takes };
  });
  if (problem === null && wired !== undefined) {
    const takes = (port: 'dataset' | TensorPort) =>
      rows.find((r) => r.choice === port)?.input.name ?? null;
    for (const port of ['dataset', ...tensorPorts] as const) {
      const input = takes(port);
      if (input !== null && wired[port] !== true) {
        const what = port === 'dataset' ? 'the dataset' : describeTensorPort(port);
        problem = `the model's input '${input}' is mapped to ${what}, but nothing is wired to the node's '${port}' port`;
        break;
      }
    }
    const idle = tensorPorts.find((port) => wired[port] === true && takes(port) === null);
    if (problem === null && idle !== undefined)
      problem = `a tensor is wired to port '${idle}': feed a model input from it`;
  }
  if (problem === null) {
    if (frame !== null)
      problem = feedsProblem(inputs, { ...given, [frame.input]: frameStandIn(frame.dims) });
    // The sequence comes through `samples` but its plan does not fit: the sequence section says why.
    else if (fromSamples === null) problem = feedsProblem(inputs, given);
  }
  return { rows, map, problem };
}

/** A NumPy file a tensor port is fed from: a `data.tensor` node's file and array params. */
export interface TensorFile {
  readonly digest: string;
  readonly array: string;
}

/** The file behind each wired tensor port, where a `data.tensor` node with a file feeds it. */
export type TensorFiles = { readonly [port in TensorPort]?: TensorFile };

/**
 * The files behind node `node`'s tensor ports in `doc`, as one line per port
 * (`port`, `digest`, `array`, tab-separated): a string, so a store selector gives an equal value
 * while they stay the same. `parseTensorFiles` reads it back.
 */
export function tensorFilesOf(doc: FlowDocument | null | undefined, node: string | null): string {
  if (!doc || node === null) return '';
  const lines: string[] = [];
  for (const edge of doc.edges) {
    const port = edge.to.slice(node.length + 1);
    if (!edge.to.startsWith(`${node}.`) || !isTensorPort(port)) continue;
    const source = doc.nodes.find((n) => `${n.id}.tensor` === edge.from);
    const { file, array } = source?.params ?? {};
    if (source?.kind !== 'data.tensor' || typeof file !== 'string' || file === '') continue;
    lines.push([port, file, typeof array === 'string' ? array : ''].join('\t'));
  }
  return lines.sort().join('\n');
}

/** `tensorFilesOf`'s lines as a map of port to file. */
export function parseTensorFiles(text: string): TensorFiles {
  const files: Partial<Record<TensorPort, TensorFile>> = {};
  for (const line of text === '' ? [] : text.split('\n')) {
    const [port, digest = '', array = ''] = line.split('\t');
    if (isTensorPort(port)) files[port] = { digest, array };
  }
  return files;
}
