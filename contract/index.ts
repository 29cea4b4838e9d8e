export * from './callers.js';
export * from './operations.js';
export * from './scopes.js';
export * from './errors.js';
export * from './limits.js';
export * from './headers.js';
export * from './profile.js';
export * from './seed.js';
