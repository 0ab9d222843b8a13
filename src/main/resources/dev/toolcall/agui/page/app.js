// The approval page: one session's calls, live, from the server's event stream; answers by POST.
// No build step, no dependency, no innerHTML: every text from the server (tool names, arguments, output, the
// model's text) goes into the page as text nodes. The session and its token come from the URL's fragment.
(function () {
  'use strict';
  var params = new URLSearchParams(location.hash.slice(1));
  var session = params.get('session') || '';
  var token = params.get('token') || '';
  var SVG = 'http://www.w3.org/2000/svg';

  var calls = {};          // callId -> view (the presentation view model as JSON), plus _at: its server time in ms
  var order = [];          // callIds, oldest first
  var notices = {};        // callId -> {text, problem}
  var announced = {};      // requestId -> true, once announced to screen readers
  var turn = null;         // the session's conversation ({state, turn, active, reason, error}), when an agent runs it
  var connection = 'connecting';
  var skew = 0;            // server clock minus this browser's clock, in ms
  var source = null;
  var retryTimer = null;

  var main = document.getElementById('calls');
  var conn = document.getElementById('connection');
  var status = document.getElementById('status');
  var banner = document.getElementById('banner');
  var announcer = document.getElementById('announcer');
  document.getElementById('session').textContent = session;

  // ---- what each state looks like: the presentation's states, with icons drawn here (no font needed) ----------

  // Words for each state where the theme has no label (the final states), and for screen readers.
  var STATE_NAMES = {
    pending: 'Waiting to start', permission_pending: 'Awaiting your approval', permission_approved: 'Approved',
    permission_denied: 'Denied', running: 'Running', completed: 'Done', failed: 'Failed', cancelled: 'Cancelled'
  };

  // One inline SVG per state (24x24, drawn in the state's colour): [tag, attributes] pairs.
  var ICONS = {
    pending: [['path', {d: 'M7 3h10M7 21h10M8 3c0 5 4 6 4 9s-4 4-4 9M16 3c0 5-4 6-4 9s4 4 4 9'}]],
    permission_pending: [['rect', {x: 5, y: 10.5, width: 14, height: 10, rx: 2}],
      ['path', {d: 'M8.5 10.5V7.5a3.5 3.5 0 0 1 7 0v3'}], ['circle', {cx: 12, cy: 15.5, r: 1.3, fill: 'currentColor'}]],
    permission_approved: [['circle', {cx: 12, cy: 12, r: 9}], ['path', {d: 'M8 12.5l2.7 2.7L16.2 9.5'}]],
    permission_denied: [['circle', {cx: 12, cy: 12, r: 9}], ['path', {d: 'M5.7 5.7l12.6 12.6'}]],
    running: [['circle', {cx: 12, cy: 12, r: 9, opacity: 0.25}], ['path', {d: 'M21 12a9 9 0 0 0-9-9', 'class': 'arc'}]],
    completed: [['circle', {cx: 12, cy: 12, r: 10, fill: 'currentColor', stroke: 'none'}],
      ['path', {d: 'M7.8 12.4l2.8 2.8 5.6-5.8', stroke: '#fff'}]],
    failed: [['circle', {cx: 12, cy: 12, r: 9}], ['path', {d: 'M9 9l6 6M15 9l-6 6'}]],
    cancelled: [['circle', {cx: 12, cy: 12, r: 9}], ['rect', {x: 9, y: 9, width: 6, height: 6, rx: 1,
      fill: 'currentColor', stroke: 'none'}]]
  };

  function icon(state) {
    var svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('width', '20');
    svg.setAttribute('height', '20');
    svg.setAttribute('fill', 'none');
    svg.setAttribute('stroke', 'currentColor');
    svg.setAttribute('stroke-width', '2');
    svg.setAttribute('stroke-linecap', 'round');
    svg.setAttribute('stroke-linejoin', 'round');
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', STATE_NAMES[state] || state);
    svg.setAttribute('class', 'icon');
    (ICONS[state] || ICONS.pending).forEach(function (part) {
      var e = document.createElementNS(SVG, part[0]);
      Object.keys(part[1]).forEach(function (k) { e.setAttribute(k, String(part[1][k])); });
      svg.appendChild(e);
    });
    return svg;
  }

  // ---- small helpers ------------------------------------------------------------------------------------------

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = text; }
    return e;
  }

  function now() { return Date.now() + skew; }

  function seconds(ms) {
    ms = Math.max(0, ms);
    if (ms < 1000) { return Math.round(ms) + ' ms'; }
    if (ms < 60000) { return (ms / 1000).toFixed(1) + ' s'; }
    var s = Math.floor(ms / 1000);
    var m = Math.floor(s / 60);
    if (m < 60) { return m + ' min ' + String(s % 60).padStart(2, '0') + ' s'; }
    return Math.floor(m / 60) + ' h ' + String(m % 60).padStart(2, '0') + ' min';
  }

  function pending(v) { return !!(v && v.request && !v.terminal); }

  function stateName(v) {
    var label = (v.style && v.style.label) || '';
    return label ? label.replace(/\.\.\.$|…$/, '') : (STATE_NAMES[v.displayState] || v.displayState);
  }

  function waitingCount() {
    return order.filter(function (id) { return pending(calls[id]); }).length;
  }

  // ---- the connection -----------------------------------------------------------------------------------------

  function connect() {
    if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
    var url = '/api/sessions/' + encodeURIComponent(session) + '/stream?token=' + encodeURIComponent(token);
    source = new EventSource(url);
    source.addEventListener('open', function () { setConnection('open'); });
    source.addEventListener('error', function () {
      setConnection('lost');
      if (source.readyState === EventSource.CLOSED) {
        // refused (or the server answered something other than a stream): the browser will not retry by itself
        retryTimer = setTimeout(connect, 5000);
      }
    });
    source.addEventListener('snapshot', function (e) {
      var s = JSON.parse(e.data);
      var at = Date.parse(s.serverTime);
      skew = at - Date.now();
      calls = {}; order = [];
      s.calls.forEach(function (v) { v._at = at; calls[v.callId] = v; order.push(v.callId); });
      turn = s.turn || null;
      main.replaceChildren();
      order.forEach(function (id) { draw(id); });
      layout();
      var n = waitingCount();
      if (n > 0) { announce(n === 1 ? 'One tool call waits for your approval.' : n + ' tool calls wait for your approval.'); }
      order.forEach(function (id) { if (pending(calls[id])) { announced[calls[id].request.requestId] = true; } });
      setConnection('open');
      summary();
    });
    source.addEventListener('call', function (e) {
      var v = JSON.parse(e.data);
      v._at = Date.parse(v.serverTime);
      skew = v._at - Date.now();
      var old = calls[v.callId];
      if (old && old.version > v.version && v.version !== 0) { return; }
      if (!old) { order.push(v.callId); }
      calls[v.callId] = v;
      draw(v.callId);
      layout();
      if (pending(v) && !announced[v.request.requestId]) {
        announced[v.request.requestId] = true;
        announce(v.toolName + ' asks for your approval: ' + v.argumentsPreview);
      }
      summary();
    });
    source.addEventListener('turn', function (e) {
      turn = JSON.parse(e.data);
      summary();
    });
  }

  // 'ended': the turn is over (or every call ended) and the server went away: the page is a record, not a fault.
  function setConnection(state) {
    connection = state;
    var shown = state;
    if (state === 'lost' && finished()) { shown = 'ended'; }
    var text = {connecting: 'connecting…', open: 'live', lost: 'reconnecting…', ended: 'server stopped'}[shown];
    conn.dataset.state = shown;
    conn.querySelector('.text').textContent = text;
    conn.setAttribute('aria-label', 'Connection: ' + text);
    summary();
  }

  // Whether nothing is left to happen: the agent's turn ended, or (no agent known) every call ended.
  function finished() {
    if (turn) { return !turn.active && turn.turn > 0; }
    return order.length > 0 && order.every(function (id) { return calls[id].terminal; });
  }

  function announce(text) {
    announcer.textContent = '';
    // a fresh text node, so screen readers read it again even when it repeats
    setTimeout(function () { announcer.textContent = text; }, 30);
  }

  // ---- the header's status and the end-of-turn banner ---------------------------------------------------------

  function summary() {
    var n = waitingCount();
    var state;
    var text;
    if (n > 0) {
      state = 'waiting';
      text = n === 1 ? '1 request waits for you' : n + ' requests wait for you';
    } else if (turn && turn.active) {
      state = 'working';
      text = turn.state === 'executing_tools' ? 'Agent is running tools' : 'Agent is working';
    } else if (turn && turn.state === 'failed') {
      state = 'failed';
      text = 'Turn failed';
    } else if (finished()) {
      state = 'finished';
      text = turn && turn.reason === 'aborted' ? 'Turn cancelled'
          : turn && turn.reason !== 'final_answer' && turn.reason !== 'return_direct' && turn.turn > 0
              ? 'Turn stopped' : 'Turn finished';
    } else if (order.length > 0) {
      state = 'working';
      text = 'Calls in progress';
    } else {
      state = 'idle';
      text = 'Nothing to answer';
    }
    status.dataset.state = state;
    status.textContent = text;
    document.title = (n > 0 ? '(' + n + ') ' : '') + 'Tool call approvals';
    document.getElementById('empty').hidden = order.length > 0;

    var end = state === 'finished' || state === 'failed';
    banner.hidden = !end;
    if (end) {
      var counts = {};
      order.forEach(function (id) {
        var s = calls[id].displayState;
        counts[s] = (counts[s] || 0) + 1;
      });
      var parts = [];
      [['completed', 'done'], ['failed', 'failed'], ['permission_denied', 'denied'], ['cancelled', 'cancelled']]
          .forEach(function (p) { if (counts[p[0]]) { parts.push(counts[p[0]] + ' ' + p[1]); } });
      var head = state === 'failed' ? 'The turn failed' + (turn && turn.error ? ': ' + turn.error : '.')
          : text + '. Nothing waits for your answer.';
      var tail = (parts.length ? ' Calls: ' + parts.join(', ') + '.' : '')
          + (connection === 'lost' ? ' The server has stopped; this page keeps what it showed.' : '');
      banner.dataset.state = state;
      banner.replaceChildren(el('strong', null, head), document.createTextNode(tail));
    }
  }

  // ---- cards ----------------------------------------------------------------------------------------------------

  function card(id) {
    var c = main.querySelector('[data-call-id="' + CSS.escape(id) + '"]');
    if (!c) {
      c = el('article', 'call');
      c.dataset.callId = id;
      c.appendChild(el('div', 'body'));
      var kids = el('div', 'children');
      kids.setAttribute('role', 'group');
      c.appendChild(kids);
      main.appendChild(c);
    }
    return c;
  }

  // Puts every card under its parent's (sub-agent calls inside the call that made them), in the order they came.
  function layout() {
    order.forEach(function (id) {
      var v = calls[id];
      var c = card(id);
      var parent = v.parentCallId && calls[v.parentCallId] ? card(v.parentCallId) : null;
      var box = parent ? parent.querySelector(':scope > .children') : main;
      if (c.parentNode !== box) { box.appendChild(c); }
      if (parent) {
        box.setAttribute('aria-label', 'Calls made by ' + calls[v.parentCallId].toolName);
      }
      c.classList.toggle('nested', !!parent);
      c.classList.toggle('has-children', c.querySelector(':scope > .children > .call') !== null);
    });
  }

  function draw(id) {
    var v = calls[id];
    var c = card(id);
    var body = c.querySelector(':scope > .body');
    var focused = body.contains(document.activeElement) ? document.activeElement : null;
    var focusedAction = focused && focused.dataset ? focused.dataset.action : null;
    var open = body.querySelector('.editor');
    var keepEditor = open && pending(v) && c.dataset.requestId === v.request.requestId
        && String(v.request.argumentsVersion) === c.dataset.version;

    c.dataset.state = v.displayState;
    c.className = 'call state-' + v.displayState + ' tone-' + v.style.color + ' anim-' + v.style.animation
        + (c.classList.contains('nested') ? ' nested' : '') + (c.classList.contains('has-children') ? ' has-children' : '');
    c.style.setProperty('--c', 'var(--' + v.style.color + ')');
    c.setAttribute('aria-label', v.toolName + ': ' + stateName(v));

    var head = el('div', 'head');
    var ic = el('span', 'icon-box');
    ic.appendChild(icon(v.displayState));
    head.appendChild(ic);
    head.appendChild(el('span', 'tool', v.toolName));
    var full = v.displayState === 'permission_pending' || v.displayState === 'permission_approved';
    if (!full && v.argumentsPreview && v.argumentsPreview !== '{}') {
      var prev = el('span', 'preview', v.argumentsPreview);
      prev.title = v.arguments;
      head.appendChild(prev);
    }
    // the state in words, unless a badge says it already (a completed call's "Done")
    var label = v.style.label || v.style.badge ? (v.style.label || '').replace(/\.\.\.$|…$/, '') : stateName(v);
    if (label) { head.appendChild(el('span', 'label', label)); }
    if (v.style.badge) { head.appendChild(el('span', 'badge', v.style.badge)); }
    if (v.attempt > 1) { head.appendChild(el('span', 'attempt', 'attempt ' + v.attempt)); }
    var time = el('span', 'time');
    time.setAttribute('aria-label', 'elapsed');
    head.appendChild(time);

    var parts = [head];
    if (pending(v)) {
      if (v.description) { parts.push(el('p', 'desc', v.description)); }
      if (v.assistantText) {
        var why = el('figure', 'why');
        why.appendChild(el('figcaption', null, 'The assistant wrote'));
        why.appendChild(el('blockquote', null, v.assistantText));
        parts.push(why);
      }
    }
    if (full) { parts.push(el('pre', 'args', v.arguments)); }
    // Each output once: live output while running, then the result (or the error) in its place.
    if (v.displayState === 'running' && v.outputTail && v.outputTail.length) {
      parts.push(el('pre', 'output', v.outputTail.join('\n')));
    } else if (v.displayState === 'completed' && v.result) {
      parts.push(el('pre', 'result', v.result));
    } else if (v.terminal && v.error) {
      parts.push(el('pre', 'error', v.error));
    }

    if (pending(v)) {
      c.dataset.requestId = v.request.requestId;
      c.dataset.version = String(v.request.argumentsVersion);
      c.dataset.deadline = v.request.deadline;
      c.dataset.created = v.request.createdAt;
      c.tabIndex = 0;
      var cd = el('div', 'countdown');
      var bar = el('div', 'bar');
      bar.setAttribute('role', 'progressbar');
      bar.setAttribute('aria-label', 'Time left before the automatic denial');
      bar.setAttribute('aria-valuemin', '0');
      bar.setAttribute('aria-valuemax', '100');
      bar.appendChild(el('div', 'fill'));
      cd.appendChild(bar);
      cd.appendChild(el('span', 'remaining', ''));
      parts.push(cd);
      parts.push(keepEditor ? open.parentNode : actions(v));
    } else {
      delete c.dataset.requestId;
      delete c.dataset.deadline;
      c.removeAttribute('tabindex');
    }
    var n = notices[id];
    if (n) {
      var note = el('div', 'notice' + (n.problem ? ' problem' : ''), n.text);
      note.setAttribute('role', n.problem ? 'alert' : 'status');
      parts.push(note);
    }
    body.replaceChildren.apply(body, parts);
    if (focused) { // a redraw must not take the keyboard's place away
      var again = document.contains(focused) ? focused
          : focusedAction ? body.querySelector('[data-action="' + focusedAction + '"]') : null;
      var target = again || (pending(v) ? c : null);
      if (target) { target.focus(); }
    }
    tickCard(c, v);
  }

  function actions(v) {
    var box = el('div', 'answer');
    var row = el('div', 'actions');
    row.setAttribute('role', 'group');
    row.setAttribute('aria-label', 'Answer ' + v.toolName);
    [['approve_once', 'Approve once', 'primary', 'a', 'Approve ' + v.toolName + ' once'],
     ['approve_for_session', 'Allow for this session', '', '', 'Allow ' + v.toolName + ' for this session'],
     ['approve_always', 'Always allow', '', '', 'Always allow ' + v.toolName],
     ['edit', 'Edit…', '', 'e', 'Edit the arguments, then approve'],
     ['deny', 'Deny…', 'danger', 'd', 'Deny ' + v.toolName + ', with a reason for the model']].forEach(function (a) {
      var b = el('button', a[2], a[1]);
      b.type = 'button';
      b.dataset.action = a[0];
      b.setAttribute('aria-label', a[4]);
      if (a[3]) { b.setAttribute('aria-keyshortcuts', a[3].toUpperCase()); }
      b.addEventListener('click', function () { choose(v.callId, a[0], box); });
      row.appendChild(b);
    });
    box.appendChild(row);
    return box;
  }

  function choose(id, action, box) {
    var v = calls[id];
    if (!pending(v)) { return; }
    if (action === 'edit' || action === 'deny') {
      var old = box.querySelector('.editor');
      if (old) { old.remove(); }
      var ed = el('div', 'editor');
      var edit = action === 'edit';
      var input = edit ? el('textarea', 'args-input') : el('input', 'reason');
      var fieldId = 'f-' + action + '-' + Math.random().toString(36).slice(2);
      input.id = fieldId;
      var label = el('label', null, edit ? 'Arguments to run (JSON)' : 'Why? The model reads this.');
      label.htmlFor = fieldId;
      if (edit) { input.rows = 4; input.value = v.request.arguments; input.spellcheck = false; }
      else { input.placeholder = 'for example: not before the release'; }
      var ok = el('button', edit ? 'primary' : 'danger', edit ? 'Approve edited' : 'Deny');
      ok.type = 'button';
      ok.dataset.action = 'confirm-' + action;
      var cancel = el('button', 'quiet', 'Cancel');
      cancel.type = 'button';
      cancel.dataset.action = 'cancel-' + action;
      function confirm() {
        if (edit) {
          var args;
          try { args = JSON.parse(input.value); } catch (e) { args = input.value; }
          send(id, {decision: 'approve_once', arguments: args});
        } else {
          send(id, {decision: 'deny', reason: input.value});
        }
      }
      function close() {
        ed.remove();
        var back = box.querySelector('[data-action="' + action + '"]');
        if (back) { back.focus(); }
      }
      ok.addEventListener('click', confirm);
      cancel.addEventListener('click', close);
      input.addEventListener('keydown', function (e) {
        if (e.key === 'Escape') { e.preventDefault(); close(); }
        else if (e.key === 'Enter' && (!edit || e.ctrlKey || e.metaKey)) { e.preventDefault(); confirm(); }
      });
      var row = el('div', 'editor-actions');
      row.appendChild(ok);
      row.appendChild(cancel);
      row.appendChild(el('span', 'hint', edit ? 'Ctrl+Enter approves, Esc cancels' : 'Enter denies, Esc cancels'));
      ed.appendChild(label);
      ed.appendChild(input);
      ed.appendChild(row);
      box.appendChild(ed);
      input.focus();
      return;
    }
    send(id, {decision: action});
  }

  function send(id, answer) {
    var v = calls[id];
    answer.requestId = v.request.requestId;
    answer.argumentsVersion = v.request.argumentsVersion;
    fetch('/api/sessions/' + encodeURIComponent(session) + '/decisions', {
      method: 'POST',
      headers: {'Content-Type': 'application/json', 'X-Toolcall-Token': token},
      body: JSON.stringify(answer),
      credentials: 'omit'
    }).then(function (r) {
      return r.json().then(function (body) {
        if (r.ok) {
          notices[id] = {text: 'Answered: ' + body.state.replace(/_/g, ' '), problem: false};
        } else {
          notices[id] = {text: 'Not applied: ' + body.message, problem: true};
        }
        if (calls[id]) { draw(id); }
      });
    }).catch(function () {
      notices[id] = {text: 'Not sent: the server cannot be reached', problem: true};
      if (calls[id]) { draw(id); }
    });
  }

  // ---- keyboard -------------------------------------------------------------------------------------------------

  document.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) { return; }
    var t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) { return; }
    var key = e.key.toLowerCase();
    if (key === 'n') {
      var cards = Array.prototype.slice.call(main.querySelectorAll('.call[data-request-id]'));
      if (!cards.length) { return; }
      var at = cards.indexOf(t && t.closest ? t.closest('.call[data-request-id]') : null);
      cards[(at + 1) % cards.length].focus();
      e.preventDefault();
      return;
    }
    var action = {a: 'approve_once', e: 'edit', d: 'deny'}[key];
    var c = t && t.closest ? t.closest('.call[data-request-id]') : null;
    if (!action || !c) { return; }
    var b = c.querySelector(':scope > .body [data-action="' + action + '"]');
    if (b) { e.preventDefault(); b.click(); }
  });

  // ---- what ticks: elapsed times and countdowns -----------------------------------------------------------------

  function tickCard(c, v) {
    var time = c.querySelector(':scope > .body .time');
    if (time) {
      var ms = v.terminal ? v.elapsedMillis : v.elapsedMillis + Math.max(0, now() - v._at);
      time.textContent = seconds(ms);
    }
    if (!c.dataset.deadline) { return; }
    var deadline = Date.parse(c.dataset.deadline);
    var total = Math.max(1, deadline - Date.parse(c.dataset.created));
    var left = Math.max(0, deadline - now());
    var cd = c.querySelector(':scope > .body .countdown');
    if (!cd) { return; }
    var pct = 100 * left / total;
    cd.querySelector('.fill').style.width = pct.toFixed(1) + '%';
    cd.querySelector('.bar').setAttribute('aria-valuenow', String(Math.round(pct)));
    cd.querySelector('.remaining').textContent = left > 0
        ? 'auto-deny in ' + Math.ceil(left / 1000) + 's' : 'auto-denying…';
    cd.classList.toggle('low', left < 10000);
  }

  function tick() {
    order.forEach(function (id) {
      var c = main.querySelector('[data-call-id="' + CSS.escape(id) + '"]');
      if (c) { tickCard(c, calls[id]); }
    });
  }

  setInterval(tick, 200);
  summary();
  connect();
})();
