// Makes sure the Chromium the e2e tests drive is installed.
// Playwright cannot download its own browsers here, so the suite uses Debian's
// `chromium` package. As root with apt-get, this installs it; otherwise it says how.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (existsSync(path)) process.exit(0);

const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
if (!canInstall) {
  console.error(
    `Chromium was not found at ${path}.\n` +
      "Install Debian's package with:  sudo apt-get update && sudo apt-get install -y chromium\n" +
      'or point CHROMIUM_PATH at another Chromium build.',
  );
  process.exit(1);
}
console.log("Chromium is missing: installing Debian's chromium package…");
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
if (!existsSync(path)) {
  console.error(`apt-get finished but ${path} is still missing`);
  process.exit(1);
}
