export { startServer } from './start-server.ts';
export { startServerInWorker } from './worker.ts';
export * from './options.ts';
export { DEMO_CLIENT_PATTERN } from './config.ts';
