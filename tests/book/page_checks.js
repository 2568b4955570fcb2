// What tests/book/test_pages.py measures in a page of the built site, as the reader's window shows it.
// Evaluated in the page once it has loaded; resolves to a record the test asserts on:
//   charts  - how many charts the page has, and how many Vega drew
//   wide    - charts, tables and formulas wider than the text column, outside an element marked to scroll
//   hidden  - charts whose reproduced marks are not all in the window once the chart is scrolled into view
//   clipped - charts with text (a title, a label, a legend entry) outside the drawing, where it is cut off
//   failed  - the text of charts that did not draw
(async function () {
  const SCROLLS = ".minidb-scroll";  // an element marked to scroll sideways (and saying so)
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const charts = Array.from(document.querySelectorAll(".minidb-chart"));
  for (let tries = 0; tries < 300 && charts.some((el) => !el.vegaView && !el.textContent.trim()); tries++) {
    await sleep(50);
  }
  const mathjax = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
  if (mathjax) await mathjax;  // the formulas set (and the page's script fitting them to the column)
  await sleep(100);  // the views render on the next frame
  const record = {charts: charts.length, drawn: 0, wide: [], hidden: [], clipped: [], failed: []};

  const article = document.querySelector("article.bd-article") || document.body;
  const style = getComputedStyle(article);
  const outer = article.getBoundingClientRect();
  const column = {left: outer.left + parseFloat(style.paddingLeft),
                  right: outer.right - parseFloat(style.paddingRight)};
  const name = (el) => {
    const chart = el.closest(".minidb-chart");
    if (chart) return "chart " + (charts.indexOf(chart) + 1) + " (" + chartTitle(chart) + ")";
    const section = el.closest("section[id]");
    return el.tagName.toLowerCase() + " in #" + (section ? section.id : "?") + ": " +
      el.textContent.trim().slice(0, 60).replace(/\s+/g, " ");
  };
  const chartTitle = (chart) => {
    const title = chart.querySelector("svg.marks .role-title-text, svg.marks .role-title text");
    if (!title) return "untitled";
    const lines = Array.from(title.querySelectorAll("tspan")).map((t) => t.textContent);
    return (lines.length ? lines.join(" ") : title.textContent).slice(0, 60);
  };

  // 1. nothing wider than the text column, unless it is marked to scroll
  const measured = [
    ...charts.map((el) => el.querySelector("svg.marks, canvas.marks")).filter(Boolean),
    ...article.querySelectorAll("table"),
    ...article.querySelectorAll("mjx-container[display='true']"),
  ];
  for (const el of measured) {
    if (el.closest(SCROLLS)) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0) continue;  // not shown (a closed dropdown)
    if (r.left < column.left - 1 || r.right > column.right + 1) {
      record.wide.push(name(el) + ": " + Math.round(r.width) + " px in a column of " +
                       Math.round(column.right - column.left));
    } else if (el.tagName.toLowerCase() === "mjx-container" && el.scrollWidth > el.clientWidth + 1) {
      record.wide.push("a formula in #" + (el.closest("section[id]") || {}).id + " is cut off: " + el.scrollWidth +
                       " px in " + el.clientWidth);
    }
  }

  // 2. no text of a chart cut off at the edge of its drawing
  for (const chart of charts) {
    const svg = chart.querySelector("svg.marks");
    if (!svg) continue;
    const box = svg.getBoundingClientRect();
    const cut = Array.from(svg.querySelectorAll("text")).filter((t) => {
      const r = t.getBoundingClientRect();
      return r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1);
    });
    if (cut.length) {
      record.clipped.push(name(chart) + ": " + cut.map((t) => JSON.stringify(t.textContent)).slice(0, 4).join(", "));
    }
  }

  // 3. the reproduced marks of every chart in the window once the chart is scrolled into view
  const header = document.querySelector(".bd-header-article, header.bd-header");
  for (const chart of charts) {
    if (!chart.vegaView) {
      record.failed.push(chart.textContent.trim().slice(0, 200));
      continue;
    }
    record.drawn++;
    chart.scrollIntoView({block: "center"});
    await sleep(30);
    const top = header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
    const view = {left: 0, top: top, right: window.innerWidth, bottom: window.innerHeight};
    const box = chart.getBoundingClientRect();  // the chart's own box, where it clips what scrolls
    const clip = {left: Math.max(view.left, box.left), right: Math.min(view.right, box.right),
                  top: view.top, bottom: view.bottom};
    let groups = chart.querySelectorAll("g.role-mark[class*='reproduced'], g.role-mark[class*='chosen']");
    if (!groups.length) {  // a chart of ours alone: every mark that draws data
      groups = Array.from(chart.querySelectorAll("g.role-mark")).filter((g) =>
        !g.closest(".role-axis, .role-legend, .role-title") && !/published|ghost/.test(g.getAttribute("class")));
    }
    let marks = 0, out = 0;
    for (const group of groups) {
      for (const item of group.children) {
        const r = item.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) continue;
        marks++;
        if (r.left < clip.left - 1 || r.right > clip.right + 1 || r.top < clip.top - 1 || r.bottom > clip.bottom + 1) {
          out++;
        }
      }
    }
    if (out) record.hidden.push(name(chart) + ": " + out + " of " + marks + " reproduced marks outside the window");
  }
  window.scrollTo(0, 0);
  return record;
})()
