#!/usr/bin/env node
/* global process */
// A Ctrl-C or SIGTERM while the CLI is still loading exits 130 like one at any later stage (the
// CLI replaces these handlers with its own once loaded; nothing has run yet that needs writing).
const exitInterrupted = () => process.exit(130);
process.on('SIGINT', exitInterrupted);
process.on('SIGTERM', exitInterrupted);
await import('../dist/cli/main.js');
