/**
 * Load over a list of distinct URLs with `wrk`: each thread takes the next
 * path of its own share of the list, and the run ends (SIGINT to wrk, which
 * then reports) when every thread has had an answer for each path of its
 * share, so no path is asked twice within one run and no answer can come
 * from a cache of finished bodies. A thread stops as soon as its share is
 * answered.
 *
 * @module
 */
import { type LoadResult, loadThreads, runLoad } from "./load.ts";

/**
 * The Lua side: reads the paths file once per thread, gives thread `k` of
 * `n` the paths `k, k + n, k + 2n, …`, and when its share has been
 * answered prints `@@done` and stops (requests then in flight, at most one
 * per connection, are neither answered nor counted).
 */
const SCRIPT = `
local threads = {}
local counter = 0
function setup(thread)
  thread:set("index", counter)
  counter = counter + 1
  table.insert(threads, thread)
end
function init(args)
  paths = {}
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  step = tonumber(args[2])
  at = index + 1
  share = math.floor((#paths - index + step - 1) / step)
end
function request()
  local path = paths[at]
  at = at + step
  if path == nil then
    path = paths[#paths]
  end
  return wrk.format(nil, path)
end
function response(status, headers, body)
  answered = (answered or 0) + 1
  if answered == share then
    io.write("@@done\\n")
    io.flush()
    wrk.thread:stop()
  end
end
`;

/**
 * Drives `base` with the distinct `paths`, `connections` at a time, until
 * every path was asked once or `maxSeconds` passed.
 *
 * @example
 * ```ts
 * const r = await runPaths("http://127.0.0.1:7860", ["/v1/providers/search?q=smith"], { connections: 1, maxSeconds: 10 });
 * ```
 */
export async function runPaths(
  base: string,
  paths: readonly string[],
  options: { connections: number; maxSeconds: number },
): Promise<LoadResult> {
  if (paths.length === 0) throw new RangeError("runPaths needs at least one path");
  const list = await Deno.makeTempFile({ suffix: ".paths" });
  try {
    await Deno.writeTextFile(list, paths.join("\n") + "\n");
    return await runLoad(base + paths[0], {
      connections: options.connections,
      seconds: options.maxSeconds,
      lua: SCRIPT,
      args: [list, String(loadThreads(options.connections))],
      doneLines: loadThreads(options.connections),
    });
  } finally {
    await Deno.remove(list).catch(() => {});
  }
}
