// The proxy lives with the self-test (conformance/selftest/proxy.ts); the project's tests use it from here.
export * from '../../conformance/selftest/proxy.js';
