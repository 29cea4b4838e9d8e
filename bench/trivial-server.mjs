// The yardstick of the throughput bench: a bare Express 5, plain JavaScript, in its own process. Prints its URL.
// GET / answers a tiny JSON object; GET /page answers the JSON body read once from BENCH_PAGE_FILE (the reference's
// catalog page, fetched by the bench), kept in memory and sent with res.json as any Express app would.
import { readFileSync } from 'node:fs';
import express from 'express';

const app = express();
app.get('/', (_req, res) => {
  res.json({ ok: true });
});
if (process.env.BENCH_PAGE_FILE) {
  const page = JSON.parse(readFileSync(process.env.BENCH_PAGE_FILE, 'utf8'));
  app.get('/page', (_req, res) => {
    res.json(page);
  });
}
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
