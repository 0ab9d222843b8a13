// The approval page: one session's calls, live, from the server's event stream; answers by POST.
// No build step, no dependency. The session and its token come from the URL's fragment.
(function () {
  'use strict';
  var params = new URLSearchParams(location.hash.slice(1));
  var session = params.get('session') || '';
  var token = params.get('token') || '';
  var calls = {};          // callId -> view (the presentation view model as JSON)
  var order = [];          // callIds, oldest first
  var notices = {};        // callId -> {text, problem}
  var skew = 0;            // server clock minus this browser's clock, in ms
  var main = document.getElementById('calls');
  var conn = document.getElementById('connection');
  document.getElementById('session').textContent = session;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  function now() { return Date.now() + skew; }

  function setConn(state, text) { conn.dataset.state = state; conn.textContent = text; }

  function connect() {
    var url = '/api/sessions/' + encodeURIComponent(session) + '/stream?token=' + encodeURIComponent(token);
    var source = new EventSource(url);
    source.addEventListener('open', function () { setConn('open', 'live'); });
    source.addEventListener('error', function () { setConn('lost', 'reconnecting…'); });
    source.addEventListener('snapshot', function (e) {
      var s = JSON.parse(e.data);
      skew = Date.parse(s.serverTime) - Date.now();
      calls = {}; order = [];
      s.calls.forEach(function (v) { calls[v.callId] = v; order.push(v.callId); });
      main.replaceChildren();
      order.forEach(draw);
      setConn('open', 'live');
      empty();
    });
    source.addEventListener('call', function (e) {
      var v = JSON.parse(e.data);
      skew = Date.parse(v.serverTime) - Date.now();
      var old = calls[v.callId];
      if (old && old.version > v.version && v.version !== 0) { return; }
      if (!old) { order.push(v.callId); }
      calls[v.callId] = v;
      draw(v.callId);
      empty();
    });
  }

  function empty() { document.getElementById('empty').hidden = order.length > 0; }

  function card(id) {
    var c = main.querySelector('[data-call-id="' + CSS.escape(id) + '"]');
    if (!c) { c = el('section', 'call'); c.dataset.callId = id; main.appendChild(c); }
    return c;
  }

  function draw(id) {
    var v = calls[id];
    var c = card(id);
    var open = c.querySelector('.editor');
    var keepEditor = open && v.request && c.dataset.requestId === v.request.requestId
        && String(v.request.argumentsVersion) === c.dataset.version;
    c.dataset.state = v.displayState;
    c.className = 'call anim-' + v.style.animation;
    c.style.setProperty('--c', 'var(--' + v.style.color + ')');
    var head = el('div', 'head');
    head.appendChild(el('span', 'icon', v.style.icon));
    head.appendChild(el('span', 'tool', v.toolName));
    head.appendChild(el('span', 'label', v.style.label));
    if (v.style.badge) { head.appendChild(el('span', 'badge', v.style.badge)); }
    head.appendChild(el('span', 'time', (v.elapsedMillis / 1000).toFixed(1) + 's'));
    var parts = [head, el('pre', 'args', v.arguments)];
    if (v.outputTail && v.outputTail.length) { parts.push(el('pre', 'output', v.outputTail.join('\n'))); }
    if (v.result) { parts.push(el('pre', 'result', v.result)); }
    if (v.error) { parts.push(el('pre', 'error', v.error)); }
    if (v.request && !v.terminal) {
      c.dataset.requestId = v.request.requestId;
      c.dataset.version = String(v.request.argumentsVersion);
      c.dataset.deadline = v.request.deadline;
      c.dataset.created = v.request.createdAt;
      var cd = el('div', 'countdown');
      var bar = el('div', 'bar'); bar.appendChild(el('div', 'fill'));
      cd.appendChild(bar); cd.appendChild(el('span', 'remaining', ''));
      parts.push(cd);
      parts.push(keepEditor ? open.parentNode : actions(v));
    } else {
      delete c.dataset.requestId;
      delete c.dataset.deadline;
    }
    var n = notices[id];
    if (n) { parts.push(el('div', 'notice' + (n.problem ? ' problem' : ''), n.text)); }
    c.replaceChildren.apply(c, parts);
    tick();
  }

  function actions(v) {
    var box = el('div', 'answer');
    var row = el('div', 'actions');
    [['approve_once', 'Approve once', 'primary'], ['approve_for_session', 'For this session', ''],
     ['approve_always', 'Always', ''], ['edit', 'Edit…', ''], ['deny', 'Deny…', 'danger']].forEach(function (a) {
      var b = el('button', a[2], a[1]);
      b.type = 'button';
      b.dataset.action = a[0];
      b.addEventListener('click', function () { choose(v.callId, a[0], box); });
      row.appendChild(b);
    });
    box.appendChild(row);
    return box;
  }

  function choose(id, action, box) {
    var v = calls[id];
    if (action === 'edit' || action === 'deny') {
      var old = box.querySelector('.editor');
      if (old) { old.remove(); }
      var ed = el('div', 'editor');
      var input = action === 'edit' ? el('textarea', 'args-input') : el('input', 'reason');
      if (action === 'edit') { input.rows = 4; input.value = v.request.arguments; }
      else { input.placeholder = 'Why? (the model reads this)'; }
      var ok = el('button', action === 'edit' ? 'primary' : 'danger', action === 'edit' ? 'Approve edited' : 'Deny');
      ok.type = 'button';
      ok.dataset.action = 'confirm-' + action;
      ok.addEventListener('click', function () {
        if (action === 'edit') {
          var args;
          try { args = JSON.parse(input.value); } catch (e) { args = input.value; }
          send(id, {decision: 'approve_once', arguments: args});
        } else {
          send(id, {decision: 'deny', reason: input.value});
        }
      });
      ed.appendChild(input); ed.appendChild(ok);
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

  function tick() {
    main.querySelectorAll('.call[data-deadline]').forEach(function (c) {
      var deadline = Date.parse(c.dataset.deadline);
      var total = Math.max(1, deadline - Date.parse(c.dataset.created));
      var left = Math.max(0, deadline - now());
      var cd = c.querySelector('.countdown');
      if (!cd) { return; }
      cd.querySelector('.fill').style.width = (100 * left / total).toFixed(1) + '%';
      cd.querySelector('.remaining').textContent = left > 0
          ? 'auto-deny in ' + Math.ceil(left / 1000) + 's' : 'auto-denying…';
      cd.classList.toggle('low', left < 10000);
    });
  }

  setInterval(tick, 250);
  connect();
})();
