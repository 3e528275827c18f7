/** The node-output cache's core: value bytes and digests, keys, and the store's contract. */
export { cacheKey, type CacheKeyParts } from './cache-key';
export {
  lookUp,
  memoryCacheStore,
  type CacheEntry,
  type CacheLookup,
  type CachedArtifact,
  type CachedOutput,
  type HeldEntries,
  type NodeCacheStore,
} from './node-cache';
export { decodeValue, encodeValue } from './value-bytes';
export {
  bytesDigest,
  rememberDigest,
  valueBytes,
  valueDigest,
  type ValueBytes,
} from './value-digest';
