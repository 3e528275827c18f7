/**
 * A chart's downloads: the canvas as a PNG with its title and legend drawn in,
 * and text files (CSV, JSON) of its series. Built in the page, nothing leaves
 * the machine.
 */
import type uPlot from 'uplot';
import { saveBlob } from '../files';

/** Offers `text` as a download of type `type`. */
export function saveText(filename: string, text: string, type: string): void {
  saveBlob(filename, new Blob([text], { type }));
}

/** A legend entry as the PNG draws it. */
export interface PngLegendEntry {
  readonly colour: string;
  readonly text: string;
}

/**
 * The plot's canvas on a white card, with `title` above and `legend` below,
 * at the canvas' own pixel density.
 */
export function chartPng(
  plot: uPlot,
  title: string,
  legend: readonly PngLegendEntry[],
): Promise<Blob> {
  const source = plot.ctx.canvas;
  const scale = source.width / Math.max(1, plot.width);
  const pad = 8 * scale;
  const line = 18 * scale;
  const canvas = document.createElement('canvas');
  canvas.width = source.width + 2 * pad;
  canvas.height = pad + line + source.height + legend.length * line + pad;
  const ctx = canvas.getContext('2d');
  if (!ctx) return Promise.reject(new Error('this browser cannot draw a PNG of the chart'));
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#1f2328';
  ctx.textBaseline = 'middle';
  ctx.font = `600 ${String(13 * scale)}px system-ui, sans-serif`;
  ctx.fillText(title, pad, pad + line / 2);
  ctx.drawImage(source, pad, pad + line);
  ctx.font = `${String(12 * scale)}px system-ui, sans-serif`;
  legend.forEach((entry, i) => {
    const y = pad + line + source.height + i * line + line / 2;
    ctx.fillStyle = entry.colour;
    ctx.fillRect(pad, y - 2 * scale, 14 * scale, 4 * scale);
    ctx.fillStyle = '#1f2328';
    ctx.fillText(entry.text, pad + 20 * scale, y);
  });
  return new Promise((resolve, reject) =>
    canvas.toBlob(
      (blob) => (blob ? resolve(blob) : reject(new Error('the chart could not be encoded as PNG'))),
      'image/png',
    ),
  );
}

/** A metric name as a file name: `train.loss` stays, slashes and the like become `_`. */
export function fileStem(metric: string): string {
  return metric.replace(/[^A-Za-z0-9._-]+/g, '_');
}
