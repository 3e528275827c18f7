/**
 * A producer worker's entry: the engine worker starts one per producer of a
 * data engine; it steps its simulator for each request. Everything with
 * substance lives in `engine/producers.ts`.
 */
import { serveProducer } from './engine/producers';

serveProducer(self);
