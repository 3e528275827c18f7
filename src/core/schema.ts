/**
 * The schema library for Flowbench's file formats: zod's small, tree-shaken
 * build, with its English messages ("expected number, received string"), so
 * a refused file still says what was expected. The full build would cost each
 * bundle that reads a flow (the page, the engine worker, the producer worker)
 * about 90 KB more.
 */
import * as z from 'zod/mini';
import { en } from 'zod/locales';

z.config(en());

export { z };
