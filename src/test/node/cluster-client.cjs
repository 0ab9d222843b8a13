// Drives three instances behind nginx with the official AG-UI client (@ag-ui/client), only through nginx, so that
// consecutive runs of one thread land on different instances. Run by dev.toolcall.postgres.ClusterTest: NODE_PATH
// points at the installed client, CLUSTER_URL at nginx's /agui, CLUSTER_TOKEN is the credential, CLUSTER_TURNS how
// many conversations, CLUSTER_CONCURRENCY how many at once, CLUSTER_PAUSE_FILE a file whose presence holds new turns
// back (the test creates it while it kills an instance or stops the database, to keep some turns mid-flight).
// Each conversation: a user message asks for one call; the run ends with an interrupt; the client answers it
// (approve, deny with a reason, approve with edited arguments, or lets the deadline pass) in a later run; the turn's
// answer says what the model was told. A run that fails (an instance killed, the database down, the conversation busy
// on another instance) is tried again, as a client that reconnects does: a run with no new message and no resume
// announces the open requests again, or ends with a MESSAGES_SNAPSHOT when the turn went on meanwhile.
// Each request goes through a fetch that notes when it was sent and which instance answered it (nginx's X-Upstream
// header; 'direct' without nginx), so the test can tell a decision that landed on another instance than the one that
// suspended the turn, and time it to the tool's start (which the instance notes).
// Prints one JSON line with the outcome of every conversation and the timings, then 'N passed, N failed'.
'use strict';
const { HttpAgent, isInterruptExpired } = require('@ag-ui/client');
const fs = require('node:fs');

const url = process.env.CLUSTER_URL;
const token = process.env.CLUSTER_TOKEN;
const turns = Number(process.env.CLUSTER_TURNS || 40);
const concurrency = Number(process.env.CLUSTER_CONCURRENCY || 6);
const pauseFile = process.env.CLUSTER_PAUSE_FILE;
const scenarios = ['approve', 'deny', 'edit', 'approve', 'timeout'];
const sleep = ms => new Promise(res => setTimeout(res, ms));
// A stream cut mid-run (its instance killed, nginx closing the connection) also rejects a promise inside the client
// that nobody awaits; the run that owned it fails and is tried again, so these are counted, not fatal.
let cutStreams = 0;
process.on('unhandledRejection', () => { cutStreams++; });

async function run(a, params) {
  const events = [];
  let finished;
  let error;
  let timer;
  // a run whose stream was cut may never settle inside the client: give up on it after a while and abort it
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => { try { a.abortRun(); } catch (e) { /* not running */ } reject(new Error('run timed out')); },
      30000);
  });
  try {
    await Promise.race([a.runAgent(params, {
      onEvent({ event }) { events.push(event); },
      onRunFinishedEvent(p) { finished = p; },
      onRunErrorEvent({ event }) { error = event; },
    }), limit]);
  } finally {
    clearTimeout(timer);
  }
  return { events, finished, error };
}

function newAgent(threadId, messages) {
  const seen = { postedAt: null, upstream: null }; // of this client object's latest request
  const a = new HttpAgent({ url, threadId, headers: { Authorization: 'Bearer ' + token },
    initialMessages: messages ? messages.slice() : [],
    fetch: async (target, init) => {
      seen.postedAt = performance.timeOrigin + performance.now(); // epoch milliseconds, with a fraction
      seen.upstream = null;
      const response = await fetch(target, init);
      const via = response.headers.get('x-upstream'); // 'a, b' when nginx tried a second instance: b answered
      seen.upstream = via ? via.split(',').pop().trim() : 'direct';
      return response;
    } });
  a.seen = seen;
  return a;
}

/**
 * Runs until a run finishes (interrupt or success), trying again after failures with a fresh client object (one
 * whose run was cut may still think it runs) that holds the same messages; counts the retries. Returns the run and
 * the client object to go on with.
 */
async function settle(a, params, stats) {
  const started = Date.now();
  let failedSince = 0;
  for (let attempt = 0; ; attempt++) {
    if (Date.now() - started > 150000) { throw new Error('no run finished in 150 s (' + attempt + ' attempts)'); }
    try {
      const r = await run(a, attempt === 0 ? params : {});
      if (r.finished) {
        if (failedSince) { stats.recovery.push(Date.now() - failedSince); } // a failed run to the next finished one
        stats.runs++;
        return { r, a, attempts: attempt };
      }
      failedSince = failedSince || Date.now();
      stats.retries++;
    } catch (e) {
      failedSince = failedSince || Date.now();
      stats.retries++;
      stats.lastErrors.push(String(e && e.message || e).slice(0, 200));
      if (stats.lastErrors.length > 5) { stats.lastErrors.shift(); }
    }
    a = newAgent(a.threadId, a.messages);
    await sleep(200 + Math.random() * 200);
  }
}

function answerOf(r, a) {
  const text = r.events.filter(e => e.type === 'TEXT_MESSAGE_CONTENT').map(e => e.delta).join('');
  if (text) { return text; }
  const snap = r.events.filter(e => e.type === 'MESSAGES_SNAPSHOT').pop();
  const messages = snap ? snap.messages : a.messages;
  const last = messages.filter(m => m.role === 'assistant' && typeof m.content === 'string' && m.content).pop();
  return last ? last.content : '';
}

async function conversation(n, stats) {
  const scenario = scenarios[n % scenarios.length];
  const threadId = 'cluster-' + n;
  let a = newAgent(threadId);
  a.addMessage({ id: 'u-' + n, role: 'user', content: 'deploy t' + n });
  let r;
  ({ r, a } = await settle(a, {}, stats));
  const out = { n, scenario, threadId };
  for (let round = 0; r.finished.outcome === 'interrupt'; round++) {
    if (round > 200) { throw new Error(threadId + ': still interrupted after 200 rounds'); }
    const i = r.finished.interrupts[0];
    let resume;
    if (scenario === 'timeout') {
      const giveUp = Date.now() + 60000; // an interrupt that never expires fails this conversation, named, not the run
      while (!isInterruptExpired(i)) {
        if (Date.now() > giveUp) { throw new Error(threadId + ': the interrupt did not expire: ' + JSON.stringify(i)); }
        await sleep(100);
      }
      await sleep(300);
      // a reconnect (a fresh client object, as after a reload: the old one would refuse to run with the expired
      // interrupt unanswered): the deadline denied it, the turn goes on
      a = newAgent(threadId, a.messages);
      resume = [];
    } else if (scenario === 'deny') {
      resume = [{ interruptId: i.id, status: 'resolved', payload: { decision: 'deny', reason: 'not t' + n } }];
    } else if (scenario === 'edit') {
      resume = [{ interruptId: i.id, status: 'resolved', payload: { decision: 'approve_once',
        arguments: { command: 'deploy t' + n + '-edited' }, argumentsVersion: i.metadata.argumentsVersion } }];
    } else {
      resume = [{ interruptId: i.id, status: 'resolved', payload: { decision: 'approve_once' } }];
    }
    const started = Date.now();
    const suspendedOn = a.seen.upstream; // the instance whose run ended with the interrupt
    let attempts;
    ({ r, a, attempts } = await settle(a, resume.length ? { resume } : {}, stats));
    if (round === 0 && scenario !== 'timeout') {
      const result = r.events.find(e => e.type === 'TOOL_CALL_RESULT');
      if (result) { stats.decisionToResult.push(Date.now() - started); }
      if (attempts === 0) { // the decision's own request finished its run: when it was sent, and where it landed
        stats.decisions.push({ threadId, scenario, postedAt: a.seen.postedAt, suspendedOn, decidedOn: a.seen.upstream });
      }
    }
  }
  out.answer = answerOf(r, a);
  return out;
}

async function main() {
  const stats = { retries: 0, runs: 0, decisionToResult: [], decisions: [], lastErrors: [], recovery: [] };
  const results = [];
  const t0 = Date.now();
  let next = 0;
  async function worker() {
    while (next < turns) {
      while (pauseFile && fs.existsSync(pauseFile)) { await sleep(100); }
      const n = next++;
      try {
        results.push(await conversation(n, stats));
      } catch (e) {
        results.push({ n, error: String(e && e.stack || e) });
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (Date.now() - t0) / 1000;
  const sorted = stats.decisionToResult.slice().sort((x, y) => x - y);
  const pct = p => sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null;
  // whether each answer is the scenario's is judged by the test against the store (a decision the database's outage
  // cut may end a call otherwise, and the model must then be told that); here: every conversation ended
  let failed = 0;
  for (const r of results) {
    r.ok = !r.error && typeof r.answer === 'string' && r.answer.startsWith('done:');
    if (!r.ok) { failed++; }
  }
  console.log(JSON.stringify({ turns: results.length, seconds, turnsPerSecond: results.length / seconds,
    retries: stats.retries, finishedRuns: stats.runs, recoveryMs: (() => { const r = stats.recovery.slice().sort((x, y) => x - y);
      return { p50: r.length ? r[Math.floor(r.length / 2)] : null, max: r.length ? r[r.length - 1] : null, n: r.length };
    })(), lastErrors: stats.lastErrors, cutStreams, decisionToResultMs: { p50: pct(0.5), p99: pct(0.99), n: sorted.length },
    decisions: stats.decisions, failures: results.filter(r => !r.ok), answers: results.filter(r => r.ok).map(r => [r.threadId, r.scenario, r.answer]) }));
  console.log((results.length - failed) + ' passed, ' + failed + ' failed');
  process.exit(failed ? 1 : 0);
}

main().catch(e => { console.error(e && e.stack || e); console.log('0 passed, 1 failed'); process.exit(1); });
