"""The book's helpers: what the chapters of the Jupyter Book use beside the engines and the experiments.

* ``charts``: Altair charts in the book's look, published beside reproduced, rendered offline;
* ``explorable``: a sweep's grid in the page, with sliders and dropdowns that pick what is drawn;
* ``prose``: sentences whose figures come from the run, and the verdict table a chapter shows.
"""
