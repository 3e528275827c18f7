/** Files in and out of the browser: downloads read back as JSON, fixture flows read from disk. */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Download, Page } from '@playwright/test';

/** The fixture flows shared with the unit tests (`e2e/flows/*.flow.json`). */
export function fixtureFlowPath(name: string): string {
  return path.join(
    path.dirname(fileURLToPath(import.meta.url)),
    '..',
    'flows',
    `${name}.flow.json`,
  );
}

/** A fixture file beside the flows (`e2e/flows/<name>`, e.g. a model), as a file input takes it. */
export function fixtureFile(name: string, mimeType = 'application/octet-stream') {
  const buffer = readFileSync(path.join(path.dirname(fixtureFlowPath(name)), name));
  return { name, mimeType, buffer };
}

/** A hand-written run file (`e2e/flows/*.run.json`). */
export function fixtureRunPath(name: string): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'flows', `${name}.run.json`);
}

/** A file the browser handed over: its suggested name, its text and its JSON. */
export interface DownloadedJson<T = unknown> {
  filename: string;
  /** The bytes as downloaded, to import them elsewhere unchanged. */
  text: string;
  json: T;
}

/** A file the browser handed over, as text (CSV and the like). */
export interface DownloadedText {
  filename: string;
  text: string;
}

/** Do `action`, catch the download it starts, and read it back as text. */
export async function downloadText(
  page: Page,
  action: () => Promise<void>,
): Promise<DownloadedText> {
  const [download] = await Promise.all([page.waitForEvent('download'), action()]);
  return {
    filename: download.suggestedFilename(),
    text: await readFile(await download.path(), 'utf8'),
  };
}

/** Do `action`, catch the download it starts, and read it back as JSON. */
export async function downloadJson<T = unknown>(
  page: Page,
  action: () => Promise<void>,
): Promise<DownloadedJson<T>> {
  const [download] = await Promise.all([page.waitForEvent('download'), action()]);
  return readDownload<T>(download);
}

/** Do `action` and catch the `count` downloads it starts, in the order they start. */
export async function downloadsOf<T = unknown>(
  page: Page,
  count: number,
  action: () => Promise<void>,
): Promise<DownloadedJson<T>[]> {
  const downloads: Download[] = [];
  const caught = new Promise<void>((resolve) => {
    const onDownload = (download: Download) => {
      downloads.push(download);
      if (downloads.length < count) return;
      page.off('download', onDownload);
      resolve();
    };
    page.on('download', onDownload);
  });
  await action();
  await caught;
  return Promise.all(downloads.map((download) => readDownload<T>(download)));
}

async function readDownload<T>(download: Download): Promise<DownloadedJson<T>> {
  const text = await readFile(await download.path(), 'utf8');
  return { filename: download.suggestedFilename(), text, json: JSON.parse(text) as T };
}
