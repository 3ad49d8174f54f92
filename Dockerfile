# paysandbox image: `docker run -p 8080:8080 IMAGE` serves the same server as `npm start`
# (docs/getting-started.md#docker). Two stages: `build` installs the dependencies and bundles src/
# with esbuild; the final stage holds only the runtime (pruned node_modules, dist/, bin/,
# package.json, the guides), no TypeScript, no dev dependencies, and runs as a non-root user.
# The base is a build argument so a local stand-in of the official image can be used:
# `docker build --build-arg NODE_IMAGE=... .`
#
# The base is the active LTS line (docs/developing.md#nodejs-lines). No compiler: better-sqlite3 13
# ships its addon prebuilt inside its package (src/db/sqlite-driver.ts).
ARG NODE_IMAGE=node:26-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV npm_config_nodedir=/usr/local \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
# Dependencies first, from the lockfile alone, so a source change does not install them again.
# No install scripts: nothing here needs one (better-sqlite3's addon and esbuild's binary come in
# packages).
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY . .
# Then the bundle, the production-only node_modules, and no build leftovers:
# - better-sqlite3 keeps the prebuilt addon of this platform only, and no C sources (~10 MB);
# - dist/ drops the source maps (the image runs without --enable-source-maps).
# The last line runs a scenario file in-process (the SQLite addon loads, a payment is made), and its
# exit writes dist/.cache: the V8 code cache of the
# server bundle for this image's Node, so a container's first start already skips compiling it
# (scripts/dist-main.mjs).
RUN npm run build \
 && npm prune --omit=dev \
 && npm cache clean --force \
 && cd node_modules/better-sqlite3 \
 && keep="$(node -p "require('./lib/binding.js').getPrebuildPath() || ''")" \
 && for f in prebuilds/*.node; do [ "$PWD/$f" = "$keep" ] || rm -f "$f"; done \
 && rm -rf deps src binding.gyp \
 && cd /app \
 && rm -f dist/*.map \
 && mkdir -p scenarios \
 && node dist/main.js --version \
 && node dist/main.js run scenarios/test-cards.yaml

FROM ${NODE_IMAGE}
WORKDIR /app
# The official image has a `node` user (uid 1000); a bare Debian stand-in may not: create it there.
RUN if ! id -u node >/dev/null 2>&1; then \
      groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/sh --create-home node; \
    fi \
 && mkdir -p /data \
 && chown node:node /data
ENV NODE_ENV=production \
    SANDBOX_DB=/data/sandbox.db \
    HOST=0.0.0.0 \
    PORT=8080
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/scenarios ./scenarios
# the guides /guide serves (read at run time from the package root)
COPY --from=build /app/README.md ./README.md
COPY --from=build /app/docs ./docs
USER node
VOLUME /data
EXPOSE 8080
# No curl in slim images: node's own fetch asks the health route.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/_sandbox/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js", "start"]
