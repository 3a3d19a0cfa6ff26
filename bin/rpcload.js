#!/usr/bin/env node
/* global process */
// A Ctrl-C, SIGTERM or SIGHUP while the CLI is still loading exits 130 like one at any later stage
// (the CLI takes these signals over once loaded; nothing has run yet that needs writing).
const exitInterrupted = () => process.exit(130);
process.on('SIGINT', exitInterrupted);
process.on('SIGTERM', exitInterrupted);
process.on('SIGHUP', exitInterrupted);
// With RPCLOAD_DEBUG set (which also prints an internal error's stack), stack traces name the src/
// files and lines the bundle was built from (dist/*.js.map). Not by default: Node reads the map of
// every file it loads once they are on, ~20 ms of every command's start-up.
if (process.env.RPCLOAD_DEBUG) process.setSourceMapsEnabled(true);
await import('../dist/rpcload.js');
