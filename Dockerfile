# syntax=docker/dockerfile:1
# The fluxgate image: the compiled `fluxgate` command on Node.js 24, running as a non-root user.
#   docker build -t ghcr.io/fluxgate/fluxgate:0.1.0 .
# Every stage builds on Node.js 24; the final one starts empty and takes only what runs from them
# (test/unit/dockerfile.test.ts checks this, the user and the entrypoint; `npm run image:measure` builds it).

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
# JavaScript only: declarations and source maps (1.4 of 2.6 MB, and the bundles' 4.6 and 1.6 MB maps) serve a
# library's users and debuggers, not the image.
RUN node node_modules/typescript/bin/tsc -p tsconfig.build.json --declaration false --sourceMap false && node scripts/bundle.ts \
 && rm dist/cli/controller.cjs.map dist/cli/schedule-preview.js.map
# V8's compiled code of the controller, made here so that the first start of a pod does not compile 1.5 MB of
# bundle (docs/performance.md, cold start). Node's compile cache is kept per Node.js version, V8 flags and
# user: so it is made by this Node.js (the runtime's binary is the same release), by `fluxgate controller`
# itself (which sets its V8 flags, src/cli/heap.ts), as the image's user. The command loads its code, then
# fails on the kubeconfig that does not exist (exit 2), and as it exits Node writes its cache of the CLI's
# modules and fluxgate its cache of the bundle, with the functions its start ran (src/cli/controller-bundle.ts;
# files only their writer may read: made readable to all, so the copy in the final stage reads whoever owns it).
RUN mkdir compile-cache && chown 65532:65532 compile-cache \
 && (setpriv --reuid=65532 --regid=65532 --clear-groups env NODE_COMPILE_CACHE=/app/compile-cache \
      node dist/cli/main.js controller --kubeconfig /nonexistent; test $? -eq 2) \
 && test -n "$(find compile-cache -type f)" && test -f compile-cache/fluxgate-controller-$(node -p 'process.version + "-" + process.arch') \
 && chmod -R a+rX compile-cache

# The runtime alone, laid out for a final stage without Debian: the node binary and the shared libraries
# it links (as ldd lists them, so any CPU works), the licences of their packages and of what those depend
# on (libgcc-s1's is gcc-12-base's), a passwd and group naming the image's
# user, a hosts lookup order, and a world-writable /tmp. The binary's symbol table and debug sections
# (18 MB of 127 MB; native stack traces keep the dynamic symbols) are stripped with Debian's binutils.
# The tree is run with chroot before it is taken, so a missing library fails the build, not the pod.
FROM node:24-bookworm-slim AS runtime
RUN apt-get update && apt-get install -y --no-install-recommends binutils \
 && mkdir -p /runtime/usr/local/bin /runtime/etc /runtime/tmp /runtime/home/nonroot \
 && strip --strip-all -o /runtime/usr/local/bin/node /usr/local/bin/node \
 && ldd /usr/local/bin/node | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' > /tmp/libs \
 && xargs -a /tmp/libs cp --parents -L -t /runtime \
 && owners=$(sed 's|.*/|*/|' /tmp/libs | xargs dpkg -S | cut -d: -f1 | sort -u) \
 && deps=$(dpkg-query -W -f '${Depends},' $owners | tr ',' '\n' | awk '{ print $1 }' | cut -d: -f1) \
 && for pkg in $(printf '%s\n' $owners $deps | sort -u); do if [ -f /usr/share/doc/$pkg/copyright ]; then \
      mkdir -p /runtime/usr/share/doc/$pkg && cp /usr/share/doc/$pkg/copyright /runtime/usr/share/doc/$pkg/; fi; done \
 && mkdir -p /runtime/usr/local/share/doc/node && cp /usr/local/LICENSE /runtime/usr/local/share/doc/node/ \
 && printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > /runtime/etc/passwd \
 && printf 'root:x:0:\nnonroot:x:65532:\n' > /runtime/etc/group \
 && printf 'passwd: files\ngroup: files\nhosts: files dns\n' > /runtime/etc/nsswitch.conf \
 && chmod 1777 /runtime/tmp && chown 65532:65532 /runtime/home/nonroot \
 && chroot /runtime /usr/local/bin/node -e 'new Intl.DateTimeFormat("en", { timeZone: "Europe/Berlin" }); require("node:crypto").createHash("sha256")'

# What runs: node and its libraries, dist, the production node_modules and package.json (`fluxgate
# version` reads it). Nothing else: no shell, no npm, no Debian userland; nothing in the image can run
# but node. Its user is numeric, as runAsNonRoot needs, and named in /etc/passwd (home /home/nonroot).
FROM scratch
COPY --from=runtime /runtime/ /
# NODE_COMPILE_CACHE: Node and fluxgate read V8's code of the controller from the caches the build stage made
# (read-only here; what they cannot write they leave out).
ENV PATH=/usr/local/bin NODE_ENV=production NODE_COMPILE_CACHE=/app/compile-cache
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/compile-cache ./compile-cache
COPY package.json ./
# The uid and gid the Deployment's securityContext runs as (config/manager/deployment.yaml).
USER 65532:65532
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
CMD ["controller"]
