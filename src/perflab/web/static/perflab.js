// Draws the benchmark page's series (Chart.js): the data comes from the page's JSON block and is put
// on the canvas as data and text only, so names and labels can never become markup.
//
// Fast with 1,000 runs and more (bench/serve.py): the x axis is linear over the runs' positions, not a
// category axis of 1,000 labels (Chart.js measured every label's width to lay it out: most of the
// drawing time); points are handed over already in Chart.js's internal form, sorted by x
// (parsing: false, normalized: true); no animation; the decimation plugin thins lines that have more
// points than the canvas has room for; Chart.js gets only the points that exist (a change mark is one
// point, not a series of empty ones).
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
  // {x: the run's position on the axis, y} for every run the values hold a figure for (null: none)
  function points(values) {
    const out = [];
    for (let i = 0; i < values.length; i++) if (values[i] !== null) out.push({x: i, y: values[i]});
    return out;
  }
  // Each line's interval band as one filled polygon (along the high edge, back along the low one)
  // under the lines. As two more datasets filled by Chart.js's filler, every run would have cost two
  // more elements per line, and the page took longer to show (bench/serve.py).
  const bands = {
    id: "perflabBands",
    afterDataLimits: function (chart, args) {  // the y axis shows the bands whole, not only the means
      const scale = args.scale;
      if (scale.axis !== "y") return;
      chart.data.datasets.forEach(function (ds, i) {
        if (!ds.perflabBand || !ds.perflabBand.length || !chart.isDatasetVisible(i)) return;
        scale.min = Math.min(scale.min, ds.perflabBandLow);
        scale.max = Math.max(scale.max, ds.perflabBandHigh);
      });
    },
    beforeDatasetsDraw: function (chart) {
      const ctx = chart.ctx, x = chart.scales.x, y = chart.scales.y, area = chart.chartArea;
      ctx.save();
      ctx.beginPath();
      ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
      ctx.clip();
      chart.data.datasets.forEach(function (ds, i) {
        const band = ds.perflabBand;
        if (!band || !chart.isDatasetVisible(i)) return;
        chart.getDatasetMeta(i).perflabBandDrawn = band.length;  // the browser tests read it
        if (!band.length) return;
        ctx.beginPath();
        for (let j = 0; j < band.length; j++) ctx.lineTo(x.getPixelForValue(band[j][0]), y.getPixelForValue(band[j][2]));
        for (let j = band.length - 1; j >= 0; j--) ctx.lineTo(x.getPixelForValue(band[j][0]), y.getPixelForValue(band[j][1]));
        ctx.closePath();
        ctx.fillStyle = ds.perflabFill;
        ctx.fill();
      });
      ctx.restore();
    }
  };
  function draw(canvas, chart) {
    const datasets = [];
    const last = chart.labels.length - 1;
    // past a few hundred runs, dots would hide the line and cost most of the drawing: the points
    // are still there to hover and click (the nearest one along the axis answers)
    const dots = chart.labels.length > 300 ? 0 : 2.5;
    chart.lines.forEach(function (line, i) {
      const colour = COLOURS[i % COLOURS.length];
      // the interval band is drawn under its line by the plugin below, from the figures themselves
      const band = [];  // [position, low, high] of the runs with an interval
      let low = Infinity, high = -Infinity;
      for (let j = 0; j < line.low.length; j++) {
        if (line.low[j] === null || line.high[j] === null) continue;
        band.push([j, line.low[j], line.high[j]]);
        low = Math.min(low, line.low[j]);
        high = Math.max(high, line.high[j]);
      }
      datasets.push({label: line.runtime, data: points(line.mean), borderColor: colour, backgroundColor: colour,
                     pointRadius: dots, pointHoverRadius: 5, pointHitRadius: 4, borderWidth: 1.5, spanGaps: true,
                     perflabRole: "mean", perflabBand: band, perflabBandLow: low, perflabBandHigh: high,
                     perflabFill: fade(colour)});
      datasets.push({label: line.runtime + " change point",
                     data: line.changes.map(function (at) { return {x: at, y: line.mean[at]}; }),
                     showLine: false, pointStyle: "triangle", pointRadius: 9, pointHoverRadius: 11,
                     borderColor: "#000", backgroundColor: colour, perflabRole: "change"});
    });
    function run(element) {  // the run of a drawn point (its x is the run's position on the axis)
      const p = datasets[element.datasetIndex].data[element.index];
      return chart.runs[p.x];
    }
    return new Chart(canvas, {
      type: "line",
      plugins: [bands],
      data: {labels: chart.labels, datasets: datasets},
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        parsing: false, normalized: true,
        interaction: {mode: "nearest", intersect: true},
        scales: {y: {title: {display: true, text: "mean per operation"},
                     ticks: {callback: function (v) { return time(v); }}},
                 // one run alone sits in the middle of the axis, not on its edge
                 x: {type: "linear", min: last ? 0 : -1, max: last ? last : 1, offset: false,
                     ticks: {maxRotation: 60, maxTicksLimit: 12, sampleSize: 12, precision: 0,
                             callback: function (v) { return Number.isInteger(v) ? (chart.labels[v] || "") : ""; }}}},
        plugins: {
          decimation: {enabled: true, algorithm: "min-max"},
          tooltip: {callbacks: {
            title: function (items) { return items.length ? chart.labels[items[0].raw.x] : ""; },
            label: function (ctx) {
              return ctx.dataset.label + ": " + time(ctx.raw.y) + "  (run #" + chart.runs[ctx.raw.x] + ")";
            }}}
        },
        onClick: function (event, elements) {
          const hit = elements[0];
          if (hit) window.location.assign("/run/" + encodeURIComponent(run(hit)));
        }
      }
    });
  }
  // The charts in view are drawn first and painted before the others are drawn, one per task: what
  // the visitor sees does not wait for the charts below the fold.
  function start() {
    const block = document.getElementById("chart-data");
    if (!block || typeof Chart === "undefined") return;
    const charts = JSON.parse(block.textContent);
    const canvases = Array.from(document.querySelectorAll("canvas[data-chart]"));
    const inView = canvases.filter(function (c) { return c.getBoundingClientRect().top < window.innerHeight; });
    const below = canvases.filter(function (c) { return inView.indexOf(c) < 0; });
    function one(canvas) { draw(canvas, charts[Number(canvas.dataset.chart)]); }
    // the times since the navigation began (bench/serve.py reads them) are taken after the frame
    // that shows the charts: the canvases are rasterised after the script that draws them
    function afterPaint(fn) { requestAnimationFrame(function () { setTimeout(fn, 0); }); }
    inView.forEach(one);
    afterPaint(function next() {
      if (!document.body.dataset.chartsInViewPaintedMs) {
        document.body.dataset.chartsInViewPaintedMs = String(Math.round(performance.now()));
      }
      if (below.length) {
        one(below.shift());
        afterPaint(next);
        return;
      }
      document.body.dataset.chartsDrawn = String(charts.length);
      document.body.dataset.chartsPaintedMs = String(Math.round(performance.now()));
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
