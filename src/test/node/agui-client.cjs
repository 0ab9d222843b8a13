// Drives the AG-UI endpoint with the official TypeScript client (@ag-ui/client from npm) and checks what it gets.
// Run by dev.toolcall.agui.AguiNodeClientTest: NODE_PATH points at the installed client (.ci/ensure-node-client.sh),
// AGUI_URL / AGUI_TIMEOUT_URL at the two servers, AGUI_TOKENS is {threadId: token}.
'use strict';
const assert = require('node:assert/strict');
const { HttpAgent, isInterruptExpired } = require('@ag-ui/client');

const tokens = JSON.parse(process.env.AGUI_TOKENS);
let checks = 0;
function check(cond, what) { assert.ok(cond, what); checks++; }

function agent(url, threadId) {
  return new HttpAgent({ url, threadId, headers: { Authorization: 'Bearer ' + tokens[threadId] } });
}

/** Runs once; returns every event the client applied, in order, and the RUN_FINISHED outcome. */
async function run(a, params) {
  const events = [];
  let finished;
  let error;
  await a.runAgent(params, {
    onEvent({ event }) { events.push(event); },
    onRunFinishedEvent(p) { finished = p; },
    onRunErrorEvent({ event }) { error = event; },
  });
  return { events, finished, error, types: events.map(e => e.type) };
}

function say(a, text) {
  a.addMessage({ id: 'u-' + Math.random().toString(36).slice(2), role: 'user', content: text });
}

async function firstRun(url, threadId, command) {
  const a = agent(url, threadId);
  say(a, 'please run ' + command);
  const r = await run(a, {});
  check(r.types[0] === 'RUN_STARTED', threadId + ': RUN_STARTED first, got ' + r.types.join(','));
  check(r.types.includes('TOOL_CALL_START') && r.types.includes('TOOL_CALL_ARGS') && r.types.includes('TOOL_CALL_END'),
    threadId + ': the tool call streamed: ' + r.types.join(','));
  check(r.finished && r.finished.outcome === 'interrupt', threadId + ': the run ends with an interrupt outcome');
  const [i] = r.finished.interrupts;
  check(r.finished.interrupts.length === 1, threadId + ': one interrupt');
  check(i.reason === 'tool_call' && typeof i.id === 'string' && i.id.length >= 16, threadId + ': interrupt id/reason ' + JSON.stringify(i));
  check(i.toolCallId === r.events.find(e => e.type === 'TOOL_CALL_START').toolCallId, threadId + ': interrupt names the call');
  check(i.responseSchema && i.responseSchema.properties.decision.enum.includes('approve_once'), threadId + ': responseSchema');
  check(!Number.isNaN(Date.parse(i.expiresAt)) && !isInterruptExpired(i), threadId + ': expiresAt in the future');
  const custom = r.events.filter(e => e.type === 'CUSTOM' && e.name === 'on_interrupt');
  check(custom.length === 1 && JSON.parse(custom[0].value).id === i.id, threadId + ': the legacy on_interrupt event');
  check(JSON.stringify(a.pendingInterrupts.map(p => p.id)) === JSON.stringify([i.id]), threadId + ': the client holds the interrupt');
  const argsEvent = r.events.find(e => e.type === "TOOL_CALL_ARGS");
  let args = {};
  try { args = JSON.parse(argsEvent.delta); } catch (e) { /* checked below */ }
  if (args.command !== command) { console.error(JSON.stringify(r.events)); }
  check(args.command === command, threadId + ': the arguments streamed');
  return { a, i };
}

function resultOf(r) {
  const res = r.events.filter(e => e.type === 'TOOL_CALL_RESULT');
  check(res.length === 1, 'one TOOL_CALL_RESULT, got ' + r.types.join(','));
  return res[0].content;
}

function textOf(r) {
  return r.events.filter(e => e.type === 'TEXT_MESSAGE_CONTENT').map(e => e.delta).join('');
}

async function main() {
  const url = process.env.AGUI_URL;

  { // approve
    const { a, i } = await firstRun(url, 'approve', 'echo hi');
    const r = await run(a, { resume: [{ interruptId: i.id, status: 'resolved', payload: { decision: 'approve_once' } }] });
    check(resultOf(r) === 'ran: echo hi', 'approve: the tool ran with the model arguments');
    check(textOf(r) === 'tool said: ran: echo hi', 'approve: the answer streamed: ' + textOf(r));
    check(r.finished.outcome === 'success', 'approve: success');
    check(a.pendingInterrupts.length === 0, 'approve: nothing pending');
    check(a.messages.some(m => m.role === 'tool' && m.content === 'ran: echo hi'), 'approve: the client has the tool message');
  }
  { // deny with a reason
    const { a, i } = await firstRun(url, 'deny', 'rm -rf /tmp/x');
    const r = await run(a, { resume: [{ interruptId: i.id, status: 'resolved', payload: { decision: 'deny', reason: 'not on a Friday' } }] });
    check(resultOf(r).includes('not on a Friday'), 'deny: the model is told the reason: ' + resultOf(r));
    check(textOf(r).includes('not on a Friday'), 'deny: the answer');
    check(r.finished.outcome === 'success', 'deny: success');
  }
  { // edited arguments
    const { a, i } = await firstRun(url, 'edit', 'echo draft');
    const r = await run(a, { resume: [{ interruptId: i.id, status: 'resolved',
      payload: { decision: 'approve_once', arguments: { command: 'echo edited' }, argumentsVersion: i.metadata.argumentsVersion } }] });
    check(resultOf(r) === 'ran: echo edited', 'edit: the tool ran with the edited arguments: ' + resultOf(r));
    check(r.finished.outcome === 'success', 'edit: success');
  }
  { // an older client: answers through forwardedProps.command.resume after the on_interrupt event
    const { a } = await firstRun(url, 'legacy', 'echo old');
    a.pendingInterrupts = []; // a client from before resume entries does not track interrupts
    const r = await run(a, { forwardedProps: { command: { resume: 'approve' } } });
    check(resultOf(r) === 'ran: echo old', 'legacy: approved through forwardedProps.command.resume');
    check(r.finished.outcome === 'success', 'legacy: success');
  }
  { // nobody answers: the deadline passes, the library denies, the client cancels the expired interrupt
    const { a, i } = await firstRun(process.env.AGUI_TIMEOUT_URL, 'timeout', 'echo late');
    while (!isInterruptExpired(i)) { await new Promise(res => setTimeout(res, 100)); }
    await new Promise(res => setTimeout(res, 1500));
    let refused;
    try {
      await run(a, { resume: [{ interruptId: i.id, status: 'resolved', payload: { decision: 'approve_once' } }] });
    } catch (e) { refused = e; }
    check(refused && /expired/.test(String(refused.message)), 'timeout: the client refuses to answer an expired interrupt');
    const r = await run(a, { resume: [{ interruptId: i.id, status: 'cancelled' }] });
    check(/nobody answered the permission request in time/.test(resultOf(r)), 'timeout: the model is told it timed out: ' + resultOf(r));
    check(r.finished.outcome === 'success', 'timeout: success');
  }
  { // an agent whose turn suspends: approved, and edited, through the same resume entries
    const { a, i } = await firstRun(url, 'suspend-approve', 'echo s1');
    const r = await run(a, { resume: [{ interruptId: i.id, status: 'resolved', payload: { decision: 'approve_once' } }] });
    check(resultOf(r) === 'ran: echo s1', 'suspend-approve: the tool ran');
    check(textOf(r) === 'tool said: ran: echo s1' && r.finished.outcome === 'success', 'suspend-approve: the turn went on');
    const { a: b, i: j } = await firstRun(url, 'suspend-edit', 'echo s2');
    const again = await run(b, { resume: [{ interruptId: j.id, status: 'resolved',
      payload: { decision: 'approve_once', arguments: { command: 'echo s2 edited' } } }] });
    check(resultOf(again) === 'ran: echo s2 edited', 'suspend-edit: the edited arguments ran: ' + resultOf(again));
  }
  { // one response with two requests: both are in the interrupt; a resume that approves the first and carries a
    // malformed entry for the second ends in RUN_ERROR and decides nothing, so the same answers given properly work
    const a = agent(url, 'pair');
    say(a, 'please run echo p');
    const r = await run(a, {});
    check(r.finished && r.finished.outcome === 'interrupt' && r.finished.interrupts.length === 2,
      'pair: both requests are in the interrupt: ' + JSON.stringify(r.finished && r.finished.interrupts));
    const [ia, ib] = r.finished.interrupts;
    for (const badPayload of [{ decision: 'deny', reason: 'x'.repeat(2001) }, { decision: 'approve_once', arguments: 7 }]) {
      let bad;
      try {
        bad = await run(a, { resume: [
          { interruptId: ia.id, status: 'resolved', payload: { decision: 'approve_once' } },
          { interruptId: ib.id, status: 'resolved', payload: badPayload }] });
      } catch (e) { bad = { thrown: e }; }
      check(bad.error && bad.error.code === 'bad_request', 'pair: the malformed resume is a RUN_ERROR: '
        + JSON.stringify(bad.error || String(bad.thrown)));
      check(!bad.events || !bad.events.some(e => e.type === 'TOOL_CALL_RESULT'), 'pair: nothing ran or was denied');
    }
    const ok = await run(a, { resume: [
      { interruptId: ia.id, status: 'resolved', payload: { decision: 'approve_once' } },
      { interruptId: ib.id, status: 'resolved', payload: { decision: 'deny', reason: 'not that one' } }] });
    const results = ok.events.filter(e => e.type === 'TOOL_CALL_RESULT').map(e => e.content);
    check(ok.finished && ok.finished.outcome === 'success', 'pair: the proper answers went on: ' + ok.types.join(','));
    check(results.length === 2 && results.includes('ran: echo p 1') && results.some(c => c.includes('not that one')),
      'pair: the first ran, the second was denied: ' + JSON.stringify(results));
  }
  console.log(checks + ' passed, 0 failed');
}

main().catch(e => { console.error(e && e.stack || e); console.log(checks + ' passed, 1 failed'); process.exit(1); });
