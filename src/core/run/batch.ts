/**
 * Batch checks: what cannot run as a batch, refused at submit. A rate-limit
 * interval holds values back and releases the latest one when the interval
 * elapses; on a streaming port the stream keeps coming and the interval only
 * thins what is published live. On a port that emits once, a batch run has no
 * timer to release what the interval held back, so the flow is refused with
 * the fix instead of running and silently showing nothing.
 */
import type { Catalog } from '../catalog/catalog';
import { findPort } from '../catalog/catalog';
import type { FlowDocument } from '../flow/document';
import type { FlowIssue } from '../flow/issues';

export function batchIssues(flow: FlowDocument, catalog: Catalog): FlowIssue[] {
  const issues: FlowIssue[] = [];
  const streams = flow.nodes.flatMap((node) => {
    const kind = catalog.get(node.kind);
    return (kind?.outputs ?? []).filter((p) => p.stream).map((p) => `${node.id}.${p.name}`);
  });
  flow.nodes.forEach((node, i) => {
    const kind = catalog.get(node.kind);
    for (const [port, interval] of Object.entries(node.rateLimits ?? {})) {
      const path = `nodes[${i}].rateLimits.${port}`;
      const spec = kind && findPort(kind, 'outputs', port);
      if (!spec) {
        issues.push({
          path,
          message: `node '${node.id}' has no output port '${port}' to rate-limit`,
        });
        continue;
      }
      if (spec.stream) continue;
      const example = streams[0] ? ` such as '${streams[0]}'` : '';
      issues.push({
        path,
        message:
          `node '${node.id}' output '${port}' has a rate-limit interval of ${interval} ms but is not a streaming port: ` +
          `a batch run has no timer to release the value the interval holds back. ` +
          `Remove the interval, or put it on a streaming output${example}.`,
      });
    }
  });
  return issues;
}
