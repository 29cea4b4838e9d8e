// The yardstick of the throughput bench: a bare Express 5 GET, plain JavaScript, in its own process. Prints its URL.
import express from 'express';

const app = express();
app.get('/', (_req, res) => {
  res.json({ ok: true });
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
