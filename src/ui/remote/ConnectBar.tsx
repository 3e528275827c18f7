/**
 * Connect, above the runs table: the address of a run server (`flowbench
 * serve`) and its token, if it needs one. Connected, the server's runs join
 * the table, marked remote; a refusal or an unreachable server is said here,
 * as an alert naming the URL, and changes nothing.
 */
import { useId, useState } from 'react';
import { remote, useRemote } from './remote-store';
import './remote.css';

export function ConnectBar() {
  const server = useRemote((s) => s.server);
  const connecting = useRemote((s) => s.connecting);
  const count = useRemote((s) => s.runs.length);
  const error = useRemote((s) => s.error);
  const [url, setUrl] = useState('http://127.0.0.1:8737');
  const [token, setToken] = useState('');
  const urlId = useId();
  const tokenId = useId();

  return (
    <form
      className="fb-connect"
      aria-label="Run server"
      onSubmit={(event) => {
        event.preventDefault();
        void remote.connect(url, token);
      }}
    >
      <label htmlFor={urlId}>Server URL</label>
      <input
        id={urlId}
        type="url"
        value={url}
        placeholder="http://127.0.0.1:8737"
        readOnly={server !== null}
        onChange={(e) => setUrl(e.currentTarget.value)}
      />
      <label htmlFor={tokenId}>Token</label>
      <input
        id={tokenId}
        type="password"
        autoComplete="off"
        placeholder="if the server needs one"
        value={token}
        readOnly={server !== null}
        onChange={(e) => setToken(e.currentTarget.value)}
      />
      {server ? (
        <button type="button" onClick={() => remote.disconnect()}>
          Disconnect
        </button>
      ) : (
        <button type="submit" disabled={connecting}>
          {connecting ? 'Connecting…' : 'Connect'}
        </button>
      )}
      {server && (
        <span className="fb-muted" role="status" aria-label="Run server status">
          {server.url}: {count} remote run{count === 1 ? '' : 's'}
        </span>
      )}
      {error && (
        <p className="fb-connect-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
