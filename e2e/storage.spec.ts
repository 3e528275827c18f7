/**
 * Persistent storage: the first run asks the browser to keep Flowbench's
 * storage until the person clears it, and the runs panel says what the
 * browser answered and how much is used, read again when a run ends.
 */
import { expect, test } from './fixtures';

const USE = /· \d+(\.\d+)? [KMGT]?B used of \d+(\.\d+)? [KMGT]?B available$/;

test('the first run asks for persistent storage; the runs panel shows the answer and the use', async ({
  params,
  toolbar,
  runs,
}) => {
  await expect(runs.storage).toHaveText(
    /^Storage: not persistent yet \(Flowbench asks at the first run\)/,
  );
  await expect(runs.storage).toHaveText(USE);
  const before = (await runs.storage.textContent()) ?? '';

  await params.set('steps', 10);
  await toolbar.run();
  await runs.expectStatus(runs.newest, 'ok');
  // Headless Chromium decides by its own signals; either answer is said, never "not asked".
  await expect(runs.storage).toHaveText(
    /^Storage: (persistent \(kept until you clear it\)|not persistent: the browser declined, and may clear it when the disk runs low)/,
  );
  await expect(runs.storage).toHaveText(USE);
  // The run's record is in the use now.
  const use = (text: string) => USE.exec(text)?.[0];
  await expect
    .poll(async () => use((await runs.storage.textContent()) ?? ''))
    .not.toBe(use(before));
});
