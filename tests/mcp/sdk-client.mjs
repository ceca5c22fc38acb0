// tests/mcp/sdk-client.mjs: `artemis-gitops mcp` driven by the official
// TypeScript SDK's Client over its StdioClientTransport (the SDK spawns the
// server, as an MCP client application does). Run by
// tests/integration/98-mcp-sdk.sh, which sets up the brokers and reads the
// results: one `ok - NAME` / `not ok - NAME` line per check (a failure's
// detail on `# ` lines after it), and AG_MCP_OUT, a JSON file of what the
// shell checks next (the previews' folders).
//
// Environment: AG_MCP_MODULES (the node_modules folder scripts/mcp-deps
// installed), AG_MCP_BIN, AG_MCP_ARGS (a JSON array of the server's
// arguments), AG_MCP_STDERR (the server's log), AG_MCP_OUT, AG_MCP_CLUSTER,
// AG_MCP_QUEUE (a queue with a consumer on every node, the last one on an
// address that AG_MCP_DIVERT forwards into), AG_MCP_SOURCE_DIVERT (a divert
// sourced at that address), AG_MCP_TAP (a capture tap on it), AG_MCP_COMMIT
// (the repository's head commit).
import { openSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(process.env.AG_MCP_MODULES + '/');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { LATEST_PROTOCOL_VERSION, McpError, EmptyResultSchema } =
  require('@modelcontextprotocol/sdk/types.js');

const env = process.env;
const cluster = env.AG_MCP_CLUSTER;
const queue = env.AG_MCP_QUEUE;
const divert = env.AG_MCP_DIVERT;
const sourceDivert = env.AG_MCP_SOURCE_DIVERT;
const tap = env.AG_MCP_TAP;
const commit = env.AG_MCP_COMMIT;
const out = {};

function check(name, ok, detail) {
  console.log(`${ok ? 'ok' : 'not ok'} - ${name}`);
  if (!ok && detail !== undefined) {
    const text = typeof detail === 'string' ? detail : JSON.stringify(detail, null, 1);
    for (const line of text.split('\n').slice(0, 40)) console.log(`# ${line}`);
  }
  return ok;
}

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  return r;
}

const transport = new StdioClientTransport({
  command: env.AG_MCP_BIN,
  args: JSON.parse(env.AG_MCP_ARGS),
  env: { ...process.env },
  stderr: openSync(env.AG_MCP_STDERR, 'a'),
});
const client = new Client({ name: 'artemis-gitops-sdk-test', version: '1.0.0' });

try {
  await client.connect(transport);
  check('the SDK client connects (initialize, initialized)', true);
  const info = client.getServerVersion();
  check('serverInfo names artemis-gitops', info?.name === 'artemis-gitops', info);
  check(`the SDK speaks ${LATEST_PROTOCOL_VERSION}, which the server accepted`,
    LATEST_PROTOCOL_VERSION === '2025-11-25', LATEST_PROTOCOL_VERSION);
  const caps = client.getServerCapabilities();
  check('capabilities: tools and resources, nothing else',
    JSON.stringify(Object.keys(caps).sort()) === '["resources","tools"]', caps);
  check('instructions say a person approves',
    /a person/.test(client.getInstructions() ?? ''), client.getInstructions());

  // ---- tools/list ----
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  check('tools/list: the six tools',
    JSON.stringify(names) === JSON.stringify(['explain', 'list_clusters', 'plan_cluster',
      'plan_delete_queue', 'snapshot', 'validate']), names);
  check('no tool approves or applies', !names.some((n) => /approve|apply/.test(n)), names);
  check('every tool has an object input schema and a description',
    tools.every((t) => t.inputSchema?.type === 'object' && t.description), tools);
  const pdq = tools.find((t) => t.name === 'plan_delete_queue');
  check('plan_delete_queue: disconnect_consumers a boolean, default false',
    pdq?.inputSchema?.properties?.disconnect_consumers?.type === 'boolean' &&
      pdq.inputSchema.properties.disconnect_consumers.default === false, pdq);
  check('read tools are annotated read-only, plan tools are not',
    tools.every((t) => t.annotations?.readOnlyHint === !t.name.startsWith('plan_')), tools);

  // ---- list_clusters, validate, snapshot (the read-only user) ----
  let r = await call(client, 'list_clusters', {});
  const c = r.structuredContent?.clusters?.find((x) => x.name === cluster);
  check('list_clusters: the cluster, every node reachable',
    !r.isError && c && c.nodes.length > 0 && c.nodes.every((n) => n.reachable === true && n.state === 'OK'), r);
  r = await call(client, 'validate', { cluster });
  check('validate: valid, as `validate --format json` says',
    !r.isError && r.structuredContent?.valid === true && r.structuredContent.format === 1, r);
  r = await call(client, 'snapshot', { cluster, match: queue });
  check('snapshot: the queue on every node, with its consumer',
    !r.isError && r.structuredContent.nodes.every((n) =>
      n.queues.length === 1 && n.queues[0].name === queue && n.queues[0].consumers === 1), r);

  // ---- explain a queue with a dependent divert ----
  r = await call(client, 'explain', { cluster, queue });
  const nodes = r.structuredContent?.nodes ?? [];
  check('explain: the queue on every node', !r.isError && nodes.length > 0 &&
    nodes.every((n) => n.has_queue === true), r);
  check(`explain: ${divert} forwards into the queue's address and goes with a delete`,
    nodes.length > 0 && nodes.every((n) => n.diverts_forwarding_into?.some((d) =>
      d.name === divert && d.removed_with_a_delete === true) &&
      n.delete?.removes_diverts?.some((d) => d.name === divert)), nodes);
  check(`explain: ${sourceDivert} reads from the address and is kept, with its reason`,
    nodes.length > 0 && nodes.every((n) => n.diverts_reading_from?.some((d) => d.name === sourceDivert) &&
      n.delete?.keeps_diverts?.some((d) => d.name === sourceDivert && d.reason)), nodes);
  check(`explain: the capture tap ${tap} on the address is named, kept by a delete`,
    nodes.length > 0 && nodes.every((n) => n.diverts_reading_from?.some((d) => d.name === tap && d.capture_tap === true) &&
      n.delete?.capture_taps?.some((t) => t.name === tap && t.fate === 'kept') &&
      !n.delete.removes_diverts.some((d) => d.name === tap)), nodes);
  check('explain: a delete without the flag is refused HAS_CONSUMERS (the preflight, read-only)',
    r.structuredContent?.delete_preflight?.outcome === 'REFUSED' &&
      nodes.every((n) => n.delete?.refusal === 'HAS_CONSUMERS'), r.structuredContent);
  check('explain wrote no preview', !/Preview:/.test(r.content[0].text), r.content);

  // ---- plan_delete_queue without the flag: refused, count and flag named ----
  r = await call(client, 'plan_delete_queue', { cluster, queue });
  let s = r.structuredContent;
  check('plan_delete_queue (no flag): REFUSED', !r.isError && s?.outcome === 'REFUSED', r);
  check('... disconnect_consumers false by default', s?.disconnect_consumers === false, s);
  const refused = (s?.steps ?? []).filter((x) => x.action === 'delete-queue');
  check('... every node refused HAS_CONSUMERS with the count and the flag named',
    refused.length > 0 && refused.every((x) => x.refusal === 'HAS_CONSUMERS' && x.consumers === 1 &&
      /1 consumer/.test(x.message) && /disconnect.consumers/.test(x.message + ' ' + (x.next_step ?? ''))), refused);
  check('... not approvable, no confirmation', s?.approvable === false && s?.confirmation === null, s);
  out.refused = s?.preview?.dir ?? null;

  // ---- with the flag: warned, approvable by a person ----
  r = await call(client, 'plan_delete_queue', { cluster, queue, disconnect_consumers: true });
  s = r.structuredContent;
  check('plan_delete_queue (disconnect_consumers true): WOULD_APPLY', !r.isError && s?.outcome === 'WOULD_APPLY', r);
  const warned = (s?.steps ?? []).filter((x) => x.action === 'delete-queue');
  check('... every node warned with the consumer count',
    warned.length > 0 && warned.every((x) => x.warnings.some((w) => /1 consumer/.test(w))), warned);
  check(`... ${divert} removed with it on every node`,
    warned.every((x) => x.removes_diverts.includes(divert)), warned);
  check('... approvable, with its confirmation text and the approve command for a person',
    s?.approvable === true && typeof s.confirmation === 'string' && s.confirmation.length > 0 &&
      s.preview?.approve_with_cli?.includes('artemis-gitops approve'), s);
  check('... the text tells the assistant to show the preview to a person',
    /Show this plan\.md to a person/.test(r.content[0].text) && /neither approve nor apply/.test(r.content[0].text),
    r.content);
  out.warned = s?.preview?.dir ?? null;
  out.confirmation = s?.confirmation ?? null;

  // ---- the preview as a resource ----
  const md = await client.readResource({ uri: s.preview.plan_md });
  check('resources/read plan.md: the preview, naming the queue and the divert',
    md.contents[0].mimeType === 'text/markdown' && md.contents[0].text.includes(queue) &&
      md.contents[0].text.includes(divert), md.contents[0].text.slice(0, 2000));
  const pj = await client.readResource({ uri: s.preview.plan_json });
  const plan = JSON.parse(pj.contents[0].text);
  check('resources/read plan.json: disconnect_consumers recorded true',
    plan.disconnect_consumers === true && plan.kind === 'delete-queue', plan);
  const { resources } = await client.listResources();
  check('resources/list: both previews and the audit rows',
    resources.some((x) => x.uri === s.preview.plan_md) &&
      resources.some((x) => x.uri === `artemis-gitops://audit/${cluster}`), resources.map((x) => x.uri));
  const templates = await client.listResourceTemplates();
  check('resources/templates/list: the URI templates',
    templates.resourceTemplates.some((t) => t.uriTemplate.includes('{preview}')), templates);
  try {
    await client.readResource({ uri: `artemis-gitops://previews/${cluster}/../../etc/plan.md` });
    check('resources/read of a path outside the outbox: refused', false, 'it answered');
  } catch (e) {
    check('resources/read of a path outside the outbox: refused (-32002)', e instanceof McpError && e.code === -32002, String(e));
  }

  // ---- bad input the SDK lets through ----
  try {
    await call(client, 'approve', { cluster });
    check('an unknown tool (approve): an error', false, 'it answered');
  } catch (e) {
    check('an unknown tool (approve): -32602 Unknown tool', e instanceof McpError && e.code === -32602 &&
      /Unknown tool/.test(e.message), String(e));
  }
  r = await call(client, 'plan_delete_queue', { cluster, queue: 5 });
  check('a wrong argument type: a tool execution error naming it (2025-11-25)',
    r.isError === true && /argument 'queue' must be a string/.test(r.content[0].text), r);
  r = await call(client, 'explain', { cluster, queue, extra: true });
  check('an unknown argument: a tool execution error naming it',
    r.isError === true && /unknown argument 'extra'/.test(r.content[0].text), r);
  r = await call(client, 'plan_delete_queue', { cluster, queue: '__capture.x' });
  check('a queue of the reserved capture prefix: refused as delete-queue refuses it, no preview',
    r.isError === true && /reserved capture prefix '__capture\.'/.test(r.content[0].text), r);
  r = await call(client, 'snapshot', { cluster: 'no-such-cluster' });
  check('an unknown cluster: a tool execution error naming the clusters there',
    r.isError === true && r.content[0].text.includes(`'${cluster}'`), r);
  try {
    await client.request({ method: 'prompts/list', params: {} }, EmptyResultSchema);
    check('an unknown method: an error', false, 'it answered');
  } catch (e) {
    check('an unknown method: -32601', e instanceof McpError && e.code === -32601, String(e));
  }
  r = await call(client, 'plan_cluster', { cluster, revision: commit });
  check('plan_cluster at the commit: planned at that revision, nothing to do (the declaration declares no object)',
    !r.isError && r.structuredContent?.revision === commit && r.structuredContent?.outcome === 'NO_CHANGE' &&
      r.structuredContent?.preview === null, r);
  r = await call(client, 'plan_cluster', { cluster, revision: 'no-such-branch' });
  check('plan_cluster at a revision the repository does not have: a tool execution error naming it',
    r.isError === true && /no-such-branch/.test(r.content[0].text), r);
  out.plan = r.structuredContent?.preview?.dir ?? null;
} catch (e) {
  check('the SDK session', false, e?.stack ?? String(e));
} finally {
  writeFileSync(env.AG_MCP_OUT, JSON.stringify(out));
  await client.close();
}
