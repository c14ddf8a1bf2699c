# Provider Search API — container image.
# Build: docker build -t provider-search .
# Run:   docker run -p 7860:7860 -v provider-data:/app/data provider-search
# As a replica following published releases (docs/deployment.md):
#        docker run -e PROVIDERS_DB_URL=https://releases.example.org/current.release.json ...
FROM denoland/deno:2.9.6

WORKDIR /app

# Dependencies first, in their own layer: they change less often than the code.
COPY deno.json deno.lock ./
COPY lib/ lib/
COPY routes/ routes/
COPY main.ts ./
# scripts/release.ts fetches a release in an init container (deploy/k8s/deployment.yaml).
COPY scripts/release.ts scripts/
RUN deno install --frozen --entrypoint main.ts scripts/release.ts

COPY static/ static/
COPY scripts/ scripts/

RUN mkdir -p /app/data && chown -R deno:deno /app/data
USER deno

# glibc maps blocks of 4 MB or more on their own and returns them when freed
# (as `deno task start` does; see the README's benchmark section).
ENV PORT=7860 HOST=0.0.0.0 PROVIDERS_DB=/app/data/providers.db MALLOC_MMAP_THRESHOLD_=4194304
EXPOSE 7860
VOLUME ["/app/data"]

HEALTHCHECK --interval=30s --timeout=3s --start-period=10s \
  CMD ["deno", "eval", "const r = await fetch('http://127.0.0.1:7860/health'); Deno.exit(r.ok ? 0 : 1)"]

CMD ["run", "--cached-only", "--allow-net", "--allow-env", "--allow-read", "--allow-write=/app/data", "--allow-sys=loadavg,osRelease,systemMemoryInfo", "--allow-ffi", "--v8-flags=--expose-gc", "main.ts"]
