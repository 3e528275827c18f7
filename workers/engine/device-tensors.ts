/**
 * Device tensors as `OrtRuntime` hands them out (see its module comment):
 * an ORT tensor kept where its backend made it, and the ledger of those not
 * yet disposed, which a run's end releases whatever way it ends.
 */
import type * as Ort from 'onnxruntime-web';
import type { Backend, DeviceTensor, Tensor } from '../../src/core/runtime/tensor-runtime';
import { TransferLedger } from '../../src/core/runtime/transfers';
import { engineData, exactValues } from './ort-dtypes';

/**
 * An ORT tensor as the engine's: int32 stays, any other type becomes float32
 * and keeps its exact values beside (see ort-dtypes).
 */
export function fromOrt(tensor: Ort.Tensor, data: unknown = tensor.data): Tensor {
  const type = tensor.type === 'int32' ? 'int32' : 'float32';
  const exact = exactValues(tensor.type, data);
  return {
    type,
    data: engineData(tensor.type, data),
    dims: [...tensor.dims],
    ...(exact && { exact }),
  };
}

/**
 * The device tensors a runtime has handed out and not yet disposed: those in
 * GPU buffers by reference, for `releaseAll` to free; those in CPU memory by
 * count alone. A train loop hands out its weights and optimizer state every
 * step and disposes the step before's; held in a set, onnxruntime-node's
 * output buffers (some 800 KB a step for the bench's MLP) outlived the
 * young-generation collections that free a bare loop's, and were left to
 * full mark-compact collections: about one every 90 steps against none
 * (`--trace-gc --predictable`), and nearly twice the CPU per step of a bare
 * loop on one onnxruntime-node thread, against even. A release moves to a
 * new generation: a CPU tensor of an earlier one is refused as if disposed.
 */
export class DeviceLedger {
  readonly gpu = new Set<OrtDeviceTensor>();
  /** Bytes moved between the CPU and the GPU (WebGPU sessions only). */
  readonly transfers = new TransferLedger();
  cpu = 0;
  generation = 0;

  get size(): number {
    return this.gpu.size + this.cpu;
  }

  /** Disposes every GPU tensor still held; every CPU one counts as disposed from now on. */
  release(): void {
    for (const tensor of [...this.gpu]) tensor.dispose();
    this.cpu = 0;
    this.generation++;
  }
}

/** An ORT tensor kept where its backend made it; see the module comment. */
export class OrtDeviceTensor implements DeviceTensor {
  readonly location = 'device';
  readonly type: Tensor['type'];
  readonly dims: readonly number[];
  private disposed = false;
  private readonly generation: number;

  constructor(
    readonly tensor: Ort.Tensor,
    readonly backend: Backend,
    private readonly ledger: DeviceLedger,
    /** Rejects when the WebGPU device is lost (a download from it would never finish). */
    private readonly loss: Promise<never> | null = null,
  ) {
    this.type = tensor.type === 'int32' ? 'int32' : 'float32';
    this.dims = [...tensor.dims];
    this.generation = ledger.generation;
    if (this.onGpu) ledger.gpu.add(this);
    else ledger.cpu++;
  }

  get storage(): 'gpu-buffer' | 'cpu' {
    return this.tensor.location === 'gpu-buffer' ? 'gpu-buffer' : 'cpu';
  }

  /** Whether the data is in a GPU buffer (not CPU memory). */
  get onGpu(): boolean {
    return this.storage === 'gpu-buffer';
  }

  /** The ORT tensor to feed a session; a disposed one is refused, on every backend alike. */
  fed(): Ort.Tensor {
    if (this.released)
      throw new Error(`a device tensor [${this.dims.join(', ')}] was fed after dispose()`);
    return this.tensor;
  }

  async read(): Promise<Tensor> {
    if (this.released) throw new Error('read of a device tensor after dispose()');
    if (!this.onGpu) return fromOrt(this.tensor);
    const data = this.tensor.getData();
    const read = await (this.loss ? Promise.race([data, this.loss]) : data);
    this.ledger.transfers.download(byteLength(read));
    return fromOrt(this.tensor, read);
  }

  /** Disposed, or handed out before the runtime's last release. */
  private get released(): boolean {
    return this.disposed || this.generation !== this.ledger.generation;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.onGpu) this.ledger.gpu.delete(this);
    else if (this.generation === this.ledger.generation) this.ledger.cpu--;
    try {
      if (this.onGpu) this.tensor.dispose();
    } catch {
      // A buffer of a lost device is gone with it.
    }
  }
}

/** Bytes of a tensor's CPU data (a typed array; anything else counts nothing). */
export function byteLength(data: unknown): number {
  return ArrayBuffer.isView(data) ? data.byteLength : 0;
}
