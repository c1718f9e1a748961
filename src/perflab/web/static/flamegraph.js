/* perflab's flame graph: collapsed stacks drawn as an icicle (root on top), click a frame to zoom,
 * click the root to zoom out. A difference flame graph takes widths from the new profile and colours
 * each frame by the change of its self share (red: grew, blue: shrank).
 *
 * Data: <script type="application/json" id="ID"> {"stacks": [["a;b;c", n], ...], "base": [...] or null,
 * "own": ["frame", ...], "title": "..."}; a <div class="perflab-flame" data-source="ID"> draws it.
 * Frame names are user data: they reach the page only as textContent and title attributes, never markup.
 * No dependencies (perflab writes its own: no small, kept-up, dependency-free flame graph on npm drew
 * collapsed stacks as a flame graph rather than a time-line flame chart).
 */
(function () {
  "use strict";
  var ROW = 18;

  function build(stacks) {
    var root = { name: "all", value: 0, self: 0, children: new Map() };
    (stacks || []).forEach(function (item) {
      var frames = String(item[0]).split(";"), n = Number(item[1]) || 0, node = root;
      root.value += n;
      frames.forEach(function (f) {
        var child = node.children.get(f);
        if (!child) { child = { name: f, value: 0, self: 0, children: new Map() }; node.children.set(f, child); }
        child.value += n;
        node = child;
      });
      node.self += n;
    });
    return root;
  }

  function lookup(root, path) {  // the node at `path` (frame names below the root), or null
    var node = root;
    for (var i = 0; i < path.length && node; i++) node = node.children.get(path[i]) || null;
    return node;
  }

  function colour(node, own, diff) {
    if (diff) {
      var d = diff(node);  // change of self share, -1..1; 0 within sampling noise
      var k = Math.min(1, Math.abs(d) * 10);
      if (d === 0) return "rgb(220,220,220)";
      var c = Math.round(220 - 160 * k);
      return d > 0 ? "rgb(235," + c + "," + c + ")" : "rgb(" + c + "," + c + ",235)";
    }
    if (node.name.charAt(0) === "[") return "rgb(200,200,200)";
    if (own.has(node.name)) return "rgb(240,140,40)";
    var h = 0;
    for (var i = 0; i < node.name.length; i++) h = (h * 31 + node.name.charCodeAt(i)) | 0;
    return "rgb(230," + (170 + Math.abs(h) % 60) + ",90)";
  }

  // The change of a frame's self share when sampling noise does not explain it (more than NOISE_Z
  // standard errors of two pooled proportions), else 0: report/flame.py's beyond_noise, the same rule.
  var NOISE_Z = 3;
  function beyondNoise(selfOld, totalOld, selfNew, totalNew) {
    if (!(totalOld > 0) || !(totalNew > 0)) return 0;
    var d = selfNew / totalNew - selfOld / totalOld;
    var p = (selfOld + selfNew) / (totalOld + totalNew);
    var se = Math.sqrt(p * (1 - p) * (1 / totalOld + 1 / totalNew));
    return Math.abs(d) > NOISE_Z * se ? d : 0;
  }

  function pct(x) { return (100 * x).toFixed(x < 0.001 ? 3 : 1) + "%"; }

  function draw(el, data) {
    var root = build(data.stacks), base = data.base ? build(data.base) : null;
    var own = new Set(data.own || []);
    var total = root.value || 1, baseTotal = base ? (base.value || 1) : 1;
    var diff = base ? function (node) {
      var b = lookup(base, node.path);
      return beyondNoise(b ? b.self : 0, base.value, node.self, root.value);
    } : null;
    var width = el.clientWidth || 1000, zoom = root;
    var info = document.createElement("div");
    info.className = "flame-info";
    var canvas = document.createElement("div");
    canvas.className = "flame-canvas";
    canvas.style.position = "relative";
    el.textContent = "";
    el.appendChild(info);
    el.appendChild(canvas);

    function describe(node) {
      var text = node.name + " — " + node.value + " samples, " + pct(node.value / total) +
        " (self " + pct(node.self / total) + ")";
      if (base) {
        var b = lookup(base, node.path);
        text += "; before: " + (b ? pct(b.value / baseTotal) + " (self " + pct(b.self / baseTotal) + ")" : "absent");
      }
      return text;
    }

    function annotate(node, path) {
      node.path = path;
      node.children.forEach(function (c) { annotate(c, path.concat([c.name])); });
    }
    annotate(root, []);

    function render() {
      canvas.textContent = "";
      var scale = width / (zoom.value || 1), depth = 0, frag = document.createDocumentFragment();
      function place(node, x, level) {
        var w = node.value * scale;
        if (w < 0.5) return;
        depth = Math.max(depth, level + 1);
        var d = document.createElement("div");
        d.className = "flame-frame" + (own.has(node.name) ? " flame-own" : "");
        d.style.cssText = "position:absolute;overflow:hidden;white-space:nowrap;box-sizing:border-box;" +
          "border:1px solid #fff;font:11px sans-serif;line-height:" + (ROW - 2) + "px;padding:0 2px;cursor:pointer;" +
          "left:" + x + "px;top:" + level * ROW + "px;width:" + w + "px;height:" + ROW + "px;background:" +
          colour(node, own, diff);
        if (w > 30) d.textContent = node.name;  // text, never markup
        d.title = describe(node);
        d.addEventListener("click", function () { zoom = node === zoom ? root : node; render(); });
        d.addEventListener("mouseenter", function () { info.textContent = describe(node); });
        frag.appendChild(d);
        var cx = x;
        node.children.forEach(function (c) { place(c, cx, level + 1); cx += c.value * scale; });
      }
      var chain = [], n = zoom;  // the zoomed frame's ancestors, full width above it
      var level = 0;
      zoom.path.forEach(function (_, i) { chain.push(lookup(root, zoom.path.slice(0, i))); });
      chain.forEach(function (a) {
        var d = document.createElement("div");
        d.style.cssText = "position:absolute;left:0;width:" + width + "px;top:" + level * ROW + "px;height:" + ROW +
          "px;background:#eee;font:11px sans-serif;line-height:" + (ROW - 2) + "px;cursor:pointer;overflow:hidden;white-space:nowrap";
        d.textContent = a.name;
        d.title = "zoom out to " + a.name;
        d.addEventListener("click", function () { zoom = a; render(); });
        frag.appendChild(d);
        level++;
      });
      place(n, 0, level);
      canvas.style.height = (Math.max(depth, level + 1) * ROW) + "px";
      canvas.appendChild(frag);
      el.setAttribute("data-frames", String(canvas.childNodes.length));
    }
    info.textContent = describe(root);
    render();
  }

  function start() {
    var els = document.querySelectorAll(".perflab-flame");
    for (var i = 0; i < els.length; i++) {
      var src = document.getElementById(els[i].getAttribute("data-source"));
      if (!src) continue;
      var t0 = Date.now();
      draw(els[i], JSON.parse(src.textContent));
      els[i].setAttribute("data-drawn-ms", String(Date.now() - t0));
    }
  }
  window.perflabFlame = { build: build, draw: draw, beyondNoise: beyondNoise };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
