// Draws the benchmark page's series (Chart.js): the data comes from the page's JSON block and is put
// on the canvas as data and text only, so names and labels can never become markup.
"use strict";
(function () {
  const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];
  const UNITS = [[1e9, "s"], [1e6, "ms"], [1e3, "μs"], [1, "ns"]];
  function time(ns) {
    if (ns === null || ns === undefined) return "NA";
    for (const [f, u] of UNITS) if (Math.abs(ns) >= f) return (ns / f).toPrecision(4) + " " + u;
    return ns.toPrecision(4) + " ns";
  }
  function fade(hex) { return hex + "33"; }
  function draw(canvas, chart) {
    const datasets = [];
    // past a few hundred runs, dots would hide the line and cost most of the drawing: the points
    // are still there to hover and click (the nearest one along the axis answers)
    const dots = chart.labels.length > 300 ? 0 : 2.5;
    chart.lines.forEach(function (line, i) {
      const colour = COLOURS[i % COLOURS.length];
      // band first: the high edge fills down to the low edge drawn right after it
      datasets.push({label: line.runtime + " interval high", data: line.high, borderWidth: 0,
                     pointRadius: 0, fill: "+1", backgroundColor: fade(colour), spanGaps: true,
                     perflabRole: "band"});
      datasets.push({label: line.runtime + " interval low", data: line.low, borderWidth: 0,
                     pointRadius: 0, fill: false, spanGaps: true, perflabRole: "band"});
      datasets.push({label: line.runtime, data: line.mean, borderColor: colour, backgroundColor: colour,
                     pointRadius: dots, pointHoverRadius: 5, pointHitRadius: 4, borderWidth: 1.5, spanGaps: true,
                     perflabRole: "mean", perflabLine: i});
      const marks = chart.labels.map(function () { return null; });
      line.changes.forEach(function (at) { marks[at] = line.mean[at]; });
      datasets.push({label: line.runtime + " change point", data: marks, showLine: false,
                     pointStyle: "triangle", pointRadius: 9, pointHoverRadius: 11,
                     borderColor: "#000", backgroundColor: colour, perflabRole: "change"});
    });
    return new Chart(canvas, {
      type: "line",
      data: {labels: chart.labels, datasets: datasets},
      options: {
        animation: false, responsive: true, maintainAspectRatio: false, normalized: true,
        interaction: {mode: "nearest", intersect: true},
        scales: {y: {title: {display: true, text: "mean per operation"},
                     ticks: {callback: function (v) { return time(v); }}},
                 x: {ticks: {autoSkip: true, maxRotation: 60}}},
        plugins: {
          legend: {labels: {filter: function (item, data) {
            return data.datasets[item.datasetIndex].perflabRole !== "band"; }}},
          tooltip: {callbacks: {label: function (ctx) {
            const ds = ctx.dataset;
            return ds.label + ": " + time(ctx.parsed.y) + "  (run #" + chart.runs[ctx.dataIndex] + ")";
          }}}
        },
        onClick: function (event, elements) {
          const hit = elements.find(function (e) { return this_role(e) !== "band"; });
          if (hit) window.location.assign("/run/" + encodeURIComponent(chart.runs[hit.index]));
        }
      }
    });
    function this_role(e) { return datasets[e.datasetIndex].perflabRole; }
  }
  function start() {
    const block = document.getElementById("chart-data");
    if (!block || typeof Chart === "undefined") return;
    const charts = JSON.parse(block.textContent);
    document.querySelectorAll("canvas[data-chart]").forEach(function (canvas) {
      draw(canvas, charts[Number(canvas.dataset.chart)]);
    });
    document.body.dataset.chartsDrawn = String(charts.length);
    // when, since the navigation began, the last chart was drawn (bench/serve.py reads it)
    document.body.dataset.chartsDrawnMs = String(Math.round(performance.now()));
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
