/** The page's one database connection (the engine worker opens its own). */
import { FlowbenchDb } from '../db/schema';

export const db = new FlowbenchDb();
