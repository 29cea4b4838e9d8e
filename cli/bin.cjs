#!/usr/bin/env node
// The published bin. For `serve` it sizes libuv's thread pool first: UV_THREADPOOL_SIZE is read once, when the pool
// starts, and the ES module loader starts it to read the first module, so only a CommonJS entry comes early enough.
// Unset, the pool gets one thread fewer than the cores (1 to 4): DPoP proofs are verified there, and more threads than
// that only take the core the event loop needs (docs/configuration.md). Then the CLI proper, an ES module.
'use strict';
const { availableParallelism } = require('node:os');

const command = process.argv.slice(2).find((arg) => !arg.startsWith('-'));
if (command === 'serve' && process.env.UV_THREADPOOL_SIZE === undefined)
  process.env.UV_THREADPOOL_SIZE = String(Math.min(4, Math.max(1, availableParallelism() - 1)));
import('./main.js');
