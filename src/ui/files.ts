/** Files out of the browser: downloads. (Imported files are read by the engine worker.) */

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
