/**
 * The parameter-importance worker's entry: fits the random forest of
 * `core/run/importance.ts` off the page, so ranking a sweep of thousands of
 * runs never holds a frame. One request, one reply, nothing kept between.
 */
/// <reference lib="webworker" />
import {
  paramImportance,
  type ImportanceReply,
  type ImportanceRequest,
} from '../src/core/run/importance';

self.onmessage = (event: MessageEvent<ImportanceRequest>) => {
  const { id, rows, params, options } = event.data;
  let reply: ImportanceReply;
  try {
    reply = { id, ok: true, result: paramImportance(rows, params, options) };
  } catch (error) {
    reply = { id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  self.postMessage(reply);
};
