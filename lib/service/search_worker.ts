/**
 * The search worker the service starts: `lib/search/search_worker.ts`,
 * writing the bodies of both APIs (`render.ts`), so that short pages of the
 * NPI Registry API are written where they are found (see
 * `renderBodiesWith`). `startup.ts` gives the pool this module.
 *
 * @module
 */
import { renderBodiesWith } from "../search/search_worker.ts";
import { renderBody } from "./render.ts";

renderBodiesWith(renderBody);
