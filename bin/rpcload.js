#!/usr/bin/env node
/* global process */
// A Ctrl-C, SIGTERM or SIGHUP while the CLI is still loading exits 130 like one at any later stage
// (the CLI takes these signals over once loaded; nothing has run yet that needs writing).
const exitInterrupted = () => process.exit(130);
process.on('SIGINT', exitInterrupted);
process.on('SIGTERM', exitInterrupted);
process.on('SIGHUP', exitInterrupted);
// Stack traces name the src/ files and lines the bundle was built from (dist/*.js.map).
process.setSourceMapsEnabled(true);
await import('../dist/rpcload.js');
