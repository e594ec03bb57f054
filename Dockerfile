# syntax=docker/dockerfile:1
# The fluxgate image: the compiled `fluxgate` command on Node.js 24, running as a non-root user.
#   docker build -t ghcr.io/fluxgate/fluxgate:0.1.0 .
# Every stage is Node.js 24 (test/unit/dockerfile.test.ts checks this, the user and the entrypoint).

# Production dependencies only. No install scripts: no runtime dependency needs one, and npm's
# "node" dev dependency (which downloads a Node.js binary) is not wanted in an image that has Node.js.
# Then what Node.js never loads goes: type declarations, TypeScript sources (Node.js does not strip
# types under node_modules), source maps, docs, the packages' own tests, @types, and native addons
# built for the Bare runtime (*.bare; on Node.js those packages are never imported). 79 MB -> 33 MB
# (docs/install.md, "The image").
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && find node_modules -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.map' -o -name '*.bare' \
      -o \( -name '*.md' ! -iname 'licen[cs]e*' \) \) -delete \
 && find node_modules -depth -type d \( -name test -o -name tests -o -name __tests__ \) -exec rm -rf {} + \
 && rm -rf node_modules/@types

# Compile src/ to dist/ with the dev dependencies (TypeScript, esbuild), then bundle the controller
# into one file (scripts/bundle.ts): `fluxgate controller` loads it instead of ~2,000 modules.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/bundle.ts ./scripts/
# Run tsc with the image's node: without install scripts, node_modules/.bin/node is not a working Node.js.
# JavaScript only: declarations and source maps (1.4 of 2.6 MB) serve a library's users and debuggers, not the image.
RUN node node_modules/typescript/bin/tsc -p tsconfig.build.json --declaration false --sourceMap false && node scripts/bundle.ts

# What runs: dist, the production node_modules and package.json (`fluxgate version` reads it).
# npm, npx, corepack and yarn are taken out of the running filesystem: nothing runs them. (They stay in
# the base image's layer, so the image is no smaller for it; a shell stays too, as Debian needs it.)
FROM node:24-bookworm-slim
ENV NODE_ENV=production
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-*
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# The uid and gid the Deployment's securityContext runs as (config/manager/deployment.yaml).
USER 65532:65532
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
CMD ["controller"]
