/**
 * Node params: each node kind declares its params as data (type, default,
 * range, options), so one declaration drives validation, defaults and the
 * inspector form. A param may instead be bound to a flow input.
 */

interface ParamBase {
  description: string;
}
export interface NumberParam extends ParamBase {
  type: 'number';
  default: number;
  min?: number;
  max?: number;
}
export interface IntParam extends ParamBase {
  type: 'int';
  default: number;
  min?: number;
  max?: number;
}
export interface EnumParam<O extends string = string> extends ParamBase {
  type: 'enum';
  options: readonly O[];
  default: O;
}
export interface BooleanParam extends ParamBase {
  type: 'boolean';
  default: boolean;
}
export interface StringParam extends ParamBase {
  type: 'string';
  default: string;
}

/**
 * A file the person picks in the inspector. The flow keeps only its digest
 * (`sha256:<hex>`); the bytes are stored in the browser and read by the
 * engine when the node runs. `''` means none picked yet.
 */
export interface FileParam extends ParamBase {
  type: 'file';
  /** What the file picker offers, e.g. `.onnx`. */
  accept: string;
  default: '';
}

export type ParamSpec = NumberParam | IntParam | EnumParam | BooleanParam | StringParam | FileParam;

/** A file param's value: the digest of a stored file. */
export const FILE_DIGEST = /^sha256:[0-9a-f]{64}$/;

export type ParamSpecs = Readonly<Record<string, ParamSpec>>;

/** The value type a param declaration yields. */
export type ParamValueOf<S extends ParamSpec> =
  S extends EnumParam<infer O>
    ? O
    : S extends BooleanParam
      ? boolean
      : S extends StringParam | FileParam
        ? string
        : number;

export type ParamValues<P extends ParamSpecs> = { -readonly [K in keyof P]: ParamValueOf<P[K]> };

function describeRange(spec: NumberParam | IntParam): string {
  const what = spec.type === 'int' ? 'an integer' : 'a number';
  if (spec.min !== undefined && spec.max !== undefined)
    return `${what} from ${spec.min} to ${spec.max}`;
  if (spec.min !== undefined) return `${what} ≥ ${spec.min}`;
  if (spec.max !== undefined) return `${what} ≤ ${spec.max}`;
  return what;
}

/** What a param expects, in words, e.g. "an integer from 1 to 100000". */
export function describeParam(spec: ParamSpec): string {
  switch (spec.type) {
    case 'number':
    case 'int':
      return describeRange(spec);
    case 'enum':
      return `one of ${spec.options.map((o) => JSON.stringify(o)).join(', ')}`;
    case 'boolean':
      return 'true or false';
    case 'string':
      return 'text';
    case 'file':
      return `a ${spec.accept} file`;
  }
}

/**
 * Check one value against its declaration. Returns `undefined` when it fits,
 * or a message saying what was expected and what was given.
 */
export function checkParam(spec: ParamSpec, value: unknown): string | undefined {
  const expected = describeParam(spec);
  const given = value === undefined ? 'nothing' : JSON.stringify(value);
  switch (spec.type) {
    case 'number':
    case 'int': {
      const fits =
        typeof value === 'number' &&
        Number.isFinite(value) &&
        (spec.type === 'number' || Number.isInteger(value)) &&
        (spec.min === undefined || value >= spec.min) &&
        (spec.max === undefined || value <= spec.max);
      return fits ? undefined : `expected ${expected}, got ${given}`;
    }
    case 'enum':
      return typeof value === 'string' && spec.options.includes(value)
        ? undefined
        : `expected ${expected}, got ${given}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected ${expected}, got ${given}`;
    case 'string':
      return typeof value === 'string' ? undefined : `expected ${expected}, got ${given}`;
    case 'file':
      return typeof value === 'string' && (value === '' || FILE_DIGEST.test(value))
        ? undefined
        : `expected ${expected} (a sha256 digest), got ${given}`;
  }
}
