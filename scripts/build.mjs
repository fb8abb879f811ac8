#!/usr/bin/env node
// npm run build: the web app (Vite) and the server (esbuild to apps/server/dist), always.
import { buildServer, buildWeb } from './build-lib.mjs';

const only = process.argv[2];
if (only !== 'server') buildWeb();
if (only !== 'web') await buildServer();
