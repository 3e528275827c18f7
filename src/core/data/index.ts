/** The online data engine: simulators, producers, the episode cache and the flow controller. */
export * from './buffer-pool';
export * from './cartpole';
export * from './clock';
export * from './config';
export * from './context-window';
export * from './data-engine';
export * from './episode';
export * from './episode-cache';
export * from './flow-controller';
export * from './packed-episodes';
export * from './pendulum';
export * from './producer';
export * from './seed';
export * from './simulator';
export * from './simulator-producer';
export * from './telemetry';
export * from './wait';
