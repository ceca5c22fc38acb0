// tests/mcp/http-bridge.mjs: the MCP conformance suite drives a server
// over Streamable HTTP only (`conformance server --url`; a stdio mode is
// its open issue #258), and `artemis-gitops mcp` speaks stdio only. This
// bridge joins the two with the official SDK's own transports and nothing
// of its own in between: each HTTP session the suite opens (an initialize
// without a session id) gets a StreamableHTTPServerTransport (the SDK's
// server side of HTTP: sessions, SSE, JSON responses) and a fresh server
// process behind a StdioClientTransport (the SDK's client side of stdio),
// and every JSON-RPC message is passed from one to the other as it is. So
// every MCP answer the suite judges is the server's own; what the HTTP
// layer does (status codes, session ids, Host checks) is the SDK's, and
// the scenarios that judge only that are not run (98-mcp-conformance.sh
// says which).
//
//   node tests/mcp/http-bridge.mjs NODE_MODULES PORT_FILE COMMAND ARGS...
//
// listens on 127.0.0.1 (an ephemeral port, written to PORT_FILE), path
// /mcp; stops on SIGTERM, closing every server process's stdin.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

const [modules, portFile, command, ...args] = process.argv.slice(2);
const require = createRequire(modules + '/');
const { StreamableHTTPServerTransport } =
  require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const sessions = new Map();

function isInitialize(body) {
  const all = Array.isArray(body) ? body : [body];
  return all.some((m) => m && typeof m === 'object' && m.method === 'initialize');
}

async function open() {
  const stdio = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: 'inherit' });
  const http = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, { http, stdio }),
  });
  http.onmessage = (m) => stdio.send(m).catch((e) => console.error('bridge: to the server:', e));
  stdio.onmessage = (m) => http.send(m).catch((e) => console.error('bridge: to the client:', e));
  http.onclose = () => {
    if (http.sessionId) sessions.delete(http.sessionId);
    stdio.close().catch(() => {});
  };
  stdio.onclose = () => http.close().catch(() => {});
  await stdio.start();
  await http.start();
  return http;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function reject(res, status, code, message) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

const server = createServer(async (req, res) => {
  try {
    if (new URL(req.url, 'http://127.0.0.1').pathname !== '/mcp')
      return reject(res, 404, -32000, 'Not Found: the endpoint is /mcp');
    const sid = req.headers['mcp-session-id'];
    const known = sid !== undefined ? sessions.get(sid) : undefined;
    let body;
    if (req.method === 'POST') {
      const text = await readBody(req);
      try {
        body = JSON.parse(text);
      } catch (e) {
        return reject(res, 400, -32700, `Parse error: ${e.message}`);
      }
    }
    if (known) return await known.http.handleRequest(req, res, body);
    if (sid === undefined && req.method === 'POST' && isInitialize(body))
      return await (await open()).handleRequest(req, res, body);
    return reject(res, sid === undefined ? 400 : 404, -32000,
      'Bad Request: no session (send initialize first)');
  } catch (e) {
    console.error('bridge:', e);
    if (!res.headersSent) reject(res, 500, -32603, 'Internal error in the bridge');
  }
});

server.listen(0, '127.0.0.1', () => {
  writeFileSync(portFile, String(server.address().port));
});

process.on('SIGTERM', async () => {
  server.close();
  // each server process's stdin closed, and its exit awaited
  for (const { stdio } of [...sessions.values()]) await stdio.close().catch(() => {});
  process.exit(0);
});
