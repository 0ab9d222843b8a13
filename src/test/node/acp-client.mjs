// Drives the Java ACP agent with the official Agent Client Protocol TypeScript SDK (@agentclientprotocol/sdk from
// npm, its client side), starting the agent as a subprocess the way an editor does. Run by
// dev.toolcall.acp.AcpNodeClientTest: ACP_CLIENT_DIR is the folder whose node_modules holds the SDK
// (.ci/ensure-acp-client.sh), ACP_AGENT is the agent's command line as a JSON array. Prints "N passed, N failed".
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { Readable, Writable } from 'node:stream';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const require = createRequire(process.env.ACP_CLIENT_DIR + '/package.json');
const acp = await import(pathToFileURL(require.resolve('@agentclientprotocol/sdk')).href);
const command = JSON.parse(process.env.ACP_AGENT);

let checks = 0;
function check(cond, what) { assert.ok(cond, what); checks++; }

function startAgent() {
  const child = spawn(command[0], command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  return child;
}

const text = (u) => u.content && u.content.type === 'text' ? u.content.text : '';

/** One editor: the SDK's client app, with a permission handler each scenario sets. */
async function withEditor(op) {
  const child = startAgent();
  const updates = new Map(); // sessionId -> [update]
  const asked = [];
  let onPermission = async () => { throw new Error('no permission handler set'); };
  const app = acp.client({ name: 'toolcall-acp-test' })
    .onRequest(acp.methods.client.session.requestPermission, (ctx) => {
      asked.push(ctx.params);
      return onPermission(ctx);
    })
    .onNotification(acp.methods.client.session.update, (ctx) => {
      const list = updates.get(ctx.params.sessionId) || [];
      list.push(ctx.params.update);
      updates.set(ctx.params.sessionId, list);
    });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  try {
    return await app.connectWith(stream, async (agent) => {
      const init = await agent.request(acp.methods.agent.initialize,
        { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } });
      check(init.protocolVersion === acp.PROTOCOL_VERSION, 'initialize: the protocol version agreed: ' + JSON.stringify(init));
      check(init.agentCapabilities.loadSession === true, 'initialize: loadSession offered');
      const ed = {
        agent, updates, asked,
        set permission(fn) { onPermission = fn; },
        async newSession() {
          return (await agent.request(acp.methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] })).sessionId;
        },
        prompt(sessionId, words) {
          return agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: words }] });
        },
        of(sessionId, kind) { return (updates.get(sessionId) || []).filter(u => u.sessionUpdate === kind); },
      };
      return await op(ed);
    });
  } finally {
    child.stdin.end();
    await new Promise(res => child.once('exit', res));
  }
}

const selected = (optionId, meta) => ({ outcome: { outcome: 'selected', optionId }, ...(meta ? { _meta: meta } : {}) });

async function scenarios() {
  await withEditor(async (ed) => {
    { // approve once
      const s = await ed.newSession();
      ed.permission = async (ctx) => {
        const p = ctx.params;
        check(p.sessionId === s && p.toolCall.title === 'shell: echo hi' && p.toolCall.rawInput.command === 'echo hi',
          'approve: the request names the call: ' + JSON.stringify(p.toolCall));
        check(JSON.stringify(p.options.map(o => o.kind)) ===
          JSON.stringify(['allow_once', 'allow_always', 'allow_always', 'reject_once', 'reject_always']), 'approve: the options');
        return selected('allow_once');
      };
      const r = await ed.prompt(s, 'run echo hi');
      check(r.stopReason === 'end_turn', 'approve: end_turn, got ' + r.stopReason);
      const calls = ed.of(s, 'tool_call');
      check(calls.length === 1 && calls[0].status === 'pending' && calls[0].kind === 'execute', 'approve: one tool_call, pending');
      const statuses = ed.of(s, 'tool_call_update').filter(u => u.status).map(u => u.status);
      check(JSON.stringify(statuses) === JSON.stringify(['in_progress', 'completed']), 'approve: statuses ' + statuses);
      const done = ed.of(s, 'tool_call_update').find(u => u.status === 'completed');
      check(done.content[0].content.text === 'ran: echo hi', 'approve: the result as content');
      check(ed.of(s, 'agent_message_chunk').map(text).join('') === 'Let me do that. tool said: ran: echo hi', 'approve: the answer streamed');
    }
    { // reject with a reason
      const s = await ed.newSession();
      ed.permission = async () => selected('reject_once', { reason: 'not on a Friday' });
      const r = await ed.prompt(s, 'run rm -rf build');
      check(r.stopReason === 'end_turn', 'deny: end_turn');
      const failed = ed.of(s, 'tool_call_update').find(u => u.status === 'failed');
      check(failed && failed.content[0].content.text.includes('not on a Friday'), 'deny: the reason reached the model: ' + JSON.stringify(failed));
      check(ed.of(s, 'agent_message_chunk').map(text).join('').includes('not on a Friday'), 'deny: and its answer');
    }
    { // cancel mid-turn, a permission pending: answered cancelled, as the protocol says the client must
      const s = await ed.newSession();
      let release;
      const cancelled = new Promise(res => { release = res; });
      ed.permission = async () => { await cancelled; return { outcome: { outcome: 'cancelled' } }; };
      const turn = ed.prompt(s, 'run echo never');
      while (ed.asked.filter(p => p.sessionId === s).length === 0) { await new Promise(res => setTimeout(res, 20)); }
      await ed.agent.notify(acp.methods.agent.session.cancel, { sessionId: s });
      release();
      const r = await turn;
      check(r.stopReason === 'cancelled', 'cancel: stopReason cancelled, got ' + r.stopReason);
      check(ed.of(s, 'tool_call_update').some(u => u.status === 'failed'), 'cancel: the call marked failed');
    }
    { // nobody answers: the deadline denies, and the agent withdraws the request ($/cancel_request)
      const s = await ed.newSession();
      let aborted = false;
      ed.permission = (ctx) => new Promise((res, rej) => {
        ctx.signal.addEventListener('abort', () => { aborted = true; rej(ctx.signal.reason); });
      });
      const r = await ed.prompt(s, 'deploy now');
      check(r.stopReason === 'end_turn', 'deadline: the turn went on and ended');
      check(aborted, 'deadline: the request was withdrawn');
      const failed = ed.of(s, 'tool_call_update').find(u => u.status === 'failed');
      check(failed && /in time/i.test(failed.content[0].content.text), 'deadline: the call failed as timed out: ' + JSON.stringify(failed));
    }
    { // the session loads again, its history replayed
      const s = await ed.newSession();
      ed.permission = async () => selected('allow_once');
      await ed.prompt(s, 'run echo one');
      ed.updates.set(s, []);
      await ed.agent.request(acp.methods.agent.session.load, { sessionId: s, cwd: process.cwd(), mcpServers: [] });
      check(ed.of(s, 'user_message_chunk').map(text).join('|') === 'run echo one', 'load: the user message replayed');
      check(ed.of(s, 'tool_call').length === 1 && ed.of(s, 'tool_call_update')[0].status === 'completed', 'load: the call replayed');
    }
    { // always (last: the grant covers every later call of the tool): a second turn does not ask
      const s = await ed.newSession();
      ed.permission = async () => selected('allow_always');
      const before = ed.asked.length;
      await ed.prompt(s, 'run echo a');
      ed.permission = async () => { throw new Error('asked again after allow_always'); };
      const r = await ed.prompt(s, 'run echo b');
      check(r.stopReason === 'end_turn', 'always: the second turn ended');
      check(ed.asked.length === before + 1, 'always: one request for two turns');
      check(ed.of(s, 'tool_call_update').filter(u => u.status === 'completed').length === 2, 'always: both ran');
    }
  });
}

/** Raw lines to an agent, without the SDK: what a broken or hostile client sends. */
async function hostile() {
  const child = startAgent();
  const lines = createInterface({ input: child.stdout });
  const inbox = [];
  let wake = () => {};
  lines.on('line', l => { inbox.push(JSON.parse(l)); wake(); });
  const send = (o) => child.stdin.write((typeof o === 'string' ? o : JSON.stringify(o)) + '\n');
  async function next(pred) {
    const deadline = Date.now() + 10000;
    while (true) {
      const i = inbox.findIndex(pred);
      if (i >= 0) { return inbox.splice(i, 1)[0]; }
      if (Date.now() > deadline) { throw new Error('nothing matched; got ' + JSON.stringify(inbox)); }
      await new Promise(res => { wake = res; setTimeout(res, 100); });
    }
  }
  const reply = (id) => next(m => m.id === id && !m.method);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } });
  await reply(1);
  send({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: process.cwd(), mcpServers: [] } });
  const s = (await reply(2)).result.sessionId;
  send('{"jsonrpc":"2.0","id":3,"method":');
  check((await next(m => m.error && m.error.code === -32700)).id === null, 'hostile: malformed JSON is a parse error');
  send('{"jsonrpc":"2.0","id":4,"method":"x","params":"' + 'a'.repeat(70000) + '"}');
  check((await next(m => m.error && m.error.code === -32600)).id === null, 'hostile: an oversized line is refused');
  send({ jsonrpc: '2.0', id: 5, method: 'session/fork', params: {} });
  check((await reply(5)).error.code === -32601, 'hostile: unknown method');
  send({ jsonrpc: '2.0', id: 6, method: 'session/prompt', params: { sessionId: s, prompt: 'run x' } });
  check((await reply(6)).error.code === -32602, 'hostile: wrong params');
  send({ jsonrpc: '2.0', id: 7, method: 'session/prompt', params: { sessionId: 'acp-foreign', prompt: [{ type: 'text', text: 'run x' }] } });
  check((await reply(7)).error.code === -32002, 'hostile: unknown session');
  send({ jsonrpc: '2.0', id: 8, method: 'session/prompt', params: { sessionId: s, prompt: [{ type: 'text', text: 'run echo guarded' }] } });
  const ask = await next(m => m.method === 'session/request_permission');
  send({ jsonrpc: '2.0', id: ask.id + 1000, result: selected('allow_once') });        // an id never asked
  send({ jsonrpc: '2.0', id: String(ask.id), result: selected('allow_once') });        // the id as a string
  send({ jsonrpc: '2.0', id: ask.id, result: selected('reject_once', { reason: 'first answer' }) });
  send({ jsonrpc: '2.0', id: ask.id, result: selected('allow_once') });               // a replay
  const end = await reply(8);
  check(end.result.stopReason === 'end_turn', 'hostile: the turn ended');
  const failed = inbox.concat([]).map(m => m.params && m.params.update).filter(u => u && u.status === 'failed');
  check(failed.length === 1 && failed[0].content[0].content.text.includes('first answer'), 'hostile: the first answer decided: ' + JSON.stringify(failed));
  send({ jsonrpc: '2.0', id: 9, method: 'initialize', params: { protocolVersion: 1 } });
  check((await reply(9)).result.protocolVersion === 1, 'hostile: the connection still answers');
  child.stdin.end();
  await new Promise(res => child.once('exit', res));
}

try {
  await scenarios();
  await hostile();
  console.log(checks + ' passed, 0 failed');
} catch (e) {
  console.error(e && e.stack || e);
  console.log(checks + ' passed, 1 failed');
  process.exit(1);
}
