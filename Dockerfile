# syntax=docker/dockerfile:1
# The app as one image: the compiled server (apps/server/dist), the built web app (apps/web/dist)
# and the server's production dependencies only; runs as the unprivileged `node` user.
#   docker build -t adena-wallet .
#   docker run -p 3000:3000 --hostname adena -v adena-data:/data adena-wallet   # embedded PGlite in /data
#     (a fixed hostname: a new container after a kill then sees the lock left in /data as its own, stale)
#   docker run -p 3000:3000 -e DATABASE_URL=postgres://… adena-wallet   # PostgreSQL
ARG NODE_IMAGE=node:20-bookworm-slim

# 1. Everything, dev dependencies included, to build the web app and the server.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/contract/package.json packages/contract/
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
RUN npm ci --no-audit --no-fund
COPY . .
RUN node scripts/build.mjs

# 2. The server workspace's production dependencies, nothing else (no Vite, React, esbuild or tsx).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/contract/package.json packages/contract/
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
RUN npm ci --omit=dev --workspace=@adena/server --no-audit --no-fund && npm cache clean --force

# 3. What runs. pg_dump/pg_restore (Debian 12: PostgreSQL 15) serve `node apps/server/dist/ops.js backup|restore FILE`.
FROM ${NODE_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-client \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/package.json /app/package-lock.json ./
COPY --from=deps /app/node_modules node_modules
COPY --from=deps /app/packages/contract/package.json packages/contract/
COPY --from=deps /app/apps/server/package.json apps/server/
COPY --from=build /app/apps/server/dist apps/server/dist
COPY --from=build /app/apps/web/dist apps/web/dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/api/ready`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--enable-source-maps", "apps/server/dist/main.js"]
