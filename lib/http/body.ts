/**
 * The bodies of responses the service made itself, carried on them, so the
 * compression wrapper can size and compress a body without reading the
 * response's stream (and without turning a synchronous answer into a
 * promise).
 *
 * A property of the response, not a `WeakMap` from responses to bodies: the
 * serving thread's young-generation collections kept such a map's values,
 * copying every body answered since the last collection (5.6–5.8 MB each
 * time over a repeated search at eight connections, 0.2–0.3 MB as a
 * property, and pauses of 2.3–2.9 ms against 0.9–1.1).
 *
 * @module
 */

/** The property a response carries its body under. */
const BODY = Symbol("body");

/** A response with its body beside it. */
type WithBody = Response & { [BODY]?: string | Uint8Array };

/**
 * Makes a response whose body is `body`, remembered for {@linkcode knownBody}.
 *
 * @example
 * ```ts
 * const response = responseWithBody("{}", { headers: { "Content-Type": "application/json" } });
 * knownBody(response); // "{}"
 * ```
 */
export function responseWithBody(
  body: string | Uint8Array<ArrayBuffer>,
  init?: ResponseInit,
): Response {
  const response = new Response(body, init) as WithBody;
  response[BODY] = body;
  return response;
}

/**
 * Remembers `body` as the body of `response` (made elsewhere, e.g. a clone
 * of a template), for {@linkcode knownBody}.
 *
 * @example
 * ```ts
 * const copy = template.clone();
 * rememberBody(copy, '{"status":"ok"}');
 * ```
 */
export function rememberBody(response: Response, body: string | Uint8Array): Response {
  (response as WithBody)[BODY] = body;
  return response;
}

/**
 * The body a response was made with by {@linkcode responseWithBody}, else
 * `undefined` (its stream must be read).
 *
 * @example
 * ```ts
 * knownBody(new Response("x")); // undefined
 * ```
 */
export function knownBody(response: Response): string | Uint8Array | undefined {
  return (response as WithBody)[BODY];
}
