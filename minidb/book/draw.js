// window.minidbDraw(el, spec): how the book draws a chart in its element (minidb.book.charts.offline_html).
//
// vega-embed with the SVG renderer (text a reader can select and zoom, marks a test can find), the chart's menu
// offering to save the chart only, and two things vega-embed leaves undone:
// * the menu's button is an icon: it gets a name a screen reader says ("Chart menu: save as SVG or PNG");
// * a step slider (minidb.book.explorable: a slider over the steps of uneven values, a cache that doubles) shows
//   the value of its step, in the parameter's unit, where Vega writes the step's number.
// The drawn view stays on the element (el.vegaView): a reader's console, or a test, can ask what it draws.
window.minidbDraw = function (el, spec) {
  var options = {renderer: "svg", actions: {export: true, source: false, compiled: false, editor: false},
                 patch: describeMarks};
  return window.vegaEmbed(el, spec, options).then(function (result) {
    el.vegaView = result.view;
    var summary = el.querySelector("details > summary");
    if (summary) {
      summary.setAttribute("aria-label", "Chart menu: save as SVG or PNG");
      summary.setAttribute("title", "Save the chart");
    }
    var steps = ((spec.usermeta || {}).minidb || {}).steps || {};
    Object.keys(steps).forEach(function (name) { showStepValue(el, name, steps[name]); });
    return result;
  });
};

// Every group of marks gets a name a screen reader says ("published marks", "reproduced marks"), which Vega-Lite
// gives only to the marks themselves: a group with no marks (no published figure at the value chosen) has none.
function describeMarks(vega) {
  (function walk(marks) {
    (marks || []).forEach(function (mark) {
      if (mark.name && mark.description === undefined && mark.aria !== false) {
        mark.description = mark.name.replace(/_/g, " ");
      }
      walk(mark.marks);
    });
  })(vega.marks);
  return vega;
}

// The step slider bound to parameter `name` shows values[step - 1] + unit, where Vega shows the step.
function showStepValue(el, name, step) {
  var input = el.querySelector('.vega-bind input[name="' + name + '"]');
  var shown = input && input.nextElementSibling;  // the <span> where Vega writes the slider's value
  if (!shown) return;
  function update() {
    var text = step.values[Number(input.value) - 1].toLocaleString("en-US") + step.unit;
    shown.textContent = text;
    input.setAttribute("aria-valuetext", text);
  }
  input.addEventListener("input", update);  // after Vega's own listener, which writes the step
  update();
}
