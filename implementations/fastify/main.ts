import { startServer } from './server.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  if (i >= 0) return process.argv[i + 1];
  const eq = process.argv.find((a) => a.startsWith(`${name}=`));
  return eq?.slice(name.length + 1);
}

const port = Number(arg('--port') ?? process.env.PORT ?? 8080);
const host = arg('--host') ?? '127.0.0.1';
const server = await startServer({ port, host });
console.log(`listening on ${server.url}`);
const stop = (): void => {
  void server.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
