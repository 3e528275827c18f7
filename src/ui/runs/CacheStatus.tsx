/**
 * The runs panel's line about the node-output cache: how many entries it
 * holds and their size, live (any tab's runs fill it), and `Clear cache`,
 * which empties it without touching any run's record.
 */
import { formatBytes } from '../../core/programs/pool';
import { clearCache, liveCacheStats } from '../../db/node-cache';
import { db } from '../db';
import { useLive } from '../live';
import { useEditorStore } from '../store/context';

export function CacheStatus() {
  const store = useEditorStore();
  const stats = useLive(() => liveCacheStats(db), []);
  const clear = () =>
    clearCache(db).catch((error: unknown) =>
      store.getState().alertError(error, 'The cache could not be cleared: '),
    );
  return (
    <div className="fb-cache-status">
      <p className="fb-muted" role="status" aria-label="Node cache">
        {stats === undefined
          ? 'Node cache: …'
          : `Node cache: ${stats.entries} ${stats.entries === 1 ? 'entry' : 'entries'} · ${formatBytes(stats.bytes)}`}
      </p>
      <button type="button" disabled={stats?.entries === 0} onClick={() => void clear()}>
        Clear cache
      </button>
    </div>
  );
}
