// Makes sure the Redis the queue tests start is installed.
// The distributed sweep tests (cli/queue.test.ts, e2e/connect.spec.ts) start Debian's `redis-server` on a free
// loopback port and stop it afterwards. As root with apt-get, this installs it; otherwise it
// says how.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const path = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';
if (existsSync(path)) process.exit(0);

const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
if (!canInstall) {
  console.error(
    `redis-server was not found at ${path}.\n` +
      "Install Debian's package with:  sudo apt-get update && sudo apt-get install -y redis-server\n" +
      'or point REDIS_SERVER_PATH at another redis-server build.',
  );
  process.exit(1);
}
console.log("redis-server is missing: installing Debian's redis-server package…");
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'redis-server'], {
  stdio: 'inherit',
  env,
});
if (!existsSync(path)) {
  console.error(`apt-get finished but ${path} is still missing`);
  process.exit(1);
}
