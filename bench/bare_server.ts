/**
 * The baseline for `/health`: a bare `Deno.serve` answering `{"status":"ok"}`
 * with nothing around it.
 *
 * @module
 */
const port = Number(Deno.env.get("PORT") ?? 7999);
const body = '{"status":"ok"}';
Deno.serve(
  { port, hostname: "127.0.0.1", onListen: () => console.log(`bare server on ${port}`) },
  () => new Response(body, { headers: { "Content-Type": "application/json; charset=utf-8" } }),
);
