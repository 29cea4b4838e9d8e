// The token shapes of `explore` as one module: the shapes, their arbitrary and descriptions (tokens-shape.ts), the
// credentials a shape makes (tokens-build.ts), and what the spec says must be answered to it (tokens-expect.ts).
export * from './tokens-shape.js';
export { credentialsOfToken, shapedToken, type TokenCredentialOptions, type TokenCredentials } from './tokens-build.js';
export { describeRefusal, expectedOfToken, judgeTokenAnswer, type ErrorsByStatus, type TokenExpectation } from './tokens-expect.js';
