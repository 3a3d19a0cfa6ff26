# rpcload as a container image, for shards on Kubernetes (see docs/distributed.md).
#   docker build -t rpcload:0.1.0 .
#   docker run --rm -v "$PWD:/work" -w /work rpcload:0.1.0 run profiles/smoke.json
# The profile and the client secrets are mounted at run time, never baked in.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
RUN node scripts/build.js && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production CI=true
COPY --from=build /app/node_modules /opt/rpcload/node_modules
COPY --from=build /app/dist /opt/rpcload/dist
COPY package.json /opt/rpcload/
COPY bin /opt/rpcload/bin
COPY profiles /opt/rpcload/profiles
COPY schemas /opt/rpcload/schemas
# The node image's unprivileged user (uid 1000), as the Kubernetes manifests expect.
USER node
WORKDIR /home/node
# rpcload runs as PID 1 and handles SIGTERM and SIGINT itself: the first one stops the load and
# writes the result file, so `docker stop` and a pod's termination keep the run's data.
ENTRYPOINT ["node", "/opt/rpcload/bin/rpcload.js"]
CMD ["--help"]
