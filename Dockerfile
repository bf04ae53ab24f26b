# syntax=docker/dockerfile:1
# Multi-stage: build the bundle with dev dependencies, run with production ones as a non-root user.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# The bundle carries the JavaScript packages; node_modules still serves bull-board's UI files
# (@bull-board/ui) and the optional native add-ons (bin/build.mjs).
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/bin ./bin
COPY --from=build /app/src ./src
COPY --from=build /app/jobs ./jobs
COPY --from=build /app/samples ./samples
COPY --from=build /app/dist ./dist
RUN mkdir -p /app/exports && chown -R node:node /app/exports
USER node
# The esbuild bundle: no TypeScript loader at run time.
ENTRYPOINT ["node", "dist/buildsync.mjs"]
CMD ["--help"]
