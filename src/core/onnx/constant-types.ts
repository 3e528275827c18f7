/**
 * What a value fed to a model input of each element type may be: the
 * whole-number types' bounds, and the words that say each type's values —
 * in a refusal ("not an int16 (a whole number from −32768 to 32767)") and
 * beside a constant in the inspector ("int16: a whole number from −32768 to
 * 32767"). One table, so what the inspector promises is what the checks hold.
 *
 * Trade-off: the 64-bit integer types are apart. A constant is typed as
 * JSON, so an int64 or a uint64 must be a safe integer (within ±2^53) to be
 * written exactly; a tensor brings its bigints, checked against the whole
 * 64-bit range where it is converted (`tensor-feed.ts`).
 */
import { constantTypes, type ConstantType } from '../runtime/tensor-runtime';

/** Whether a model's element type is one a constant can be typed as (every numeric type and bool). */
export function isConstantType(type: string): type is ConstantType {
  return (constantTypes as readonly string[]).includes(type);
}

/** The whole-number types a double holds exactly, with their least and greatest values. */
export const integerRanges = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint8: [0, 255],
  uint16: [0, 65535],
  uint32: [0, 2 ** 32 - 1],
} as const satisfies Partial<Record<ConstantType, readonly [number, number]>>;

/** A whole-number type a double holds exactly (every integer type but the 64-bit ones). */
export type SmallIntegerType = keyof typeof integerRanges;

/** Whether the type is a whole-number type a double holds exactly. */
export function isSmallInteger(type: ConstantType): type is SmallIntegerType {
  return type in integerRanges;
}

/** What a constant of each type may be, in words (what the inspector shows beside it). */
export const constantValues: Readonly<Record<ConstantType, string>> = {
  float32: 'a number within ±3.4·10^38',
  float16: 'a number within ±65504',
  float64: 'any number',
  int8: 'a whole number from −128 to 127',
  int16: 'a whole number from −32768 to 32767',
  int32: 'a whole number from −2^31 to 2^31 − 1',
  int64: 'a whole number within ±2^53',
  uint8: 'a whole number 0–255',
  uint16: 'a whole number from 0 to 65535',
  uint32: 'a whole number from 0 to 4294967295',
  uint64: 'a whole number from 0 to 2^53',
  bool: 'true, false, 0 or 1',
};

/**
 * What a constant for an input of the type may be, as the inspector says it
 * beside the constant (`int16: a whole number from −32768 to 32767`); null
 * for a type no constant can have (a string), which the feed check names.
 */
export function constantHint(type: string): string | null {
  return isConstantType(type) ? `${type}: ${constantValues[type]}` : null;
}

/** The type with its article, as a refusal names it: `an int16`, `a uint8`, `a float64`. */
export function aType(type: string): string {
  return `${type.startsWith('int') ? 'an' : 'a'} ${type}`;
}

/**
 * Why `v` is not a value of the whole-number type, or null when it is one:
 * `not an int16 (a whole number from −32768 to 32767)`. A bigint (a 64-bit
 * array's element) is compared as it is, never through a double.
 */
export function outOfRange(type: SmallIntegerType, v: number | bigint): string | null {
  const [least, greatest] = integerRanges[type];
  const fits =
    typeof v === 'bigint'
      ? v >= BigInt(least) && v <= BigInt(greatest)
      : Number.isInteger(v) && v >= least && v <= greatest;
  return fits ? null : `not ${aType(type)} (${constantValues[type]})`;
}
