# syntax=docker/dockerfile:1
# The fluxgate image: the compiled `fluxgate` command on Node.js 24, running as a non-root user.
#   docker build -t ghcr.io/fluxgate/fluxgate:0.1.0 .
# Every stage is Node.js 24 (test/unit/dockerfile.test.ts checks this, the user and the entrypoint).

# Production dependencies only. No install scripts: no runtime dependency needs one, and npm's
# "node" dev dependency (which downloads a Node.js binary) is not wanted in an image that has Node.js.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

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
RUN node node_modules/typescript/bin/tsc -p tsconfig.build.json && node scripts/bundle.ts

# What runs: dist, the production node_modules and package.json (`fluxgate version` reads it).
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# The uid and gid the Deployment's securityContext runs as (config/manager/deployment.yaml).
USER 65532:65532
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
CMD ["controller"]
