// A small, safe markdown renderer for OpsAgent answers: HTML is escaped first, then only the
// constructs the agents produce are turned into tags (headings, lists, tables, quotes, code,
// bold, italics, http(s) links). No raw HTML from an answer ever reaches the page.
(function () {
  "use strict";

  function escapeHtml(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }

  // Inline rules run on already-escaped text; code spans are cut out first so nothing inside changes.
  function inline(escaped) {
    const spans = [];
    let out = escaped.replace(/`([^`]+)`/g, function (_, code) {
      spans.push("<code>" + code + "</code>");
      return "\u0000" + (spans.length - 1) + "\u0000";
    });
    out = out.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
      .replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>")
      .replace(/(^|[\s(])_([^_\s][^_]*)_/g, "$1<em>$2</em>")
      .replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, '<a href="$2" rel="noopener noreferrer" target="_blank">$1</a>');
    return out.replace(/\u0000(\d+)\u0000/g, function (_, i) { return spans[Number(i)]; });
  }

  function cells(line) {
    return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map(function (c) { return c.trim(); });
  }

  function table(lines) {
    const head = cells(lines[0]).map(function (c) { return "<th>" + inline(c) + "</th>"; }).join("");
    const body = lines.slice(2).map(function (row) {
      return "<tr>" + cells(row).map(function (c) { return "<td>" + inline(c) + "</td>"; }).join("") + "</tr>";
    }).join("");
    return "<table><thead><tr>" + head + "</tr></thead><tbody>" + body + "</tbody></table>";
  }

  function list(lines, ordered) {
    const items = lines.map(function (l) {
      return "<li>" + inline(l.replace(/^\s*([-*+]|\d+[.)])\s+/, "")) + "</li>";
    }).join("");
    return ordered ? "<ol>" + items + "</ol>" : "<ul>" + items + "</ul>";
  }

  const BULLET = /^\s*[-*+]\s+/, NUMBERED = /^\s*\d+[.)]\s+/, TABLE_SEP = /^\s*\|?\s*:?-{2,}/;

  function takeWhile(lines, start, test) {
    let end = start;
    while (end < lines.length && test(lines[end])) end++;
    return end;
  }

  function render(markdown) {
    const lines = escapeHtml(String(markdown || "")).split(/\r?\n/);
    const html = [];
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      let end;
      if (/^```/.test(line)) {
        end = takeWhile(lines, i + 1, function (l) { return !/^```/.test(l); });
        html.push("<pre><code>" + lines.slice(i + 1, end).join("\n") + "</code></pre>");
        i = end + 1;
      } else if (/^#{1,6}\s/.test(line)) {
        const level = Math.min(line.match(/^#+/)[0].length + 2, 6);
        html.push("<h" + level + ">" + inline(line.replace(/^#+\s*/, "")) + "</h" + level + ">");
        i++;
      } else if (/^\s*\|/.test(line) && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1])) {
        end = takeWhile(lines, i + 2, function (l) { return /^\s*\|/.test(l); });
        html.push(table(lines.slice(i, end)));
        i = end;
      } else if (BULLET.test(line) || NUMBERED.test(line)) {
        const ordered = NUMBERED.test(line);
        end = takeWhile(lines, i, function (l) { return ordered ? NUMBERED.test(l) : BULLET.test(l); });
        html.push(list(lines.slice(i, end), ordered));
        i = end;
      } else if (/^&gt;\s?/.test(line)) {
        end = takeWhile(lines, i, function (l) { return /^&gt;\s?/.test(l); });
        const quoted = lines.slice(i, end).map(function (l) { return l.replace(/^&gt;\s?/, ""); }).join("\n");
        html.push("<blockquote>" + render(unescapeForNesting(quoted)) + "</blockquote>");
        i = end;
      } else if (!line.trim()) {
        i++;
      } else {
        end = takeWhile(lines, i, function (l) {
          return l.trim() && !/^(```|#{1,6}\s|\s*\||&gt;)/.test(l) && !BULLET.test(l) && !NUMBERED.test(l);
        });
        html.push("<p>" + lines.slice(i, Math.max(end, i + 1)).map(inline).join("<br>") + "</p>");
        i = Math.max(end, i + 1);
      }
    }
    return html.join("\n");
  }

  // A quoted block is rendered recursively; undo the escaping once so it is not escaped twice.
  function unescapeForNesting(text) {
    return text.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&gt;/g, ">").replace(/&lt;/g, "<")
      .replace(/&amp;/g, "&");
  }

  window.OpsMarkdown = { render: render, escapeHtml: escapeHtml };
})();
