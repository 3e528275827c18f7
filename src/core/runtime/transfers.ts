/**
 * The bytes that cross between the CPU and a device (WebGPU's GPU), counted
 * where the runtime hands data over: every CPU feed a device session copies
 * in is an upload, every output or device tensor brought back is a read-back.
 *
 * Idea: a ledger per scope — the runtime's own, and one per training loop
 * that adds to it — so a loop can say its bytes per step while other
 * sessions run beside it. Trade-off: it counts what the runtime asks the
 * device to move (feeds, outputs, downloads), not onnxruntime's own copies
 * for ops it places on the CPU (shape arithmetic, a few bytes a step).
 */

export interface TransferCounts {
  /** Bytes copied from the CPU to the device. */
  readonly uploaded: number;
  /** Bytes copied from the device back to the CPU. */
  readonly readBack: number;
}

export const noTransfers: TransferCounts = { uploaded: 0, readBack: 0 };

/** Counts bytes moved; a child ledger adds to its parent too. */
export class TransferLedger {
  private up = 0;
  private down = 0;

  constructor(private readonly parent: TransferLedger | null = null) {}

  upload(bytes: number): void {
    this.up += bytes;
    this.parent?.upload(bytes);
  }

  download(bytes: number): void {
    this.down += bytes;
    this.parent?.download(bytes);
  }

  get counts(): TransferCounts {
    return { uploaded: this.up, readBack: this.down };
  }
}

/** `after − before`, field by field. */
export function transfersBetween(before: TransferCounts, after: TransferCounts): TransferCounts {
  return { uploaded: after.uploaded - before.uploaded, readBack: after.readBack - before.readBack };
}
