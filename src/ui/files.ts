/** Files in and out of the browser: downloads, and reading an imported file as JSON. */

/** Offers `blob` as a download named `filename`. */
export function saveBlob(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Offers `value` as a JSON file named `filename`. */
export function download(filename: string, value: unknown): void {
  saveBlob(
    filename,
    new Blob([`${JSON.stringify(value, null, 2)}\n`], { type: 'application/json' }),
  );
}

/** Imports above this size are refused before they are read. */
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;

export async function readJsonFile(file: File): Promise<unknown> {
  if (file.size > MAX_IMPORT_BYTES)
    throw new Error(
      `${file.name} is ${(file.size / 1024 / 1024).toFixed(1)} MB; Flowbench imports files up to ${MAX_IMPORT_BYTES / 1024 / 1024} MB`,
    );
  const text = await file.text();
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(
      `${file.name} is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
}
