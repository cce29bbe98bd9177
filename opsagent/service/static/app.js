// The chat page: posts to /api/chat/stream and renders server-sent progress, the plan and the answer:
// the direct answer first, then the key facts, limitations, each specialist's evidence (collapsed) and
// the grounding verdict. The server keeps the conversation (conversation_id), so each request carries
// only the new question. Answer text goes through OpsMarkdown (escapes first) or textContent only.
(function () {
  "use strict";

  const log = document.getElementById("log");
  const form = document.getElementById("ask");
  const question = document.getElementById("question");
  const apiKey = document.getElementById("api-key");
  const workflow = document.getElementById("workflow");
  let conversationId = null;

  apiKey.value = sessionStorage.getItem("opsagent-api-key") || "";
  if (apiKey.value) apiKey.hidden = false;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function planTable(data) {
    const table = el("table", "plan");
    table.createCaption().textContent = (data.mode === "review" ? "Re-plan" : "Plan") + (data.reason ? ": " + data.reason : "");
    const head = table.createTHead().insertRow();
    ["Step", "Agent", "Question"].forEach(function (h) { head.appendChild(el("th", "", h)); });
    const body = table.createTBody();
    (data.plan || []).forEach(function (task) {
      const row = body.insertRow();
      [task.step, task.agent, task.question].forEach(function (v) { row.insertCell().textContent = String(v); });
    });
    return table;
  }

  function markdown(className, text) {
    const node = el("div", className);
    node.innerHTML = window.OpsMarkdown.render(text);  // the renderer escapes all HTML first
    return node;
  }

  function listSection(className, heading, items) {
    const section = el("section", className);
    if (heading) section.appendChild(el("h4", "", heading));
    const list = el("ul");
    items.forEach(function (item) {
      const li = el("li");
      li.innerHTML = window.OpsMarkdown.render(item).replace(/^<p>|<\/p>$/g, "");  // escaped by the renderer
      list.appendChild(li);
    });
    section.appendChild(list);
    return section;
  }

  function evidenceSection(section) {
    const details = el("details", "evidence");
    details.appendChild(el("summary", "", "Evidence: " + section.title));
    details.appendChild(markdown("evidence-body", section.markdown));
    return details;
  }

  function groundingLine(metadata) {
    const reports = metadata.grounding || [];
    if (!reports.length) return null;
    const last = reports[reports.length - 1];
    const checked = (last.checks || []).length > 0;  // a score over no checks would claim a check that never ran
    return el("div", "grounding verdict-" + last.verdict,
      "Grounding: " + (checked ? last.verdict + " (score " + Number(last.score).toFixed(2) + ")"
                               : "nothing to check (no claim about the data)") +
      (last.verdict === "block" ? " — parts of the answer could not be verified and are left out" : ""));
  }

  function showAnswer(turn, payload) {
    const m = payload.metadata || {};
    const answer = el("div", "answer");
    const structured = (payload.facts && payload.facts.length) || (payload.evidence && payload.evidence.length);
    if (!structured) {
      answer.appendChild(markdown("direct-answer", payload.answer));
    } else {
      answer.appendChild(markdown("direct-answer", payload.summary || payload.answer));
      if (payload.facts.length) answer.appendChild(listSection("facts", "", payload.facts));
      if ((payload.limitations || []).length) answer.appendChild(listSection("limitations", "Limitations", payload.limitations));
      (payload.evidence || []).forEach(function (section) { answer.appendChild(evidenceSection(section)); });
    }
    const grounding = groundingLine(m);
    if (grounding) answer.appendChild(grounding);
    if (grounding && grounding.classList.contains("verdict-block")) answer.classList.add("blocked");
    turn.appendChild(answer);
    turn.appendChild(el("div", "meta", [m.workflow + " workflow", "route " + m.route, m.model + " (" + m.provider + ")",
      m.llm_calls + " model call(s)", (m.duration_ms / 1000).toFixed(2) + " s"].join(" · ")));
    conversationId = payload.conversation_id || conversationId;
  }

  function showError(turn, message) {
    turn.classList.add("error");
    turn.appendChild(el("p", "error-text", message));
  }

  function handleEvent(turn, progress, name, data) {
    if (name === "progress") {
      progress.appendChild(el("li", "", data.message));
      if (data.kind === "plan" || data.kind === "replan") turn.insertBefore(planTable(data.data || {}), progress.nextSibling);
    } else if (name === "answer") {
      showAnswer(turn, data);
    } else if (name === "error") {
      showError(turn, (data.error && data.error.message) || "The request failed.");
    }
    log.scrollTop = log.scrollHeight;
  }

  function parseFrame(frame) {
    let name = "message", data = "";
    frame.split("\n").forEach(function (line) {
      if (line.startsWith("event:")) name = line.slice(6).trim();
      else if (line.startsWith("data:")) data += line.slice(5).trim();
    });
    return data ? { name: name, data: JSON.parse(data) } : null;
  }

  async function readStream(response, onEvent) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const frame = parseFrame(buffer.slice(0, cut));
        buffer = buffer.slice(cut + 2);
        if (frame) onEvent(frame.name, frame.data);
      }
    }
  }

  async function ask(text) {
    log.appendChild(el("div", "turn user", text));
    const turn = el("div", "turn assistant");
    const progress = el("ul", "progress");
    turn.appendChild(progress);
    log.appendChild(turn);
    const headers = { "Content-Type": "application/json" };
    if (apiKey.value) headers.Authorization = "Bearer " + apiKey.value;
    const body = { messages: [{ role: "user", content: text }] };
    if (conversationId) body.conversation_id = conversationId;
    if (workflow.value) body.workflow = workflow.value;
    const response = await fetch("/api/chat/stream", { method: "POST", headers: headers, body: JSON.stringify(body) });
    if (!response.ok) {
      const failure = await response.json().catch(function () { return {}; });
      if (response.status === 401) apiKey.hidden = false;
      showError(turn, (failure.error && failure.error.message) || "HTTP " + response.status);
      return;
    }
    await readStream(response, function (name, data) { handleEvent(turn, progress, name, data); });
  }

  async function submit(text) {
    document.body.dataset.state = "busy";
    form.querySelector("button").disabled = true;
    try {
      await ask(text);
    } catch (error) {
      showError(log.lastChild, "Connection failed: " + error.message);
    } finally {
      form.querySelector("button").disabled = false;
      document.body.dataset.state = "idle";
    }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    const text = question.value.trim();
    if (!text) return;
    sessionStorage.setItem("opsagent-api-key", apiKey.value);
    question.value = "";
    submit(text);
  });

  question.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
  });

  document.getElementById("new-chat").addEventListener("click", function () {
    conversationId = null;
    log.replaceChildren();
  });

  document.body.dataset.state = "idle";
  const preset = new URLSearchParams(location.search).get("q");
  if (preset) submit(preset);
})();
