#!/usr/bin/env node
// The CLI runs the TypeScript sources through tsx so that `npx buildsync` works right after
// `npm ci` with no build step; `npm run build` bundles dist/buildsync.mjs for images.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
