export * from './outcome.ts';
export * from './envelope.ts';
export * from './retry-after.ts';
export * from './www-authenticate.ts';
export * from './pagination.ts';
export * from './dispatcher.ts';
export * from './http-call.ts';
export * from './token.ts';
