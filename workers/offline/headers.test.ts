import { describe, expect, it } from 'vitest';
import { appHeaders, contentSecurityPolicy, runServerOrigins } from './headers';

/** The policy's directives, by name. */
const directives = (policy: string) =>
  new Map(
    policy.split(';').map((part) => {
      const [name = '', ...sources] = part.trim().split(/\s+/);
      return [name, sources] as const;
    }),
  );

describe('the headers the app is served with', () => {
  it('isolate the page across origins, so WASM threads can have SharedArrayBuffer', () => {
    expect(appHeaders('app')).toMatchObject({
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
    });
  });

  it('let scripts and workers come only from the app itself, WebAssembly compile, nothing inline', () => {
    const policy = directives(appHeaders('app')['Content-Security-Policy'] ?? '');
    expect(policy.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(policy.get('worker-src')).toEqual(["'self'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    // The build inlines the small example files as data: URLs, which the examples read.
    expect(policy.get('connect-src')).toContain('data:');
  });

  it('in the dev server, allow its hot-reload socket and the one script stamped with its nonce', () => {
    const policy = directives(contentSecurityPolicy('dev', 'abc'));
    expect(policy.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'", "'nonce-abc'"]);
    expect(policy.get('connect-src')).toContain('ws:');
    expect(directives(contentSecurityPolicy('app')).get('connect-src')).not.toContain('ws:');
  });

  it('let the page reach a run server on loopback, and elsewhere only where the build says', () => {
    const connect = directives(appHeaders('app')['Content-Security-Policy'] ?? '').get(
      'connect-src',
    );
    expect(connect).toEqual(expect.arrayContaining(['http://127.0.0.1:*', 'http://localhost:*']));
    expect(connect).not.toContain('https:');
    expect(connect).not.toContain('*');
    const servers = runServerOrigins('https://runs.example.org, http://10.0.0.5:8737');
    expect(servers).toEqual(['https://runs.example.org', 'http://10.0.0.5:8737']);
    expect(directives(contentSecurityPolicy('app', undefined, servers)).get('connect-src')).toEqual(
      expect.arrayContaining(servers),
    );
    expect(runServerOrigins(undefined)).toEqual([]);
    expect(() => runServerOrigins('runs.example.org/path')).toThrow(/is not an origin/);
  });
});
