// The wire proxy of the self-test, shared by the project's tests (conforming alternates, broken twins).
export * from '../../conformance/selftest/proxy.js';
