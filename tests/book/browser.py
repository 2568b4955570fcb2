"""Drive a chart in headless Chromium with the network off: move its controls and read back what it draws.

``drawn_after(chart, moves)`` writes one HTML page holding the book's bundled Vega and the chart, with a script that
records the data of the marks in the chart's ``chosen`` layer, moves each control of ``moves`` the way a reader
does (setting the bound ``<input>``/``<select>`` and firing its event), and records them again. Chromium runs it
headless with every network request refused, and the script's record comes back through the dumped DOM.
"""

from __future__ import annotations

import json
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
vegaEmbed("#chart", %(spec)s, {renderer: "svg", actions: false}).then(function (r) {
  var record = {before: chosen(r.view), after: null, inputs: []};
  var moves = %(moves)s;
  var inputs = document.querySelectorAll("#chart .vega-bind input, #chart .vega-bind select");
  inputs.forEach(function (el) { record.inputs.push(el.name || el.tagName); });
  Object.keys(moves).forEach(function (label) {
    document.querySelectorAll("#chart .vega-bind").forEach(function (bind) {
      var name = bind.querySelector(".vega-bind-name");
      var el = bind.querySelector("input[type=range], select, input[type=radio]");
      if (name && el && name.textContent.trim() === label) move(el, moves[label]);
    });
  });
  return r.view.runAsync().then(function () {
    record.after = chosen(r.view);
    document.getElementById("out").textContent = JSON.stringify(record);
  });
}).catch(function (e) { document.getElementById("out").textContent = JSON.stringify({error: String(e)}); });
"""


def drawn_after(chart, moves: dict[str, object], timeout: float = 60) -> dict:
    """``{"before": [...], "after": [...], "inputs": [...]}``: the chosen layer's data before and after moving the
    controls named in ``moves`` (their labels as the page shows them) to the given values."""
    if CHROMIUM is None:
        raise RuntimeError("Chromium is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "chart.html"
        script = _SCRIPT % {"spec": json.dumps(chart.to_dict()), "moves": json.dumps(moves),
                            "layer": json.dumps(CHOSEN)}
        page.write_text(
            "<!doctype html><html><head><meta charset='utf-8'>"
            f"<script>{charts.vega_bundle()}</script></head><body>"
            "<div id='chart'></div><pre id='out'></pre>"
            f"<script>{script}</script></body></html>", encoding="utf-8")
        result = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",  # any fetch fails: the network is off
             "--virtual-time-budget=20000", "--dump-dom", page.as_uri()],
            capture_output=True, text=True, timeout=timeout)
    start = result.stdout.find('<pre id="out">')
    if start < 0:
        raise RuntimeError(f"Chromium printed no page: {result.stderr[-2000:]}")
    text = result.stdout[start + len('<pre id="out">'):result.stdout.index("</pre>", start)]
    import html

    return json.loads(html.unescape(text) or "{}")
