"""Drive a chart in headless Chromium with the network off: move its controls and read back what it draws.

``drawn_after(chart, moves)`` writes one HTML page holding the book's bundled Vega and the chart, with a script that
records the data of the marks in the chart's ``chosen`` layer, moves each control of ``moves`` the way a reader
does (setting the bound ``<input>``/``<select>`` and firing its event), and records them again. Chromium runs it
headless with every network request refused, and the script's record comes back through the dumped DOM.
``drawn_in_page(page, moves)`` does the same to the first chart with controls in a page of the built site, as the
site draws it (the offline renderer leaves each drawn view on its element as ``vegaView``).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from minidb.book import charts
from minidb.book.explorable import CHOSEN

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")  # None where it is not installed

_SCRIPT = """
function chosen(view) {
  var out = [];
  (function walk(node, inChosen) {
    if (!node) return;
    var here = inChosen || (typeof node.name === "string" && node.name.indexOf(%(layer)s) === 0);
    (node.items || []).forEach(function (item) {
      if (here && item.datum && item.mark && item.mark.marktype !== "group") out.push(item.datum);
      walk(item, here);
    });
  })(view.scenegraph().root, false);
  return out;
}
function move(el, value) {
  if (el.tagName === "SELECT") {
    for (var i = 0; i < el.options.length; i++) if (el.options[i].text === String(value)) el.selectedIndex = i;
    el.dispatchEvent(new Event("change"));
  } else {
    el.value = String(value);
    el.dispatchEvent(new Event("input"));
  }
}
function probe(container, view, moves) {
  var record = {before: chosen(view), after: null, inputs: []};
  var inputs = container.querySelectorAll(".vega-bind input, .vega-bind select");
  inputs.forEach(function (el) { record.inputs.push(el.name || el.tagName); });
  Object.keys(moves).forEach(function (label) {
    container.querySelectorAll(".vega-bind").forEach(function (bind) {
      var name = bind.querySelector(".vega-bind-name");
      var el = bind.querySelector("input[type=range], select, input[type=radio]");
      if (name && el && name.textContent.trim() === label) move(el, moves[label]);
    });
  });
  return view.runAsync().then(function () { record.after = chosen(view); return record; });
}
function report(record) { document.getElementById("minidb-probe").textContent = JSON.stringify(record); }
function failed(e) { report({error: String(e)}); }
"""
_STANDALONE = """
vegaEmbed("#chart", %(spec)s, {renderer: "svg", actions: false}).then(function (r) {
  return probe(document.getElementById("chart"), r.view, %(moves)s);
}).then(report).catch(failed);
"""
_IN_PAGE = """
(function wait(tries) {
  var charts = Array.prototype.slice.call(document.querySelectorAll(".minidb-chart"));
  var target = charts.filter(function (el) { return el.vegaView && el.querySelector(".vega-bind"); })[0];
  if (target) { probe(target, target.vegaView, %(moves)s).then(report).catch(failed); }
  else if (tries > 0) { setTimeout(function () { wait(tries - 1); }, 100); }
  else { failed("no drawn chart with controls in the page (" + charts.length + " charts)"); }
})(150);
"""


def drawn_after(chart, moves: dict[str, object], timeout: float = 60) -> dict:
    """``{"before": [...], "after": [...], "inputs": [...]}``: the chosen layer's data before and after moving the
    controls named in ``moves`` (their labels as the page shows them) to the given values."""
    script = _SCRIPT % {"layer": json.dumps(CHOSEN)} + _STANDALONE % {"spec": json.dumps(chart.to_dict()),
                                                                      "moves": json.dumps(moves)}
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "chart.html"
        page.write_text(
            "<!doctype html><html><head><meta charset='utf-8'>"
            f"<script>{charts.vega_bundle()}</script></head><body>"
            f"<div id='chart'></div>{_OUT}<script>{script}</script></body></html>", encoding="utf-8")
        return _run(page, timeout)


def drawn_in_page(page: Path, moves: dict[str, object], timeout: float = 120) -> dict:
    """``drawn_after`` for the first chart with controls in the built ``page``, drawn by the site's own scripts."""
    script = _SCRIPT % {"layer": json.dumps(CHOSEN)} + _IN_PAGE % {"moves": json.dumps(moves)}
    text = page.read_text(encoding="utf-8")
    probe = page.with_name(f"_probe_{page.name}")  # beside the page: its relative links to _static still resolve
    probe.write_text(text.replace("</body>", f"{_OUT}<script>{script}</script></body>", 1), encoding="utf-8")
    try:
        return _run(probe, timeout)
    finally:
        probe.unlink()


_OUT = "<pre id='minidb-probe'></pre>"  # where the page's script leaves its record


def _run(page: Path, timeout: float) -> dict:
    """Open ``page`` in headless Chromium with the network off; the record its script left in ``_OUT``."""
    import html

    if CHROMIUM is None:
        raise RuntimeError("Chromium is not installed")
    result = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",  # any fetch fails: the network is off
         "--virtual-time-budget=30000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=timeout)
    # the site's theme adds attributes to every <pre> (tabindex): match the element by its id alone
    found = re.search(r'<pre id="minidb-probe"[^>]*>(.*?)</pre>', result.stdout, flags=re.S)
    if found is None:
        raise RuntimeError(f"Chromium printed no page: {result.stderr[-2000:]}")
    return json.loads(html.unescape(found.group(1)) or "{}")
