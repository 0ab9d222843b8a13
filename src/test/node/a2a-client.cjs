// Drives the A2A server with the official A2A JavaScript SDK's client (@a2a-js/sdk from npm) and checks what it gets.
// Run by dev.toolcall.a2a.A2aNodeClientTest (and, with A2A_MODE=two, by dev.toolcall.postgres.A2aTwoInstancesTest):
// NODE_PATH points at the installed client (.ci/ensure-a2a-client.sh), A2A_URL (and A2A_URL_B) at the servers,
// A2A_TOKENS is {contextId: token}. Prints "N passed, M failed" last; exits 1 when a check failed.
'use strict';
const { ClientFactory } = require('@a2a-js/sdk/client');
const { Role, TaskState } = require('@a2a-js/sdk');

const tokens = JSON.parse(process.env.A2A_TOKENS);
let passed = 0;
let failed = 0;
function check(cond, what) {
  if (cond) {
    passed++;
  } else {
    failed++;
    console.log('FAILED: ' + what);
  }
}
const auth = ctx => ({ serviceParameters: { Authorization: 'Bearer ' + tokens[ctx] } });
let n = 0;
const text = (ctx, t, taskId) => ({
  message: { messageId: 'm-' + (++n), role: Role.ROLE_USER, contextId: ctx, taskId: taskId || '',
    parts: [{ content: { $case: 'text', value: t }, mediaType: 'text/plain', filename: '' }] },
});
const decide = (ctx, taskId, decisions) => ({
  message: { messageId: 'm-' + (++n), role: Role.ROLE_USER, contextId: ctx, taskId,
    parts: [{ content: { $case: 'data', value: { v: 1, decisions } }, mediaType: 'application/json', filename: '' }] },
});

async function collect(gen) {
  const events = [];
  for await (const e of gen) events.push(e.payload);
  return events;
}
const last = events => events[events.length - 1];
const stateOf = e => e.$case === 'task' ? e.value.status.state : e.$case === 'statusUpdate' ? e.value.status.state : null;
const dataParts = msg => (msg && msg.parts || []).filter(p => p.content && p.content.$case === 'data').map(p => p.content.value);
const textOf = msg => (msg && msg.parts || []).filter(p => p.content && p.content.$case === 'text').map(p => p.content.value).join('\n');

/** Starts a turn by stream; returns {taskId, events, interrupts} once the stream ended. */
async function start(client, ctx, t) {
  const events = await collect(client.sendMessageStream(text(ctx, t), auth(ctx)));
  const first = events[0];
  const end = last(events);
  const status = end.$case === 'statusUpdate' ? end.value.status : end.value.status;
  return { taskId: first.value.id, contextId: first.value.contextId, events, state: stateOf(end), status,
    interrupts: dataParts(status.message).filter(d => d.type === 'interrupt') };
}

async function expectError(promise, code, what) {
  try {
    await promise;
    check(false, what + ': expected error ' + code + ', got a result');
  } catch (e) {
    const got = e.envelopeCode !== undefined ? e.envelopeCode : (e.cause && e.cause.envelopeCode);
    check(got === code || String(e.message).includes('Code: ' + code), what + ': expected code ' + code + ', got ' + got + ' ' + e.message);
    return e;
  }
}

async function rpc(url, body, headers) {
  const r = await fetch(url, { method: 'POST', headers: Object.assign({ 'Content-Type': 'application/json' }, headers || {}), body });
  const txt = await r.text();
  let json = null;
  try { json = JSON.parse(txt); } catch (e) { /* not JSON */ }
  return { status: r.status, json };
}

async function single(base) {
  const factory = new ClientFactory();
  const client = await factory.createFromUrl(base);
  const card = client.agentCard;
  check(card.capabilities.streaming === true, 'the card says streaming');
  check(card.supportedInterfaces.some(i => i.protocolBinding === 'JSONRPC' && i.protocolVersion === '1.0'), 'the card lists JSON-RPC 1.0');
  const endpoint = card.supportedInterfaces[0].url;

  // 1. An approval: input-required with the interrupt as a data part, answered on the same task.
  const a = await start(client, 'ctx-approve', 'deploy web');
  check(a.state === TaskState.TASK_STATE_INPUT_REQUIRED, 'approve: the stream ends input-required, was ' + a.state);
  check(a.events[0].$case === 'task', 'approve: the stream starts with the task');
  check(a.events.some(e => e.$case === 'statusUpdate' && e.value.status.state === TaskState.TASK_STATE_WORKING
    && dataParts(e.value.status.message).some(d => d.type === 'call.state')), 'approve: call events stream as working updates');
  check(a.interrupts.length === 1 && a.interrupts[0].toolName === 'deploy' && a.interrupts[0].v === 1, 'approve: one interrupt in the wire format');
  const i = a.interrupts[0];
  const done = await collect(client.sendMessageStream(decide('ctx-approve', a.taskId,
    [{ requestId: i.requestId, argumentsVersion: i.argumentsVersion, decision: 'approve_once' }]), auth('ctx-approve')));
  const end = last(done);
  check(stateOf(end) === TaskState.TASK_STATE_COMPLETED, 'approve: the answer completes the task, was ' + stateOf(end));
  check(done.some(e => e.$case === 'artifactUpdate' && textOf(e.value.artifact) === 'result: deployed web'), 'approve: the answer is an artifact');
  check(dataParts(end.value.status.message).some(d => d.type === 'decision.result' && d.status === 'accepted'), 'approve: the decision is reported accepted');
  const got = await client.getTask({ id: a.taskId, historyLength: 10 }, auth('ctx-approve'));
  check(got.status.state === TaskState.TASK_STATE_COMPLETED && got.artifacts.length === 1 && got.history.length >= 3, 'approve: getTask shows the completed task with its history');

  // 2. A replayed answer on the ended task is refused; replayed decisions on a new task are reported, not applied.
  await expectError(client.sendMessage(decide('ctx-approve', a.taskId,
    [{ requestId: i.requestId, argumentsVersion: i.argumentsVersion, decision: 'approve_once' }]), auth('ctx-approve')), -32004, 'replay on an ended task');
  const a2 = await start(client, 'ctx-approve', 'deploy db');
  const replay = await client.sendMessage(decide('ctx-approve', a2.taskId,
    [{ requestId: i.requestId, argumentsVersion: i.argumentsVersion, decision: 'approve_once' }]), auth('ctx-approve'));
  check(replay.status.state === TaskState.TASK_STATE_INPUT_REQUIRED, 'replayed decision: the task waits again, was ' + replay.status.state);
  check(dataParts(replay.status.message).some(d => d.type === 'decision.result' && (d.status === 'unknown_request' || d.status === 'already_answered')),
    'replayed decision: reported unknown or already answered');
  const i2 = dataParts(replay.status.message).find(d => d.type === 'interrupt');
  check(i2 && i2.toolName === 'deploy', 'replayed decision: the open request is listed again');

  // 3. A denial with a reason: the model is told the reason.
  const denied = await client.sendMessage(decide('ctx-approve', a2.taskId,
    [{ requestId: i2.requestId, argumentsVersion: i2.argumentsVersion, decision: 'deny', reason: 'not on a Friday' }]), auth('ctx-approve'));
  check(denied.status.state === TaskState.TASK_STATE_COMPLETED, 'deny: completed, was ' + denied.status.state);
  check(textOf(denied.status.message).includes('not on a Friday'), 'deny: the model was told the reason: ' + textOf(denied.status.message));

  // 4. An "always" grant: a second turn does not ask again.
  const b = await start(client, 'ctx-always', 'release api');
  const ib = b.interrupts[0];
  const always = await client.sendMessage(decide('ctx-always', b.taskId,
    [{ requestId: ib.requestId, argumentsVersion: ib.argumentsVersion, decision: 'approve_always' }]), auth('ctx-always'));
  check(always.status.state === TaskState.TASK_STATE_COMPLETED, 'always: completed');
  const b2 = await start(client, 'ctx-always', 'release api');
  check(b2.state === TaskState.TASK_STATE_COMPLETED && !b2.events.some(e => stateOf(e) === TaskState.TASK_STATE_INPUT_REQUIRED),
    'always: the second turn ran without asking, ended ' + b2.state);

  // 5. A cancel mid-turn: the running tool is cancelled, the task canceled.
  const stream = client.sendMessageStream(text('ctx-cancel', 'slow'), auth('ctx-cancel'));
  let cancelTaskId = null;
  let canceled = null;
  const seen = [];
  for await (const e of stream) {
    seen.push(e.payload);
    if (e.payload.$case === 'task') cancelTaskId = e.payload.value.id;
    if (!canceled && e.payload.$case === 'statusUpdate' && textOf(e.payload.value.status.message) === 'slow: running') {
      canceled = await client.cancelTask({ id: cancelTaskId }, auth('ctx-cancel'));
    }
  }
  check(canceled && canceled.status.state === TaskState.TASK_STATE_CANCELED, 'cancel: cancelTask answers canceled');
  check(stateOf(last(seen)) === TaskState.TASK_STATE_CANCELED, 'cancel: the stream ends canceled');
  await expectError(client.cancelTask({ id: cancelTaskId }, auth('ctx-cancel')), -32002, 'cancel of an ended task');

  // 6. Nobody answers until the deadline: the request is denied and the task goes on (seen by resubscribing).
  const d = await start(client, 'ctx-deadline', 'quick');
  check(d.state === TaskState.TASK_STATE_INPUT_REQUIRED, 'deadline: input-required first');
  const resub = await collect(client.resubscribeTask({ id: d.taskId }, auth('ctx-deadline')));
  const dEnd = last(resub);
  check(stateOf(dEnd) === TaskState.TASK_STATE_COMPLETED, 'deadline: the task completed by itself, was ' + stateOf(dEnd));
  check(/in time|deadline|denied/i.test(textOf(dEnd.value.status.message)), 'deadline: the model was told it was denied: ' + textOf(dEnd.value.status.message));

  // 7. Hostile input.
  await expectError(client.getTask({ id: a.taskId }, auth('ctx-foreign')), -32001, 'a foreign task id');
  await expectError(client.getTask({ id: 'no-such-task' }, auth('ctx-foreign')), -32001, 'an unknown task id');
  await expectError(client.getTask({ id: a.taskId }, { serviceParameters: {} }), -32001, 'no credential');
  await expectError(client.sendMessage(decide('ctx-foreign', a2.taskId,
    [{ requestId: i2.requestId, argumentsVersion: 0, decision: 'approve_once' }]), auth('ctx-foreign')), -32001, 'answering a foreign task');
  const c = await start(client, 'ctx-race', 'deploy race');
  const ic = c.interrupts[0];
  await expectError(client.sendMessage(decide('ctx-race', c.taskId, [{ requestId: ic.requestId }]), auth('ctx-race')), -32602, 'malformed decisions');
  const answer = () => client.sendMessage(decide('ctx-race', c.taskId,
    [{ requestId: ic.requestId, argumentsVersion: ic.argumentsVersion, decision: 'approve_once' }]), auth('ctx-race'));
  const both = await Promise.allSettled([answer(), answer()]);
  const won = both.filter(r => r.status === 'fulfilled');
  const lost = both.filter(r => r.status === 'rejected');
  check(won.length === 1 && won[0].value.status.state === TaskState.TASK_STATE_COMPLETED, 'two clients: exactly one answer is taken');
  check(lost.length === 1 && (lost[0].reason.envelopeCode === -32004), 'two clients: the other is told -32004: ' + (lost[0] && lost[0].reason.message));

  const h = { Authorization: 'Bearer ' + tokens['ctx-approve'] };
  let r = await rpc(endpoint, '{"jsonrpc":"2.0","id":1,', h);
  check(r.json && r.json.error.code === -32700, 'malformed JSON: -32700');
  r = await rpc(endpoint, '{"jsonrpc":"2.0","id":1,"id":2,"method":"GetTask","params":{"id":"x"}}', h);
  check(r.json && r.json.error.code === -32700, 'duplicate keys: -32700');
  r = await rpc(endpoint, '{"jsonrpc":"1.0","id":1,"method":"GetTask","params":{"id":"x"}}', h);
  check(r.json && r.json.error.code === -32600, 'not JSON-RPC 2.0: -32600');
  r = await rpc(endpoint, '[{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}]', h);
  check(r.json && r.json.error.code === -32600, 'a batch: -32600');
  r = await rpc(endpoint, '{"jsonrpc":"2.0","id":1,"method":"DoSomething","params":{}}', h);
  check(r.json && r.json.error.code === -32601, 'unknown method: -32601');
  r = await rpc(endpoint, '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER"}}}', h);
  check(r.json && r.json.error.code === -32602, 'bad params: -32602');
  r = await rpc(endpoint, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: text('ctx-approve', 'x'.repeat(300 * 1024)) }), h);
  check(r.status === 413 && r.json.error.code === -32600, 'oversized body: 413, was ' + r.status);
  r = await rpc(endpoint, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: a.taskId } }),
    Object.assign({ Origin: 'http://evil.example' }, h));
  check(r.status === 403, 'a cross-site Origin: 403, was ' + r.status);

  // 8. The 0.3 method names answer in the 0.3 shapes.
  r = await rpc(endpoint, JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 'tasks/get', params: { id: a.taskId } }), h);
  check(r.json && r.json.result.kind === 'task' && r.json.result.status.state === 'completed'
    && r.json.result.artifacts[0].parts[0].kind === 'text', 'tasks/get answers 0.3 shapes');
}

async function two(baseA, baseB) {
  const a = await new ClientFactory().createFromUrl(baseA);
  const b = await new ClientFactory().createFromUrl(baseB);
  const t = await start(a, 'ctx-two', 'deploy shared');
  check(t.state === TaskState.TASK_STATE_INPUT_REQUIRED, 'two: input-required on A');
  const onB = await b.getTask({ id: t.taskId }, auth('ctx-two'));
  check(onB.status.state === TaskState.TASK_STATE_INPUT_REQUIRED, 'two: B reads the task A started');
  const i = t.interrupts[0];
  const done = await collect(b.sendMessageStream(decide('ctx-two', t.taskId,
    [{ requestId: i.requestId, argumentsVersion: i.argumentsVersion, decision: 'approve_once' }]), auth('ctx-two')));
  check(stateOf(last(done)) === TaskState.TASK_STATE_COMPLETED, 'two: the answer on B completes the task, was ' + stateOf(last(done)));
  check(done.some(e => e.$case === 'artifactUpdate' && textOf(e.value.artifact) === 'result: deployed shared'), 'two: B ran the approved tool');
  const onA = await a.getTask({ id: t.taskId }, auth('ctx-two'));
  check(onA.status.state === TaskState.TASK_STATE_COMPLETED, 'two: A reads it completed');
  await expectError(a.sendMessage(decide('ctx-two', t.taskId,
    [{ requestId: i.requestId, argumentsVersion: i.argumentsVersion, decision: 'approve_once' }]), auth('ctx-two')), -32004, 'two: a replay on A');
}

(async () => {
  try {
    if (process.env.A2A_MODE === 'two') {
      await two(process.env.A2A_URL, process.env.A2A_URL_B);
    } else {
      await single(process.env.A2A_URL);
    }
  } catch (e) {
    failed++;
    console.log('FAILED: ' + (e && e.stack || e));
  }
  console.log(passed + ' passed, ' + failed + ' failed');
  process.exit(failed === 0 ? 0 : 1);
})();
