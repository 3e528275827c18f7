/**
 * Connect, above the runs table: the address of a run server (`flowbench
 * serve`) and its token, if it needs one. Connected, the server's runs join
 * the table, marked remote; a refusal or an unreachable server is said here,
 * as an alert naming the URL, and changes nothing.
 *
 * A disclosure, closed until opened: most people never run a server, and the
 * runs table should not start under two fields they do not use. Opened or
 * closed, it stays so in this browser (`localStorage`); connected, the line
 * that says what the server lists shows either way.
 */
import { useId, useState } from 'react';
import { remote, useRemote } from './remote-store';
import './remote.css';

const OPEN_KEY = 'flowbench.connect.open';

/** Whether the disclosure was left open in this browser (storage refused: closed). */
function leftOpen(): boolean {
  try {
    return localStorage.getItem(OPEN_KEY) === '1';
  } catch {
    return false;
  }
}

export function ConnectBar() {
  const server = useRemote((s) => s.server);
  const connecting = useRemote((s) => s.connecting);
  const count = useRemote((s) => s.runs.length);
  const error = useRemote((s) => s.error);
  const [url, setUrl] = useState('http://127.0.0.1:8737');
  const [token, setToken] = useState('');
  const [open, setOpen] = useState(leftOpen);
  const urlId = useId();
  const tokenId = useId();
  const formId = useId();
  const toggle = () => {
    setOpen(!open);
    try {
      localStorage.setItem(OPEN_KEY, open ? '0' : '1');
    } catch {
      // Not remembered, still toggled.
    }
  };

  return (
    <div className="fb-connect">
      <button
        type="button"
        className="fb-connect-toggle"
        aria-expanded={open}
        aria-controls={open ? formId : undefined}
        onClick={toggle}
      >
        <span aria-hidden="true">{open ? '▾' : '▸'} </span>
        Run server
      </button>
      {open && (
        <form
          id={formId}
          className="fb-connect-form"
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
          {/* Keyed apart: React would otherwise turn the clicked Disconnect into the submit
              button Connect while its click is still dispatched, and the form would connect again. */}
          {server ? (
            <button key="disconnect" type="button" onClick={() => remote.disconnect()}>
              Disconnect
            </button>
          ) : (
            <button key="connect" type="submit" disabled={connecting}>
              {connecting ? 'Connecting…' : 'Connect'}
            </button>
          )}
          {error && (
            <p className="fb-connect-error" role="alert">
              {error}
            </p>
          )}
        </form>
      )}
      {server && (
        <span className="fb-muted" role="status" aria-label="Run server status">
          {server.url}: {count} remote run{count === 1 ? '' : 's'}
        </span>
      )}
    </div>
  );
}
