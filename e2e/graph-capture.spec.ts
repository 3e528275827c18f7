/**
 * Graph capture in real Chromium (SwiftShader here): the product's WebGPU
 * device loop trains the same batches from the same weights twice, once
 * with its step captured and replayed, once run step by step, and the
 * losses must be the same bit for bit. The loop runs on the GPU bench's page
 * (bench/web/gpu-loop.ts), which drives `OrtRuntime.openLoop` directly, so
 * the two loops differ in nothing but the capture. Kept short: a small MLP
 * (784-16-10, batch 16), six steps each, with Adam, whose step has both
 * kinds of per-step feed (the rows and the step count). Each loop's first
 * step compiles its graph's shaders in software, some 8 s of CPU: the
 * momentum step, the rows its only feed, is not trained twice here too;
 * `webgpu.spec.ts` runs it captured in the app and checks it trains to
 * WASM's losses.
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

test('a captured WebGPU train step gives the uncaptured loop’s losses, bit for bit, with Adam @webgpu', async ({
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
    const train = (graphCapture: boolean) =>
      page.evaluate(([name, r]) => (window as unknown as Record<string, GpuBench>)[name]!.loop(r), [
        GPU_BENCH_GLOBAL,
        {
          model: { kind: 'mlp', hidden: 16, batch: 16 },
          optimizer: 'adam',
          graphCapture,
          perCall: 3,
          seconds: 0,
          warmSteps: 1,
          minSteps: STEPS - 1,
          maxSteps: STEPS - 1,
        } satisfies LoopRequest,
      ] as const);
    const plain: LoopReport = await train(false);
    const captured: LoopReport = await train(true);
    expect(plain.capture).toBeNull();
    expect(captured.capture).toEqual({ captured: STEPS, uncaptured: 0 });
    expect(plain.losses).toHaveLength(STEPS);
    for (const loss of plain.losses) expect(Number.isFinite(loss)).toBe(true);
    // The same program on the same device: the replays compute what the steps did, bit for bit.
    expect(captured.losses).toEqual(plain.losses);
    // Each replayed step writes its 16 row indices (int32) and its step count (a float32); its
    // loss comes back with the call's.
    expect(captured.ledgerUploadBytes).toBe((STEPS - 1) * (16 * 4 + 4));
    expect(captured.ledgerDownloadBytes).toBe((STEPS - 1) * 4);
  } finally {
    await served.close();
  }
});
