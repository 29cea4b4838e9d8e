// Preloaded by `npm run test:unit`: a unit test never opens a socket. Listening or connecting throws, so a test that needs
// a server belongs in test/http/ or test/cli/ instead.
import net from 'node:net';

const refuse = (what: string) => () => {
  throw new Error(`unit tests never touch the network (${what}): move this test to test/http/ or test/cli/`);
};
net.Server.prototype.listen = refuse('listen') as never;
net.Socket.prototype.connect = refuse('connect') as never;
