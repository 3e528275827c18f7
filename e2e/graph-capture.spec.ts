/**
 * Graph capture in real Chromium (SwiftShader here): the product's WebGPU
 * device loop trains the same batches from the same weights twice, once
 * with its step captured and replayed, once run step by step, and the
 * losses must be the same bit for bit. The loop runs on the GPU bench's page
 * (bench/web/gpu-loop.ts), which drives `OrtRuntime.openLoop` directly, so
 * the two loops differ in nothing but the capture. Kept short: a small MLP
 * (784-16-10, batch 16), six steps each, with momentum (per-step feed: the
 * rows) and with Adam (the rows and the step count).
 */
import { buildBenchPage, serveBenchPage } from '../bench/browser/servers';
import {
  GPU_BENCH_GLOBAL,
  type AdapterReport,
  type GpuBench,
  type LoopReport,
  type LoopRequest,
} from '../bench/web/gpu-api';
import { expect, test } from './fixtures';

const STEPS = 6;

test('a captured WebGPU train step gives the uncaptured loop’s losses, bit for bit, with momentum and Adam @webgpu', async ({
  page,
}) => {
  test.setTimeout(300_000);
  await buildBenchPage(() => undefined);
  const served = await serveBenchPage();
  try {
    await page.goto(`${served.url}gpu.html`);
    await page.waitForFunction((name) => name in window, GPU_BENCH_GLOBAL);
    const adapter = await page.evaluate(
      (name) => (window as unknown as Record<string, GpuBench>)[name]!.adapter(),
      GPU_BENCH_GLOBAL,
    );
    expect(adapter satisfies AdapterReport).toMatchObject({ found: true });
    const train = (optimizer: 'momentum' | 'adam', graphCapture: boolean) =>
      page.evaluate(([name, r]) => (window as unknown as Record<string, GpuBench>)[name]!.loop(r), [
        GPU_BENCH_GLOBAL,
        {
          model: { kind: 'mlp', hidden: 16, batch: 16 },
          optimizer,
          graphCapture,
          perCall: 3,
          seconds: 0,
          warmSteps: 1,
          minSteps: STEPS - 1,
          maxSteps: STEPS - 1,
        } satisfies LoopRequest,
      ] as const);
    for (const optimizer of ['momentum', 'adam'] as const) {
      const plain: LoopReport = await train(optimizer, false);
      const captured: LoopReport = await train(optimizer, true);
      expect(plain.capture, optimizer).toBeNull();
      expect(captured.capture, optimizer).toEqual({ captured: STEPS, uncaptured: 0 });
      expect(plain.losses, optimizer).toHaveLength(STEPS);
      for (const loss of plain.losses) expect(Number.isFinite(loss), optimizer).toBe(true);
      // The same program on the same device: the replays compute what the steps did, bit for bit.
      expect(captured.losses, optimizer).toEqual(plain.losses);
      // Each replayed step writes its 16 row indices (int32), and Adam its step count (a float32);
      // its loss comes back with the call's.
      const perStep = 16 * 4 + (optimizer === 'adam' ? 4 : 0);
      expect(captured.ledgerUploadBytes, optimizer).toBe((STEPS - 1) * perStep);
      expect(captured.ledgerDownloadBytes, optimizer).toBe((STEPS - 1) * 4);
    }
  } finally {
    await served.close();
  }
});
