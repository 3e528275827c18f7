/** What a report inlines besides its data: uPlot as shipped, read at build time as text. */
import uplotScript from 'uplot/dist/uPlot.iife.min.js?raw';
import uplotStyle from 'uplot/dist/uPlot.min.css?raw';
import type { ReportAssets } from './html';

export const reportAssets: ReportAssets = { uplotScript, uplotStyle };
